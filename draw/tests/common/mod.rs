//! Test helpers: the reference folder beside the repository, and LLVM's disassembler.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `shared/reference/<rel>` beside the repository (or under POPS_SHARED_DIR). Absent: prints
/// `SKIPPED: <reason>` and returns `None`, unless POPS_REQUIRE_REFERENCE or CI=true is set.
pub fn reference(rel: &str, what: &str) -> Option<PathBuf> {
    let shared = std::env::var("POPS_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")));
    let p = shared.join("reference").join(rel);
    if p.exists() {
        return Some(p);
    }
    let required = std::env::var("POPS_REQUIRE_REFERENCE").is_ok()
        || std::env::var("CI").map(|v| v == "true").unwrap_or(false);
    if required {
        panic!("{what}: {} is missing", p.display());
    }
    eprintln!("SKIPPED: {what}: {} not found", p.display());
    None
}

pub fn read_dwords(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "pops-draw-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Debian llvm-19's llvm-mc (or POPS_LLVM_MC); absent: SKIPPED, or a failure in CI.
pub fn llvm_mc() -> Option<PathBuf> {
    let p = std::env::var("POPS_LLVM_MC")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/usr/lib/llvm-19/bin/llvm-mc"));
    if p.exists() {
        return Some(p);
    }
    if std::env::var("CI").map(|v| v == "true").unwrap_or(false) {
        panic!("llvm-mc missing in CI (CI=true): {}", p.display());
    }
    eprintln!("SKIPPED: llvm-mc not installed at {}", p.display());
    None
}

/// `llvm-mc --disassemble` in wave64 mode; one text per instruction.
pub fn disassemble(mc: &Path, mcpu: &str, words: &[u32]) -> Result<Vec<String>, String> {
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
    let mut cmd = Command::new(mc);
    cmd.args(["-arch=amdgcn", &format!("-mcpu={mcpu}"), "--disassemble"]);
    if !mcpu.starts_with("gfx9") {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let out = cmd
        .arg(&input)
        .output()
        .map_err(|e| format!("cannot run llvm-mc: {e}"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success()
        || stderr.contains("invalid instruction encoding")
        || stderr.contains("not a recognized processor")
    {
        return Err(stderr);
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect())
}

/// Whitespace collapsed, hexadecimal immediates in decimal, backward branches signed.
pub fn normalize(s: &str) -> String {
    let mut out = Vec::new();
    for tok in s.split_whitespace() {
        let (core, comma) = match tok.strip_suffix(',') {
            Some(c) => (c, ","),
            None => (tok, ""),
        };
        let core = match core.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16)
                .map(|v| v.to_string())
                .unwrap_or_else(|_| core.to_string()),
            None => core.to_string(),
        };
        out.push(format!("{core}{comma}"));
    }
    let joined = out.join(" ");
    if joined.starts_with("s_branch ") || joined.starts_with("s_cbranch_") {
        if let Some((m, v)) = joined.split_once(' ') {
            if let Ok(n) = v.parse::<i64>() {
                let signed = if n > 0x7fff { n - 0x10000 } else { n };
                return format!("{m} {signed}");
            }
        }
    }
    joined
}
