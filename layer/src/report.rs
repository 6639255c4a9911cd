//! The JSON Lines report file (schemas/report.schema.json, version 2): one line per analysed
//! pipeline, library, shader object, draw record or timing unit, written in whole-line chunks.
//!
//! The report grows with what the application does differently, not with its frames: each
//! distinct register state is written once per file as a `state` line that records name, and a
//! command buffer recorded again with the same bound object and state adds its draws to the
//! draw record already written; `counts` lines carry those totals, at most about once a second
//! while they change and whenever the file is flushed at a device's or the process's end.

use crate::model::record::{text_id, Record, Shared};
use parking_lot::Mutex;
use pops_report::{Count, Counts, CountsKind, Kind, Severity, State, StateKind, SCHEMA_VERSION};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// A report line as written: the record's JSON and a newline (its registers inline: for the
/// log and tools, not the report file).
pub fn to_line(record: &Record) -> String {
    // Serializing this plain struct cannot fail (no maps with non-string keys).
    let mut s = serde_json::to_string(record)
        .unwrap_or_else(|e| format!("{{\"error\":\"report serialisation failed: {e}\"}}"));
    s.push('\n');
    s
}

/// A draw record already in the file, and the totals added to it since.
struct Totals {
    id: u64,
    app: String,
    draws: u64,
    command_buffers: u64,
    /// Changed since the last `counts` line.
    changed: bool,
}

/// One report file: lines are collected and written in whole-line chunks.
struct Sink {
    file: File,
    buf: Vec<u8>,
    last_flush: Instant,
    /// The state lines in the file, by id.
    states: HashSet<String>,
    /// The draw records in the file, by what they say apart from their id and counts.
    draws: HashMap<u64, Totals>,
    /// Some totals changed since the last `counts` line.
    changed: bool,
    last_counts: Instant,
}

impl Sink {
    /// Writes the buffer; with `counts`, the changed totals first (`force`: whatever their age).
    fn flush(&mut self, force_counts: bool) -> std::io::Result<()> {
        self.last_flush = Instant::now();
        if self.changed && (force_counts || self.last_counts.elapsed() >= COUNTS_AGE) {
            self.write_counts();
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        let r = self.file.write_all(&self.buf);
        self.buf.clear();
        r
    }

    /// One `counts` line per application with changed totals.
    fn write_counts(&mut self) {
        self.changed = false;
        self.last_counts = Instant::now();
        let mut by_app: HashMap<&str, Vec<Count>> = HashMap::new();
        for t in self.draws.values_mut().filter(|t| t.changed) {
            t.changed = false;
            by_app.entry(&t.app).or_default().push(Count {
                record: t.id,
                draws: t.draws,
                command_buffers: t.command_buffers,
            });
        }
        for (app, mut records) in by_app {
            records.sort_by_key(|c| c.record);
            let line = Counts {
                schema_version: SCHEMA_VERSION,
                app: app.to_string(),
                kind: CountsKind::Counts,
                records,
            };
            if serde_json::to_writer(&mut self.buf, &line).is_ok() {
                self.buf.push(b'\n');
            }
        }
    }

    fn push(&mut self, line: &impl Serialize) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.buf, line).map_err(std::io::Error::other)?;
        self.buf.push(b'\n');
        Ok(())
    }
}

/// A chunk is written when it reaches this size…
const FLUSH_BYTES: usize = 64 * 1024;
/// …or when the oldest unwritten line is this old at the next append; and always at
/// vkDestroyDevice, vkDestroyInstance, process exit and library unload ([`flush_all`]).
const FLUSH_AGE: Duration = Duration::from_millis(50);
/// Changed draw totals are written at most this often (and at every [`flush_all`]), so a crash
/// loses about this much of them.
const COUNTS_AGE: Duration = Duration::from_secs(1);
/// Draw records a file remembers for adding to; past this it starts again (the totals written
/// so far stay right; later recordings write new lines, which readers add up by content).
const MAX_DRAW_RECORDS: usize = 65_536;

/// Some file has totals not yet written: [`tick`] has work.
static CHANGED: AtomicBool = AtomicBool::new(false);

type Sinks = Mutex<HashMap<PathBuf, Arc<Mutex<Sink>>>>;

fn sinks() -> &'static Sinks {
    static SINKS: OnceLock<Sinks> = OnceLock::new();
    SINKS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn sink(path: &Path) -> std::io::Result<Arc<Mutex<Sink>>> {
    let mut map = sinks().lock();
    if let Some(f) = map.get(path) {
        return Ok(f.clone());
    }
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let sink = Arc::new(Mutex::new(Sink {
        file,
        buf: Vec::with_capacity(FLUSH_BYTES),
        last_flush: Instant::now(),
        states: HashSet::new(),
        draws: HashMap::new(),
        changed: false,
        last_counts: Instant::now(),
    }));
    map.insert(path.to_path_buf(), sink.clone());
    start_flusher();
    Ok(sink)
}

/// Starts, once per process, the thread that writes every buffered line within [`FLUSH_AGE`] of
/// its making, so that an application that dies by a signal or `_exit` — where no exit handler
/// runs — has every record made up to that moment in the file but for the last
/// [`FLUSH_AGE`] or so; changed totals are written as [`tick`] writes them. It holds no lock
/// while it sleeps, waits for no lock the application's threads hold (each file is tried), and
/// never keeps the process alive.
fn start_flusher() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("pops-report".into())
            .spawn(|| loop {
                std::thread::sleep(FLUSH_AGE);
                flush_aged();
            });
        if let Err(e) = spawned {
            log::warn!("report: no thread to write buffered lines ({e}): they are written at the next line and at exit only");
        }
    });
}

/// Writes the files whose buffered lines have waited [`FLUSH_AGE`], and changed totals past
/// [`COUNTS_AGE`]; a file another thread is writing is left for the next round.
fn flush_aged() {
    let all: Vec<Arc<Mutex<Sink>>> = match sinks().try_lock() {
        Some(m) => m.values().cloned().collect(),
        None => return,
    };
    for sink in all {
        if let Some(mut s) = sink.try_lock() {
            let counts = s.changed && s.last_counts.elapsed() >= COUNTS_AGE;
            if counts || (!s.buf.is_empty() && s.last_flush.elapsed() >= FLUSH_AGE) {
                let _ = s.flush(counts);
            }
        }
    }
}

/// Appends one record to the report at `path`: its state line first where the file has none
/// yet, then the record naming it — or, for a draw record the file already holds apart from
/// its id, command buffer and counts, nothing but the added counts. Returns the id the record
/// has in the file. A `write` per line costs more than the layer's whole analysis, so lines are
/// buffered and written in chunks of whole lines on an O_APPEND file: lines of several devices,
/// threads or processes never interleave.
pub fn append(path: &Path, record: &Record) -> std::io::Result<u64> {
    // A line with a warning or an error is written at once: it must survive a crash or hang of
    // the application that follows it.
    let urgent = record
        .diagnostics
        .iter()
        .any(|d| matches!(d.severity, Severity::Warning | Severity::Error));
    let sink = sink(path)?;
    let mut s = sink.lock();
    if s.buf.is_empty() {
        s.last_flush = Instant::now();
    }
    let mut line = record.clone();
    line.registers = Shared::null();
    line.pm4 = Arc::from(Vec::new());
    line.state = record.registers.id();
    let mut id = record.id;
    let mut write = true;
    if record.kind == Kind::Draw {
        let n = record.draws.unwrap_or(0);
        line.id = 0;
        line.draws = None;
        line.command_buffer = None;
        let key = text_id(&serde_json::to_string(&line).map_err(std::io::Error::other)?);
        match s.draws.get_mut(&key) {
            Some(t) => {
                t.draws += n;
                t.command_buffers += 1;
                t.changed = true;
                id = t.id;
                write = false;
            }
            None => {
                if s.draws.len() >= MAX_DRAW_RECORDS {
                    s.write_counts();
                    s.draws.clear();
                }
                s.draws.insert(
                    key,
                    Totals {
                        id,
                        app: record.app.clone(),
                        draws: n,
                        command_buffers: 1,
                        changed: false,
                    },
                );
            }
        }
        line.id = record.id;
        line.draws = record.draws;
        line.command_buffer = record.command_buffer.clone();
        line.command_buffers = Some(1);
        if !write {
            s.changed = true;
            CHANGED.store(true, Ordering::Relaxed);
        }
    }
    if write {
        if let (Some(raw), Some(state)) = (record.registers.raw(), &line.state) {
            // The id the record already carries (computed once per state).
            if !s.states.contains(state) {
                s.states.insert(state.clone());
                s.push(&State {
                    schema_version: SCHEMA_VERSION,
                    kind: StateKind::State,
                    state: state.clone(),
                    chip: record.chip.clone(),
                    registers: raw,
                    pm4: record.pm4.clone(),
                })?;
            }
        }
        s.push(&line)?;
    }
    if urgent
        || s.buf.len() >= FLUSH_BYTES
        || s.last_flush.elapsed() >= FLUSH_AGE
        || (s.changed && s.last_counts.elapsed() >= COUNTS_AGE)
    {
        s.flush(false)?;
    }
    Ok(id)
}

/// Appends any other report line (timing, device lost); `urgent` writes it at once.
pub fn append_line(path: &Path, line: &impl Serialize, urgent: bool) -> std::io::Result<()> {
    let sink = sink(path)?;
    let mut s = sink.lock();
    if s.buf.is_empty() {
        s.last_flush = Instant::now();
    }
    s.push(line)?;
    if urgent || s.buf.len() >= FLUSH_BYTES || s.last_flush.elapsed() >= FLUSH_AGE {
        s.flush(urgent)?;
    }
    Ok(())
}

/// Writes the changed totals of files whose last `counts` line is over a second old (called at
/// each present, so totals reach the file while an application replays the same command
/// buffers). Costs one atomic load when nothing changed; never waits for another thread.
pub fn tick() {
    if !CHANGED.load(Ordering::Relaxed) {
        return;
    }
    let all: Vec<Arc<Mutex<Sink>>> = match sinks().try_lock() {
        Some(m) => m.values().cloned().collect(),
        None => return,
    };
    let mut pending = false;
    for sink in all {
        if let Some(mut s) = sink.try_lock() {
            if s.changed && s.last_counts.elapsed() >= COUNTS_AGE {
                let _ = s.flush(true);
            }
            pending |= s.changed;
        } else {
            pending = true;
        }
    }
    CHANGED.store(pending, Ordering::Relaxed);
}

/// Writes every buffered line and every changed total. `blocking: false` (process exit, library
/// unload) skips a file another thread is writing rather than wait for it.
pub fn flush_all(blocking: bool) {
    let all: Vec<Arc<Mutex<Sink>>> = {
        let map = if blocking {
            sinks().lock()
        } else {
            match sinks().try_lock() {
                Some(m) => m,
                None => return,
            }
        };
        map.values().cloned().collect()
    };
    for sink in all {
        let guard = if blocking {
            Some(sink.lock())
        } else {
            sink.try_lock()
        };
        if let Some(mut s) = guard {
            let _ = s.flush(true);
        }
    }
}

/// Set once the process exits: the application's debug-utils callbacks are not called any more
/// (its state may be gone), records still go to the log and the report.
pub static EXITING: AtomicBool = AtomicBool::new(false);

/// Runs at process exit and when the loader unloads the layer (ELF `.fini_array` of the
/// library), so buffered lines survive an application that exits with live devices.
extern "C" fn flush_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        EXITING.store(true, Ordering::Relaxed);
        // Records held back for verdicts still being reached are written first; a
        // verification that does not end in a few seconds is given up rather than hang the exit.
        let deadline = std::time::Instant::now() + crate::background::VERDICT_WAIT;
        for d in crate::registry::devices_now() {
            d.outbox.flush(&d, Some(deadline));
            d.verifier.finish(Some(
                deadline.saturating_duration_since(std::time::Instant::now()),
            ));
            if d.outbox.holding() {
                log::warn!(
                    "device '{}': verify_isa: the process exits while pipelines are still being verified: their records are not written",
                    d.device_name
                );
            }
        }
        flush_all(false)
    });
}

#[used]
#[link_section = ".fini_array"]
static FLUSH_AT_EXIT: extern "C" fn() = flush_at_exit;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::LazyJson;
    use pops_report::{Diagnostic, Interlock, Source};

    /// A register state's JSON, as the layer's records share it.
    struct Fixed(Box<serde_json::value::RawValue>);

    impl LazyJson for Fixed {
        fn raw(&self) -> &serde_json::value::RawValue {
            &self.0
        }
        fn id(&self) -> u64 {
            text_id(self.0.get())
        }
    }

    fn registers(value: u32) -> Shared {
        let text = format!(
            "{{\"DB_SHADER_CONTROL\":{{\"address\":163980,\"value\":{value},\"fields\":{{\"PRIMITIVE_ORDERED_PIXEL_SHADER\":1}},\"decided\":[\"PRIMITIVE_ORDERED_PIXEL_SHADER\"]}}}}"
        );
        Shared::lazy(Arc::new(Fixed(
            serde_json::value::RawValue::from_string(text).unwrap(),
        )))
    }

    /// A draw record of command buffer `cb` with `draws` draws, in state `value`.
    fn draw(id: u64, cb: u64, draws: u64, value: u32) -> Record {
        let mut r = sample();
        r.id = id;
        r.kind = Kind::Draw;
        r.diagnostics.clear();
        r.registers = registers(value);
        r.command_buffer = Some(format!("0x{cb:x}"));
        r.bound = Some(pops_report::Bound::Pipeline);
        r.draws = Some(draws);
        r
    }

    fn lines(path: &Path) -> Vec<serde_json::Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn fresh(name: &str) -> PathBuf {
        let dir = pops_testkit::scratch(&format!("layer-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("r.jsonl")
    }

    /// Each distinct register state is in the file once, before the first record naming it; the
    /// records carry its id instead of the registers.
    #[test]
    fn each_state_is_written_once_and_named() {
        let path = fresh("states");
        for (id, value) in [(1, 5), (2, 5), (3, 6)] {
            let mut r = draw(id, id, 1, value);
            r.kind = Kind::Pipeline;
            r.command_buffer = None;
            r.bound = None;
            r.draws = None;
            append(&path, &r).unwrap();
        }
        flush_all(true);
        let l = lines(&path);
        let kinds: Vec<&str> = l.iter().map(|v| v["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            ["state", "pipeline", "pipeline", "state", "pipeline"]
        );
        assert_eq!(l[1]["state"], l[0]["state"]);
        assert_eq!(l[2]["state"], l[0]["state"]);
        assert_eq!(l[4]["state"], l[3]["state"]);
        assert_ne!(l[0]["state"], l[3]["state"]);
        assert_eq!(l[0]["registers"]["DB_SHADER_CONTROL"]["value"], 5);
        assert_eq!(l[0]["pm4"], serde_json::json!([0xc001_6900u32, 1, 2]));
        assert!(l[1].get("registers").is_none() && l[1].get("pm4").is_none());
        assert_eq!(l[0]["state"].as_str().unwrap().len(), 16);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A command buffer recorded again with the same object and state adds to one draw record
    /// (under that record's id); a `counts` line carries the totals when the file is flushed,
    /// and a record of another state is a line of its own.
    #[test]
    fn re_recorded_draws_add_to_one_record() {
        let path = fresh("counts");
        let mut ids = Vec::new();
        for cb in 0..100 {
            ids.push(append(&path, &draw(10 + cb, 0x20 + cb, 3, 5)).unwrap());
        }
        assert!(ids.iter().all(|&i| i == 10), "{ids:?}");
        assert_eq!(append(&path, &draw(500, 0x99, 1, 6)).unwrap(), 500);
        flush_all(true);
        let l = lines(&path);
        let kinds: Vec<&str> = l.iter().map(|v| v["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["state", "draw", "state", "draw", "counts"]);
        assert_eq!(l[1]["draws"], 3);
        assert_eq!(l[1]["command_buffers"], 1);
        assert_eq!(l[1]["command_buffer"], "0x20");
        assert_eq!(
            l[4]["records"],
            serde_json::json!([{"record": 10, "draws": 300, "command_buffers": 100}])
        );
        assert_eq!(l[4]["app"], "app");
        // Nothing changed since: a second flush writes no second counts line.
        flush_all(true);
        assert_eq!(lines(&path).len(), 5);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// Two objects created one after the other at the same address, with the same shader and
    /// state, are two objects: their draws are two records, not one (the layer's summary and its
    /// report count the same objects).
    #[test]
    fn objects_at_a_reused_address_stay_distinct_records() {
        let path = fresh("reused");
        let mut first = draw(10, 0x20, 2, 5);
        first.object = Some(1);
        let mut second = draw(11, 0x21, 3, 5);
        second.object = Some(2);
        assert_eq!(first.handle, second.handle);
        assert_eq!(append(&path, &first).unwrap(), 10);
        assert_eq!(append(&path, &second).unwrap(), 11);
        let mut again = draw(12, 0x22, 1, 5);
        again.object = Some(2);
        assert_eq!(
            append(&path, &again).unwrap(),
            11,
            "the same object adds up"
        );
        flush_all(true);
        let draws: Vec<_> = lines(&path)
            .into_iter()
            .filter(|v| v["kind"] == "draw")
            .collect();
        assert_eq!(draws.len(), 2);
        assert_eq!(
            (draws[0]["object"].as_u64(), draws[1]["object"].as_u64()),
            (Some(1), Some(2))
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// Totals reach the file about once a second while command buffers are recorded again, not
    /// only at the end: a crash loses at most the last second.
    #[test]
    fn changed_totals_are_written_within_a_second() {
        let path = fresh("tick");
        append(&path, &draw(1, 1, 1, 7)).unwrap();
        append(&path, &draw(2, 2, 1, 7)).unwrap();
        std::thread::sleep(COUNTS_AGE + Duration::from_millis(100));
        tick();
        let l = lines(&path);
        assert_eq!(
            l.last().unwrap()["records"],
            serde_json::json!([{"record": 1, "draws": 2, "command_buffers": 2}]),
            "{l:?}"
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    fn sample() -> Record {
        Record {
            schema_version: SCHEMA_VERSION,
            id: 7,
            stage_hash: Some("0123456789abcdef".into()),
            app: "app".into(),
            device: "dev".into(),
            kind: Kind::ShaderObject,
            handle: "0x10".into(),
            entry_point: "main".into(),
            interlock: Interlock::Mode("pixel-ordered".parse().unwrap()),
            begin_count: 1,
            end_count: 1,
            per_sample: false,
            samples: None,
            chip: Some("navi31".into()),
            state: None,
            registers: Shared::null(),
            pm4: vec![0xc001_6900, 1, 2].into(),
            diagnostics: vec![Diagnostic::new(
                Severity::Warning,
                pops_report::Code::ISA_MODEL,
                "y",
            )],
            source: Source::ShaderObjectSpirv,
            command_buffer: None,
            bound: None,
            draws: None,
            command_buffers: None,
            name: None,
            module_name: None,
            fossilize_module: None,
            null_device: None,
            driver: None,
            object: None,
            experiment: None,
        }
    }

    #[test]
    fn schema_field_names_and_order() {
        let line = to_line(&sample());
        assert!(line.ends_with('\n'));
        let keys: Vec<String> = {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            let serde_json::Value::Object(m) = v else {
                panic!("not an object")
            };
            m.keys().cloned().collect()
        };
        for k in [
            "id",
            "app",
            "device",
            "kind",
            "handle",
            "entry_point",
            "stage_hash",
            "interlock",
            "begin_count",
            "end_count",
            "per_sample",
            "samples",
            "chip",
            "pm4",
            "diagnostics",
        ] {
            assert!(keys.iter().any(|x| x == k), "missing {k} in {line}");
        }
        assert!(line.starts_with(
            "{\"schema_version\":2,\"id\":7,\"app\":\"app\",\"device\":\"dev\",\"kind\":\"shader_object\""
        ));
        assert!(
            line.contains("{\"severity\":\"warning\",\"code\":\"isa-model\",\"message\":\"y\"}")
        );
    }

    /// A record with a warning is in the file as soon as `append` returns; one without waits
    /// for the buffer.
    #[test]
    fn warning_lines_are_written_at_once() {
        let dir = pops_testkit::scratch("layer-urgent");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let _ = std::fs::remove_file(&path);
        let mut quiet = sample();
        quiet.diagnostics.clear();
        append(&path, &quiet).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 0);
        append(&path, &sample()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn append_writes_whole_lines() {
        let dir = pops_testkit::scratch("layer-report");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let _ = std::fs::remove_file(&path);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..50 {
                        append(&path, &sample()).unwrap();
                    }
                });
            }
        });
        flush_all(true);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 400);
        for l in text.lines() {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
