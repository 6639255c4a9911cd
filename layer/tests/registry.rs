//! The table's prototypes against the Vulkan registry: every function the layer intercepts
//! exists in `vk.xml` (directly or as an alias) with the same number of parameters, named as the
//! registry names them (in snake case). The registry is the system's (`libvulkan-dev`) and, where
//! the RADV oracle's Mesa source is built (`target/radv-oracle`), Mesa's newer copy, which knows
//! the newer extensions (shader objects, pipeline binaries).

use std::collections::HashMap;
use std::path::Path;

/// Commands (name → parameter names) and aliases of one registry file.
fn read(path: &Path, cmds: &mut HashMap<String, Vec<String>>, alias: &mut HashMap<String, String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let commands = doc
        .descendants()
        .filter(|n| n.has_tag_name("commands"))
        .flat_map(|n| n.children().filter(|c| c.has_tag_name("command")));
    for c in commands {
        if c.attribute("api") == Some("vulkansc") {
            continue;
        }
        if let (Some(name), Some(to)) = (c.attribute("name"), c.attribute("alias")) {
            alias.insert(name.to_string(), to.to_string());
            continue;
        }
        let name_of = |n: roxmltree::Node| {
            n.children()
                .find(|x| x.has_tag_name("name"))
                .and_then(|x| x.text())
                .map(str::to_string)
        };
        let Some(name) = c
            .children()
            .find(|x| x.has_tag_name("proto"))
            .and_then(name_of)
        else {
            continue;
        };
        let params = c
            .children()
            .filter(|p| p.has_tag_name("param") && p.attribute("api") != Some("vulkansc"))
            .filter_map(name_of)
            .collect();
        cmds.insert(name, params);
    }
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

#[test]
fn every_prototype_has_the_registrys_parameters() {
    let mut cmds = HashMap::new();
    let mut alias = HashMap::new();
    let system = Path::new("/usr/share/vulkan/registry/vk.xml");
    let mesa = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/radv-oracle/mesa-25.0.7/src/vulkan/registry/vk.xml");
    let found: Vec<&Path> = [system, mesa.as_path()]
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    assert!(
        !found.is_empty(),
        "no Vulkan registry: install libvulkan-dev (scripts/install-deps.sh)"
    );
    for p in &found {
        read(p, &mut cmds, &mut alias);
    }
    let mut wrong = Vec::new();
    for (name, params) in VkLayer_pops_interlock::PROTOTYPES {
        let mut n = name.to_string();
        while let Some(to) = alias.get(&n) {
            n = to.clone();
        }
        match cmds.get(&n) {
            None => wrong.push(format!("{name}: not in {found:?}")),
            Some(reg) => {
                let want: Vec<String> = reg.iter().map(|p| snake(p)).collect();
                if want != *params {
                    wrong.push(format!("{name}: {params:?}, the registry says {want:?}"));
                }
            }
        }
    }
    assert!(VkLayer_pops_interlock::PROTOTYPES.len() > 100);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The structure types the layer names itself (VK_KHR_pipeline_binary is newer than the headers
/// `ash` is generated from) are the registry's: 1000000000 + (extension number - 1) x 1000 +
/// offset. Needs the Mesa copy of the registry (the system's is older than the extension).
#[test]
fn own_structure_types_are_the_registrys() {
    use VkLayer_pops_interlock::ffi;
    let mesa = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/radv-oracle/mesa-25.0.7/src/vulkan/registry/vk.xml");
    if !mesa.is_file() {
        return pops_testkit::missing(format!(
            "{} (the RADV oracle's Mesa source)",
            mesa.display()
        ));
    }
    let text = std::fs::read_to_string(&mesa).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let ext = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("extension") && n.attribute("name") == Some("VK_KHR_pipeline_binary")
        })
        .expect("VK_KHR_pipeline_binary in the registry");
    let number: i32 = ext.attribute("number").unwrap().parse().unwrap();
    assert_eq!(
        ext.attribute("depends"),
        Some("VK_KHR_maintenance5"),
        "the extension the layer enables with it"
    );
    let value = |name: &str| -> i32 {
        let e = ext
            .descendants()
            .find(|n| n.has_tag_name("enum") && n.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("{name}"));
        1_000_000_000 + (number - 1) * 1000 + e.attribute("offset").unwrap().parse::<i32>().unwrap()
    };
    for (name, ours) in [
        (
            "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR",
            ffi::STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_BINARY_KEY_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_BINARY_KEY_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_BINARY_CREATE_INFO_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_BINARY_CREATE_INFO_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_BINARY_DATA_INFO_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_BINARY_DATA_INFO_KHR,
        ),
        (
            "VK_STRUCTURE_TYPE_PIPELINE_BINARY_HANDLES_INFO_KHR",
            ffi::STRUCTURE_TYPE_PIPELINE_BINARY_HANDLES_INFO_KHR,
        ),
    ] {
        assert_eq!(ours.as_raw(), value(name), "{name}");
    }
    let capture_data = ext
        .descendants()
        .find(|n| {
            n.has_tag_name("enum")
                && n.attribute("name") == Some("VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR")
        })
        .and_then(|n| n.attribute("bitpos"))
        .expect("VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR's bit");
    assert_eq!(
        1u64 << capture_data.parse::<u32>().unwrap(),
        ffi::PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR.as_raw()
    );
    let max = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("enum")
                && n.attribute("name") == Some("VK_MAX_PIPELINE_BINARY_KEY_SIZE_KHR")
                && n.attribute("value").is_some()
        })
        .and_then(|n| n.attribute("value"))
        .unwrap();
    assert_eq!(
        max.parse::<usize>().unwrap(),
        ffi::MAX_PIPELINE_BINARY_KEY_SIZE_KHR
    );
}
