//! What both self-tests (`pops selftest` and `pops selftest --draw`) share: the backend they
//! run on, the JSON report, the verdict line and the exit status.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use winsys::amdgpu::AmdgpuWinsys;
use winsys::capture::CaptureWinsys;
use winsys::Winsys;

/// The backend both self-tests run on: the capture backend emulating `chip` when recording to
/// `capture`, else the amdgpu device at `device`, else the first amdgpu render node in `dri_dir`.
/// With `va_base`, its buffers are placed from that GPU address on (see
/// [`Winsys::place_buffers_from`]).
pub(crate) fn open_winsys(
    capture: &Option<PathBuf>,
    chip: &Option<String>,
    device: &Option<PathBuf>,
    dri_dir: &Path,
    va_base: Option<u64>,
) -> Result<Box<dyn Winsys>, BackendError> {
    let mut ws = backend(capture, chip, device, dri_dir)?;
    if let Some(base) = va_base {
        ws.place_buffers_from(base)?;
    }
    Ok(ws)
}

/// Why the self-tests' backend could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(transparent)]
    Chip(#[from] pm4::ChipError),
    #[error(transparent)]
    Winsys(#[from] winsys::WinsysError),
}

/// Why a self-test stopped before its verdict (what happened to each submitted case is in the
/// report instead).
#[derive(Debug, thiserror::Error)]
pub enum SelftestError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    Winsys(#[from] winsys::WinsysError),
    #[error(transparent)]
    Verify(#[from] draw::verify::VerifyError),
    #[error("no variant starts with '{given}'; variants: {}", draw::variant::standard().iter().map(|v| v.name()).collect::<Vec<_>>().join(", "))]
    NoVariant { given: String },
    #[error("--runs must be at least 1")]
    NoRuns,
}

fn backend(
    capture: &Option<PathBuf>,
    chip: &Option<String>,
    device: &Option<PathBuf>,
    dri_dir: &Path,
) -> Result<Box<dyn Winsys>, BackendError> {
    Ok(match (capture, chip, device) {
        (Some(dir), Some(chip), _) => {
            let family = pm4::Family::parse_chip_or_level(chip)?;
            Box::new(CaptureWinsys::create(dir, family)?)
        }
        (_, _, Some(path)) => Box::new(AmdgpuWinsys::open(path)?),
        _ => Box::new(AmdgpuWinsys::open_first(dri_dir)?),
    })
}

/// The last line of a self-test's table: `<what>: ok` or `<what>: FAILED`.
pub(crate) fn verdict(what: &str, ok: bool) -> String {
    format!("{what}: {}", if ok { "ok" } else { "FAILED" })
}

/// A GPU address as `--gpu-va-base` takes it: hexadecimal with `0x`, or decimal.
pub(crate) fn parse_address(s: &str) -> Result<u64, NotAnAddress> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| NotAnAddress(s.to_string()))
}

/// A `--gpu-va-base` that is not an address.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not an address (0x800000000, or a decimal number)")]
pub struct NotAnAddress(pub String);

/// Exit status 0 when every case passed, else 1.
pub(crate) fn exit_code(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
