//! A PM4 stream as `pops decode` and `pops lint` read it: little-endian binary dwords or text
//! with hex dwords (several per line, `0x` optional, `,` allowed between them, `#` or `//`
//! comments to end of line). `--format auto` (the default) reads the input as text when every byte
//! is printable ASCII or whitespace: real PM4 binaries are never that, since every type-3 header
//! starts with the byte 0xc0.

use std::io::Read;
use std::path::PathBuf;

/// How to read the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text if the input is all printable ASCII, else binary.
    Auto,
    /// Little-endian 32-bit dwords.
    Binary,
    /// Hex dwords separated by whitespace or commas.
    Text,
}

/// Why the input could not be read as dwords.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("binary input is {bytes} bytes, not a whole number of 4-byte dwords")]
    PartialDword { bytes: usize },
    #[error("line {line}: '{token}' is not a hex dword (1 to 8 hex digits, 0x optional)")]
    BadToken { line: usize, token: String },
    #[error("text input is not ASCII (use --format binary for a binary stream)")]
    NotText,
    #[error("the input holds no dwords: nothing to read")]
    Empty,
}

/// Text when every byte is printable ASCII or whitespace (see the module comment).
pub fn looks_like_text(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
}

pub fn parse_binary(bytes: &[u8]) -> Result<Vec<u32>, InputError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(InputError::PartialDword { bytes: bytes.len() });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

pub fn parse_text(bytes: &[u8]) -> Result<Vec<u32>, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|_| InputError::NotText)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let line = line.split("//").next().unwrap_or("");
        for token in line.split(|c: char| c.is_whitespace() || c == ',') {
            if token.is_empty() {
                continue;
            }
            let digits = token
                .strip_prefix("0x")
                .or_else(|| token.strip_prefix("0X"))
                .unwrap_or(token);
            let ok =
                (1..=8).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_hexdigit());
            let v = ok
                .then(|| u32::from_str_radix(digits, 16).ok())
                .flatten()
                .ok_or_else(|| InputError::BadToken {
                    line: n + 1,
                    token: token.chars().take(40).collect(),
                })?;
            out.push(v);
        }
    }
    Ok(out)
}

/// The dwords of the input; an input with none (an empty file, only comments) is an error.
pub fn parse_input(bytes: &[u8], format: Format) -> Result<Vec<u32>, InputError> {
    let dwords = match format {
        Format::Binary => parse_binary(bytes),
        Format::Text => parse_text(bytes),
        Format::Auto if looks_like_text(bytes) => parse_text(bytes),
        Format::Auto => parse_binary(bytes),
    }?;
    if dwords.is_empty() {
        return Err(InputError::Empty);
    }
    Ok(dwords)
}

/// The bytes of `path`, or of standard input for `-`.
pub fn read_all(path: &PathBuf) -> std::io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin().lock().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_accepts_prefixes_commas_and_comments() {
        let t = b"# header\nc0012800 0x80000000, 0X80000000 // trailing\n\n  ffff1000\n";
        assert_eq!(
            parse_input(t, Format::Auto),
            Ok(vec![0xc001_2800, 0x8000_0000, 0x8000_0000, 0xffff_1000])
        );
        assert_eq!(
            parse_text(b"c0012800\n123456789\n"),
            Err(InputError::BadToken {
                line: 2,
                token: "123456789".into()
            })
        );
        assert!(parse_text(b"0x").is_err());
        assert!(parse_text(b"xyz").is_err());
    }

    #[test]
    fn an_input_without_dwords_is_an_error() {
        for input in [&b""[..], b"# only a comment\n", b"  \n"] {
            assert_eq!(parse_input(input, Format::Auto), Err(InputError::Empty));
        }
        assert_eq!(parse_input(b"", Format::Binary), Err(InputError::Empty));
    }

    #[test]
    fn binary_is_little_endian_whole_dwords() {
        let b = [0x00, 0x28, 0x01, 0xc0, 0, 0, 0, 0x80];
        assert!(!looks_like_text(&b));
        assert_eq!(
            parse_input(&b, Format::Auto),
            Ok(vec![0xc001_2800, 0x8000_0000])
        );
        assert_eq!(
            parse_input(&b[..5], Format::Auto),
            Err(InputError::PartialDword { bytes: 5 })
        );
        // Forced formats win over detection.
        assert_eq!(parse_input(b"0000", Format::Binary), Ok(vec![0x3030_3030]));
        assert_eq!(parse_input(b"", Format::Auto), Err(InputError::Empty));
    }
}
