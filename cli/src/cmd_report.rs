//! `pops report`: the summary table of layer reports written elsewhere (another machine, an
//! application started without `pops run`): one row per interlocked pipeline, library or shader
//! object, and one per (bound object, draw state) with the draws summed; a device loss first,
//! with the interlocked draws it names. With `--html`, the same as one self-contained page, with
//! the interlocked GPU time per frame as a chart.

use crate::cmd_run::{read_report, render_device_lost, render_table, summarize};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The layer's JSON Lines reports (VK_POPS_INTERLOCK_REPORT, `pops run --report`), read as
    /// one.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Also write the summary as one self-contained HTML page (no network, no external assets).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    let mut text = String::new();
    let mut timings = Vec::new();
    for r in &a.reports {
        match read_report(r) {
            Ok(t) => {
                timings.push((r.display().to_string(), summarize(&t).timing));
                text.push_str(&t);
                text.push('\n');
            }
            Err(e) => {
                eprintln!("pops report: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let names = a
        .reports
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let s = summarize(&text);
    if s.records == 0 && s.device_lost.is_empty() && s.timing.is_empty() {
        eprintln!("pops report: {names} holds no records of VK_LAYER_POPS_interlock");
        return ExitCode::FAILURE;
    }
    if !s.bad_lines.is_empty() {
        eprintln!(
            "pops report: {} line(s) of {names} are not JSON objects (lines {:?})",
            s.bad_lines.len(),
            s.bad_lines
        );
    }
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
