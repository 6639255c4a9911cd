//! The `verify_isa` setting's findings: the fragment shader's machine code as the driver
//! returned it — VK_KHR_pipeline_executable_properties' "Assembly" representation, or the
//! fragment shader's binary data from VK_KHR_pipeline_binary — checked as `pops verify-isa`
//! checks it — every path against the article's rules, the entry sequence in the ordering
//! model — turned into the record's diagnostics. Pure: code in, diagnostics out.

use parking_lot::Mutex;
use pm4::GfxLevel;
use pops_report::finding::{Code, Isa};
use pops_report::{Diagnostic, Severity};
use shaders::isa::Encoding;
use shaders::verify;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The driver's code of a fragment shader, as the layer got it.
#[derive(Clone, Copy, Debug)]
pub enum DriverCode<'a> {
    /// The "Assembly" (or "Disassembly") internal representation's text.
    Text(&'a str),
    /// One pipeline binary's data (`vkGetPipelineBinaryDataKHR`): RADV's serialized shader.
    Binary(&'a [u8]),
}

impl DriverCode<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            DriverCode::Text(t) => t.as_bytes(),
            DriverCode::Binary(b) => b,
        }
    }
}

type Verified = Mutex<(
    HashMap<(GfxLevel, bool, Arc<[u8]>), Arc<[Diagnostic]>, crate::FastHash>,
    usize,
)>;

/// How many bytes of code [`diagnostics_cached`] keeps (4 MiB).
pub const VERIFIED_CACHE_BYTES: usize = 4 << 20;

/// [`diagnostics`] of `code`, or those of the same code verified before in this process. The
/// verdict is a function of the code alone, and drivers return the same code for pipelines that
/// share a fragment shader and the state it is compiled with (engines create many such
/// pipelines). At most [`VERIFIED_CACHE_BYTES`] of code are kept; when full it starts over.
pub fn diagnostics_cached(level: GfxLevel, code: DriverCode) -> Arc<[Diagnostic]> {
    static CACHE: OnceLock<Verified> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let bytes = code.bytes();
    let key = (
        level,
        matches!(code, DriverCode::Binary(_)),
        Arc::<[u8]>::from(bytes),
    );
    if let Some(hit) = cache.lock().0.get(&key) {
        return hit.clone();
    }
    // Verified outside the lock: other threads keep creating pipelines meanwhile.
    let out: Arc<[Diagnostic]> = diagnostics(level, code).into();
    if bytes.len() <= VERIFIED_CACHE_BYTES {
        let mut guard = cache.lock();
        let (map, held) = &mut *guard;
        if *held + bytes.len() > VERIFIED_CACHE_BYTES {
            map.clear();
            *held = 0;
        }
        if map.insert(key, out.clone()).is_none() {
            *held += bytes.len();
        }
    }
    out
}

/// The diagnostics of the code the driver compiled for `level`: one error per broken rule, one
/// for the model rejecting the entry sequence, or one note that it keeps every rule.
pub fn diagnostics(level: GfxLevel, code: DriverCode) -> Vec<Diagnostic> {
    let not_verified = |why: String| {
        vec![Diagnostic::new(
            Severity::Info,
            Code::ISA_NOT_VERIFIED,
            format!("the driver's code of the fragment shader could not be read as {level} machine code ({why}): not verified"),
        )]
    };
    let enc = Encoding::of(level);
    let read = match code {
        DriverCode::Text(text) => verify::read(enc, text).map_err(|e| e.to_string()),
        DriverCode::Binary(data) => verify::radv_binary::machine_code(data)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                verify::words(enc, &verify::radv_binary::words(c))
                    .map(|i| (verify::Format::RadvBinary, i))
                    .map_err(|e| e.to_string())
            }),
    };
    match read {
        Ok((format, code)) => judge(level, format, &code),
        Err(e) => not_verified(e),
    }
}

/// The verdict on decoded code.
fn judge(level: GfxLevel, format: verify::Format, code: &[verify::Instr]) -> Vec<Diagnostic> {
    let report = verify::verify(level, code);
    let mut out: Vec<Diagnostic> = report
        .findings
        .iter()
        .map(|f| {
            Diagnostic::new(
                Severity::Error,
                Code::Isa(Isa::Rule(f.rule)),
                format!(
                    "the driver's code: {} at 0x{:x} ({}), path {}; rule: {}",
                    f.message,
                    f.addr,
                    f.text,
                    f.path
                        .iter()
                        .map(|a| format!("0x{a:x}"))
                        .collect::<Vec<_>>()
                        .join(" -> "),
                    f.rule.sentence()
                ),
            )
        })
        .collect();
    match verify::model::run(level, code) {
        // The model broke the ordering contract: a finding.
        Err(e @ verify::model::ModelFinding::Breach { .. }) => out.push(Diagnostic::new(
            Severity::Error,
            Code::ISA_MODEL,
            format!("the driver's entry sequence in the ordering model: {e}"),
        )),
        // An instruction the model cannot run breaks no rule: the ordering is not verified, as
        // `pops verify-isa` says (a note where no rule is broken; the findings stand otherwise).
        Err(e @ verify::model::ModelFinding::Uninterpreted { .. }) if out.is_empty() => {
            out.push(Diagnostic::new(
                Severity::Info,
                Code::ISA_NOT_VERIFIED,
                format!("the driver's code keeps every ordered-section rule on every path ({} instructions), but its entry sequence could not be run in the ordering model ({e}): the ordering is not verified", report.instructions),
            ))
        }
        Err(verify::model::ModelFinding::Uninterpreted { .. }) => {}
        Ok(m) if out.is_empty() => out.push(Diagnostic::new(
            Severity::Info,
            Code::ISA_VERIFIED,
            format!(
                "the driver's code ({}: {} instructions, {} exit(s){}) keeps every ordered-section rule on every path, and its entry sequence ran in the ordering model ({} waves, {} wave-ID wraparounds) in primitive order",
                format.name(),
                report.instructions,
                report.exits.len(),
                if report
                    .exits
                    .iter()
                    .any(|e| e.kind == verify::ExitKind::EpilogJump)
                {
                    ", exports in a PS epilog"
                } else {
                    ""
                },
                m.waves,
                m.wraps
            ),
        )),
        Ok(_) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACO's real code for navi21 keeps every rule; the same with its done message removed is
    /// an error naming the rule; text that is no code is a note, never a failure.
    #[test]
    fn findings_become_diagnostics() {
        let text = include_str!("../../cli/tests/data/aco-navi21-discards.txt");
        let d = diagnostics(GfxLevel::Gfx10_3, DriverCode::Text(text));
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code.name(), "isa-verified");
        let broken = text.replacen(
            "\ts_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007",
            "\ts_nop 0 ; bf800000",
            1,
        );
        let d = diagnostics(GfxLevel::Gfx10_3, DriverCode::Text(&broken));
        assert!(
            d.iter()
                .all(|x| x.code.name() == "isa-ordered-ps-done-missing"
                    && x.severity == Severity::Error),
            "{d:?}"
        );
        assert!(!d.is_empty());
        let d = diagnostics(GfxLevel::Gfx10_3, DriverCode::Text("no code here"));
        assert_eq!(d[0].code.name(), "isa-not-verified");
    }

    /// An entry sequence the ordering model cannot run (here a 64-bit move of a floating-point
    /// constant) breaks no rule: a note that the ordering is not verified, never an error.
    #[test]
    fn code_the_model_cannot_run_is_not_verified_not_an_error() {
        let text = include_str!("../../cli/tests/data/aco-navi21-discards.txt");
        let nop = "\ts_nop 0                                                     ; bf800000";
        assert!(text.contains(nop));
        let odd = text.replacen(nop, "\ts_mov_b64 s[10:11], 0.5 ; be8a04f0", 1);
        let d = diagnostics(GfxLevel::Gfx10_3, DriverCode::Text(&odd));
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (d[0].code.name(), d[0].severity),
            ("isa-not-verified", Severity::Info)
        );
        assert!(d[0].message.contains("operand 240"), "{d:?}");
    }

    /// The code in RADV's pipeline binary is verified as its "Assembly" is: the same
    /// instructions, the same verdict (the data: RADV 25.0.7's binary of a navi21 fragment
    /// shader with pixel interlock, and its captured "Assembly"); a binary in another layout is
    /// a note, never a finding.
    #[test]
    fn a_binary_is_verified_as_its_assembly() {
        let data = include_bytes!("../../cli/tests/data/radv-navi21-pixel-interlock.binary");
        let text = include_str!("../../cli/tests/data/radv-navi21-pixel-interlock.txt");
        let from_binary = diagnostics(GfxLevel::Gfx10_3, DriverCode::Binary(data));
        let from_text = diagnostics(GfxLevel::Gfx10_3, DriverCode::Text(text));
        assert_eq!(from_binary.len(), 1, "{from_binary:?}");
        assert_eq!(from_binary[0].code.name(), "isa-verified");
        let counts = |d: &Diagnostic| {
            d.message
                .split_once(" instructions")
                .map(|(a, _)| a.rsplit(' ').next().unwrap().to_string())
        };
        assert_eq!(counts(&from_binary[0]), counts(&from_text[0]));
        // The done message taken out of the binary: the rule's error, as from the text.
        let done = 0xbf90_0007u32.to_le_bytes();
        let mut broken = data.to_vec();
        let at = broken
            .windows(4)
            .position(|w| w == done)
            .expect("s_sendmsg MSG_ORDERED_PS_DONE");
        broken[at..at + 4].copy_from_slice(&0xbf80_0000u32.to_le_bytes());
        let d = diagnostics(GfxLevel::Gfx10_3, DriverCode::Binary(&broken));
        assert!(!d.is_empty());
        assert!(
            d.iter()
                .all(|x| x.code.name() == "isa-ordered-ps-done-missing"),
            "{d:?}"
        );
        let elf = diagnostics(
            GfxLevel::Gfx10_3,
            DriverCode::Binary(b"\x7fELF\x02\x01\x01\0"),
        );
        assert_eq!(elf[0].code.name(), "isa-not-verified");
        assert!(
            elf[0].message.contains("not RADV's serialized shader"),
            "{elf:?}"
        );
    }

    /// A verdict kept is the verdict of that very text and chip: the same again, while a text
    /// that differs in one instruction, or the same text for another chip, is verified anew.
    #[test]
    fn kept_verdicts_are_per_text_and_chip() {
        let text = include_str!("../../cli/tests/data/aco-navi21-discards.txt");
        let clean = diagnostics_cached(GfxLevel::Gfx10_3, DriverCode::Text(text));
        assert_eq!(clean[0].code.name(), "isa-verified");
        let broken = text.replacen(
            "\ts_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007",
            "\ts_nop 0 ; bf800000",
            1,
        );
        assert!(
            diagnostics_cached(GfxLevel::Gfx10_3, DriverCode::Text(&broken))
                .iter()
                .all(|x| x.severity == Severity::Error)
        );
        assert_eq!(
            diagnostics_cached(GfxLevel::Gfx10_3, DriverCode::Text(text)),
            clean
        );
        assert_eq!(
            &*diagnostics_cached(GfxLevel::Gfx11, DriverCode::Text(text)),
            &diagnostics(GfxLevel::Gfx11, DriverCode::Text(text))[..]
        );
    }
}
