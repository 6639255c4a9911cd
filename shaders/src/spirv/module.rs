//! The SPIR-V physical layout: header, byte order, instruction stream, literal strings, and the
//! typed errors a malformed module produces.
//!
//! Everything here is bounds-checked: a module is untrusted input (the layer reads whatever an
//! application passes to `vkCreateShaderModule`), so every failure is a [`SpirvError`] naming what
//! was wrong and the word index where it was found, never a panic.

use super::table::Op;
use std::borrow::Cow;
use std::fmt;

/// The SPIR-V magic number, word 0 of every module.
pub const MAGIC: u32 = 0x0723_0203;
/// Words in the module header: magic, version, generator, bound, schema.
pub const HEADER_WORDS: usize = 5;
/// The specification's universal limit on the result `<id>` bound (SPIR-V 2.17 "Universal
/// Limits"). A larger bound is rejected before anything is allocated from it, so a 20-byte
/// module cannot make the analysis reserve gigabytes.
pub const MAX_ID_BOUND: u32 = 4_194_303;

/// What was wrong with a module, and where (word indices count from the magic number, 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    #[error("SPIR-V byte length {len} is not a multiple of 4")]
    ByteLengthNotWordMultiple { len: usize },
    #[error("SPIR-V module is {words} words long; the header alone needs {HEADER_WORDS}")]
    HeaderTooShort { words: usize },
    #[error("bad SPIR-V magic number {found:#010x} at word 0 (expected 0x07230203 in either byte order)")]
    BadMagic { found: u32 },
    #[error(
        "SPIR-V <id> bound {bound} (header word 3) is above the universal limit {MAX_ID_BOUND}"
    )]
    IdBoundTooLarge { bound: u32 },
    #[error("instruction at word {word} has a word count of zero (opcode {opcode})")]
    ZeroWordCount { word: usize, opcode: Op },
    #[error("{opcode} at word {word} declares {word_count} words but only {remaining} remain in the module")]
    Truncated {
        word: usize,
        opcode: Op,
        word_count: usize,
        remaining: usize,
    },
    #[error("{opcode} at word {word} has {word_count} words; it needs at least {needed}")]
    TooFewOperands {
        word: usize,
        opcode: Op,
        word_count: usize,
        needed: usize,
    },
    #[error("<id> {id} in {opcode} at word {word} is not below the module's <id> bound {bound}")]
    IdOutOfBound {
        word: usize,
        opcode: Op,
        id: u32,
        bound: u32,
    },
    #[error(
        "literal string in {opcode} at word {word} is not NUL-terminated within the instruction"
    )]
    UnterminatedString { word: usize, opcode: Op },
    #[error("{opcode} at word {word} {why}")]
    Misplaced {
        word: usize,
        opcode: Op,
        why: &'static str,
    },
    #[error(
        "{opcode} at word {word} branches to %{target}, which is not a block of the same function"
    )]
    BadBranchTarget {
        word: usize,
        opcode: Op,
        target: u32,
    },
    #[error("{opcode} at word {word} refers to function %{id}, which the module does not define")]
    UndefinedFunction { word: usize, opcode: Op, id: u32 },
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown opcode {}", self.0),
        }
    }
}

/// The five header words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// `0x00MMmm00`: major and minor version.
    pub version: u32,
    pub generator: u32,
    /// Every `<id>` of the module is below this.
    pub bound: u32,
    pub schema: u32,
}

impl Header {
    /// (major, minor) of the SPIR-V version word.
    pub fn version_pair(&self) -> (u8, u8) {
        ((self.version >> 16) as u8, (self.version >> 8) as u8)
    }
}

/// Returns the module in host word order: borrowed when it already is, a swapped copy when its
/// magic number reads byte-swapped (the module was written on a machine of the other
/// endianness, which the specification allows).
pub fn host_order_words(words: &[u32]) -> Result<Cow<'_, [u32]>, SpirvError> {
    match words.first() {
        None => Err(SpirvError::HeaderTooShort { words: 0 }),
        Some(&MAGIC) => Ok(Cow::Borrowed(words)),
        Some(&w) if w.swap_bytes() == MAGIC => {
            Ok(Cow::Owned(words.iter().map(|w| w.swap_bytes()).collect()))
        }
        Some(&w) => Err(SpirvError::BadMagic { found: w }),
    }
}

/// Reads a module from bytes in either byte order, detected from the magic number.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, SpirvError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SpirvError::ByteLengthNotWordMultiple { len: bytes.len() });
    }
    let Some(first) = bytes.first_chunk::<4>() else {
        return Err(SpirvError::HeaderTooShort { words: 0 });
    };
    let little = if u32::from_le_bytes(*first) == MAGIC {
        true
    } else if u32::from_be_bytes(*first) == MAGIC {
        false
    } else {
        return Err(SpirvError::BadMagic {
            found: u32::from_le_bytes(*first),
        });
    };
    // A zeroed buffer filled through a zip, one loop per order: both are straight copies (or
    // byte swaps) the compiler vectorizes, unlike a collect that grows the vector per word.
    let mut words = vec![0u32; bytes.len() / 4];
    let pairs = words.iter_mut().zip(bytes.chunks_exact(4));
    if little {
        pairs.for_each(|(w, c)| *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    } else {
        pairs.for_each(|(w, c)| *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
    }
    Ok(words)
}

/// Checks the header of a module already in host order.
pub fn parse_header(words: &[u32]) -> Result<Header, SpirvError> {
    if words.len() < HEADER_WORDS {
        return Err(SpirvError::HeaderTooShort { words: words.len() });
    }
    if words[0] != MAGIC {
        return Err(SpirvError::BadMagic { found: words[0] });
    }
    let h = Header {
        version: words[1],
        generator: words[2],
        bound: words[3],
        schema: words[4],
    };
    if h.bound > MAX_ID_BOUND {
        return Err(SpirvError::IdBoundTooLarge { bound: h.bound });
    }
    Ok(h)
}

/// One instruction: its opcode, its words (word 0 included) and where it starts.
#[derive(Clone, Copy, Debug)]
pub struct Instruction<'a> {
    /// Word index of the instruction's first word in the module.
    pub word: usize,
    pub op: Op,
    /// All of the instruction's words, the opcode/word-count word first.
    pub words: &'a [u32],
}

impl<'a> Instruction<'a> {
    /// Fails unless the instruction has at least `n` words (operands are words 1..).
    #[inline]
    pub fn need(&self, n: usize) -> Result<(), SpirvError> {
        if self.words.len() < n {
            Err(SpirvError::TooFewOperands {
                word: self.word,
                opcode: self.op,
                word_count: self.words.len(),
                needed: n,
            })
        } else {
            Ok(())
        }
    }

    /// Word `k` (1 = first operand), or a typed error when the instruction is shorter.
    #[inline]
    pub fn operand(&self, k: usize) -> Result<u32, SpirvError> {
        match self.words.get(k) {
            Some(&w) => Ok(w),
            None => Err(SpirvError::TooFewOperands {
                word: self.word,
                opcode: self.op,
                word_count: self.words.len(),
                needed: k + 1,
            }),
        }
    }

    /// Word `k` as an `<id>`, checked against the bound.
    #[inline]
    pub fn id(&self, k: usize, bound: u32) -> Result<u32, SpirvError> {
        let id = self.operand(k)?;
        self.check_id(id, bound)
    }

    /// Checks that `id`, an operand of this instruction, is below the bound.
    #[inline]
    pub fn check_id(&self, id: u32, bound: u32) -> Result<u32, SpirvError> {
        if id < bound {
            Ok(id)
        } else {
            Err(SpirvError::IdOutOfBound {
                word: self.word,
                opcode: self.op,
                id,
                bound,
            })
        }
    }

    /// Decodes the literal string starting at word `k`: UTF-8 octets packed four to a word,
    /// lowest-order byte first, NUL-terminated and NUL-padded. Returns the string (invalid UTF-8
    /// replaced, not rejected: names are for people) and the index of the word after it.
    pub fn string(&self, k: usize) -> Result<(String, usize), SpirvError> {
        let end = self.string_end(k)?;
        let mut bytes = Vec::with_capacity((end - k) * 4);
        for &w in &self.words[k..end] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        if let Some(nul) = bytes.iter().position(|&b| b == 0) {
            bytes.truncate(nul);
        }
        let s = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok((s, end))
    }

    /// The index of the word after the literal string starting at word `k`.
    pub fn string_end(&self, k: usize) -> Result<usize, SpirvError> {
        let tail = self.words.get(k..).unwrap_or(&[]);
        match tail.iter().position(|&w| w.to_le_bytes().contains(&0)) {
            Some(p) => Ok(k + p + 1),
            None => Err(SpirvError::UnterminatedString {
                word: self.word,
                opcode: self.op,
            }),
        }
    }
}

/// Iterates the instructions after the header. Stops at the first malformed instruction, which it
/// yields as an error.
#[derive(Clone, Debug)]
pub struct Instructions<'a> {
    words: &'a [u32],
    pos: usize,
}

impl<'a> Instructions<'a> {
    /// Instructions of a host-order module whose header has been checked.
    pub fn new(words: &'a [u32]) -> Self {
        Instructions {
            words,
            pos: HEADER_WORDS.min(words.len()),
        }
    }
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<Instruction<'a>, SpirvError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let word = self.pos;
        let first = *self.words.get(word)?;
        let opcode = Op(first as u16);
        let word_count = (first >> 16) as usize;
        let remaining = self.words.len() - word;
        if word_count == 0 {
            self.pos = self.words.len();
            return Some(Err(SpirvError::ZeroWordCount { word, opcode }));
        }
        if word_count > remaining {
            self.pos = self.words.len();
            return Some(Err(SpirvError::Truncated {
                word,
                opcode,
                word_count,
                remaining,
            }));
        }
        self.pos = word + word_count;
        Some(Ok(Instruction {
            word,
            op: opcode,
            words: &self.words[word..word + word_count],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0500, 0, 10, 0];
        w.extend_from_slice(body);
        w
    }

    #[test]
    fn both_byte_orders_read_the_same_words() {
        let m = module(&[(2 << 16) | 17, 1]);
        let le: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        let be: Vec<u8> = m.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(words_from_bytes(&le).unwrap(), m);
        assert_eq!(words_from_bytes(&be).unwrap(), m);
        let swapped: Vec<u32> = m.iter().map(|w| w.swap_bytes()).collect();
        assert_eq!(&*host_order_words(&swapped).unwrap(), &m[..]);
        assert!(matches!(host_order_words(&m).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn header_errors_are_typed() {
        assert_eq!(
            words_from_bytes(&[3, 2, 0x23, 7, 0]),
            Err(SpirvError::ByteLengthNotWordMultiple { len: 5 })
        );
        assert_eq!(
            parse_header(&[MAGIC, 0, 0]),
            Err(SpirvError::HeaderTooShort { words: 3 })
        );
        assert_eq!(
            parse_header(&[1, 0, 0, 0, 0]),
            Err(SpirvError::BadMagic { found: 1 })
        );
        assert_eq!(
            parse_header(&[MAGIC, 0, 0, MAX_ID_BOUND + 1, 0]),
            Err(SpirvError::IdBoundTooLarge {
                bound: MAX_ID_BOUND + 1
            })
        );
    }

    #[test]
    fn instruction_stream_errors_name_the_word() {
        let m = module(&[1 << 16, 0]); // OpNop, then a zero word
        let r: Vec<_> = Instructions::new(&m).collect();
        assert!(r[0].is_ok());
        assert_eq!(
            r[1].as_ref().unwrap_err(),
            &SpirvError::ZeroWordCount {
                word: 6,
                opcode: Op::Nop
            }
        );
        let m = module(&[(4 << 16) | 62, 1, 2]);
        let e = Instructions::new(&m).next().unwrap().unwrap_err();
        assert_eq!(
            e,
            SpirvError::Truncated {
                word: 5,
                opcode: Op::Store,
                word_count: 4,
                remaining: 3
            }
        );
        assert!(e.to_string().contains("OpStore at word 5"));
    }

    #[test]
    fn strings_need_a_terminator() {
        // "main\0" packed: 'm','a','i','n' then a zero word.
        let words = [(4 << 16) | 5, 1, u32::from_le_bytes(*b"main"), 0];
        let i = Instruction {
            word: 5,
            op: Op::Name,
            words: &words,
        };
        assert_eq!(i.string(2).unwrap(), ("main".to_string(), 4));
        let words = [(3 << 16) | 5, 1, u32::from_le_bytes(*b"main")];
        let i = Instruction {
            word: 5,
            op: Op::Name,
            words: &words,
        };
        assert!(matches!(
            i.string(2),
            Err(SpirvError::UnterminatedString { word: 5, .. })
        ));
    }
}
