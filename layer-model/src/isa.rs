//! The `verify_isa` setting's findings: the fragment shader's machine code as the driver
//! returned it (VK_KHR_pipeline_executable_properties' "Assembly" representation) checked as
//! `pops verify-isa` checks it — every path against the article's rules, the entry sequence in
//! the ordering model — turned into the record's diagnostics. Pure: text in, diagnostics out.

use parking_lot::Mutex;
use pm4::GfxLevel;
use pops_report::{Diagnostic, Severity};
use shaders::isa::Encoding;
use shaders::verify;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

type Verified = Mutex<(
    HashMap<(GfxLevel, Arc<str>), Arc<[Diagnostic]>, crate::FastHash>,
    usize,
)>;

/// How many bytes of code text [`diagnostics_cached`] keeps (4 MiB).
pub const VERIFIED_CACHE_BYTES: usize = 4 << 20;

/// [`diagnostics`] of `text`, or those of the same text verified before in this process. The
/// verdict is a function of the code alone, and drivers return the same code for pipelines that
/// share a fragment shader and the state it is compiled with (engines create many such
/// pipelines). At most [`VERIFIED_CACHE_BYTES`] of text are kept; when full it starts over.
pub fn diagnostics_cached(level: GfxLevel, text: &str) -> Arc<[Diagnostic]> {
    static CACHE: OnceLock<Verified> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (level, Arc::<str>::from(text));
    if let Some(hit) = cache.lock().0.get(&key) {
        return hit.clone();
    }
    // Verified outside the lock: other threads keep creating pipelines meanwhile.
    let out: Arc<[Diagnostic]> = diagnostics(level, text).into();
    if text.len() <= VERIFIED_CACHE_BYTES {
        let mut guard = cache.lock();
        let (map, held) = &mut *guard;
        if *held + text.len() > VERIFIED_CACHE_BYTES {
            map.clear();
            *held = 0;
        }
        if map.insert(key, out.clone()).is_none() {
            *held += text.len();
        }
    }
    out
}

/// The diagnostics of the code `text` the driver compiled for `level`: one error per broken
/// rule, one for the model rejecting the entry sequence, or one note that it keeps every rule.
pub fn diagnostics(level: GfxLevel, text: &str) -> Vec<Diagnostic> {
    let (format, code) = match verify::read(Encoding::of(level), text) {
        Ok(c) => c,
        Err(e) => {
            return vec![Diagnostic::new(
                Severity::Info,
                "isa-not-verified",
                format!("the driver's code of the fragment shader could not be read as {level} machine code ({e}): not verified"),
            )]
        }
    };
    let report = verify::verify(level, &code);
    let mut out: Vec<Diagnostic> = report
        .findings
        .iter()
        .map(|f| {
            Diagnostic::new(
                Severity::Error,
                &format!("isa-{}", f.rule.code()),
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
    match verify::model::run(level, &code) {
        Err(e) => out.push(Diagnostic::new(
            Severity::Error,
            "isa-model",
            format!("the driver's entry sequence in the ordering model: {e}"),
        )),
        Ok(m) if out.is_empty() => out.push(Diagnostic::new(
            Severity::Info,
            "isa-verified",
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
        let d = diagnostics(GfxLevel::Gfx10_3, text);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, "isa-verified");
        let broken = text.replacen(
            "\ts_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007",
            "\ts_nop 0 ; bf800000",
            1,
        );
        let d = diagnostics(GfxLevel::Gfx10_3, &broken);
        assert!(
            d.iter()
                .all(|x| x.code == "isa-ordered-ps-done-missing" && x.severity == Severity::Error),
            "{d:?}"
        );
        assert!(!d.is_empty());
        let d = diagnostics(GfxLevel::Gfx10_3, "no code here");
        assert_eq!(d[0].code, "isa-not-verified");
    }

    /// A verdict kept is the verdict of that very text and chip: the same again, while a text
    /// that differs in one instruction, or the same text for another chip, is verified anew.
    #[test]
    fn kept_verdicts_are_per_text_and_chip() {
        let text = include_str!("../../cli/tests/data/aco-navi21-discards.txt");
        let clean = diagnostics_cached(GfxLevel::Gfx10_3, text);
        assert_eq!(clean[0].code, "isa-verified");
        let broken = text.replacen(
            "\ts_sendmsg sendmsg(MSG_ORDERED_PS_DONE)                      ; bf900007",
            "\ts_nop 0 ; bf800000",
            1,
        );
        assert!(diagnostics_cached(GfxLevel::Gfx10_3, &broken)
            .iter()
            .all(|x| x.severity == Severity::Error));
        assert_eq!(diagnostics_cached(GfxLevel::Gfx10_3, text), clean);
        assert_eq!(
            &*diagnostics_cached(GfxLevel::Gfx11, text),
            &diagnostics(GfxLevel::Gfx11, text)[..]
        );
    }
}
