//! `pops report --html`: one self-contained page of a layer report — a device loss first, the
//! interlocked pipelines, shader objects and draws with their POPS fields and findings, and the
//! interlocked GPU time per frame as an inline SVG chart. No script, no network, no external
//! asset: the page opens anywhere. Pure (the report's summary in, the page out); the markup is
//! maud's, so every value from the report is escaped by construction.

use crate::submitted_check::ChipVerdict;
use crate::summary::{PipelineRow, Summary};
use crate::timing_stats::{RunTiming, Spread};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use pops_report::Severity;

const STYLE: &str = "
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d1d1f; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: #555; margin-bottom: 16px; }
table { border-collapse: collapse; width: 100%; }
th { background: #24425e; color: #fff; text-align: left; padding: 6px 8px; font-weight: 600; }
td { border-bottom: 1px solid #ddd; padding: 5px 8px; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, monospace; }
.lost { border: 3px solid #c0392b; background: #fdecea; padding: 10px 14px; margin: 12px 0; }
.lost h2 { color: #c0392b; margin-top: 0; }
.nothing-rendered { border: 2px solid #e67e22; background: #fef5e7; padding: 8px 12px; font-weight: 600; }
.verdict { border-left: 5px solid #1e8449; background: #eafaf1; padding: 6px 14px; margin: 12px 0; }
.verdict.bad { border-color: #c0392b; background: #fdecea; } .verdict h2 { margin-top: 4px; }
.sev { display: inline-block; border-radius: 3px; padding: 0 5px; margin: 1px; font-size: 12px; }
.error { background: #c0392b; color: #fff; } .warning { background: #e67e22; color: #fff; }
.info { background: #d6e4f0; color: #1d1d1f; }
td.mode { white-space: nowrap; } .key { color: #333; max-width: 70em; }
.defect { border-left: 5px solid #e67e22; background: #fef5e7; padding: 6px 14px; margin: 8px 0; }
.defect.new { border-color: #c0392b; background: #fdecea; }
dt { font-weight: 600; margin-top: 6px; } dd { margin: 2px 0 0 18px; }
.bar { fill: #2e86c1; } .axis { stroke: #888; stroke-width: 1; } .label { font-size: 11px; fill: #333; }
";

/// The page of reports summarised together in `s`, with each report's timing lines on their
/// own (`timings`: report name and its lines; frames of different runs are not one series), and
/// the verdict of each run on the amdgpu shim among them (`verdicts`).
pub fn page(
    title: &str,
    s: &Summary,
    timings: &[(String, Vec<pops_report::Timing>)],
    verdicts: &[ChipVerdict],
) -> String {
    let doc = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "pops report: " (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "pops report" }
                div.sub { (title) }
                @for l in &s.device_lost { (device_lost(l)) }
                @if let Some(w) = crate::summary::nothing_rendered(s) {
                    p.nothing-rendered { (w) }
                }
                @for v in verdicts { (verdict(v)) }
                (verification(s))
                (objects(s))
                p.key { b { "Key: " } (crate::summary::KEY) }
                (findings(s))
                @if timings.iter().all(|(_, lines)| lines.is_empty()) {
                    p.no-timing { "No GPU time was recorded: the layer measures the GPU time of interlocked draws with its " code { "timing" } " setting (" code { "VK_POPS_INTERLOCK_TIMING=1" } "; " code { "pops compare" } " turns it on), on a device that executes them." }
                }
                @for (name, lines) in timings {
                    (chart(name, &RunTiming::from_lines(lines)))
                }
            }
        }
    };
    doc.into_string()
}

/// A run on the amdgpu shim: the chip's verdict, the shim's complaints and the notes on the
/// fields where pops and RADV differ on purpose. Nothing was rendered there, and the block
/// says so in the sentence.
fn verdict(v: &ChipVerdict) -> Markup {
    html! {
        div class={ "verdict " (if v.ok { "ok" } else { "bad" }) } {
            h2 { (v.chip) ": what RADV submitted" }
            p.sentence { (v.sentence) }
            @for e in &v.events { p { "The amdgpu shim: " code { (e) } } }
            @if !v.notes.is_empty() {
                dl.notes {
                    @for (n, field, reason) in &v.notes {
                        dt { "[" (n) "] " code { (field) } } dd { (reason) }
                    }
                }
            }
        }
    }
}

fn severities(diags: &[(Severity, pops_report::Code)]) -> Markup {
    html! {
        @for sev in [Severity::Error, Severity::Warning, Severity::Info] {
            @for (_, code) in diags.iter().filter(|(s, _)| *s == sev) {
                span class={ "sev " (sev.name()) } { (code.name()) }
            }
        }
    }
}

fn fields(f: &[(String, u64)]) -> Markup {
    html! {
        @for (k, v) in f { code { (k) "=" (v) } " " }
    }
}

fn device_lost(l: &pops_report::read::ResolvedLost) -> Markup {
    html! {
        div.lost id="device-lost" {
            h2 { "Device lost: " (l.device) }
            p { (l.message) }
            table {
                tr { th { "list" } th { "submission" } th { "object" } th { "command buffer" }
                     th { "draws" } th { "interlock" } th { "samples" } th { "chip" } th { "POPS fields" } th { "findings" } }
                @for (title, list) in [("in flight", &l.in_flight), ("at the loss", &l.at_loss), ("just before", &l.recent)] {
                    @for d in list.iter() {
                        tr {
                            td { (title) }
                            td.num { (d.submission) }
                            td { (d.bound) " " (d.name.clone().unwrap_or_else(|| d.handle.clone())) }
                            td { code { (d.command_buffer) } }
                            td.num { (d.draws) }
                            td { (d.interlock) }
                            td.num { (d.samples.map_or("dynamic".to_string(), |n| n.to_string())) }
                            td { (d.chip.as_deref().unwrap_or("-")) }
                            td { (fields(&crate::summary::key_fields(d.registers.as_deref()))) }
                            td { (severities(&d.diagnostics.iter().map(|x| (x.severity, x.code)).collect::<Vec<_>>())) }
                        }
                    }
                }
            }
            @if let Some(f) = &l.fault {
                p { "Driver's fault description: " (f.description) }
                @for a in &f.addresses { p { (a.kind) " at " code { (a.address) } " (within " (a.precision) " bytes)" } }
            }
        }
    }
}

fn row(r: &PipelineRow) -> Markup {
    html! {
        tr {
            td { (r.label()) }
            td { code { (r.stage_hash) } }
            td.mode { (r.interlock) @if let Some(e) = &r.experiment { br; small { (e) } } }
            td.num { (r.samples.map_or("?".to_string(), |n| n.to_string())) }
            td { @if r.per_sample { "sample" } @else { "pixel" } }
            td { (r.chip.as_deref().unwrap_or("-")) }
            td.num { @if let Some((d, recs)) = r.draws { (d) " (" (recs) ")" } @else { "-" } }
            td { (fields(&r.fields)) }
            td { (severities(&r.diagnostics)) }
        }
    }
}

fn objects(s: &Summary) -> Markup {
    html! {
        h2 { "Interlocked pipelines, shader objects and draws" }
        p { (s.records) " record(s); " (s.interlocked.len()) " row(s) with interlock (draw rows summed per object and state)." }
        table id="objects" {
            tr { th { "object" } th { "stage hash" } th { "interlock" } th { "samples" } th { "rate" }
                 th { "chip" } th { "draws (records)" } th { "POPS fields" } th { "findings" } }
            @for r in &s.interlocked { (row(r)) }
        }
    }
}

/// What verify_isa concluded per chip and driver, then each driver finding: the known defect it
/// is (orange), or new (red).
fn verification(s: &Summary) -> Markup {
    let v = &s.verification;
    if v.chips.is_empty() && v.defects.is_empty() {
        return html! {};
    }
    html! {
        h2 { "The driver's code, verified" }
        ul id="verification" {
            @for c in &v.chips {
                li {
                    b { (c.chip) } @if let Some(d) = &c.driver { " with " (d) } ": "
                    (c.objects) " interlocked pipeline(s), librar(ies) and shader object(s): "
                    (c.verified) " verified clean"
                    @for (code, n) in &c.findings { ", " (n) " with " code { (code) } }
                    @for (why, n) in &c.not_verified { ", " (n) " not verified (" (why) ")" }
                }
            }
        }
        @if !v.defects.is_empty() {
            h2 { "Driver defects found" }
            @for d in &v.defects {
                div class={ "defect" @if !d.known() { " new" } } {
                    code { (d.code) } " on " (d.chip.as_deref().unwrap_or("an unknown chip"))
                    @if let Some(drv) = &d.driver { " with " (drv) }
                    " (" (d.records) " record(s)): " (d.explained.words())
                }
            }
        }
    }
}

/// Each finding code of the rows, with what it says.
fn findings(s: &Summary) -> Markup {
    if s.findings.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Findings" }
        dl id="findings" {
            @for f in &s.findings {
                dt { span class={ "sev " (f.severity.name()) } { (f.code) } }
                dd { (f.message) }
            }
        }
    }
}

/// Interlocked GPU time per frame (or submission) as bars, in milliseconds.
fn chart(name: &str, t: &RunTiming) -> Markup {
    if t.frames.is_empty() {
        return html! {};
    }
    let ms: Vec<f64> = t.frames.iter().map(|ns| *ns as f64 / 1e6).collect();
    let top = ms.iter().cloned().fold(0.0f64, f64::max).max(1e-6);
    let (w, h, left, bottom) = (760.0, 220.0, 56.0, 24.0);
    let step = (w - left) / ms.len() as f64;
    let spread = Spread::of(&ms);
    let unit = if t.presented { "frame" } else { "submission" };
    html! {
        h2 { "Interlocked GPU time per " (unit) ": " (name) }
        @if let Some(s) = spread {
            p.timing-spread { "min " (format!("{:.3}", s.min)) " ms, median " (format!("{:.3}", s.median)) " ms, max " (format!("{:.3}", s.max)) " ms over " (ms.len()) " " (unit) "(s)" }
        }
        svg class="timing-chart" width=(w) height=(h + bottom) xmlns="http://www.w3.org/2000/svg" role="img" {
            line.axis x1=(left) y1=(h) x2=(w) y2=(h) {}
            line.axis x1=(left) y1="0" x2=(left) y2=(h) {}
            text.label x="2" y="12" { (format!("{top:.3} ms")) }
            text.label x="2" y=(h) { "0" }
            @for (i, v) in ms.iter().enumerate() {
                rect.bar x=(left + i as f64 * step + step * 0.1) y=(h - v / top * h)
                    width=((step * 0.8).max(1.0)) height=((v / top * h).max(0.5)) {
                    title { (unit) " " (i) ": " (format!("{v:.3}")) " ms" }
                }
            }
            text.label x=(left) y=(h + 16.0) { (unit) " 0" }
            text.label x=(w - 100.0) y=(h + 16.0) { (unit) " " (ms.len() - 1) }
        }
        @if !t.objects.is_empty() {
            h2 { "Interlocked GPU time per object: " (name) }
            table.timing-objects {
                tr { th { "object" } th { "interlock" } th { "GPU time" } }
                @for (k, (ns, mode)) in &t.objects {
                    tr { td { (k) } td { (mode) } td.num { (format!("{:.3}", *ns as f64 / 1e6)) " ms" } }
                }
            }
        }
    }
}

/// `--image` files: how many, the verdict, and each file's (crate::cmd_compare::output_verdicts).
pub type Outputs = (usize, String, Vec<(String, String)>);

/// What `pops compare --html` shows.
pub struct Comparison<'a> {
    pub program: &'a str,
    pub experiment: &'a str,
    pub base: &'a crate::timing_stats::Side,
    pub exp: &'a crate::timing_stats::Side,
    /// The program's exit statuses per side.
    pub codes: (&'a [u8], &'a [u8]),
    /// `--image` files: how many, the verdict, and each file's.
    pub outputs: Option<Outputs>,
}

fn spread_cell(s: Option<Spread>) -> Markup {
    html! {
        @match s {
            Some(s) => { (format!("{:.3}", s.min)) " / " b { (format!("{:.3}", s.median)) } " / " (format!("{:.3}", s.max)) }
            None => { "-" }
        }
    }
}

/// The page of one `pops compare`: both sides per object and per frame (min / median / max, the
/// ratio of medians), both sides' frames as a chart, the exit statuses and the outputs.
pub fn compare_page(c: &Comparison) -> String {
    use crate::timing_stats::{compare_rows, compare_unit};
    let rows = compare_rows(c.base, c.exp);
    let unit = compare_unit(c.base, c.exp);
    let (base_frames, exp_frames) = (c.base.frames(false), c.exp.frames(false));
    let doc = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "pops compare: " (c.experiment) " on " (c.program) }
                style { (PreEscaped(STYLE)) (PreEscaped(".exp { fill: #e67e22; }")) }
            }
            body {
                h1 { "pops compare: " (c.experiment) }
                div.sub { (c.program) ", " (c.base.runs.len()) " run(s) without and " (c.exp.runs.len()) " with the experiment, alternately" }
                h2 { "GPU time of interlocked work (ms; min / median / max)" }
                table id="compare" {
                    tr { th { "" } th { "without" } th { "with " (c.experiment) } th { "ratio of medians" } }
                    @for r in &rows {
                        tr {
                            td { (r.label) }
                            td.num { (spread_cell(r.base)) }
                            td.num { (spread_cell(r.exp)) }
                            td.num { (r.ratio.map_or("-".to_string(), |x| format!("{x:.3}"))) }
                        }
                    }
                }
                (pair_chart(unit, c.experiment, &base_frames, &exp_frames))
                @let failed = |v: &[u8]| v.iter().filter(|x| **x != 0).count();
                @if failed(c.codes.0) + failed(c.codes.1) > 0 {
                    h2 { "Exit statuses" }
                    p { "without: " (format!("{:?}", c.codes.0)) "; with " (c.experiment) ": " (format!("{:?}", c.codes.1)) }
                }
                @if let Some((n, verdict, files)) = &c.outputs {
                    h2 { "Output (" (n) " file(s)): " (verdict) }
                    table id="outputs" {
                        tr { th { "file" } th { "verdict" } }
                        @for (f, v) in files { tr { td { code { (f) } } td { (v) } } }
                    }
                }
            }
        }
    };
    doc.into_string()
}

/// Both sides' interlocked GPU time per frame, every run's frames in order, side by side.
fn pair_chart(unit: &str, experiment: &str, base: &[f64], exp: &[f64]) -> Markup {
    let n = base.len().max(exp.len());
    if n == 0 {
        return html! {};
    }
    let top = base
        .iter()
        .chain(exp)
        .cloned()
        .fold(0.0f64, f64::max)
        .max(1e-6);
    let (w, h, left) = (760.0, 220.0, 56.0);
    let step = (w - left) / n as f64;
    let bar = |i: usize, v: f64, k: f64| {
        (
            left + i as f64 * step + step * (0.1 + 0.4 * k),
            h - v / top * h,
            (step * 0.4).max(1.0),
            (v / top * h).max(0.5),
        )
    };
    html! {
        h2 { "Interlocked GPU time per " (unit) ": without (blue) and with " (experiment) " (orange)" }
        svg id="compare-chart" width=(w) height=(h + 24.0) xmlns="http://www.w3.org/2000/svg" role="img" {
            line.axis x1=(left) y1=(h) x2=(w) y2=(h) {}
            line.axis x1=(left) y1="0" x2=(left) y2=(h) {}
            text.label x="2" y="12" { (format!("{top:.3} ms")) }
            text.label x="2" y=(h) { "0" }
            @for (i, v) in base.iter().enumerate() {
                @let (x, y, bw, bh) = bar(i, *v, 0.0);
                rect.bar x=(x) y=(y) width=(bw) height=(bh) { title { "without, " (unit) " " (i) ": " (format!("{v:.3}")) " ms" } }
            }
            @for (i, v) in exp.iter().enumerate() {
                @let (x, y, bw, bh) = bar(i, *v, 1.0);
                rect.exp x=(x) y=(y) width=(bw) height=(bh) { title { "with, " (unit) " " (i) ": " (format!("{v:.3}")) " ms" } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing_stats::Side;

    fn side(path: &str) -> Side {
        let text = std::fs::read_to_string(format!(
            "{}/../docs/experiments-h100/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        Side {
            runs: vec![RunTiming::from_lines(
                &crate::summary::summarize(&text).timing,
            )],
        }
    }

    /// The comparison page of two H100 runs of nvpro's sample: both sides' frames as bars, the
    /// rows of the text table with the ratio of medians, the outputs; nothing external.
    #[test]
    fn the_compare_page_shows_both_sides_and_the_ratio() {
        let (base, exp) = (
            side("timing-nvpro-msaa8-none.jsonl"),
            side("timing-nvpro-msaa8-pixel-to-sample.jsonl"),
        );
        let page = compare_page(&Comparison {
            program: "vk_order_independent_transparency",
            experiment: "pixel-to-sample",
            base: &base,
            exp: &exp,
            codes: (&[0], &[0]),
            outputs: Some((
                1,
                "pixel-to-sample CHANGES the output".into(),
                vec![("a.png".into(), "CHANGED in 1 of 1 run(s)".into())],
            )),
        });
        let rows = crate::timing_stats::compare_rows(&base, &exp);
        let total = rows
            .iter()
            .find(|r| r.label == "all interlocked work, per run")
            .unwrap();
        let ratio = format!("{:.3}", total.ratio.unwrap());
        assert!(page.contains(&ratio), "{ratio}");
        assert_eq!(
            page.matches("<rect class=\"bar\"").count(),
            base.frames(false).len()
        );
        assert_eq!(
            page.matches("<rect class=\"exp\"").count(),
            exp.frames(false).len()
        );
        assert!(page.contains("CHANGED in 1 of 1 run(s)"));
        assert!(!page.contains("<script") && !page.contains("https://"));
    }
}
