//! `pops report --html`, looked at in a real browser: Debian's headless Chromium renders the page
//! of a real report (the layer's report of nvpro's OIT sample on an H100, with a device-lost line
//! added in a second report file). The screenshot must show the device loss above the table and
//! the chart's bars; the DOM must hold what the JSON holds — the object's stage hash, mode, POPS
//! fields and finding, the loss's sentence, and the interlocked GPU time's minimum, median and
//! maximum, computed here from the timing lines themselves.

mod common;

use pops_testkit::browser::{chromium_or_skip, dom, find, screenshot};
use serde_json::Value;
use std::path::Path;

const NVPRO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs/experiments-h100/timing-nvpro-msaa8-none.jsonl"
);

const LOST: &str = r#"{"schema_version":1,"app":"vk_oit","device":"NVIDIA H100 PCIe","kind":"device_lost","chip":"navi31","call":"vkQueueSubmit","queue":"0x5","message":"device lost (vkQueueSubmit on queue 0x5): 0 interlocked draw state(s) in flight, 1 at the loss, 0 just before it; pipeline 0x10 (pixel-ordered, 8 sample(s))","in_flight":[],"at_loss":[{"record":1,"queue":"0x5","submission":7,"command_buffer":"0xc0","handle":"0x10","bound":"pipeline","stage_hash":"d249ceecbd601dbf","interlock":"pixel-ordered","samples":8,"chip":"navi31","draws":3,"registers":null,"diagnostics":[{"severity":"warning","code":"pixel-interlock-with-msaa","message":"m"}]}],"recent":[],"not_kept":0}"#;

/// Interlocked GPU time (ms) of each frame or submission that drew with interlock, sorted, as
/// the report's timing lines hold it.
fn interlocked_ms(lines: &[Value]) -> Vec<f64> {
    let mut ms: Vec<f64> = lines
        .iter()
        .filter(|l| {
            l["kind"] == "timing" && l["scope"] != "object" && l["ranges"].as_u64() > Some(0)
        })
        .map(|l| l["interlocked_ns"].as_u64().unwrap() as f64 / 1e6)
        .collect();
    ms.sort_by(f64::total_cmp);
    ms
}

#[test]
fn the_report_page_shows_the_loss_the_table_and_the_chart_in_a_browser() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = common::fresh_path("report-html");
    std::fs::create_dir_all(&dir).unwrap();
    let lost = dir.join("lost.jsonl");
    std::fs::write(&lost, format!("{LOST}\n")).unwrap();
    let page = dir.join("report.html");
    let out = common::pops()
        .args(["report", "--html"])
        .arg(&page)
        .arg(NVPRO)
        .arg(&lost)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("pops report: DEVICE LOST"), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    for external in ["http://", "https://", "<script", "src=", "href="] {
        let allowed = external == "http://"
            && html.matches("http://").count() == 1
            && html.contains("xmlns=\"http://www.w3.org/2000/svg\"");
        assert!(
            allowed || !html.contains(external),
            "the page refers to {external}"
        );
    }

    // The DOM, as the browser built it.
    let dom = dom(browser, &page);
    let lines: Vec<Value> = std::fs::read_to_string(NVPRO)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rec = lines.iter().find(|l| l["kind"] == "pipeline").unwrap();
    for want in [
        rec["stage_hash"].as_str().unwrap(),
        rec["interlock"].as_str().unwrap(),
        "OVERRIDE_INTRINSIC_RATE_ENABLE=1",
        "pixel-interlock-with-msaa",
        "Device lost: NVIDIA H100 PCIe",
        "0 interlocked draw state(s) in flight, 1 at the loss",
    ] {
        assert!(dom.contains(want), "the page lacks {want:?}");
    }
    // What the terminal has: the key to the fields, and each finding explained in words.
    assert!(
        dom.contains("Key: ") && dom.contains("turns POPS on for the draw"),
        "the page lacks the key"
    );
    let finding = rec["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "pixel-interlock-with-msaa")
        .expect("the record's finding");
    let said = maud::html! { (finding["message"].as_str().unwrap()) }.into_string();
    assert!(
        dom.contains("id=\"findings\"") && dom.contains(&said),
        "the page does not explain the finding: {said}"
    );
    assert!(dom.contains("<td class=\"mode\">"), "mode names may wrap");
    assert!(!dom.contains("No GPU time was recorded"));
    let ms = interlocked_ms(&lines);
    assert!(!ms.is_empty());
    let median = if ms.len() % 2 == 1 {
        ms[ms.len() / 2]
    } else {
        (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0
    };
    let spread = format!(
        "min {:.3} ms, median {:.3} ms, max {:.3} ms over {}",
        ms[0],
        median,
        ms[ms.len() - 1],
        ms.len()
    );
    assert!(dom.contains(&spread), "the page lacks {spread:?}");
    assert_eq!(
        dom.matches("<rect class=\"bar\"").count(),
        ms.len(),
        "one bar per submission"
    );

    // The picture.
    let shot = dir.join("report.png");
    screenshot(browser, &page, &shot);
    let (lost_at, lost_px) = find(&shot, [0xc0, 0x39, 0x2b]);
    let (header_at, header_px) = find(&shot, [0x24, 0x42, 0x5e]);
    let (_, bar_px) = find(&shot, [0x2e, 0x86, 0xc1]);
    assert!(
        lost_px > 1000,
        "the device-lost box is not drawn ({lost_px} px)"
    );
    assert!(header_px > 10_000, "no table header drawn ({header_px} px)");
    assert!(bar_px > 10_000, "no chart bars drawn ({bar_px} px)");
    assert!(lost_at < header_at, "the loss is shown first");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `pops compare --from-reports … --html`, looked at in the browser: the two stored H100 runs of
/// nvpro's sample (8× MSAA, without and with `pixel-to-sample`) as a comparison page. The
/// screenshot shows both sides' bars (blue and orange) and the table; the DOM holds the ratio of
/// the medians of the interlocked work per submission, computed here from the JSON.
#[test]
fn the_compare_page_shows_both_sides_in_a_browser() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = common::fresh_path("compare-html");
    std::fs::create_dir_all(&dir).unwrap();
    let h100 = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/experiments-h100");
    let runs = [
        ("none_1.jsonl", "timing-nvpro-msaa8-none.jsonl"),
        (
            "pixel-to-sample_1.jsonl",
            "timing-nvpro-msaa8-pixel-to-sample.jsonl",
        ),
    ];
    let mut medians = Vec::new();
    for (name, src) in runs {
        std::fs::copy(Path::new(h100).join(src), dir.join(name)).unwrap();
        let lines: Vec<Value> = std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let ms = interlocked_ms(&lines);
        medians.push(ms[ms.len() / 2]);
    }
    let page = dir.join("compare.html");
    let out = common::pops()
        .args([
            "compare",
            "--experiment",
            "pixel-to-sample",
            "--from-reports",
            "--reports",
        ])
        .arg(&dir)
        .arg("--html")
        .arg(&page)
        .args(["--", "vk_order_independent_transparency"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = dom(browser, &page);
    let ratio = format!("{:.3}", medians[1] / medians[0]);
    assert!(
        dom.contains(&format!("<td class=\"num\">{ratio}</td>")),
        "the page lacks the ratio {ratio}"
    );
    let shot = dir.join("compare.png");
    screenshot(browser, &page, &shot);
    let (_, blue) = find(&shot, [0x2e, 0x86, 0xc1]);
    let (_, orange) = find(&shot, [0xe6, 0x7e, 0x22]);
    let (_, header) = find(&shot, [0x24, 0x42, 0x5e]);
    assert!(
        blue > 10_000 && orange > 5_000,
        "bars: {blue} blue, {orange} orange px"
    );
    assert!(header > 10_000, "no table header drawn ({header} px)");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A report without timing lines: the page says that no GPU time was recorded and how to record
/// it, instead of leaving the chart out without a word.
#[test]
fn a_page_without_timing_says_so() {
    let dir = common::fresh_path("report-html-no-timing");
    std::fs::create_dir_all(&dir).unwrap();
    let lines: String = std::fs::read_to_string(NVPRO)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"kind\":\"timing\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let report = dir.join("no-timing.jsonl");
    std::fs::write(&report, lines).unwrap();
    let page = dir.join("report.html");
    let out = common::pops()
        .args(["report", "--html"])
        .arg(&page)
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("No GPU time was recorded"), "{html}");
    assert!(html.contains("VK_POPS_INTERLOCK_TIMING=1"), "{html}");
    assert!(!html.contains("<svg"), "{html}");
    std::fs::remove_dir_all(&dir).unwrap();
}
