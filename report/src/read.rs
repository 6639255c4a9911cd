//! Reading a report of either schema version one line at a time, with every record's registers
//! resolved: version 1 lines carry them inline (each distinct state is parsed once and shared),
//! version 2 lines name a `state` line written before them. Memory grows with the distinct
//! states, never with the lines, so a reader can stream a report of any length.

use crate::{Counts, DeviceLost, LostDraw, Record, Registers, State, Timing};
use serde_json::value::RawValue;
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
use std::sync::Arc;

/// A record with its registers resolved, shared between the records of one state.
pub type Resolved = Record<Option<Arc<Registers>>>;
/// A device-lost line with its draws' registers resolved.
pub type ResolvedLost = DeviceLost<Option<Arc<Registers>>>;

/// One line, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Record(Box<Resolved>),
    Counts(Counts),
    Timing(Timing),
    DeviceLost(Box<ResolvedLost>),
    /// A version 2 state line: kept for the records that refer to it.
    State,
    /// A line with nothing but white space.
    Blank,
}

/// Why a line is not a report line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("not a report line: {0}")]
    NotALine(String),
    #[error("refers to state {0}, which no earlier line of the report defines")]
    UnknownState(String),
}

/// Why a line is no report line, in the words of the type its `kind` names (a record with a
/// code pops does not report says so), else as the general reading found it.
fn why_not(line: &[u8], general: serde_json::Error) -> String {
    let typed = match peek_kind(line) {
        Some(b"pipeline" | b"library" | b"shader_object" | b"draw") => {
            serde_json::from_slice::<crate::Record>(line).err()
        }
        Some(b"device_lost") => serde_json::from_slice::<crate::DeviceLost>(line).err(),
        _ => None,
    };
    typed.unwrap_or(general).to_string()
}

/// One distinct state: its registers and PM4.
#[derive(Clone, Debug)]
struct Known {
    registers: Arc<Registers>,
    pm4: Arc<[u32]>,
}

/// Inline (version 1) states kept at most: past this, the cache starts again (a report with more
/// distinct states than this is read correctly, only more slowly).
const MAX_INLINE: usize = 65_536;

/// Reads lines, keeping the distinct states seen so far.
#[derive(Debug, Default)]
pub struct Reader {
    /// Version 2 state lines by id.
    states: HashMap<String, Known>,
    /// Version 1 inline registers by their JSON text.
    inline: HashMap<Box<str>, Arc<Registers>>,
}

impl Reader {
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Distinct states held.
    pub fn states(&self) -> usize {
        self.states.len() + self.inline.len()
    }

    /// Reads one line (without or with its newline).
    pub fn line(&mut self, line: &[u8]) -> Result<Item, LineError> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Item::Blank);
        }
        // Each line is read once, as the type its kind names: the layer writes compact JSON
        // with `kind` near the start. Where that is not so, or the line is not what its kind
        // says, the general reading below names what is wrong.
        let fast = match peek_kind(line) {
            // Not found near the start (JSON from another writer): most lines are records.
            None | Some(b"pipeline" | b"library" | b"shader_object" | b"draw") => {
                // Most of a version 1 record is its registers: left as text, parsed only for a
                // state not seen before.
                match serde_json::from_slice::<Record<Option<&RawValue>>>(line) {
                    Ok(r) => Some(self.record(r).map(|r| Item::Record(Box::new(r)))),
                    Err(_) => None,
                }
            }
            Some(b"counts") => serde_json::from_slice::<Counts>(line)
                .ok()
                .map(|c| Ok(Item::Counts(c))),
            Some(b"state") => self.state_line(line),
            Some(b"timing") => serde_json::from_slice::<Timing>(line)
                .ok()
                .map(|t| Ok(Item::Timing(t))),
            _ => None,
        };
        if let Some(item) = fast {
            return item;
        }
        match serde_json::from_slice::<crate::Line>(line) {
            Ok(crate::Line::Timing(t)) => Ok(Item::Timing(t)),
            Ok(crate::Line::Counts(c)) => Ok(Item::Counts(c)),
            Ok(crate::Line::State(s)) => {
                let State {
                    state,
                    registers,
                    pm4,
                    ..
                } = *s;
                self.states.insert(
                    state,
                    Known {
                        registers: Arc::new(registers),
                        pm4,
                    },
                );
                Ok(Item::State)
            }
            Ok(crate::Line::DeviceLost(l)) => self.lost(*l).map(|l| Item::DeviceLost(Box::new(l))),
            Ok(crate::Line::Record(r)) => {
                let r = r.map_registers(|r| r.map(Arc::new));
                self.resolve_state(r).map(|r| Item::Record(Box::new(r)))
            }
            Err(e) => Err(LineError::NotALine(why_not(line, e))),
        }
    }

    /// A state line: nothing more is read of one whose id the reader holds (reports appended
    /// from several runs repeat them).
    fn state_line(&mut self, line: &[u8]) -> Option<Result<Item, LineError>> {
        #[derive(serde::Deserialize)]
        struct Id<'a> {
            #[serde(borrow)]
            state: std::borrow::Cow<'a, str>,
        }
        if let Ok(id) = serde_json::from_slice::<Id>(line) {
            if self.states.contains_key(id.state.as_ref()) {
                return Some(Ok(Item::State));
            }
        }
        serde_json::from_slice::<State<&RawValue>>(line)
            .ok()
            .map(|st| self.state(st))
    }

    /// A state line: its registers parsed unless a state of that id is held already (an id is
    /// a hash of the registers: the same id is the same state).
    fn state(&mut self, st: State<&RawValue>) -> Result<Item, LineError> {
        if let std::collections::hash_map::Entry::Vacant(v) = self.states.entry(st.state) {
            let registers: Registers = serde_json::from_str(st.registers.get())
                .map_err(|e| LineError::NotALine(format!("state registers: {e}")))?;
            v.insert(Known {
                registers: Arc::new(registers),
                pm4: st.pm4,
            });
        }
        Ok(Item::State)
    }

    fn record(&mut self, r: Record<Option<&RawValue>>) -> Result<Resolved, LineError> {
        let inline = match r.registers {
            Some(raw) => Some(self.intern(raw)?),
            None => None,
        };
        self.resolve_state(r.map_registers(|_| inline))
    }

    /// Version 2: the registers and PM4 of the record's state line.
    fn resolve_state(&self, mut r: Resolved) -> Result<Resolved, LineError> {
        if r.registers.is_none() {
            if let Some(id) = &r.state {
                let k = self
                    .states
                    .get(id)
                    .ok_or_else(|| LineError::UnknownState(id.clone()))?;
                r.registers = Some(k.registers.clone());
                r.pm4 = k.pm4.clone();
            }
        }
        Ok(r)
    }

    /// Version 1 registers, parsed once per distinct text.
    fn intern(&mut self, raw: &RawValue) -> Result<Arc<Registers>, LineError> {
        if let Some(r) = self.inline.get(raw.get()) {
            return Ok(r.clone());
        }
        let parsed: Registers = serde_json::from_str(raw.get())
            .map_err(|e| LineError::NotALine(format!("registers: {e}")))?;
        if self.inline.len() >= MAX_INLINE {
            self.inline.clear();
        }
        let parsed = Arc::new(parsed);
        self.inline.insert(raw.get().into(), parsed.clone());
        Ok(parsed)
    }

    fn lost(&self, l: DeviceLost) -> Result<ResolvedLost, LineError> {
        let resolve =
            |list: Vec<LostDraw>| -> Result<Vec<LostDraw<Option<Arc<Registers>>>>, LineError> {
                list.into_iter()
                    .map(|d| {
                        let registers = match (d.registers, &d.state) {
                            (Some(r), _) => Some(Arc::new(r)),
                            (None, Some(id)) => Some(
                                self.states
                                    .get(id)
                                    .ok_or_else(|| LineError::UnknownState(id.clone()))?
                                    .registers
                                    .clone(),
                            ),
                            (None, None) => None,
                        };
                        Ok(LostDraw {
                            registers,
                            record: d.record,
                            queue: d.queue,
                            submission: d.submission,
                            command_buffer: d.command_buffer,
                            handle: d.handle,
                            bound: d.bound,
                            name: d.name,
                            module_name: d.module_name,
                            stage_hash: d.stage_hash,
                            interlock: d.interlock,
                            samples: d.samples,
                            chip: d.chip,
                            draws: d.draws,
                            state: d.state,
                            diagnostics: d.diagnostics,
                        })
                    })
                    .collect()
            };
        Ok(DeviceLost {
            in_flight: resolve(l.in_flight)?,
            at_loss: resolve(l.at_loss)?,
            recent: resolve(l.recent)?,
            schema_version: l.schema_version,
            app: l.app,
            device: l.device,
            kind: l.kind,
            chip: l.chip,
            call: l.call,
            queue: l.queue,
            message: l.message,
            not_kept: l.not_kept,
            fault: l.fault,
        })
    }
}

/// The value of a line's first `"kind":"…"`, within its first 512 bytes: the kind of a
/// compact report line (no string value can hold that byte sequence, its quotes being escaped).
fn peek_kind(line: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"kind\":\"";
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(KEY));
    let head = &line[..line.len().min(512)];
    let at = FINDER.find(head)? + KEY.len();
    let len = memchr::memchr(b'"', &line[at..])?;
    Some(&line[at..at + len])
}

/// Reads every line of `input` in order, calling `each` with the line's number (from 1) and
/// what it holds. Only the current line is in memory.
pub fn each_line(
    input: impl std::io::Read,
    each: impl FnMut(usize, Result<Item, LineError>),
) -> std::io::Result<()> {
    each_line_with(&mut Reader::new(), input, each)
}

/// [`each_line`] with a reader of the caller's (several files read as one report). Lines are
/// read in place from large blocks: no line is copied.
pub fn each_line_with(
    reader: &mut Reader,
    mut input: impl std::io::Read,
    mut each: impl FnMut(usize, Result<Item, LineError>),
) -> std::io::Result<()> {
    const BLOCK: usize = 1 << 20;
    let mut buf = vec![0u8; BLOCK];
    // `buf[..filled]` holds bytes read and not yet handed out as lines.
    let mut filled = 0;
    let mut n = 0;
    loop {
        if filled == buf.len() {
            // One line longer than the buffer: make room for the rest of it.
            buf.resize(buf.len() * 2, 0);
        }
        let got = match input.read(&mut buf[filled..]) {
            Ok(0) => {
                if filled > 0 {
                    n += 1;
                    each(n, reader.line(&buf[..filled]));
                }
                return Ok(());
            }
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = filled + got;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &buf[filled..end]) {
            let nl = filled + nl;
            n += 1;
            each(n, reader.line(&buf[start..nl]));
            start = nl + 1;
        }
        buf.copy_within(start..end, 0);
        filled = end - start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"schema_version":1,"id":3,"app":"a","device":"d","kind":"draw","handle":"0x10","entry_point":"main","stage_hash":"0123456789abcdef","interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":4,"chip":"navi31","registers":{"DB_SHADER_CONTROL":{"address":163980,"value":1,"fields":{"PRIMITIVE_ORDERED_PIXEL_SHADER":1},"decided":["PRIMITIVE_ORDERED_PIXEL_SHADER"]}},"pm4":[3221432576,10,1],"diagnostics":[],"source":"shader_module","command_buffer":"0x20","bound":"pipeline","draws":2}"#;
    const STATE: &str = r#"{"schema_version":2,"kind":"state","state":"00000000000000ab","chip":"navi31","registers":{"DB_SHADER_CONTROL":{"address":163980,"value":1,"fields":{"PRIMITIVE_ORDERED_PIXEL_SHADER":1},"decided":["PRIMITIVE_ORDERED_PIXEL_SHADER"]}},"pm4":[3221432576,10,1]}"#;
    const V2: &str = r#"{"schema_version":2,"id":3,"app":"a","device":"d","kind":"draw","handle":"0x10","entry_point":"main","stage_hash":"0123456789abcdef","interlock":"pixel-ordered","begin_count":1,"end_count":1,"per_sample":false,"samples":4,"chip":"navi31","state":"00000000000000ab","diagnostics":[],"source":"shader_module","command_buffer":"0x20","bound":"pipeline","draws":2,"command_buffers":1}"#;

    fn record(item: Item) -> Resolved {
        match item {
            Item::Record(r) => *r,
            other => panic!("not a record: {other:?}"),
        }
    }

    /// A version 2 record reads as the version 1 line of the same state: the registers and PM4
    /// of its state line.
    #[test]
    fn both_versions_read_to_the_same_registers() {
        let mut r = Reader::new();
        let one = record(r.line(V1.as_bytes()).unwrap());
        assert_eq!(r.line(STATE.as_bytes()).unwrap(), Item::State);
        let two = record(r.line(V2.as_bytes()).unwrap());
        assert_eq!(one.registers, two.registers);
        assert_eq!(one.pm4, two.pm4);
        assert_eq!(two.command_buffers, Some(1));
        assert_eq!(
            one.registers.as_ref().unwrap()["DB_SHADER_CONTROL"].fields
                ["PRIMITIVE_ORDERED_PIXEL_SHADER"],
            1
        );
    }

    /// A thousand version 1 lines of one state hold one state.
    #[test]
    fn repeated_inline_states_are_held_once() {
        let mut r = Reader::new();
        let first = record(r.line(V1.as_bytes()).unwrap());
        for _ in 0..1000 {
            let again = record(r.line(V1.as_bytes()).unwrap());
            assert!(Arc::ptr_eq(
                first.registers.as_ref().unwrap(),
                again.registers.as_ref().unwrap()
            ));
        }
        assert_eq!(r.states(), 1);
    }

    /// A record naming a state no line defined, and a line that is not a report line, are errors
    /// naming what is wrong; the reader goes on with the next line.
    #[test]
    fn bad_lines_are_named() {
        let mut r = Reader::new();
        assert_eq!(
            r.line(V2.as_bytes()),
            Err(LineError::UnknownState("00000000000000ab".into()))
        );
        assert!(matches!(r.line(b"{\"x\":1}"), Err(LineError::NotALine(_))));
        assert!(matches!(r.line(b"\xff\xfe"), Err(LineError::NotALine(_))));
        // A record with a finding code pops does not report is refused, naming the code.
        let odd = V1.replace(
            "\"diagnostics\":[]",
            "\"diagnostics\":[{\"severity\":\"info\",\"code\":\"made-up\",\"message\":\"m\"}]",
        );
        let e = r.line(odd.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("`made-up` is not a finding code"), "{e}");
        assert_eq!(r.line(b"  \n").unwrap(), Item::Blank);
        let counts = r#"{"schema_version":2,"app":"a","kind":"counts","records":[{"record":3,"draws":20,"command_buffers":10}]}"#;
        assert!(
            matches!(r.line(counts.as_bytes()), Ok(Item::Counts(c)) if c.records[0].draws == 20)
        );
    }

    /// A reader handing out a few bytes at a time.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Lines split across reads, a line longer than the read block (2 MiB of diagnostics) and a
    /// last line without its newline are each read whole.
    #[test]
    fn lines_are_whole_whatever_the_reads() {
        let long = V1.replace(
            "\"diagnostics\":[]",
            &format!(
                "\"diagnostics\":[{{\"severity\":\"info\",\"code\":\"isa-model\",\"message\":\"{}\"}}]",
                "m".repeat(2 << 20)
            ),
        );
        let text = format!("{V1}\n{long}\n{STATE}\n{V2}");
        let mut got = Vec::new();
        each_line(Trickle(text.as_bytes()), |n, item| {
            got.push((n, matches!(item, Ok(Item::Record(_)) | Ok(Item::State))))
        })
        .unwrap();
        assert_eq!(got, [(1, true), (2, true), (3, true), (4, true)]);
        let mut got = Vec::new();
        each_line(text.as_bytes(), |n, item| got.push((n, item.is_ok()))).unwrap();
        assert_eq!(got, [(1, true), (2, true), (3, true), (4, true)]);
    }

    #[test]
    fn each_line_numbers_lines_from_one() {
        let text = format!("{V1}\n\nnot json\n{STATE}\n{V2}");
        let mut seen = Vec::new();
        each_line(text.as_bytes(), |n, item| seen.push((n, item.is_ok()))).unwrap();
        assert_eq!(
            seen,
            [(1, true), (2, true), (3, false), (4, true), (5, true)]
        );
    }
}

/// Each version-2 draw record's totals (draws, command-buffer recordings), by app and record
/// id, as its line gives them and later `counts` lines raise them: the one merge of a report's
/// counts that every reader of reports uses. `T` is what the reader attaches to a record (a row
/// of its own, an index).
#[derive(Clone, Debug)]
pub struct DrawTotals<T> {
    /// By app, then record id: the tag and the totals.
    by: std::collections::HashMap<String, std::collections::HashMap<u64, (T, u64, u64)>>,
}

impl<T> Default for DrawTotals<T> {
    fn default() -> Self {
        DrawTotals {
            by: Default::default(),
        }
    }
}

impl<T> DrawTotals<T> {
    /// A draw record's line: its totals so far. A later line with the same app and id (another
    /// run appended to the report) takes the record over.
    pub fn record(&mut self, app: &str, id: u64, tag: T, draws: u64, command_buffers: u64) {
        let app = match self.by.get_mut(app) {
            Some(a) => a,
            None => self.by.entry(app.to_string()).or_default(),
        };
        app.insert(id, (tag, draws, command_buffers));
    }

    /// A counts line: each record it names that a line was read for gets the line's totals;
    /// `raised` is told, per such record, its tag, what the line adds (draws, recordings) and
    /// the new totals. A total never goes down.
    pub fn counts(&mut self, c: &Counts, mut raised: impl FnMut(&T, (u64, u64), (u64, u64))) {
        let Some(app) = self.by.get_mut(c.app.as_str()) else {
            return;
        };
        for n in &c.records {
            let Some((tag, draws, cbs)) = app.get_mut(&n.record) else {
                continue;
            };
            let more = (
                n.draws.saturating_sub(*draws),
                n.command_buffers.saturating_sub(*cbs),
            );
            *draws = (*draws).max(n.draws);
            *cbs = (*cbs).max(n.command_buffers);
            raised(tag, more, (*draws, *cbs));
        }
    }
}

#[cfg(test)]
mod draw_totals_tests {
    use super::*;

    fn counts(app: &str, record: u64, draws: u64, command_buffers: u64) -> Counts {
        Counts {
            schema_version: 2,
            app: app.into(),
            kind: crate::CountsKind::Counts,
            records: vec![crate::Count {
                record,
                draws,
                command_buffers,
            }],
        }
    }

    /// A counts line raises its record's totals and says by how much; another app's record of
    /// the same id, and a record never read, are left alone; totals never go down.
    #[test]
    fn counts_lines_raise_the_totals_of_the_records_they_name() {
        let mut t = DrawTotals::default();
        t.record("a", 10, 'x', 3, 1);
        let mut seen = Vec::new();
        t.counts(&counts("a", 10, 9, 3), |tag, more, now| {
            seen.push((*tag, more, now))
        });
        t.counts(&counts("b", 10, 50, 5), |tag, more, now| {
            seen.push((*tag, more, now))
        });
        t.counts(&counts("a", 11, 50, 5), |tag, more, now| {
            seen.push((*tag, more, now))
        });
        t.counts(&counts("a", 10, 5, 2), |tag, more, now| {
            seen.push((*tag, more, now))
        });
        assert_eq!(seen, [('x', (6, 2), (9, 3)), ('x', (0, 0), (9, 3))]);
    }
}
