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
//! pops's amdgpu paths against it. [`scratch`] gives a test a directory of its own that is gone
//! when the test process ends.
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

/// A fresh, empty directory for one test (or one part of a test), named after `name`. Every scratch
/// directory of a test process lives under one directory of the system's temporary directory,
/// `pops-test-<pid>`, which is removed when the process exits — libtest exits through `exit`
/// whether its tests passed or failed, and so does a child process a test starts — so a test run
/// leaves nothing behind in the temporary directory.
pub fn scratch(name: &str) -> std::path::PathBuf {
    // Numbered, so that tests running in parallel under one name never share a directory.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch_root().join(format!("{name}-{n}"));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create the scratch directory {}: {e}", dir.display()));
    dir
}

/// This process's directory of scratch directories, made (and its removal at exit registered)
/// on first use.
fn scratch_root() -> &'static std::path::Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("pops-test-{}", std::process::id()));
        // SAFETY: registers a plain `extern "C"` function without arguments, as atexit(3)
        // requires; it removes this process's root and unwinds nothing.
        unsafe { libc::atexit(remove_scratch_root) };
        root
    })
}

extern "C" fn remove_scratch_root() {
    let root = std::env::temp_dir().join(format!("pops-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(root);
}

/// The amdgpu kernel interface without a GPU: `shared/tools/amdgpu-shim`, Mesa's drm-shim with
/// the kernel's own checks, built by the test command into `target/amdgpu-shim` (its README is
/// the contract). A program started with it preloaded sees `/dev/dri/renderD128` as the chip
/// named by `AMDGPU_GPU_ID`.
pub mod shim {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// The chips of the shim that have POPS (GFX9 to GFX12), by the shim's names: the launch
    /// recipe's list (`compare::launch::SHIM_CHIPS`), named here for the tests.
    pub fn chips() -> Vec<&'static str> {
        compare::launch::SHIM_CHIPS
            .iter()
            .map(|f| f.name())
            .collect()
    }

    /// The shim's GFX12 (RDNA4) chips. RADV 25.0.7's GFX12 support is young (the shim's
    /// README): RADV is run on them with today's Mesa only ([`chips_for`]).
    pub fn gfx12_chips() -> Vec<&'static str> {
        compare::launch::SHIM_CHIPS
            .iter()
            .filter(|f| f.gfx_level() == pm4::GfxLevel::Gfx12)
            .map(|f| f.name())
            .collect()
    }

    /// The POPS chips to run `mesa`'s RADV on: all of [`chips`] from Mesa 26 on, without
    /// [`gfx12_chips`] before.
    pub fn chips_for(mesa: &crate::mesa::Mesa) -> Vec<&'static str> {
        let gfx12 = mesa.major() >= Some(26);
        let new = gfx12_chips();
        chips()
            .into_iter()
            .filter(|c| gfx12 || !new.contains(c))
            .collect()
    }

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
            crate::missing(why);
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
        on(Command::new(program), lib, chip, dir)
    }

    /// `c` (a program, e.g. from `crate::mesa::Mesa::command`) run on the shim as `chip`.
    pub fn on(mut c: Command, lib: &Path, chip: &str, dir: &Path) -> Command {
        c.envs(compare::launch::shim_env(lib, chip, dir))
            .env_remove("AMDGPU_ORACLE_FAIL")
            .env_remove("AMDGPU_ORACLE_RESET")
            .env_remove("AMDGPU_ORACLE_BUSY");
        c
    }

    /// Every `VIOLATION` and `LEAK` line the shim wrote to `dir` (its `events-PID.log` files,
    /// which hold nothing else), read as `pops run` reads them.
    pub fn events(dir: &Path) -> Vec<String> {
        compare::submitted_check::shim_events(dir)
    }
}

/// The Mesa versions pops is checked against: the host's (Debian 12 with bookworm-backports,
/// Mesa 25.0.7) and today's (`shared/tools/mesa-current`: a Debian sid root file system holding
/// Mesa 26.x, built by the test command into `target/mesa-current`). A program runs against
/// today's Mesa through the root's `run.sh`, which chroots into it with the workspace
/// bind-mounted at the same path, so pops's own binaries run there unchanged.
pub mod mesa {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// One Mesa to run a program against.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Mesa {
        /// The host's own Mesa.
        Host,
        /// The root file system of today's Mesa.
        Current { root: PathBuf },
    }

    /// The workspace's root (the parent of this crate).
    pub fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Where the test command builds today's Mesa: `POPS_MESA_CURRENT`, else
    /// `target/mesa-current` in the workspace; `None` where it is not built.
    pub fn current_root() -> Option<PathBuf> {
        let p = match std::env::var_os("POPS_MESA_CURRENT") {
            Some(p) => PathBuf::from(p),
            None => workspace().join("target/mesa-current"),
        };
        p.join("VERSIONS").is_file().then_some(p)
    }

    /// Where the test command builds today's Mesa with its OpenGL drivers (Zink) and piglit
    /// (`MESA_CURRENT_EXTRA`: another package list, so another root): `POPS_MESA_CURRENT_ZINK`,
    /// else `target/mesa-current-zink`; `None` where it is not built.
    pub fn current_zink_root() -> Option<PathBuf> {
        let p = match std::env::var_os("POPS_MESA_CURRENT_ZINK") {
            Some(p) => PathBuf::from(p),
            None => workspace().join("target/mesa-current-zink"),
        };
        p.join("VERSIONS").is_file().then_some(p)
    }

    /// Every Mesa to run Zink and piglit on: the host's, and today's root with Zink where it is
    /// built; its absence is a loud skip (a failure with `CI=true`).
    pub fn all_with_zink_or_skip() -> Vec<Mesa> {
        let mut v = vec![Mesa::Host];
        match current_zink_root() {
            Some(root) => v.push(Mesa::Current { root }),
            None => crate::missing(
                "today's Mesa with Zink and piglit is not built (scripts/test-all.sh builds \
                 ../shared/tools/mesa-current with MESA_CURRENT_EXTRA into target/mesa-current-zink)",
            ),
        }
        v
    }

    /// Every Mesa to check against: the host's, and today's where it is built. Its absence is a
    /// loud skip, and a failure with `CI=true`, where the test command builds it.
    pub fn all_or_skip() -> Vec<Mesa> {
        let mut v = vec![Mesa::Host];
        match current_root() {
            Some(root) => v.push(Mesa::Current { root }),
            None => {
                let why = "today's Mesa is not built (scripts/test-all.sh builds \
                           ../shared/tools/mesa-current into target/mesa-current)";
                crate::missing(why);
            }
        }
        v
    }

    impl Mesa {
        /// The version of its RADV (`mesa-vulkan-drivers`), e.g. `25.0.7-2~bpo12+1`, `26.2.6-1`.
        pub fn version(&self) -> String {
            match self {
                // Asked of dpkg once per process: every message of every test names it.
                Mesa::Host => {
                    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
                    HOST.get_or_init(|| {
                        Command::new("dpkg-query")
                            .args(["-W", "-f=${Version}", "mesa-vulkan-drivers"])
                            .output()
                            .ok()
                            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                            .filter(|s| !s.is_empty())
                            .unwrap_or_else(|| "host (unknown version)".into())
                    })
                    .clone()
                }
                Mesa::Current { root } => std::fs::read_to_string(root.join("VERSIONS"))
                    .ok()
                    .and_then(|t| {
                        t.lines().find_map(|l| {
                            l.strip_prefix("mesa-vulkan-drivers ").map(str::to_string)
                        })
                    })
                    .unwrap_or_else(|| "current (unknown version)".into()),
            }
        }

        /// "Mesa 26.2.6-1": for messages, so every result names the Mesa it came from.
        pub fn label(&self) -> String {
            format!("Mesa {}", self.version())
        }

        /// The major version (25, 26, …), where the version reads as one.
        pub fn major(&self) -> Option<u32> {
            self.version().split('.').next()?.parse().ok()
        }

        /// RADV's ICD manifest as a program under this Mesa sees it.
        pub fn radv_icd(&self) -> &'static str {
            "/usr/share/vulkan/icd.d/radeon_icd.json"
        }

        /// Mesa's own no-op amdgpu drm-shim (package mesa-drm-shim) as a program under this Mesa
        /// sees it: a null device of any chip for RADV, which Mesa 26 has no other way to give.
        pub fn noop_shim(&self) -> &'static str {
            "/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so"
        }

        /// The name this Mesa's no-op drm-shim gives `chip` (Mesa 26 calls gfx1150 `strix1`),
        /// read from the shim library itself as `pops verify-isa --compile` reads it.
        pub fn shim_chip_name(&self, chip: &str) -> String {
            let library = match self {
                Mesa::Host => PathBuf::from(self.noop_shim()),
                Mesa::Current { root } => root.join("rootfs").join(&self.noop_shim()[1..]),
            };
            pm4::Family::parse(chip)
                .ok()
                .and_then(|f| compare::null_device::gpu_id(&library, f).ok())
                .unwrap_or_else(|| chip.to_string())
        }

        /// `program`, run against this Mesa (add its arguments and environment to the command).
        /// Under today's Mesa it runs inside the root with the workspace bind-mounted at the same
        /// path (absolute paths under the workspace and /tmp stay valid). The root's runner
        /// unmounts everything when its command ends, so runs in it are serialized with a lock
        /// on the root (flock): parallel tests wait rather than pull /proc from each other.
        pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
            match self {
                Mesa::Host => Command::new(program),
                Mesa::Current { root } => {
                    let mut c = Command::new("flock");
                    c.arg(root.join("pops-run.lock"))
                        .arg("bash")
                        .arg(run_sh())
                        .arg(root)
                        .arg("--")
                        .arg(program)
                        .current_dir(workspace());
                    c
                }
            }
        }
    }

    impl Mesa {
        /// [`Mesa::command`] with `library` preloaded into `program` only: under today's Mesa
        /// the preload is set inside the root, so the host's helpers (flock, the runner) never
        /// load it (a drm-shim aborts a process on a chip name it does not know, and the host's
        /// shim is Mesa 25's).
        pub fn command_preloaded(
            &self,
            program: impl AsRef<std::ffi::OsStr>,
            library: impl AsRef<std::ffi::OsStr>,
        ) -> Command {
            match self {
                Mesa::Host => {
                    let mut c = Command::new(program);
                    c.env("LD_PRELOAD", library);
                    c
                }
                Mesa::Current { .. } => {
                    let mut preload = std::ffi::OsString::from("LD_PRELOAD=");
                    preload.push(library);
                    let mut c = self.command("/usr/bin/env");
                    c.arg(preload).arg(program);
                    c
                }
            }
        }
    }

    /// The root's runner, beside the clone (what `pops replay --mesa current` is given as
    /// `POPS_MESA_CURRENT_RUNNER`).
    pub fn run_sh() -> PathBuf {
        workspace().join("../shared/tools/mesa-current/run.sh")
    }
}

/// Whether the tests run in CI (`CI=true`): every prerequisite is installed there, so a missing
/// one is a failure, never a skip.
pub fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// A missing prerequisite (a driver, a tool, a package): a failure in CI, else a loud skip.
pub fn missing(reason: impl std::fmt::Display) {
    assert!(!in_ci(), "required in CI but missing: {reason}");
    skipped(reason);
}

/// The reference data and tools beside the clone: `../shared`, or `POPS_SHARED_DIR`.
pub fn shared_dir() -> std::path::PathBuf {
    std::env::var_os("POPS_SHARED_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"))
        })
}

/// `shared/reference/<rel>`, where it exists; else a loud skip, or a failure where the
/// reference data is required (`POPS_REQUIRE_REFERENCE`, which the test command sets in CI, or
/// `CI=true`).
pub fn reference(rel: &str, what: &str) -> Option<std::path::PathBuf> {
    let path = shared_dir().join("reference").join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("POPS_REQUIRE_REFERENCE").is_none() && !in_ci(),
        "POPS_REQUIRE_REFERENCE or CI=true is set but {} is missing",
        path.display()
    );
    skipped(format!(
        "{what}: reference data {} is absent",
        path.display()
    ));
    None
}

/// A little-endian dword file (a recorded or reference IB): whole dwords, or the test fails.
pub fn read_dwords(path: &std::path::Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes.len() % 4, 0, "{} is not whole dwords", path.display());
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// pops's own binaries that a test runs as a user would: `pops` and the layer, built on demand
/// (`cargo test` builds only the test's own crate's binaries, and never the layer's cdylib).
pub mod built {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Builds `pops` and the layer into `profile` (`target/debug` or `target/release`, the
    /// calling test's; cheap when up to date) and returns `pops`, or what could not be built.
    pub fn pops_and_layer(profile: &Path) -> Result<PathBuf, String> {
        let root = crate::mesa::workspace();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let release = profile.file_name().is_some_and(|n| n == "release");
        for args in [
            &["build", "--quiet", "-p", "pops-layer", "--lib"][..],
            &["build", "--quiet", "-p", "pops-cli", "--bin", "pops"][..],
        ] {
            let mut cmd = Command::new(&cargo);
            cmd.current_dir(&root).args(args);
            if release {
                cmd.arg("--release");
            }
            match cmd.status() {
                Ok(s) if s.success() => {}
                other => return Err(format!("cargo {} failed: {other:?}", args.join(" "))),
            }
        }
        let pops = profile.join("pops");
        let manifest = profile.join("explicit_layer.d/VkLayer_pops_interlock.json");
        let lib = profile.join("libVkLayer_pops_interlock.so");
        for p in [&pops, &manifest, &lib] {
            if !p.is_file() {
                return Err(format!("{} not built", p.display()));
            }
        }
        Ok(pops)
    }
}

/// A page looked at in a real browser: Debian's headless Chromium.
pub mod browser {
    use std::path::Path;
    use std::process::Command;

    fn chromium() -> Option<&'static str> {
        ["chromium", "chromium-browser"].into_iter().find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    }

    /// The browser, or a loud skip (a failure in CI, where the test command installs it).
    pub fn chromium_or_skip() -> Option<&'static str> {
        let b = chromium();
        if b.is_none() {
            crate::missing("chromium not installed");
        }
        b
    }

    /// The DOM the browser builds from `page`.
    pub fn dom(browser: &str, page: &Path) -> String {
        let o = headless(browser, page)
            .arg("--dump-dom")
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// A screenshot of `page` in `shot`.
    pub fn screenshot(browser: &str, page: &Path, shot: &Path) {
        let o = headless(browser, page)
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        assert!(shot.is_file(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    fn headless(browser: &str, page: &Path) -> Command {
        let mut c = Command::new(browser);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,1100",
        ])
        .env("HOME", page.parent().unwrap());
        c
    }

    /// Rows (y) where a pixel of `rgb` (±12 per channel) appears in the PNG at `png_path`, and
    /// how many such pixels.
    pub fn find(png_path: &Path, rgb: [u8; 3]) -> (Option<u32>, usize) {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(png_path).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let mut first = None;
        let mut n = 0;
        for y in 0..info.height {
            for x in 0..info.width {
                let i = ((y * info.width + x) as usize) * channels;
                let p = &buf[i..i + 3];
                if p.iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= 12) {
                    first.get_or_insert(y);
                    n += 1;
                }
            }
        }
        (first, n)
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

    /// Each Mesa's no-op shim names gfx1150 as its own device table does: Mesa 25's by the
    /// family, Mesa 26's `strix1`.
    #[test]
    fn each_mesas_shim_names_its_chips_from_its_own_table() {
        for m in mesa::all_or_skip() {
            if !std::path::Path::new(m.noop_shim()).is_file() && m == mesa::Mesa::Host {
                missing("Mesa's no-op drm-shim (mesa-drm-shim) is not installed");
                continue;
            }
            let want = if m.major() >= Some(26) {
                "strix1"
            } else {
                "gfx1150"
            };
            assert_eq!(m.shim_chip_name("gfx1150"), want, "{}", m.label());
            assert_eq!(m.shim_chip_name("navi31"), "navi31", "{}", m.label());
        }
    }
}
