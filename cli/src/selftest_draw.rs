//! `pops selftest --draw`: the hardware POPS draw on an amdgpu device, or recorded by the
//! capture backend and verified (decoded, compared with libdrm's reference draw). Called from the
//! one `--draw` branch of `cmd_selftest`.

use crate::selftest_common::{exit_code, open_winsys, SelftestError};
use draw::run::{self, Options};
use draw::variant;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The exit status of a draw that was submitted and completed without any shader output: the
/// GPU's results are unavailable (neither 0, a pass, nor 1, a failure that was seen).
pub const NO_SHADER_OUTPUT: u8 = 3;

/// The `pops selftest` arguments the draw uses.
pub struct DrawArgs {
    pub capture: Option<PathBuf>,
    pub chip: Option<String>,
    pub device: Option<PathBuf>,
    pub dri_dir: PathBuf,
    pub json: bool,
    pub timeout_ms: u64,
    pub variant: Option<String>,
    pub runs: u32,
    pub reference: Option<PathBuf>,
    pub gpu_va_base: Option<u64>,
}

/// The reference folder beside a checkout (`../shared/reference/libdrm-draw`), if present.
fn default_reference() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/reference/libdrm-draw"
    ));
    p.exists().then_some(p)
}

pub fn run(a: &DrawArgs) -> Result<ExitCode, SelftestError> {
    let variants = match &a.variant {
        Some(f) => variant::select(f),
        None => variant::standard(),
    };
    if variants.is_empty() {
        return Err(SelftestError::NoVariant {
            given: a.variant.clone().unwrap_or_default(),
        });
    }
    if a.runs == 0 {
        return Err(SelftestError::NoRuns);
    }
    let mut ws = open_winsys(&a.capture, &a.chip, &a.device, &a.dri_dir, a.gpu_va_base)?;
    let opts = Options {
        runs: a.runs,
        timeout: Duration::from_millis(a.timeout_ms),
        ..Options::default()
    };
    let progress = crate::progress::Progress::new("pops selftest --draw");
    let report = run::run_with_progress(ws.as_mut(), &variants, &opts, |i, n, v| {
        progress.step(
            &format!(
                "variant {} of {n} ({}), {} run(s) each",
                i + 1,
                v.name(),
                a.runs
            ),
            false,
        )
    })?;
    progress.done();
    drop(ws);
    let verification = match &a.capture {
        Some(dir) => {
            let reference = a.reference.clone().or_else(default_reference);
            Some(draw::verify::verify_capture(
                dir,
                &report,
                reference.as_deref(),
            )?)
        }
        None => None,
    };
    let verified = verification.as_ref().is_none_or(|v| v.all_ok());
    let verdict = match report.verdict() {
        run::RunVerdict::Passed if !verified => run::RunVerdict::Failed,
        v => v,
    };
    let ok = verdict == run::RunVerdict::Passed;
    if a.json {
        let mut doc = report.document();
        doc.capture = verification.as_ref().map(|v| v.document());
        doc.ok = ok;
        crate::document::print_document(&doc);
    } else {
        print!("{}", report.to_table());
        if let Some(ver) = &verification {
            print!("{}", ver.to_table());
        }
        println!("selftest --draw: {}", verdict.text());
    }
    Ok(match verdict {
        run::RunVerdict::NoShaderOutput => ExitCode::from(NO_SHADER_OUTPUT),
        _ => exit_code(ok),
    })
}
