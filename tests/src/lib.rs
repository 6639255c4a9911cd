//! Loader-level integration tests: the layer driven through the real Vulkan loader, on RADV's
//! null-hardware devices and lavapipe. The tests live in `tests/tests/`; the application they run
//! is `src/bin/pops-vk-scenario/` (one file per scenario), one scenario per child process.

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
    pops_testkit::missing(reason);
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
        Scenario::on(Command::new(bin), scenario, icd)
    }

    /// [`Scenario::new`] with the program's command made elsewhere (e.g. to run it under
    /// today's Mesa, `pops_testkit::mesa::Mesa::command`).
    pub fn on(mut cmd: Command, scenario: &str, icd: &str) -> Scenario {
        cmd.arg(scenario);
        for (k, _) in std::env::vars() {
            if k.starts_with("VK_") || k.starts_with("RADV_") || k.starts_with("MESA_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("VK_DRIVER_FILES", icd)
            .env("VK_ICD_FILENAMES", icd)
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            // Nothing kept between runs, as the driver keeps nothing: every run verifies what
            // it compiles (a test that checks the kept verdicts names its own directory).
            .env("VK_POPS_INTERLOCK_VERIFY_ISA_CACHE", "off")
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

/// Every line of a JSON Lines report as written, each checked against the schema.
pub fn read_report_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| {
            let v = serde_json::from_str(l).unwrap_or_else(|e| panic!("bad report line {l}: {e}"));
            assert_report_line(&v);
            v
        })
        .collect()
}

/// Reads a JSON Lines report, each line checked against the schema, as records with their
/// register state: a version 2 record gets the `registers` and `pm4` of the state line it
/// names (which must come before it), a draw record the last totals a `counts` line gave it;
/// state and counts lines themselves are left out. Written here from the schema alone, not with
/// the readers of pops it checks.
pub fn read_report(path: &Path) -> Vec<serde_json::Value> {
    use serde_json::Value;
    let mut states: std::collections::HashMap<String, (Value, Value)> = Default::default();
    let mut out: Vec<Value> = Vec::new();
    let mut draw_at: std::collections::HashMap<(String, u64), usize> = Default::default();
    let resolve = |v: &mut Value, states: &std::collections::HashMap<String, (Value, Value)>| {
        if let Some(id) = v.get("state").and_then(Value::as_str) {
            let (regs, pm4) = states
                .get(id)
                .unwrap_or_else(|| panic!("state {id} before its state line: {v}"))
                .clone();
            v["registers"] = regs;
            v["pm4"] = pm4;
        } else if v.get("state").is_some() {
            v["registers"] = Value::Null;
            v["pm4"] = Value::Array(Vec::new());
        }
    };
    for mut v in read_report_lines(path) {
        match v["kind"].as_str() {
            Some("state") => {
                let id = v["state"].as_str().unwrap().to_string();
                states.insert(id, (v["registers"].clone(), v["pm4"].clone()));
            }
            Some("counts") => {
                let app = v["app"].as_str().unwrap().to_string();
                for c in v["records"].as_array().unwrap() {
                    let at = draw_at
                        .get(&(app.clone(), c["record"].as_u64().unwrap()))
                        .unwrap_or_else(|| panic!("counts of no draw record: {v}"));
                    out[*at]["draws"] = c["draws"].clone();
                    out[*at]["command_buffers"] = c["command_buffers"].clone();
                }
            }
            Some("device_lost") => {
                for list in ["in_flight", "at_loss", "recent"] {
                    for d in v[list].as_array_mut().into_iter().flatten() {
                        resolve(d, &states);
                    }
                }
                out.push(v);
            }
            Some("timing") => out.push(v),
            _ => {
                resolve(&mut v, &states);
                if v["kind"] == "draw" {
                    let app = v["app"].as_str().unwrap().to_string();
                    draw_at.insert((app, v["id"].as_u64().unwrap()), out.len());
                }
                out.push(v);
            }
        }
    }
    out
}

/// [`read_report`]'s lines as pops's report types: the typed access the tests read fields
/// through (the schema check and the resolution of states and counts stay [`read_report`]'s).
pub fn report(path: &Path) -> Vec<pops_report::Line> {
    read_report(path)
        .into_iter()
        .map(|v| {
            serde_json::from_value(v.clone()).unwrap_or_else(|e| {
                panic!(
                    "{}: a line pops's types do not read ({e}): {v}",
                    path.display()
                )
            })
        })
        .collect()
}

/// The records (pipelines, libraries, shader objects, draws) of [`report`], in order.
pub fn records(path: &Path) -> Vec<pops_report::Record> {
    report(path)
        .into_iter()
        .filter_map(|l| match l {
            pops_report::Line::Record(r) => Some(*r),
            _ => None,
        })
        .collect()
}

/// The timing lines of [`report`], in order.
pub fn timings(path: &Path) -> Vec<pops_report::Timing> {
    report(path)
        .into_iter()
        .filter_map(|l| match l {
            pops_report::Line::Timing(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The codes of a record's diagnostics, by their names.
pub fn codes(r: &pops_report::Record) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.code.name()).collect()
}

/// The report schema, schemas/report.schema.json, compiled once.
fn report_schema() -> &'static jsonschema::Validator {
    static V: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/report.schema.json");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    })
}

/// Panics, naming every violation, unless `line` follows the report schema. Every report line
/// the tests read goes through here ([`read_report`]).
pub fn assert_report_line(line: &serde_json::Value) {
    let errors: Vec<String> = report_schema()
        .iter_errors(line)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report line does not follow schemas/report.schema.json: {errors:?}\n{line}"
    );
}

/// A little-endian dword file (RADV's recorded command buffers).
pub use pops_testkit::read_dwords;

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> serde_json::Value {
        serde_json::json!({
            "schema_version": 1, "id": 3, "app": "a", "device": "d", "kind": "draw",
            "handle": "0x10", "entry_point": "main", "stage_hash": "0123456789abcdef",
            "interlock": "pixel-ordered", "begin_count": 1, "end_count": 1, "per_sample": false,
            "samples": 4, "chip": "navi31",
            "registers": {"DB_SHADER_CONTROL": {"address": 163980, "value": 1,
                "fields": {"PRIMITIVE_ORDERED_PIXEL_SHADER": 1}, "decided": ["PRIMITIVE_ORDERED_PIXEL_SHADER"]}},
            "pm4": [3221432576u32, 10, 1],
            "diagnostics": [{"severity": "info", "code": "pixel-interlock-with-msaa", "message": "m"}],
            "source": "shader_module", "command_buffer": "0x20", "bound": "pipeline", "draws": 2
        })
    }

    fn fails(v: &serde_json::Value) -> bool {
        std::panic::catch_unwind(|| assert_report_line(v)).is_err()
    }

    /// The schema accepts a well-formed line and names what is wrong with a bad one: a missing
    /// version, an unknown kind, a draw line without its count, a creation line with one.
    #[test]
    fn the_schema_accepts_good_lines_and_refuses_bad_ones() {
        assert_report_line(&line());
        let mut v = line();
        v.as_object_mut().unwrap().remove("schema_version");
        assert!(fails(&v));
        let mut v = line();
        v["kind"] = "pipe".into();
        assert!(fails(&v));
        let mut v = line();
        v.as_object_mut().unwrap().remove("draws");
        assert!(fails(&v));
        let mut v = line();
        v["kind"] = "pipeline".into();
        assert!(fails(&v), "a creation line has no draw fields");
        let mut v = line();
        v["samples"] = 3.into();
        assert!(fails(&v));
        let mut v = line();
        v["extra"] = 1.into();
        assert!(fails(&v));
    }

    fn timing_line() -> serde_json::Value {
        serde_json::json!({
            "schema_version": 1, "app": "a", "device": "d", "kind": "timing", "scope": "frame",
            "index": 0, "gpu_ns": 2000, "interlocked_ns": 1500, "ranges": 1, "unmeasured": 0,
            "objects": [{"object": 1, "handle": "0x10", "bound": "pipeline", "name": "oit",
                "stage_hash": "0123456789abcdef", "interlock": "sample-ordered",
                "experiment": {"name": "pixel-to-sample", "changes": ["pixel-ordered -> sample-ordered"]},
                "ns": 1500, "ranges": 1}]
        })
    }

    /// Timing lines: a frame or submission has its index and GPU time, an object line has
    /// neither and one object; the layer's own type writes lines the schema accepts.
    #[test]
    fn the_schema_knows_timing_lines() {
        assert_report_line(&timing_line());
        let mut v = timing_line();
        v.as_object_mut().unwrap().remove("gpu_ns");
        assert!(fails(&v), "a frame line has its GPU time");
        let mut v = timing_line();
        v["scope"] = "object".into();
        assert!(fails(&v), "an object line has no index");
        v.as_object_mut().unwrap().remove("index");
        v.as_object_mut().unwrap().remove("gpu_ns");
        assert_report_line(&v);
        let mut v = timing_line();
        v["objects"][0]["interlock"] = "pixel".into();
        assert!(fails(&v));
        let typed: pops_report::Line = serde_json::from_value(timing_line()).unwrap();
        let pops_report::Line::Timing(t) = typed else {
            panic!("a timing line reads as a record")
        };
        assert_report_line(&serde_json::to_value(&t).unwrap());
        assert!(matches!(
            serde_json::from_value::<pops_report::Line>(line()).unwrap(),
            pops_report::Line::Record(_)
        ));
    }
}

/// What a real driver submitted through the amdgpu kernel interface of the test command's shim
/// (`shared/tools/amdgpu-shim`): its recorded submissions, their IBs decoded, and the register
/// fields in force at each draw packet — the second, independent check of the layer's draw
/// records (the first is the RADV oracle's recorded command buffers).
/// Stock RADV, with its own amdgpu winsys, on the amdgpu kernel-interface shim
/// (`shared/tools/amdgpu-shim`): a Vulkan program submitting through libdrm and the kernel's
/// checks, with or without the layer.
pub mod radv_shim {
    use std::path::Path;
    use std::process::Command;

    /// Stock RADV's ICD manifest.
    pub const RADV: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";

    /// `program` on the shim as `chip` on the RADV of `mesa`, the shim's recordings in `dir`;
    /// with the layer (writing `report`) where one is given. Every IB is inline (no IB chaining,
    /// `noibs` to Mesa 25 and `noibchaining` to Mesa 26: the shim records top-level IBs only).
    pub fn command(
        mesa: &pops_testkit::mesa::Mesa,
        shim: &Path,
        program: impl AsRef<std::ffi::OsStr>,
        chip: &str,
        dir: &Path,
        report: Option<&Path>,
    ) -> Command {
        let mut c = pops_testkit::shim::on(mesa.command(program), shim, chip, dir);
        c.envs(compare::launch::radv_on_shim_env(
            Path::new(RADV),
            shim,
            chip,
            dir,
        ))
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("RADV_FORCE_FAMILY")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
        .env_remove("VK_INSTANCE_LAYERS");
        if let Some(report) = report {
            static MANIFESTS: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
            c.env(
                "VK_ADD_LAYER_PATH",
                MANIFESTS.get_or_init(super::layer_manifest_dir),
            )
            .env("VK_INSTANCE_LAYERS", "VK_LAYER_POPS_interlock")
            .env("VK_POPS_INTERLOCK_REPORT", report);
        }
        c
    }
}

pub mod submitted {
    use std::path::Path;

    pub use compare::recorded::RecordedDraw as Draw;

    /// Every draw packet of every accepted submission recorded in `dir`, in order.
    pub fn draws(dir: &Path, level: pm4::GfxLevel) -> Vec<Draw> {
        compare::recorded::draws(dir, level).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The draws of every submission that could be read whole, and the submissions that chain
    /// an IB the shim did not record (a secondary command buffer on RADV 26).
    pub fn draws_but_chained(dir: &Path, level: pm4::GfxLevel) -> compare::recorded::Recording {
        compare::recorded::draws_but_chained(dir, level).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Whether every field a draw record decided holds the value the
    /// driver programmed at `draw`, but for the fields `pm4::pops::radv` lists as deliberate
    /// differences (and the sample-iteration fields where the driver keeps the rate at 1×1
    /// another way): the number of fields compared, or the differences.
    pub fn agrees(
        record: &pops_report::Record,
        draw: &Draw,
        level: pm4::GfxLevel,
    ) -> Result<usize, String> {
        let Some(regs) = &record.registers else {
            return Err("the record has no registers".into());
        };
        let decided = regs.iter().flat_map(|(reg, r)| {
            r.decided
                .iter()
                .map(move |f| (reg.as_str(), f.as_str(), r.fields.get(f).copied()))
        });
        let per_sample = record.per_sample;
        let c = compare::submitted_check::compare_record(
            decided,
            per_sample,
            record.samples.map(u64::from),
            draw,
            level,
        );
        if c.agrees() {
            Ok(c.compared)
        } else {
            Err(c.differences.join("; "))
        }
    }
}
