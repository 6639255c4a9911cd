//! Packs the scenes the ordering model verifies every shader on (`src/model/scene.rs`, whose
//! code this script includes with `src/model/raster.rs`) into `OUT_DIR/fixed_scenes.rs`, so
//! that a verification reads them where they are instead of packing them.
//!
//! With the `corpus` feature, compiles the test shaders in `glsl/` to SPIR-V in OUT_DIR and writes
//! the table `shaders::corpus::all()` serves. Without it, runs nothing: building pops needs no
//! shader compiler.
//!
//! - `*.frag`, `*.vert`, `*.comp`: `glslangValidator --target-env vulkan1.2 -V`.
//! - `*.spvasm`: `spirv-as --target-env vulkan1.2` (hand-written assembly for what GLSL cannot say).
//! - `*.link`: lines `SOURCE ENTRY_NAME`; each source is compiled with its `main` renamed
//!   (`-e ENTRY_NAME --source-entrypoint main`) and the results merged by `spirv-link`.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

// The model's packing code itself, with the one type it takes from pm4 (through the crate root,
// as `src/model/mod.rs` gives it to them).
#[allow(dead_code)]
#[path = "../pm4/src/interlock.rs"]
mod interlock;
#[allow(dead_code)]
#[path = "src/model/raster.rs"]
mod raster;
#[allow(dead_code)]
#[path = "src/model/scene.rs"]
mod scene;
use interlock::Granularity;

const TARGET_ENV: &str = "vulkan1.2";

fn fail(msg: &str) -> ! {
    eprintln!("error: pops-shaders (feature `corpus`): {msg}");
    std::process::exit(1);
}

/// Runs a tool, failing the build with a message that names the package and the install script
/// when the tool is missing.
fn run(tool: &str, package: &str, args: &[OsString]) {
    let output = match Command::new(tool).args(args).output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => fail(&format!(
            "`{tool}` was not found on PATH. It comes from the Debian package {package}; \
             install the system dependencies with scripts/install-deps.sh"
        )),
        Err(e) => fail(&format!("could not run `{tool}`: {e}")),
    };
    if !output.status.success() {
        fail(&format!(
            "`{tool} {}` failed ({}):\n{}{}",
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn glslang(src: &Path, out: &Path, entry: Option<&str>) {
    let mut args = os(&["--target-env", TARGET_ENV, "-V", "-o"]);
    args.push(out.into());
    if let Some(e) = entry {
        args.extend(os(&["-e", e, "--source-entrypoint", "main"]));
    }
    args.push(src.into());
    run("glslangValidator", "glslang-tools", &args);
}

/// Writes every fixed scene's words as a Rust array (`FIXED_SCENES`), read where it is.
fn write_fixed_scenes(out_dir: &Path) {
    for src in [
        "src/model/raster.rs",
        "src/model/scene.rs",
        "../pm4/src/interlock.rs",
    ] {
        println!("cargo:rerun-if-changed={src}");
    }
    let words = scene::encode_fixed();
    let mut text = format!(
        "/// Every fixed scene: its length, then its words (`model::scene::encode_fixed`).\n\
         static FIXED_SCENES: [u32; {}] = [",
        words.len()
    );
    for (k, w) in words.iter().enumerate() {
        text.push_str(if k % 16 == 0 { "\n" } else { " " });
        text.push_str(&format!("{w:#x},"));
    }
    text.push_str("\n];\n");
    if let Err(e) = fs::write(out_dir.join("fixed_scenes.rs"), text) {
        eprintln!("error: pops-shaders: cannot write fixed_scenes.rs: {e}");
        std::process::exit(1);
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    write_fixed_scenes(&out_dir);
    if env::var_os("CARGO_FEATURE_CORPUS").is_none() {
        return;
    }
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let glsl = manifest.join("glsl");
    println!("cargo:rerun-if-changed={}", glsl.display());
    let mut sources: Vec<PathBuf> = match fs::read_dir(&glsl) {
        Ok(d) => d.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => fail(&format!("cannot read {}: {e}", glsl.display())),
    };
    sources.sort();
    let mut rows = String::new();
    for src in &sources {
        let name = src
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let ext = src
            .extension()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let spv = out_dir.join(format!("{name}.spv"));
        let stage = match ext.as_str() {
            "frag" | "vert" | "comp" => {
                glslang(src, &spv, None);
                ext.clone()
            }
            "spvasm" => {
                run(
                    "spirv-as",
                    "spirv-tools",
                    &[
                        os(&["--target-env", TARGET_ENV, "-o"]),
                        vec![spv.clone().into(), src.clone().into()],
                    ]
                    .concat(),
                );
                "module".to_string()
            }
            "link" => {
                let recipe = fs::read_to_string(src)
                    .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", src.display())));
                let mut parts = Vec::new();
                for line in recipe.lines().map(str::trim) {
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    let mut f = line.split_whitespace();
                    let (Some(file), Some(entry), None) = (f.next(), f.next(), f.next()) else {
                        fail(&format!(
                            "{}: expected `SOURCE ENTRY_NAME`, got `{line}`",
                            src.display()
                        ));
                    };
                    let part = out_dir.join(format!("{name}.{entry}.spv"));
                    glslang(&glsl.join(file), &part, Some(entry));
                    parts.push(part);
                }
                let mut args = os(&["--target-env", TARGET_ENV, "-o"]);
                args.push(spv.clone().into());
                args.extend(parts.into_iter().map(OsString::from));
                run("spirv-link", "spirv-tools", &args);
                "module".to_string()
            }
            _ => continue,
        };
        rows.push_str(&format!(
            "    CorpusShader {{ name: {name:?}, stage: {stage:?}, source: include_str!({:?}), spirv: include_bytes!({:?}) }},\n",
            src.display().to_string(),
            spv.display().to_string()
        ));
    }
    let table = format!(
        "/// Every compiled test shader, in file-name order.\npub static ALL: &[CorpusShader] = &[\n{rows}];\n"
    );
    if let Err(e) = fs::write(out_dir.join("corpus.rs"), table) {
        fail(&format!("cannot write corpus.rs: {e}"));
    }
}
