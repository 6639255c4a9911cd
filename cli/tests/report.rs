//! `pops report` on a report the layer wrote on another machine (an NVIDIA H100 running nvpro's
//! vk_order_independent_transparency, docs/oit-nvpro.md).

use std::process::Command;

fn pops(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(args)
        .output()
        .expect("run pops")
}

/// What `pops report FILE` printed, after checking that it succeeded.
fn report(file: &str) -> String {
    let out = pops(&["report", file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn summarises_a_report_from_another_machine() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/oit-nvpro-h100/report-excerpt.jsonl"
    );
    let text = report(file);
    assert!(
        text.contains("3 pipeline(s) reported, 3 with fragment shader interlock; 3 draw(s)"),
        "{text}"
    );
    // Every pipeline is told apart by its stage hash and samples, and carries the name the
    // application gave it after creation.
    for (hash, samples) in [
        ("738f3868b00d828d", "1"),
        ("d249ceecbd601dbf", "4"),
        ("d249ceecbd601dbf", "8"),
    ] {
        assert!(
            text.lines().any(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                l.contains("pipeline 'InterlockColor'")
                    && l.contains(hash)
                    && words.windows(2).any(|w| w == [samples, "pixel"])
            }),
            "{hash} {samples} pixel: {text}"
        );
    }
    // The columns line up: every row's interlock starts where the header's does.
    let header = text.lines().find(|l| l.contains("stage hash")).unwrap();
    let at = header.find("interlock").unwrap();
    for l in text.lines().filter(|l| l.contains("pixel-ordered")) {
        assert_eq!(l.find("pixel-ordered"), Some(at), "{text}");
    }
}

#[test]
fn a_missing_or_empty_report_is_refused_by_name() {
    let out = pops(&["report", "/nonexistent/report.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/report.jsonl"), "{err}");
    let empty = pops_testkit::scratch("empty").join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = pops(&["report", empty.to_str().unwrap()]);
    std::fs::remove_file(&empty).ok();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no records"));
}

/// A report of nothing but bad lines names each line and its reason before saying it holds no
/// records.
#[test]
fn a_report_of_bad_lines_names_each_one() {
    let bad = pops_testkit::scratch("bad-lines").join("bad.jsonl");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, "x\n{\"kind\": 3}\n").unwrap();
    let out = pops(&["report", bad.to_str().unwrap()]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 line(s) are not report lines"), "{err}");
    assert!(
        err.contains("line 1: ") && err.contains("line 2: "),
        "{err}"
    );
    assert!(err.contains("holds no records"), "{err}");
}

/// Timing lines (the layer's `timing` setting) from the H100: the GPU time of the interlocked
/// work per submission and per pipeline, with the experiment's change (docs/experiments.md).
#[test]
fn summarises_timing_lines_from_another_machine() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/experiments-h100/timing-nvpro-msaa8-pixel-to-sample.jsonl"
    );
    let text = report(file);
    assert!(!text.contains("not JSON objects"), "{text}");
    assert!(
        text.contains("GPU time of interlocked work (timing): 648.063 ms in 30 range(s), over 3 submission(s) with interlocked work"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.contains("InterlockColor")
            && l.contains("sample-ordered (pixel-ordered -> sample-ordered)")
            && l.contains("648.063 ms")),
        "{text}"
    );
}

/// One creation record of today's layer with a verify_isa verdict (`driver` as the layer reads it
/// from VkPhysicalDeviceDriverProperties).
fn verdict_line(
    id: u64,
    kind: &str,
    chip: &str,
    driver: &str,
    code: &str,
    message: &str,
) -> String {
    serde_json::json!({
        "schema_version": 2, "id": id, "app": "app", "device": "AMD Radeon (RADV)", "kind": kind,
        "handle": format!("0x{id:x}"), "entry_point": "main", "interlock": "pixel-ordered",
        "begin_count": 1, "end_count": 1, "per_sample": false, "samples": 1, "chip": chip,
        "driver": driver, "source": "shader_module",
        "diagnostics": [{ "severity": "error", "code": code, "message": message }],
    })
    .to_string()
}

/// A finding that matches the known-defect table says which defect it
/// is, one that matches none says it is new — in `pops report`, its page, and the reports for
/// Mesa's tracker that `--defects` writes. GFX11: "The same requirements for awaiting the memory
/// access counters as on GFX9–10.3 still apply."
#[test]
fn driver_findings_are_known_defects_or_new_in_the_report_and_its_page() {
    let dir = pops_testkit::scratch("report-defects");
    let file = dir.join("r.jsonl");
    let gap = "isa-ordered-section-open-at-epilog";
    let lines = [
        verdict_line(1, "shader_object", "navi31", "radv (Mesa 26.2.6-1)", gap, "the PS epilog's export with done resumes the overlapped waves while vector memory accesses are outstanding"),
        verdict_line(2, "pipeline", "navi21", "radv (Mesa 26.2.6-1)", gap, "the jump into the PS epilog before ORDERED_PS_DONE"),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (page, issues) = (dir.join("page.html"), dir.join("issues"));
    let out = pops(&[
        "report",
        "--html",
        page.to_str().unwrap(),
        "--defects",
        issues.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("verify_isa on navi31 with radv (Mesa 26.2.6-1): 1 interlocked pipeline(s), librar(ies) and shader object(s): 0 verified clean, 1 with isa-ordered-section-open-at-epilog"),
        "{text}"
    );
    let known = text
        .lines()
        .find(|l| l.contains("on navi31 with") && l.contains("finding"))
        .unwrap_or("");
    assert!(
        known.contains(
            "known defect aco-epilog-store-gap of RADV ACO, Mesa 26.1.0 to at least 26.2.6"
        ),
        "{text}"
    );
    // GFX10.3 ends its section with ORDERED_PS_DONE before the jump: the gap is not known there.
    let new = text
        .lines()
        .find(|l| l.contains("on navi21 with") && l.contains("finding"))
        .unwrap_or("");
    assert!(
        new.contains("NEW: no known driver defect explains this finding"),
        "{text}"
    );
    assert!(text.contains("a finding above is NEW"), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Driver defects found") && html.contains("class=\"defect new\""),
        "{html}"
    );
    let issue = std::fs::read_to_string(issues.join("aco-epilog-store-gap.md")).unwrap();
    for part in [
        "#### Steps to reproduce",
        "#### Expected behaviour",
        "#### Actual behaviour",
        "s_waitcnt_vscnt null, 0x0",
        "Seen by pops on: navi31 with radv (Mesa 26.2.6-1)",
        "#### Suggested fix",
        "vector memory accesses are outstanding",
    ] {
        assert!(issue.contains(part), "{part}: {issue}");
    }
    assert_eq!(
        std::fs::read_dir(&issues).unwrap().count(),
        1,
        "a report for the known defect only"
    );
}

/// `pops defects`: the table, one defect for the tracker, an unknown id refused by name.
#[test]
fn defects_lists_the_table_and_writes_a_tracker_report() {
    let list = pops(&["defects"]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(list.status.success());
    assert!(
        text.contains("aco-epilog-store-gap") && text.contains("radv-pops-drain-left-on"),
        "{text}"
    );
    let one = pops(&["defects", "--issue", "aco-epilog-store-gap"]);
    assert!(one.status.success());
    assert!(String::from_utf8_lossy(&one.stdout).contains("Regression"));
    let bad = pops(&["defects", "--issue", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no known defect of that id"));
}
