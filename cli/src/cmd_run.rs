//! `pops run [--chip NAME] [--report FILE] -- PROGRAM ARGS…`: runs any program with
//! VK_LAYER_POPS_interlock injected, passes its exit status through, then summarises the layer's
//! report: one row per interlocked pipeline with its mode, samples, chip, the POPS register
//! fields an AMD driver must program, and the layer's diagnostics.
//!
//! Without a Vulkan device that has fragment shader interlock, the program runs on RADV's null
//! hardware for the chip (`RADV_FORCE_FAMILY`), which creates and compiles real pipelines but
//! executes nothing; the summary says so.

use crate::null_device::NullDevice;
use ash::vk;
use pm4::Family;
use std::ffi::{CStr, OsString};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::summary::{key_fields, Summary};

/// The loader's name for the layer and its manifest's file name.
pub const LAYER_NAME: &str = "VK_LAYER_POPS_interlock";
pub const MANIFEST: &str = "VkLayer_pops_interlock.json";
/// Chip modelled on RADV null hardware when `--chip` is not given.
pub const DEFAULT_NULL_CHIP: Family = Family::Navi31;

#[derive(clap::Args)]
pub struct Args {
    /// AMD chip the layer models (family, LLVM processor or level). Without an interlock-capable
    /// device, also the chip of RADV's null hardware [default there: navi31].
    #[arg(long)]
    chip: Option<String>,
    /// Where the layer writes its JSON Lines report [default: a file in the temp folder].
    #[arg(long)]
    report: Option<PathBuf>,
    /// Run on stock RADV over the amdgpu kernel-interface shim (this library, preloaded) as
    /// `--chip` [default: navi31], without an AMD GPU: every command buffer is submitted through
    /// libdrm and the kernel's checks and recorded, shaders do not run. Afterwards each draw
    /// record is compared with the register fields RADV programmed at its draws.
    #[arg(long, value_name = "LIBRARY")]
    amdgpu_shim: Option<PathBuf>,
    #[command(flatten)]
    launch: Launch,
}

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

/// Where the layer is and what it runs: the arguments `pops run` and `pops compare` share.
#[derive(clap::Args)]
pub struct Launch {
    /// The layer manifest (VkLayer_pops_interlock.json) or its folder, instead of searching.
    #[arg(long)]
    layer: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "PROGRAM"
    )]
    command: Vec<OsString>,
}

impl Launch {
    /// The program and its arguments.
    pub fn program(&self) -> Result<(&OsString, &[OsString]), String> {
        self.command
            .split_first()
            .ok_or_else(|| "no program given: [OPTIONS] -- PROGRAM [ARGS…]".to_string())
    }

    /// The folder of the layer manifest, absolute.
    pub fn layer_dir(&self) -> Result<PathBuf, String> {
        let dir = find_layer(self.layer.as_deref())?;
        Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
    }
}

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
            env.push(("LD_PRELOAD".into(), preload(library)));
            env.push(("AMDGPU_GPU_ID".into(), chip.name().into()));
            env.push(("AMDGPU_ORACLE_DIR".into(), dir.as_os_str().to_owned()));
            env.push(("VK_DRIVER_FILES".into(), icd.as_os_str().to_owned()));
            // The shim records top-level IBs only: every command buffer inline.
            // Mesa 25 spells it `noibs`, Mesa 26 `noibchaining`; RADV ignores names it lacks.
            env.push(("RADV_DEBUG".into(), "noibs,noibchaining".into()));
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
fn find_layer(explicit: Option<&Path>) -> Result<PathBuf, String> {
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
            Err(format!("--layer {}: no {MANIFEST} there", p.display()))
        };
    }
    let exe = std::env::current_exe().ok();
    let dirs = layer_search_dirs(exe.as_deref().and_then(Path::parent));
    dirs.iter()
        .find(|d| d.join(MANIFEST).is_file())
        .cloned()
        .ok_or_else(|| {
            let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            format!(
                "cannot find the layer manifest {MANIFEST}: build the layer (cargo build -p pops-layer, \
                 which writes target/<profile>/explicit_layer.d/) or install it; looked in {}",
                list.join(", ")
            )
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
pub fn choose_target(chip: Option<Family>) -> Result<Target, String> {
    // Already on null hardware (the caller set RADV_FORCE_FAMILY): say so, do not probe.
    let forced = std::env::var("RADV_FORCE_FAMILY")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| Family::parse_chip_or_level(&v).map_err(|e| format!("RADV_FORCE_FAMILY: {e}")))
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
        match find_radv_icd() {
            Some(icd) => {
                let chip = chip.unwrap_or(DEFAULT_NULL_CHIP);
                let device = match crate::null_device::find_drm_shim(None) {
                    Some(library) => {
                        // A shim without a device of the chip is named now, not left to abort.
                        crate::null_device::gpu_id(&library, chip)?;
                        NullDevice::DrmShim { library }
                    }
                    None => NullDevice::ForceFamily,
                };
                Target::Null { chip, icd, device }
            }
            None => Target::NoInterlock,
        }
    })
}

/// The shim target for `--amdgpu-shim`: the chip must be one the shim answers as, RADV must be
/// installed; the recordings go to a fresh folder beside the report.
pub fn shim_target(library: &Path, chip: Option<Family>, report: &Path) -> Result<Target, String> {
    let chip = chip.unwrap_or(DEFAULT_NULL_CHIP);
    if !SHIM_CHIPS.contains(&chip) {
        return Err(format!(
            "--amdgpu-shim: the shim has no {} (it has: {})",
            chip.name(),
            SHIM_CHIPS
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !library.is_file() {
        return Err(format!(
            "--amdgpu-shim: {} is not a file (the shim's library, libamdgpu_oracle_drm_shim.so)",
            library.display()
        ));
    }
    let icd = find_radv_icd().ok_or("--amdgpu-shim: RADV (radeon_icd.json) is not installed")?;
    let dir = report.with_extension("amdgpu");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the shim's folder {}: {e}", dir.display()))?;
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
) -> Result<std::process::ExitStatus, String> {
    Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .status()
        .map_err(|e| {
            let name = Path::new(program).display();
            match e.kind() {
                std::io::ErrorKind::NotFound => format!("program '{name}' not found"),
                std::io::ErrorKind::PermissionDenied => {
                    format!("program '{name}' cannot be executed (permission denied)")
                }
                _ => format!("cannot start '{name}': {e}"),
            }
        })
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

/// The `--chip` option as a family, or why not.
pub fn chip_arg(chip: Option<&str>) -> Result<Option<Family>, String> {
    chip.map(Family::parse_chip_or_level)
        .transpose()
        .map_err(|e| format!("--chip: {e}"))
}

fn run_inner(args: Args) -> Result<u8, String> {
    let chip = chip_arg(args.chip.as_deref())?;
    let (program, program_args) = args.launch.program()?;
    let layer_dir = args.launch.layer_dir()?;

    let report = args.report.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("pops-run-{}.jsonl", std::process::id()))
    });
    // The layer appends: start from an empty file, and fail now rather than after the run.
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&report)
        .map_err(|e| format!("cannot write the report file {}: {e}", report.display()))?;

    let target = match &args.amdgpu_shim {
        Some(lib) => shim_target(lib, chip, &report)?,
        None => choose_target(chip)?,
    };
    announce(&target, "pops run");

    let existing = std::env::var("VK_INSTANCE_LAYERS").ok();
    let existing_path = std::env::var("VK_ADD_LAYER_PATH").ok();
    let env = child_env(
        &layer_dir,
        existing_path.as_deref(),
        existing.as_deref(),
        &report,
        chip,
        &target,
    );
    let status = spawn(program, program_args, &env)?;
    let mut code = exit_code_of(status);
    let name = program.to_string_lossy();
    let ended = how_it_ended(&name, status);

    let summary = crate::summary::summarize_files(&[&report])?;
    match &target {
        Target::Shim { chip, dir, .. } => {
            // A program that crashed never finished: what it submitted is shown, never as a
            // run that agreed, and the exit status says it crashed.
            if let Some(e) = ended.as_ref().filter(|_| status.code().is_none()) {
                eprintln!("\npops run: {e}: the draws below are what it submitted before that");
            }
            match check_submitted(&summary, *chip, dir, &report) {
                Ok(true) => {}
                Ok(false) => code = code.max(1),
                Err(e) if !status.success() => {
                    return Err(format!("{}; {e}", ended.unwrap_or_default()));
                }
                Err(e) => return Err(e),
            }
        }
        _ => eprint!(
            "{}",
            render_summary(
                &summary,
                &report,
                &target,
                program.to_string_lossy().as_ref()
            )
        ),
    }
    if let Some(e) = ended {
        eprintln!("pops run: {e}");
    }
    Ok(code)
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

/// After a run on the amdgpu shim: what the shim refused or found leaked, then every draw
/// record against the draws RADV submitted. `false` where they disagree.
fn check_submitted(
    summary: &Summary,
    chip: Family,
    dir: &Path,
    report: &Path,
) -> Result<bool, String> {
    let who = "pops run";
    eprintln!("\n{who}: report {}", report.display());
    eprint!("{}", render_device_lost(&summary.device_lost, who));
    let events = shim_events(dir);
    for e in &events {
        eprintln!("{who}: the amdgpu shim: {e}");
    }
    let submitted = winsys::recorded::draws(dir, chip.gfx_level()).map_err(|e| e.to_string())?;
    let records = crate::submitted_check::draw_records(report)?;
    eprintln!(
        "{who}: {} pipeline(s) and shader object(s) reported (`pops report {}` lists them)",
        summary.created,
        report.display()
    );
    let check = crate::submitted_check::check(&records, &submitted, chip);
    eprint!(
        "{}",
        crate::submitted_check::render(&check, chip.name(), who)
    );
    Ok(check.ok() && events.is_empty())
}

/// The shim's VIOLATION and LEAK lines (`events-PID.log`), in file order.
fn shim_events(dir: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("events-"))
        })
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .flat_map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The summary table. Pure.
pub fn render_summary(s: &Summary, report: &Path, target: &Target, program: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "\npops run: report {}", report.display());
    if let Target::Null { chip, .. } = target {
        let _ = writeln!(
            o,
            "pops run: NOTHING WAS RENDERED: RADV null hardware ({}) only creates and compiles \
             pipelines; the rows below are what the driver would program.",
            chip.name()
        );
    }
    o.push_str(&render_bad_lines(s, "pops run"));
    o.push_str(&render_device_lost(&s.device_lost, "pops run"));
    if s.records == 0 {
        let _ = writeln!(
            o,
            "pops run: no pipelines reported: {program} created no pipeline through the layer \
             (not a Vulkan application, or it exited before creating one)."
        );
        o.push_str(&crate::timing_stats::render(&s.timing, "pops run"));
        return o;
    }
    o.push_str(&render_table(s, "pops run"));
    o
}

/// How many lines are not report lines, and the first few, each with why it is not. Pure.
pub fn render_bad_lines(s: &Summary, who: &str) -> String {
    use std::fmt::Write;
    if s.bad_lines == 0 {
        return String::new();
    }
    let mut o = format!("{who}: {} line(s) are not report lines:\n", s.bad_lines);
    for (n, why) in s.bad_line_numbers.iter().zip(&s.bad_reasons) {
        let _ = writeln!(o, "  line {n}: {why}");
    }
    let more = s.bad_lines - s.bad_line_numbers.len();
    if more > 0 {
        let _ = writeln!(o, "  and {more} more");
    }
    o
}

/// A report's device losses, first of all: the sentence, then each list's draws with their
/// key POPS fields and findings. Pure.
pub fn render_device_lost(lost: &[pops_report::read::ResolvedLost], who: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for l in lost {
        let _ = writeln!(o, "{who}: DEVICE LOST on '{}': {}", l.device, l.message);
        for (title, list) in [
            ("in flight", &l.in_flight),
            ("at the loss", &l.at_loss),
            ("just before", &l.recent),
        ] {
            for d in list {
                let name = match (&d.name, &d.module_name) {
                    (Some(n), _) => format!("'{n}'"),
                    (None, Some(m)) => format!("{} (module '{m}')", d.handle),
                    (None, None) => d.handle.clone(),
                };
                let fields = key_fields(d.registers.as_deref())
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                let diags = d
                    .diagnostics
                    .iter()
                    .map(|x| format!("{}:{}", x.severity.name(), x.code))
                    .collect::<Vec<_>>()
                    .join(", ");
                let _ = writeln!(
                    o,
                    "  {title:<12} submission {:>4}  {} {name} in command buffer {}: {} draw(s), {}, {} sample(s), chip {}{}{}",
                    d.submission,
                    d.bound,
                    d.command_buffer,
                    d.draws,
                    d.interlock,
                    d.samples.map_or("dynamic".to_string(), |n| n.to_string()),
                    d.chip.as_deref().unwrap_or("-"),
                    if fields.is_empty() { String::new() } else { format!("; {fields}") },
                    if diags.is_empty() { String::new() } else { format!("; {diags}") },
                );
            }
        }
        if l.not_kept > 0 {
            let _ = writeln!(
                o,
                "  ({} older submission(s) in flight not kept)",
                l.not_kept
            );
        }
        if let Some(f) = &l.fault {
            let _ = writeln!(o, "  driver's fault description: {}", f.description);
            for a in &f.addresses {
                let _ = writeln!(
                    o,
                    "    {} at {} (within {} bytes)",
                    a.kind, a.address, a.precision
                );
            }
            for v in &f.vendor {
                let _ = writeln!(
                    o,
                    "    vendor fault {}: code {:#x}, data {:#x}",
                    v.description, v.code, v.data
                );
            }
        }
    }
    o
}

/// The table of a report's interlocked pipelines and draws, each line prefixed by `who`. Pure.
pub fn render_table(s: &Summary, who: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let unknown = s
        .interlocked
        .iter()
        .filter(|r| r.interlock == pops_report::Interlock::Unknown)
        .count();
    // Command buffer recordings with interlocked draws (a version 2 record counts every
    // recording it adds up).
    let draw_records: u64 = s
        .interlocked
        .iter()
        .filter_map(|r| r.draws.map(|(_, records)| records))
        .sum();
    let created = s.created;
    let _ = writeln!(
        o,
        "{who}: {} pipeline(s) reported, {} with fragment shader interlock{}{}:",
        created,
        s.interlocked.iter().filter(|r| r.draws.is_none()).count() - unknown,
        if unknown > 0 {
            format!(", {unknown} whose interlock use the layer could not tell (see diagnostics)")
        } else {
            String::new()
        },
        if draw_records > 0 {
            let draws: u64 = s
                .interlocked
                .iter()
                .filter_map(|r| r.draws.map(|(d, _)| d))
                .sum();
            format!("; {draws} draw(s) with an interlocked fragment stage in {draw_records} command buffer recording(s), one row per object and state")
        } else {
            String::new()
        }
    );
    if s.interlocked.is_empty() {
        o.push_str(&crate::timing_stats::render(&s.timing, who));
        return o;
    }
    use crate::table::Align::{Left, Right};
    let mut rows = vec![[
        "#",
        "pipeline",
        "stage hash",
        "interlock",
        "samples",
        "rate",
        "chip",
        "draws (records)",
        "POPS register fields",
        "diagnostics",
    ]
    .map(String::from)
    .to_vec()];
    for (i, r) in s.interlocked.iter().enumerate() {
        let fields = if r.fields.is_empty() {
            match r.chip {
                None => "- (no AMD chip: pass --chip to model one)".to_string(),
                Some(_) => "- (no register state in the record)".to_string(),
            }
        } else {
            r.fields
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let diags = if r.diagnostics.is_empty() {
            "-".to_string()
        } else {
            r.diagnostics
                .iter()
                .map(|(sev, code)| format!("{sev}:{code}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        rows.push(vec![
            (i + 1).to_string(),
            match &r.name {
                Some(n) => format!("{} '{n}'", r.kind),
                None => format!("{} {}", r.kind, r.handle),
            },
            r.stage_hash.to_string(),
            r.interlock.to_string(),
            r.samples
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into()),
            if r.per_sample { "sample" } else { "pixel" }.to_string(),
            r.chip.as_deref().unwrap_or("-").to_string(),
            match r.draws {
                Some((d, records)) => format!("{d} ({records})"),
                None => "-".to_string(),
            },
            fields,
            diags,
        ]);
    }
    o.push_str(&crate::table::render(
        &rows,
        &[
            Right, Left, Left, Left, Right, Left, Left, Right, Left, Left,
        ],
        2,
    ));
    o.push_str(&crate::timing_stats::render(&s.timing, who));
    let _ = writeln!(o, "Key: {}", crate::summary::KEY);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{summarize, summarize_files};

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

    const RECORD: &str = r#"{"schema_version":1,"id":1,"app":"pops-oit","device":"Null hardware","kind":"pipeline","handle":"0x10","entry_point":"main","stage_hash":"0123456789abcdef","interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":8,"chip":"navi10","registers":{"DB_SHADER_CONTROL":{"address":163968,"value":196609,"fields":{"PRIMITIVE_ORDERED_PIXEL_SHADER":1,"POPS_OVERLAP_NUM_SAMPLES":3},"decided":["PRIMITIVE_ORDERED_PIXEL_SHADER"]},"DB_DFSM_CONTROL":{"address":163896,"value":6,"fields":{"PUNCHOUT_MODE":2,"POPS_DRAIN_PS_ON_OVERLAP":1},"decided":[]}},"pm4":[],"diagnostics":[{"severity":"warning","code":"missed-overlap-drain","message":"m"}],"source":"shader_module"}"#;

    #[test]
    fn summary_lists_interlocked_pipelines_with_key_fields() {
        let none = RECORD.replace("\"pixel-ordered\"", "\"none\"");
        let s = summarize(&format!("{RECORD}\n{none}\nnot json\n"));
        assert_eq!(s.records, 2);
        assert_eq!(s.bad_lines, 1);
        assert_eq!(s.bad_line_numbers, vec![3]);
        assert_eq!(s.interlocked.len(), 1);
        let r = &s.interlocked[0];
        assert_eq!(r.samples, Some(8));
        assert_eq!(
            r.fields,
            vec![
                ("PRIMITIVE_ORDERED_PIXEL_SHADER".to_string(), 1),
                ("POPS_OVERLAP_NUM_SAMPLES".to_string(), 3),
                ("POPS_DRAIN_PS_ON_OVERLAP".to_string(), 1),
                ("PUNCHOUT_MODE".to_string(), 2),
            ]
        );
        let t = Target::Null {
            chip: Family::Navi10,
            icd: "/i".into(),
            device: NullDevice::ForceFamily,
        };
        let text = render_summary(&s, Path::new("/r"), &t, "p");
        assert!(text.contains("NOTHING WAS RENDERED"));
        assert!(text.contains("warning:missed-overlap-drain"));
        assert!(text.contains("PRIMITIVE_ORDERED_PIXEL_SHADER=1"));
        assert!(text.contains("2 pipeline(s) reported, 1 with fragment shader interlock:"));
    }

    /// Draw records (one per command buffer and state) become one row per object and state
    /// with the draws summed; the creation record takes the name the draws carry.
    #[test]
    fn draw_records_are_summed_per_object_and_state() {
        let draw = |cb: &str, n: u64, samples: u64| {
            RECORD
                .replace("\"kind\":\"pipeline\"", "\"kind\":\"draw\"")
                .replace("\"samples\":8", &format!("\"samples\":{samples}"))
                .replace(
                    "\"pm4\":[]",
                    &format!(
                        "\"pm4\":[],\"command_buffer\":\"{cb}\",\"draws\":{n},\"name\":\"oit\""
                    ),
                )
        };
        let text = [
            RECORD.to_string(),
            draw("0x1", 3, 8),
            draw("0x2", 4, 8),
            draw("0x3", 1, 4),
        ]
        .join("\n");
        let s = summarize(&text);
        assert_eq!(s.records, 4);
        assert_eq!(s.interlocked.len(), 3);
        assert_eq!(s.interlocked[0].draws, None);
        assert_eq!(s.interlocked[0].name.as_deref(), Some("oit"));
        assert_eq!(s.interlocked[1].draws, Some((7, 2)));
        assert_eq!(s.interlocked[2].draws, Some((1, 1)));
        let out = render_summary(
            &s,
            Path::new("/r"),
            &Target::Real { device: "d".into() },
            "p",
        );
        assert!(out.contains("1 pipeline(s) reported, 1 with fragment shader interlock; 8 draw(s) with an interlocked fragment stage in 3 command buffer recording(s)"), "{out}");
        assert!(out.contains("7 (2)"), "{out}");
    }

    #[test]
    fn a_report_with_garbled_bytes_keeps_its_good_lines() {
        let dir = pops_testkit::scratch("run-garbled");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let mut bytes = RECORD.as_bytes().to_vec();
        bytes.extend_from_slice(b"\n{\"kind\":\"gra\xff\xfe\n{\"truncated\":\n");
        bytes.extend_from_slice(RECORD.as_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let s = summarize_files(&[&path]).unwrap();
        assert_eq!(s.records, 2);
        assert_eq!(s.bad_line_numbers, vec![2, 3]);
        // Each bad line is named with its own reason.
        let text = render_bad_lines(&s, "pops report");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].contains("2 line(s) are not report lines"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("  line 2: ") && lines[2].starts_with("  line 3: "),
            "{text}"
        );
        assert_ne!(lines[1][10..], lines[2][10..], "two reasons: {text}");
        // Two identical creation records are one row.
        assert_eq!(s.interlocked.len(), 1);
        let e = summarize_files(&[dir.join("absent.jsonl")]).unwrap_err();
        assert!(
            e.starts_with("cannot read the report") && e.contains("absent.jsonl"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_interlock_is_counted_apart() {
        let unknown = RECORD.replace("\"pixel-ordered\"", "\"unknown\"");
        let s = summarize(&format!("{RECORD}\n{unknown}\n"));
        let t = Target::Real { device: "d".into() };
        let text = render_summary(&s, Path::new("/r"), &t, "p");
        assert!(
            text.contains(
                "1 with fragment shader interlock, 1 whose interlock use the layer could not tell"
            ),
            "{text}"
        );
    }

    #[test]
    fn empty_report_says_no_pipelines() {
        let t = Target::Real { device: "d".into() };
        let text = render_summary(&summarize(""), Path::new("/r"), &t, "true");
        assert!(text.contains("no pipelines reported: true created no pipeline"));
        assert!(!text.contains("NOTHING WAS RENDERED"));
    }

    /// A device-lost line is read and shown before everything else, each listed draw with its
    /// submission, object, key POPS fields and findings, and the driver's fault description.
    #[test]
    fn a_device_loss_is_shown_before_everything_with_its_draws() {
        let text = r#"{"schema_version":1,"id":1,"app":"a","device":"d","kind":"draw","handle":"0x10","entry_point":"main","stage_hash":null,"interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":8,"chip":"raven","registers":null,"pm4":[],"diagnostics":[],"source":"shader_module","command_buffer":"0xc","bound":"pipeline","draws":2}
{"schema_version":1,"app":"a","device":"d","kind":"device_lost","chip":"raven","call":"vkQueueSubmit","queue":"0x5","message":"device lost (vkQueueSubmit on queue 0x5): 0 interlocked draw state(s) in flight, 1 at the loss, 0 just before it; pipeline 0x10 (pixel-ordered, 8 sample(s))","in_flight":[],"at_loss":[{"record":1,"queue":"0x5","submission":4,"command_buffer":"0xc","handle":"0x10","bound":"pipeline","name":"oit","stage_hash":null,"interlock":"pixel-ordered","samples":8,"chip":"raven","draws":2,"registers":{"DB_DFSM_CONTROL":{"address":1,"value":0,"fields":{"POPS_DRAIN_PS_ON_OVERLAP":1},"decided":["POPS_DRAIN_PS_ON_OVERLAP"]}},"diagnostics":[{"severity":"warning","code":"x-y","message":"m"}]}],"recent":[],"not_kept":0,"fault":{"description":"A GPUVM fault has been detected","addresses":[{"type":"WRITE_INVALID","address":"0x1000","precision":4096}],"vendor":[],"vendor_binary_bytes":0}}"#;
        let s = summarize(text);
        assert_eq!(s.bad_lines, 0, "{:?}", s.bad_reasons);
        assert_eq!(s.device_lost.len(), 1);
        let shown = render_summary(&s, Path::new("r.jsonl"), &Target::NoInterlock, "app");
        let lost = shown.find("DEVICE LOST").expect("shown");
        assert!(
            lost < shown.find("pipeline(s) reported").unwrap(),
            "{shown}"
        );
        assert!(shown.contains("at the loss  submission    4  pipeline 'oit' in command buffer 0xc: 2 draw(s), pixel-ordered, 8 sample(s), chip raven; POPS_DRAIN_PS_ON_OVERLAP=1; warning:x-y"), "{shown}");
        assert!(
            shown.contains("WRITE_INVALID at 0x1000 (within 4096 bytes)"),
            "{shown}"
        );
    }

    /// Timing lines are read (not counted bad) and summarised even where nothing left uses
    /// interlock (a `no-interlock` experiment).
    #[test]
    fn timing_lines_are_summarised_without_interlocked_rows() {
        let text = r#"{"schema_version":1,"app":"a","device":"d","kind":"timing","scope":"submission","index":0,"gpu_ns":2000000,"interlocked_ns":1000000,"ranges":1,"unmeasured":0,"objects":[]}
{"schema_version":1,"app":"a","device":"d","kind":"timing","scope":"object","interlocked_ns":1000000,"ranges":1,"unmeasured":0,"objects":[{"object":1,"handle":"0x1","bound":"pipeline","name":"oit","stage_hash":null,"interlock":"none","experiment":{"name":"no-interlock","changes":["pixel-ordered -> none"]},"ns":1000000,"ranges":1}]}"#;
        let s = summarize(text);
        assert_eq!(s.bad_lines, 0);
        assert_eq!(s.timing.len(), 2);
        let t = render_table(&s, "pops run");
        assert!(
            t.contains("1.000 ms in 1 range(s), over 1 submission(s)"),
            "{t}"
        );
        assert!(t.contains("none (pixel-ordered -> none)"), "{t}");
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
