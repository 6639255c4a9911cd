//! `pops decode`: a PM4 stream (read as `crate::stream_input` reads it) as packets and register
//! writes with field values.

use crate::stream_input::{parse_input, read_all, Format};
use pm4::{decode, describe_body, Decoded, EventType, Family, GfxLevel};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

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
