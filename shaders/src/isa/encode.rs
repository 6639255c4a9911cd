//! Encoding instructions into dwords for one level, with labels resolved.

use super::encoding::Encoding;
use super::inst::{Inst, Operand, SopkImm, SoppImm, Waitcnt};
use super::ops::{Sopk, Sopp};
use super::IsaError;
use pm4::GfxLevel;
use std::collections::HashMap;
use std::fmt;

/// Field prefixes of the scalar formats (bits `[31:23]` for SOP1/SOPC/SOPP, `[31:28]` for SOPK,
/// `[31:30]` for SOP2), identical on GFX9–GFX11.
const SOP1_PREFIX: u32 = 0x17d << 23;
const SOPC_PREFIX: u32 = 0x17e << 23;
const SOPP_PREFIX: u32 = 0x17f << 23;
const SOPK_PREFIX: u32 = 0xb << 28;
const SOP2_PREFIX: u32 = 0x2 << 30;

/// The scalar operand field value that announces a literal dword.
const LITERAL: u8 = 255;

/// Highest addressable SGPR per generation (s0..=max).
pub const fn max_sgpr(level: GfxLevel) -> u8 {
    match Encoding::of(level) {
        Encoding::Gfx9 => 101,
        Encoding::Gfx10 | Encoding::Gfx11 | Encoding::Gfx12 => 105,
    }
}

/// One line of a listing: an instruction with its encoding, a label, or a marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Dword offset from the start of the listed sequence.
    pub offset: u32,
    /// The encoded dwords (empty for labels and markers).
    pub words: Vec<u32>,
    /// LLVM-style text with branch targets resolved to dword offsets (as a disassembler prints
    /// them), `name:` for labels.
    pub text: String,
    /// The target label of a branch.
    pub target: Option<&'static str>,
}

/// An encoded sequence with its disassembly-style text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    pub level: GfxLevel,
    pub lines: Vec<Line>,
}

impl Listing {
    pub fn words(&self) -> Vec<u32> {
        self.lines
            .iter()
            .flat_map(|l| l.words.iter().copied())
            .collect()
    }

    /// The text of each real instruction, in order (what a disassembler should print).
    pub fn instruction_texts(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter(|l| !l.words.is_empty())
            .map(|l| l.text.clone())
            .collect()
    }
}

impl fmt::Display for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.lines {
            if l.words.is_empty() {
                if l.text.ends_with(':') {
                    writeln!(f, "{}", l.text)?;
                } else {
                    writeln!(f, "    {}", l.text)?;
                }
                continue;
            }
            let hex: Vec<String> = l.words.iter().map(|w| format!("{w:08x}")).collect();
            let mut line = format!(
                "    {:<52} ; {:04x}: {}",
                l.text,
                l.offset * 4,
                hex.join(" ")
            );
            if let Some(t) = l.target {
                line.push_str(&format!("  -> {t}"));
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

/// Encodes `insts` for `level` into dwords. Labels must be defined within `insts`.
pub fn encode(level: GfxLevel, insts: &[Inst]) -> Result<Vec<u32>, IsaError> {
    Ok(assemble(level, insts)?.words())
}

/// Encodes `insts` for `level` and keeps the text of every line.
pub fn assemble(level: GfxLevel, insts: &[Inst]) -> Result<Listing, IsaError> {
    // Pass 1: sizes and label offsets (sizes never depend on labels).
    let mut labels: HashMap<&'static str, u32> = HashMap::new();
    let mut offset = 0u32;
    let mut offsets = Vec::with_capacity(insts.len());
    for inst in insts {
        offsets.push(offset);
        if let Inst::Label(l) = inst {
            if labels.insert(l.0, offset).is_some() {
                return Err(IsaError::DuplicateLabel(l.0));
            }
        }
        offset += size_of(inst);
    }
    // Pass 2: encode.
    let mut lines = Vec::with_capacity(insts.len());
    for (inst, &at) in insts.iter().zip(&offsets) {
        let (words, resolved, target) = match inst {
            Inst::Sopp {
                op,
                imm: SoppImm::Target(l),
            } => {
                let dest = *labels.get(l.0).ok_or(IsaError::UndefinedLabel(l.0))?;
                let rel = dest as i64 - (at as i64 + 1);
                let rel16 = i16::try_from(rel).map_err(|_| IsaError::BranchOutOfRange {
                    label: l.0,
                    offset: rel,
                })?;
                let word = encode_sopp(level, *op, rel16 as u16)?;
                (vec![word], Some(rel16), Some(l.0))
            }
            _ => (encode_one(level, inst)?, None, None),
        };
        lines.push(Line {
            offset: at,
            words,
            text: inst.text(level, resolved),
            target,
        });
    }
    Ok(Listing { level, lines })
}

fn size_of(inst: &Inst) -> u32 {
    let lits = |ops: &[Operand]| ops.iter().any(|o| matches!(o, Operand::Literal(_))) as u32;
    match inst {
        Inst::Sop1 { src0, .. } => 1 + lits(&[*src0]),
        Inst::Sop2 { src0, src1, .. } | Inst::Sopc { src0, src1, .. } => 1 + lits(&[*src0, *src1]),
        Inst::Sopk { .. } | Inst::Sopp { .. } => 1,
        Inst::Label(_) | Inst::Marker(_) => 0,
    }
}

/// Encodes a scalar operand as a field value plus an optional literal dword.
fn operand_code(
    level: GfxLevel,
    mnemonic: &'static str,
    op: Operand,
    dwords: u8,
    is_dst: bool,
) -> Result<(u8, Option<u32>), IsaError> {
    let enc = Encoding::of(level);
    let unsupported = || IsaError::OperandUnsupported {
        operand: op.text(enc, dwords),
        mnemonic,
        level,
    };
    let code = match op {
        Operand::Sgpr(n) => {
            let max = max_sgpr(level);
            if n > max || (dwords == 2 && n == max) {
                return Err(IsaError::SgprOutOfRange {
                    sgpr: n,
                    max,
                    level,
                });
            }
            if dwords == 2 && n % 2 != 0 {
                return Err(IsaError::MisalignedPair { sgpr: n, mnemonic });
            }
            return Ok((n, None));
        }
        Operand::Vcc => 106,
        Operand::M0 => enc.m0(),
        Operand::Null => match enc.null() {
            Some(code) => code,
            None => return Err(unsupported()),
        },
        Operand::Exec => 126,
        _ if is_dst => {
            return Err(IsaError::BadDestination {
                operand: op.text(enc, dwords),
                mnemonic,
            })
        }
        Operand::Const(v) => match v {
            0..=64 => 128 + v as u8,
            -16..=-1 => (192 - v as i16) as u8,
            _ => return Err(IsaError::BadInlineConstant { value: v }),
        },
        Operand::Literal(v) => return Ok((LITERAL, Some(v))),
        Operand::Scc => 253,
        Operand::PopsExitingWaveId => match enc {
            e if e.is_gfx11_plus() => return Err(unsupported()),
            _ => 239,
        },
    };
    Ok((code, None))
}

fn one_literal(
    mnemonic: &'static str,
    a: Option<u32>,
    b: Option<u32>,
) -> Result<Option<u32>, IsaError> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(IsaError::TwoLiterals { mnemonic }),
        (Some(x), _) | (None, Some(x)) => Ok(Some(x)),
        (None, None) => Ok(None),
    }
}

fn opcode_or_err(level: GfxLevel, op: Option<u8>, mnemonic: &'static str) -> Result<u32, IsaError> {
    op.map(u32::from)
        .ok_or(IsaError::Unsupported { mnemonic, level })
}

fn encode_sopp(level: GfxLevel, op: Sopp, imm: u16) -> Result<u32, IsaError> {
    let enc = Encoding::of(level);
    let code = opcode_or_err(level, op.opcode(enc), op.mnemonic(enc))?;
    Ok(SOPP_PREFIX | code << 16 | imm as u32)
}

pub(crate) fn waitcnt_simm16(level: GfxLevel, w: Waitcnt) -> Result<u16, IsaError> {
    let enc = Encoding::of(level);
    let (vm_max, exp_max, lgkm_max) = Waitcnt::limits(enc);
    let check = |field: &'static str, v: Option<u8>, max: u8| -> Result<u16, IsaError> {
        match v {
            None => Ok(max as u16),
            Some(v) if v <= max => Ok(v as u16),
            Some(v) => Err(IsaError::FieldOutOfRange {
                field,
                value: v as u32,
                max: max as u32,
                level,
            }),
        }
    };
    let vm = check("vmcnt", w.vm, vm_max)?;
    let exp = check("expcnt", w.exp, exp_max)?;
    let lgkm = check("lgkmcnt", w.lgkm, lgkm_max)?;
    Ok(match enc {
        // vmcnt [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8] (GFX9) / [13:8] (GFX10).
        Encoding::Gfx9 | Encoding::Gfx10 => {
            (vm & 0xf) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8)
        }
        // expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10].
        Encoding::Gfx11 => exp | (lgkm << 4) | (vm << 10),
        // GFX12 has no s_waitcnt: each counter has its own s_wait_* instruction.
        Encoding::Gfx12 => {
            return Err(IsaError::Unsupported {
                mnemonic: "s_waitcnt",
                level,
            })
        }
    })
}

/// A SOPK instruction's 16-bit immediate: the value, or a hardware register field that must
/// exist on the level and lie within 32 bits.
fn sopk_simm16(level: GfxLevel, m: &'static str, imm: SopkImm) -> Result<u16, IsaError> {
    let h = match imm {
        SopkImm::Simm16(v) => return Ok(v),
        SopkImm::Hwreg(h) => h,
    };
    if !h.id.exists_on(Encoding::of(level)) {
        return Err(IsaError::OperandUnsupported {
            operand: h.to_string(),
            mnemonic: m,
            level,
        });
    }
    if h.size == 0 || h.size > 32 || h.offset > 31 || h.offset as u32 + h.size as u32 > 32 {
        return Err(IsaError::FieldOutOfRange {
            field: "hwreg bit field",
            value: ((h.offset as u32) << 8) | h.size as u32,
            max: 32,
            level,
        });
    }
    Ok(h.simm16())
}

fn encode_one(level: GfxLevel, inst: &Inst) -> Result<Vec<u32>, IsaError> {
    let enc = Encoding::of(level);
    let mut out = Vec::with_capacity(2);
    match *inst {
        Inst::Sop1 { op, dst, src0 } => {
            let m = op.mnemonic(enc);
            let code = opcode_or_err(level, op.opcode(enc), m)?;
            let w = op.widths();
            let (d, _) = operand_code(level, m, dst, w.dst, true)?;
            let (s0, lit) = operand_code(level, m, src0, w.src0, false)?;
            out.push(SOP1_PREFIX | (d as u32) << 16 | code << 8 | s0 as u32);
            out.extend(lit);
        }
        Inst::Sop2 {
            op,
            dst,
            src0,
            src1,
        } => {
            let m = op.mnemonic(enc);
            let code = opcode_or_err(level, op.opcode(enc), m)?;
            let w = op.widths();
            let (d, _) = operand_code(level, m, dst, w.dst, true)?;
            let (s0, l0) = operand_code(level, m, src0, w.src0, false)?;
            let (s1, l1) = operand_code(level, m, src1, w.src1, false)?;
            let lit = one_literal(m, l0, l1)?;
            out.push(SOP2_PREFIX | code << 23 | (d as u32) << 16 | (s1 as u32) << 8 | s0 as u32);
            out.extend(lit);
        }
        Inst::Sopc { op, src0, src1 } => {
            let m = op.mnemonic(enc);
            let code = opcode_or_err(level, op.opcode(enc), m)?;
            let w = op.widths();
            let (s0, l0) = operand_code(level, m, src0, w.src0, false)?;
            let (s1, l1) = operand_code(level, m, src1, w.src1, false)?;
            let lit = one_literal(m, l0, l1)?;
            out.push(SOPC_PREFIX | code << 16 | (s1 as u32) << 8 | s0 as u32);
            out.extend(lit);
        }
        Inst::Sopk { op, reg, imm } => {
            let m = op.mnemonic(enc);
            let code = opcode_or_err(level, op.opcode(enc), m)?;
            // s_setreg reads the SDST field; it must still be a register.
            let is_dst = true;
            let (r, _) = operand_code(level, m, reg, 1, is_dst)?;
            let simm = sopk_simm16(level, m, imm)?;
            if op == Sopk::WaitcntVscnt && reg != super::Operand::Null {
                return Err(IsaError::BadImmediate {
                    mnemonic: m,
                    expected: "null as its register",
                });
            }
            out.push(SOPK_PREFIX | code << 23 | (r as u32) << 16 | simm as u32);
        }
        Inst::Sopp { op, imm } => {
            let m = op.mnemonic(enc);
            let simm = match (op, imm) {
                (Sopp::Waitcnt, SoppImm::Waitcnt(w)) => waitcnt_simm16(level, w)?,
                (Sopp::Sendmsg, SoppImm::Msg(msg)) => {
                    if !msg.exists_on(enc) {
                        return Err(IsaError::OperandUnsupported {
                            operand: msg.to_string(),
                            mnemonic: m,
                            level,
                        });
                    }
                    msg.code()
                }
                (op, SoppImm::Simm16(v)) if !op.is_branch() => v,
                (op, _) if op.is_branch() => {
                    return Err(IsaError::BadImmediate {
                        mnemonic: m,
                        expected: "a label",
                    })
                }
                (Sopp::Waitcnt, _) => {
                    return Err(IsaError::BadImmediate {
                        mnemonic: m,
                        expected: "a Waitcnt",
                    })
                }
                (Sopp::Sendmsg, _) => {
                    return Err(IsaError::BadImmediate {
                        mnemonic: m,
                        expected: "a message",
                    })
                }
                _ => {
                    return Err(IsaError::BadImmediate {
                        mnemonic: m,
                        expected: "a 16-bit immediate",
                    })
                }
            };
            out.push(encode_sopp(level, op, simm)?);
        }
        Inst::Label(_) | Inst::Marker(_) => {}
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Hwreg, HwregId, Label, Msg, Sop2, Sopc};

    #[test]
    fn literal_follows_the_instruction_and_inline_constants_do_not() {
        let i = Inst::sop2(
            Sop2::AndB32,
            Operand::Sgpr(4),
            Operand::Sgpr(2),
            Operand::imm(0x3ff),
        );
        assert_eq!(
            encode(GfxLevel::Gfx9, &[i]).unwrap(),
            vec![0x8604ff02, 0x3ff]
        );
        let i = Inst::sopc(Sopc::Bitcmp1B32, Operand::Sgpr(2), Operand::imm(31));
        assert_eq!(encode(GfxLevel::Gfx9, &[i]).unwrap(), vec![0xbf0d9f02]);
        assert_eq!(Operand::imm(-1), Operand::Const(-1));
    }

    #[test]
    fn setreg_hwreg_fields_differ_between_mode_and_pops_packer() {
        let mode = Hwreg {
            id: HwregId::Mode,
            offset: 24,
            size: 2,
        };
        assert_eq!(mode.simm16(), 0x0e01);
        let packer = Hwreg {
            id: HwregId::PopsPacker,
            offset: 0,
            size: 3,
        };
        assert_eq!(packer.simm16(), 0x1019);
        let e = encode(GfxLevel::Gfx9, &[Inst::setreg(packer, Operand::Sgpr(0))]);
        assert!(
            matches!(e, Err(IsaError::OperandUnsupported { .. })),
            "{e:?}"
        );
    }

    #[test]
    fn gfx11_has_neither_the_exiting_wave_id_nor_ordered_ps_done() {
        let add = Inst::sop2(
            Sop2::AddI32,
            Operand::Sgpr(0),
            Operand::PopsExitingWaveId,
            Operand::Sgpr(1),
        );
        assert!(encode(GfxLevel::Gfx10_3, &[add]).is_ok());
        assert!(matches!(
            encode(GfxLevel::Gfx11, &[add]),
            Err(IsaError::OperandUnsupported { .. })
        ));
        assert!(matches!(
            encode(GfxLevel::Gfx11, &[Inst::sendmsg(Msg::OrderedPsDone)]),
            Err(IsaError::OperandUnsupported { .. })
        ));
        assert!(matches!(
            encode(GfxLevel::Gfx10, &[Inst::sopp(Sopp::WaitEvent, 0)]),
            Err(IsaError::Unsupported { .. })
        ));
    }

    #[test]
    fn waitcnt_fields_move_on_gfx11() {
        let w = Waitcnt::VM_LGKM_ZERO;
        assert_eq!(waitcnt_simm16(GfxLevel::Gfx9, w).unwrap(), 0x0070);
        assert_eq!(waitcnt_simm16(GfxLevel::Gfx10, w).unwrap(), 0x0070);
        assert_eq!(waitcnt_simm16(GfxLevel::Gfx11, w).unwrap(), 0x0007);
        let too_big = Waitcnt {
            lgkm: Some(20),
            ..Waitcnt::default()
        };
        assert!(waitcnt_simm16(GfxLevel::Gfx9, too_big).is_err());
        assert!(waitcnt_simm16(GfxLevel::Gfx10, too_big).is_ok());
    }

    #[test]
    fn branches_resolve_relative_to_the_next_instruction() {
        let l = Label("top");
        let prog = [
            Inst::Label(l),
            Inst::sleep(3),
            Inst::branch(Sopp::Branch, l),
        ];
        let listing = assemble(GfxLevel::Gfx9, &prog).unwrap();
        assert_eq!(listing.words(), vec![0xbf8e0003, 0xbf82fffe]);
        assert_eq!(listing.instruction_texts()[1], "s_branch -2");
        assert!(matches!(
            encode(
                GfxLevel::Gfx9,
                &[Inst::branch(Sopp::Branch, Label("nowhere"))]
            ),
            Err(IsaError::UndefinedLabel("nowhere"))
        ));
        assert!(matches!(
            encode(GfxLevel::Gfx9, &[Inst::Label(l), Inst::Label(l)]),
            Err(IsaError::DuplicateLabel("top"))
        ));
    }

    #[test]
    fn pairs_must_be_aligned_and_in_range() {
        let i = Inst::sop1(super::super::Sop1::MovB64, Operand::Sgpr(3), Operand::Exec);
        assert!(matches!(
            encode(GfxLevel::Gfx9, &[i]),
            Err(IsaError::MisalignedPair { sgpr: 3, .. })
        ));
        let i = Inst::sop1(
            super::super::Sop1::MovB32,
            Operand::Sgpr(102),
            Operand::Exec,
        );
        assert!(matches!(
            encode(GfxLevel::Gfx9, &[i]),
            Err(IsaError::SgprOutOfRange { sgpr: 102, .. })
        ));
        assert!(encode(GfxLevel::Gfx10, &[i]).is_ok());
        let i = Inst::sop1(super::super::Sop1::MovB32, Operand::Const(3), Operand::Exec);
        assert!(matches!(
            encode(GfxLevel::Gfx10, &[i]),
            Err(IsaError::BadDestination { .. })
        ));
    }
}
