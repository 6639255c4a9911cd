//! The layer's settings, named as the Vulkan-Utility-Libraries convention names them so that
//! vkconfig, `vk_layer_settings.txt` and `VK_EXT_layer_settings` all reach the same values.
//!
//! Precedence, highest first: environment (`VK_POPS_INTERLOCK_<SETTING>`), the settings file
//! (`pops_interlock.<setting> = value`), then `VkLayerSettingsCreateInfoEXT` from the application.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layer name as the loader and `VkLayerSettingEXT::pLayerName` spell it.
pub const LAYER_NAME: &str = "VK_LAYER_POPS_interlock";
/// The settings key: the layer name without `VK_LAYER_`, lower-case (VUL convention).
pub const SETTINGS_KEY: &str = "pops_interlock";
/// The environment prefix: `VK_` + the key in upper case.
pub const ENV_PREFIX: &str = "VK_POPS_INTERLOCK_";

/// Every setting the layer reads, with its manifest description. `manifests/*.json` lists the
/// same names (checked by a test).
pub const SETTINGS: &[(&str, &str)] = &[
    ("report", "Path of the JSON Lines report; one object per analysed pipeline, library or shader object. Empty: no report file."),
    ("chip", "Target AMD family (vega10 … navi31, gfx1150, gfx1201, an LLVM processor or a level) used instead of the device's own chip."),
    ("log", "Log level of the layer's messages on stderr: off, error, warn, info, debug or trace."),
    ("report_all", "Also report pipelines whose fragment shader does not use interlock."),
    ("debug_messages", "Also send the layer's findings to the application's VK_EXT_debug_utils messengers (message id POPS-<code>), once per object."),
    ("experiment", "Interlock experiment applied to interlocked fragment shaders before they reach the driver: pixel-to-sample, sample-to-pixel, ordered-to-unordered, unordered-to-ordered or no-interlock. Empty: none."),
    ("experiment_targets", "Comma-separated targets the experiment is limited to: fragment stage hashes (as pops inspect prints them) or the application's names of shader modules (VK_EXT_debug_utils, given before the pipeline is created). Empty: every interlocked fragment shader."),
    ("timing", "Measure the GPU time of interlocked draws with the layer's own timestamp queries: timing lines per frame (or submission) and per interlocked pipeline or shader object in the report."),
    ("verify_isa", "Verify the machine code the driver compiled for each interlocked pipeline (VK_KHR_pipeline_executable_properties, where the device has it): the ordered section checked on every path against the POPS article's rules and its entry sequence run in the ordering model, as pops verify-isa does, on a thread of the layer's own so that pipeline creation does not wait for it; each finding is a diagnostic of the pipeline's records and a debug message."),
    ("verify_isa_cache", "Directory where verify_isa keeps its verdicts between runs, one file per driver build, pops build and chip: a pipeline whose key (VK_KHR_pipeline_binary, where the device has it) was verified before is created exactly as the application asked and gets the verdict already reached. Empty: $XDG_CACHE_HOME/pops, else ~/.cache/pops. off: verdicts are kept for the process only."),
];

/// The log level named by the `log` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "0" => LogLevel::Off,
            "error" => LogLevel::Error,
            "warn" | "warning" => LogLevel::Warn,
            "info" => LogLevel::Info,
            "debug" => LogLevel::Debug,
            "trace" => LogLevel::Trace,
            _ => return None,
        })
    }

    pub fn to_filter(self) -> log::LevelFilter {
        match self {
            LogLevel::Off => log::LevelFilter::Off,
            LogLevel::Error => log::LevelFilter::Error,
            LogLevel::Warn => log::LevelFilter::Warn,
            LogLevel::Info => log::LevelFilter::Info,
            LogLevel::Debug => log::LevelFilter::Debug,
            LogLevel::Trace => log::LevelFilter::Trace,
        }
    }
}

/// Where `verify_isa` keeps its verdicts between runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerdictCache {
    /// `$XDG_CACHE_HOME/pops`, else `~/.cache/pops` (as Mesa places its shader cache).
    Default,
    /// Nowhere: verdicts are kept for the process only.
    Off,
    Dir(PathBuf),
}

impl VerdictCache {
    /// The directory, given the environment's variables (`get`).
    pub fn dir(&self, get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
        match self {
            VerdictCache::Off => None,
            VerdictCache::Dir(d) => Some(d.clone()),
            VerdictCache::Default => absolute(get("XDG_CACHE_HOME"))
                .or_else(|| absolute(get("HOME")).map(|h| h.join(".cache")))
                .map(|c| c.join("pops")),
        }
    }
}

/// The resolved settings of one instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub report: Option<PathBuf>,
    pub chip: Option<String>,
    pub log: LogLevel,
    pub report_all: bool,
    /// Send findings to the application's debug-utils messengers.
    pub debug_messages: bool,
    /// The interlock experiment, if any.
    pub experiment: Option<shaders::spirv::rewrite::Experiment>,
    /// Stage hashes the experiment is limited to (empty: all).
    pub experiment_targets: Vec<String>,
    /// Time interlocked work with timestamp queries (crate::timing).
    pub timing: bool,
    /// Verify the driver's compiled code of interlocked pipelines (shaders::verify).
    pub verify_isa: bool,
    /// Where verify_isa's verdicts are kept between runs.
    pub verify_isa_cache: VerdictCache,
    /// Debug builds: guarded work that panics on purpose (`test_fault`, VK_EXT_layer_settings
    /// only), for the containment tests. Not a user setting.
    pub test_fault: Option<String>,
    /// Values that were present but not understood, as `(setting, value, source)`: logged once.
    pub rejected: Vec<(String, String, &'static str)>,
    /// A settings file that exists but could not be read, with the reason: logged once, so a
    /// user's settings are never dropped without a word.
    pub file_error: Option<SettingsFileError>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            report: None,
            chip: None,
            log: LogLevel::Info,
            report_all: false,
            debug_messages: true,
            experiment: None,
            experiment_targets: Vec::new(),
            timing: false,
            verify_isa: false,
            verify_isa_cache: VerdictCache::Default,
            test_fault: None,
            rejected: Vec::new(),
            file_error: None,
        }
    }
}

/// Raw `setting → value` pairs from one source.
pub type RawSettings = HashMap<String, String>;

/// Reads `VK_POPS_INTERLOCK_<SETTING>` for every known setting from `get`.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> RawSettings {
    let mut out = RawSettings::new();
    for (name, _) in SETTINGS {
        let var = format!("{ENV_PREFIX}{}", name.to_ascii_uppercase());
        if let Some(v) = get(&var) {
            out.insert((*name).to_string(), v);
        }
    }
    out
}

/// Parses the text of a `vk_layer_settings.txt`: `key.setting = value` lines, `#` comments;
/// lines of other layers are ignored.
pub fn from_file_text(text: &str) -> RawSettings {
    let mut out = RawSettings::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if let Some(setting) = key
            .strip_prefix(SETTINGS_KEY)
            .and_then(|rest| rest.strip_prefix('.'))
        {
            out.insert(setting.to_string(), value.trim().to_string());
        }
    }
    out
}

/// Reads the settings file at `path`. A missing file is no settings; bytes that are not UTF-8
/// only spoil the lines they are on (the file is shared with other layers, and one bad byte
/// must not discard this layer's lines); any other failure is an error naming the file.
pub fn read_file(path: &Path) -> Result<RawSettings, SettingsFileError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(from_file_text(&String::from_utf8_lossy(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RawSettings::new()),
        Err(e) => Err(SettingsFileError {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

/// A settings file that exists and cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot read settings file {}: {reason}", path.display())]
pub struct SettingsFileError {
    pub path: PathBuf,
    pub reason: String,
}

/// Where the settings file is: `VK_LAYER_SETTINGS_PATH` (a file, or a directory holding
/// `vk_layer_settings.txt`), else `vk_layer_settings.txt` in the current directory.
pub fn settings_file_path(settings_path_env: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    match settings_path_env {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            if p.is_dir() {
                Some(p.join("vk_layer_settings.txt"))
            } else {
                Some(p)
            }
        }
        _ => cwd.map(|d| d.join("vk_layer_settings.txt")),
    }
}

/// Merges the three sources with env > file > API precedence.
pub fn resolve(env: &RawSettings, file: &RawSettings, api: &RawSettings) -> Settings {
    let mut s = Settings::default();
    for (name, _) in SETTINGS {
        let found = [
            (env, "environment"),
            (file, "settings file"),
            (api, "VK_EXT_layer_settings"),
        ]
        .into_iter()
        .find_map(|(src, label)| src.get(*name).map(|v| (v.clone(), label)));
        let Some((value, source)) = found else {
            continue;
        };
        let ok = match *name {
            "report" => {
                s.report = (!value.trim().is_empty()).then(|| PathBuf::from(value.trim()));
                true
            }
            "chip" => {
                s.chip = (!value.trim().is_empty()).then(|| value.trim().to_string());
                true
            }
            "log" => match LogLevel::parse(&value) {
                Some(l) => {
                    s.log = l;
                    true
                }
                None => false,
            },
            "report_all" => match parse_bool(&value) {
                Some(b) => {
                    s.report_all = b;
                    true
                }
                None => false,
            },
            "experiment" => {
                let v = value.trim();
                if v.is_empty() || v == "none" || v == "off" {
                    s.experiment = None;
                    true
                } else {
                    match shaders::spirv::rewrite::Experiment::parse(v) {
                        Some(e) => {
                            s.experiment = Some(e);
                            true
                        }
                        None => false,
                    }
                }
            }
            "experiment_targets" => {
                s.experiment_targets = value
                    .split(',')
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect();
                true
            }
            "timing" => match parse_bool(&value) {
                Some(b) => {
                    s.timing = b;
                    true
                }
                None => false,
            },
            "verify_isa" => match parse_bool(&value) {
                Some(b) => {
                    s.verify_isa = b;
                    true
                }
                None => false,
            },
            "verify_isa_cache" => {
                let v = value.trim();
                s.verify_isa_cache = match v.to_ascii_lowercase().as_str() {
                    "" => VerdictCache::Default,
                    "off" | "none" | "0" | "false" | "no" => VerdictCache::Off,
                    _ => VerdictCache::Dir(PathBuf::from(v)),
                };
                true
            }
            "debug_messages" => match parse_bool(&value) {
                Some(b) => {
                    s.debug_messages = b;
                    true
                }
                None => false,
            },
            _ => true,
        };
        if !ok {
            s.rejected.push(((*name).to_string(), value, source));
        }
    }
    s
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Reads `VkLayerSettingsCreateInfoEXT` structures for this layer from an instance pNext chain.
///
/// # Safety
/// `p_next` must be null or a valid pNext chain of a `VkInstanceCreateInfo`.
pub unsafe fn from_api(p_next: *const std::ffi::c_void) -> RawSettings {
    use ash::vk;
    use std::ffi::CStr;
    let mut out = RawSettings::new();
    let mut cur = p_next;
    while !cur.is_null() {
        // SAFETY: caller guarantees a valid chain; every element begins with sType/pNext.
        let base = unsafe { &*(cur as *const crate::ffi::BaseIn) };
        if base.s_type == vk::StructureType::LAYER_SETTINGS_CREATE_INFO_EXT {
            // SAFETY: sType identifies the structure.
            let info = unsafe { &*(cur as *const vk::LayerSettingsCreateInfoEXT) };
            let settings: &[vk::LayerSettingEXT] = if info.p_settings.is_null() {
                &[]
            } else {
                // SAFETY: pSettings holds settingCount elements per the extension's valid usage.
                unsafe { std::slice::from_raw_parts(info.p_settings, info.setting_count as usize) }
            };
            for st in settings {
                if st.p_layer_name.is_null() || st.p_setting_name.is_null() || st.value_count == 0 {
                    continue;
                }
                // SAFETY: null-terminated strings per valid usage.
                let layer = unsafe { CStr::from_ptr(st.p_layer_name) };
                if layer.to_bytes() != LAYER_NAME.as_bytes() {
                    continue;
                }
                // SAFETY: as above.
                let name = unsafe { CStr::from_ptr(st.p_setting_name) }
                    .to_string_lossy()
                    .into_owned();
                // SAFETY: pValues holds valueCount values of `type`; only the first is read.
                let value = unsafe { first_value(st) };
                if let Some(v) = value {
                    out.insert(name, v);
                }
            }
        }
        cur = base.p_next as *const std::ffi::c_void;
    }
    out
}

/// # Safety
/// `st.p_values` must hold at least one value of `st.ty`.
unsafe fn first_value(st: &ash::vk::LayerSettingEXT) -> Option<String> {
    use ash::vk::LayerSettingTypeEXT as T;
    if st.p_values.is_null() {
        return None;
    }
    // SAFETY (all arms): the caller guarantees the pointer's element type matches `ty`.
    unsafe {
        Some(match st.ty {
            T::STRING => {
                let p = *(st.p_values as *const *const std::ffi::c_char);
                if p.is_null() {
                    return None;
                }
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
            T::BOOL32 => (*(st.p_values as *const u32) != 0).to_string(),
            T::INT32 => (*(st.p_values as *const i32)).to_string(),
            T::UINT32 => (*(st.p_values as *const u32)).to_string(),
            T::INT64 => (*(st.p_values as *const i64)).to_string(),
            T::UINT64 => (*(st.p_values as *const u64)).to_string(),
            _ => return None,
        })
    }
}

/// The settings as the running process sees them (env, file, and the application's chain).
///
/// # Safety
/// `instance_p_next` must be null or a valid `VkInstanceCreateInfo` pNext chain.
pub unsafe fn load(instance_p_next: *const std::ffi::c_void) -> Settings {
    let env = from_env(|k| std::env::var(k).ok());
    let path = settings_file_path(
        std::env::var("VK_LAYER_SETTINGS_PATH").ok().as_deref(),
        std::env::current_dir().ok().as_deref(),
    );
    let (file, file_error) = match path.map(|p| read_file(&p)) {
        None => (RawSettings::new(), None),
        Some(Ok(f)) => (f, None),
        Some(Err(e)) => (RawSettings::new(), Some(e)),
    };
    // SAFETY: forwarded from the caller.
    let api = unsafe { from_api(instance_p_next) };
    let mut s = resolve(&env, &file, &api);
    s.file_error = file_error;
    if cfg!(debug_assertions) {
        s.test_fault = api.get("test_fault").cloned();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk;
    use std::ffi::CString;

    fn raw(pairs: &[(&str, &str)]) -> RawSettings {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn env_names_follow_the_vul_convention() {
        let env = from_env(|k| match k {
            "VK_POPS_INTERLOCK_REPORT" => Some("/tmp/r.jsonl".into()),
            "VK_POPS_INTERLOCK_CHIP" => Some("navi31".into()),
            "VK_POPS_INTERLOCK_LOG" => Some("debug".into()),
            "VK_POPS_INTERLOCK_REPORT_ALL" => Some("1".into()),
            _ => None,
        });
        let s = resolve(&env, &RawSettings::new(), &RawSettings::new());
        assert_eq!(s.report, Some(PathBuf::from("/tmp/r.jsonl")));
        assert_eq!(s.chip.as_deref(), Some("navi31"));
        assert_eq!(s.log, LogLevel::Debug);
        assert!(s.report_all);
        assert!(s.rejected.is_empty());
    }

    /// verify_isa's verdicts: by default where Mesa keeps its shader cache (an XDG cache
    /// directory, else the home's), a directory given, or nowhere; relative environment paths
    /// are not used.
    #[test]
    fn verdict_cache_directory() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let s = resolve(
            &RawSettings::new(),
            &RawSettings::new(),
            &RawSettings::new(),
        );
        assert_eq!(s.verify_isa_cache, VerdictCache::Default);
        let both = env(&[("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u")]);
        assert_eq!(
            s.verify_isa_cache.dir(both),
            Some(PathBuf::from("/x/cache/pops"))
        );
        let home = env(&[("XDG_CACHE_HOME", "relative"), ("HOME", "/home/u")]);
        assert_eq!(
            s.verify_isa_cache.dir(home),
            Some(PathBuf::from("/home/u/.cache/pops"))
        );
        assert_eq!(s.verify_isa_cache.dir(env(&[])), None);
        for (value, want) in [
            ("off", VerdictCache::Off),
            (" OFF ", VerdictCache::Off),
            ("", VerdictCache::Default),
            ("/v/d", VerdictCache::Dir(PathBuf::from("/v/d"))),
        ] {
            let s = resolve(
                &raw(&[("verify_isa_cache", value)]),
                &RawSettings::new(),
                &RawSettings::new(),
            );
            assert_eq!(s.verify_isa_cache, want, "{value:?}");
        }
        assert_eq!(VerdictCache::Off.dir(env(&[("HOME", "/h")])), None);
    }

    #[test]
    fn file_lines_of_this_layer_only() {
        let f = from_file_text(
            "# comment\nkhronos_validation.report_flags = error\npops_interlock.report = out.jsonl # trailing\n  pops_interlock.chip=vega10\npops_interlockx.log = trace\n",
        );
        assert_eq!(f, raw(&[("report", "out.jsonl"), ("chip", "vega10")]));
    }

    #[test]
    fn precedence_env_over_file_over_api() {
        let env = raw(&[("chip", "navi31")]);
        let file = raw(&[("chip", "navi10"), ("log", "info")]);
        let api = raw(&[
            ("chip", "vega10"),
            ("log", "trace"),
            ("report", "api.jsonl"),
        ]);
        let s = resolve(&env, &file, &api);
        assert_eq!(s.chip.as_deref(), Some("navi31"));
        assert_eq!(s.log, LogLevel::Info);
        assert_eq!(s.report, Some(PathBuf::from("api.jsonl")));
        let s = resolve(&RawSettings::new(), &file, &api);
        assert_eq!(s.chip.as_deref(), Some("navi10"));
    }

    #[test]
    fn bad_values_are_rejected_not_fatal() {
        let s = resolve(
            &raw(&[("log", "loud"), ("report_all", "maybe")]),
            &RawSettings::new(),
            &RawSettings::new(),
        );
        assert_eq!(s.log, LogLevel::Info);
        assert_eq!(s.rejected.len(), 2);
    }

    #[test]
    fn a_garbled_or_unreadable_settings_file_is_reported_not_fatal() {
        let dir = pops_testkit::scratch("settings-garbage");
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("vk_layer_settings.txt");
        let mut bytes = b"\xff\xfe\x00garbage = = =\npops_interlock.log = \xc3(\n".to_vec();
        bytes.extend_from_slice(
            b"pops_interlock.chip = navi10\n\x80\x81\n=\n.=x\npops_interlock.=\n",
        );
        std::fs::write(&f, &bytes).unwrap();
        let raw = read_file(&f).unwrap();
        assert_eq!(raw.get("chip").map(String::as_str), Some("navi10"));
        let s = resolve(&RawSettings::new(), &raw, &RawSettings::new());
        assert_eq!(s.chip.as_deref(), Some("navi10"));
        assert_eq!(s.log, LogLevel::Info, "a garbled value is not applied");
        assert_eq!(s.rejected.len(), 1, "{:?}", s.rejected);
        assert_eq!(s.rejected[0].0, "log");
        // Missing: no settings. Unreadable (here, a directory): an error naming the file.
        assert_eq!(read_file(&dir.join("absent.txt")), Ok(RawSettings::new()));
        let e = read_file(&dir).unwrap_err().to_string();
        assert!(
            e.contains("cannot read settings file") && e.contains(&*dir.to_string_lossy()),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn settings_file_location() {
        let dir = std::env::temp_dir();
        assert_eq!(
            settings_file_path(Some(dir.to_str().unwrap()), None),
            Some(dir.join("vk_layer_settings.txt"))
        );
        assert_eq!(
            settings_file_path(Some("/etc/x/my.txt"), None),
            Some(PathBuf::from("/etc/x/my.txt"))
        );
        assert_eq!(
            settings_file_path(None, Some(Path::new("/w"))),
            Some(PathBuf::from("/w/vk_layer_settings.txt"))
        );
    }

    #[test]
    fn api_settings_for_this_layer_only() {
        let layer = CString::new(LAYER_NAME).unwrap();
        let other = CString::new("VK_LAYER_KHRONOS_validation").unwrap();
        let report = CString::new("report").unwrap();
        let all = CString::new("report_all").unwrap();
        let path = CString::new("api.jsonl").unwrap();
        let path_ptr = [path.as_ptr()];
        let yes: [u32; 1] = [1];
        let settings = [
            vk::LayerSettingEXT::default()
                .layer_name(&layer)
                .setting_name(&report)
                .ty(vk::LayerSettingTypeEXT::STRING)
                .values(bytes_of(&path_ptr)),
            vk::LayerSettingEXT::default()
                .layer_name(&other)
                .setting_name(&all)
                .ty(vk::LayerSettingTypeEXT::BOOL32)
                .values(bytes_of(&yes)),
        ];
        let mut settings = settings;
        settings[0].value_count = 1;
        settings[1].value_count = 1;
        let info = vk::LayerSettingsCreateInfoEXT::default().settings(&settings);
        // SAFETY: a well-formed chain of one structure built above.
        let api = unsafe { from_api(&info as *const _ as *const std::ffi::c_void) };
        assert_eq!(api, raw(&[("report", "api.jsonl")]));
    }

    fn bytes_of<T>(v: &[T]) -> &[u8] {
        // SAFETY: reinterpreting plain data as bytes for a pValues pointer.
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
    }
}
