//! The draw's programs, as the stream uploads them, read back through LLVM's disassembler for
//! every processor of the chip database: what we emit is what we meant, on every target.

mod common;

use draw::shader::{Programs, PsOptions};
use shaders::isa::llvm::{disassemble, normalize, LlvmError, WaveSize};

/// Processors of the chip database that Debian's llvm-19 (what CI installs) predates.
const NEWER_THAN_LLVM_19: &[&str] = &["gfx1153"];

#[test]
fn every_draw_program_disassembles_as_intended_on_every_family() {
    let Some(mc) = common::llvm_mc() else { return };
    let mut checked = 0;
    let mut seen = std::collections::HashSet::new();
    for fam in draw::reference::families() {
        if !seen.insert(fam.llvm_processor()) {
            continue;
        }
        let level = fam.gfx_level();
        if let Err(e) = disassemble(&mc, fam.llvm_processor(), WaveSize::Wave64, &[0xbf81_0000]) {
            // CI installs Debian's llvm-19: only processors newer than it may be skipped there;
            // any other failure, or an unknown processor llvm-19 does know, fails in CI.
            let newer_than_llvm19 = NEWER_THAN_LLVM_19.contains(&fam.llvm_processor());
            if pops_testkit::in_ci()
                && !(newer_than_llvm19 && matches!(e, LlvmError::UnknownProcessor { .. }))
            {
                panic!(
                    "{fam}: llvm-mc cannot disassemble for {} in CI (CI=true): {e}",
                    fam.llvm_processor()
                );
            }
            pops_testkit::skipped(format!(
                "{fam}: this llvm-mc does not know {}",
                fam.llvm_processor()
            ));
            continue;
        }
        for pops in [true, false] {
            for (per_sample, samples, color_target) in
                [(false, 1, true), (true, 8, false), (false, 4, false)]
            {
                let p = Programs::build(
                    level,
                    &PsOptions {
                        pops,
                        per_sample,
                        samples,
                        color_target,
                    },
                )
                .unwrap_or_else(|e| panic!("{fam}: {e}"));
                for (what, l) in [("vertex", &p.vs), ("pixel", &p.ps)] {
                    let ours: Vec<String> =
                        l.instruction_texts().iter().map(|t| normalize(t)).collect();
                    let theirs =
                        disassemble(&mc, fam.llvm_processor(), WaveSize::Wave64, &l.words())
                            .unwrap_or_else(|e| {
                                panic!("llvm-mc rejected the {what} shader on {fam}:\n{e}\n{l}")
                            });
                    let theirs: Vec<String> = theirs.iter().map(|t| normalize(t)).collect();
                    assert_eq!(
                        ours,
                        theirs,
                        "{what} shader on {fam} ({}):\n{l}",
                        fam.llvm_processor()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 6 * 5 * 2);
}
