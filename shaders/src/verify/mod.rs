//! `pops verify-isa`: the ordered section of code a driver really compiled, checked on every
//! path against the POPS article's rules for shader code, memory accesses and exports.
//!
//! [`input`] reads the code (ACO assembly, LLVM disassembly, raw words, ACO's program listing;
//! [`radv_binary`] finds it in RADV's pipeline binary data)
//! and decodes every instruction from its encoding; [`rules`] builds the control-flow graph and walks every path
//! with the state the rules need (the did-overlap test, the packer register, the wait loop,
//! ORDERED_PS_DONE, outstanding memory counters, exports), reporting each broken rule with the
//! instruction and a path that reaches it.

pub mod code;
pub mod input;
pub mod listing;
pub mod model;
pub mod radv_binary;
pub mod rules;

pub use code::{InputError, Instr, Words};
pub use input::{read, words, Format};
pub use rules::{verify, verify_with_epilog, Exit, ExitKind, Finding, Report, Rule};

/// Scalar opcodes the verifier reads that pops never emits, per generation (GFX9, GFX10,
/// GFX11, GFX12), each looked up by mnemonic in the generated table of LLVM's encodings
/// (`isa::scalar_generated`) when pops is compiled: a name the table lacks fails the build.
pub mod opcodes {
    use crate::isa::ops::scalar_opcodes;
    use crate::isa::scalar_generated::ScalarFormat;
    use crate::isa::Encoding;

    /// `name`'s opcode on each generation, where it has it.
    const fn on_each(format: ScalarFormat, name: &str) -> [Option<u8>; 4] {
        scalar_opcodes(format, [name; 4])
    }

    /// `name`'s opcode on each generation; every generation has it (else the build fails).
    const fn on_all(format: ScalarFormat, name: &str) -> [u8; 4] {
        let each = on_each(format, name);
        let mut out = [0; 4];
        let mut g = 0;
        while g < 4 {
            out[g] = match each[g] {
                Some(op) => op,
                None => panic!("a scalar instruction the verifier reads is not in LLVM's table"),
            };
            g += 1;
        }
        out
    }

    /// SOP1 `s_setpc_b64`: a jump to a computed address (RADV's PS epilogs).
    pub const SETPC_B64: [u8; 4] = on_all(ScalarFormat::Sop1, "s_setpc_b64");
    /// SOP1 `s_swappc_b64` (a call).
    pub const SWAPPC_B64: [u8; 4] = on_all(ScalarFormat::Sop1, "s_swappc_b64");
    /// SOPP `s_endpgm_ordered_ps_done` (GFX9–10.3).
    pub const ENDPGM_ORDERED_PS_DONE: [Option<u8>; 4] =
        on_each(ScalarFormat::Sopp, "s_endpgm_ordered_ps_done");
    /// SOPP `s_cbranch_vccz`, `s_cbranch_vccnz`.
    pub const CBRANCH_VCCZ: [u8; 4] = on_all(ScalarFormat::Sopp, "s_cbranch_vccz");
    pub const CBRANCH_VCCNZ: [u8; 4] = on_all(ScalarFormat::Sopp, "s_cbranch_vccnz");
    /// SOPK `s_setreg_imm32_b32`.
    pub const SETREG_IMM32_B32: [u8; 4] = on_all(ScalarFormat::Sopk, "s_setreg_imm32_b32");

    /// SOPP instructions that only pace the wave (hazard waits, clauses, prefetch, scheduling
    /// priority), touching no scalar state and ordering nothing: `s_setprio` (ACO raises the
    /// priority of GFX11.5 fragment shaders around their exports), `s_inst_prefetch` /
    /// `s_set_inst_prefetch_distance`, `s_clause`, `s_waitcnt_depctr` (GFX12: `s_wait_alu`),
    /// `s_delay_alu`; each generation has those it has.
    pub const PACING_NAMES: [&str; 7] = [
        "s_setprio",
        "s_inst_prefetch",
        "s_set_inst_prefetch_distance",
        "s_clause",
        "s_waitcnt_depctr",
        "s_wait_alu",
        "s_delay_alu",
    ];

    /// [`PACING_NAMES`]' opcodes on each generation (looked up when pops is compiled).
    pub const PACING: [[Option<u8>; 7]; 4] = {
        let mut out = [[None; 7]; 4];
        let mut n = 0;
        while n < PACING_NAMES.len() {
            let each = on_each(ScalarFormat::Sopp, PACING_NAMES[n]);
            let mut g = 0;
            while g < 4 {
                out[g][n] = each[g];
                g += 1;
            }
            n += 1;
        }
        out
    };

    /// Whether SOPP `op` only paces the wave on `enc` ([`PACING_NAMES`]).
    pub fn is_pacing(enc: Encoding, op: u8) -> bool {
        PACING[enc.index()].contains(&Some(op))
    }

    pub const fn at<T: Copy>(table: [T; 4], enc: Encoding) -> T {
        table[enc.index()]
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The values LLVM's encodings give, as the hand-kept tables had them (held against
        /// llvm-mc by `tests/verify_llvm.rs`).
        #[test]
        fn the_looked_up_opcodes_are_llvms() {
            assert_eq!(SETPC_B64, [29, 32, 72, 72]);
            assert_eq!(SWAPPC_B64, [30, 33, 73, 73]);
            assert_eq!(ENDPGM_ORDERED_PS_DONE, [Some(30), Some(30), None, None]);
            assert_eq!(
                (CBRANCH_VCCZ, CBRANCH_VCCNZ),
                ([6, 6, 35, 35], [7, 7, 36, 36])
            );
            assert_eq!(SETREG_IMM32_B32, [20, 21, 19, 19]);
            let pacing = |enc| {
                (0..=255u8)
                    .filter(|&op| is_pacing(enc, op))
                    .collect::<Vec<_>>()
            };
            assert_eq!(pacing(Encoding::Gfx9), [15]);
            assert_eq!(pacing(Encoding::Gfx10), [15, 32, 33, 35]);
            assert_eq!(pacing(Encoding::Gfx11), [4, 5, 7, 8, 53]);
            assert_eq!(pacing(Encoding::Gfx12), [5, 7, 8, 53]);
        }
    }
}
