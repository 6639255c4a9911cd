//! How `pops run` and `pops compare` launch a program with VK_LAYER_POPS_interlock: where the
//! layer is, where the program runs (a device with interlock, RADV's null hardware on a drm-shim
//! or the amdgpu kernel-interface shim), the environment the child gets, and how it ended.

use crate::null_device::NullDevice;
use ash::vk;
use pm4::Family;
use std::ffi::{CStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The loader's name for the layer and its manifest's file name.
pub const LAYER_NAME: &str = "VK_LAYER_POPS_interlock";
pub const MANIFEST: &str = "VkLayer_pops_interlock.json";
/// Chip modelled on RADV null hardware when `--chip` is not given.
pub const DEFAULT_NULL_CHIP: Family = Family::Navi31;

/// The chips the amdgpu kernel-interface shim answers as that have POPS, by its names
/// (`AMDGPU_GPU_ID`), which are the families' names.
pub const SHIM_CHIPS: &[Family] = &[
    Family::Vega10,
    Family::Raven,
    Family::Raven2,
    Family::Renoir,
    Family::Navi10,
    Family::Navi21,
    Family::VanGogh,
    Family::RaphaelMendocino,
    Family::Navi31,
    Family::Gfx1150,
    Family::Gfx1201,
    Family::Gfx1200,
];

/// `RADV_DEBUG` for RADV on the amdgpu shim, which records top-level IBs only: every command
/// buffer inline. Mesa 25 spells it `noibs`, Mesa 26 `noibchaining`; RADV ignores names it lacks.
pub const SHIM_RADV_DEBUG: &str = "noibs,noibchaining";

/// Where the program runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A device with interlock exists: the program runs on it.
    Real { device: String },
    /// No such device: RADV (`icd`) on a null device of `chip` (a drm-shim, or
    /// RADV_FORCE_FAMILY where no shim is installed).
    Null {
        chip: Family,
        icd: PathBuf,
        device: NullDevice,
    },
    /// Stock RADV (`icd`) on the amdgpu kernel-interface shim (`library`) as `chip`, its
    /// recordings in `dir`.
    Shim {
        chip: Family,
        icd: PathBuf,
        library: PathBuf,
        dir: PathBuf,
    },
    /// No such device and no RADV driver installed: the program runs as it would anyway.
    NoInterlock,
}

/// The environment to add for the child, from the decisions already made. Pure.
pub fn child_env(
    layer_dir: &Path,
    existing_add_path: Option<&str>,
    existing_layers: Option<&str>,
    report: &Path,
    chip: Option<Family>,
    target: &Target,
) -> Vec<(String, OsString)> {
    let layers = match existing_layers {
        Some(s) if !s.is_empty() => {
            if s.split(':').any(|l| l == LAYER_NAME) {
                s.to_string()
            } else {
                format!("{s}:{LAYER_NAME}")
            }
        }
        _ => LAYER_NAME.to_string(),
    };
    // Ours first; a path the caller already added stays searched after it.
    let mut add_path = layer_dir.as_os_str().to_owned();
    if let Some(p) = existing_add_path.filter(|p| !p.is_empty()) {
        add_path.push(":");
        add_path.push(p);
    }
    let mut env = vec![
        ("VK_ADD_LAYER_PATH".to_string(), add_path),
        ("VK_INSTANCE_LAYERS".to_string(), layers.into()),
        (
            "VK_POPS_INTERLOCK_REPORT".to_string(),
            report.as_os_str().to_owned(),
        ),
    ];
    let chip = match target {
        Target::Null { chip, icd, device } => {
            match device {
                NullDevice::ForceFamily => {
                    env.push(("RADV_FORCE_FAMILY".into(), chip.name().into()));
                }
                NullDevice::DrmShim { library } => {
                    env.push(("LD_PRELOAD".into(), preload(library)));
                    // Tells the program (pops-oit) that nothing executes on this device.
                    env.push((
                        crate::null_device::MARKER.into(),
                        library.as_os_str().to_owned(),
                    ));
                    // (choose_target checked that the shim has a device of the chip.)
                    let id = crate::null_device::gpu_id(library, *chip)
                        .unwrap_or_else(|_| chip.name().to_string());
                    env.push(("AMDGPU_GPU_ID".into(), id.into()));
                }
            }
            env.push(("VK_DRIVER_FILES".into(), icd.as_os_str().to_owned()));
            Some(*chip)
        }
        Target::Shim {
            chip,
            icd,
            library,
            dir,
        } => {
            env.extend(radv_on_shim_env(icd, library, chip.name(), dir));
            // The layer identifies the chip from the device RADV reports, as on a real GPU.
            return env;
        }
        _ => chip,
    };
    if let Some(c) = chip {
        env.push(("VK_POPS_INTERLOCK_CHIP".into(), c.name().into()));
    }
    env
}

/// The environment that runs a program on the amdgpu shim (`library`) as `chip` (the shim's
/// name), its recordings in `dir`: what `pops run --amdgpu-shim` and the tests give a program.
pub fn shim_env(library: &Path, chip: &str, dir: &Path) -> [(String, OsString); 3] {
    [
        ("LD_PRELOAD".into(), preload(library)),
        ("AMDGPU_GPU_ID".into(), chip.into()),
        ("AMDGPU_ORACLE_DIR".into(), dir.as_os_str().to_owned()),
    ]
}

/// [`shim_env`] with RADV (`icd`) as the driver, every command buffer inline
/// ([`SHIM_RADV_DEBUG`]): the recipe under which what RADV submits can be read back whole.
pub fn radv_on_shim_env(
    icd: &Path,
    library: &Path,
    chip: &str,
    dir: &Path,
) -> Vec<(String, OsString)> {
    let mut env = shim_env(library, chip, dir).to_vec();
    env.push(("VK_DRIVER_FILES".into(), icd.as_os_str().to_owned()));
    env.push(("RADV_DEBUG".into(), SHIM_RADV_DEBUG.into()));
    env
}

/// `library` first, then whatever the caller already preloads.
fn preload(library: &Path) -> OsString {
    let mut preload = library.as_os_str().to_owned();
    if let Some(p) = std::env::var_os("LD_PRELOAD").filter(|p| !p.is_empty()) {
        preload.push(":");
        preload.push(p);
    }
    preload
}

/// Folders the loader itself searches for explicit layers, in its order (XDG base directories,
/// then /etc), after the build tree next to this executable.
fn layer_search_dirs(exe_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = exe_dir {
        // Build tree: the layer crate's build writes target/<profile>/explicit_layer.d/.
        dirs.push(d.join("explicit_layer.d"));
        dirs.push(d.to_path_buf());
        // Installed prefix: <prefix>/bin/pops and <prefix>/share/vulkan/explicit_layer.d.
        dirs.push(d.join("../share/vulkan/explicit_layer.d"));
    }
    let home_data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    if let Some(h) = home_data {
        dirs.push(h.join("vulkan/explicit_layer.d"));
    }
    let data_dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    for d in data_dirs.split(':').filter(|d| !d.is_empty()) {
        dirs.push(Path::new(d).join("vulkan/explicit_layer.d"));
    }
    dirs.push(PathBuf::from("/etc/vulkan/explicit_layer.d"));
    dirs
}

/// The folder holding the layer manifest, or every place looked at.
pub fn find_layer(explicit: Option<&Path>) -> Result<PathBuf, LaunchError> {
    if let Some(p) = explicit {
        let (dir, file) = if p.is_dir() {
            (p.to_path_buf(), p.join(MANIFEST))
        } else {
            (
                p.parent().map(Path::to_path_buf).unwrap_or_default(),
                p.to_path_buf(),
            )
        };
        return if file.is_file() {
            Ok(dir)
        } else {
            Err(LaunchError::NoManifestAt(p.to_path_buf()))
        };
    }
    let exe = std::env::current_exe().ok();
    let dirs = layer_search_dirs(exe.as_deref().and_then(Path::parent));
    dirs.iter()
        .find(|d| d.join(MANIFEST).is_file())
        .cloned()
        .ok_or_else(|| LaunchError::NoManifest {
            looked_in: dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// RADV's ICD manifest, where Mesa installs it.
pub(crate) fn find_radv_icd() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into())
        .split(':')
        .map(|d| Path::new(d).join("vulkan/icd.d"))
        .collect();
    dirs.push(PathBuf::from("/etc/vulkan/icd.d"));
    for d in dirs {
        for name in ["radeon_icd.json", "radeon_icd.x86_64.json"] {
            let p = d.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Names of the Vulkan devices that offer pixel or sample interlock, as the program would see
/// them (same environment). An absent loader or a failing instance means none.
pub fn interlock_devices() -> Vec<String> {
    // SAFETY: loads the system Vulkan loader; nothing else in this process uses Vulkan.
    let Ok(entry) = (unsafe { ash::Entry::load() }) else {
        return Vec::new();
    };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: `info` outlives the call.
    let Ok(instance) = (unsafe { entry.create_instance(&info, None) }) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    // SAFETY: the instance is valid; the chained struct outlives each call; destroyed below.
    unsafe {
        for pd in instance.enumerate_physical_devices().unwrap_or_default() {
            let props = instance.get_physical_device_properties(pd);
            if props.api_version < vk::API_VERSION_1_1 {
                continue;
            }
            let has_ext = instance
                .enumerate_device_extension_properties(pd)
                .unwrap_or_default()
                .iter()
                .any(|e| {
                    e.extension_name_as_c_str() == Ok(ash::ext::fragment_shader_interlock::NAME)
                });
            if !has_ext {
                continue;
            }
            let mut il = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut il);
            instance.get_physical_device_features2(pd, &mut f2);
            if il.fragment_shader_pixel_interlock == vk::TRUE
                || il.fragment_shader_sample_interlock == vk::TRUE
            {
                names.push(
                    CStr::from_ptr(props.device_name.as_ptr())
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
        instance.destroy_instance(None);
    }
    names
}

/// Where the program runs: a device with interlock, else RADV's null hardware for `chip` (or
/// the family RADV_FORCE_FAMILY names), else whatever the program finds.
pub fn choose_target(chip: Option<Family>) -> Result<Target, LaunchError> {
    // Already on null hardware (the caller set RADV_FORCE_FAMILY): say so, do not probe.
    let forced = std::env::var("RADV_FORCE_FAMILY")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| Family::parse_chip_or_level(&v).map_err(LaunchError::ForceFamily))
        .transpose()?;
    let devices = if forced.is_some() {
        Vec::new()
    } else {
        interlock_devices()
    };
    Ok(if let Some(family) = forced {
        match find_radv_icd() {
            Some(icd) => Target::Null {
                chip: chip.unwrap_or(family),
                icd,
                device: NullDevice::ForceFamily,
            },
            None => Target::NoInterlock,
        }
    } else if let Some(d) = devices.first() {
        Target::Real { device: d.clone() }
    } else {
        match null_target(chip.unwrap_or(DEFAULT_NULL_CHIP)) {
            Err(LaunchError::NoRadv) => Target::NoInterlock,
            other => other?,
        }
    })
}

/// RADV's null device of `chip`, whatever GPU the machine has. A shim without a device of the
/// chip is not used: RADV_FORCE_FAMILY then, where the driver has it (an explicit shim without
/// the chip is named now).
pub fn null_target(chip: Family) -> Result<Target, LaunchError> {
    let icd = find_radv_icd().ok_or(LaunchError::NoRadv)?;
    let device = match crate::null_device::choose(None, chip)? {
        crate::null_device::NullChoice::Shim(library) => NullDevice::DrmShim { library },
        crate::null_device::NullChoice::ForceFamily { .. } => NullDevice::ForceFamily,
    };
    Ok(Target::Null { chip, icd, device })
}

/// The shim target for `--amdgpu-shim`: the chip must be one the shim answers as, RADV must be
/// installed; the recordings go to a fresh folder beside the report.
pub fn shim_target(
    library: &Path,
    chip: Option<Family>,
    report: &Path,
) -> Result<Target, LaunchError> {
    let chip = chip.unwrap_or(DEFAULT_NULL_CHIP);
    if !SHIM_CHIPS.contains(&chip) {
        return Err(LaunchError::ShimHasNo(chip));
    }
    if !library.is_file() {
        return Err(LaunchError::NoShimLibrary(library.to_path_buf()));
    }
    let icd = find_radv_icd().ok_or(LaunchError::NoRadv)?;
    let dir = report.with_extension("amdgpu");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| LaunchError::ShimFolder {
        dir: dir.clone(),
        reason: e.to_string(),
    })?;
    Ok(Target::Shim {
        chip,
        icd,
        library: std::fs::canonicalize(library).unwrap_or_else(|_| library.to_path_buf()),
        dir,
    })
}

/// Says where the program runs.
pub fn announce(target: &Target, who: &str) {
    match &target {
        Target::Shim { chip, dir, .. } => eprintln!(
            "{who}: RADV on the amdgpu kernel-interface shim as {} (submitted through libdrm and \
             checked, recorded in {}; shaders do not run)",
            chip.name(),
            dir.display()
        ),
        Target::Real { device } => eprintln!("{who}: interlock device: {device}"),
        Target::Null { chip, device, .. } => eprintln!(
            "{who}: {}; using RADV on {} (pipelines are compiled, nothing is rendered)",
            if std::env::var_os("RADV_FORCE_FAMILY").is_some() {
                "RADV_FORCE_FAMILY is set"
            } else {
                "no Vulkan device with fragment shader interlock"
            },
            device.describe(*chip)
        ),
        Target::NoInterlock => eprintln!(
            "{who}: no Vulkan device with fragment shader interlock and no RADV driver for null \
             hardware; running on whatever the program finds"
        ),
    }
}

pub fn exit_code_of(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => c as u8,
        (None, Some(sig)) => 128u8.wrapping_add(sig as u8),
        _ => 1,
    }
}

/// Runs the program with `env` added, to its end.
pub fn spawn(
    program: &OsString,
    args: &[OsString],
    env: &[(String, OsString)],
) -> Result<std::process::ExitStatus, LaunchError> {
    Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .status()
        .map_err(|e| {
            let name = Path::new(program).display().to_string();
            match e.kind() {
                std::io::ErrorKind::NotFound => LaunchError::ProgramNotFound(name),
                std::io::ErrorKind::PermissionDenied => LaunchError::ProgramNotExecutable(name),
                _ => LaunchError::CannotStart {
                    name,
                    reason: e.to_string(),
                },
            }
        })
}

/// The `--chip` option as a family, or why not.
pub fn chip_arg(chip: Option<&str>) -> Result<Option<Family>, LaunchError> {
    chip.map(Family::parse_chip_or_level)
        .transpose()
        .map_err(LaunchError::Chip)
}

/// Why a program could not be run under the layer.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("no program given: [OPTIONS] -- PROGRAM [ARGS…]")]
    NoProgram,
    #[error("--layer {}: no {MANIFEST} there", .0.display())]
    NoManifestAt(PathBuf),
    #[error("cannot find the layer manifest {MANIFEST}: build the layer (cargo build -p pops-layer, which writes target/<profile>/explicit_layer.d/) or install it; looked in {looked_in}")]
    NoManifest { looked_in: String },
    #[error("RADV_FORCE_FAMILY: {0}")]
    ForceFamily(pm4::ChipError),
    #[error("--chip: {0}")]
    Chip(pm4::ChipError),
    #[error("--amdgpu-shim: the shim has no {} (it has: {})", .0.name(), SHIM_CHIPS.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "))]
    ShimHasNo(Family),
    #[error("--amdgpu-shim: {} is not a file (the shim's library, libamdgpu_oracle_drm_shim.so)", .0.display())]
    NoShimLibrary(PathBuf),
    #[error("--amdgpu-shim: RADV (radeon_icd.json) is not installed")]
    NoRadv,
    #[error("cannot create the shim's folder {}: {reason}", dir.display())]
    ShimFolder { dir: PathBuf, reason: String },
    #[error("program '{0}' not found")]
    ProgramNotFound(String),
    #[error("program '{0}' cannot be executed (permission denied)")]
    ProgramNotExecutable(String),
    #[error("cannot start '{name}': {reason}")]
    CannotStart { name: String, reason: String },
    #[error(transparent)]
    NullDevice(#[from] crate::null_device::NullDeviceError),
    #[error("cannot create a folder for the run in {}: {reason}", dir.display())]
    RunFolder { dir: PathBuf, reason: String },
}

/// A folder of the run's own in the temporary folder, for what pops writes where the user named no
/// place (`pops run`'s report, `pops compare`'s reports). Its name is unpredictable and it is
/// created fresh, readable by its owner only: a fixed name such as `pops-run-<pid>` lets another
/// local user plant a link there beforehand and have pops truncate a file of the victim's. Kept
/// after the run, as the report is read afterwards.
pub fn fresh_run_folder(prefix: &str) -> Result<PathBuf, LaunchError> {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir();
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&dir)
        .map(tempfile::TempDir::keep)
        .map_err(|e| LaunchError::RunFolder {
            dir,
            reason: e.to_string(),
        })
}

/// How the program ended, where it did not succeed: its exit status, or the signal that killed
/// it (`crashed: killed by signal 11 (SIGSEGV)`). `None` for a success. Pure.
pub fn how_it_ended(program: &str, status: std::process::ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return None;
    }
    Some(match (status.code(), status.signal()) {
        // pops-oit's own verdict where no shader can run (null hardware, the amdgpu shim): not a
        // failure, and said as what it means.
        (Some(3), _) if is_pops_oit(program) => format!(
            "{program} exited with status 3: every combination was submitted, and none could run its shaders here, so nothing was rendered"
        ),
        (Some(c), _) => format!("{program} exited with status {c}"),
        (None, Some(sig)) => {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("{program} crashed: killed by signal {sig}{name}")
        }
        _ => format!("{program} ended without an exit status"),
    })
}

/// Whether `program` is pops's own OIT application (by its file name).
fn is_pops_oit(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .is_some_and(|n| n == "pops-oit")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(env: &[(String, OsString)]) -> Vec<(&str, String)> {
        env.iter()
            .map(|(k, v)| (k.as_str(), v.to_string_lossy().into_owned()))
            .collect()
    }

    #[test]
    fn layer_is_appended_to_existing_instance_layers_once() {
        let t = Target::Real { device: "x".into() };
        let e = child_env(
            Path::new("/l"),
            Some("/x"),
            Some("VK_LAYER_A"),
            Path::new("/r"),
            None,
            &t,
        );
        assert!(names(&e).contains(&(
            "VK_INSTANCE_LAYERS",
            "VK_LAYER_A:VK_LAYER_POPS_interlock".into()
        )));
        assert!(names(&e).contains(&("VK_ADD_LAYER_PATH", "/l:/x".into())));
        let e = child_env(
            Path::new("/l"),
            None,
            Some("VK_LAYER_POPS_interlock"),
            Path::new("/r"),
            None,
            &t,
        );
        assert!(names(&e).contains(&("VK_INSTANCE_LAYERS", "VK_LAYER_POPS_interlock".into())));
        assert!(!names(&e)
            .iter()
            .any(|(k, _)| *k == "VK_POPS_INTERLOCK_CHIP"));
    }

    #[test]
    fn null_hardware_forces_family_driver_and_chip() {
        let t = Target::Null {
            chip: Family::Vega10,
            icd: "/icd.json".into(),
            device: NullDevice::ForceFamily,
        };
        let env = child_env(Path::new("/l"), None, None, Path::new("/r"), None, &t);
        let e = names(&env);
        assert!(e.contains(&("RADV_FORCE_FAMILY", "vega10".into())));
        assert!(e.contains(&("VK_DRIVER_FILES", "/icd.json".into())));
        assert!(e.contains(&("VK_POPS_INTERLOCK_CHIP", "vega10".into())));
        assert!(e.contains(&("VK_POPS_INTERLOCK_REPORT", "/r".into())));
        assert!(e.contains(&("VK_ADD_LAYER_PATH", "/l".into())));
    }

    /// Mesa 26 has no RADV_FORCE_FAMILY: with a drm-shim the child preloads it as the chip,
    /// and RADV_FORCE_FAMILY is not set.

    #[test]
    fn a_drm_shim_null_device_is_preloaded_as_the_chip() {
        let t = Target::Null {
            chip: Family::Navi31,
            icd: "/icd.json".into(),
            device: NullDevice::DrmShim {
                library: "/nonexistent/libamdgpu_noop_drm_shim.so".into(),
            },
        };
        let env = child_env(Path::new("/l"), None, None, Path::new("/r"), None, &t);
        let e = names(&env);
        assert!(e
            .iter()
            .any(|(k, v)| *k == "LD_PRELOAD" && v.starts_with("/nonexistent/libamdgpu_noop")));
        assert!(e.contains(&("AMDGPU_GPU_ID", "navi31".into())));
        assert!(!e.iter().any(|(k, _)| *k == "RADV_FORCE_FAMILY"));
        assert!(e.contains(&("VK_POPS_INTERLOCK_CHIP", "navi31".into())));
    }

    #[test]
    fn a_crash_is_named_as_a_crash_and_a_refusal_by_its_status() {
        use std::os::unix::process::ExitStatusExt;
        let segv = std::process::ExitStatus::from_raw(11);
        assert_eq!(
            how_it_ended("pops-oit", segv).as_deref(),
            Some("pops-oit crashed: killed by signal 11 (SIGSEGV)")
        );
        let one = std::process::ExitStatus::from_raw(1 << 8);
        assert_eq!(
            how_it_ended("pops-oit", one).as_deref(),
            Some("pops-oit exited with status 1")
        );
        assert_eq!(
            how_it_ended("x", std::process::ExitStatus::from_raw(0)),
            None
        );
        // pops-oit's status 3 where shaders cannot run is said as what it means.
        let three = std::process::ExitStatus::from_raw(3 << 8);
        let said = how_it_ended("target/release/pops-oit", three).unwrap();
        assert!(said.contains("nothing was rendered"), "{said}");
        assert_eq!(
            how_it_ended("other", three).as_deref(),
            Some("other exited with status 3")
        );
    }

    #[test]
    fn signals_map_to_128_plus_n() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(exit_code_of(std::process::ExitStatus::from_raw(9)), 137);
        assert_eq!(exit_code_of(std::process::ExitStatus::from_raw(3 << 8)), 3);
    }
}
