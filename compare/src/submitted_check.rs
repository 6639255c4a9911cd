//! The layer's draw records against what the driver really submitted: with `pops run
//! --amdgpu-shim`, stock RADV submits every command buffer through libdrm to the amdgpu
//! kernel-interface shim, which records each IB; every draw record's decided register fields are
//! compared with the fields RADV programmed at its draws (`crate::recorded` reads them, `pm4::pops::agreement` compares), the deliberate
//! differences `pm4::pops::radv` lists apart. Pure: records and recorded draws in, a table out.

use crate::recorded::RecordedDraw;
use pm4::pops::agreement::{self, Comparison, Context};
use pm4::pops::radv::Rate1x1Way;
use pops_report::read::Resolved;
use std::fmt::Write;
use std::path::Path;

/// `record`'s decided fields against what the driver programmed at `draw`.
/// How a draw record that decided `decided` — a record of `per_sample` shading at `samples`
/// (`None`: dynamic) — compares with one draw the driver submitted on `level`: the one comparison
/// `pops run` and the tests make.
pub fn compare_record<'a>(
    decided: impl IntoIterator<Item = (&'a str, &'a str, Option<u64>)>,
    per_sample: bool,
    samples: Option<u64>,
    draw: &RecordedDraw,
    level: pm4::GfxLevel,
) -> Comparison {
    let cx = Context {
        level,
        per_sample_msaa: per_sample && samples.is_some_and(|n| n > 1),
    };
    agreement::compare(decided, &|r, f| draw.field(r, f), cx)
}

/// How one draw record compares with the draws the driver submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// A draw the driver submitted with POPS on holds every decided field: how many fields were
    /// compared, and the listed differences met (`REGISTER.FIELD`).
    Same {
        compared: usize,
        listed: Vec<String>,
        /// How the driver kept the shading rate at 1×1, where the record does so by sample
        /// iteration.
        rate_1x1: Option<Rate1x1Way>,
    },
    /// No submitted draw does: the differences with the closest one (the submitted POPS draw
    /// with the fewest), at most three of them.
    Differs(String),
}

/// One draw record and its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The object's name, else its handle.
    pub name: String,
    pub interlock: pops_report::Interlock,
    pub samples: Option<u32>,
    pub per_sample: bool,
    pub draws: u64,
    pub fields: Vec<(String, u64)>,
    pub verdict: Agreement,
}

/// Every draw record of a run against the driver's submitted draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub rows: Vec<Row>,
    /// Draws the driver submitted with POPS on.
    pub submitted_pops: usize,
    /// Of those, how many no draw record describes.
    pub unrecorded: usize,
    /// Draws without POPS that the driver submitted with DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP
    /// still set, on a chip whose POPS draws need it (VEGA10, RAVEN): a POPS-only workaround
    /// left programmed, which costs those draws the drain and orders nothing (RADV 25.0.x leaves
    /// it on after a POPS draw; Mesa 25.1 clears it).
    pub drain_left_on: usize,
    /// The level of the chip the run was on: which entries of `pm4::pops::radv` speak for it.
    pub level: pm4::GfxLevel,
}

impl Check {
    pub fn agreeing(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.verdict, Agreement::Same { .. }))
            .count()
    }

    /// Draws counted by the records.
    pub fn recorded_draws(&self) -> u64 {
        self.rows.iter().map(|r| r.draws).sum()
    }

    /// Every record agrees, and the records count exactly the draws submitted with POPS on;
    /// and there was something to compare (no record and no POPS draw checks nothing).
    pub fn ok(&self) -> bool {
        !(self.rows.is_empty() && self.submitted_pops == 0)
            && self.agreeing() == self.rows.len()
            && self.unrecorded == 0
            && self.recorded_draws() == self.submitted_pops as u64
    }
}

/// The draw records of the report at `path`, registers resolved and each with its last totals.
pub fn draw_records(path: &std::path::Path) -> Result<Vec<Resolved>, ShimRunError> {
    use pops_report::read::Item;
    let unreadable = |e| ShimRunError::Report(crate::summary::ReportFileError::of(path, e));
    let f = std::fs::File::open(path).map_err(unreadable)?;
    let mut out: Vec<Resolved> = Vec::new();
    let mut totals = pops_report::read::DrawTotals::default();
    pops_report::read::each_line(f, |_, item| match item {
        Ok(Item::Record(r)) if r.kind == pops_report::Kind::Draw => {
            let (draws, cbs) = (r.draws.unwrap_or(0), r.command_buffers.unwrap_or(1));
            totals.record(&r.app, r.id, out.len(), draws, cbs);
            out.push(*r);
        }
        Ok(Item::Counts(c)) => totals.counts(&c, |&i, _, (draws, cbs)| {
            out[i].draws = Some(draws);
            out[i].command_buffers = Some(cbs);
        }),
        _ => {}
    })
    .map_err(unreadable)?;
    Ok(out)
}

/// Why a run on the amdgpu shim cannot be checked.
#[derive(Debug, thiserror::Error)]
pub enum ShimRunError {
    #[error(transparent)]
    Report(#[from] crate::summary::ReportFileError),
    #[error("{}: no draw record names its chip, so the draws in {} cannot be read", report.display(), dir.display())]
    NoChip {
        report: std::path::PathBuf,
        dir: std::path::PathBuf,
    },
    #[error(transparent)]
    Recorded(#[from] crate::recorded::RecordedError),
}

/// What a run on the amdgpu shim left: the report at `report` and the shim's folder `dir` of
/// recorded IBs (`pops run --amdgpu-shim` keeps it beside the report, as `REPORT.amdgpu`).
pub struct ShimRun {
    pub check: Check,
    /// The shim's VIOLATION and LEAK lines, in file order.
    pub events: Vec<String>,
}

impl ShimRun {
    /// Reads the report's draw records and the draws recorded in `dir` on `chip`, and compares
    /// them. `chip`: the chip the run was on; `None` takes it from the draw records.
    pub fn read(
        report: &Path,
        dir: &Path,
        chip: Option<pm4::Family>,
    ) -> Result<(Self, pm4::Family), ShimRunError> {
        let records = draw_records(report)?;
        let chip = match chip {
            Some(c) => c,
            None => records
                .iter()
                .find_map(|r| r.chip.as_deref().and_then(|c| pm4::Family::parse(c).ok()))
                .ok_or_else(|| ShimRunError::NoChip {
                    report: report.to_path_buf(),
                    dir: dir.to_path_buf(),
                })?,
        };
        let submitted = crate::recorded::draws(dir, chip.gfx_level())?;
        Ok((
            ShimRun {
                check: check(&records, &submitted, chip),
                events: shim_events(dir),
            },
            chip,
        ))
    }

    /// Every record agrees and the shim found nothing wrong.
    pub fn ok(&self) -> bool {
        self.check.ok() && self.events.is_empty()
    }
}

/// The shim's VIOLATION and LEAK lines (`events-PID.log`: its README writes nothing else
/// there), in file order.
pub fn shim_events(dir: &Path) -> Vec<String> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("events-"))
        })
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .flat_map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The (register, field, value) a record decided.
fn decided(r: &Resolved) -> Vec<(&str, &str, Option<u64>)> {
    r.registers
        .iter()
        .flat_map(|regs| regs.iter())
        .flat_map(|(reg, v)| {
            v.decided
                .iter()
                .map(move |f| (reg.as_str(), f.as_str(), v.fields.get(f).copied()))
        })
        .collect()
}

/// The verdict of one record against the submitted POPS draws: the agreeing draw with the
/// fewest listed differences, else the differences with the closest draw.
fn verdict(r: &Resolved, pops: &[&RecordedDraw], level: pm4::GfxLevel) -> Agreement {
    let fields = decided(r);
    let samples = r.samples.map(u64::from);
    let comparisons: Vec<Comparison> = pops
        .iter()
        .map(|d| compare_record(fields.iter().copied(), r.per_sample, samples, d, level))
        .collect();
    if let Some(c) = comparisons
        .iter()
        .filter(|c| c.agrees())
        .min_by_key(|c| c.listed.len())
    {
        return Agreement::Same {
            compared: c.compared,
            listed: c.listed.clone(),
            rate_1x1: c.rate_1x1,
        };
    }
    match comparisons.iter().min_by_key(|c| c.differences.len()) {
        None => Agreement::Differs("the driver submitted no draw with POPS on".to_string()),
        Some(c) => {
            let mut text = c
                .differences
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            if c.differences.len() > 3 {
                let _ = write!(text, "; and {} more", c.differences.len() - 3);
            }
            Agreement::Differs(text)
        }
    }
}

/// Compares the draw records among `records` with `submitted`, recorded on `chip`.
pub fn check(records: &[Resolved], submitted: &[RecordedDraw], chip: pm4::Family) -> Check {
    let level = chip.gfx_level();
    let drain_left_on = if chip.quirks().pops_missed_overlap {
        submitted
            .iter()
            .filter(|d| {
                !d.pops() && d.field("DB_DFSM_CONTROL", "POPS_DRAIN_PS_ON_OVERLAP") == Some(1)
            })
            .count()
    } else {
        0
    };
    let pops: Vec<&RecordedDraw> = submitted.iter().filter(|d| d.pops()).collect();
    let draws: Vec<&Resolved> = records
        .iter()
        .filter(|r| r.kind == pops_report::Kind::Draw && r.registers.is_some())
        .collect();
    let rows = draws
        .iter()
        .map(|r| Row {
            name: match &r.name {
                Some(n) => format!("'{n}'"),
                None => format!("{} {}", r.kind, r.handle),
            },
            interlock: r.interlock,
            samples: r.samples,
            per_sample: r.per_sample,
            draws: r.draws.unwrap_or(0),
            fields: crate::summary::key_fields(r.registers.as_deref()),
            verdict: verdict(r, &pops, level),
        })
        .collect();
    let unrecorded = pops
        .iter()
        .filter(|d| {
            !draws.iter().any(|r| {
                let samples = r.samples.map(u64::from);
                compare_record(decided(r).iter().copied(), r.per_sample, samples, d, level).agrees()
            })
        })
        .count();
    Check {
        rows,
        submitted_pops: pops.len(),
        unrecorded,
        drain_left_on,
        level,
    }
}

/// The differences pops makes on purpose that the rows met, in order of first appearance: each
/// row marks its own with `[n]`, and the note of `n` says why once, under the table.
fn listed_notes(c: &Check) -> Vec<&str> {
    let mut notes: Vec<&str> = Vec::new();
    for r in &c.rows {
        if let Agreement::Same { listed, .. } = &r.verdict {
            for f in listed {
                if !notes.contains(&f.as_str()) {
                    notes.push(f);
                }
            }
        }
    }
    notes
}

/// The entries of `pm4::pops::radv` on `field` (`REGISTER.FIELD`) at `level`: why pops and RADV
/// differ there.
fn reasons<'a>(
    level: pm4::GfxLevel,
    field: &'a str,
) -> impl Iterator<Item = &'static pm4::pops::radv::RadvDifference> + 'a {
    pm4::pops::radv::TABLE.iter().filter(move |d| {
        d.levels.contains(&level) && format!("{}.{}", d.register.name(), d.field.name()) == field
    })
}

/// A row's verdict cell and the detail line under it, if any.
fn verdict_cell(v: &Agreement, notes: &[&str]) -> (String, Option<String>) {
    match v {
        Agreement::Same {
            compared,
            listed,
            rate_1x1,
        } => {
            let way = match rate_1x1 {
                Some(w) if *w != Rate1x1Way::SampleIteration => Some(w.describe().to_string()),
                _ => None,
            };
            let marks: String = listed
                .iter()
                .filter_map(|f| notes.iter().position(|n| n == f))
                .map(|i| format!(" [{}]", i + 1))
                .collect();
            let unit = if *compared == 1 { "field" } else { "fields" };
            (format!("the same ({compared} {unit}){marks}"), way)
        }
        Agreement::Differs(why) => ("DIFFERENT".to_string(), Some(why.clone())),
    }
}

/// The draws table with each record's verdict, the notes on the differences pops makes on
/// purpose, then the chip's verdict. Pure.
pub fn render(c: &Check, chip: &str, who: &str) -> String {
    use crate::table::Align::{Left, Right};
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{who}: {chip}: the draws RADV submitted through the amdgpu kernel interface, by draw record:"
    );
    let notes = listed_notes(c);
    let mut rows = vec![[
        "draw",
        "interlock",
        "samples",
        "rate",
        "draws",
        "RADV programmed",
        "POPS register fields",
    ]
    .map(String::from)
    .to_vec()];
    let mut details = Vec::new();
    for r in &c.rows {
        let fields = r
            .fields
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let (verdict, detail) = verdict_cell(&r.verdict, &notes);
        details.push(detail);
        rows.push(vec![
            r.name.clone(),
            r.interlock.to_string(),
            r.samples.map_or("?".to_string(), |n| n.to_string()),
            if r.per_sample { "sample" } else { "pixel" }.to_string(),
            r.draws.to_string(),
            verdict,
            fields,
        ]);
    }
    let table = crate::table::render(&rows, &[Left, Left, Right, Left, Right, Left, Left], 2);
    // The table's lines: the header, then one per row, each followed by its detail.
    let mut lines = table.lines();
    if let Some(h) = lines.next() {
        let _ = writeln!(o, "  {h}");
    }
    for (line, detail) in lines.zip(&details) {
        let _ = writeln!(o, "  {line}");
        if let Some(d) = detail {
            let _ = writeln!(o, "      {d}");
        }
    }
    for (i, f) in notes.iter().enumerate() {
        for d in reasons(c.level, f) {
            let _ = writeln!(o, "  [{}] {f}: {}", i + 1, d.reason);
        }
    }
    if c.drain_left_on > 0 {
        let _ = writeln!(
            o,
            "{who}: {chip}: finding {}: {} draw(s) without POPS ran with \
             DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP still set by an earlier POPS draw: the \
             missed-overlap workaround is for POPS draws only, and costs the others the drain",
            pops_report::finding::Code::Run(pops_report::finding::Run::PopsDrainLeftOn),
            c.drain_left_on
        );
    }
    let _ = writeln!(o, "{who}: {chip}: {}", verdict_sentence(c));
    o
}

/// A chip's verdict as the page shows it: the sentence, whether all is well, the shim's
/// complaints and the notes on the differences pops makes on purpose (`[n]`, field, reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChipVerdict {
    pub chip: String,
    pub sentence: String,
    pub ok: bool,
    pub events: Vec<String>,
    pub notes: Vec<(usize, String, &'static str)>,
    /// Draws without POPS that ran with the missed-overlap drain still on (`pops-drain-left-on`).
    pub drain_left_on: usize,
    /// The driver the run's records name (`radv (Mesa 25.0.7)`), where known.
    pub driver: Option<String>,
}

impl ChipVerdict {
    pub fn of(run: &ShimRun, chip: pm4::Family) -> Self {
        let notes = listed_notes(&run.check)
            .iter()
            .enumerate()
            .flat_map(|(i, f)| {
                reasons(run.check.level, f).map(move |d| (i + 1, f.to_string(), d.reason))
            })
            .collect();
        ChipVerdict {
            chip: chip.name().to_string(),
            sentence: verdict_sentence(&run.check),
            ok: run.ok(),
            events: run.events.clone(),
            notes,
            drain_left_on: run.check.drain_left_on,
            driver: None,
        }
    }
}

/// The chip's verdict in one plain sentence: whether RADV programmed what pops derives at every
/// interlocked draw, and that nothing was rendered (shaders do not run on the amdgpu shim).
/// `pops run` and `pops report` print it, the page shows it. Pure.
pub fn verdict_sentence(c: &Check) -> String {
    const NOT_RENDERED: &str = "Shaders do not run on the amdgpu shim, so nothing was rendered.";
    if c.rows.is_empty() && c.submitted_pops == 0 {
        return format!(
            "NOTHING CHECKED: the layer recorded no interlocked draw and RADV submitted no draw \
             with POPS on. {NOT_RENDERED}"
        );
    }
    let n = c.rows.len();
    let agreeing = c.agreeing();
    let mut s = if agreeing == n {
        let notes = listed_notes(c);
        let marked = match notes.len() {
            0 => String::new(),
            1 => ", apart from the field marked [1], where pops and RADV differ on purpose".into(),
            k => format!(
                ", apart from the fields marked [1] to [{k}], where pops and RADV differ on purpose"
            ),
        };
        format!(
            "{agreeing} of {n} interlocked draws: RADV programmed every POPS register field as \
             pops derives it from the article{marked}"
        )
    } else {
        format!(
            "{agreeing} of {n} interlocked draws as pops derives them: RADV programmed the \
             draws marked DIFFERENT otherwise"
        )
    };
    let recorded = c.recorded_draws();
    if recorded == c.submitted_pops as u64 && c.unrecorded == 0 {
        let _ = write!(
            s,
            "; RADV submitted exactly the {recorded} POPS draw(s) the records count."
        );
    } else {
        let _ = write!(
            s,
            "; the records count {recorded} draw(s), RADV submitted {} with POPS on{}.",
            c.submitted_pops,
            if c.unrecorded > 0 {
                format!(", {} of them described by no record", c.unrecorded)
            } else {
                String::new()
            }
        );
    }
    format!("{s} {NOT_RENDERED}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::Fields;

    fn record(pops: u64, draws: u64) -> Resolved {
        let r: pops_report::Record = record_v1(pops, draws);
        r.map_registers(|r| r.map(std::sync::Arc::new))
    }

    fn record_v1(pops: u64, draws: u64) -> pops_report::Record {
        let line = serde_json::json!({
            "schema_version": 1, "id": 1, "app": "a", "device": "d", "kind": "draw",
            "handle": "0x10", "entry_point": "main", "stage_hash": "0123456789abcdef",
            "interlock": "pixel-ordered", "begin_count": 1, "end_count": 1, "per_sample": false,
            "samples": 4, "chip": "navi31",
            "registers": {"DB_SHADER_CONTROL": {"address": 163980, "value": 1,
                "fields": {"PRIMITIVE_ORDERED_PIXEL_SHADER": pops}, "decided": ["PRIMITIVE_ORDERED_PIXEL_SHADER"]}},
            "pm4": [], "diagnostics": [], "source": "shader_module", "command_buffer": "0x20",
            "bound": "pipeline", "draws": draws, "name": "oit/colour"
        });
        serde_json::from_value(line).unwrap()
    }

    fn submitted(pops: u64) -> RecordedDraw {
        let mut f = Fields::new();
        f.entry("DB_SHADER_CONTROL".into())
            .or_default()
            .insert("PRIMITIVE_ORDERED_PIXEL_SHADER".into(), pops);
        RecordedDraw {
            submission: 1,
            packet: "DRAW_INDEX_AUTO",
            fields: f,
        }
    }

    #[test]
    fn a_record_matching_a_submitted_draw_agrees_and_counts_it() {
        let c = check(
            &[record(1, 1)],
            &[submitted(1), submitted(0)],
            pm4::Family::Navi31,
        );
        assert!(c.ok(), "{c:?}");
        let text = render(&c, "navi31", "pops run");
        assert!(text.contains("'oit/colour'"), "{text}");
        assert!(
            text.contains("navi31: 1 of 1 interlocked draws: RADV programmed every POPS register field as pops derives it from the article; RADV submitted exactly the 1 POPS draw(s) the records count."),
            "{text}"
        );
        assert!(text.contains("the same (1 field)"), "{text}");
        assert!(!text.contains("DIFFERENT"), "{text}");
    }

    /// A record whose fields no submitted draw has, a submitted draw no record describes, and
    /// counts that differ are each a mismatch the line says.
    #[test]
    fn differences_are_mismatches() {
        let c = check(&[record(0, 1)], &[submitted(1)], pm4::Family::Navi31);
        assert!(!c.ok());
        assert!(
            matches!(&c.rows[0].verdict, Agreement::Differs(w) if w.contains("PRIMITIVE_ORDERED_PIXEL_SHADER"))
        );
        assert_eq!(c.unrecorded, 1);
        let text = render(&c, "navi31", "pops run");
        assert!(
            text.contains("0 of 1 interlocked draws as pops derives them"),
            "{text}"
        );
        assert!(text.contains("1 of them described by no record"), "{text}");
        let c = check(&[record(1, 2)], &[submitted(1)], pm4::Family::Navi31);
        assert!(!c.ok(), "two draws counted, one submitted");
    }

    /// Nothing recorded and nothing submitted with POPS is no agreement: never "0 of 0 ...
    /// identically".
    #[test]
    fn an_empty_comparison_is_not_a_success() {
        let c = check(&[], &[submitted(0)], pm4::Family::Navi31);
        assert!(!c.ok());
        let text = render(&c, "navi31", "pops run");
        assert!(text.contains("NOTHING CHECKED"), "{text}");
        assert!(!text.contains("0 of 0"), "{text}");
    }

    /// A row's difference is the one with the submitted draw closest to it, not with whichever
    /// POPS draw came first.
    #[test]
    fn a_difference_names_the_closest_draw() {
        let mut near = submitted(1);
        near.fields
            .entry("DB_EQAA".into())
            .or_default()
            .insert("MAX_ANCHOR_SAMPLES".into(), 2);
        let mut far = submitted(1);
        far.fields
            .entry("DB_EQAA".into())
            .or_default()
            .insert("MAX_ANCHOR_SAMPLES".into(), 0);
        let mut line = serde_json::to_value(record_v1(1, 1)).unwrap();
        line["registers"]["DB_EQAA"] = serde_json::json!({
            "address": 0x28804, "value": 0,
            "fields": {"MAX_ANCHOR_SAMPLES": 2, "PS_ITER_SAMPLES": 1},
            "decided": ["MAX_ANCHOR_SAMPLES", "PS_ITER_SAMPLES"]
        });
        let r: pops_report::Record = serde_json::from_value(line).unwrap();
        let r = r.map_registers(|r| r.map(std::sync::Arc::new));
        let c = check(&[r], &[far, near], pm4::Family::Navi31);
        match &c.rows[0].verdict {
            Agreement::Differs(w) => {
                assert!(w.contains("PS_ITER_SAMPLES"), "{w}");
                assert!(
                    !w.contains("MAX_ANCHOR_SAMPLES"),
                    "the closest draw holds it: {w}"
                );
            }
            v => panic!("{v:?}"),
        }
    }

    /// PAL's waMiscPopsMissedOverlap is for POPS draws: a later draw without POPS that still has
    /// the drain bit is a finding of its own (RADV 25.0.x), not a failure of the check.
    #[test]
    fn a_drain_bit_left_on_for_a_later_draw_is_a_finding_on_vega10_and_raven() {
        let mut later = submitted(0);
        later
            .fields
            .entry("DB_DFSM_CONTROL".into())
            .or_default()
            .insert("POPS_DRAIN_PS_ON_OVERLAP".into(), 1);
        for (chip, n) in [
            (pm4::Family::Vega10, 1),
            (pm4::Family::Raven, 1),
            (pm4::Family::Navi21, 0),
        ] {
            let c = check(&[record(1, 1)], &[submitted(1), later.clone()], chip);
            assert_eq!(c.drain_left_on, n, "{chip:?}");
            assert!(c.ok());
            let text = render(&c, chip.name(), "pops run");
            assert_eq!(text.contains("finding pops-drain-left-on"), n > 0, "{text}");
        }
    }
}
