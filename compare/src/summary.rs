//! A report summarised for the table and the page: one row per interlocked pipeline, library or
//! shader object, one per (bound object, draw state) with its draws summed, device losses and
//! timing lines. Reports are streamed line by line (`pops_report::read`), either schema version:
//! memory grows with the distinct objects, states and rows, not with the report's length.

use pops_report::read::{Item, Reader, Resolved};
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
use std::path::Path;

/// One interlocked pipeline of the report.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineRow {
    pub kind: pops_report::Kind,
    pub handle: String,
    /// The object's number on its device, where the record has one: two objects at one
    /// reused address are two rows with two names.
    pub object: Option<u64>,
    /// The fragment stage's content hash (as `pops inspect` prints it), or "-".
    pub stage_hash: String,
    /// The application's name of the object, where the record has one.
    pub name: Option<String>,
    pub interlock: pops_report::Interlock,
    pub samples: Option<u64>,
    pub per_sample: bool,
    pub chip: Option<String>,
    /// `FIELD=value` of the key POPS fields present in the record's registers.
    pub fields: Vec<(String, u64)>,
    pub diagnostics: Vec<(pops_report::Severity, pops_report::Code)>,
    /// Draw rows: the draws counted, summed over every command buffer recording of the same
    /// object and state, and how many recordings that was. `None` for creation rows.
    pub draws: Option<(u64, u64)>,
    /// The interlock experiment applied, as `name: from -> to`.
    pub experiment: Option<String>,
}

impl PipelineRow {
    /// How the row is named on the terminal and the page: the application's name, else the
    /// object's number and handle, else the handle (reports that carry no number).
    pub fn label(&self) -> String {
        match (&self.name, self.object) {
            (Some(n), _) => format!("{} '{n}'", self.kind),
            (None, Some(o)) => format!("{} #{o} ({})", self.kind, self.handle),
            (None, None) => format!("{} {}", self.kind, self.handle),
        }
    }
}

/// Line numbers of bad lines kept, to name them; the rest are counted.
pub const BAD_LINES_KEPT: usize = 20;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Record lines read (objects and draws).
    pub records: usize,
    /// Of those, object records (pipelines, libraries, shader objects).
    pub created: usize,
    /// Draw records, counted as command buffer recordings (a version 2 line with its counts
    /// stands for every recording it adds up).
    pub draw_records: u64,
    /// Rows of pipelines whose interlock is a mode or could not be told ("unknown"), in report
    /// order; identical rows are one.
    pub interlocked: Vec<PipelineRow>,
    /// Where the records come from a device that executes nothing, what it is (the first such
    /// record's `null_device`): nothing was rendered.
    pub null_device: Option<String>,
    /// Lines that are not report lines: how many, and the first [`BAD_LINES_KEPT`] numbers
    /// (1-based, counted over every file read) with why each is bad.
    pub bad_lines: usize,
    pub bad_line_numbers: Vec<usize>,
    /// Why each line of `bad_line_numbers` is bad, in the same order.
    pub bad_reasons: Vec<String>,
    /// Device-lost lines (one per device that was lost), in report order.
    pub device_lost: Vec<pops_report::read::ResolvedLost>,
    /// Timing lines (the layer's `timing` setting), in report order.
    pub timing: Vec<pops_report::Timing>,
    /// Records of objects the layer's interlock experiment changed.
    pub experimented: usize,
    /// Each finding code met, once, with its severity and the message of its first record: what
    /// the code in a row means.
    pub findings: Vec<Finding>,
    /// The driver of the first record that names one (`radv (Mesa 26.2.6-1)`).
    pub driver: Option<String>,
    /// What verify_isa concluded per chip, and the driver findings, known or new.
    pub verification: crate::verification::Verification,
}

/// A finding code as the report explains it (its first diagnostic of that code).
pub type Finding = pops_report::Diagnostic;

/// What the POPS fields of the tables mean (the terminal's key, and the page's).
pub const KEY: &str = "PRIMITIVE_ORDERED_PIXEL_SHADER=1 turns POPS on for the draw; \
POPS_OVERLAP_NUM_SAMPLES (GFX9-10.3) or OVERRIDE_INTRINSIC_RATE (GFX11 and later) is the rate at \
which overlap is detected (pixel vs sample interlock); POPS_DRAIN_PS_ON_OVERLAP and PUNCHOUT_MODE \
are the missed-overlap workaround (>= 8 samples on affected chips); LOAD_COLLISION_WAVEID / \
LOAD_INTRAWAVE_COLLISION give the shader its overlap wave ID. Full state: the report's \"state\" \
lines (\"registers\" and \"pm4\").";

/// The register fields a reader of the table needs to see, in the order shown: whether POPS is
/// on, how overlap is detected and at what rate, and the hardware-bug workarounds.
pub const KEY_FIELDS: &[&str] = &[
    "PRIMITIVE_ORDERED_PIXEL_SHADER",
    "POPS_OVERLAP_NUM_SAMPLES",
    "OVERRIDE_INTRINSIC_RATE_ENABLE",
    "OVERRIDE_INTRINSIC_RATE",
    "POPS_DRAIN_PS_ON_OVERLAP",
    "PUNCHOUT_MODE",
    "LOAD_COLLISION_WAVEID",
    "LOAD_INTRAWAVE_COLLISION",
    "EXEC_IF_OVERLAPPED",
];

pub fn key_fields(registers: Option<&pops_report::Registers>) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let Some(regs) = registers else {
        return out;
    };
    for &name in KEY_FIELDS {
        if let Some(v) = regs.values().find_map(|r| r.fields.get(name)) {
            out.push((name.to_string(), *v));
        }
    }
    out
}

/// `FIELD=value` pairs of [`KEY_FIELDS`].
type KeyFields = Vec<(String, u64)>;

/// Distinct register states whose key fields are kept; past this the cache starts again.
const MAX_FIELDS: usize = 65_536;

/// Builds a [`Summary`] from lines fed to it, one at a time.
#[derive(Default)]
pub struct Summarizer {
    reader: Reader,
    s: Summary,
    /// Row index by the row without its counts.
    rows: HashMap<PipelineRow, usize>,
    /// Version 2 draw lines: their row and the totals counted so far.
    ids: pops_report::read::DrawTotals<usize>,
    /// The key fields of each distinct register state (held: its address names it).
    fields: HashMap<usize, (std::sync::Arc<pops_report::Registers>, KeyFields)>,
    lines: usize,
}

impl Summarizer {
    pub fn new() -> Summarizer {
        Summarizer::default()
    }

    /// Reads every line of `input`.
    pub fn read(&mut self, input: impl std::io::Read) -> std::io::Result<()> {
        let mut reader = std::mem::take(&mut self.reader);
        let base = self.lines;
        let mut last = 0;
        let r = pops_report::read::each_line_with(&mut reader, input, |n, item| {
            last = n;
            self.item(base + n, item)
        });
        self.lines = base + last;
        self.reader = reader;
        r
    }

    /// Timing lines read so far.
    pub fn timing_lines(&self) -> usize {
        self.s.timing.len()
    }

    /// Reads the report at `path`; an unreadable file is an error naming it.
    pub fn read_file(&mut self, path: &Path) -> Result<(), ReportFileError> {
        let unreadable = |e| ReportFileError::of(path, e);
        let f = std::fs::File::open(path).map_err(unreadable)?;
        self.read(f).map_err(unreadable)
    }

    fn item(&mut self, line: usize, item: Result<Item, pops_report::read::LineError>) {
        match item {
            Ok(Item::Record(r)) => self.record(*r),
            Ok(Item::Counts(counts)) => {
                let (rows, s) = (&mut self.ids, &mut self.s);
                rows.counts(&counts, |&row, (more_draws, more_cbs), _| {
                    if let Some((d, n)) = &mut s.interlocked[row].draws {
                        *d += more_draws;
                        *n += more_cbs;
                    }
                    s.draw_records += more_cbs;
                });
            }
            Ok(Item::Timing(mut t)) => {
                // A frame's (or submission's) share per object is read from the object lines at
                // the device's end; kept per frame it would grow with the report.
                if t.scope != pops_report::TimingScope::Object {
                    t.objects = Vec::new();
                }
                self.s.timing.push(t)
            }
            Ok(Item::DeviceLost(l)) => self.s.device_lost.push(*l),
            Ok(Item::State | Item::Blank) => {}
            Err(e) => {
                self.s.bad_lines += 1;
                if self.s.bad_line_numbers.len() < BAD_LINES_KEPT {
                    self.s.bad_line_numbers.push(line);
                    self.s.bad_reasons.push(e.to_string());
                }
            }
        }
    }

    fn record(&mut self, r: Resolved) {
        self.s.records += 1;
        if self.s.null_device.is_none() {
            self.s.null_device.clone_from(&r.null_device);
        }
        if self.s.driver.is_none() {
            self.s.driver.clone_from(&r.driver);
        }
        let recordings = match r.kind {
            pops_report::Kind::Draw => r.command_buffers.unwrap_or(1),
            _ => {
                self.s.created += 1;
                0
            }
        };
        self.s.draw_records += recordings;
        if r.experiment.is_some() {
            self.s.experimented += 1;
        }
        if r.interlock == pops_report::Interlock::None {
            return;
        }
        self.s.verification.add(&r);
        for d in &r.diagnostics {
            if !self.s.findings.iter().any(|f| f.code == d.code) {
                self.s.findings.push(d.clone());
            }
        }
        let draws = r.draws.map(|n| (n, recordings));
        let key = PipelineRow {
            kind: r.kind,
            handle: r.handle,
            object: r.object,
            name: r.name,
            stage_hash: r.stage_hash.unwrap_or_else(|| "-".to_string()),
            interlock: r.interlock,
            samples: r.samples.map(u64::from),
            per_sample: r.per_sample,
            chip: r.chip,
            fields: self.key_fields(r.registers.as_ref()),
            diagnostics: r.diagnostics.iter().map(|d| (d.severity, d.code)).collect(),
            draws: None,
            experiment: r
                .experiment
                .as_ref()
                .map(|e| format!("{}: {}", e.name.name(), e.changes_text())),
        };
        // Draw records repeat per command buffer (version 1) or per state (version 2): one row
        // per object and state, the draws summed. Identical creation records are one row too.
        let row = match self.rows.get(&key) {
            Some(&i) => {
                if let (Some((d, n)), Some((more, recs))) =
                    (&mut self.s.interlocked[i].draws, draws)
                {
                    *d += more;
                    *n += recs;
                }
                i
            }
            None => {
                let i = self.s.interlocked.len();
                self.s.interlocked.push(PipelineRow {
                    draws: draws.or(match key.kind {
                        pops_report::Kind::Draw => Some((0, recordings)),
                        _ => None,
                    }),
                    ..key.clone()
                });
                self.rows.insert(key, i);
                i
            }
        };
        if r.kind == pops_report::Kind::Draw && r.schema_version >= 2 {
            self.ids.record(
                &r.app,
                r.id,
                row,
                r.draws.unwrap_or(0),
                r.command_buffers.unwrap_or(1),
            );
        }
    }

    /// [`key_fields`] of a state, worked out once per distinct state.
    fn key_fields(
        &mut self,
        regs: Option<&std::sync::Arc<pops_report::Registers>>,
    ) -> Vec<(String, u64)> {
        let Some(regs) = regs else {
            return Vec::new();
        };
        let at = std::sync::Arc::as_ptr(regs) as usize;
        if let Some((_, f)) = self.fields.get(&at) {
            return f.clone();
        }
        if self.fields.len() >= MAX_FIELDS {
            self.fields.clear();
        }
        let f = key_fields(Some(regs));
        self.fields.insert(at, (regs.clone(), f.clone()));
        f
    }

    /// The summary. A creation record without a name takes the name its draws carry
    /// (applications often name an object after creating it): the first draw row after it of
    /// the same object (its number; in reports without numbers, the same handle and stage: a
    /// handle is recycled once its object is destroyed, so an earlier one is another object).
    pub fn finish(self) -> Summary {
        let mut s = self.s;
        for i in 0..s.interlocked.len() {
            if s.interlocked[i].name.is_some() || s.interlocked[i].draws.is_some() {
                continue;
            }
            let this = &s.interlocked[i];
            let (handle, hash, object) = (&this.handle, &this.stage_hash, this.object);
            // The object's number, where both rows carry it, says which draws are its own.
            let name = s.interlocked[i + 1..]
                .iter()
                .find(|r| {
                    r.draws.is_some()
                        && r.handle == *handle
                        && r.stage_hash == *hash
                        && (object.is_none() || r.object.is_none() || r.object == object)
                })
                .and_then(|r| r.name.clone());
            s.interlocked[i].name = name;
        }
        s
    }
}

/// Summarises a report's text. Pure.
pub fn summarize(text: &str) -> Summary {
    let mut m = Summarizer::new();
    // Reading from memory cannot fail.
    let _ = m.read(text.as_bytes());
    m.finish()
}

/// The warning that nothing was rendered, where the records come from a device that executes
/// nothing; the same words on the terminal and the page.
pub fn nothing_rendered(s: &Summary) -> Option<String> {
    s.null_device.as_ref().map(|d| {
        format!(
            "NOTHING WAS RENDERED: these records come from {d}, which creates pipelines and \
             records draws but executes nothing; the rows are what the driver was asked to program."
        )
    })
}

/// A report file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the report {}: {reason}", path.display())]
pub struct ReportFileError {
    pub path: std::path::PathBuf,
    pub reason: String,
}

impl ReportFileError {
    /// The report at `path` could not be read: `e`.
    pub fn of(path: &Path, e: std::io::Error) -> Self {
        ReportFileError {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
    }
}

/// Summarises reports read as one, streamed from their files.
pub fn summarize_files<P: AsRef<Path>>(paths: &[P]) -> Result<Summary, ReportFileError> {
    let mut m = Summarizer::new();
    for p in paths {
        m.read_file(p.as_ref())?;
    }
    Ok(m.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = r#"{"schema_version":2,"kind":"state","state":"00000000000000ab","chip":"navi10","registers":{"DB_SHADER_CONTROL":{"address":163968,"value":196609,"fields":{"PRIMITIVE_ORDERED_PIXEL_SHADER":1,"POPS_OVERLAP_NUM_SAMPLES":3},"decided":["PRIMITIVE_ORDERED_PIXEL_SHADER"]}},"pm4":[1,2]}"#;

    fn draw(version: u32, id: u64, cb: &str, draws: u64) -> String {
        let state = if version == 2 {
            r#""state":"00000000000000ab","#.to_string()
        } else {
            let regs =
                &STATE[STATE.find("\"registers\"").unwrap()..STATE.rfind(",\"pm4\"").unwrap()];
            format!("{regs},\"pm4\":[1,2],")
        };
        let cbs = if version == 2 {
            ",\"command_buffers\":1"
        } else {
            ""
        };
        format!(
            r#"{{"schema_version":{version},"id":{id},"app":"a","device":"d","kind":"draw","handle":"0x10","entry_point":"main","stage_hash":null,"interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":8,"chip":"navi10",{state}"diagnostics":[],"source":"shader_module","command_buffer":"{cb}","bound":"pipeline","draws":{draws}{cbs}}}"#
        )
    }

    /// Records from a device that executes nothing make the summary say nothing was rendered,
    /// naming the device; others do not.
    #[test]
    fn records_of_a_null_device_say_nothing_was_rendered() {
        let plain = draw(2, 1, "0x0", 1);
        assert_eq!(
            nothing_rendered(&summarize(&[STATE, &plain].join("\n"))),
            None
        );
        let null = plain.replace(
            r#""bound":"pipeline","#,
            r#""bound":"pipeline","null_device":"RADV null hardware (RADV_FORCE_FAMILY=navi10)","#,
        );
        let s = summarize(&[STATE, &null].join("\n"));
        let w = nothing_rendered(&s).expect("a warning");
        assert!(
            w.starts_with("NOTHING WAS RENDERED: these records come from RADV null hardware (RADV_FORCE_FAMILY=navi10)"),
            "{w}"
        );
    }

    /// Two unnamed objects created one after the other at the same address (null hardware and
    /// many drivers reuse it) are two rows with two names: the object's number tells them apart,
    /// and each creation row takes the name of its own draws only.
    #[test]
    fn objects_at_one_address_are_rows_named_by_their_number() {
        let draw = |id: u64, object: u64| {
            draw(2, id, "0x0", 1).replace(
                r#""bound":"pipeline","#,
                &format!(r#""bound":"pipeline","object":{object},"#),
            )
        };
        let named = |line: String, name: &str| {
            line.replace(r#""draws":1"#, &format!(r#""draws":1,"name":"{name}""#))
        };
        let created = |id: u64, object: u64| {
            draw(id, object)
                .replace(r#""kind":"draw""#, r#""kind":"pipeline""#)
                .replace(r#","command_buffer":"0x0","bound":"pipeline""#, "")
                .replace(r#","draws":1,"command_buffers":1"#, "")
        };
        let text = [
            STATE.to_string(),
            created(1, 1),
            draw(2, 1),
            created(3, 2),
            named(draw(4, 2), "second"),
        ]
        .join("\n");
        let s = summarize(&text);
        let labels: Vec<String> = s.interlocked.iter().map(PipelineRow::label).collect();
        assert_eq!(
            labels,
            [
                "pipeline #1 (0x10)",
                "draw #1 (0x10)",
                "pipeline 'second'",
                "draw 'second'"
            ],
            "{text}"
        );
    }

    /// The same run written as version 1 (a line per command buffer recording) and as version 2
    /// (the state once, one draw line, totals in a counts line) summarises to the same row.
    #[test]
    fn both_versions_summarise_alike() {
        let v1: Vec<String> = (0..5)
            .map(|i| draw(1, 10 + i, &format!("0x{i}"), 3))
            .collect();
        let v2 = [
            STATE.to_string(),
            draw(2, 10, "0x0", 3),
            r#"{"schema_version":2,"app":"a","kind":"counts","records":[{"record":10,"draws":9,"command_buffers":3}]}"#.to_string(),
            r#"{"schema_version":2,"app":"a","kind":"counts","records":[{"record":10,"draws":15,"command_buffers":5}]}"#.to_string(),
        ];
        let (one, two) = (summarize(&v1.join("\n")), summarize(&v2.join("\n")));
        assert_eq!(one.interlocked, two.interlocked);
        assert_eq!(two.interlocked.len(), 1);
        assert_eq!(two.interlocked[0].draws, Some((15, 5)));
        assert_eq!(one.draw_records, 5);
        assert_eq!(two.draw_records, 5);
        assert_eq!(
            two.interlocked[0].fields,
            [
                ("PRIMITIVE_ORDERED_PIXEL_SHADER".to_string(), 1),
                ("POPS_OVERLAP_NUM_SAMPLES".to_string(), 3)
            ]
        );
        assert_eq!(two.bad_lines, 0);
    }

    /// A record naming a state the report never defined is a bad line saying so; counts of a
    /// record the report does not hold change nothing.
    #[test]
    fn a_missing_state_is_a_bad_line_that_says_why() {
        let text = [
            draw(2, 10, "0x0", 3),
            r#"{"schema_version":2,"app":"a","kind":"counts","records":[{"record":99,"draws":9,"command_buffers":3}]}"#.to_string(),
        ]
        .join("\n");
        let s = summarize(&text);
        assert_eq!(s.bad_lines, 1);
        assert!(s.bad_reasons[0].contains("00000000000000ab"));
        assert!(s.interlocked.is_empty());
    }

    /// A million version 1 lines of one state hold one row, one state and the first bad line
    /// numbers only: memory does not grow with the lines.
    #[test]
    fn memory_holds_distinct_rows_not_lines() {
        let mut m = Summarizer::new();
        let line = draw(1, 1, "0x1", 1) + "\n";
        for _ in 0..1000 {
            m.read(line.repeat(100).as_bytes()).unwrap();
            m.read("garbage\n".as_bytes()).unwrap();
        }
        assert_eq!(m.reader.states(), 1);
        assert_eq!(m.rows.len(), 1);
        let s = m.finish();
        assert_eq!(s.interlocked[0].draws, Some((100_000, 100_000)));
        assert_eq!(s.bad_lines, 1000);
        assert_eq!(s.bad_line_numbers.len(), BAD_LINES_KEPT);
        assert_eq!(s.bad_reasons.len(), BAD_LINES_KEPT);
        assert_eq!(s.bad_line_numbers[0], 101);
    }
}
