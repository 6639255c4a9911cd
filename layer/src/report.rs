//! The JSON Lines report file: one line per analysed pipeline, library, shader object, draw
//! group or timing unit, written in whole-line chunks.

use crate::model::record::Record;
use pops_report::Severity;
use serde::Serialize;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A report line as written: the record's JSON and a newline.
pub fn to_line(record: &Record) -> String {
    // Serializing this plain struct cannot fail (no maps with non-string keys).
    let mut s = serde_json::to_string(record)
        .unwrap_or_else(|e| format!("{{\"error\":\"report serialisation failed: {e}\"}}"));
    s.push('\n');
    s
}

/// One report file: lines are collected and written in whole-line chunks.
struct Sink {
    file: File,
    buf: Vec<u8>,
    last_flush: Instant,
}

impl Sink {
    fn flush(&mut self) -> std::io::Result<()> {
        self.last_flush = Instant::now();
        if self.buf.is_empty() {
            return Ok(());
        }
        let r = self.file.write_all(&self.buf);
        self.buf.clear();
        r
    }
}

/// A chunk is written when it reaches this size…
const FLUSH_BYTES: usize = 64 * 1024;
/// …or when the oldest unwritten line is this old at the next append; and always at
/// vkDestroyDevice, vkDestroyInstance, process exit and library unload ([`flush_all`]).
const FLUSH_AGE: Duration = Duration::from_millis(50);

type Sinks = Mutex<HashMap<PathBuf, Arc<Mutex<Sink>>>>;

fn sinks() -> &'static Sinks {
    static SINKS: OnceLock<Sinks> = OnceLock::new();
    SINKS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Appends one line to the report at `path`. A `write` per line costs more than the layer's
/// whole analysis, so lines are buffered and written in chunks of whole lines on an O_APPEND
/// file: lines of several devices, threads or processes never interleave.
pub fn append(path: &Path, record: &Record) -> std::io::Result<()> {
    // A line with a warning or an error is written at once: it must survive a crash or hang of
    // the application that follows it.
    let urgent = record
        .diagnostics
        .iter()
        .any(|d| matches!(d.severity, Severity::Warning | Severity::Error));
    append_line(path, record, urgent)
}

/// Appends any report line (object and draw records, timing lines); `urgent` writes it at once.
pub fn append_line(path: &Path, record: &impl Serialize, urgent: bool) -> std::io::Result<()> {
    let sink = {
        let mut map = sinks().lock().unwrap_or_else(|p| p.into_inner());
        match map.get(path) {
            Some(f) => f.clone(),
            None => {
                let file = OpenOptions::new().create(true).append(true).open(path)?;
                let sink = Arc::new(Mutex::new(Sink {
                    file,
                    buf: Vec::with_capacity(FLUSH_BYTES),
                    last_flush: Instant::now(),
                }));
                map.insert(path.to_path_buf(), sink.clone());
                sink
            }
        }
    };
    let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
    if s.buf.is_empty() {
        s.last_flush = Instant::now();
    }
    serde_json::to_writer(&mut s.buf, record).map_err(std::io::Error::other)?;
    s.buf.push(b'\n');
    if urgent || s.buf.len() >= FLUSH_BYTES || s.last_flush.elapsed() >= FLUSH_AGE {
        s.flush()?;
    }
    Ok(())
}

/// Writes every buffered line. `blocking: false` (process exit, library unload) skips a file
/// another thread is writing rather than wait for it.
pub fn flush_all(blocking: bool) {
    let all: Vec<Arc<Mutex<Sink>>> = {
        let map = if blocking {
            sinks().lock().unwrap_or_else(|p| p.into_inner())
        } else {
            match sinks().try_lock() {
                Ok(m) => m,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return,
            }
        };
        map.values().cloned().collect()
    };
    for sink in all {
        let guard = if blocking {
            Some(sink.lock().unwrap_or_else(|p| p.into_inner()))
        } else {
            match sink.try_lock() {
                Ok(g) => Some(g),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            }
        };
        if let Some(mut s) = guard {
            let _ = s.flush();
        }
    }
}

/// Runs at process exit and when the loader unloads the layer (ELF `.fini_array` of the
/// library), so buffered lines survive an application that exits with live devices.
extern "C" fn flush_at_exit() {
    let _ = std::panic::catch_unwind(|| flush_all(false));
}

#[used]
#[link_section = ".fini_array"]
static FLUSH_AT_EXIT: extern "C" fn() = flush_at_exit;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::Shared;
    use pops_report::{Diagnostic, Interlock, Kind, Source, SCHEMA_VERSION};

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
            registers: Shared::null(),
            pm4: vec![0xc001_6900, 1, 2].into(),
            diagnostics: vec![Diagnostic::new(Severity::Warning, "x", "y")],
            source: Source::ShaderObjectSpirv,
            command_buffer: None,
            bound: None,
            draws: None,
            name: None,
            module_name: None,
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
            "registers",
            "pm4",
            "diagnostics",
        ] {
            assert!(keys.iter().any(|x| x == k), "missing {k} in {line}");
        }
        assert!(line.starts_with(
            "{\"schema_version\":1,\"id\":7,\"app\":\"app\",\"device\":\"dev\",\"kind\":\"shader_object\""
        ));
        assert!(line.contains("{\"severity\":\"warning\",\"code\":\"x\",\"message\":\"y\"}"));
    }

    /// A record with a warning is in the file as soon as `append` returns; one without waits
    /// for the buffer.
    #[test]
    fn warning_lines_are_written_at_once() {
        let dir = std::env::temp_dir().join(format!("pops-layer-urgent-{}", std::process::id()));
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
        let dir = std::env::temp_dir().join(format!("pops-layer-report-{}", std::process::id()));
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
