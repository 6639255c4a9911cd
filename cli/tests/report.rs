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
