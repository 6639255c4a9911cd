//! The library exports exactly `vkNegotiateLoaderLayerInterfaceVersion`, does not link
//! against libvulkan, and is never unloaded (its threads may outlive the loader's hold on it).

use pops_tests::{layer_manifest_dir, skip};
use std::process::Command;

fn tool(cmd: &str, args: &[&str]) -> Option<String> {
    match Command::new(cmd).args(args).output() {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => panic!("{cmd} failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            skip(&format!("{cmd} not runnable: {e}"));
            None
        }
    }
}

#[test]
fn exports_only_the_negotiation_function_and_no_libvulkan() {
    let lib = layer_manifest_dir()
        .parent()
        .expect("profile dir")
        .join("libVkLayer_pops_interlock.so");
    let lib = lib.to_str().expect("utf-8 path");
    if let Some(t) = tool("objdump", &["-T", lib]) {
        // Defined (not *UND*) dynamic symbols.
        let defined: Vec<&str> = t
            .lines()
            .filter(|l| l.contains(" DF ") || l.contains(" DO ") || l.contains(" g "))
            .filter(|l| !l.contains("*UND*"))
            .filter_map(|l| l.split_whitespace().last())
            .collect();
        assert_eq!(defined, ["vkNegotiateLoaderLayerInterfaceVersion"], "{t}");
        let vk: Vec<&str> = t
            .lines()
            .filter_map(|l| l.split_whitespace().last())
            .filter(|s| s.starts_with("vk"))
            .collect();
        assert_eq!(vk, ["vkNegotiateLoaderLayerInterfaceVersion"]);
    }
    if let Some(d) = tool("readelf", &["--dynamic", lib]) {
        let needed: Vec<&str> = d.lines().filter(|l| l.contains("(NEEDED)")).collect();
        assert!(!needed.is_empty(), "{d}");
        assert!(
            needed.iter().all(|l| !l.contains("libvulkan")),
            "the layer must not link libvulkan: {needed:?}"
        );
        // The default build (no `amdgpu-probe`) must load where libdrm is absent: winsys, and
        // with it libdrm, is linked only with that feature.
        assert!(
            needed.iter().all(|l| !l.contains("libdrm")),
            "the default layer must not link libdrm: {needed:?}"
        );
        // The loader (and an application unloading it, as Zink does at exit) may dlclose the
        // layer while one of its threads is starting: the layer must stay mapped.
        let flags = d.lines().find(|l| l.contains("(FLAGS_1)"));
        assert!(
            flags.is_some_and(|l| l.contains("NODELETE")),
            "the layer must be built never to be unloaded (-z nodelete): {flags:?}"
        );
    }
}
