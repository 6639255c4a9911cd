//! `pops compare --experiment X [--runs N] [--image PATH]… -- PROGRAM ARGS…`: runs the program
//! alternately without and with an interlock experiment, N times each, with
//! VK_LAYER_POPS_interlock timing its interlocked work, and prints per pipeline and per frame
//! the GPU time of that work (min / median / max) and the ratio; with `--image`, whether the
//! files the program writes changed.
//!
//! Both sides run with the layer and its timing, so what the layer adds is the same on both;
//! only the experiment differs. The program runs on the device it finds (never on null
//! hardware, where nothing executes and nothing can be timed).

use crate::launch::{self, Target};
use crate::timing_stats::{render_compare, RunTiming, Side};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

#[derive(clap::Args)]
pub struct Args {
    /// The experiment: pixel-to-sample, sample-to-pixel, ordered-to-unordered,
    /// unordered-to-ordered or no-interlock.
    #[arg(long)]
    experiment: String,
    /// Runs of each side (without and with the experiment), alternately.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// A file the program writes, or a folder of them (its files, not its subfolders): hashed
    /// after every run to tell whether the experiment changed the output. Repeatable.
    #[arg(long = "image", value_name = "PATH")]
    images: Vec<PathBuf>,
    /// What the experiment is limited to, comma-separated: fragment stage hashes (as pops
    /// inspect prints them) or the application's names of shader modules [default: every
    /// interlocked fragment shader].
    #[arg(long)]
    targets: Option<String>,
    /// AMD chip the layer models in its records (family, LLVM processor or level).
    #[arg(long)]
    chip: Option<String>,
    /// Where the layer's reports go, one per run [default: a new folder pops-compare-XXXXXX of
    /// the temp folder, kept after the run].
    #[arg(long)]
    reports: Option<PathBuf>,
    /// Also write the comparison as one self-contained HTML page (no network, no external
    /// assets).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Run nothing: compare the reports an earlier `pops compare --reports DIR` kept in DIR
    /// (`none_K.jsonl` and `EXPERIMENT_K.jsonl`); PROGRAM only names what ran.
    #[arg(long, requires = "reports")]
    from_reports: bool,
    #[command(flatten)]
    launch: crate::launch_args::Launch,
}

/// The files `--image` names: a file itself, a folder's files (sorted). Missing paths are
/// listed as they are (a run that does not write them says so).
fn image_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|f| f.is_file())
                        .collect()
                })
                .unwrap_or_default();
            files.sort();
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// What a run left in one output file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// SHA-256 of the file the run wrote.
    Written(String),
    /// The file exists but the run did not write it (older than the run's start).
    NotWritten,
    Missing,
}

fn hash_outputs(paths: &[PathBuf], started: SystemTime) -> BTreeMap<PathBuf, Output> {
    image_files(paths)
        .into_iter()
        .map(|f| {
            let out = match std::fs::metadata(&f) {
                Err(_) => Output::Missing,
                Ok(m) if m.modified().is_ok_and(|t| t < started) => Output::NotWritten,
                Ok(_) => match std::fs::read(&f) {
                    Ok(bytes) => Output::Written(format!("{:x}", Sha256::digest(&bytes))),
                    Err(_) => Output::Missing,
                },
            };
            (f, out)
        })
        .collect()
}

/// The output verdict: a headline, and per file whether the baseline's runs agree and the
/// experiment's runs match them. Pure.
pub fn output_verdicts(
    experiment: &str,
    base: &[BTreeMap<PathBuf, Output>],
    exp: &[BTreeMap<PathBuf, Output>],
) -> crate::report_html::Outputs {
    let mut files: Vec<&PathBuf> = base.iter().chain(exp).flat_map(|m| m.keys()).collect();
    files.sort();
    files.dedup();
    if files.is_empty() {
        return (
            0,
            "no file found where --image points".to_string(),
            Vec::new(),
        );
    }
    let (mut same, mut changed, mut unstable, mut unwritten) = (0, 0, 0, 0);
    let mut lines = Vec::new();
    for f in &files {
        let get = |m: &BTreeMap<PathBuf, Output>| m.get(*f).cloned().unwrap_or(Output::Missing);
        let b: Vec<Output> = base.iter().map(get).collect();
        let e: Vec<Output> = exp.iter().map(get).collect();
        let written = |v: &[Output]| v.iter().all(|x| matches!(x, Output::Written(_)));
        let verdict = if !written(&b) || !written(&e) {
            unwritten += 1;
            "not written by every run".to_string()
        } else if b.windows(2).any(|w| w[0] != w[1]) {
            unstable += 1;
            "differs between runs without the experiment (not deterministic)".to_string()
        } else {
            let differ = e.iter().filter(|x| **x != b[0]).count();
            if differ == 0 {
                same += 1;
                "same".to_string()
            } else {
                changed += 1;
                format!("CHANGED in {differ} of {} run(s)", e.len())
            }
        };
        lines.push((f.display().to_string(), verdict));
    }
    let headline = if changed > 0 {
        format!("{experiment} CHANGES the output ({changed} file(s) differ)")
    } else if unstable + unwritten == 0 {
        format!("identical with and without {experiment}")
    } else {
        format!("{same} file(s) identical; the others cannot be compared")
    };
    (files.len(), headline, lines)
}

/// The output verdict as text. Pure.
pub fn render_outputs(
    experiment: &str,
    base: &[BTreeMap<PathBuf, Output>],
    exp: &[BTreeMap<PathBuf, Output>],
) -> String {
    let (n, headline, lines) = output_verdicts(experiment, base, exp);
    if lines.is_empty() {
        return format!("Output: {headline}\n");
    }
    let mut o = format!("Output ({n} file(s)): {headline}\n");
    for (f, v) in lines {
        o.push_str(&format!("  {f}: {v}\n"));
    }
    o
}

/// The program's exit statuses, where any run failed. Pure.
pub fn render_statuses(experiment: &str, base: &[u8], exp: &[u8]) -> String {
    let failed = |v: &[u8]| v.iter().filter(|c| **c != 0).count();
    if failed(base) + failed(exp) == 0 {
        return String::new();
    }
    let list = |v: &[u8]| {
        v.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Exit status: {} of {} run(s) failed without the experiment ({}), {} of {} with {experiment} ({})\n",
        failed(base),
        base.len(),
        list(base),
        failed(exp),
        exp.len(),
        list(exp)
    )
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("pops compare: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// What every run of one comparison shares.
struct Runs<'a> {
    args: &'a Args,
    /// The experiment's name.
    name: &'a str,
    program: &'a OsString,
    program_args: &'a [OsString],
    layer_dir: PathBuf,
    reports: PathBuf,
    chip: Option<pm4::Family>,
    target: Target,
    /// The caller's own layers and layer path, kept.
    existing: Option<String>,
    existing_path: Option<String>,
}

impl Runs<'_> {
    /// Run `k` (from 1), with or without the experiment: its timing, the hashes of the output
    /// files it wrote, and the program's exit status (a program that checks its own output may
    /// fail under an experiment that breaks it: the run still counts, its status is reported).
    fn one(
        &self,
        k: u32,
        with: bool,
        progress: &crate::progress::Progress,
    ) -> Result<(RunTiming, BTreeMap<PathBuf, Output>, u8), CompareError> {
        let name = self.name;
        let label = if with { name } else { "none" };
        let report = self.reports.join(format!("{label}_{k}.jsonl"));
        std::fs::write(&report, b"").map_err(|e| CompareError::Write {
            path: report.clone(),
            reason: e.to_string(),
        })?;
        let mut env = launch::child_env(
            &self.layer_dir,
            self.existing_path.as_deref(),
            self.existing.as_deref(),
            &report,
            self.chip,
            &self.target,
        );
        env.push(("VK_POPS_INTERLOCK_TIMING".into(), "1".into()));
        // Set on both sides, so that an experiment in the caller's environment never leaks into
        // the baseline.
        env.push((
            "VK_POPS_INTERLOCK_EXPERIMENT".into(),
            if with { name.into() } else { OsString::new() },
        ));
        if let Some(t) = &self.args.targets {
            env.push(("VK_POPS_INTERLOCK_EXPERIMENT_TARGETS".into(), t.into()));
        }
        // The program's own output follows: the line stays.
        let side = if with {
            format!("with {name}")
        } else {
            "without the experiment".to_string()
        };
        progress.step(
            &format!(
                "run {} of {} ({side})",
                2 * k - u32::from(!with),
                2 * self.args.runs
            ),
            true,
        );
        let started = SystemTime::now();
        let status = launch::spawn(self.program, self.program_args, &env)?;
        let code = launch::exit_code_of(status);
        if code != 0 {
            eprintln!(
                "pops compare: run {k} ({label}): {} exited with status {code}",
                self.program.to_string_lossy()
            );
        }
        let summary = crate::summary::summarize_files(&[&report])?;
        if summary.bad_lines > 0 {
            eprintln!(
                "pops compare: {}: {} line(s) are not report lines",
                report.display(),
                summary.bad_lines
            );
        }
        if with && summary.experimented == 0 {
            eprintln!(
                "pops compare: run {k}: {name} changed no shader (nothing interlocked, or the device refused it: see the layer's messages above)"
            );
        }
        let timing = RunTiming::from_lines(&summary.timing);
        Ok((timing, hash_outputs(&self.args.images, started), code))
    }
}

/// Why `pops compare` compared nothing.
#[derive(Debug, thiserror::Error)]
enum CompareError {
    #[error("--experiment {0}: not one of pixel-to-sample, sample-to-pixel, ordered-to-unordered, unordered-to-ordered, no-interlock")]
    Experiment(String),
    #[error(transparent)]
    Launch(#[from] launch::LaunchError),
    #[error(transparent)]
    Report(#[from] crate::summary::ReportFileError),
    #[error("cannot write {}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
    #[error("--from-reports needs --reports DIR")]
    NoReportsDir,
    #[error("{} holds no none_1.jsonl and {name}_1.jsonl: not a folder of `pops compare --reports`", dir.display())]
    NotAReportsDir { dir: PathBuf, name: String },
}

fn run_inner(args: Args) -> Result<ExitCode, CompareError> {
    let experiment = shaders::spirv::rewrite::Experiment::parse(&args.experiment)
        .ok_or_else(|| CompareError::Experiment(args.experiment.clone()))?;
    if args.from_reports {
        return replay(&args, experiment.name());
    }
    let chip = launch::chip_arg(args.chip.as_deref())?;
    let (program, program_args) = args.launch.program()?;
    let layer_dir = args.launch.layer_dir()?;
    let reports = match &args.reports {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| CompareError::Write {
                path: dir.clone(),
                reason: e.to_string(),
            })?;
            dir.clone()
        }
        None => launch::fresh_run_folder("pops-compare-")?,
    };
    // Null hardware executes nothing: there would be nothing to time.
    let target = match launch::interlock_devices().first() {
        Some(d) => Target::Real { device: d.clone() },
        None => Target::NoInterlock,
    };
    match &target {
        Target::Real { device } => eprintln!("pops compare: interlock device: {device}"),
        _ => eprintln!(
            "pops compare: no Vulkan device with fragment shader interlock: the experiment has nothing to change; running on whatever the program finds"
        ),
    }
    let name = experiment.name();
    let runs = Runs {
        args: &args,
        name,
        program,
        program_args,
        layer_dir,
        reports: reports.clone(),
        chip,
        target,
        existing: std::env::var("VK_INSTANCE_LAYERS").ok(),
        existing_path: std::env::var("VK_ADD_LAYER_PATH").ok(),
    };
    let (mut base, mut exp) = (Side::default(), Side::default());
    let (mut base_out, mut exp_out) = (Vec::new(), Vec::new());
    let (mut base_codes, mut exp_codes) = (Vec::new(), Vec::new());
    let progress = crate::progress::Progress::new("pops compare");
    for k in 1..=args.runs {
        for with in [false, true] {
            let (timing, outputs, code) = runs.one(k, with, &progress)?;
            let (side, out, codes) = if with {
                (&mut exp, &mut exp_out, &mut exp_codes)
            } else {
                (&mut base, &mut base_out, &mut base_codes)
            };
            side.runs.push(timing);
            out.push(outputs);
            codes.push(code);
        }
    }
    println!(
        "pops compare: {} {} time(s) without and with {name}, alternately; reports in {}",
        program.to_string_lossy(),
        args.runs,
        reports.display()
    );
    if base.runs.iter().chain(&exp.runs).all(|r| r.units == 0) {
        println!(
            "pops compare: no timing lines: the program submitted no command buffer the layer could time (see the reports)"
        );
    } else if base.runs.iter().chain(&exp.runs).all(|r| r.ranges == 0) {
        println!("pops compare: no interlocked draw was timed: the program drew nothing with fragment shader interlock");
    }
    print!("{}", render_compare(name, &base, &exp));
    print!("{}", render_statuses(name, &base_codes, &exp_codes));
    if !args.images.is_empty() {
        print!("{}", render_outputs(name, &base_out, &exp_out));
    }
    if let Some(out) = &args.html {
        let page = crate::report_html::compare_page(&crate::report_html::Comparison {
            program: &program.to_string_lossy(),
            experiment: name,
            base: &base,
            exp: &exp,
            codes: (&base_codes, &exp_codes),
            outputs: (!args.images.is_empty()).then(|| output_verdicts(name, &base_out, &exp_out)),
        });
        std::fs::write(out, page).map_err(|e| CompareError::Write {
            path: out.clone(),
            reason: e.to_string(),
        })?;
        println!("pops compare: page written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--from-reports`: the comparison of the runs whose reports a folder kept, without running.
fn replay(args: &Args, name: &str) -> Result<ExitCode, CompareError> {
    let dir = args.reports.as_deref().ok_or(CompareError::NoReportsDir)?;
    let (mut base, mut exp) = (Side::default(), Side::default());
    for k in 1.. {
        let (b, e) = (
            dir.join(format!("none_{k}.jsonl")),
            dir.join(format!("{name}_{k}.jsonl")),
        );
        if !b.is_file() || !e.is_file() {
            break;
        }
        for (path, side) in [(b, &mut base), (e, &mut exp)] {
            side.runs.push(RunTiming::from_lines(
                &crate::summary::summarize_files(&[&path])?.timing,
            ));
        }
    }
    if base.runs.is_empty() {
        return Err(CompareError::NotAReportsDir {
            dir: dir.to_path_buf(),
            name: name.to_string(),
        });
    }
    let program = args
        .launch
        .program()
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "pops compare: {program}, {} run(s) without and with {name}, from the reports in {}",
        base.runs.len(),
        dir.display()
    );
    print!("{}", render_compare(name, &base, &exp));
    if let Some(out) = &args.html {
        let page = crate::report_html::compare_page(&crate::report_html::Comparison {
            program: &program,
            experiment: name,
            base: &base,
            exp: &exp,
            codes: (&[], &[]),
            outputs: None,
        });
        std::fs::write(out, page).map_err(|e| CompareError::Write {
            path: out.clone(),
            reason: e.to_string(),
        })?;
        println!("pops compare: page written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(pairs: &[(&str, Output)]) -> BTreeMap<PathBuf, Output> {
        pairs
            .iter()
            .map(|(p, o)| (PathBuf::from(p), o.clone()))
            .collect()
    }

    fn w(s: &str) -> Output {
        Output::Written(s.into())
    }

    /// Same, changed, unstable and unwritten files each get their verdict.
    #[test]
    fn output_verdicts() {
        let base = vec![
            outputs(&[
                ("a.png", w("1")),
                ("b.png", w("2")),
                ("c.png", w("3")),
                ("d.png", w("4")),
            ]),
            outputs(&[
                ("a.png", w("1")),
                ("b.png", w("2")),
                ("c.png", w("9")),
                ("d.png", Output::NotWritten),
            ]),
        ];
        let exp = vec![
            outputs(&[
                ("a.png", w("1")),
                ("b.png", w("5")),
                ("c.png", w("3")),
                ("d.png", w("4")),
            ]),
            outputs(&[
                ("a.png", w("1")),
                ("b.png", w("2")),
                ("c.png", w("3")),
                ("d.png", w("4")),
            ]),
        ];
        let t = render_outputs("no-interlock", &base, &exp);
        assert!(
            t.contains("no-interlock CHANGES the output (1 file(s) differ)"),
            "{t}"
        );
        assert!(t.contains("a.png: same"), "{t}");
        assert!(t.contains("b.png: CHANGED in 1 of 2 run(s)"), "{t}");
        assert!(
            t.contains("c.png: differs between runs without the experiment"),
            "{t}"
        );
        assert!(t.contains("d.png: not written by every run"), "{t}");
        let same = render_outputs("x", &base[..1], &exp[1..]);
        assert!(same.contains("identical with and without x"), "{same}");
    }

    /// Failing runs are listed per side; all passing, nothing is said.
    #[test]
    fn exit_statuses() {
        assert_eq!(render_statuses("x", &[0, 0], &[0, 0]), "");
        assert_eq!(
            render_statuses("no-interlock", &[0, 0], &[1, 0]),
            "Exit status: 0 of 2 run(s) failed without the experiment (0, 0), 1 of 2 with no-interlock (1, 0)\n"
        );
    }

    /// Files of a folder are found (sorted); a file the run did not write is told apart.
    #[test]
    fn outputs_are_hashed_and_dated() {
        let dir = pops_testkit::scratch("compare-test");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.png"), b"b").unwrap();
        std::fs::write(dir.join("a.png"), b"a").unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(3600);
        let h = hash_outputs(
            &[dir.clone(), dir.join("missing.png")],
            SystemTime::UNIX_EPOCH,
        );
        let files: Vec<_> = h
            .keys()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(files, ["a.png", "b.png", "missing.png"]);
        assert_eq!(
            h[&dir.join("a.png")],
            Output::Written(
                "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb".into()
            )
        );
        assert_eq!(h[&dir.join("missing.png")], Output::Missing);
        let h = hash_outputs(std::slice::from_ref(&dir), later);
        assert_eq!(h[&dir.join("b.png")], Output::NotWritten);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
