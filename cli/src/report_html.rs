//! `pops report --html`: one self-contained page of a layer report — a device loss first, the
//! interlocked pipelines, shader objects and draws with their POPS fields and findings, and the
//! interlocked GPU time per frame as an inline SVG chart. No script, no network, no external
//! asset: the page opens anywhere. Pure (the report's summary in, the page out); the markup is
//! maud's, so every value from the report is escaped by construction.

use crate::cmd_run::{PipelineRow, Summary};
use crate::timing_stats::{RunTiming, Spread};
use maud::{html, Markup, PreEscaped, DOCTYPE};

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
.sev { display: inline-block; border-radius: 3px; padding: 0 5px; margin: 1px; font-size: 12px; }
.error { background: #c0392b; color: #fff; } .warning { background: #e67e22; color: #fff; }
.info { background: #d6e4f0; color: #1d1d1f; }
.bar { fill: #2e86c1; } .axis { stroke: #888; stroke-width: 1; } .label { font-size: 11px; fill: #333; }
";

/// The page of reports summarised together in `s`, with each report's timing lines on their
/// own (`timings`: report name and its lines; frames of different runs are not one series).
pub fn page(title: &str, s: &Summary, timings: &[(String, Vec<pops_report::Timing>)]) -> String {
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
                (objects(s))
                @for (name, lines) in timings {
                    (chart(name, &RunTiming::from_lines(lines)))
                }
            }
        }
    };
    doc.into_string()
}

fn severities(diags: &[(String, String)]) -> Markup {
    html! {
        @for sev in ["error", "warning", "info"] {
            @for (s, code) in diags.iter().filter(|(s, _)| s == sev) {
                span class={ "sev " (s) } { (code) }
            }
        }
    }
}

fn fields(f: &[(String, u64)]) -> Markup {
    html! {
        @for (k, v) in f { code { (k) "=" (v) } " " }
    }
}

fn device_lost(l: &pops_report::DeviceLost) -> Markup {
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
                            td { (fields(&crate::cmd_run::key_fields(d.registers.as_ref()))) }
                            td { (severities(&d.diagnostics.iter().map(|x| (x.severity.name().to_string(), x.code.clone())).collect::<Vec<_>>())) }
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
            td { (r.kind) " " (r.name.as_deref().map_or_else(|| r.handle.clone(), |n| format!("'{n}'"))) }
            td { code { (r.stage_hash) } }
            td { (r.interlock) @if let Some(e) = &r.experiment { br; small { (e) } } }
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
