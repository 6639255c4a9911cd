//! The text a report summary is shown as, on the terminal: the interlocked pipelines and draws,
//! the device losses first, the lines that are not report lines. Pure.

use crate::launch::Target;
use crate::summary::{key_fields, Summary};
use std::path::Path;

/// The summary table. Pure.
pub fn render_summary(s: &Summary, report: &Path, target: &Target, program: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "\npops run: report {}", report.display());
    if let Target::Null { chip, .. } = target {
        let _ = writeln!(
            o,
            "pops run: NOTHING WAS RENDERED: RADV null hardware ({}) only creates and compiles \
             pipelines; the rows below are what the driver would program.",
            chip.name()
        );
    }
    o.push_str(&render_bad_lines(s, "pops run"));
    o.push_str(&render_device_lost(&s.device_lost, "pops run"));
    if s.records == 0 {
        let _ = writeln!(
            o,
            "pops run: no pipelines reported: {program} created no pipeline through the layer \
             (not a Vulkan application, or it exited before creating one)."
        );
        o.push_str(&crate::timing_stats::render(&s.timing, "pops run"));
        return o;
    }
    o.push_str(&render_table(s, "pops run"));
    o
}

/// How many lines are not report lines, and the first few, each with why it is not. Pure.
pub fn render_bad_lines(s: &Summary, who: &str) -> String {
    use std::fmt::Write;
    if s.bad_lines == 0 {
        return String::new();
    }
    let mut o = format!("{who}: {} line(s) are not report lines:\n", s.bad_lines);
    for (n, why) in s.bad_line_numbers.iter().zip(&s.bad_reasons) {
        let _ = writeln!(o, "  line {n}: {why}");
    }
    let more = s.bad_lines - s.bad_line_numbers.len();
    if more > 0 {
        let _ = writeln!(o, "  and {more} more");
    }
    o
}

/// A report's device losses, first of all: the sentence, then each list's draws with their
/// key POPS fields and findings. Pure.
pub fn render_device_lost(lost: &[pops_report::read::ResolvedLost], who: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for l in lost {
        let _ = writeln!(o, "{who}: DEVICE LOST on '{}': {}", l.device, l.message);
        for (title, list) in [
            ("in flight", &l.in_flight),
            ("at the loss", &l.at_loss),
            ("just before", &l.recent),
        ] {
            for d in list {
                let name = match (&d.name, &d.module_name) {
                    (Some(n), _) => format!("'{n}'"),
                    (None, Some(m)) => format!("{} (module '{m}')", d.handle),
                    (None, None) => d.handle.clone(),
                };
                let fields = key_fields(d.registers.as_deref())
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                let diags = d
                    .diagnostics
                    .iter()
                    .map(|x| format!("{}:{}", x.severity.name(), x.code))
                    .collect::<Vec<_>>()
                    .join(", ");
                let _ = writeln!(
                    o,
                    "  {title:<12} submission {:>4}  {} {name} in command buffer {}: {} draw(s), {}, {} sample(s), chip {}{}{}",
                    d.submission,
                    d.bound,
                    d.command_buffer,
                    d.draws,
                    d.interlock,
                    d.samples.map_or("dynamic".to_string(), |n| n.to_string()),
                    d.chip.as_deref().unwrap_or("-"),
                    if fields.is_empty() { String::new() } else { format!("; {fields}") },
                    if diags.is_empty() { String::new() } else { format!("; {diags}") },
                );
            }
        }
        if l.not_kept > 0 {
            let _ = writeln!(
                o,
                "  ({} older submission(s) in flight not kept)",
                l.not_kept
            );
        }
        if let Some(f) = &l.fault {
            let _ = writeln!(o, "  driver's fault description: {}", f.description);
            for a in &f.addresses {
                let _ = writeln!(
                    o,
                    "    {} at {} (within {} bytes)",
                    a.kind, a.address, a.precision
                );
            }
            for v in &f.vendor {
                let _ = writeln!(
                    o,
                    "    vendor fault {}: code {:#x}, data {:#x}",
                    v.description, v.code, v.data
                );
            }
        }
    }
    o
}

/// The table of a report's interlocked pipelines and draws, each line prefixed by `who`. Pure.
pub fn render_table(s: &Summary, who: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let unknown = s
        .interlocked
        .iter()
        .filter(|r| r.interlock == pops_report::Interlock::Unknown)
        .count();
    // Command buffer recordings with interlocked draws (a version 2 record counts every
    // recording it adds up).
    let draw_records: u64 = s
        .interlocked
        .iter()
        .filter_map(|r| r.draws.map(|(_, records)| records))
        .sum();
    let created = s.created;
    let _ = writeln!(
        o,
        "{who}: {} pipeline(s) reported, {} with fragment shader interlock{}{}:",
        created,
        s.interlocked.iter().filter(|r| r.draws.is_none()).count() - unknown,
        if unknown > 0 {
            format!(", {unknown} whose interlock use the layer could not tell (see diagnostics)")
        } else {
            String::new()
        },
        if draw_records > 0 {
            let draws: u64 = s
                .interlocked
                .iter()
                .filter_map(|r| r.draws.map(|(d, _)| d))
                .sum();
            format!("; {draws} draw(s) with an interlocked fragment stage in {draw_records} command buffer recording(s), one row per object and state")
        } else {
            String::new()
        }
    );
    if s.interlocked.is_empty() {
        o.push_str(&crate::timing_stats::render(&s.timing, who));
        return o;
    }
    use crate::table::Align::{Left, Right};
    let mut rows = vec![[
        "#",
        "pipeline",
        "stage hash",
        "interlock",
        "samples",
        "rate",
        "chip",
        "draws (records)",
        "POPS register fields",
        "diagnostics",
    ]
    .map(String::from)
    .to_vec()];
    for (i, r) in s.interlocked.iter().enumerate() {
        let fields = if r.fields.is_empty() {
            match r.chip {
                None => "- (no AMD chip: pass --chip to model one)".to_string(),
                Some(_) => "- (no register state in the record)".to_string(),
            }
        } else {
            r.fields
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let diags = if r.diagnostics.is_empty() {
            "-".to_string()
        } else {
            r.diagnostics
                .iter()
                .map(|(sev, code)| format!("{sev}:{code}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        rows.push(vec![
            (i + 1).to_string(),
            r.label(),
            r.stage_hash.to_string(),
            r.interlock.to_string(),
            r.samples
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into()),
            if r.per_sample { "sample" } else { "pixel" }.to_string(),
            r.chip.as_deref().unwrap_or("-").to_string(),
            match r.draws {
                Some((d, records)) => format!("{d} ({records})"),
                None => "-".to_string(),
            },
            fields,
            diags,
        ]);
    }
    o.push_str(&crate::table::render(
        &rows,
        &[
            Right, Left, Left, Left, Right, Left, Left, Right, Left, Left,
        ],
        2,
    ));
    o.push_str(&crate::timing_stats::render(&s.timing, who));
    let _ = writeln!(o, "Key: {}", crate::summary::KEY);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::null_device::NullDevice;
    use crate::summary::{summarize, summarize_files};
    use pm4::Family;

    const RECORD: &str = r#"{"schema_version":1,"id":1,"app":"pops-oit","device":"Null hardware","kind":"pipeline","handle":"0x10","entry_point":"main","stage_hash":"0123456789abcdef","interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":8,"chip":"navi10","registers":{"DB_SHADER_CONTROL":{"address":163968,"value":196609,"fields":{"PRIMITIVE_ORDERED_PIXEL_SHADER":1,"POPS_OVERLAP_NUM_SAMPLES":3},"decided":["PRIMITIVE_ORDERED_PIXEL_SHADER"]},"DB_DFSM_CONTROL":{"address":163896,"value":6,"fields":{"PUNCHOUT_MODE":2,"POPS_DRAIN_PS_ON_OVERLAP":1},"decided":[]}},"pm4":[],"diagnostics":[{"severity":"warning","code":"pops-missed-overlap-workaround","message":"m"}],"source":"shader_module"}"#;

    #[test]
    fn summary_lists_interlocked_pipelines_with_key_fields() {
        let none = RECORD.replace("\"pixel-ordered\"", "\"none\"");
        let s = summarize(&format!("{RECORD}\n{none}\nnot json\n"));
        assert_eq!(s.records, 2);
        assert_eq!(s.bad_lines, 1);
        assert_eq!(s.bad_line_numbers, vec![3]);
        assert_eq!(s.interlocked.len(), 1);
        let r = &s.interlocked[0];
        assert_eq!(r.samples, Some(8));
        assert_eq!(
            r.fields,
            vec![
                ("PRIMITIVE_ORDERED_PIXEL_SHADER".to_string(), 1),
                ("POPS_OVERLAP_NUM_SAMPLES".to_string(), 3),
                ("POPS_DRAIN_PS_ON_OVERLAP".to_string(), 1),
                ("PUNCHOUT_MODE".to_string(), 2),
            ]
        );
        let t = Target::Null {
            chip: Family::Navi10,
            icd: "/i".into(),
            device: NullDevice::ForceFamily,
        };
        let text = render_summary(&s, Path::new("/r"), &t, "p");
        assert!(text.contains("NOTHING WAS RENDERED"));
        assert!(text.contains("warning:pops-missed-overlap-workaround"));
        assert!(text.contains("PRIMITIVE_ORDERED_PIXEL_SHADER=1"));
        assert!(text.contains("2 pipeline(s) reported, 1 with fragment shader interlock:"));
    }

    /// Draw records (one per command buffer and state) become one row per object and state
    /// with the draws summed; the creation record takes the name the draws carry.

    #[test]
    fn draw_records_are_summed_per_object_and_state() {
        let draw = |cb: &str, n: u64, samples: u64| {
            RECORD
                .replace("\"kind\":\"pipeline\"", "\"kind\":\"draw\"")
                .replace("\"samples\":8", &format!("\"samples\":{samples}"))
                .replace(
                    "\"pm4\":[]",
                    &format!(
                        "\"pm4\":[],\"command_buffer\":\"{cb}\",\"draws\":{n},\"name\":\"oit\""
                    ),
                )
        };
        let text = [
            RECORD.to_string(),
            draw("0x1", 3, 8),
            draw("0x2", 4, 8),
            draw("0x3", 1, 4),
        ]
        .join("\n");
        let s = summarize(&text);
        assert_eq!(s.records, 4);
        assert_eq!(s.interlocked.len(), 3);
        assert_eq!(s.interlocked[0].draws, None);
        assert_eq!(s.interlocked[0].name.as_deref(), Some("oit"));
        assert_eq!(s.interlocked[1].draws, Some((7, 2)));
        assert_eq!(s.interlocked[2].draws, Some((1, 1)));
        let out = render_summary(
            &s,
            Path::new("/r"),
            &Target::Real { device: "d".into() },
            "p",
        );
        assert!(out.contains("1 pipeline(s) reported, 1 with fragment shader interlock; 8 draw(s) with an interlocked fragment stage in 3 command buffer recording(s)"), "{out}");
        assert!(out.contains("7 (2)"), "{out}");
    }

    #[test]
    fn a_report_with_garbled_bytes_keeps_its_good_lines() {
        let dir = pops_testkit::scratch("run-garbled");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let mut bytes = RECORD.as_bytes().to_vec();
        bytes.extend_from_slice(b"\n{\"kind\":\"gra\xff\xfe\n{\"truncated\":\n");
        bytes.extend_from_slice(RECORD.as_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let s = summarize_files(&[&path]).unwrap();
        assert_eq!(s.records, 2);
        assert_eq!(s.bad_line_numbers, vec![2, 3]);
        // Each bad line is named with its own reason.
        let text = render_bad_lines(&s, "pops report");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].contains("2 line(s) are not report lines"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("  line 2: ") && lines[2].starts_with("  line 3: "),
            "{text}"
        );
        assert_ne!(lines[1][10..], lines[2][10..], "two reasons: {text}");
        // Two identical creation records are one row.
        assert_eq!(s.interlocked.len(), 1);
        let e = summarize_files(&[dir.join("absent.jsonl")])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot read the report") && e.contains("absent.jsonl"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_interlock_is_counted_apart() {
        let unknown = RECORD.replace("\"pixel-ordered\"", "\"unknown\"");
        let s = summarize(&format!("{RECORD}\n{unknown}\n"));
        let t = Target::Real { device: "d".into() };
        let text = render_summary(&s, Path::new("/r"), &t, "p");
        assert!(
            text.contains(
                "1 with fragment shader interlock, 1 whose interlock use the layer could not tell"
            ),
            "{text}"
        );
    }

    #[test]
    fn empty_report_says_no_pipelines() {
        let t = Target::Real { device: "d".into() };
        let text = render_summary(&summarize(""), Path::new("/r"), &t, "true");
        assert!(text.contains("no pipelines reported: true created no pipeline"));
        assert!(!text.contains("NOTHING WAS RENDERED"));
    }

    /// A device-lost line is read and shown before everything else, each listed draw with its
    /// submission, object, key POPS fields and findings, and the driver's fault description.

    #[test]
    fn a_device_loss_is_shown_before_everything_with_its_draws() {
        let text = r#"{"schema_version":1,"id":1,"app":"a","device":"d","kind":"draw","handle":"0x10","entry_point":"main","stage_hash":null,"interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":8,"chip":"raven","registers":null,"pm4":[],"diagnostics":[],"source":"shader_module","command_buffer":"0xc","bound":"pipeline","draws":2}
{"schema_version":1,"app":"a","device":"d","kind":"device_lost","chip":"raven","call":"vkQueueSubmit","queue":"0x5","message":"device lost (vkQueueSubmit on queue 0x5): 0 interlocked draw state(s) in flight, 1 at the loss, 0 just before it; pipeline 0x10 (pixel-ordered, 8 sample(s))","in_flight":[],"at_loss":[{"record":1,"queue":"0x5","submission":4,"command_buffer":"0xc","handle":"0x10","bound":"pipeline","name":"oit","stage_hash":null,"interlock":"pixel-ordered","samples":8,"chip":"raven","draws":2,"registers":{"DB_DFSM_CONTROL":{"address":1,"value":0,"fields":{"POPS_DRAIN_PS_ON_OVERLAP":1},"decided":["POPS_DRAIN_PS_ON_OVERLAP"]}},"diagnostics":[{"severity":"warning","code":"isa-model","message":"m"}]}],"recent":[],"not_kept":0,"fault":{"description":"A GPUVM fault has been detected","addresses":[{"type":"WRITE_INVALID","address":"0x1000","precision":4096}],"vendor":[],"vendor_binary_bytes":0}}"#;
        let s = summarize(text);
        assert_eq!(s.bad_lines, 0, "{:?}", s.bad_reasons);
        assert_eq!(s.device_lost.len(), 1);
        let shown = render_summary(&s, Path::new("r.jsonl"), &Target::NoInterlock, "app");
        let lost = shown.find("DEVICE LOST").expect("shown");
        assert!(
            lost < shown.find("pipeline(s) reported").unwrap(),
            "{shown}"
        );
        assert!(shown.contains("at the loss  submission    4  pipeline 'oit' in command buffer 0xc: 2 draw(s), pixel-ordered, 8 sample(s), chip raven; POPS_DRAIN_PS_ON_OVERLAP=1; warning:isa-model"), "{shown}");
        assert!(
            shown.contains("WRITE_INVALID at 0x1000 (within 4096 bytes)"),
            "{shown}"
        );
    }

    /// Timing lines are read (not counted bad) and summarised even where nothing left uses
    /// interlock (a `no-interlock` experiment).

    #[test]
    fn timing_lines_are_summarised_without_interlocked_rows() {
        let text = r#"{"schema_version":1,"app":"a","device":"d","kind":"timing","scope":"submission","index":0,"gpu_ns":2000000,"interlocked_ns":1000000,"ranges":1,"unmeasured":0,"objects":[]}
{"schema_version":1,"app":"a","device":"d","kind":"timing","scope":"object","interlocked_ns":1000000,"ranges":1,"unmeasured":0,"objects":[{"object":1,"handle":"0x1","bound":"pipeline","name":"oit","stage_hash":null,"interlock":"none","experiment":{"name":"no-interlock","changes":["pixel-ordered -> none"]},"ns":1000000,"ranges":1}]}"#;
        let s = summarize(text);
        assert_eq!(s.bad_lines, 0);
        assert_eq!(s.timing.len(), 2);
        let t = render_table(&s, "pops run");
        assert!(
            t.contains("1.000 ms in 1 range(s), over 1 submission(s)"),
            "{t}"
        );
        assert!(t.contains("none (pixel-ordered -> none)"), "{t}");
    }
}
