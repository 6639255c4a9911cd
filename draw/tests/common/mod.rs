//! Test helpers: the reference folder beside the repository, and where LLVM's disassembler is.

#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

pub use pops_testkit::{read_dwords, reference};

/// Debian llvm-19's llvm-mc (or POPS_LLVM_MC); absent: SKIPPED, or a failure in CI.
pub fn llvm_mc() -> Option<PathBuf> {
    match shaders::isa::llvm::find_llvm_mc() {
        Ok(p) => Some(p),
        Err(e) => {
            pops_testkit::missing(format!("llvm-mc: {e}"));
            None
        }
    }
}
