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

pub use code::{InputError, Instr};
pub use input::{read, words, Format};
pub use rules::{verify, verify_with_epilog, Exit, ExitKind, Finding, Report, Rule};

/// Scalar opcodes the verifier reads that pops never emits, per generation (GFX9, GFX10,
/// GFX11, GFX12); `tests/verify_llvm.rs` checks each against LLVM's disassembler.
pub mod opcodes {
    use crate::isa::Encoding;

    /// SOP1 `s_setpc_b64`: a jump to a computed address (RADV's PS epilogs).
    pub const SETPC_B64: [u8; 4] = [29, 32, 72, 72];
    /// SOP1 `s_swappc_b64` (a call).
    pub const SWAPPC_B64: [u8; 4] = [30, 33, 73, 73];
    /// SOPP `s_endpgm_ordered_ps_done` (GFX9–10.3).
    pub const ENDPGM_ORDERED_PS_DONE: [Option<u8>; 4] = [Some(30), Some(30), None, None];
    /// SOPP `s_cbranch_vccz`, `s_cbranch_vccnz`.
    pub const CBRANCH_VCCZ: [u8; 4] = [6, 6, 35, 35];
    pub const CBRANCH_VCCNZ: [u8; 4] = [7, 7, 36, 36];
    /// SOPK `s_setreg_imm32_b32`.
    pub const SETREG_IMM32_B32: [u8; 4] = [20, 21, 19, 19];

    /// SOPP instructions that only pace the wave (hazard waits, clauses, prefetch, scheduling
    /// priority), touching no scalar state and ordering nothing: `s_setprio` (15 on GFX9 and
    /// GFX10, 53 on GFX11 and GFX12, as llvm-mc encodes it; ACO raises the priority of GFX11.5
    /// fragment shaders around their exports), `s_inst_prefetch`/`s_set_inst_prefetch_distance`,
    /// `s_clause`, `s_waitcnt_depctr` (GFX12: `s_wait_alu`), `s_delay_alu`.
    pub const PACING: [&[u8]; 4] = [&[15], &[15, 32, 33, 35], &[4, 5, 7, 8, 53], &[5, 7, 8, 53]];

    pub const fn at<T: Copy>(table: [T; 4], enc: Encoding) -> T {
        table[enc.index()]
    }
}
