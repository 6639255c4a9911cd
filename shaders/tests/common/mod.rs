//! Test-only helpers for the real oracles the ISA emitter is checked against: `glslangValidator`
//! to build SPIR-V at test time, and RADV (through the Vulkan loader) to compile an interlocked
//! pipeline and hand back ACO's disassembly. Nothing here is library code.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// Why an oracle could not be consulted. In CI (`CI=true`) a skip is a failure.
#[derive(Debug)]
pub struct Skip(pub String);

/// Prints `SKIPPED: <reason>` loudly, and fails instead when running in CI, where every oracle
/// is installed by `scripts/install-deps.sh`.
pub fn skip(reason: &str) {
    if std::env::var("CI").map(|v| v == "true").unwrap_or(false) {
        panic!("oracle missing in CI (CI=true): {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

/// A fresh private directory under the system temporary directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "pops-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Compiles GLSL with Debian's `glslangValidator -V` into SPIR-V words.
pub fn compile_glsl(stage: &str, source: &str) -> Result<Vec<u32>, Skip> {
    let dir = temp_dir("glsl");
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

/// Finds `llvm-mc` from Debian's llvm-19 (or `POPS_LLVM_MC`).
pub fn llvm_mc() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("POPS_LLVM_MC") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from("/usr/lib/llvm-19/bin/llvm-mc");
    p.exists().then_some(p)
}

/// Disassembles dwords with `llvm-mc --disassemble` for `mcpu`; returns one text per instruction
/// (comments and directives stripped), or `Err` with llvm-mc's complaints.
pub fn llvm_disassemble(mc: &PathBuf, mcpu: &str, words: &[u32]) -> Result<Vec<String>, String> {
    let dir = temp_dir("mc");
    let input = dir.join("in.txt");
    let mut text = String::new();
    for w in words {
        for b in w.to_le_bytes() {
            text.push_str(&format!("0x{b:02x} "));
        }
        text.push('\n');
    }
    std::fs::write(&input, text).expect("write llvm-mc input");
    let out = Command::new(mc)
        .args(["-arch=amdgcn", &format!("-mcpu={mcpu}"), "--disassemble"])
        .arg(&input)
        .output()
        .map_err(|e| format!("cannot run llvm-mc: {e}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() || stderr.contains("invalid instruction encoding") {
        return Err(stderr);
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect())
}

pub mod vk;
