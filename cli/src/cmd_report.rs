//! `pops report`: the summary table of a layer report written elsewhere (another machine, an
//! application started without `pops run`): one row per interlocked pipeline, library or shader
//! object, and one per (bound object, draw state) with the draws summed; a device loss first,
//! with the interlocked draws it names.

use crate::cmd_run::{read_report, render_device_lost, render_table, summarize};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The layer's JSON Lines report (VK_POPS_INTERLOCK_REPORT, `pops run --report`).
    report: PathBuf,
}

pub fn run(a: Args) -> ExitCode {
    let text = match read_report(&a.report) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("pops report: {e}");
            return ExitCode::FAILURE;
        }
    };
    let s = summarize(&text);
    // A device loss comes first: it is what the report is read for.
    print!("{}", render_device_lost(&s.device_lost, "pops report"));
    if s.records == 0 && !s.device_lost.is_empty() {
        return ExitCode::SUCCESS;
    }
    if s.records == 0 {
        eprintln!(
            "pops report: {} holds no records of VK_LAYER_POPS_interlock",
            a.report.display()
        );
        return ExitCode::FAILURE;
    }
    if !s.bad_lines.is_empty() {
        eprintln!(
            "pops report: {} line(s) of {} are not JSON objects (lines {:?})",
            s.bad_lines.len(),
            a.report.display(),
            s.bad_lines
        );
    }
    print!("{}", render_table(&s, "pops report"));
    ExitCode::SUCCESS
}
