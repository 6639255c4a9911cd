//! Would a driver reject this module on sight? The analysis ([`super::analysis`]) is lenient on
//! purpose — the layer must describe whatever an application passes and hand it down untouched —
//! so `pops inspect` asks this separately: a module with no OpMemoryModel, an opcode the grammar
//! does not define, or a capability, addressing/memory model, execution model or mode, storage
//! class, decoration or built-in the grammar does not know is refused by every Vulkan driver, and
//! its interlock analysis would describe nothing real.
//!
//! Every fact comes from the Khronos grammar ([`super::table`]). This is no replacement for
//! `spirv-val`: it checks only what can be told from single words, and names the word.

use super::module::{host_order_words, parse_header, Instructions, SpirvError};
use super::table::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, MemoryModel,
    Op, StorageClass,
};

/// Why a module is invalid, and the word that shows it (word indices count from the magic
/// number, 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// The module cannot even be read as instructions.
    #[error(transparent)]
    Malformed(#[from] SpirvError),
    #[error(
        "the module has no OpMemoryModel instruction, which every module must have exactly once"
    )]
    NoMemoryModel,
    #[error("a second OpMemoryModel at word {word} (the module must have exactly one)")]
    SecondMemoryModel { word: usize },
    #[error("word {word}: opcode {opcode} is not an instruction of SPIR-V {grammar}")]
    UnknownOpcode {
        word: usize,
        opcode: u16,
        grammar: &'static str,
    },
    #[error("word {word}: {operand} {value} in {opcode} is not a value of the grammar's {kind}")]
    UnknownOperand {
        /// The word holding the value.
        word: usize,
        opcode: Op,
        /// Which operand (`capability`, `storage class`, …).
        operand: &'static str,
        /// The grammar's operand kind.
        kind: &'static str,
        value: u32,
    },
}

/// One enumerant operand of an instruction that must name a known value.
struct Operand {
    /// Operand index (1 = the first word after the opcode).
    index: usize,
    what: &'static str,
    kind: &'static str,
    known: fn(u32) -> bool,
}

const fn operand(
    index: usize,
    what: &'static str,
    kind: &'static str,
    known: fn(u32) -> bool,
) -> Operand {
    Operand {
        index,
        what,
        kind,
        known,
    }
}

fn capability(v: u32) -> bool {
    Capability(v).name().is_some()
}
fn addressing(v: u32) -> bool {
    AddressingModel(v).name().is_some()
}
fn memory(v: u32) -> bool {
    MemoryModel(v).name().is_some()
}
fn model(v: u32) -> bool {
    ExecutionModel(v).name().is_some()
}
fn mode(v: u32) -> bool {
    ExecutionMode(v).name().is_some()
}
fn storage(v: u32) -> bool {
    StorageClass(v).name().is_some()
}
fn decoration(v: u32) -> bool {
    Decoration(v).name().is_some()
}

/// The enumerant operands of `op` this check reads.
fn operands(op: Op) -> &'static [Operand] {
    const CAPABILITY: &[Operand] = &[operand(1, "capability", "Capability", capability)];
    const MEMORY_MODEL: &[Operand] = &[
        operand(1, "addressing model", "AddressingModel", addressing),
        operand(2, "memory model", "MemoryModel", memory),
    ];
    const ENTRY_POINT: &[Operand] = &[operand(1, "execution model", "ExecutionModel", model)];
    const EXECUTION_MODE: &[Operand] = &[operand(2, "execution mode", "ExecutionMode", mode)];
    const TYPE_POINTER: &[Operand] = &[operand(2, "storage class", "StorageClass", storage)];
    const VARIABLE: &[Operand] = &[operand(3, "storage class", "StorageClass", storage)];
    const DECORATE: &[Operand] = &[operand(2, "decoration", "Decoration", decoration)];
    const MEMBER_DECORATE: &[Operand] = &[operand(3, "decoration", "Decoration", decoration)];
    match op {
        Op::Capability => CAPABILITY,
        Op::MemoryModel => MEMORY_MODEL,
        Op::EntryPoint => ENTRY_POINT,
        Op::ExecutionMode | Op::ExecutionModeId => EXECUTION_MODE,
        Op::TypePointer => TYPE_POINTER,
        Op::Variable => VARIABLE,
        Op::Decorate => DECORATE,
        Op::MemberDecorate => MEMBER_DECORATE,
        _ => &[],
    }
}

/// The BuiltIn operand of a `Decoration BuiltIn`, at `index` past the decoration word.
fn builtin_word(op: Op) -> Option<usize> {
    match op {
        Op::Decorate => Some(3),
        Op::MemberDecorate => Some(4),
        _ => None,
    }
}

/// Checks a module (either byte order) for what a driver rejects on sight.
pub fn check(words: &[u32]) -> Result<(), Invalid> {
    let words = host_order_words(words)?;
    parse_header(&words)?;
    let mut memory_model = false;
    for inst in Instructions::new(&words) {
        let inst = inst?;
        if inst.op.name().is_none() {
            return Err(Invalid::UnknownOpcode {
                word: inst.word,
                opcode: inst.op.0,
                grammar: super::table::GRAMMAR_VERSION,
            });
        }
        if inst.op == Op::MemoryModel {
            if memory_model {
                return Err(Invalid::SecondMemoryModel { word: inst.word });
            }
            memory_model = true;
        }
        for o in operands(inst.op) {
            let value = inst.operand(o.index)?;
            if !(o.known)(value) {
                return Err(Invalid::UnknownOperand {
                    word: inst.word + o.index,
                    opcode: inst.op,
                    operand: o.what,
                    kind: o.kind,
                    value,
                });
            }
        }
        if let Some(k) = builtin_word(inst.op) {
            let deco_index = k - 1;
            if inst.operand(deco_index)? == Decoration::BuiltIn.0 {
                let value = inst.operand(k)?;
                if BuiltIn(value).name().is_none() {
                    return Err(Invalid::UnknownOperand {
                        word: inst.word + k,
                        opcode: inst.op,
                        operand: "built-in",
                        kind: "BuiltIn",
                        value,
                    });
                }
            }
        }
    }
    if !memory_model {
        return Err(Invalid::NoMemoryModel);
    }
    Ok(())
}

/// [`check`] on bytes in either byte order.
pub fn check_bytes(bytes: &[u8]) -> Result<(), Invalid> {
    check(&super::module::words_from_bytes(bytes)?)
}

impl Invalid {
    /// The word the finding is about, when there is one.
    pub fn word(&self) -> Option<usize> {
        match self {
            Invalid::SecondMemoryModel { word }
            | Invalid::UnknownOpcode { word, .. }
            | Invalid::UnknownOperand { word, .. } => Some(*word),
            Invalid::Malformed(_) | Invalid::NoMemoryModel => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::MAGIC;

    fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | u32::from(op.0)];
        v.extend_from_slice(operands);
        v
    }

    /// A minimal valid fragment module: Shader, Logical GLSL450, a fragment entry point.
    fn module(extra: &[Vec<u32>], with_memory_model: bool) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0000, 0, 8, 0];
        w.extend(inst(Op::Capability, &[Capability::Shader.0]));
        if with_memory_model {
            w.extend(inst(
                Op::MemoryModel,
                &[AddressingModel::Logical.0, MemoryModel::GLSL450.0],
            ));
        }
        w.extend(inst(
            Op::EntryPoint,
            &[
                ExecutionModel::Fragment.0,
                1,
                u32::from_le_bytes(*b"main"),
                0,
            ],
        ));
        for e in extra {
            w.extend(e);
        }
        w
    }

    /// Mesa 26's Zink declares SPV_KHR_float_controls2's capability, which RADV accepts: a
    /// module with it is valid, as one with a capability no grammar has is not.
    #[test]
    fn todays_capabilities_are_valid() {
        let fc2 = module(
            &[inst(Op::Capability, &[Capability::FloatControls2.0])],
            true,
        );
        assert_eq!(check(&fc2), Ok(()));
        let unknown = module(&[inst(Op::Capability, &[0x00ff_fff0])], true);
        assert!(check(&unknown).is_err());
    }

    #[test]
    fn a_minimal_module_is_valid() {
        assert_eq!(check(&module(&[], true)), Ok(()));
        let swapped: Vec<u32> = module(&[], true).iter().map(|w| w.swap_bytes()).collect();
        assert_eq!(check(&swapped), Ok(()));
    }

    #[test]
    fn no_memory_model_is_refused() {
        assert_eq!(check(&module(&[], false)), Err(Invalid::NoMemoryModel));
        let twice = module(
            &[inst(
                Op::MemoryModel,
                &[AddressingModel::Logical.0, MemoryModel::GLSL450.0],
            )],
            true,
        );
        assert!(matches!(
            check(&twice),
            Err(Invalid::SecondMemoryModel { .. })
        ));
    }

    #[test]
    fn an_unknown_capability_is_refused_naming_its_word() {
        let m = module(&[inst(Op::Capability, &[0xdead])], true);
        let e = check(&m).unwrap_err();
        // Header 5 + Capability 2 + MemoryModel 3 + EntryPoint 5 = word 15; its operand is 16.
        assert_eq!(e.word(), Some(16));
        let text = e.to_string();
        assert!(
            text.contains("word 16") && text.contains("57005") && text.contains("Capability"),
            "{text}"
        );
    }

    #[test]
    fn unknown_opcodes_and_enum_operands_are_refused() {
        let m = module(&[vec![(1 << 16) | 0x7fff]], true);
        assert!(matches!(
            check(&m),
            Err(Invalid::UnknownOpcode { opcode: 0x7fff, .. })
        ));
        let m = module(&[inst(Op::ExecutionMode, &[1, 0xffff])], true);
        assert!(matches!(
            check(&m),
            Err(Invalid::UnknownOperand {
                kind: "ExecutionMode",
                ..
            })
        ));
        let m = module(
            &[inst(Op::Decorate, &[1, Decoration::BuiltIn.0, 0xffff])],
            true,
        );
        assert!(matches!(
            check(&m),
            Err(Invalid::UnknownOperand {
                kind: "BuiltIn",
                ..
            })
        ));
        let m = module(&[inst(Op::TypePointer, &[2, 0xffff, 3])], true);
        assert!(matches!(
            check(&m),
            Err(Invalid::UnknownOperand {
                kind: "StorageClass",
                ..
            })
        ));
        // A missing operand is a malformed module, not a panic.
        let m = module(&[inst(Op::Capability, &[])], true);
        assert!(matches!(check(&m), Err(Invalid::Malformed(_))));
    }
}
