//! Compiles the test shaders of `shaders/` to SPIR-V with glslangValidator (glslang-tools).
//! Without glslangValidator the scenarios that need them report SKIPPED.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let shaders = dir.join("shaders");
    println!("cargo:rerun-if-changed={}", shaders.display());
    let mut list = String::new();
    let Ok(entries) = std::fs::read_dir(&shaders) else {
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for src in names {
        let Some(name) = src.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
            continue;
        };
        println!("cargo:rerun-if-changed={}", src.display());
        let spv = out.join(format!("{name}.spv"));
        let status = Command::new("glslangValidator")
            .args(["--target-env", "vulkan1.3", "-o"])
            .arg(&spv)
            .arg(&src)
            .status();
        match status {
            Ok(s) if s.success() => {
                list.push_str(&format!("{name}\t{}\n", spv.display()));
            }
            Ok(s) => panic!("glslangValidator failed on {name}: {s}"),
            Err(e) => {
                println!("cargo:warning=glslangValidator not runnable ({e}); shader scenarios will be SKIPPED");
                break;
            }
        }
    }
    // A table of the compiled shaders for the scenario binary; empty without glslangValidator.
    let mut table = String::from("/// Test shaders compiled by build.rs: (file name, SPIR-V bytes).\npub const SHADERS: &[(&str, &[u8])] = &[\n");
    for line in list.lines() {
        if let Some((name, path)) = line.split_once('\t') {
            table.push_str(&format!("    ({name:?}, include_bytes!({path:?})),\n"));
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("shaders.rs"), table).expect("write shaders.rs");
}
