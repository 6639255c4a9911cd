//! `pops devices` where there is no GPU (every CI machine): it says so plainly and exits 0.

mod common;

use common::{fresh_path, pops};

fn empty_dri_dir(name: &str) -> std::path::PathBuf {
    let d = fresh_path(&format!("dri-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn without_a_gpu_it_says_so_and_succeeds() {
    let dir = empty_dri_dir("text");
    let out = pops()
        .args(["devices", "--dri-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("No amdgpu GPU found: no render node in"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_without_a_gpu_is_an_empty_list_with_the_reason() {
    let dir = empty_dri_dir("json");
    std::os::unix::fs::symlink("/dev/null", dir.join("renderD128")).unwrap();
    let out = pops()
        .args(["devices", "--json", "--dri-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["devices"], serde_json::json!([]));
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0]["reason"]
        .as_str()
        .unwrap()
        .contains("is not a DRM device"));
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("no usable amdgpu GPU"));
    std::fs::remove_dir_all(&dir).unwrap();
}
