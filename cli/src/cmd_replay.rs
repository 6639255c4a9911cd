//! `pops replay ARCHIVE.foz… [--chip C…] [--amdgpu-shim LIB] [--csv FILE]`: every interlocked
//! pipeline of Fossilize archives (Steam's pipeline caches, Mesa's fossil-db) created by
//! `fossilize-replay` under the layer with verify_isa, as driver developers replay them to judge
//! a compiler change: on RADV over the amdgpu shim as each chip, or on RADV's null device of each
//! chip, or on the machine's GPU. One line per archive × chip: interlocked pipelines, verified,
//! findings by code, not verified by reason; then the driver defects found, known ones named.
//! Exit status: 0 when everything replayed was verified and clean, 1 on any finding, 2 when
//! something could not be replayed or verified.

use crate::launch::{
    child_env, exit_code_of, find_layer, fresh_run_folder, how_it_ended, shim_target, spawn,
    LaunchError,
};
use crate::verification::{self, ChipVerdicts};
use pm4::Family;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One chip per POPS generation: GFX9, GFX10, GFX10.3, GFX11, GFX11.5, GFX12.
const DEFAULT_CHIPS: [Family; 6] = [
    Family::Vega10,
    Family::Navi10,
    Family::Navi21,
    Family::Navi31,
    Family::Gfx1150,
    Family::Gfx1201,
];

#[derive(clap::Args)]
pub struct Args {
    /// Fossilize archives (`.foz`) to replay.
    #[arg(required_unless_present = "compare", value_name = "ARCHIVE")]
    archives: Vec<PathBuf>,
    /// Replay nothing: the pipelines whose verdict changed between two `--csv` files of two
    /// driver builds (new findings first) — the check a compiler change runs. Exit 1 when a
    /// finding is new.
    #[arg(long, num_args = 2, value_names = ["BEFORE.csv", "AFTER.csv"], conflicts_with = "archives")]
    compare: Option<Vec<PathBuf>>,
    /// Chips to replay as (families, LLVM processors or levels; repeatable) [default: vega10,
    /// navi10, navi21, navi31, gfx1150, gfx1201 — one per POPS generation].
    #[arg(long = "chip", value_name = "CHIP")]
    chips: Vec<String>,
    /// Replay on stock RADV over the amdgpu kernel-interface shim (this library, preloaded) as
    /// each chip; without it, on RADV's null device of each chip (a drm-shim or
    /// RADV_FORCE_FAMILY). The RADV is the one the Vulkan loader finds (VK_DRIVER_FILES names
    /// another build).
    #[arg(long, value_name = "LIBRARY")]
    amdgpu_shim: Option<PathBuf>,
    /// Write one row per interlocked pipeline: archive, pipeline (the layer's fragment stage
    /// hash), executable, chip, driver, verdict, finding codes.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// The replayer [default: fossilize-replay on PATH].
    #[arg(long, value_name = "PATH", default_value = "fossilize-replay")]
    replayer: PathBuf,
    /// The layer manifest (VkLayer_pops_interlock.json) or its folder, instead of searching.
    #[arg(long)]
    layer: Option<PathBuf>,
    /// Where the layer's reports go, one per archive and chip [default: a new folder
    /// pops-replay-XXXXXX of the temp folder, kept after the run].
    #[arg(long, value_name = "DIR")]
    reports: Option<PathBuf>,
}

/// Why `pops replay` could not run.
#[derive(Debug, thiserror::Error)]
enum ReplayError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("--chip {given}: {reason}")]
    Chip { given: String, reason: String },
    #[error("{}: no such archive", .0.display())]
    NoArchive(PathBuf),
    #[error("cannot write {}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
    #[error("cannot read {}: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}:{line}: not a row of `pops replay --csv` ({CSV_HEADER})", path.display())]
    Row { path: PathBuf, line: usize },
}

/// What one archive replayed as one chip gave.
struct Replayed {
    archive: String,
    chip: Family,
    /// The verdicts of the replay's records; `None` when the replay failed.
    verdicts: Option<ChipVerdicts>,
    /// Why the replay failed.
    failed: Option<String>,
    rows: Vec<CsvRow>,
}

pub fn run(a: Args) -> ExitCode {
    match run_inner(&a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pops replay: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(a: &Args) -> Result<ExitCode, ReplayError> {
    if let Some([before, after]) = a.compare.as_deref() {
        return compare_csv(before, after);
    }
    let chips = chips(&a.chips)?;
    if let Some(missing) = a.archives.iter().find(|p| !p.is_file()) {
        return Err(ReplayError::NoArchive(missing.clone()));
    }
    let layer = find_layer(a.layer.as_deref())?;
    let layer = std::fs::canonicalize(&layer).unwrap_or(layer);
    let reports = match &a.reports {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| ReplayError::Write {
                path: d.clone(),
                reason: e.to_string(),
            })?;
            d.clone()
        }
        None => fresh_run_folder("pops-replay-")?,
    };
    let mut all = Vec::new();
    let mut found = verification::Verification::default();
    for archive in &a.archives {
        for &chip in &chips {
            let (r, v) = replay_one(a, &layer, &reports, archive, chip)?;
            if let Some(v) = v {
                found.chips.extend(v.chips);
                found.defects.extend(v.defects);
            }
            all.push(r);
        }
    }
    print!("{}", table(&all));
    eprint!("{}", verification::render_found(&found, "pops replay"));
    eprintln!("pops replay: reports in {}", reports.display());
    if let Some(csv) = &a.csv {
        std::fs::write(csv, csv_text(&all)).map_err(|e| ReplayError::Write {
            path: csv.clone(),
            reason: e.to_string(),
        })?;
    }
    Ok(status(&all))
}

/// The chips asked for, or one per POPS generation.
fn chips(given: &[String]) -> Result<Vec<Family>, ReplayError> {
    if given.is_empty() {
        return Ok(DEFAULT_CHIPS.to_vec());
    }
    given
        .iter()
        .map(|c| {
            Family::parse_chip_or_level(c).map_err(|e| ReplayError::Chip {
                given: c.clone(),
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Replays `archive` as `chip` under the layer with verify_isa; its verdicts and rows.
fn replay_one(
    a: &Args,
    layer: &Path,
    reports: &Path,
    archive: &Path,
    chip: Family,
) -> Result<(Replayed, Option<verification::Verification>), ReplayError> {
    let stem = archive
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let report = reports.join(format!("{stem}-{}.jsonl", chip.name()));
    let _ = std::fs::remove_file(&report);
    let target = match &a.amdgpu_shim {
        Some(lib) => shim_target(lib, Some(chip), &report)?,
        None => crate::launch::null_target(chip)?,
    };
    let existing = std::env::var("VK_INSTANCE_LAYERS").ok();
    let existing_path = std::env::var("VK_ADD_LAYER_PATH").ok();
    let mut env = child_env(
        layer,
        existing_path.as_deref(),
        existing.as_deref(),
        &report,
        Some(chip),
        &target,
    );
    env.push(("VK_POPS_INTERLOCK_VERIFY_ISA".into(), "1".into()));
    let archive_arg = [archive.as_os_str().to_owned()];
    let mut r = Replayed {
        archive: archive.display().to_string(),
        chip,
        verdicts: None,
        failed: None,
        rows: Vec::new(),
    };
    let status = match spawn(&a.replayer.as_os_str().to_owned(), &archive_arg, &env) {
        Ok(s) => s,
        Err(e) => {
            r.failed = Some(e.to_string());
            return Ok((r, None));
        }
    };
    if !status.success() {
        let name = a.replayer.display().to_string();
        r.failed = Some(
            how_it_ended(&name, status)
                .unwrap_or_else(|| format!("{name} exited with status {}", exit_code_of(status))),
        );
    }
    let v = match crate::summary::summarize_files(&[&report]) {
        Ok(s) => s.verification,
        Err(e) => {
            r.failed.get_or_insert(e.to_string());
            return Ok((r, None));
        }
    };
    r.verdicts = Some(v.chips.first().cloned().unwrap_or_else(|| ChipVerdicts {
        chip: chip.name().to_string(),
        ..Default::default()
    }));
    r.rows = rows(&report, &r.archive, chip);
    Ok((r, Some(v)))
}

/// One interlocked pipeline in the CSV.
struct CsvRow {
    archive: String,
    pipeline: String,
    chip: String,
    driver: String,
    verdict: String,
    codes: Vec<String>,
}

/// The interlocked pipelines of a replay's report, with their verify_isa verdicts.
fn rows(report: &Path, archive: &str, chip: Family) -> Vec<CsvRow> {
    use pops_report::read::Item;
    let mut out = Vec::new();
    let Ok(f) = std::fs::File::open(report) else {
        return out;
    };
    let _ = pops_report::read::each_line(f, |_, item| {
        let Ok(Item::Record(r)) = item else { return };
        if r.kind != pops_report::Kind::Pipeline || r.interlock == pops_report::Interlock::None {
            return;
        }
        let mut codes: Vec<String> = r
            .diagnostics
            .iter()
            .map(|d| d.code.clone())
            .filter(|c| c.starts_with("isa-"))
            .collect();
        codes.sort();
        codes.dedup();
        let verdict = match codes.as_slice() {
            [] => "no verdict",
            c if c.iter().all(|c| c == "isa-verified") => "verified",
            c if c.iter().any(|c| c == "isa-not-verified") => "not verified",
            _ => "finding",
        };
        out.push(CsvRow {
            archive: archive.to_string(),
            // The replayer creates pipelines on several threads: the stage hash, not the order,
            // names a pipeline across two replays.
            pipeline: r.stage_hash.clone().unwrap_or_else(|| "-".into()),
            chip: chip.name().to_string(),
            driver: r.driver.clone().unwrap_or_default(),
            verdict: verdict.to_string(),
            codes: codes.into_iter().filter(|c| c != "isa-verified").collect(),
        });
    });
    out
}

/// The table: one line per archive and chip.
fn table(all: &[Replayed]) -> String {
    let mut o = String::new();
    for r in all {
        let _ = match (&r.failed, &r.verdicts) {
            (Some(why), _) => writeln!(
                o,
                "pops replay: {} as {}: NOT REPLAYED: {why}",
                r.archive,
                r.chip.name()
            ),
            (None, Some(v)) => {
                let mut parts = vec![format!("{} verified clean", v.verified)];
                parts.extend(v.findings.iter().map(|(c, n)| format!("{n} with {c}")));
                parts.extend(
                    v.not_verified
                        .iter()
                        .map(|(why, n)| format!("{n} not verified ({why})")),
                );
                writeln!(
                    o,
                    "pops replay: {} as {}{}: {} interlocked pipeline(s): {}",
                    r.archive,
                    r.chip.name(),
                    v.driver
                        .as_deref()
                        .map_or(String::new(), |d| format!(" with {d}")),
                    v.objects,
                    parts.join(", ")
                )
            }
            (None, None) => Ok(()),
        };
    }
    o
}

/// The CSV's columns, written and read.
const CSV_HEADER: &str = "archive,pipeline,executable,chip,driver,verdict,findings";

/// fossil-db's conventions: a header, then one row per pipeline, comma-separated (a field with a
/// comma or quote quoted), finding codes joined by `;`.
fn csv_text(all: &[Replayed]) -> String {
    let field = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut o = format!("{CSV_HEADER}\n");
    for row in all.iter().flat_map(|r| &r.rows) {
        let _ = writeln!(
            o,
            "{},{},fragment,{},{},{},{}",
            field(&row.archive),
            field(&row.pipeline),
            field(&row.chip),
            field(&row.driver),
            field(&row.verdict),
            field(&row.codes.join(";"))
        );
    }
    o
}

/// 2 when something was not replayed or a pipeline not verified, 1 on any finding, else 0 (an
/// archive without interlocked pipelines is clean: its line says 0).
fn status(all: &[Replayed]) -> ExitCode {
    let unverified = all.iter().any(|r| {
        r.failed.is_some()
            || r.verdicts
                .as_ref()
                .is_none_or(|v| !v.not_verified.is_empty())
            || r.rows.iter().any(|row| row.verdict == "no verdict")
    });
    let findings = all
        .iter()
        .any(|r| r.verdicts.as_ref().is_some_and(|v| !v.findings.is_empty()));
    if unverified {
        ExitCode::from(2)
    } else if findings {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The verdicts a CSV gives: (archive file name, fragment stage, chip) → the verdict or findings
/// of each pipeline with that stage (several pipelines may share one), sorted.
type Verdicts = std::collections::BTreeMap<(String, String, String), Vec<String>>;

/// The fields of one CSV line as [`csv_text`] writes them: comma-separated, a quoted field's
/// doubled quotes one.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().expect("one field at least");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => field.push(c),
        }
    }
    fields
}

/// Reads a `--csv` file.
fn read_csv(path: &Path) -> Result<(Verdicts, Option<String>), ReplayError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReplayError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut out = Verdicts::new();
    let mut driver = None;
    for (k, line) in text.lines().enumerate().skip(1) {
        let f = csv_fields(line);
        let [archive, pipeline, _, chip, drv, verdict, findings] = &f[..] else {
            return Err(ReplayError::Row {
                path: path.to_path_buf(),
                line: k + 1,
            });
        };
        driver.get_or_insert_with(|| drv.clone());
        let name = Path::new(archive)
            .file_name()
            .map_or(archive.clone(), |n| n.to_string_lossy().into_owned());
        let said = if findings.is_empty() {
            verdict.to_string()
        } else {
            findings.replace(';', ", ")
        };
        out.entry((name, pipeline.clone(), chip.clone()))
            .or_default()
            .push(said);
    }
    for v in out.values_mut() {
        v.sort();
    }
    Ok((out, driver))
}

/// `--compare BEFORE AFTER`: the pipelines whose verdicts differ, new findings first.
fn compare_csv(before: &Path, after: &Path) -> Result<ExitCode, ReplayError> {
    let (b, bd) = read_csv(before)?;
    let (a, ad) = read_csv(after)?;
    let who = |d: &Option<String>, p: &Path| d.clone().unwrap_or_else(|| p.display().to_string());
    println!(
        "pops replay: {} (before) against {} (after)",
        who(&bd, before),
        who(&ad, after)
    );
    let mut new = Vec::new();
    let mut other = Vec::new();
    let keys: std::collections::BTreeSet<_> = b.keys().chain(a.keys()).collect();
    for key in keys {
        let (was, is) = (b.get(key), a.get(key));
        if was == is {
            continue;
        }
        let show =
            |v: Option<&Vec<String>>| v.map_or("not in this replay".to_string(), |v| v.join(" | "));
        let line = format!(
            "{} {} as {}: {} -> {}",
            key.0,
            key.1,
            key.2,
            show(was),
            show(is)
        );
        let finding = |v: Option<&Vec<String>>| {
            v.is_some_and(|v| v.iter().any(|s| s != "verified" && s != "not verified"))
        };
        if finding(is) && !finding(was) {
            new.push(line);
        } else {
            other.push(line);
        }
    }
    for l in &new {
        println!("NEW FINDING  {l}");
    }
    for l in &other {
        println!("changed      {l}");
    }
    println!(
        "pops replay: {} fragment stage(s) (per archive and chip) with a new finding, {} otherwise changed, of {} before and {} after",
        new.len(),
        other.len(),
        b.len(),
        a.len()
    );
    Ok(if new.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `--csv` writes, `--compare` reads back field for field, quoted fields included.
    #[test]
    fn csv_rows_read_back_as_written() {
        let replayed = Replayed {
            archive: "/tmp/a, b \"c\".foz".into(),
            chip: Family::Navi31,
            verdicts: None,
            failed: None,
            rows: vec![CsvRow {
                archive: "/tmp/a, b \"c\".foz".into(),
                pipeline: "8dd2b5630eb28b22".into(),
                chip: "navi31".into(),
                driver: "radv (Mesa 26.2.6-1)".into(),
                verdict: "finding".into(),
                codes: vec![
                    "isa-model".into(),
                    "isa-ordered-section-open-at-epilog".into(),
                ],
            }],
        };
        let text = csv_text(&[replayed]);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER));
        assert_eq!(
            csv_fields(lines.next().unwrap()),
            [
                "/tmp/a, b \"c\".foz",
                "8dd2b5630eb28b22",
                "fragment",
                "navi31",
                "radv (Mesa 26.2.6-1)",
                "finding",
                "isa-model;isa-ordered-section-open-at-epilog"
            ]
        );
    }
}
