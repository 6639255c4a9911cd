//! Loader-level integration tests: the layer driven through the real Vulkan loader, on RADV's
//! null-hardware devices and lavapipe. The tests live in `tests/tests/`; the application they run
//! is `src/bin/pops-vk-scenario.rs`, one scenario per child process.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The test shaders of `tests/shaders/`, compiled by build.rs.
pub mod local_shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

/// The workspace root (this crate lives in `<root>/tests`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The cargo target directory the tests were built into.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The profile directory of the running test binary (`target/debug` or `target/release`).
pub fn profile_dir() -> PathBuf {
    // The test executable is target/<profile>/deps/<name>-<hash>.
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().and_then(|d| d.parent()).map(Path::to_path_buf))
        .unwrap_or_else(|| target_dir().join("debug"))
}

/// Builds `pops-layer` (cheap when up to date) and returns the directory holding the development
/// manifest `VkLayer_pops_interlock.json` (`target/<profile>/explicit_layer.d`).
pub fn layer_manifest_dir() -> PathBuf {
    let profile = profile_dir();
    let release = profile.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace_root())
        .args(["build", "--quiet", "-p", "pops-layer", "--lib"]);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("run cargo build -p pops-layer");
    assert!(status.success(), "cargo build -p pops-layer failed");
    let dir = profile.join("explicit_layer.d");
    assert!(
        dir.join("VkLayer_pops_interlock.json").is_file(),
        "development manifest missing in {}",
        dir.display()
    );
    assert!(profile.join("libVkLayer_pops_interlock.so").is_file());
    dir
}

/// The ICD manifests of the drivers the tests use.
pub const RADV_ICD: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";
pub const LVP_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";

/// Reports a missing prerequisite: SKIPPED on stderr, or a failure when `CI=true`.
pub fn skip(reason: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("SKIPPED is not allowed in CI: {reason}");
    }
    pops_testkit::skipped(reason);
}

/// Whether a driver's ICD manifest is installed; reports SKIPPED otherwise.
pub fn have_icd(icd: &str) -> bool {
    if Path::new(icd).is_file() {
        true
    } else {
        skip(&format!("{icd} not installed"));
        false
    }
}

/// A scenario run: the environment of one child process.
pub struct Scenario {
    cmd: Command,
}

impl Scenario {
    /// `scenario` of `pops-vk-scenario` on the driver `icd`, with a clean loader environment.
    pub fn new(bin: &str, scenario: &str, icd: &str) -> Scenario {
        let mut cmd = Command::new(bin);
        cmd.arg(scenario);
        for (k, _) in std::env::vars() {
            if k.starts_with("VK_") || k.starts_with("RADV_") || k.starts_with("MESA_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("VK_DRIVER_FILES", icd)
            .env("VK_ICD_FILENAMES", icd)
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env("VK_LOADER_LAYERS_DISABLE", "~implicit~");
        Scenario { cmd }
    }

    /// Enables the layer (and `others`, in order: the first is closest to the application).
    pub fn with_layers(mut self, layers: &[&str]) -> Scenario {
        let dir = layer_manifest_dir();
        self.cmd
            .env("VK_ADD_LAYER_PATH", dir)
            .env("VK_INSTANCE_LAYERS", layers.join(":"));
        self
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Scenario {
        self.cmd.env(k, v);
        self
    }

    pub fn run(mut self) -> Output {
        self.cmd.output().expect("spawn pops-vk-scenario")
    }
}

/// The JSON objects a scenario printed.
pub fn json_lines(text: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(text)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Reads a JSON Lines report.
pub fn read_report(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad report line {l}: {e}")))
        .collect()
}

/// A fresh temporary directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pops-tests-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// A little-endian dword file (RADV's recorded command buffers).
pub fn read_dwords(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
