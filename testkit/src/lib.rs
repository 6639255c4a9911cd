//! The one way a pops test reports that it skipped itself, wholly or in part, for lack of
//! something outside the repository (a driver, LLVM, the reference data, an amdgpu render node).
//!
//! libtest counts such a test as passed and hides its stderr, so a skip would be invisible. Every
//! skip therefore goes through [`skipped`]: it prints `SKIPPED: <test>: <reason>` on stderr and,
//! when `POPS_SKIP_LOG` names a file, appends the same line there, where the test command
//! (`scripts/test-all.sh`) lists and counts every skip by test name. Whether a skip is allowed at
//! all (it is not under `CI=true`, except a missing amdgpu render node) stays with the caller.
//!
//! Dev-dependency only, of every crate whose tests can skip; it uses nothing of pops.

use std::io::Write;

/// The running test's name: libtest names each test's thread after the test; the test binary's
/// name (less cargo's hash) says which target it belongs to.
pub fn current_test() -> String {
    let binary = std::env::args()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .map(|s| match s.rsplit_once('-') {
            Some((name, hash))
                if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                name.to_string()
            }
            _ => s,
        })
        .unwrap_or_else(|| "?".to_string());
    match std::thread::current().name() {
        Some(t) if t != "main" => format!("{binary}::{t}"),
        _ => binary,
    }
}

/// The line [`skipped`] prints and logs.
pub fn skip_line(test: &str, reason: &str) -> String {
    format!("SKIPPED: {test}: {}", reason.replace('\n', " "))
}

/// Reports that the running test skipped (part of) its work, and why.
pub fn skipped(reason: impl std::fmt::Display) {
    let line = skip_line(&current_test(), &reason.to_string());
    eprintln!("{line}");
    if let Some(path) = std::env::var_os("POPS_SKIP_LOG") {
        // One write of one line, in append mode: lines of parallel tests do not interleave.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = written {
            eprintln!(
                "pops-testkit: cannot append to POPS_SKIP_LOG {}: {e}",
                std::path::Path::new(&path).display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_test_and_the_reason_on_one_line() {
        assert_eq!(
            skip_line("loader::radv", "no ICD\nat all"),
            "SKIPPED: loader::radv: no ICD at all"
        );
        assert!(current_test().ends_with("the_line_names_the_test_and_the_reason_on_one_line"));
    }

    #[test]
    fn a_skip_is_appended_to_the_log() {
        let log = std::env::temp_dir().join(format!("pops-testkit-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        // The variable is read at the call; set it for this process only around the call.
        std::env::set_var("POPS_SKIP_LOG", &log);
        skipped("reason one");
        std::env::remove_var("POPS_SKIP_LOG");
        let text = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        assert!(
            text.lines()
                .any(|l| l.ends_with("a_skip_is_appended_to_the_log: reason one")),
            "{text}"
        );
    }
}
