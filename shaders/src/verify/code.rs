//! What the verifier reads code into, whatever the input was: the instructions, and why an
//! input is not code.

use crate::isa::decode::{Class, DecodeError};
use crate::isa::Encoding;

/// One instruction of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Byte offset from the start of the code.
    pub addr: u32,
    pub words: Words,
    /// The input's text of the instruction, where the input was text (a listing or a
    /// disassembly); code read from its words has none until [`Instr::text`] names it.
    pub listed: Option<String>,
    pub class: Class,
}

impl Instr {
    /// The instruction as findings and lists quote it: the input's text, or for code read from
    /// its words, what it is and its words in hex (`s_sendmsg [bf900007]`). Named when quoted,
    /// not when read: most instructions of a verified shader are never quoted.
    pub fn text(&self, enc: Encoding) -> String {
        if let Some(t) = &self.listed {
            return t.clone();
        }
        let mut text = String::with_capacity(32 + 9 * self.words.len());
        crate::isa::decode::describe_into(enc, self.class, &mut text);
        text.push_str(" [");
        for (k, &x) in self.words.iter().enumerate() {
            if k > 0 {
                text.push(' ');
            }
            push_hex8(&mut text, x);
        }
        text.push(']');
        text
    }
}

/// An instruction's code words, in place: every instruction of every verified shader has its
/// own, and the longest (an image access with its extra addresses) has five.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Words {
    len: u8,
    w: [u32; Words::MAX],
}

impl Words {
    /// The most words an instruction has here.
    pub const MAX: usize = 8;

    /// `words` as one instruction's, if it has no more than [`Words::MAX`].
    pub fn new(words: &[u32]) -> Option<Words> {
        let mut w = [0; Words::MAX];
        w.get_mut(..words.len())?.copy_from_slice(words);
        Some(Words {
            len: words.len() as u8,
            w,
        })
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.w[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// `x` as eight lower-case hex digits (`{x:08x}`), without the formatting machinery.
fn push_hex8(out: &mut String, x: u32) {
    for shift in (0..8).rev() {
        let digit = (x >> (4 * shift)) & 0xf;
        out.push(char::from_digit(digit, 16).unwrap_or('0'));
    }
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
    #[error("instruction at byte 0x{addr:x} ({text}): {given} dwords, more than an instruction has ({})", Words::MAX)]
    TooLong {
        addr: u32,
        text: String,
        given: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instruction's words are kept as given, up to the most an instruction has, and no
    /// more are taken.
    #[test]
    fn words_are_kept_in_place_up_to_the_longest_instruction() {
        let five = [1, 2, 3, 4, 5];
        assert_eq!(*Words::new(&five).unwrap(), five);
        assert_eq!(Words::new(&[]).map(|w| w.len()), Some(0));
        assert_eq!(
            Words::new(&[7; Words::MAX]).map(|w| w.len()),
            Some(Words::MAX)
        );
        assert_eq!(Words::new(&[7; Words::MAX + 1]), None);
        assert_eq!(format!("{:?}", Words::new(&[1, 2]).unwrap()), "[1, 2]");
    }

    /// The words of a binary are named as `{x:08x}` names them.
    #[test]
    fn hex_words_are_written_as_the_formatter_writes_them() {
        for x in [
            0u32,
            9,
            0xa,
            0xbf8c_c07f,
            0x8000_0000,
            u32::MAX,
            0x0123_4567,
        ] {
            let mut s = String::new();
            push_hex8(&mut s, x);
            assert_eq!(s, format!("{x:08x}"));
        }
    }
}
