//! A null AMD device for RADV, without its GPU: how `pops verify-isa --compile` gets the code
//! RADV compiles for any chip.
//!
//! Mesa 26 removed RADV's null hardware (`RADV_FORCE_FAMILY`); its replacement is a drm-shim, a
//! library preloaded into the process that fakes an amdgpu render node of the chip named by
//! `AMDGPU_GPU_ID`: Mesa's own no-op shim (package mesa-drm-shim, in Mesa 25 and 26), or the
//! amdgpu kernel-interface shim pops tests with. Preloading must happen before the process
//! starts, so the command runs itself again with the shim preloaded ([`reexec`]). Where no shim
//! is found, `RADV_FORCE_FAMILY` is the fallback, which RADV up to Mesa 25.0 honours.

use pm4::Family;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Set in the re-executed process: the shim library it runs on.
pub const MARKER: &str = pops_report::NULL_DEVICE_ENV;

/// The file name of Mesa's no-op amdgpu drm-shim.
const NOOP_SHIM: &str = "libamdgpu_noop_drm_shim.so";

/// Where Debian, Fedora and Arch install Mesa's drm-shims.
const LIBRARY_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib/x86_64-linux-gnu",
    "/usr/local/lib64",
    "/usr/local/lib",
];

/// How RADV gets a device of the chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NullDevice {
    /// A drm-shim preloaded (this process already runs on it).
    DrmShim { library: PathBuf },
    /// RADV's own null hardware, where the driver still honours `RADV_FORCE_FAMILY`.
    ForceFamily,
}

impl NullDevice {
    /// The null device this process runs on: the shim [`reexec`] preloaded, else none yet.
    pub fn current() -> Option<NullDevice> {
        std::env::var_os(MARKER)
            .filter(|v| !v.is_empty())
            .map(|library| NullDevice::DrmShim {
                library: library.into(),
            })
    }

    /// In words, for the user: which null device compiled the code.
    pub fn describe(&self, chip: Family) -> String {
        match self {
            NullDevice::DrmShim { library } => format!(
                "a drm-shim device ({}) as {}",
                library.display(),
                chip.name()
            ),
            NullDevice::ForceFamily => {
                format!("RADV's null hardware (RADV_FORCE_FAMILY={})", chip.name())
            }
        }
    }
}

/// The drm-shim to use: `explicit` (`--drm-shim`), else `POPS_DRM_SHIM`, else Mesa's no-op shim
/// where the mesa-drm-shim package installs it. `None` where there is none.
pub fn find_drm_shim(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("POPS_DRM_SHIM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    LIBRARY_DIRS
        .iter()
        .map(|d| Path::new(d).join(NOOP_SHIM))
        .find(|p| p.is_file())
}

/// How a process gets a null device of `chip`, before it starts: a drm-shim to preload (an
/// explicit one — `--drm-shim`, `POPS_DRM_SHIM` — must have the chip, or the error names it),
/// else `RADV_FORCE_FAMILY`. Mesa's no-op shim found where distributions install it is taken only
/// where it has a device of the chip: Mesa 25.0's has no navi14, navi23 or navi33 (RX 5500, 6600,
/// 7600), which that RADV still compiles for through `RADV_FORCE_FAMILY`. (Mesa 26's RADV has no
/// `RADV_FORCE_FAMILY`: there the compile then finds no device, and says to name a shim that has
/// the chip.)
pub fn choose(explicit: Option<&Path>, chip: Family) -> Result<NullChoice, NullDeviceError> {
    let named = explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("POPS_DRM_SHIM")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    });
    if let Some(library) = named {
        gpu_id(&library, chip)?;
        return Ok(NullChoice::Shim(library));
    }
    Ok(match find_drm_shim(None) {
        Some(library) if gpu_id(&library, chip).is_ok() => NullChoice::Shim(library),
        Some(library) => NullChoice::ForceFamily {
            shim_lacks: Some(library),
        },
        None => NullChoice::ForceFamily { shim_lacks: None },
    })
}

/// What [`choose`] chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NullChoice {
    /// Preload this drm-shim.
    Shim(PathBuf),
    /// `RADV_FORCE_FAMILY`; `shim_lacks`: the no-op shim found, which has no device of the chip.
    ForceFamily { shim_lacks: Option<PathBuf> },
}

/// The `AMDGPU_GPU_ID` for `chip` in the shim `library`: the first of the chip's names that
/// the library's own device table holds (a NUL-terminated string in its file). A library that
/// holds none of them has no device of the chip (Mesa's no-op shim knows only the chips Mesa
/// has device dumps of: no gfx1200): named as such, rather than left to abort in the shim. An
/// unreadable library gets the family's name.
pub fn gpu_id(library: &Path, chip: Family) -> Result<String, NullDeviceError> {
    let own = [chip.name()];
    let names = match chip.drm_shim_names() {
        [] => &own[..],
        n => n,
    };
    let Ok(bytes) = std::fs::read(library) else {
        return Ok(names[0].to_string());
    };
    names
        .iter()
        .find(|n| contains_c_string(&bytes, n))
        .map(|n| n.to_string())
        .ok_or_else(|| NullDeviceError::NoDevice {
            library: library.to_path_buf(),
            chip,
        })
}

/// Whether `bytes` hold `name` as a whole C string (NUL before and after).
fn contains_c_string(bytes: &[u8], name: &str) -> bool {
    let mut needle = vec![0u8];
    needle.extend_from_slice(name.as_bytes());
    needle.push(0);
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

/// Runs this command again, with the same arguments, on the shim `library` as `chip`; its exit
/// status, or why it could not start.
pub fn reexec(library: &Path, chip: Family) -> Result<std::process::ExitStatus, NullDeviceError> {
    let exe = std::env::current_exe().map_err(|e| NullDeviceError::NoSelf(e.to_string()))?;
    let mut preload = OsString::from(library);
    if let Some(p) = std::env::var_os("LD_PRELOAD").filter(|p| !p.is_empty()) {
        preload.push(":");
        preload.push(p);
    }
    let id = gpu_id(library, chip)?;
    std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("LD_PRELOAD", preload)
        .env("AMDGPU_GPU_ID", id)
        .env(MARKER, library)
        .env_remove("RADV_FORCE_FAMILY")
        .status()
        .map_err(|e| NullDeviceError::Reexec {
            library: library.to_path_buf(),
            reason: e.to_string(),
        })
}

/// Why no null device of the chip could be had.
#[derive(Debug, thiserror::Error)]
pub enum NullDeviceError {
    #[error("the drm-shim {} has no {chip} device (it knows the chips its Mesa has device dumps of); name one that does with --drm-shim, such as the amdgpu kernel-interface shim", library.display())]
    NoDevice { library: PathBuf, chip: Family },
    #[error("cannot find pops itself: {0}")]
    NoSelf(String),
    #[error("cannot run pops again on the drm-shim {}: {reason}", library.display())]
    Reexec { library: PathBuf, reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chip_takes_the_name_the_shim_knows() {
        let dir = pops_testkit::scratch("null-device");
        std::fs::create_dir_all(&dir).unwrap();
        let mesa26 = dir.join("26.so");
        std::fs::write(&mesa26, b"\0navi31\0strix1\0gfx1201\0").unwrap();
        let mesa25 = dir.join("25.so");
        std::fs::write(&mesa25, b"\0navi31\0gfx1150\0").unwrap();
        assert_eq!(gpu_id(&mesa26, Family::Gfx1150).unwrap(), "strix1");
        assert_eq!(gpu_id(&mesa25, Family::Gfx1150).unwrap(), "gfx1150");
        assert_eq!(gpu_id(&mesa26, Family::Navi31).unwrap(), "navi31");
        assert_eq!(gpu_id(&mesa26, Family::Gfx1201).unwrap(), "gfx1201");
        // A chip the shim has no device of is named, never handed to it.
        let e = gpu_id(&mesa26, Family::Gfx1200).unwrap_err().to_string();
        assert!(e.contains("has no gfx1200 device"), "{e}");
        // A name inside another string is not the name.
        std::fs::write(&mesa26, b"\0xstrix1\0").unwrap();
        assert!(gpu_id(&mesa26, Family::Gfx1150).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Mesa 25.0's no-op shim has no navi33: the chip is compiled through RADV_FORCE_FAMILY, as
    /// that RADV allows; a shim named explicitly without it is an error naming it.
    #[test]
    fn a_chip_the_found_shim_lacks_falls_back_to_force_family() {
        let dir = pops_testkit::scratch("null-choice");
        let shim = dir.join("shim.so");
        std::fs::write(&shim, b"\0navi31\0").unwrap();
        assert_eq!(
            choose(Some(&shim), Family::Navi31).unwrap(),
            NullChoice::Shim(shim.clone())
        );
        let e = choose(Some(&shim), Family::Navi33).unwrap_err().to_string();
        assert!(e.contains("has no navi33 device"), "{e}");
    }

    #[test]
    fn an_explicit_shim_wins() {
        let p = Path::new("/some/shim.so");
        assert_eq!(find_drm_shim(Some(p)).as_deref(), Some(p));
    }
}
