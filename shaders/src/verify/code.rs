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

/// Why the input is not code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("no instruction found: the input is neither RADV/ACO assembly (instructions with `; <hex words>`), ACO's program listing, LLVM disassembly with encodings, nor raw code words")]
    Empty,
    #[error("line {line}: {what}")]
    Line { line: usize, what: String },
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
