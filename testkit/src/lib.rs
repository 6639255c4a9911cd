//! The one way a pops test reports that it skipped itself, wholly or in part, for lack of
//! something outside the repository (a driver, LLVM, the reference data, an amdgpu render node).
//!
//! libtest counts such a test as passed and hides its stderr, so a skip would be invisible. Every
//! skip therefore goes through [`skipped`]: it prints `SKIPPED: <test>: <reason>` on stderr and,
//! when `POPS_SKIP_LOG` names a file, appends the same line there, where the test command
//! (`scripts/test-all.sh`) lists and counts every skip by test name. Whether a skip is allowed at
//! all (it is not under `CI=true`, except a missing amdgpu render node) stays with the caller.
//!
//! [`shim`] finds the amdgpu kernel-interface oracle the test command builds, for tests that run
//! pops's amdgpu paths against it.
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

/// The amdgpu kernel interface without a GPU: `shared/tools/amdgpu-shim`, Mesa's drm-shim with
/// the kernel's own checks, built by the test command into `target/amdgpu-shim` (its README is
/// the contract). A program started with it preloaded sees `/dev/dri/renderD128` as the chip
/// named by `AMDGPU_GPU_ID`.
pub mod shim {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// The chips of the shim that have POPS (GFX9 to GFX11.5), by the shim's names.
    pub const CHIPS: &[&str] = &[
        "vega10",
        "raven",
        "raven2",
        "renoir",
        "navi10",
        "navi21",
        "vangogh",
        "raphael_mendocino",
        "navi31",
        "gfx1150",
    ];

    /// The shim library: `POPS_AMDGPU_SHIM`, else the test command's build in the workspace's
    /// `target/amdgpu-shim`. `None` where it is not built.
    pub fn library() -> Option<PathBuf> {
        let p = match std::env::var_os("POPS_AMDGPU_SHIM") {
            Some(p) => PathBuf::from(p),
            None => Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()?
                .join("target/amdgpu-shim/libamdgpu_oracle_drm_shim.so"),
        };
        p.is_file().then_some(p)
    }

    /// [`library`], or, where it is not built, a loud skip — a failure with `CI=true`, where the
    /// test command has built it.
    pub fn library_or_skip() -> Option<PathBuf> {
        let lib = library();
        if lib.is_none() {
            let why = "the amdgpu-shim is not built (scripts/test-all.sh builds it)";
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "required in CI but missing: {why}"
            );
            crate::skipped(why);
        }
        lib
    }

    /// `program` run on the shim as `chip`, its recordings and events in `dir`.
    pub fn command(
        lib: &Path,
        program: impl AsRef<std::ffi::OsStr>,
        chip: &str,
        dir: &Path,
    ) -> Command {
        let mut c = Command::new(program);
        c.env("LD_PRELOAD", lib)
            .env("AMDGPU_GPU_ID", chip)
            .env("AMDGPU_ORACLE_DIR", dir)
            .env_remove("AMDGPU_ORACLE_FAIL")
            .env_remove("AMDGPU_ORACLE_RESET")
            .env_remove("AMDGPU_ORACLE_BUSY");
        c
    }

    /// Every `VIOLATION` and `LEAK` line the shim wrote to `dir` (its `events-PID.log` files).
    pub fn events(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return out;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("events-") {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                out.extend(
                    text.lines()
                        .filter(|l| l.contains("VIOLATION") || l.contains("LEAK"))
                        .map(str::to_string),
                );
            }
        }
        out
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
