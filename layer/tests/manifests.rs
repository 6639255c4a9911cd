//! The manifests in `manifests/` agree with the layer: name, format version,
//! library name, and a vkconfig setting for every setting the layer reads.

use serde_json::Value;
use VkLayer_pops_interlock::settings::{ENV_PREFIX, LAYER_NAME, SETTINGS};

fn load(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../manifests/").to_string() + name;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn check_common(m: &Value) {
    let v = m["file_format_version"].as_str().unwrap();
    assert!(v.starts_with("1.2."), "{v}");
    let l = &m["layer"];
    assert_eq!(l["name"], LAYER_NAME);
    assert_eq!(l["type"], "GLOBAL");
    assert_eq!(l["library_path"], "libVkLayer_pops_interlock.so");
    for k in ["api_version", "implementation_version", "description"] {
        assert!(l[k].as_str().is_some_and(|s| !s.is_empty()), "{k}");
    }
    let settings = l["features"]["settings"]
        .as_array()
        .expect("features.settings");
    let keys: Vec<&str> = settings.iter().filter_map(|s| s["key"].as_str()).collect();
    let expected: Vec<&str> = SETTINGS.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, expected);
    for s in settings {
        let key = s["key"].as_str().unwrap();
        assert_eq!(
            s["env"],
            format!("{ENV_PREFIX}{}", key.to_ascii_uppercase())
        );
        let desc = SETTINGS.iter().find(|(k, _)| *k == key).unwrap().1;
        assert_eq!(s["description"], desc);
        for f in ["label", "type", "default"] {
            assert!(!s[f].is_null(), "{key}.{f}");
        }
    }
}

#[test]
fn explicit_manifest() {
    let m = load("VkLayer_pops_interlock.json");
    check_common(&m);
    assert!(m["layer"]["enable_environment"].is_null());
}

#[test]
fn implicit_manifest_has_enable_and_disable_environment() {
    let m = load("VkLayer_pops_interlock_implicit.json");
    check_common(&m);
    assert_eq!(
        m["layer"]["enable_environment"]["VK_POPS_INTERLOCK_ENABLE"],
        "1"
    );
    assert_eq!(
        m["layer"]["disable_environment"]["VK_POPS_INTERLOCK_DISABLE"],
        "1"
    );
}
