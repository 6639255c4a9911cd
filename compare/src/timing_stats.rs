//! The layer's timing lines (its `timing` setting) as figures: per interlocked object and per
//! frame, for one run (`pops run`, `pops report`) or many (`pops compare`). Pure.

use pops_report::{Timing, TimingScope};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What one run's timing lines come to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunTiming {
    /// Per object (by [`pops_report::TimedObject::key`]): GPU time of its ranges (ns) and its
    /// interlock mode, with the experiment's change where one was applied.
    pub objects: BTreeMap<String, (u64, String)>,
    /// Ranges of the object lines (the device's whole life).
    pub object_ranges: u64,
    /// Per frame (or, without presents, per submission that drew with interlock), in order:
    /// GPU time of interlocked work (ns).
    pub frames: Vec<u64>,
    /// Per frame (or submission): GPU time of all its command buffers (ns).
    pub frame_gpu: Vec<u64>,
    /// Whether the units were frames (the application presented) or submissions.
    pub presented: bool,
    pub ranges: u64,
    pub unmeasured: u64,
    /// Frame and submission lines read, with or without interlocked work.
    pub units: usize,
}

impl RunTiming {
    pub fn from_lines(lines: &[Timing]) -> RunTiming {
        let mut r = RunTiming::default();
        let mut units: Vec<&Timing> = lines
            .iter()
            .filter(|l| l.scope != TimingScope::Object)
            .collect();
        // Frames after the submissions a device made before its first present.
        units.sort_by_key(|l| (l.scope == TimingScope::Frame, l.index));
        r.presented = units.iter().any(|l| l.scope == TimingScope::Frame);
        r.units = units.len();
        for l in units {
            if r.presented && l.scope != TimingScope::Frame {
                continue;
            }
            // Without presents, the submissions that drew with interlock are the program's
            // frames; its uploads and other small submissions are not.
            if !r.presented && l.ranges == 0 {
                r.unmeasured += l.unmeasured;
                continue;
            }
            r.frames.push(l.interlocked_ns);
            r.frame_gpu.push(l.gpu_ns.unwrap_or(0));
            r.ranges += l.ranges;
            r.unmeasured += l.unmeasured;
        }
        for l in lines.iter().filter(|l| l.scope == TimingScope::Object) {
            r.object_ranges += l.ranges;
            for o in &l.objects {
                let mode = match &o.experiment {
                    Some(e) => format!("{} ({})", o.interlock, e.changes_text()),
                    None => o.interlock.to_string(),
                };
                let e = r.objects.entry(o.key()).or_insert((0, mode));
                e.0 += o.ns;
            }
        }
        r
    }

    /// GPU time of all interlocked work (ns).
    pub fn interlocked(&self) -> u64 {
        self.objects.values().map(|(ns, _)| ns).sum()
    }
}

/// Minimum, median and maximum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Spread {
    /// `None` for no values. The median of an even count is the mean of the middle two.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            min: v[0],
            median,
            max: v[n - 1],
        })
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The timing section of `pops run` and `pops report`: empty without timing lines.
pub fn render(lines: &[Timing], who: &str) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let r = RunTiming::from_lines(lines);
    let mut o = String::new();
    let (unit, units) = if r.presented {
        ("frame", "frame(s)")
    } else {
        (
            "interlocked submission",
            "submission(s) with interlocked work",
        )
    };
    let frames: Vec<f64> = r.frames.iter().map(|n| ms(*n)).collect();
    let gpu: Vec<f64> = r.frame_gpu.iter().map(|n| ms(*n)).collect();
    let _ = writeln!(
        o,
        "{who}: GPU time of interlocked work (timing): {:.3} ms in {} range(s){}, over {} {units}",
        ms(r.interlocked()),
        r.object_ranges,
        if r.unmeasured > 0 {
            format!(", {} more not timed", r.unmeasured)
        } else {
            String::new()
        },
        r.frames.len()
    );
    if let (Some(f), Some(g)) = (Spread::of(&frames), Spread::of(&gpu)) {
        let _ = writeln!(
            o,
            "{who}:   per {unit} (ms, min / median / max): interlocked {:.3} / {:.3} / {:.3}; all GPU work {:.3} / {:.3} / {:.3}",
            f.min, f.median, f.max, g.min, g.median, g.max
        );
    }
    let rows: Vec<Vec<String>> = r
        .objects
        .iter()
        .map(|(key, (ns, mode))| vec![key.clone(), mode.clone(), format!("{:.3} ms", ms(*ns))])
        .collect();
    use crate::table::Align::{Left, Right};
    for line in crate::table::render(&rows, &[Left, Left, Right], 2).lines() {
        let _ = writeln!(o, "{who}:   {line}");
    }
    o
}

/// One side of a comparison: every run's timing.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub runs: Vec<RunTiming>,
}

impl Side {
    /// One value per run for an object (runs where it drew nothing count 0).
    fn per_run(&self, key: &str) -> Vec<f64> {
        self.runs
            .iter()
            .map(|r| r.objects.get(key).map_or(0.0, |(ns, _)| ms(*ns)))
            .collect()
    }

    fn mode(&self, key: &str) -> Option<&str> {
        self.runs
            .iter()
            .find_map(|r| r.objects.get(key).map(|(_, m)| m.as_str()))
    }

    fn totals(&self) -> Vec<f64> {
        self.runs.iter().map(|r| ms(r.interlocked())).collect()
    }

    pub fn frames(&self, gpu: bool) -> Vec<f64> {
        self.runs
            .iter()
            .flat_map(|r| if gpu { &r.frame_gpu } else { &r.frames })
            .map(|n| ms(*n))
            .collect()
    }
}

/// The ratio of the experiment's median to the baseline's.
pub fn ratio(base: Option<Spread>, exp: Option<Spread>) -> Option<f64> {
    match (base, exp) {
        (Some(b), Some(e)) if b.median > 0.0 => Some(e.median / b.median),
        _ => None,
    }
}

fn cell(s: Option<Spread>) -> String {
    match s {
        Some(s) => format!("{:.3} / {:.3} / {:.3}", s.min, s.median, s.max),
        None => "-".to_string(),
    }
}

/// One row of the comparison: what it measures, each side's spread, the ratio of the medians.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    pub label: String,
    pub base: Option<Spread>,
    pub exp: Option<Spread>,
    pub ratio: Option<f64>,
}

fn row(rows: &mut Vec<CompareRow>, label: &str, base: &[f64], exp: &[f64]) {
    let (b, e) = (Spread::of(base), Spread::of(exp));
    rows.push(CompareRow {
        label: label.to_string(),
        base: b,
        exp: e,
        ratio: ratio(b, e),
    });
}

/// What a frame is in the comparison: a frame where the program presented, else a submission
/// that drew with interlock.
pub fn compare_unit(base: &Side, exp: &Side) -> &'static str {
    if base.runs.iter().chain(&exp.runs).any(|r| r.presented) {
        "frame"
    } else {
        "interlocked submission"
    }
}

/// The comparison's rows: per object, all interlocked work per run, interlocked and all GPU
/// work per frame. Pure; the table and the page both show these.
pub fn compare_rows(base: &Side, exp: &Side) -> Vec<CompareRow> {
    let unit = compare_unit(base, exp);
    let mut rows = Vec::new();
    let mut keys: Vec<&String> = base
        .runs
        .iter()
        .chain(&exp.runs)
        .flat_map(|r| r.objects.keys())
        .collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let label = match (base.mode(k), exp.mode(k)) {
            (Some(a), Some(b)) if a != b => format!("{k} [{a} | {b}]"),
            (Some(a), _) | (None, Some(a)) => format!("{k} [{a}]"),
            _ => k.clone(),
        };
        row(&mut rows, &label, &base.per_run(k), &exp.per_run(k));
    }
    row(
        &mut rows,
        "all interlocked work, per run",
        &base.totals(),
        &exp.totals(),
    );
    row(
        &mut rows,
        &format!("interlocked work, per {unit}"),
        &base.frames(false),
        &exp.frames(false),
    );
    row(
        &mut rows,
        &format!("all GPU work, per {unit}"),
        &base.frames(true),
        &exp.frames(true),
    );
    rows
}

/// The comparison table of `pops compare`.
pub fn render_compare(experiment: &str, base: &Side, exp: &Side) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "GPU time of interlocked work (ms; min / median / max over {} + {} runs; ratio of medians, {experiment} / none):",
        base.runs.len(),
        exp.runs.len()
    );
    use crate::table::Align::{Left, Right};
    let mut rows = vec![vec![
        String::new(),
        "none".to_string(),
        experiment.to_string(),
        "ratio".to_string(),
    ]];
    for r in compare_rows(base, exp) {
        rows.push(vec![
            r.label,
            cell(r.base),
            cell(r.exp),
            r.ratio.map_or("-".to_string(), |x| format!("{x:.3}")),
        ]);
    }
    // Columns as wide as their widest cell: an object's label (its name, mode and the
    // experiment's change) never pushes the numbers out of line.
    for line in crate::table::render(&rows, &[Left, Right, Right, Right], 3).lines() {
        let _ = writeln!(o, "  {line}");
    }
    let untimed: u64 = base
        .runs
        .iter()
        .chain(&exp.runs)
        .map(|r| r.unmeasured)
        .sum();
    if untimed > 0 {
        let _ = writeln!(
            o,
            "  ({untimed} interlocked range(s) could not be timed: multiview, or queries used up)"
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use pops_report::{TimedObject, TimingKind};

    fn object(name: &str, ns: u64, mode: &str) -> TimedObject {
        TimedObject {
            object: 1,
            handle: "0x1".into(),
            bound: pops_report::Bound::Pipeline,
            name: Some(name.into()),
            module_name: None,
            stage_hash: None,
            interlock: pops_report::Interlock::try_from(mode.to_string()).unwrap(),
            experiment: None,
            ns,
            ranges: 1,
        }
    }

    fn line(scope: TimingScope, index: Option<u64>, ns: u64, objects: Vec<TimedObject>) -> Timing {
        Timing {
            schema_version: 1,
            app: "a".into(),
            device: "d".into(),
            kind: TimingKind::Timing,
            scope,
            index,
            gpu_ns: index.map(|_| 2 * ns),
            interlocked_ns: ns,
            ranges: 1,
            unmeasured: 0,
            objects,
        }
    }

    /// Frames in order, submissions before the first present left out of the frame list,
    /// objects summed by name.
    #[test]
    fn a_run_is_its_frames_and_objects() {
        let lines = vec![
            line(TimingScope::Submission, Some(0), 7, vec![]),
            line(TimingScope::Frame, Some(1), 3_000_000, vec![]),
            line(TimingScope::Frame, Some(0), 1_000_000, vec![]),
            line(
                TimingScope::Object,
                None,
                4_000_000,
                vec![object("A", 4_000_000, "pixel-ordered")],
            ),
        ];
        let r = RunTiming::from_lines(&lines);
        assert!(r.presented);
        assert_eq!(r.frames, [1_000_000, 3_000_000]);
        assert_eq!(r.frame_gpu, [2_000_000, 6_000_000]);
        assert_eq!(r.interlocked(), 4_000_000);
        let text = render(&lines, "pops run");
        assert!(
            text.contains("4.000 ms in 1 range(s), over 2 frame(s)"),
            "{text}"
        );
        assert!(text.contains("interlocked 1.000 / 2.000 / 3.000"), "{text}");
    }

    #[test]
    fn spread_and_ratio() {
        let s = Spread::of(&[3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.5, 10.0));
        assert!(Spread::of(&[]).is_none());
        let b = Spread::of(&[2.0]);
        assert_eq!(ratio(b, Spread::of(&[1.0])), Some(0.5));
        assert_eq!(ratio(Spread::of(&[0.0]), b), None);
    }

    /// Each object's row has both sides and their ratio; an object with a different mode under
    /// the experiment shows both.
    #[test]
    fn the_comparison_has_a_row_per_object_and_per_frame() {
        let run = |ns: u64, mode: &str| {
            RunTiming::from_lines(&[
                line(TimingScope::Submission, Some(0), ns, vec![]),
                line(TimingScope::Object, None, ns, vec![object("oit", ns, mode)]),
            ])
        };
        let base = Side {
            runs: vec![
                run(4_000_000, "pixel-ordered"),
                run(4_400_000, "pixel-ordered"),
            ],
        };
        let exp = Side {
            runs: vec![
                run(2_000_000, "sample-ordered"),
                run(2_200_000, "sample-ordered"),
            ],
        };
        let t = render_compare("pixel-to-sample", &base, &exp);
        let oit = t
            .lines()
            .find(|l| l.contains("oit [pixel-ordered | sample-ordered]"))
            .unwrap();
        assert!(oit.contains("4.000 / 4.200 / 4.400"), "{t}");
        assert!(oit.contains("2.000 / 2.100 / 2.200"), "{t}");
        assert!(oit.trim_end().ends_with("0.500"), "{t}");
        assert!(
            t.contains("interlocked work, per interlocked submission"),
            "{t}"
        );
    }

    /// An object with a long name and mode keeps the table in line: every row's ratio ends in
    /// the same column as the header's.
    #[test]
    fn a_long_object_label_keeps_the_columns_in_line() {
        let run = |ns: u64, mode: &str| {
            RunTiming::from_lines(&[
                line(TimingScope::Submission, Some(0), ns, vec![]),
                line(
                    TimingScope::Object,
                    None,
                    ns,
                    vec![object("interlock-pixel-ordered_msaa8/colour", ns, mode)],
                ),
            ])
        };
        let base = Side {
            runs: vec![run(4_000_000, "pixel-ordered")],
        };
        let exp = Side {
            runs: vec![run(2_000_000, "sample-ordered")],
        };
        let t = render_compare("pixel-to-sample", &base, &exp);
        let table: Vec<&str> = t
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .collect();
        assert!(table.len() >= 3, "{t}");
        let end = table[0].chars().count();
        for l in &table {
            assert_eq!(l.chars().count(), end, "{t}");
        }
    }
}
