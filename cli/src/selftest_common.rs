//! What both self-tests (`pops selftest` and `pops selftest --draw`) share: the backend they
//! run on, the JSON report, the verdict line and the exit status.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use winsys::amdgpu::AmdgpuWinsys;
use winsys::capture::CaptureWinsys;
use winsys::Winsys;

/// The backend both self-tests run on: the capture backend emulating `chip` when recording to
/// `capture`, else the amdgpu device at `device`, else the first amdgpu render node in `dri_dir`.
pub(crate) fn open_winsys(
    capture: &Option<PathBuf>,
    chip: &Option<String>,
    device: &Option<PathBuf>,
    dri_dir: &Path,
) -> Result<Box<dyn Winsys>, String> {
    Ok(match (capture, chip, device) {
        (Some(dir), Some(chip), _) => {
            let family = pm4::Family::parse_chip_or_level(chip).map_err(|e| e.to_string())?;
            Box::new(CaptureWinsys::create(dir, family).map_err(|e| e.to_string())?)
        }
        (_, _, Some(path)) => Box::new(AmdgpuWinsys::open(path).map_err(|e| e.to_string())?),
        _ => Box::new(AmdgpuWinsys::open_first(dri_dir).map_err(|e| e.to_string())?),
    })
}

/// A self-test's JSON report, with the capture's verification (when there is one) as `capture`
/// and the overall verdict as `ok`.
pub(crate) fn print_json(
    mut report: serde_json::Value,
    capture: Option<serde_json::Value>,
    ok: bool,
) {
    if let Some(c) = capture {
        report["capture"] = c;
    }
    report["ok"] = serde_json::json!(ok);
    println!("{report}");
}

/// The last line of a self-test's table: `<what>: ok` or `<what>: FAILED`.
pub(crate) fn verdict(what: &str, ok: bool) -> String {
    format!("{what}: {}", if ok { "ok" } else { "FAILED" })
}

/// Exit status 0 when every case passed, else 1.
pub(crate) fn exit_code(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
