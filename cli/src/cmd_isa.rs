//! `pops isa`: the machine code that enters and leaves the POPS ordered section on a chip.

use pm4::Family;
use shaders::isa::{ordered_section, SectionOptions};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Chip: a family (vega10, navi21, …), an LLVM processor (gfx1030, …) or a level (gfx9,
    /// gfx10, gfx10.3, gfx11, gfx12).
    #[arg(long)]
    chip: String,
    /// Resolve intrawave collisions (GFX9–10.3): run the ordered section once per layer of quads.
    #[arg(long)]
    intrawave: bool,
    /// 32-lane waves (GFX10 and later).
    #[arg(long, conflicts_with = "wave64")]
    wave32: bool,
    /// 64-lane waves (the default).
    #[arg(long)]
    wave64: bool,
    /// Print JSON: {"chip", "gfx_level", "enter": [dwords], "exit": [dwords], …}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("pops isa: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Why no ordered section was printed.
#[derive(Debug, thiserror::Error)]
enum IsaCommandError {
    #[error(transparent)]
    Chip(#[from] pm4::ChipError),
    #[error("{family}: {error}")]
    Section {
        family: Family,
        error: shaders::isa::IsaError,
    },
}

fn run_inner(args: &Args) -> Result<(), IsaCommandError> {
    let family = Family::parse_chip_or_level(&args.chip)?;
    let level = family.gfx_level();
    let opts = SectionOptions {
        intrawave: args.intrawave,
        wave64: !args.wave32,
        ..SectionOptions::default()
    };
    let in_section = |error| IsaCommandError::Section { family, error };
    let section = ordered_section(level, &opts).map_err(in_section)?;
    let encoded = section.encode().map_err(in_section)?;
    let split = section.enter.len();
    let lines = &encoded.listing.lines;
    let texts = |r: &[shaders::isa::Line]| -> Vec<String> {
        r.iter()
            .filter(|l| !l.words.is_empty())
            .map(|l| l.text.clone())
            .collect()
    };

    if args.json {
        crate::document::print_document(&pops_report::commands::IsaDocument {
            chip: family.name().into(),
            gfx_level: level.name().into(),
            llvm_processor: family.llvm_processor().into(),
            wave64: opts.wave64,
            intrawave: opts.intrawave,
            collision_sgpr: opts.collision_sgpr,
            intrawave_sgpr: opts.intrawave_sgpr,
            scratch_sgprs: opts.scratch_sgprs,
            scratch_count: opts.scratch_count(level),
            enter: encoded.enter.clone(),
            exit: encoded.exit.clone(),
            enter_text: texts(&lines[..split]),
            exit_text: texts(&lines[split + 1..]),
        });
        return Ok(());
    }

    println!(
        "; {} ({}, {}), wave{}, intrawave {}",
        family.name(),
        level.name(),
        family.llvm_processor(),
        if opts.wave64 { 64 } else { 32 },
        if opts.intrawave { "on" } else { "off" }
    );
    if level == pm4::GfxLevel::Gfx12 {
        println!(
            "; GFX12, as GFX11: \"export ready\" replaces wave IDs; no SGPR arguments are read;"
        );
        println!("; s_wait_event waits for it with bit 1 set (GFX11: bit 0 clear), and the memory");
        println!("; counters are awaited one by one (s_wait_loadcnt, s_wait_storecnt, …)");
    } else if level.is_gfx11_plus() {
        println!("; GFX11: \"export ready\" replaces wave IDs; no SGPR arguments are read");
    } else {
        let n = opts.scratch_count(level);
        print!("; COLLISION_WAVEID in s{}", opts.collision_sgpr);
        if opts.intrawave {
            print!(", INTRAWAVE_COLLISION in s{}", opts.intrawave_sgpr);
        }
        println!(
            ", scratch s{}–s{}",
            opts.scratch_sgprs,
            opts.scratch_sgprs + n - 1
        );
    }
    let listing = encoded.listing.to_string();
    let mut out = listing.lines();
    println!("; enter ({})", dwords(encoded.enter.len()));
    for line in out.by_ref().take(split) {
        println!("{line}");
    }
    if let Some(body) = out.next() {
        println!("{body}");
    }
    println!("; exit ({})", dwords(encoded.exit.len()));
    for line in out {
        println!("{line}");
    }
    if level.is_gfx11_plus() {
        println!(
            "; {}: the overlapping waves resume at this wave's last export with the done flag;",
            if level == pm4::GfxLevel::Gfx12 {
                "GFX12, as GFX11"
            } else {
                "GFX11"
            }
        );
        println!("; the exit only awaits the memory counters before it (no ORDERED_PS_DONE).");
    } else if opts.intrawave {
        println!(
            "; the exit branches back into the entry: re-encode with the real body in between."
        );
    }
    Ok(())
}

fn dwords(n: usize) -> String {
    if n == 1 {
        "1 dword".to_string()
    } else {
        format!("{n} dwords")
    }
}
