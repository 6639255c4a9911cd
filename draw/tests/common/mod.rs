//! Test helpers: the reference folder beside the repository, and where LLVM's disassembler is.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

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
    pops_testkit::skipped(format!("{what}: {} not found", p.display()));
    None
}

pub fn read_dwords(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Debian llvm-19's llvm-mc (or POPS_LLVM_MC); absent: SKIPPED, or a failure in CI.
pub fn llvm_mc() -> Option<PathBuf> {
    match shaders::isa::llvm::find_llvm_mc() {
        Ok(p) => Some(p),
        Err(e) if std::env::var("CI").map(|v| v == "true").unwrap_or(false) => {
            panic!("llvm-mc missing in CI (CI=true): {e}")
        }
        Err(e) => {
            pops_testkit::skipped(&e);
            None
        }
    }
}
