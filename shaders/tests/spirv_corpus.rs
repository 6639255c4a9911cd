//! Every shader of `shaders/glsl/`, compiled by the real tools, analyses exactly as the `expect`
//! comments in its source say, and every compiled module passes `spirv-val`.

use shaders::corpus::{self, CorpusShader};
use shaders::spirv::{analyze, analyze_bytes, EntryPointInfo, ExecutionModel};
use std::collections::BTreeMap;
use std::process::Command;

/// `expect[ENTRY]: key=value ...` lines (after `//`, `;` or `#`); a plain `expect:` is for `main`.
fn expectations(s: &CorpusShader) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    for line in s.source.lines() {
        let l = line.trim_start_matches(['/', ';', '#', ' ']);
        let Some(rest) = l.strip_prefix("expect") else {
            continue;
        };
        let (entry, kv) = match rest.strip_prefix('[') {
            Some(r) => {
                let (e, kv) = r.split_once("]:").expect("expect[NAME]: ...");
                (e.to_string(), kv)
            }
            None => (
                "main".to_string(),
                rest.strip_prefix(':').expect("expect: ..."),
            ),
        };
        let map = kv
            .split_whitespace()
            .map(|p| {
                let (k, v) = p.split_once('=').expect("key=value");
                (k.to_string(), v.to_string())
            })
            .collect();
        out.push((entry, map));
    }
    out
}

fn actual(e: &EntryPointInfo) -> BTreeMap<String, String> {
    let model = e.execution_model.name().unwrap_or("unknown");
    [
        ("model", model.to_string()),
        (
            "interlock",
            e.interlock
                .map_or("none".to_string(), |m| m.name().to_string()),
        ),
        ("begin", e.begin_count.to_string()),
        ("end", e.end_count.to_string()),
        (
            "begin_divergent",
            e.begin_in_divergent_control_flow.to_string(),
        ),
        ("end_divergent", e.end_in_divergent_control_flow.to_string()),
        ("per_sample", e.per_sample.to_string()),
        ("writes_memory", e.writes_memory.to_string()),
        ("accesses_memory", e.accesses_memory.to_string()),
        ("color", e.has_color_output.to_string()),
        ("early", e.early_fragment_tests.to_string()),
        ("sample_mask", e.reads_sample_mask.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn corpus_covers_the_issue_list() {
    for name in [
        "pixel_interlock_ordered.frag",
        "pixel_interlock_unordered.frag",
        "sample_interlock_ordered.frag",
        "sample_interlock_unordered.frag",
        "shading_rate_interlock_ordered.frag",
        "shading_rate_interlock_unordered.frag",
        "oit_interlock.frag",
        "oit_interlock_sample.frag",
        "coverage_mask_interlock.frag",
        "interlock_reads_only.frag",
        "no_color_output.frag",
        "input_attachment_interlock.frag",
        "interlock_buffer_reference.frag",
        "divergent_interlock.spvasm",
        "multi_entry_linked.link",
        "fullscreen.vert",
    ] {
        assert!(
            corpus::get(name).is_some(),
            "{name} missing from the corpus"
        );
    }
    assert_eq!(
        corpus::get("oit_interlock").map(|s| s.name),
        Some("oit_interlock.frag")
    );
}

#[test]
fn analysis_matches_every_shader_expectation() {
    let mut checked = 0;
    for s in corpus::all() {
        let exp = expectations(s);
        assert!(!exp.is_empty(), "{}: no expect comment", s.name);
        let info = analyze_bytes(s.spirv).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(
            info.entry_points.len(),
            exp.len(),
            "{}: entry points {:?}",
            s.name,
            info.entry_points
                .iter()
                .map(|e| &e.name)
                .collect::<Vec<_>>()
        );
        for (entry, want) in exp {
            let e = info
                .entry_points
                .iter()
                .find(|e| e.name == entry)
                .unwrap_or_else(|| panic!("{}: no entry point {entry}", s.name));
            let got = actual(e);
            for (k, v) in &want {
                assert_eq!(
                    got.get(k),
                    Some(v),
                    "{} entry {entry}: {k} (full analysis {e:#?})",
                    s.name
                );
            }
            assert_eq!(
                want.len(),
                got.len(),
                "{}: expect line must name every key",
                s.name
            );
            assert_eq!(
                e.interlock_sites
                    .iter()
                    .filter(|x| x.is_begin)
                    .map(|x| x.paths)
                    .sum::<u32>(),
                e.begin_count
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} entry points checked");
}

#[test]
fn words_and_bytes_in_both_orders_agree() {
    for s in corpus::all() {
        let words = s.words();
        let a = analyze(&words).unwrap();
        let swapped: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
        assert_eq!(analyze(&swapped).unwrap(), a, "{}", s.name);
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(analyze_bytes(&be).unwrap(), a, "{}", s.name);
    }
}

#[test]
fn helper_sites_name_their_function() {
    let s = corpus::get("divergent_interlock.spvasm").unwrap();
    let info = analyze_bytes(s.spirv).unwrap();
    let e = info
        .entry_point("helper_twice", ExecutionModel::Fragment)
        .unwrap();
    assert_eq!(e.interlock_sites.len(), 2);
    for site in &e.interlock_sites {
        assert_eq!(site.function_name.as_deref(), Some("interlocked_increment"));
        assert_eq!(site.paths, 2);
        assert!(!site.divergent);
    }
}

#[test]
fn every_module_passes_spirv_val() {
    let dir = pops_testkit::scratch("spirv-val");
    std::fs::create_dir_all(&dir).unwrap();
    for s in corpus::all() {
        let path = dir.join(format!("{}.spv", s.name));
        std::fs::write(&path, s.spirv).unwrap();
        let out = match Command::new("spirv-val")
            .args(["--target-env", "vulkan1.2"])
            .arg(&path)
            .output()
        {
            Ok(o) => o,
            Err(e) => {
                if std::env::var_os("CI").is_some() {
                    panic!("spirv-val not runnable in CI: {e}");
                }
                pops_testkit::skipped(format!(
                    "spirv-val not runnable ({e}); install scripts/install-deps.sh"
                ));
                return;
            }
        };
        assert!(
            out.status.success(),
            "{}: spirv-val: {}",
            s.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every corpus module, which spirv-val accepts, also passes the on-sight validity check: it
/// refuses nothing a real compiler produces.
#[test]
fn every_module_passes_the_validity_check() {
    for s in corpus::all() {
        let words = s.words();
        assert_eq!(
            shaders::spirv::validity::check(&words),
            Ok(()),
            "{}",
            s.name
        );
    }
}
