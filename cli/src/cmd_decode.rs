//! `pops decode`: a PM4 stream as packets and register writes with field values.
//!
//! Input is little-endian binary dwords or text with hex dwords (several per line, `0x`
//! optional, `,` allowed between them, `#` or `//` comments to end of line). `--format auto`
//! (the default) reads the input as text when every byte is printable ASCII or whitespace: real
//! PM4 binaries are never that, since every type-3 header starts with the byte 0xc0.

use pm4::{decode, describe_body, Decoded, EventType, Family, GfxLevel};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text if the input is all printable ASCII, else binary.
    Auto,
    /// Little-endian 32-bit dwords.
    Binary,
    /// Hex dwords separated by whitespace or commas.
    Text,
}

#[derive(clap::Args)]
pub struct Args {
    /// GPU generation (gfx9, gfx10, gfx10.3/gfx103, gfx11, gfx11.5, gfx12) or any chip name (vega10,
    /// navi21, gfx1100, …).
    #[arg(long = "gfx", value_name = "LEVEL_OR_CHIP")]
    gfx: String,
    /// The stream: a file, or `-` for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print JSON: {"gfx_level", "packets": [{"index", "opcode", "dwords", "writes": [...]}]}.
    #[arg(long)]
    json: bool,
    /// How to read FILE.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
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

/// ` NAME=v`, in hex from 10 up.
fn write_field(s: &mut String, name: &str, v: u32) {
    use std::fmt::Write as _;
    let _ = if v < 10 {
        write!(s, " {name}={v}")
    } else {
        write!(s, " {name}={v:#x}")
    };
}

/// Body dwords shown for a packet that writes no register.
const BODY_SHOWN: usize = 8;

/// Readable text: one block per packet, each write with its non-zero fields; a packet that
/// writes no register shows its first body dwords.
pub fn render_text(d: &Decoded, dwords: &[u32]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "# {} packets, gfx level {}", d.packets.len(), d.level);
    for p in &d.packets {
        let _ = write!(s, "\n@{} {} ({} dwords", p.index, p.opcode.name(), p.dwords);
        if let Some(i) = p.reg_index.filter(|&i| i != 0) {
            let _ = write!(s, ", index {i}");
        }
        s.push_str(")\n");
        let body = dwords.get(p.index + 1..p.index + p.dwords).unwrap_or(&[]);
        let named = describe_body(d.level, p.opcode, body);
        for b in &named {
            let _ = write!(s, "  {} = {:#010x}", b.name, b.value);
            for &(f, v) in b.fields.iter().filter(|&&(_, v)| v != 0) {
                let event = (f == "EVENT_TYPE")
                    .then(|| u8::try_from(v).ok().and_then(EventType::from_u8))
                    .flatten();
                match event {
                    Some(e) => {
                        let _ = write!(s, " {f}={}", e.name());
                    }
                    None => write_field(&mut s, f, v),
                }
            }
            s.push('\n');
        }
        if p.writes.is_empty() && named.is_empty() && !body.is_empty() {
            s.push_str("  body:");
            for b in body.iter().take(BODY_SHOWN) {
                let _ = write!(s, " {b:08x}");
            }
            if body.len() > BODY_SHOWN {
                let _ = write!(s, " … ({} more)", body.len() - BODY_SHOWN);
            }
            s.push('\n');
        }
        for w in &p.writes {
            match w.name() {
                Some(n) => {
                    let _ = write!(s, "  {n} ({:#x}) = {:#010x}", w.address, w.value);
                }
                None => {
                    let _ = write!(s, "  {:#x} = {:#010x}", w.address, w.value);
                }
            }
            for (f, v) in w.fields().filter(|&(_, v)| v != 0) {
                write_field(&mut s, f.name(), v);
            }
            s.push('\n');
        }
    }
    s
}

/// The JSON document ([`pops_report::DecodeDocument`]): `writes` empty for packets that write no
/// register, unknown registers as `"register": null`, every field of a known register in
/// `fields`.
pub fn render_json(d: &Decoded) -> Value {
    // Serialising these types cannot fail: every map has string keys.
    serde_json::to_value(pops_report::DecodeDocument::from_decoded(d)).unwrap_or(Value::Null)
}

pub fn read_all(path: &PathBuf) -> std::io::Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin().lock().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

pub fn run(args: Args) -> ExitCode {
    let level: GfxLevel = match Family::parse_chip_or_level(&args.gfx) {
        Ok(f) => f.gfx_level(),
        Err(e) => {
            eprintln!("pops decode: --gfx: {e}");
            return ExitCode::FAILURE;
        }
    };
    let name = if args.file.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        args.file.display().to_string()
    };
    let bytes = match read_all(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pops decode: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dwords = match parse_input(&bytes, args.format) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("pops decode: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let decoded = decode(level, &dwords);
    // The error first, before any output: then the packets decoded before it, if any.
    if let Some(e) = &decoded.error {
        eprintln!("pops decode: {name}: malformed PM4 at {e}");
        if decoded.packets.is_empty() {
            return ExitCode::FAILURE;
        }
    }
    let out = if args.json {
        format!("{}\n", render_json(&decoded))
    } else {
        render_text(&decoded, &dwords)
    };
    // A closed pipe (e.g. `| head`) is not an error worth a message.
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    if decoded.error.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
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
