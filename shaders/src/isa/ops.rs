//! Opcode tables of the scalar instruction formats, per encoding generation.
//!
//! GFX9 uses the "VI" opcode map, GFX10/10.3 went back to the GFX6-style numbering for most of
//! SOP1/SOP2/SOPK, and GFX11 renumbered everything again (and renamed some mnemonics). Each row
//! gives the GFX9/GFX10 mnemonic and the GFX11 mnemonic (GFX12's follow from GFX11's); the
//! opcodes are looked up by mnemonic in the generated table of LLVM's encodings
//! (`scalar_generated`) when pops is compiled, none where a generation lacks the instruction.
//! Every row is cross-checked against LLVM's assembler in `tests/isa_llvm.rs`.

use super::encoding::Encoding;

/// GFX12's names of the GFX11 mnemonics it renamed (the carry-out adds and subtracts), as
/// llvm-mc-19 prints them for gfx1200/gfx1201 (`tests/isa_llvm.rs` checks each).
const fn gfx12_name(gfx11: &'static str) -> &'static str {
    match gfx11.as_bytes() {
        b"s_add_u32" => "s_add_co_u32",
        b"s_sub_u32" => "s_sub_co_u32",
        b"s_add_i32" => "s_add_co_i32",
        b"s_sub_i32" => "s_sub_co_i32",
        b"s_addc_u32" => "s_add_co_ci_u32",
        _ => gfx11,
    }
}

/// Whether two mnemonics are the same (a `const` string comparison).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The opcode of `name` in `format` on `enc` in the generated table of LLVM's encodings
/// (`scalar_generated::SCALAR_OPS`), where that generation has it. `const`: every use is looked
/// up when pops is compiled.
pub(crate) const fn scalar_opcode(enc: Encoding, format: ScalarFormat, name: &str) -> Option<u8> {
    let mut i = 0;
    while i < SCALAR_OPS.len() {
        let (e, f, m, op) = SCALAR_OPS[i];
        if e.index() == enc.index() && f as u8 == format as u8 && same(m, name) {
            return Some(op);
        }
        i += 1;
    }
    None
}

/// Instructions LLVM 19's tables still list on a generation whose hardware dropped them, which
/// pops therefore never emits or reads as such there: GFX12's `s_waitcnt` (RDNA4 replaced it
/// with the split counters' `s_wait_loadcnt`, `s_wait_storecnt`, …).
const DROPPED: [(Encoding, ScalarFormat, &str); 1] =
    [(Encoding::Gfx12, ScalarFormat::Sopp, "s_waitcnt")];

/// [`scalar_opcode`] of each generation's mnemonic (GFX9, GFX10, GFX11, GFX12), less
/// [`DROPPED`].
pub(crate) const fn scalar_opcodes(format: ScalarFormat, names: [&str; 4]) -> [Option<u8>; 4] {
    const ENCODINGS: [Encoding; 4] = [
        Encoding::Gfx9,
        Encoding::Gfx10,
        Encoding::Gfx11,
        Encoding::Gfx12,
    ];
    let mut out = [None; 4];
    let mut g = 0;
    while g < 4 {
        out[g] = scalar_opcode(ENCODINGS[g], format, names[g]);
        let mut d = 0;
        while d < DROPPED.len() {
            let (e, f, m) = DROPPED[d];
            if e.index() == g && f as u8 == format as u8 && same(m, names[g]) {
                out[g] = None;
            }
            d += 1;
        }
        g += 1;
    }
    out
}

/// Operand widths (in dwords) of an instruction: destination, source 0, source 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Widths {
    pub dst: u8,
    pub src0: u8,
    pub src1: u8,
}

use super::scalar_generated::{ScalarFormat, SCALAR_OPS};

macro_rules! op_table {
    (
        $(#[$meta:meta])* $enum:ident {
            $( $variant:ident = $name:literal, $name11:literal, ($d:expr, $s0:expr, $s1:expr); )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $( $variant, )* }

        impl $enum {
            pub const ALL: &'static [$enum] = &[ $( $enum::$variant, )* ];

            /// The LLVM mnemonic on `enc` (GFX11 renamed a few instructions, GFX12 a few more).
            pub const fn mnemonic(self, enc: Encoding) -> &'static str {
                match (self, enc) {
                    $( ($enum::$variant, Encoding::Gfx12) => gfx12_name($name11),
                       ($enum::$variant, Encoding::Gfx11) => $name11,
                       ($enum::$variant, _) => $name, )*
                }
            }

            /// The opcode on `enc`, or `None` where the generation lacks the instruction: its
            /// mnemonic's in the generated table of LLVM's encodings, looked up when pops is
            /// compiled.
            pub const fn opcode(self, enc: Encoding) -> Option<u8> {
                let table: [Option<u8>; 4] = match self {
                    $( $enum::$variant => const {
                        scalar_opcodes(
                            ScalarFormat::$enum,
                            [
                                $enum::$variant.mnemonic(Encoding::Gfx9),
                                $enum::$variant.mnemonic(Encoding::Gfx10),
                                $enum::$variant.mnemonic(Encoding::Gfx11),
                                $enum::$variant.mnemonic(Encoding::Gfx12),
                            ],
                        )
                    }, )*
                };
                table[enc.index()]
            }

            /// Operand widths in dwords (64-bit operands are SGPR pairs).
            pub const fn widths(self) -> Widths {
                match self { $( $enum::$variant => Widths { dst: $d, src0: $s0, src1: $s1 }, )* }
            }
        }
    };
}

op_table! {
    /// SOP1: `sdst = op(ssrc0)`.
    Sop1 {
        MovB32 = "s_mov_b32", "s_mov_b32", (1, 1, 0);
        MovB64 = "s_mov_b64", "s_mov_b64", (2, 2, 0);
        NotB32 = "s_not_b32", "s_not_b32", (1, 1, 0);
        NotB64 = "s_not_b64", "s_not_b64", (2, 2, 0);
        Bcnt1I32B32 = "s_bcnt1_i32_b32", "s_bcnt1_i32_b32", (1, 1, 0);
        Bcnt1I32B64 = "s_bcnt1_i32_b64", "s_bcnt1_i32_b64", (1, 2, 0);
        AndSaveexecB64 = "s_and_saveexec_b64", "s_and_saveexec_b64", (2, 2, 0);
        OrSaveexecB64 = "s_or_saveexec_b64", "s_or_saveexec_b64", (2, 2, 0);
        Andn2SaveexecB64 = "s_andn2_saveexec_b64", "s_and_not1_saveexec_b64", (2, 2, 0);
        AndSaveexecB32 = "s_and_saveexec_b32", "s_and_saveexec_b32", (1, 1, 0);
        OrSaveexecB32 = "s_or_saveexec_b32", "s_or_saveexec_b32", (1, 1, 0);
        Andn2SaveexecB32 = "s_andn2_saveexec_b32", "s_and_not1_saveexec_b32", (1, 1, 0);
        Ff1I32B32 = "s_ff1_i32_b32", "s_ctz_i32_b32", (1, 1, 0);
        Ff1I32B64 = "s_ff1_i32_b64", "s_ctz_i32_b64", (1, 2, 0);
        Bitset0B32 = "s_bitset0_b32", "s_bitset0_b32", (1, 1, 0);
        Bitset1B32 = "s_bitset1_b32", "s_bitset1_b32", (1, 1, 0);
    }
}

op_table! {
    /// SOP2: `sdst = op(ssrc0, ssrc1)`, SCC as a side output.
    Sop2 {
        AddU32 = "s_add_u32", "s_add_u32", (1, 1, 1);
        SubU32 = "s_sub_u32", "s_sub_u32", (1, 1, 1);
        AddI32 = "s_add_i32", "s_add_i32", (1, 1, 1);
        SubI32 = "s_sub_i32", "s_sub_i32", (1, 1, 1);
        AddcU32 = "s_addc_u32", "s_addc_u32", (1, 1, 1);
        CselectB32 = "s_cselect_b32", "s_cselect_b32", (1, 1, 1);
        CselectB64 = "s_cselect_b64", "s_cselect_b64", (2, 2, 2);
        AndB32 = "s_and_b32", "s_and_b32", (1, 1, 1);
        AndB64 = "s_and_b64", "s_and_b64", (2, 2, 2);
        OrB32 = "s_or_b32", "s_or_b32", (1, 1, 1);
        OrB64 = "s_or_b64", "s_or_b64", (2, 2, 2);
        Andn2B32 = "s_andn2_b32", "s_and_not1_b32", (1, 1, 1);
        Andn2B64 = "s_andn2_b64", "s_and_not1_b64", (2, 2, 2);
        NandB32 = "s_nand_b32", "s_nand_b32", (1, 1, 1);
        LshlB32 = "s_lshl_b32", "s_lshl_b32", (1, 1, 1);
        LshlB64 = "s_lshl_b64", "s_lshl_b64", (2, 2, 1);
        LshrB32 = "s_lshr_b32", "s_lshr_b32", (1, 1, 1);
        BfeU32 = "s_bfe_u32", "s_bfe_u32", (1, 1, 1);
        BfeU64 = "s_bfe_u64", "s_bfe_u64", (2, 2, 1);
        PackLlB32B16 = "s_pack_ll_b32_b16", "s_pack_ll_b32_b16", (1, 1, 1);
        Lshl1AddU32 = "s_lshl1_add_u32", "s_lshl1_add_u32", (1, 1, 1);
    }
}

op_table! {
    /// SOPC: `SCC = op(ssrc0, ssrc1)`.
    Sopc {
        CmpEqI32 = "s_cmp_eq_i32", "s_cmp_eq_i32", (0, 1, 1);
        CmpLgI32 = "s_cmp_lg_i32", "s_cmp_lg_i32", (0, 1, 1);
        CmpGtI32 = "s_cmp_gt_i32", "s_cmp_gt_i32", (0, 1, 1);
        CmpGeI32 = "s_cmp_ge_i32", "s_cmp_ge_i32", (0, 1, 1);
        CmpLtI32 = "s_cmp_lt_i32", "s_cmp_lt_i32", (0, 1, 1);
        CmpLeI32 = "s_cmp_le_i32", "s_cmp_le_i32", (0, 1, 1);
        CmpEqU32 = "s_cmp_eq_u32", "s_cmp_eq_u32", (0, 1, 1);
        CmpLgU32 = "s_cmp_lg_u32", "s_cmp_lg_u32", (0, 1, 1);
        CmpGtU32 = "s_cmp_gt_u32", "s_cmp_gt_u32", (0, 1, 1);
        CmpGeU32 = "s_cmp_ge_u32", "s_cmp_ge_u32", (0, 1, 1);
        CmpLtU32 = "s_cmp_lt_u32", "s_cmp_lt_u32", (0, 1, 1);
        CmpLeU32 = "s_cmp_le_u32", "s_cmp_le_u32", (0, 1, 1);
        Bitcmp0B32 = "s_bitcmp0_b32", "s_bitcmp0_b32", (0, 1, 1);
        Bitcmp1B32 = "s_bitcmp1_b32", "s_bitcmp1_b32", (0, 1, 1);
        CmpEqU64 = "s_cmp_eq_u64", "s_cmp_eq_u64", (0, 2, 2);
        CmpLgU64 = "s_cmp_lg_u64", "s_cmp_lg_u64", (0, 2, 2);
    }
}

op_table! {
    /// SOPK: a 16-bit immediate with `sdst` (which is a *source* for s_setreg_b32).
    Sopk {
        MovkI32 = "s_movk_i32", "s_movk_i32", (1, 0, 0);
        GetregB32 = "s_getreg_b32", "s_getreg_b32", (1, 0, 0);
        SetregB32 = "s_setreg_b32", "s_setreg_b32", (1, 0, 0);
        WaitcntVscnt = "s_waitcnt_vscnt", "s_waitcnt_vscnt", (1, 0, 0);
    }
}

op_table! {
    /// SOPP: program control with a 16-bit immediate.
    Sopp {
        Nop = "s_nop", "s_nop", (0, 0, 0);
        Endpgm = "s_endpgm", "s_endpgm", (0, 0, 0);
        Branch = "s_branch", "s_branch", (0, 0, 0);
        CbranchScc0 = "s_cbranch_scc0", "s_cbranch_scc0", (0, 0, 0);
        CbranchScc1 = "s_cbranch_scc1", "s_cbranch_scc1", (0, 0, 0);
        CbranchExecz = "s_cbranch_execz", "s_cbranch_execz", (0, 0, 0);
        CbranchExecnz = "s_cbranch_execnz", "s_cbranch_execnz", (0, 0, 0);
        Waitcnt = "s_waitcnt", "s_waitcnt", (0, 0, 0);
        Sleep = "s_sleep", "s_sleep", (0, 0, 0);
        Sendmsg = "s_sendmsg", "s_sendmsg", (0, 0, 0);
        WaitEvent = "s_wait_event", "s_wait_event", (0, 0, 0);
        // GFX12's name of s_waitcnt_depctr: waits for ALU results (its simm16: the depctr fields).
        WaitAlu = "s_wait_alu", "s_wait_alu", (0, 0, 0);
        // GFX12's split counters, each waited for on its own (its simm16: the count to reach).
        WaitLoadcnt = "s_wait_loadcnt", "s_wait_loadcnt", (0, 0, 0);
        WaitStorecnt = "s_wait_storecnt", "s_wait_storecnt", (0, 0, 0);
        WaitSamplecnt = "s_wait_samplecnt", "s_wait_samplecnt", (0, 0, 0);
        WaitBvhcnt = "s_wait_bvhcnt", "s_wait_bvhcnt", (0, 0, 0);
        WaitExpcnt = "s_wait_expcnt", "s_wait_expcnt", (0, 0, 0);
        WaitDscnt = "s_wait_dscnt", "s_wait_dscnt", (0, 0, 0);
        WaitKmcnt = "s_wait_kmcnt", "s_wait_kmcnt", (0, 0, 0);
        WaitLoadcntDscnt = "s_wait_loadcnt_dscnt", "s_wait_loadcnt_dscnt", (0, 0, 0);
        WaitStorecntDscnt = "s_wait_storecnt_dscnt", "s_wait_storecnt_dscnt", (0, 0, 0);
    }
}

impl Sopp {
    /// Branches take a label (a signed dword offset from the next instruction once encoded).
    pub const fn is_branch(self) -> bool {
        matches!(
            self,
            Sopp::Branch
                | Sopp::CbranchScc0
                | Sopp::CbranchScc1
                | Sopp::CbranchExecz
                | Sopp::CbranchExecnz
        )
    }

    /// GFX12's split waits for memory counters (each takes its count as a 16-bit immediate).
    pub const fn is_split_wait(self) -> bool {
        matches!(
            self,
            Sopp::WaitLoadcnt
                | Sopp::WaitSamplecnt
                | Sopp::WaitBvhcnt
                | Sopp::WaitStorecnt
                | Sopp::WaitDscnt
                | Sopp::WaitKmcnt
                | Sopp::WaitLoadcntDscnt
                | Sopp::WaitStorecntDscnt
                | Sopp::WaitExpcnt
        )
    }
}
