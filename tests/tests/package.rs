//! The Debian package as a user meets it: `scripts/package.sh` (run by the test command) builds
//! `target/debian/pops_<version>_amd64.deb`; here it is extracted into a temporary root
//! (`dpkg-deb -x`), the Vulkan loader is pointed at that root's data directory only
//! (`XDG_DATA_DIRS`, no `VK_ADD_LAYER_PATH`), and the packaged pops-oit runs on lavapipe: named in
//! `VK_INSTANCE_LAYERS`, the layer loads from the packaged explicit manifest and reports; the
//! implicit manifest loads it only where `VK_POPS_INTERLOCK_ENABLE=1` is set; and lintian finds no
//! error in the package.

use std::path::{Path, PathBuf};
use std::process::Command;

const LAVAPIPE: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";

fn package() -> Option<PathBuf> {
    let dir = pops_tests::workspace_root().join("target/debian");
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("pops_"))
                && p.extension().is_some_and(|x| x == "deb")
        })
}

fn skip(why: &str) {
    pops_testkit::missing(why);
}

/// The packaged pops-oit on lavapipe with the loader seeing only `root`'s data directory.
fn oit(root: &Path, report: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(root.join("usr/bin/pops-oit"));
    c.args([
        "--algorithm",
        "linkedlist",
        "--width",
        "32",
        "--height",
        "32",
        "--triangles",
        "4",
    ])
    .arg("--output")
    .arg(root.join("out.png"))
    .env("XDG_DATA_DIRS", root.join("usr/share"))
    .env("XDG_DATA_HOME", root.join("nowhere"))
    .env("VK_DRIVER_FILES", LAVAPIPE)
    .env_remove("VK_ADD_LAYER_PATH")
    .env_remove("VK_LAYER_PATH")
    .env_remove("VK_INSTANCE_LAYERS")
    .env_remove("VK_LOADER_LAYERS_DISABLE")
    .env("VK_POPS_INTERLOCK_REPORT", report)
    .env("VK_POPS_INTERLOCK_REPORT_ALL", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the packaged pops-oit runs")
}

#[test]
fn the_package_installs_the_layer_where_the_loader_finds_it() {
    let Some(deb) = package() else {
        return skip("target/debian/pops_*.deb not built (scripts/package.sh)");
    };
    if !Path::new(LAVAPIPE).is_file() {
        return skip("lavapipe not installed");
    }
    let root = pops_testkit::scratch("package-root");
    let x = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&root)
        .status()
        .unwrap();
    assert!(x.success());
    for f in [
        "usr/bin/pops",
        "usr/bin/pops-oit",
        "usr/lib/x86_64-linux-gnu/libVkLayer_pops_interlock.so",
        "usr/share/vulkan/explicit_layer.d/VkLayer_pops_interlock.json",
        "usr/share/vulkan/implicit_layer.d/VkLayer_pops_interlock_implicit.json",
        "usr/share/doc/pops/copyright",
    ] {
        assert!(root.join(f).is_file(), "{f} missing from the package");
    }

    // Named in VK_INSTANCE_LAYERS: found through the packaged explicit manifest.
    let report = root.join("explicit.jsonl");
    let o = oit(
        &root,
        &report,
        &[("VK_INSTANCE_LAYERS", "VK_LAYER_POPS_interlock")],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = pops_tests::read_report(&report);
    assert!(
        lines.iter().any(|l| l["kind"] == "pipeline"),
        "the packaged layer reported nothing: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    // The implicit manifest: off unless enabled by its variable.
    let off = root.join("implicit-off.jsonl");
    let o = oit(&root, &off, &[]);
    assert!(o.status.success());
    assert!(!off.exists() || pops_tests::read_report(&off).is_empty());
    let on = root.join("implicit-on.jsonl");
    let o = oit(&root, &on, &[("VK_POPS_INTERLOCK_ENABLE", "1")]);
    assert!(o.status.success());
    assert!(
        !pops_tests::read_report(&on).is_empty(),
        "the implicit layer did not load"
    );

    // The package's own tool runs from it.
    let v = Command::new(root.join("usr/bin/pops"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(v.status.success());

    // lintian: no error (warnings are listed by scripts/package.sh's reader).
    match Command::new("lintian").arg(&deb).output() {
        Ok(l) => {
            let text = String::from_utf8_lossy(&l.stdout);
            let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("E:")).collect();
            assert!(errors.is_empty(), "lintian: {errors:?}");
        }
        Err(_) => skip("lintian not installed"),
    }
    std::fs::remove_dir_all(&root).unwrap();
}
