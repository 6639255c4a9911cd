//! Whole programs: scalar instructions ([`Inst`], including the ordered-section sequences with
//! their labels), vector ALU, global memory and exports in one list, assembled with branch
//! targets resolved across all of them.

use super::encode::{assemble, Line, Listing};
use super::export::ExportInst;
use super::inst::{Inst, SoppImm};
use super::memory::GlobalInst;
use super::vector::VInst;
use super::IsaError;
use pm4::GfxLevel;
use std::collections::HashMap;

/// The SOPP format prefix (bits [31:23] = 0x17f), the same on GFX9–GFX11.
const SOPP_PREFIX: u32 = 0x17f << 23;

/// One line of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Asm {
    /// A scalar instruction, label or marker.
    S(Inst),
    V(VInst),
    Mem(GlobalInst),
    Exp(ExportInst),
}

impl From<Inst> for Asm {
    fn from(i: Inst) -> Asm {
        Asm::S(i)
    }
}
impl From<VInst> for Asm {
    fn from(i: VInst) -> Asm {
        Asm::V(i)
    }
}
impl From<GlobalInst> for Asm {
    fn from(i: GlobalInst) -> Asm {
        Asm::Mem(i)
    }
}
impl From<ExportInst> for Asm {
    fn from(i: ExportInst) -> Asm {
        Asm::Exp(i)
    }
}

fn branch_of(a: &Asm) -> Option<(super::ops::Sopp, &'static str)> {
    match a {
        Asm::S(Inst::Sopp {
            op,
            imm: SoppImm::Target(l),
        }) => Some((*op, l.0)),
        _ => None,
    }
}

/// Encodes one non-branch line: its dwords and text.
fn encode_line(level: GfxLevel, a: &Asm) -> Result<(Vec<u32>, String), IsaError> {
    Ok(match a {
        Asm::S(i) => {
            let l = assemble(level, std::slice::from_ref(i))?;
            let text = l.lines.first().map(|x| x.text.clone()).unwrap_or_default();
            (l.words(), text)
        }
        Asm::V(v) => (v.encode(level)?, v.text(level)),
        Asm::Mem(m) => (m.encode(level)?.to_vec(), m.text(level)),
        Asm::Exp(e) => (e.encode(level)?.to_vec(), e.text(level)),
    })
}

/// Assembles `prog` for `level`; branches may cross any kind of instruction.
pub fn assemble_program(level: GfxLevel, prog: &[Asm]) -> Result<Listing, IsaError> {
    // Pass 1: sizes (never label-dependent) and label offsets.
    let mut labels: HashMap<&'static str, u32> = HashMap::new();
    let mut encoded = Vec::with_capacity(prog.len());
    let mut offset = 0u32;
    for a in prog {
        if let Asm::S(Inst::Label(l)) = a {
            if labels.insert(l.0, offset).is_some() {
                return Err(IsaError::DuplicateLabel(l.0));
            }
        }
        let enc = if branch_of(a).is_some() {
            None
        } else {
            Some(encode_line(level, a)?)
        };
        let size = enc.as_ref().map_or(1, |(w, _)| w.len() as u32);
        encoded.push((offset, enc));
        offset += size;
    }
    // Pass 2: branches.
    let mut lines = Vec::with_capacity(prog.len());
    for (a, (at, enc)) in prog.iter().zip(encoded) {
        let line = match (branch_of(a), enc) {
            (Some((op, label)), _) => {
                let dest = *labels.get(label).ok_or(IsaError::UndefinedLabel(label))?;
                let rel = dest as i64 - (at as i64 + 1);
                let rel16 = i16::try_from(rel)
                    .map_err(|_| IsaError::BranchOutOfRange { label, offset: rel })?;
                let enc = super::encoding::Encoding::of(level);
                let code = op.opcode(enc).ok_or(IsaError::Unsupported {
                    mnemonic: op.mnemonic(enc),
                    level,
                })?;
                let words = vec![SOPP_PREFIX | (code as u32) << 16 | rel16 as u16 as u32];
                let Asm::S(inst) = a else {
                    unreachable!("branch_of matched a scalar")
                };
                Line {
                    offset: at,
                    words,
                    text: inst.text(level, Some(rel16)),
                    target: Some(label),
                }
            }
            (None, Some((words, text))) => Line {
                offset: at,
                words,
                text,
                target: None,
            },
            (None, None) => unreachable!("every non-branch line was encoded in pass 1"),
        };
        lines.push(line);
    }
    Ok(Listing { level, lines })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::vector::{VOperand, Vop2};
    use crate::isa::{Label, Operand, Sopc, Sopp};

    #[test]
    fn branches_cross_vector_instructions() {
        let l = Label("skip");
        let prog = [
            Asm::S(Inst::sopc(
                Sopc::CmpEqU32,
                Operand::Sgpr(0),
                Operand::Const(0),
            )),
            Asm::S(Inst::branch(Sopp::CbranchScc1, l)),
            Asm::V(VInst::vop3(
                crate::isa::vector::Vop3::MadU32U24,
                1,
                VOperand::Vgpr(1),
                VOperand::Const(2),
                VOperand::Vgpr(1),
            )),
            Asm::V(VInst::vop2(Vop2::AddU32, 1, VOperand::Const(1), 1)),
            Asm::S(Inst::Label(l)),
            Asm::S(Inst::endpgm()),
        ];
        for level in GfxLevel::ALL {
            let listing = assemble_program(level, &prog).unwrap();
            // The branch skips the 2-dword VOP3 and the 1-dword VOP2.
            assert_eq!(
                listing.lines[1].text.split(' ').nth(1),
                Some("3"),
                "{level}"
            );
            assert_eq!(listing.words().len(), 1 + 1 + 2 + 1 + 1);
        }
    }

    #[test]
    fn undefined_labels_are_errors() {
        let prog = [Asm::S(Inst::branch(Sopp::Branch, Label("nowhere")))];
        assert_eq!(
            assemble_program(GfxLevel::Gfx9, &prog),
            Err(IsaError::UndefinedLabel("nowhere"))
        );
    }
}
