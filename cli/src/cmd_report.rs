//! `pops report`: the summary table of layer reports written elsewhere (another machine, an
//! application started without `pops run`): one row per interlocked pipeline, library or shader
//! object, and one per (bound object, draw state) with the draws summed; a device loss first,
//! with the interlocked draws it names. A report that a run on the amdgpu shim left with its
//! recorded IBs beside it (`REPORT.amdgpu`) also gets the draws RADV submitted compared with its
//! draw records and the chip's verdict, as `pops run` gives them. With `--html`, the same as
//! one self-contained page, with the interlocked GPU time per frame as a chart.

use crate::submitted_check::{render, ChipVerdict, ShimRun, ShimRunError};
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
    /// Also write, for each known driver defect the reports show, a report for Mesa's issue
    /// tracker (summary, versions and hardware, steps to reproduce, expected and actual code,
    /// the article's sentence, the suggested fix) into this folder, one ID.md each.
    #[arg(long, value_name = "DIR")]
    defects: Option<PathBuf>,
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
    let mut s = all.finish();
    for (name, span) in spans {
        timings.push((name, s.timing[span].to_vec()));
    }
    // Each bad line's reason first (up to a bound), also when nothing else was read.
    eprint!("{}", render_bad_lines(&s, "pops report"));
    if s.records == 0 && s.device_lost.is_empty() && s.timing.is_empty() {
        eprintln!("pops report: {names} holds no records of VK_LAYER_POPS_interlock");
        return ExitCode::FAILURE;
    }
    // A device loss comes first: it is what the report is read for.
    print!("{}", render_device_lost(&s.device_lost, "pops report"));
    if let Some(w) = crate::summary::nothing_rendered(&s) {
        println!("pops report: {w}");
    }
    if s.records > 0 || !s.timing.is_empty() {
        print!("{}", render_table(&s, "pops report"));
    }
    let verdicts = match shim_verdicts(&a.reports) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("pops report: {e}");
            return ExitCode::FAILURE;
        }
    };
    for v in &verdicts {
        s.verification
            .drain_left_on(v.drain_left_on, &v.chip, v.driver.as_deref());
    }
    print!(
        "{}",
        crate::verification::render(&s.verification, "pops report")
    );
    print!(
        "{}",
        crate::verification::render_found(&s.verification, "pops report")
    );
    if let Some(dir) = &a.defects {
        match write_issues(&s.verification, &s.findings, dir) {
            Ok(written) => {
                for w in written {
                    println!("pops report: {} written", w.display());
                }
            }
            Err(e) => {
                eprintln!("pops report: --defects: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(out) = &a.html {
        let page = crate::report_html::page(&names, &s, &timings, &verdicts);
        if let Err(e) = std::fs::write(out, page) {
            eprintln!("pops report: cannot write {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
        println!("pops report: page written to {}", out.display());
    }
    if verdicts.iter().all(|v| v.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// For each report that a run on the amdgpu shim left with its recorded IBs beside it
/// (`REPORT.amdgpu`, as `pops run --amdgpu-shim` keeps them): the draws RADV submitted against
/// the draw records, printed as `pops run` prints them, and the chip's verdict.
fn shim_verdicts(reports: &[PathBuf]) -> Result<Vec<ChipVerdict>, ShimRunError> {
    let mut out = Vec::new();
    for r in reports {
        let dir = r.with_extension("amdgpu");
        if !dir.is_dir() {
            continue;
        }
        let (run, chip) = ShimRun::read(r, &dir, None)?;
        println!();
        for e in &run.events {
            println!("pops report: the amdgpu shim: {e}");
        }
        print!("{}", render(&run.check, chip.name(), "pops report"));
        let mut v = ChipVerdict::of(&run, chip);
        // The driver that made this report: what its findings are matched against.
        v.driver = crate::summary::summarize_files(&[r])
            .ok()
            .and_then(|s| s.driver);
        out.push(v);
    }
    Ok(out)
}

/// A tracker report that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {reason}", path.display())]
struct IssueWriteError {
    path: std::path::PathBuf,
    reason: String,
}

/// `pops report --defects DIR`: for each known defect the report shows, `DIR/ID.md`, the report
/// for Mesa's issue tracker with where it was seen and the first finding's words. The paths
/// written, in the table's order.
fn write_issues(
    v: &crate::verification::Verification,
    findings: &[crate::summary::Finding],
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, IssueWriteError> {
    let fail = |path: &std::path::Path, e: std::io::Error| IssueWriteError {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let mut written = Vec::new();
    for d in pops_report::defects::KNOWN_DEFECTS {
        let seen: Vec<String> = v
            .defects
            .iter()
            .filter(|s| s.explained.defect().is_some_and(|k| k.id == d.id))
            .map(|s| {
                format!(
                    "{}{} ({} record(s))",
                    s.chip.as_deref().unwrap_or("an unknown chip"),
                    s.driver
                        .as_deref()
                        .map_or(String::new(), |x| format!(" with {x}")),
                    s.records
                )
            })
            .collect();
        if seen.is_empty() {
            continue;
        }
        let finding = findings
            .iter()
            .find(|f| f.code == d.finding)
            .map(|f| f.message.as_str());
        let path = dir.join(format!("{}.md", d.id));
        std::fs::write(&path, pops_report::defects::issue_text(d, &seen, finding))
            .map_err(|e| fail(&path, e))?;
        written.push(path);
    }
    Ok(written)
}
