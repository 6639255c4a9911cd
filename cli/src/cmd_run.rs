//! `pops run [--chip NAME] [--report FILE] -- PROGRAM ARGS…`: runs any program with
//! VK_LAYER_POPS_interlock injected, passes its exit status through, then summarises the layer's
//! report: one row per interlocked pipeline with its mode, samples, chip, the POPS register
//! fields an AMD driver must program, and the layer's diagnostics.
//!
//! Without a Vulkan device that has fragment shader interlock, the program runs on RADV's null
//! hardware for the chip (`RADV_FORCE_FAMILY`), which creates and compiles real pipelines but
//! executes nothing; the summary says so.

use crate::launch::{
    announce, child_env, chip_arg, choose_target, exit_code_of, fresh_run_folder, how_it_ended,
    shim_target, spawn, Target,
};
use crate::submitted_check::{ShimRun, ShimRunError};
use crate::summary::Summary;
use crate::summary_text::{render_device_lost, render_summary};
use crate::verification;
use pm4::Family;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// AMD chip the layer models (family, LLVM processor or level). Without an interlock-capable
    /// device, also the chip of RADV's null hardware [default there: navi31].
    #[arg(long)]
    chip: Option<String>,
    /// Where the layer writes its JSON Lines report [default: report.jsonl in a new folder
    /// pops-run-XXXXXX of the temp folder, kept after the run].
    #[arg(long)]
    report: Option<PathBuf>,
    /// Run on stock RADV over the amdgpu kernel-interface shim (this library, preloaded) as
    /// `--chip` [default: navi31], without an AMD GPU: every command buffer is submitted through
    /// libdrm and the kernel's checks and recorded, shaders do not run. Afterwards each draw
    /// record is compared with the register fields RADV programmed at its draws.
    #[arg(long, value_name = "LIBRARY")]
    amdgpu_shim: Option<PathBuf>,
    /// Also verify the machine code the driver compiled for each interlocked pipeline, as
    /// `pops verify-isa` does (the layer's verify_isa setting): each finding is a diagnostic of
    /// the pipeline's records. Makes a pipeline's first creation several times slower; verdicts
    /// are kept between runs (docs/layer.md).
    #[arg(long)]
    verify_isa: bool,
    #[command(flatten)]
    launch: crate::launch_args::Launch,
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            eprintln!("pops run: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run_inner(args: Args) -> Result<u8, RunError> {
    let chip = chip_arg(args.chip.as_deref())?;
    let (program, program_args) = args.launch.program()?;
    let layer_dir = args.launch.layer_dir()?;

    let report = match &args.report {
        Some(path) => {
            // The layer appends: start from an empty file, and fail now rather than after the run.
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)
                .map_err(|e| RunError::ReportFile {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
            path.clone()
        }
        None => fresh_report()?,
    };

    let target = match &args.amdgpu_shim {
        Some(lib) => shim_target(lib, chip, &report)?,
        None => choose_target(chip)?,
    };
    announce(&target, "pops run");

    let existing = std::env::var("VK_INSTANCE_LAYERS").ok();
    let existing_path = std::env::var("VK_ADD_LAYER_PATH").ok();
    let mut env = child_env(
        &layer_dir,
        existing_path.as_deref(),
        existing.as_deref(),
        &report,
        chip,
        &target,
    );
    if args.verify_isa {
        env.push(("VK_POPS_INTERLOCK_VERIFY_ISA".into(), "1".into()));
    }
    let status = spawn(program, program_args, &env)?;
    let mut code = exit_code_of(status);
    let name = program.to_string_lossy();
    let ended = how_it_ended(&name, status);

    let mut summary = crate::summary::summarize_files(&[&report])?;
    match &target {
        Target::Shim { chip, dir, .. } => {
            // A program that crashed never finished: what it submitted is shown, never as a
            // run that agreed, and the exit status says it crashed.
            if let Some(e) = ended.as_ref().filter(|_| status.code().is_none()) {
                eprintln!("\npops run: {e}: the draws below are what it submitted before that");
            }
            match check_submitted(&mut summary, *chip, dir, &report) {
                Ok(true) => {}
                Ok(false) => code = code.max(1),
                Err(e) if !status.success() => {
                    return Err(RunError::AfterEnd {
                        ended: ended.unwrap_or_default(),
                        error: e,
                    });
                }
                Err(e) => return Err(e.into()),
            }
        }
        _ => {
            eprint!(
                "{}",
                render_summary(
                    &summary,
                    &report,
                    &target,
                    program.to_string_lossy().as_ref()
                )
            );
            eprint!(
                "{}",
                verification::render(&summary.verification, "pops run")
            );
        }
    }
    if let Some(e) = ended {
        eprintln!("pops run: {e}");
    }
    Ok(code)
}

/// The default report: `report.jsonl`, created new (never through a link) in a fresh folder of the
/// run's own, beside the amdgpu shim's recordings (`report.amdgpu`).
fn fresh_report() -> Result<PathBuf, RunError> {
    let report = fresh_run_folder("pops-run-")?.join("report.jsonl");
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&report)
        .map_err(|e| RunError::ReportFile {
            path: report.clone(),
            reason: e.to_string(),
        })?;
    Ok(report)
}

/// Why `pops run` could not run the program or read what it left.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Launch(#[from] crate::launch::LaunchError),
    #[error("cannot write the report file {}: {reason}", path.display())]
    ReportFile { path: PathBuf, reason: String },
    #[error(transparent)]
    Report(#[from] crate::summary::ReportFileError),
    #[error(transparent)]
    Shim(#[from] ShimRunError),
    #[error("{ended}; {error}")]
    AfterEnd { ended: String, error: ShimRunError },
}

/// After a run on the amdgpu shim: what the shim refused or found leaked, then every draw
/// record against the draws RADV submitted. `false` where they disagree.
fn check_submitted(
    summary: &mut Summary,
    chip: Family,
    dir: &Path,
    report: &Path,
) -> Result<bool, ShimRunError> {
    let who = "pops run";
    eprintln!("\n{who}: report {}", report.display());
    eprint!("{}", render_device_lost(&summary.device_lost, who));
    let (run, _) = ShimRun::read(report, dir, Some(chip))?;
    for e in &run.events {
        eprintln!("{who}: the amdgpu shim: {e}");
    }
    eprintln!(
        "{who}: {} pipeline(s) and shader object(s) reported (`pops report {}` lists them)",
        summary.created,
        report.display()
    );
    eprint!(
        "{}",
        crate::submitted_check::render(&run.check, chip.name(), who)
    );
    let driver = summary.driver.clone();
    summary
        .verification
        .drain_left_on(run.check.drain_left_on, chip.name(), driver.as_deref());
    eprint!("{}", verification::render(&summary.verification, who));
    Ok(run.ok())
}
