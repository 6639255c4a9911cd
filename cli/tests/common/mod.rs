//! What the `pops` command-line tests share: the binary under test, and scratch paths that are
//! unique to one test process (tests of one binary run in parallel, so each names its own).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The `pops` binary cargo built for these tests.
pub fn pops() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pops"))
}

/// A path of its own for a test's output, not created (the capture backend creates its own
/// directory): inside this process's scratch directories, gone when the process ends.
pub fn fresh_path(name: &str) -> PathBuf {
    let dir = pops_testkit::scratch(name);
    std::fs::remove_dir(&dir).expect("an empty scratch directory");
    dir
}
