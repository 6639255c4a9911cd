//! `pops report`: the summary table of layer reports written elsewhere (another machine, an
//! application started without `pops run`): one row per interlocked pipeline, library or shader
//! object, and one per (bound object, draw state) with the draws summed; a device loss first,
//! with the interlocked draws it names. With `--html`, the same as one self-contained page, with
//! the interlocked GPU time per frame as a chart.

use crate::summary::Summarizer;
use crate::summary_text::{render_bad_lines, render_device_lost, render_table};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The layer's JSON Lines reports (VK_POPS_INTERLOCK_REPORT, `pops run --report`), read as
    /// one; either schema version. Each is streamed: memory grows with the distinct objects and
    /// states, not with the report's length.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Also write the summary as one self-contained HTML page (no network, no external assets).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    let mut all = Summarizer::new();
    let mut timings = Vec::new();
    let mut spans = Vec::new();
    for r in &a.reports {
        // The table is of every report together; each report's frames chart on their own.
        let from = all.timing_lines();
        if let Err(e) = all.read_file(r) {
            eprintln!("pops report: {e}");
            return ExitCode::FAILURE;
        }
        spans.push((r.display().to_string(), from..all.timing_lines()));
    }
    let names = a
        .reports
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let s = all.finish();
    for (name, span) in spans {
        timings.push((name, s.timing[span].to_vec()));
    }
    if s.records == 0 && s.device_lost.is_empty() && s.timing.is_empty() {
        eprintln!("pops report: {names} holds no records of VK_LAYER_POPS_interlock");
        return ExitCode::FAILURE;
    }
    eprint!("{}", render_bad_lines(&s, "pops report"));
    // A device loss comes first: it is what the report is read for.
    print!("{}", render_device_lost(&s.device_lost, "pops report"));
    if s.records > 0 || !s.timing.is_empty() {
        print!("{}", render_table(&s, "pops report"));
    }
    if let Some(out) = &a.html {
        let page = crate::report_html::page(&names, &s, &timings);
        if let Err(e) = std::fs::write(out, page) {
            eprintln!("pops report: cannot write {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
        println!("pops report: page written to {}", out.display());
    }
    ExitCode::SUCCESS
}
