//! The `verify_isa` setting's findings: the fragment shader's machine code as the driver
//! returned it (VK_KHR_pipeline_executable_properties' "Assembly" representation) checked as
//! `pops verify-isa` checks it — every path against the article's rules, the entry sequence in
//! the ordering model — turned into the record's diagnostics. Pure: text in, diagnostics out.

use pm4::GfxLevel;
use pops_report::{Diagnostic, Severity};
use shaders::isa::Encoding;
use shaders::verify;

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
        let text = include_str!("../../../cli/tests/data/aco-navi21-discards.txt");
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
}
