//! `pops inspect` on the compiled test shaders and on malformed files.

use shaders::corpus;
use std::path::PathBuf;
use std::process::{Command, Output};

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = pops_testkit::scratch("inspect");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn pops(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pops"))
        .arg("inspect")
        .args(args)
        .output()
        .expect("run pops")
}

fn inspect_json(name: &str, bytes: &[u8]) -> serde_json::Value {
    let p = temp_file(name, bytes);
    let out = pops(&[p.as_os_str(), "--json".as_ref()]);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn oit_interlock_json() {
    let s = corpus::get("oit_interlock.frag").unwrap();
    let j = inspect_json("oit.spv", s.spirv);
    let e = &j["entry_points"][0];
    assert_eq!(e["name"], "main");
    assert_eq!(e["execution_model"], "Fragment");
    assert_eq!(e["interlock"], "pixel-ordered");
    assert_eq!(e["begin_count"], 1);
    assert_eq!(e["end_count"], 1);
    assert_eq!(e["per_sample"], false);
    assert_eq!(e["writes_memory"], true);
    assert_eq!(e["accesses_memory"], true);
    assert_eq!(e["has_color_output"], true);
    assert_eq!(e["early_fragment_tests"], true);
    assert_eq!(e["begin_in_divergent_control_flow"], false);
    assert_eq!(e["interlock_sites"][0]["instruction"], "begin");
    assert_eq!(e["interlock_sites"][0]["function_name"], "main");
    assert_eq!(j["spirv_version"], "1.5");
}

#[test]
fn interlock_names_are_those_of_pm4() {
    for m in pm4::InterlockMode::ALL {
        let file = format!(
            "{}.frag",
            m.name()
                .replace('-', "_")
                .replace("_ordered", "_interlock_ordered")
                .replace("_unordered", "_interlock_unordered")
        );
        let s = corpus::get(&file).unwrap_or_else(|| panic!("{file} in corpus"));
        let j = inspect_json(&format!("{file}.spv"), s.spirv);
        assert_eq!(j["entry_points"][0]["interlock"], m.name(), "{file}");
    }
    let s = corpus::get("fullscreen.vert").unwrap();
    let j = inspect_json("vert.spv", s.spirv);
    assert_eq!(j["entry_points"][0]["interlock"], "none");
    assert_eq!(j["entry_points"][0]["execution_model"], "Vertex");
}

#[test]
fn several_entry_points_and_per_sample() {
    let s = corpus::get("multi_entry_linked.link").unwrap();
    let j = inspect_json("multi.spv", s.spirv);
    let names: Vec<_> = j["entry_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["frag_ordered", "frag_no_color", "vs_fullscreen"]);
    assert_eq!(j["entry_points"][1]["has_color_output"], false);

    let s = corpus::get("oit_interlock_sample.frag").unwrap();
    let j = inspect_json("oit_sample.spv", s.spirv);
    assert_eq!(j["entry_points"][0]["per_sample"], true);
    assert_eq!(j["entry_points"][0]["interlock"], "sample-ordered");

    let s = corpus::get("divergent_interlock.spvasm").unwrap();
    let j = inspect_json("divergent.spv", s.spirv);
    let sel = j["entry_points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "begin_in_selection")
        .unwrap();
    assert_eq!(sel["begin_in_divergent_control_flow"], true);
}

#[test]
fn text_output_and_big_endian_files() {
    let s = corpus::get("interlock_reads_only.frag").unwrap();
    let p = temp_file("reads.spv", s.spirv);
    let out = pops(&[p.as_os_str()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Fragment \"main\""), "{text}");
    assert!(
        text.contains("interlock            pixel-ordered"),
        "{text}"
    );
    assert!(text.contains("writes memory        no"), "{text}");
    assert!(text.contains("accesses memory      yes"), "{text}");

    let be: Vec<u8> = s.words().iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(
        inspect_json("reads_be.spv", &be),
        inspect_json("reads_le.spv", s.spirv)
    );
}

fn assert_fails(name: &str, bytes: &[u8], needle: &str) {
    let p = temp_file(name, bytes);
    let out = pops(&[p.as_os_str(), "--json".as_ref()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{name}: {err}");
    assert!(out.stdout.is_empty(), "{name}");
    assert!(
        err.contains(needle),
        "{name}: stderr {err:?} lacks {needle:?}"
    );
    assert!(!err.contains("panicked"), "{name}: {err}");
}

#[test]
fn malformed_files_fail_with_a_message() {
    let good = corpus::get("pixel_interlock_ordered.frag").unwrap().spirv;
    assert_fails("empty.spv", &[], "header");
    assert_fails("odd.spv", &good[..good.len() - 3], "not a multiple of 4");
    assert_fails(
        "text.spv",
        b"#version 460\n\n\n\n\n\n\n\n",
        "bad SPIR-V magic",
    );
    assert_fails(
        "cut.spv",
        &good[..good.len() - 4],
        "the module ends inside a function",
    );
    let mut long = good.to_vec();
    // The last instruction (OpFunctionEnd) claims two words where one remains.
    let n = long.len();
    long[n - 2] = 2;
    assert_fails("truncated.spv", &long, "declares 2 words but only 1 remain");
    let mut zero = good.to_vec();
    // The first instruction's word count (bytes 22..24 of word 5, little-endian) set to zero.
    zero[22] = 0;
    zero[23] = 0;
    assert_fails("zero.spv", &zero, "word count of zero");
    let mut bound = good.to_vec();
    bound[12..16].copy_from_slice(&2u32.to_le_bytes());
    assert_fails("bound.spv", &bound, "not below the module's <id> bound 2");

    let missing = pops_testkit::scratch("inspect-missing").join("no-such-file.spv");
    let out = pops(&[missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A module a driver rejects on sight is named as invalid, with the word, and exit 1.
#[test]
fn invalid_modules_are_named_with_the_word() {
    let good = words_of(corpus::get("pixel_interlock_ordered.frag").unwrap().spirv);
    // The first instruction is OpCapability Shader (words 5 and 6): an unknown capability.
    assert_eq!(good[5], (2 << 16) | 17);
    let mut cap = good.clone();
    cap[6] = 0xdead;
    assert_fails(
        "unknown-capability.spv",
        &bytes_of(&cap),
        "invalid SPIR-V, a Vulkan driver rejects it: word 6: capability 57005 in OpCapability is not a value of the grammar's Capability",
    );
    // Without its OpMemoryModel (3 words, opcode 14).
    let at = good
        .iter()
        .position(|w| *w == (3 << 16) | 14)
        .expect("OpMemoryModel");
    let mut no_mm = good.clone();
    no_mm.drain(at..at + 3);
    assert_fails(
        "no-memory-model.spv",
        &bytes_of(&no_mm),
        "the module has no OpMemoryModel",
    );
}

/// `pops inspect` prints each entry point's stage hash: the value the layer reports for a stage
/// made from the module and entry point (and the same for the byte-swapped file).
#[test]
fn stage_hash_is_the_layers() {
    let s = corpus::get("pixel_interlock_ordered.frag").unwrap();
    let v = inspect_json("hash_le.spv", s.spirv);
    let want = shaders::spirv::stage_hash(&s.words(), "main", None);
    assert_eq!(v["entry_points"][0]["stage_hash"], want.as_str());
    let be: Vec<u8> = s.words().iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(
        inspect_json("hash_be.spv", &be)["entry_points"][0]["stage_hash"],
        want.as_str()
    );
}
