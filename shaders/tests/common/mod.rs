//! Test-only helpers for the real oracles the ISA emitter is checked against: `glslangValidator`
//! to build SPIR-V at test time, LLVM's `llvm-mc` (through `shaders::isa::llvm`), and RADV (through the Vulkan loader) to compile an interlocked
//! pipeline and hand back ACO's disassembly. Nothing here is library code.

#![allow(dead_code)]

use pm4::Family;
use std::path::PathBuf;
use std::process::Command;

/// Why an oracle could not be consulted. In CI (`CI=true`) a skip is a failure.
#[derive(Debug)]
pub struct Skip(pub String);

/// Prints `SKIPPED: <reason>` loudly, and fails instead when running in CI, where every oracle
/// is installed by `scripts/install-deps.sh`.
pub fn skip(reason: &str) {
    pops_testkit::missing(reason);
}

/// Compiles GLSL with Debian's `glslangValidator -V` into SPIR-V words.
pub fn compile_glsl(stage: &str, source: &str) -> Result<Vec<u32>, Skip> {
    let dir = pops_testkit::scratch("glsl");
    let src = dir.join(format!("shader.{stage}"));
    let out = dir.join(format!("{stage}.spv"));
    std::fs::write(&src, source).expect("write shader source");
    let res = Command::new("glslangValidator")
        .arg("-V")
        .arg("--target-env")
        .arg("vulkan1.2")
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output();
    let res = match res {
        Ok(r) => r,
        Err(e) => return Err(Skip(format!("glslangValidator not runnable: {e}"))),
    };
    assert!(
        res.status.success(),
        "glslangValidator failed on a test shader:\n{}{}",
        String::from_utf8_lossy(&res.stdout),
        String::from_utf8_lossy(&res.stderr)
    );
    let bytes = std::fs::read(&out).expect("read SPIR-V");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The processors the ISA issues name, plus GFX11.5 (encoded like GFX11) and RDNA4 (GFX12): the
/// chips whose code LLVM reads back in the ISA tests.
pub const ISA_CHIPS: &[Family] = &[
    Family::Vega10,
    Family::Raven,
    Family::Navi10,
    Family::Navi21,
    Family::Navi31,
    Family::Gfx1150,
    Family::Gfx1200,
    Family::Gfx1201,
];

/// Debian llvm-19's `llvm-mc` (or `POPS_LLVM_MC`); absent: SKIPPED, or a failure in CI.
pub fn llvm_mc() -> Option<PathBuf> {
    match shaders::isa::llvm::find_llvm_mc() {
        Ok(p) => Some(p),
        Err(e) => {
            skip(&e.to_string());
            None
        }
    }
}

pub mod vk;
