//! `pops lint`: would a command processor accept this stream, and does every register write land
//! on a real register of the level? The checks of [`pm4::validate`]: the AMD register database's
//! registers and windows, the addresses libdrm's and RADV's streams write, kernel-owned
//! registers, and the body length each opcode requires. Input as for `pops decode`.

use crate::stream_input::{parse_input, read_all, Format};
use pm4::validate::{validate, Report, Violation};
use pm4::{Family, GfxLevel};
use pops_report::commands::{LintDocument, LintViolation};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// GPU generation (gfx9, gfx10, gfx10.3/gfx103, gfx11, gfx11.5, gfx12) or any chip name (vega10,
    /// navi31, gfx1100, …).
    #[arg(long = "gfx", value_name = "LEVEL_OR_CHIP")]
    gfx: String,
    /// The stream: a file, or `-` for standard input (binary dwords or hex text).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print JSON: {"gfx_level", "dwords", "packets", "register_writes", "ok", "violations": [...]}.
    #[arg(long)]
    json: bool,
    /// How to read FILE.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
}

/// The report as `pops lint --json`'s document.
pub fn document(r: &Report) -> LintDocument {
    LintDocument {
        gfx_level: r.level.name().into(),
        dwords: r.dwords,
        packets: r.packets,
        register_writes: r.register_writes,
        ok: r.is_ok(),
        violations: r
            .violations
            .iter()
            .map(|v: &Violation| LintViolation {
                index: v.index,
                dword: v.dword,
                packet: v.packet.into(),
                code: v.code().into(),
                address: v.address(),
                message: v.to_string(),
            })
            .collect(),
    }
}

/// The report as text: one line per violation, then a summary line.
pub fn render_text(r: &Report, name: &str) -> String {
    let mut s = String::new();
    for v in &r.violations {
        s.push_str(&format!("{name}: {v}\n"));
    }
    s.push_str(&format!(
        "{name}: {} on {}: {} packets, {} register writes, {} dwords\n",
        if r.is_ok() {
            "ok".to_string()
        } else {
            format!("{} violation(s)", r.violations.len())
        },
        r.level,
        r.packets,
        r.register_writes,
        r.dwords
    ));
    s
}

pub fn run(args: Args) -> ExitCode {
    let level: GfxLevel = match Family::parse_chip_or_level(&args.gfx) {
        Ok(f) => f.gfx_level(),
        Err(e) => {
            eprintln!("pops lint: --gfx: {e}");
            return ExitCode::FAILURE;
        }
    };
    let name = if args.file.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        args.file.display().to_string()
    };
    let dwords = match read_all(&args.file)
        .map_err(|e| e.to_string())
        .and_then(|b| parse_input(&b, args.format).map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(e) => {
            eprintln!("pops lint: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = validate(level, &dwords);
    if args.json {
        crate::document::print_document(&document(&report));
    } else {
        let _ = std::io::stdout()
            .lock()
            .write_all(render_text(&report, &name).as_bytes());
    }
    if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
