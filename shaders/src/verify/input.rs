//! Reading the code to verify: RADV/ACO's "Assembly" representation, LLVM disassembly with
//! encodings (`llvm-mc --show-encoding`, `llvm-objdump -d`), raw code words, or ACO's program
//! listing where RADV has no disassembler ([`super::listing`]). Every instruction is taken from
//! its encoding words (the listing's scalar instructions assembled first); the text, where there
//! is one, is kept only to show it back.

use super::code::{InputError, Instr, LineError, Words};
use crate::isa::decode::decode;
use crate::isa::Encoding;

/// What kind of input it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    AcoAssembly,
    /// ACO's program listing without encodings (RADV without a disassembler for the chip).
    AcoListing,
    LlvmDisassembly,
    RawWords,
    /// The code found in RADV's pipeline binary data ([`super::radv_binary`]).
    RadvBinary,
}

impl Format {
    pub const fn name(self) -> &'static str {
        match self {
            Format::AcoAssembly => "RADV/ACO assembly",
            Format::AcoListing => "RADV/ACO program listing (no encodings)",
            Format::LlvmDisassembly => "LLVM disassembly",
            Format::RawWords => "raw code words",
            Format::RadvBinary => "RADV shader binary",
        }
    }
}

/// Reads `text` as code for `enc`.
pub fn read(enc: Encoding, text: &str) -> Result<(Format, Vec<Instr>), InputError> {
    let lines: Vec<&str> = text.lines().collect();
    let format = if lines
        .iter()
        .any(|l| l.contains("; encoding: [") || objdump_words(l).is_some())
    {
        Format::LlvmDisassembly
    } else if lines.iter().any(|l| aco_words(l).is_some()) {
        Format::AcoAssembly
    } else if super::listing::is_listing(text) {
        Format::AcoListing
    } else {
        Format::RawWords
    };
    let listed: Vec<(String, Vec<u32>)> = match format {
        Format::RawWords => return raw(enc, text).map(|i| (format, i)),
        Format::AcoListing => return super::listing::read(enc, text).map(|i| (format, i)),
        _ => listed(format, &lines)?,
    };
    if listed.is_empty() {
        return Err(InputError::Empty);
    }
    let mut out = Vec::with_capacity(listed.len());
    let mut addr = 0u32;
    for (text, words) in listed {
        let d = decode(enc, &words).map_err(|error| InputError::Decode {
            addr,
            text: text.clone(),
            error,
        })?;
        if d.words != words.len() {
            return Err(InputError::Length {
                addr,
                text,
                given: words.len(),
                decoded: d.words,
            });
        }
        let n = words.len() as u32;
        let Some(in_place) = Words::new(&words) else {
            return Err(InputError::TooLong {
                addr,
                text,
                given: words.len(),
            });
        };
        out.push(Instr {
            addr,
            words: in_place,
            listed: Some(text),
            class: d.class,
        });
        addr += 4 * n;
    }
    Ok((format, out))
}

/// `\tmnemonic operands ; hex hex` (ACO): the words, where the line is one.
fn aco_words(line: &str) -> Option<(String, Vec<u32>)> {
    let (inst, hex) = line.rsplit_once(';')?;
    let words: Vec<u32> = hex
        .split_whitespace()
        .map(|h| {
            (h.len() == 8)
                .then(|| u32::from_str_radix(h, 16).ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    let inst = inst.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty() && !inst.is_empty()).then_some((inst, words))
}

/// `mnemonic operands // 000000000010: BF810000` (llvm-objdump -d).
fn objdump_words(line: &str) -> Option<(String, Vec<u32>)> {
    let (inst, rest) = line.split_once("//")?;
    let (addr, hex) = rest.trim().split_once(':')?;
    u64::from_str_radix(addr.trim(), 16).ok()?;
    let words: Vec<u32> = hex
        .split_whitespace()
        .map(|h| u32::from_str_radix(h, 16).ok())
        .collect::<Option<_>>()?;
    let inst = inst.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty() && !inst.is_empty()).then_some((inst, words))
}

/// `mnemonic operands ; encoding: [0x01,0x02,…]` (llvm-mc --show-encoding).
fn mc_words(line: &str) -> Option<Result<(String, Vec<u32>), LineError>> {
    let (inst, enc) = line.split_once("; encoding: [")?;
    let bytes: Result<Vec<u8>, LineError> = enc
        .trim_end()
        .trim_end_matches(']')
        .split(',')
        .map(|b| {
            let b = b.trim();
            u8::from_str_radix(b.trim_start_matches("0x"), 16)
                .map_err(|_| LineError::NotAByte(b.to_string()))
        })
        .collect();
    Some(bytes.and_then(|b| {
        if b.len() % 4 != 0 {
            return Err(LineError::NotWholeDwords(b.len()));
        }
        let words = b
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok((inst.split_whitespace().collect::<Vec<_>>().join(" "), words))
    }))
}

fn listed(format: Format, lines: &[&str]) -> Result<Vec<(String, Vec<u32>)>, InputError> {
    let mut out: Vec<(String, Vec<u32>)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        // ACO folds runs of one instruction: "(then repeated N times)".
        if let Some(n) = t
            .strip_prefix("(then repeated ")
            .and_then(|r| r.strip_suffix(" times)"))
        {
            let n: usize = n.parse().map_err(|_| InputError::Line {
                line: i + 1,
                what: LineError::NoRepeatCount(t.to_string()),
            })?;
            let last = out.last().cloned().ok_or(InputError::Line {
                line: i + 1,
                what: LineError::RepeatWithoutInstruction,
            })?;
            out.extend(std::iter::repeat_n(last, n));
            continue;
        }
        let got = match format {
            Format::AcoAssembly => aco_words(l).map(Ok),
            _ => mc_words(l).or_else(|| objdump_words(l).map(Ok)),
        };
        match got {
            Some(Ok(x)) => out.push(x),
            Some(Err(what)) => return Err(InputError::Line { line: i + 1, what }),
            None => {}
        }
    }
    Ok(out)
}

/// Hex dwords separated by white space or commas, `0x` optional; lengths from the formats.
fn raw(enc: Encoding, text: &str) -> Result<Vec<Instr>, InputError> {
    let mut list = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.split('#').next().unwrap_or_default();
        for tok in l.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let h = tok.trim_start_matches("0x").trim_start_matches("0X");
            let w = u32::from_str_radix(h, 16).map_err(|_| InputError::Line {
                line: i + 1,
                what: LineError::NotAHexWord(tok.to_string()),
            })?;
            list.push(w);
        }
    }
    words(enc, &list)
}

/// Decodes code `words` for `enc` from address 0 (raw words, or code read from a driver's
/// binary): each instruction shown as its hex words.
pub fn words(enc: Encoding, words: &[u32]) -> Result<Vec<Instr>, InputError> {
    if words.is_empty() {
        return Err(InputError::Empty);
    }
    // At most one instruction a word.
    let mut out = Vec::with_capacity(words.len());
    let mut at = 0;
    while at < words.len() {
        let addr = 4 * at as u32;
        let d = decode(enc, &words[at..]).map_err(|error| InputError::Decode {
            addr,
            text: format!("{:08x}", words[at]),
            error,
        })?;
        let too_long = || InputError::TooLong {
            addr,
            text: format!("{:08x}", words[at]),
            given: d.words,
        };
        out.push(Instr {
            addr,
            listed: None,
            words: words
                .get(at..at + d.words)
                .and_then(Words::new)
                .ok_or_else(too_long)?,
            class: d.class,
        });
        at += d.words;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::isa::decode::DecodeError;

    const ACO: &str = "BB0:\n\ts_nop 0                                  ; bf800000\n\t(then repeated 2 times)\n\tv_mov_b32_e32 v2, 0x3c003c00 ; 7e0402ff 3c003c00\n\ts_endpgm ; bf810000\n";

    /// Code without its disassembly shows each instruction as what it is and its words.
    #[test]
    fn words_are_named_from_their_encodings() {
        let i = words(
            Encoding::Gfx10,
            &[0xbf90_0007, 0xbe80_2000, 0xf800_180f, 0, 0xbf81_0000],
        )
        .unwrap();
        let text: Vec<String> = i.iter().map(|x| x.text(Encoding::Gfx10)).collect();
        assert_eq!(
            text,
            [
                "s_sendmsg [bf900007]",
                "s_setpc_b64 [be802000]",
                "exp mrt0 done [f800180f 00000000]",
                "s_endpgm [bf810000]"
            ]
        );
    }

    #[test]
    fn aco_assembly_with_repeats() {
        let (f, i) = read(Encoding::Gfx10, ACO).unwrap();
        assert_eq!(f, Format::AcoAssembly);
        assert_eq!(i.len(), 5);
        assert_eq!(
            i.iter().map(|x| x.addr).collect::<Vec<_>>(),
            [0, 4, 8, 12, 20]
        );
    }

    #[test]
    fn llvm_mc_and_raw_words_read_the_same() {
        let mc = "\ts_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]\n\tv_mov_b32_e32 v2, 0x3c003c00 ; encoding: [0xff,0x02,0x04,0x7e,0x00,0x3c,0x00,0x3c]\n";
        let (f, a) = read(Encoding::Gfx10, mc).unwrap();
        assert_eq!(f, Format::LlvmDisassembly);
        let (f, b) = read(Encoding::Gfx10, "bf800000 0x7e0402ff, 3c003c00").unwrap();
        assert_eq!(f, Format::RawWords);
        assert_eq!(
            a.iter().map(|x| x.words).collect::<Vec<_>>(),
            b.iter().map(|x| x.words).collect::<Vec<_>>()
        );
    }

    /// Text that is not code, and an encoding whose length contradicts its format, are typed
    /// errors naming the place.
    #[test]
    fn not_code_is_an_error() {
        assert!(matches!(
            read(Encoding::Gfx10, "hello world"),
            Err(InputError::Line { line: 1, .. })
        ));
        assert_eq!(read(Encoding::Gfx10, "\n\n"), Err(InputError::Empty));
        // A literal-carrying instruction whose listing gives one dword.
        assert!(matches!(
            read(
                Encoding::Gfx10,
                "\tv_mov_b32_e32 v2, 0x3c003c00 ; 7e0402ff\n"
            ),
            Err(InputError::Decode {
                error: DecodeError::Truncated { need: 2, have: 1 },
                ..
            })
        ));
        // One dword too many for its format.
        assert!(matches!(
            read(Encoding::Gfx10, "\ts_nop 0 ; bf800000 bf800000\n"),
            Err(InputError::Length {
                given: 2,
                decoded: 1,
                ..
            })
        ));
    }
}
