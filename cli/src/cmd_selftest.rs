//! `pops selftest`: the hardware self-test (fence test, then the POPS register state of every
//! interlock mode and sample count valid on the chip, each submitted, waited for and followed by
//! a reset-status check), on an amdgpu device or recorded by the capture backend. With
//! `--capture`, every recorded IB is also decoded and must be exactly the intended writes.

use crate::document::print_document;
use crate::selftest_common::{exit_code, open_winsys, verdict, SelftestError};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use winsys::identify::DEFAULT_DRI_DIR;
use winsys::selftest::{self, Options};

#[derive(clap::Args)]
pub struct Args {
    /// Render node of the GPU to test (default: the first amdgpu node).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["capture", "dri_dir"])]
    device: Option<PathBuf>,
    /// Record to this directory with the capture backend instead of running on a GPU.
    #[arg(long, value_name = "DIR", requires = "chip")]
    capture: Option<PathBuf>,
    /// The family the capture backend emulates (a family, LLVM processor or level name).
    #[arg(long, value_name = "NAME", requires = "capture")]
    chip: Option<String>,
    /// Print JSON (one object per case) instead of a table.
    #[arg(long)]
    json: bool,
    /// How long to wait for each submission before presuming the GPU hung, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    timeout_ms: u64,
    /// Directory holding the DRM render nodes.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DRI_DIR)]
    dri_dir: PathBuf,
    /// Run the POPS draw instead: overlapping rectangles, per-pixel order check, timing.
    #[arg(long)]
    pub draw: bool,
    /// With --draw: only the variants whose name starts with this (`pixel-ordered`, `control`, …).
    #[arg(long, value_name = "NAME", requires = "draw")]
    pub variant: Option<String>,
    /// With --draw: submissions per variant on a GPU (the capture backend records one).
    #[arg(long, value_name = "N", default_value_t = 5, requires = "draw")]
    pub runs: u32,
    /// With --draw --capture: libdrm's reference draw folder to compare the captured IBs with.
    #[arg(long, value_name = "DIR", requires = "draw")]
    pub reference: Option<PathBuf>,
    /// Place the test's buffers at GPU addresses from this one on (hex with 0x, or decimal), on
    /// the GPU and in a capture alike: runs given the same base build byte-identical IBs.
    #[arg(long, value_name = "ADDR", value_parser = crate::selftest_common::parse_address)]
    pub gpu_va_base: Option<u64>,
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("pops selftest: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_inner(args: Args) -> Result<ExitCode, SelftestError> {
    if args.draw {
        let opts = crate::selftest_draw::DrawArgs {
            capture: args.capture.clone(),
            chip: args.chip.clone(),
            device: args.device.clone(),
            dri_dir: args.dri_dir.clone(),
            json: args.json,
            timeout_ms: args.timeout_ms,
            variant: args.variant.clone(),
            runs: args.runs,
            reference: args.reference.clone(),
            gpu_va_base: args.gpu_va_base,
        };
        return crate::selftest_draw::run(&opts);
    }
    let mut ws = open_winsys(
        &args.capture,
        &args.chip,
        &args.device,
        &args.dri_dir,
        args.gpu_va_base,
    )?;
    let family = ws.info().family;
    let coverage = pm4::pops::coverage::every_mode(family);
    let cases: Vec<selftest::StateCase> = coverage.derived.iter().map(Into::into).collect();
    let opts = Options {
        timeout: Duration::from_millis(args.timeout_ms),
    };
    let report = selftest::run(ws.as_mut(), &cases, &opts)?;
    drop(ws);

    let verification = match &args.capture {
        Some(dir) => Some(selftest::verify_capture(dir, &cases)?),
        None => None,
    };
    let ok = report.all_ok() && verification.as_ref().is_none_or(|v| v.all_ok());

    if args.json {
        let mut doc = report.document();
        doc.excluded = Some(
            coverage
                .refused
                .iter()
                .map(|x| pops_report::selftest::Excluded {
                    case: x.name(),
                    reason: x.reason.to_string(),
                })
                .collect(),
        );
        doc.capture = verification.as_ref().map(|v| v.document());
        doc.ok = ok;
        print_document(&doc);
    } else {
        print!("{}", report.to_table());
        for x in &coverage.refused {
            println!("excluded {:<26} {}", x.name(), x.reason);
        }
        if let Some(ver) = &verification {
            print!("{}", ver.to_table());
        }
        println!("{}", verdict("selftest", ok));
    }
    Ok(exit_code(ok))
}
