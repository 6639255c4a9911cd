//! What the `pops` command-line tests share: the binary under test, and scratch paths that are
//! unique to one test process (tests of one binary run in parallel, so each names its own).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The `pops` binary cargo built for these tests.
pub fn pops() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pops"))
}

/// `<tmp>/pops-cli-<name>-<pid>`, not created.
pub fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pops-cli-{name}-{}", std::process::id()))
}

/// [`temp_path`] with whatever an earlier run left there removed, not created (the capture
/// backend creates its own directory).
pub fn fresh_path(name: &str) -> PathBuf {
    let dir = temp_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
