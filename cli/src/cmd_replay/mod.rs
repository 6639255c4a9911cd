//! `pops replay ARCHIVE.foz… [--chip C…] [--mesa host|ICD…] [--amdgpu-shim LIB] [--csv FILE]`:
//! every interlocked pipeline of Fossilize archives (Steam's pipeline caches, Mesa's fossil-db)
//! created by `fossilize-replay` under the layer with verify_isa, as driver developers replay
//! them to judge a compiler change: on RADV over the amdgpu shim as each chip, or on RADV's null
//! device of each chip, on each driver asked. One line per archive × chip × driver: interlocked
//! pipelines, verified, findings by code, not verified by reason; then the driver defects found,
//! known ones named. Each CSV row names the archive's own pipeline ([`naming`]).
//! Exit status: 0 when everything replayed was verified and clean, 1 on any finding, 2 when
//! something could not be replayed or verified.

use crate::launch::{
    child_env, exit_code_of, find_layer, fresh_run_folder, how_it_ended, shim_target, spawn,
    LaunchError, Target,
};
use crate::verification::{self, ChipVerdicts};
use compare::fossilize::{self, ArchivePipelines};
use naming::Seen;
use pm4::Family;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod csv;
mod naming;

use csv::{compare_csv, csv_text};

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
    /// Replay on this machine's own Vulkan device with interlock (an AMD GPU: its code verified
    /// as the chip it is) instead of null devices of chips.
    #[arg(long, conflicts_with_all = ["chips", "amdgpu_shim"])]
    gpu: bool,
    /// Replay on stock RADV over the amdgpu kernel-interface shim (this library, preloaded) as
    /// each chip; without it, on RADV's null device of each chip (a drm-shim or
    /// RADV_FORCE_FAMILY). The RADV is the one the Vulkan loader finds (VK_DRIVER_FILES names
    /// another build).
    #[arg(long, value_name = "LIBRARY")]
    amdgpu_shim: Option<PathBuf>,
    /// The drivers to replay on (repeatable): `host` (the RADV the Vulkan loader finds), a
    /// driver build's ICD manifest (e.g. a Mesa build's `radeon_icd.x86_64.json`), or `current`:
    /// today's Mesa in the root `POPS_MESA_CURRENT` names, run through its runner
    /// `POPS_MESA_CURRENT_RUNNER` (shared/tools/mesa-current; needs root) [default: host].
    #[arg(long = "mesa", value_name = "host|current|ICD.json")]
    mesas: Vec<String>,
    /// Write one row per interlocked pipeline: archive, pipeline (the archive's own hash, as
    /// fossilize-list prints it), executable, chip, driver, verdict, finding codes.
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
    #[error("{}:{line}: not a row of `pops replay --csv` ({})", path.display(), csv::CSV_HEADER)]
    Row { path: PathBuf, line: usize },
    #[error("--gpu: this machine has no Vulkan device with fragment shader interlock")]
    NoGpu,
    #[error("--mesa {0}: neither `host`, `current` nor a driver's ICD manifest (a file)")]
    Mesa(String),
    #[error("--mesa current: {0} does not name an existing path (the Mesa root that shared/tools/mesa-current/build.sh made, and that tool's run.sh)")]
    NoCurrentMesa(&'static str),
    #[error("{}: {source}", archive.display())]
    List {
        archive: PathBuf,
        source: fossilize::ListError,
    },
}

/// What one archive replayed as one chip gave.
struct Replayed {
    archive: String,
    /// `None`: the machine's own device.
    chip: Option<Family>,
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
    let chips = if a.gpu {
        if a.mesas.is_empty() && compare::launch::interlock_devices().is_empty() {
            return Err(ReplayError::NoGpu);
        }
        vec![None]
    } else {
        chips(&a.chips)?.into_iter().map(Some).collect()
    };
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
    let mesas = match a.mesas.as_slice() {
        [] => vec![Mesa::Host],
        given => given
            .iter()
            .map(|m| Mesa::parse(m))
            .collect::<Result<_, _>>()?,
    };
    let setup = Setup {
        args: a,
        layer,
        reports: reports.clone(),
        lister: lister(&a.replayer),
    };
    let mut all = Vec::new();
    let mut found = verification::Verification::default();
    for archive in &a.archives {
        let pipelines =
            fossilize::list(&setup.lister, archive).map_err(|source| ReplayError::List {
                archive: archive.clone(),
                source,
            })?;
        for (m, mesa) in mesas.iter().enumerate() {
            for &chip in &chips {
                let at = (mesa, mesa.tag(m + 1));
                let (r, v) = replay_one(&setup, archive, &pipelines, chip, (at.0, &at.1))?;
                if let Some(v) = v {
                    found.chips.extend(v.chips);
                    found.defects.extend(v.defects);
                }
                all.push(r);
            }
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

/// Fossilize's lister beside `replayer` (a build puts both in one folder), else on PATH.
fn lister(replayer: &Path) -> PathBuf {
    let beside = replayer
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join("fossilize-list"));
    beside
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("fossilize-list"))
}

/// How a chip is named in report files and lines: its family, or `gpu` for the machine's own.
fn chip_label(chip: Option<Family>) -> &'static str {
    chip.map_or("gpu", Family::name)
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

/// What every replay of one `pops replay` shares.
struct Setup<'a> {
    args: &'a Args,
    layer: PathBuf,
    reports: PathBuf,
    /// Fossilize's lister: beside the replayer, else on PATH.
    lister: PathBuf,
}

/// Which driver a replay runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mesa {
    /// The RADV the Vulkan loader finds.
    Host,
    /// The driver this ICD manifest names (a Mesa build's `radeon_icd.*.json`).
    Driver(PathBuf),
    /// Today's Mesa in a root file system as `shared/tools/mesa-current` builds it: the
    /// replayer runs inside it through the root's runner (`run.sh`), which needs root.
    Current { root: PathBuf, runner: PathBuf },
}

impl Mesa {
    fn parse(given: &str) -> Result<Mesa, ReplayError> {
        if given == "host" {
            return Ok(Mesa::Host);
        }
        if given == "current" {
            let var = |name: &'static str| {
                std::env::var_os(name)
                    .map(PathBuf::from)
                    .filter(|p| p.exists())
                    .ok_or(ReplayError::NoCurrentMesa(name))
            };
            return Ok(Mesa::Current {
                root: var("POPS_MESA_CURRENT")?,
                runner: var("POPS_MESA_CURRENT_RUNNER")?,
            });
        }
        let p = PathBuf::from(given);
        if p.is_file() {
            Ok(Mesa::Driver(p))
        } else {
            Err(ReplayError::Mesa(given.to_string()))
        }
    }

    /// What names it in report files: `host`, or the manifest's position among `--mesa`.
    fn tag(&self, index: usize) -> String {
        match self {
            Mesa::Host => "host".into(),
            Mesa::Driver(_) => format!("driver{index}"),
            Mesa::Current { .. } => "current".into(),
        }
    }
}

/// Replays `archive` as `chip` on `mesa` under the layer with verify_isa; its verdicts and
/// rows, each row named by the archive's pipeline hash.
fn replay_one(
    s: &Setup,
    archive: &Path,
    pipelines: &ArchivePipelines,
    chip: Option<Family>,
    (mesa, tag): (&Mesa, &str),
) -> Result<(Replayed, Option<verification::Verification>), ReplayError> {
    let stem = archive
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = format!("{stem}-{}-{tag}", chip_label(chip));
    let report = s.reports.join(format!("{base}.jsonl"));
    let mut r = Replayed {
        archive: archive.display().to_string(),
        chip,
        verdicts: None,
        failed: run_replayer(s, &report, archive, chip, mesa, None)?,
        rows: Vec::new(),
    };
    let v = match crate::summary::summarize_files(&[&report]) {
        Ok(s) => s.verification,
        Err(e) => {
            r.failed.get_or_insert(e.to_string());
            return Ok((r, None));
        }
    };
    r.verdicts = Some(v.chips.first().cloned().unwrap_or_else(|| ChipVerdicts {
        chip: chip_label(chip).to_string(),
        ..Default::default()
    }));
    let mut alone_failed = None;
    let named = naming::name(seen(&report), pipelines, |hash| {
        let one = s.reports.join(format!("{base}-{hash}.jsonl"));
        match run_replayer(s, &one, archive, chip, mesa, Some(hash)) {
            Ok(None) => Some(seen(&one)),
            Ok(Some(why)) => {
                alone_failed.get_or_insert(why);
                None
            }
            Err(e) => {
                alone_failed.get_or_insert(e.to_string());
                None
            }
        }
    });
    if let Some(why) = alone_failed {
        r.failed
            .get_or_insert(format!("replaying one pipeline alone: {why}"));
    }
    r.rows = named
        .into_iter()
        .map(|(pipeline, seen)| CsvRow {
            archive: r.archive.clone(),
            pipeline,
            chip: chip.map_or_else(|| seen.chip.clone(), |c| c.name().to_string()),
            driver: seen.driver,
            verdict: seen.verdict,
            codes: seen.codes,
        })
        .collect();
    Ok((r, Some(v)))
}

/// Runs the replayer over `archive` (only the pipeline `hash`, where given) as `chip` on `mesa`,
/// its report in `report`; why it failed, if it did.
fn run_replayer(
    s: &Setup,
    report: &Path,
    archive: &Path,
    chip: Option<Family>,
    mesa: &Mesa,
    hash: Option<&str>,
) -> Result<Option<String>, ReplayError> {
    let _ = std::fs::remove_file(report);
    let target = match (chip, &s.args.amdgpu_shim) {
        (None, _) => Target::Real {
            device: "this machine's device".into(),
        },
        (Some(chip), Some(lib)) => shim_target(lib, Some(chip), report)?,
        (Some(chip), None) => crate::launch::null_target(chip)?,
    };
    let existing = std::env::var("VK_INSTANCE_LAYERS").ok();
    let existing_path = std::env::var("VK_ADD_LAYER_PATH").ok();
    let mut env = child_env(
        &s.layer,
        existing_path.as_deref(),
        existing.as_deref(),
        report,
        chip,
        &target,
    );
    env.push(("VK_POPS_INTERLOCK_VERIFY_ISA".into(), "1".into()));
    if let Mesa::Driver(icd) = mesa {
        env.retain(|(k, _)| k != "VK_DRIVER_FILES");
        env.push(("VK_DRIVER_FILES".into(), icd.as_os_str().to_owned()));
    }
    let mut args = Vec::new();
    if let Some(h) = hash {
        args.extend(["--pipeline-hash".into(), h.into()]);
    }
    args.push(archive.as_os_str().to_owned());
    let (program, args) = match mesa {
        Mesa::Current { root, runner } => inside(root, runner, s, archive, &mut env, args),
        _ => (s.args.replayer.as_os_str().to_owned(), args),
    };
    // Held while the replayer runs inside today's Mesa's root (dropped at return).
    let _root_lock = match mesa {
        Mesa::Current { root, .. } => match lock_root(root) {
            Ok(l) => Some(l),
            Err(e) => return Ok(Some(e)),
        },
        _ => None,
    };
    let status = match spawn(&program, &args, &env) {
        Ok(st) => st,
        Err(e) => return Ok(Some(e.to_string())),
    };
    if status.success() {
        return Ok(None);
    }
    let name = s.args.replayer.display().to_string();
    Ok(Some(how_it_ended(&name, status).unwrap_or_else(|| {
        format!("{name} exited with status {}", exit_code_of(status))
    })))
}

/// The lock every run inside today's Mesa's `root` holds (`ROOT/pops-run.lock`, the file pops's
/// tests and scripts lock with flock(1)), taken exclusively, waiting for another run to end.
/// Why: the root's runner unmounts everything it mounted under the root (`/tmp`, `/proc`, the
/// bound folders) when its command ends, so a run that ends while another is still inside pulls
/// that one's files from under it (its report then reads as absent). An error says which lock
/// could not be taken.
fn lock_root(root: &Path) -> Result<nix::fcntl::Flock<std::fs::File>, String> {
    let path = root.join("pops-run.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open the lock {}: {e}", path.display()))?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| format!("cannot lock {}: {e}", path.display()))
}

/// The runner's command line that runs the replayer with `args` inside today's Mesa's `root`:
/// the folders it reads and writes bound in, the preload (the shim) moved inside so that the
/// runner's own helpers never load it.
fn inside(
    root: &Path,
    runner: &Path,
    s: &Setup,
    archive: &Path,
    env: &mut Vec<(String, std::ffi::OsString)>,
    args: Vec<std::ffi::OsString>,
) -> (std::ffi::OsString, Vec<std::ffi::OsString>) {
    let mut out: Vec<std::ffi::OsString> = vec![runner.into(), root.into()];
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let parent = |p: &Path| absolute(p).parent().map(Path::to_path_buf);
    let folders = [
        Some(absolute(&s.reports)),
        parent(archive),
        parent(&s.layer),
        parent(&s.args.replayer),
        s.args.amdgpu_shim.as_deref().and_then(parent),
    ];
    for f in folders.iter().flatten().filter(|f| f.is_dir()) {
        out.extend(["--bind".into(), f.into()]);
    }
    out.extend(["--".into(), "/usr/bin/env".into()]);
    if let Some(i) = env.iter().position(|(k, _)| k == "LD_PRELOAD") {
        let mut preload = std::ffi::OsString::from("LD_PRELOAD=");
        preload.push(&env.remove(i).1);
        out.push(preload);
    }
    out.push(absolute(&s.args.replayer).into());
    out.extend(args);
    ("bash".into(), out)
}

/// One interlocked pipeline in the CSV.
struct CsvRow {
    archive: String,
    /// The archive's pipeline hash ([`naming`]).
    pipeline: String,
    chip: String,
    driver: String,
    verdict: String,
    codes: Vec<String>,
}

/// The interlocked pipelines of a replay's report, with their verify_isa verdicts.
fn seen(report: &Path) -> Vec<Seen> {
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
        use pops_report::Code;
        let isa: Vec<Code> = r
            .diagnostics
            .iter()
            .map(|d| d.code)
            .filter(|c| matches!(c, Code::Isa(_)))
            .collect();
        let verdict = match isa.as_slice() {
            [] => "no verdict",
            c if c.iter().all(|c| *c == Code::ISA_VERIFIED) => "verified",
            c if c.contains(&Code::ISA_NOT_VERIFIED) => "not verified",
            _ => "finding",
        };
        let mut codes: Vec<String> = isa
            .into_iter()
            .filter(|c| *c != Code::ISA_VERIFIED)
            .map(|c| c.name().to_string())
            .collect();
        codes.sort();
        codes.dedup();
        out.push(Seen {
            module: r.fossilize_module.clone(),
            chip: r.chip.clone().unwrap_or_else(|| "-".into()),
            driver: r.driver.clone().unwrap_or_default(),
            verdict: verdict.to_string(),
            codes,
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
                chip_label(r.chip)
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
                    chip_label(r.chip),
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

#[cfg(test)]
mod tests {
    use super::*;
    use nix::fcntl::{Flock, FlockArg};

    /// A replay inside today's Mesa's root holds the root's lock while it runs, so that another
    /// run (flock(1) on the same file, as the tests and scripts take it) waits for it.
    #[test]
    fn a_replay_inside_the_root_holds_the_roots_lock() {
        let root = tempfile::tempdir().unwrap();
        let other = || std::fs::File::open(root.path().join("pops-run.lock")).unwrap();
        let held = lock_root(root.path()).unwrap();
        assert!(
            Flock::lock(other(), FlockArg::LockExclusiveNonblock).is_err(),
            "another run could enter the root while a replay is inside"
        );
        drop(held);
        assert!(Flock::lock(other(), FlockArg::LockExclusiveNonblock).is_ok());
    }

    #[test]
    fn a_lock_that_cannot_be_made_is_named() {
        let e = lock_root(Path::new("/nonexistent/root")).unwrap_err();
        assert!(
            e.starts_with("cannot open the lock /nonexistent/root/pops-run.lock"),
            "{e}"
        );
    }
}
