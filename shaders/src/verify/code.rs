//! What the verifier reads code into, whatever the input was: the instructions, and why an
//! input is not code.

use crate::isa::decode::{Class, DecodeError};

/// One instruction of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Byte offset from the start of the code.
    pub addr: u32,
    pub words: Vec<u32>,
    /// The input's text of the instruction (or the words in hex for raw input).
    pub text: String,
    pub class: Class,
}

/// What is wrong with one line of the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("`{0}`: an export without a target")]
    ExportWithoutTarget(String),
    #[error("`{mnemonic}` is no instruction of {enc:?} that pops can read")]
    Unknown {
        mnemonic: String,
        enc: crate::isa::Encoding,
    },
    #[error("`{0}` is not a number")]
    NotANumber(String),
    #[error("`{0}` is not a block")]
    NotABlock(String),
    #[error("`{0}` has no count")]
    NoCount(String),
    #[error("`{0}`: two different literals")]
    TwoLiterals(String),
    #[error("`{0}`: a message pops does not know")]
    UnknownMessage(String),
    #[error("`{0}` is not a literal")]
    NotALiteral(String),
    #[error("`{0}` is not a scalar register")]
    NotAScalarRegister(String),
    #[error("s_waitcnt counter `{counter}` is not one of {enc:?}")]
    UnknownCounter {
        counter: String,
        enc: crate::isa::Encoding,
    },
    #[error("{0}")]
    Waitcnt(#[from] crate::isa::IsaError),
    #[error("branch to BB{0}, which the listing does not have")]
    NoSuchBlock(usize),
    #[error("'{0}' is not a byte")]
    NotAByte(String),
    #[error("{0} bytes is not whole dwords")]
    NotWholeDwords(usize),
    #[error("'{0}' does not say how many times")]
    NoRepeatCount(String),
    #[error("a repeat with no instruction before it")]
    RepeatWithoutInstruction,
    #[error("'{0}' is not a hex code word")]
    NotAHexWord(String),
}

/// Why the input is not code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("no instruction found: the input is neither RADV/ACO assembly (instructions with `; <hex words>`), ACO's program listing, LLVM disassembly with encodings, nor raw code words")]
    Empty,
    #[error("line {line}: {what}")]
    Line { line: usize, what: LineError },
    #[error("instruction at byte 0x{addr:x} ({text}): {error}")]
    Decode {
        addr: u32,
        text: String,
        error: DecodeError,
    },
    #[error("instruction at byte 0x{addr:x} ({text}): its encoding is {given} dword(s), its format says {decoded}")]
    Length {
        addr: u32,
        text: String,
        given: usize,
        decoded: usize,
    },
}
