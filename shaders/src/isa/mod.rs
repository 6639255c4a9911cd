//! AMD machine code for entering and leaving the POPS ordered section on GFX9–GFX12.
//!
//! A small typed assembler for the scalar formats (SOP1, SOP2, SOPC, SOPK, SOPP) with each
//! generation's opcodes and field layouts ([`ops`]), an instruction model with LLVM-style text
//! ([`inst`]), label-resolving encoding ([`encode()`]), and the ordered-section sequences of the
//! POPS article ([`ordered_section`]). The same [`Inst`] lists are interpreted by
//! [`crate::model`], disassembled by LLVM ([`llvm`]) and compared with RADV's in the tests.

pub mod decode;
pub mod encode;
pub mod encoding;
pub mod export;
pub mod inst;
pub mod llvm;
pub mod memory;
pub mod ops;
pub mod program;
pub mod scalar_generated;
pub mod section;
pub mod vector;
pub mod vmem;
pub mod vmem_generated;

pub use encode::{assemble, encode, max_sgpr, Line, Listing};
pub use encoding::Encoding;
pub use inst::{Hwreg, HwregId, Inst, Label, Marker, Msg, Operand, SopkImm, SoppImm, Waitcnt};
pub use ops::{Sop1, Sop2, Sopc, Sopk, Sopp};
pub use section::{
    ordered_section, EncodedSection, OrderedSection, SectionOptions, LABEL_ENTERED, LABEL_LAYER,
    LABEL_LAYER_EXEC, LABEL_NEXT_LAYER, LABEL_WAIT,
};

use pm4::GfxLevel;

/// Why an instruction or a section could not be built or encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("{mnemonic} does not exist on {level}")]
    Unsupported {
        mnemonic: &'static str,
        level: GfxLevel,
    },
    #[error("{operand} is not available to {mnemonic} on {level}")]
    OperandUnsupported {
        operand: String,
        mnemonic: &'static str,
        level: GfxLevel,
    },
    #[error("{operand} cannot be the destination of {mnemonic}")]
    BadDestination {
        operand: String,
        mnemonic: &'static str,
    },
    #[error("s{sgpr} is out of range on {level} (s0–s{max})")]
    SgprOutOfRange { sgpr: u8, max: u8, level: GfxLevel },
    #[error("64-bit operand s[{sgpr}:…] of {mnemonic} must start at an even SGPR")]
    MisalignedPair { sgpr: u8, mnemonic: &'static str },
    #[error("s{sgpr} is used both for {what} and for {other}")]
    SgprConflict {
        sgpr: u8,
        what: &'static str,
        other: &'static str,
    },
    #[error("inline constant {value} is outside -16..=64")]
    BadInlineConstant { value: i8 },
    #[error("{mnemonic} has two different literal constants; a scalar instruction carries one")]
    TwoLiterals { mnemonic: &'static str },
    #[error("{field} = {value} does not fit (maximum {max}) on {level}")]
    FieldOutOfRange {
        field: &'static str,
        value: u32,
        max: u32,
        level: GfxLevel,
    },
    #[error("{mnemonic} takes {expected}")]
    BadImmediate {
        mnemonic: &'static str,
        expected: &'static str,
    },
    #[error("label '{0}' is not defined")]
    UndefinedLabel(&'static str),
    #[error("label '{0}' is defined twice")]
    DuplicateLabel(&'static str),
    #[error("branch to '{label}' spans {offset} dwords, outside the signed 16-bit range")]
    BranchOutOfRange { label: &'static str, offset: i64 },
    #[error("intrawave collisions do not exist on {level}: overlapping invocations are always placed in different waves there")]
    IntrawaveUnsupported { level: GfxLevel },
    #[error("{level} has no wave32: its waves are always 64 lanes wide")]
    Wave32Unsupported { level: GfxLevel },
}
