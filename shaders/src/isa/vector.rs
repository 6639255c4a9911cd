//! Vector ALU forms (VOP1, VOP2, VOPC, VOP3) for wave64 programs, per encoding generation.
//!
//! Only the instructions the hardware draw (`pops selftest --draw`) needs: moves, conversions,
//! 24-bit integer multiply(-add), shifts, bit-field extract, compare into VCC, lane counting.
//! Every opcode row is checked against LLVM's disassembler in `tests/isa_vector_llvm.rs`.
//!
//! The programs are wave64 on every level (GFX9 has nothing else; the draw keeps wave64 on
//! GFX10+ so that one program shape serves all), so VCC is the 64-bit pair and prints as `vcc`.

use super::encoding::Encoding;
use super::IsaError;
use pm4::GfxLevel;

/// A vector-instruction source operand (the 9-bit SRC field), or a VGPR destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VOperand {
    /// `vN`.
    Vgpr(u8),
    /// `sN` (a uniform value).
    Sgpr(u8),
    /// `vcc_lo`/`vcc` as a 32-bit source.
    VccLo,
    /// An inline integer constant, -16..=64.
    Const(i8),
    /// An inline floating-point constant.
    Float(InlineFloat),
    /// A 32-bit literal (VOP1, VOP2 and VOPC on every level; never VOP3 on GFX9).
    Literal(u32),
}

/// The floating-point inline constants the draw uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InlineFloat {
    Zero5,
    One,
    MinusOne,
    Two,
}

impl InlineFloat {
    const fn code(self) -> u16 {
        match self {
            InlineFloat::Zero5 => 240,
            InlineFloat::One => 242,
            InlineFloat::MinusOne => 243,
            InlineFloat::Two => 244,
        }
    }
    const fn text(self) -> &'static str {
        match self {
            InlineFloat::Zero5 => "0.5",
            InlineFloat::One => "1.0",
            InlineFloat::MinusOne => "-1.0",
            InlineFloat::Two => "2.0",
        }
    }
}

/// The SRC field value that announces a literal dword.
const LITERAL: u16 = 255;
/// VGPRs start at 256 in the 9-bit SRC fields.
const VGPR_BASE: u16 = 256;

impl VOperand {
    pub(crate) fn text(self) -> String {
        match self {
            VOperand::Vgpr(n) => format!("v{n}"),
            VOperand::Sgpr(n) => format!("s{n}"),
            VOperand::VccLo => "vcc_lo".into(),
            VOperand::Const(v) => format!("{v}"),
            VOperand::Float(f) => f.text().into(),
            VOperand::Literal(v) => format!("0x{v:x}"),
        }
    }

    /// The 9-bit source code and the literal dword, if any.
    pub(crate) fn code(
        self,
        level: GfxLevel,
        mnemonic: &'static str,
    ) -> Result<(u16, Option<u32>), IsaError> {
        Ok(match self {
            VOperand::Vgpr(n) => (VGPR_BASE + n as u16, None),
            VOperand::Sgpr(n) => {
                let max = super::encode::max_sgpr(level);
                if n > max {
                    return Err(IsaError::SgprOutOfRange {
                        sgpr: n,
                        max,
                        level,
                    });
                }
                (n as u16, None)
            }
            VOperand::VccLo => (106, None),
            VOperand::Const(v) => match v {
                0..=64 => (128 + v as u16, None),
                -16..=-1 => ((192 - v as i16) as u16, None),
                _ => return Err(IsaError::BadInlineConstant { value: v }),
            },
            VOperand::Float(f) => (f.code(), None),
            VOperand::Literal(v) => {
                let _ = mnemonic;
                (LITERAL, Some(v))
            }
        })
    }
}

/// Marks an opcode slot of a generation that lacks the instruction.
const NONE: u16 = 0xffff;

macro_rules! vop_table {
    (
        $(#[$meta:meta])* $enum:ident {
            $( $(#[$vm:meta])* $variant:ident = [$n9:literal, $n10:literal, $n11:literal], [$g9:expr, $g10:expr, $g11:expr, $g12:expr]; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $( $(#[$vm])* $variant, )* }

        impl $enum {
            pub const ALL: &'static [$enum] = &[ $( $enum::$variant, )* ];

            /// The LLVM mnemonic on `enc` (without the `_e32`/`_e64` suffix).
            pub const fn mnemonic(self, enc: Encoding) -> &'static str {
                match (self, enc) {
                    $( ($enum::$variant, Encoding::Gfx9) => $n9,
                       ($enum::$variant, Encoding::Gfx10) => $n10,
                       ($enum::$variant, Encoding::Gfx11 | Encoding::Gfx12) => $n11, )*
                }
            }

            /// The opcode on `enc`, or `None` where the generation lacks the instruction.
            pub const fn opcode(self, enc: Encoding) -> Option<u16> {
                let table: [u16; 4] = match self { $( $enum::$variant => [$g9, $g10, $g11, $g12], )* };
                let op = table[enc.index()];
                if op == NONE { None } else { Some(op) }
            }
        }
    };
}

vop_table! {
    /// VOP1: `vdst = op(src0)`.
    Vop1 {
        MovB32 = ["v_mov_b32", "v_mov_b32", "v_mov_b32"], [1, 1, 1, 1];
        ReadfirstlaneB32 = ["v_readfirstlane_b32", "v_readfirstlane_b32", "v_readfirstlane_b32"], [2, 2, 2, 2];
        CvtU32F32 = ["v_cvt_u32_f32", "v_cvt_u32_f32", "v_cvt_u32_f32"], [7, 7, 7, 7];
    }
}

vop_table! {
    /// VOP2: `vdst = op(src0, vsrc1)`; src1 must be a VGPR.
    Vop2 {
        CndmaskB32 = ["v_cndmask_b32", "v_cndmask_b32", "v_cndmask_b32"], [0, 1, 1, 1];
        MulU32U24 = ["v_mul_u32_u24", "v_mul_u32_u24", "v_mul_u32_u24"], [8, 0xb, 0xb, 0xb];
        MinU32 = ["v_min_u32", "v_min_u32", "v_min_u32"], [0xe, 0x13, 0x13, 0x13];
        LshlrevB32 = ["v_lshlrev_b32", "v_lshlrev_b32", "v_lshlrev_b32"], [0x12, 0x1a, 0x18, 0x18];
        /// 32-bit add without carry out (GFX9 `v_add_u32`, GFX10+ `v_add_nc_u32`).
        AddU32 = ["v_add_u32", "v_add_nc_u32", "v_add_nc_u32"], [0x34, 0x25, 0x25, 0x25];
    }
}

vop_table! {
    /// VOPC: `vcc = op(src0, vsrc1)` for every active lane.
    Vopc {
        CmpEqU32 = ["v_cmp_eq_u32", "v_cmp_eq_u32", "v_cmp_eq_u32"], [0xca, 0xc2, 0x4a, 0x4a];
        CmpGtU32 = ["v_cmp_gt_u32", "v_cmp_gt_u32", "v_cmp_gt_u32"], [0xcc, 0xc4, 0x4c, 0x4c];
    }
}

vop_table! {
    /// VOP3 (three sources, the 64-bit encoding), for instructions that have no shorter form.
    Vop3 {
        MadU32U24 = ["v_mad_u32_u24", "v_mad_u32_u24", "v_mad_u32_u24"], [0x1c3, 0x143, 0x20b, 0x20b];
        BfeU32 = ["v_bfe_u32", "v_bfe_u32", "v_bfe_u32"], [0x1c8, 0x148, 0x210, 0x210];
        MbcntLoU32B32 = ["v_mbcnt_lo_u32_b32", "v_mbcnt_lo_u32_b32", "v_mbcnt_lo_u32_b32"], [0x28c, 0x365, 0x31f, 0x31f];
        MbcntHiU32B32 = ["v_mbcnt_hi_u32_b32", "v_mbcnt_hi_u32_b32", "v_mbcnt_hi_u32_b32"], [0x28d, 0x366, 0x320, 0x320];
    }
}

impl Vop3 {
    /// Number of sources the instruction reads.
    pub const fn sources(self) -> usize {
        match self {
            Vop3::MadU32U24 | Vop3::BfeU32 => 3,
            Vop3::MbcntLoU32B32 | Vop3::MbcntHiU32B32 => 2,
        }
    }
}

/// One vector ALU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VInst {
    /// `dst` is a VGPR, or an SGPR for `v_readfirstlane_b32`.
    Vop1 {
        op: Vop1,
        dst: VOperand,
        src0: VOperand,
    },
    Vop2 {
        op: Vop2,
        dst: u8,
        src0: VOperand,
        src1: u8,
    },
    /// Writes VCC (64-bit, wave64).
    Vopc { op: Vopc, src0: VOperand, src1: u8 },
    /// `src[2]` is ignored by two-source instructions.
    Vop3 {
        op: Vop3,
        dst: u8,
        src: [VOperand; 3],
    },
}

const VOP1_PREFIX: u32 = 0x3f << 25;
const VOPC_PREFIX: u32 = 0x3e << 25;
const VOP3_PREFIX_GFX9: u32 = 0x34 << 26;
const VOP3_PREFIX_GFX10: u32 = 0x35 << 26;

fn opcode<T: Copy>(level: GfxLevel, op: Option<T>, mnemonic: &'static str) -> Result<T, IsaError> {
    op.ok_or(IsaError::Unsupported { mnemonic, level })
}

fn vgpr_src1(src1: u8) -> u32 {
    src1 as u32
}

impl VInst {
    pub const fn mov(dst: u8, src0: VOperand) -> VInst {
        VInst::Vop1 {
            op: Vop1::MovB32,
            dst: VOperand::Vgpr(dst),
            src0,
        }
    }
    pub const fn vop1(op: Vop1, dst: u8, src0: VOperand) -> VInst {
        VInst::Vop1 {
            op,
            dst: VOperand::Vgpr(dst),
            src0,
        }
    }
    pub const fn readfirstlane(sdst: u8, src0: u8) -> VInst {
        VInst::Vop1 {
            op: Vop1::ReadfirstlaneB32,
            dst: VOperand::Sgpr(sdst),
            src0: VOperand::Vgpr(src0),
        }
    }
    pub const fn vop2(op: Vop2, dst: u8, src0: VOperand, src1: u8) -> VInst {
        VInst::Vop2 {
            op,
            dst,
            src0,
            src1,
        }
    }
    pub const fn vopc(op: Vopc, src0: VOperand, src1: u8) -> VInst {
        VInst::Vopc { op, src0, src1 }
    }
    pub const fn vop3(op: Vop3, dst: u8, src0: VOperand, src1: VOperand, src2: VOperand) -> VInst {
        VInst::Vop3 {
            op,
            dst,
            src: [src0, src1, src2],
        }
    }

    pub fn mnemonic(&self, level: GfxLevel) -> &'static str {
        let enc = Encoding::of(level);
        match self {
            VInst::Vop1 { op, .. } => op.mnemonic(enc),
            VInst::Vop2 { op, .. } => op.mnemonic(enc),
            VInst::Vopc { op, .. } => op.mnemonic(enc),
            VInst::Vop3 { op, .. } => op.mnemonic(enc),
        }
    }

    /// Text as LLVM's disassembler prints it (`_e32` on the 32-bit encodings).
    pub fn text(&self, level: GfxLevel) -> String {
        let m = self.mnemonic(level);
        match *self {
            VInst::Vop1 {
                op: Vop1::ReadfirstlaneB32,
                dst,
                src0,
            } => format!("{m} {}, {}", dst.text(), src0.text()),
            VInst::Vop1 { dst, src0, .. } => format!("{m}_e32 {}, {}", dst.text(), src0.text()),
            VInst::Vop2 {
                op: Vop2::CndmaskB32,
                dst,
                src0,
                src1,
            } => format!("{m}_e32 v{dst}, {}, v{src1}, vcc", src0.text()),
            VInst::Vop2 {
                dst, src0, src1, ..
            } => {
                format!("{m}_e32 v{dst}, {}, v{src1}", src0.text())
            }
            VInst::Vopc { src0, src1, .. } => format!("{m}_e32 vcc, {}, v{src1}", src0.text()),
            VInst::Vop3 { op, dst, src } => {
                let srcs: Vec<String> = src[..op.sources()].iter().map(|s| s.text()).collect();
                format!("{m} v{dst}, {}", srcs.join(", "))
            }
        }
    }

    /// Size in dwords.
    pub fn size(&self) -> u32 {
        let lit = |ops: &[VOperand]| ops.iter().any(|o| matches!(o, VOperand::Literal(_))) as u32;
        match self {
            VInst::Vop1 { src0, .. } | VInst::Vop2 { src0, .. } | VInst::Vopc { src0, .. } => {
                1 + lit(&[*src0])
            }
            VInst::Vop3 { src, .. } => 2 + lit(src),
        }
    }

    pub fn encode(&self, level: GfxLevel) -> Result<Vec<u32>, IsaError> {
        let enc = Encoding::of(level);
        let m = self.mnemonic(level);
        match *self {
            VInst::Vop1 { op, dst, src0 } => {
                let code = opcode(level, op.opcode(enc), m)? as u32;
                let vdst = match (op, dst) {
                    (Vop1::ReadfirstlaneB32, VOperand::Sgpr(s)) => s as u32,
                    (Vop1::ReadfirstlaneB32, other) => {
                        return Err(IsaError::BadDestination {
                            operand: other.text(),
                            mnemonic: m,
                        })
                    }
                    (_, VOperand::Vgpr(v)) => v as u32,
                    (_, other) => {
                        return Err(IsaError::BadDestination {
                            operand: other.text(),
                            mnemonic: m,
                        })
                    }
                };
                let (s0, lit) = src0.code(level, m)?;
                let mut w = vec![VOP1_PREFIX | vdst << 17 | code << 9 | s0 as u32];
                w.extend(lit);
                Ok(w)
            }
            VInst::Vop2 {
                op,
                dst,
                src0,
                src1,
            } => {
                let code = opcode(level, op.opcode(enc), m)? as u32;
                let (s0, lit) = src0.code(level, m)?;
                let mut w =
                    vec![code << 25 | (dst as u32) << 17 | vgpr_src1(src1) << 9 | s0 as u32];
                w.extend(lit);
                Ok(w)
            }
            VInst::Vopc { op, src0, src1 } => {
                let code = opcode(level, op.opcode(enc), m)? as u32;
                let (s0, lit) = src0.code(level, m)?;
                let mut w = vec![VOPC_PREFIX | code << 17 | vgpr_src1(src1) << 9 | s0 as u32];
                w.extend(lit);
                Ok(w)
            }
            VInst::Vop3 { op, dst, src } => {
                let code = opcode(level, op.opcode(enc), m)? as u32;
                let mut codes = [0u16; 3];
                let mut literal = None;
                for (i, s) in src[..op.sources()].iter().enumerate() {
                    let (c, lit) = s.code(level, m)?;
                    if let Some(l) = lit {
                        if enc == Encoding::Gfx9 {
                            return Err(IsaError::OperandUnsupported {
                                operand: s.text(),
                                mnemonic: m,
                                level,
                            });
                        }
                        if literal.is_some_and(|x| x != l) {
                            return Err(IsaError::TwoLiterals { mnemonic: m });
                        }
                        literal = Some(l);
                    }
                    codes[i] = c;
                }
                let prefix = match enc {
                    Encoding::Gfx9 => VOP3_PREFIX_GFX9,
                    Encoding::Gfx10 | Encoding::Gfx11 | Encoding::Gfx12 => VOP3_PREFIX_GFX10,
                };
                let mut w = vec![
                    prefix | code << 16 | dst as u32,
                    codes[0] as u32 | (codes[1] as u32) << 9 | (codes[2] as u32) << 18,
                ];
                w.extend(literal);
                Ok(w)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot checks against encodings LLVM printed (`llvm-mc -show-encoding`); the full cross-check
    /// is the llvm-mc disassembly test.
    #[test]
    fn known_encodings() {
        let mad = VInst::vop3(
            Vop3::MadU32U24,
            2,
            VOperand::Vgpr(3),
            VOperand::Const(32),
            VOperand::Vgpr(2),
        );
        assert_eq!(
            mad.encode(GfxLevel::Gfx9).unwrap(),
            [0xd1c3_0002, 0x0409_4103]
        );
        assert_eq!(
            mad.encode(GfxLevel::Gfx10).unwrap(),
            [0xd543_0002, 0x0409_4103]
        );
        assert_eq!(
            mad.encode(GfxLevel::Gfx11).unwrap(),
            [0xd60b_0002, 0x0409_4103]
        );
        let cnd = VInst::vop2(Vop2::CndmaskB32, 1, VOperand::Vgpr(1), 2);
        assert_eq!(cnd.encode(GfxLevel::Gfx9).unwrap(), [0x0002_0501]);
        assert_eq!(cnd.encode(GfxLevel::Gfx10_3).unwrap(), [0x0202_0501]);
        let one = VInst::mov(4, VOperand::Float(InlineFloat::One));
        assert_eq!(one.encode(GfxLevel::Gfx11).unwrap(), [0x7e08_02f2]);
        let cmp = VInst::vopc(Vopc::CmpEqU32, VOperand::Const(1), 0);
        assert_eq!(cmp.encode(GfxLevel::Gfx9).unwrap(), [0x7d94_0081]);
        assert_eq!(cmp.encode(GfxLevel::Gfx11).unwrap(), [0x7c94_0081]);
    }

    #[test]
    fn vop3_literal_is_refused_on_gfx9_only() {
        let i = VInst::vop3(
            Vop3::BfeU32,
            1,
            VOperand::Vgpr(1),
            VOperand::Literal(1000),
            VOperand::Const(4),
        );
        assert!(matches!(
            i.encode(GfxLevel::Gfx9),
            Err(IsaError::OperandUnsupported { .. })
        ));
        assert_eq!(i.encode(GfxLevel::Gfx10).unwrap().len(), 3);
    }

    #[test]
    fn readfirstlane_needs_an_sgpr_destination() {
        let bad = VInst::Vop1 {
            op: Vop1::ReadfirstlaneB32,
            dst: VOperand::Vgpr(1),
            src0: VOperand::Vgpr(0),
        };
        assert!(matches!(
            bad.encode(GfxLevel::Gfx9),
            Err(IsaError::BadDestination { .. })
        ));
        assert_eq!(
            VInst::readfirstlane(6, 0).encode(GfxLevel::Gfx9).unwrap(),
            [0x7e0c_0500]
        );
    }
}
