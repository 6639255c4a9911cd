//! The workspace's `rust-version` is the one the locked dependencies really need: the highest
//! `rust-version` any package in Cargo.lock declares (from `cargo metadata`).

use std::process::Command;

fn version(v: &str) -> Vec<u32> {
    v.split('.').map(|x| x.parse().unwrap_or(0)).collect()
}

/// The host's target triple (`rustc -vV`): the packages pops builds with here.
fn host() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("host line")
        .to_string()
}

#[test]
fn rust_version_is_what_the_locked_dependencies_need() {
    let host = host();
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    let mut ours = None;
    let mut needed: (Vec<u32>, String) = (vec![0], String::new());
    for p in meta["packages"].as_array().unwrap() {
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        if members.contains(&p["id"].as_str().unwrap_or("")) {
            ours = Some(rv.to_string());
        } else if version(rv) > needed.0 {
            needed = (version(rv), format!("{} {}", p["name"], p["version"]));
        }
    }
    let ours = ours.expect("workspace rust-version");
    assert_eq!(
        version(&ours),
        needed.0,
        "Cargo.toml says rust-version {ours}, but {} needs {:?}",
        needed.1,
        needed.0
    );
}
