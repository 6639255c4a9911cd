//! The `verify_isa` verdicts of one device by pipeline key (crate::model::verdicts), and the
//! file that keeps them between runs: read at the first look-up, appended to as verdicts are
//! reached. A file that cannot be read or written is named once in a warning, and the device
//! goes on with the verdicts of its own process.

use crate::model::object::{IsaVerdict, PendingVerdict};
use crate::model::verdicts::{self, KeptVerdicts as Kept, MAX_FILE_BYTES};
use parking_lot::Mutex;
use pops_report::Diagnostic;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

pub struct VerdictStore {
    inner: Mutex<Inner>,
    /// Whether the driver's key of a create info is the same with each capture flag as without
    /// it, as first seen (said once per flag).
    capture_key: [std::sync::OnceLock<bool>; 2],
    /// Set when a pipeline binary's data was not code the layer can read (another driver's
    /// layout): later pipelines go back to the capture of their printed code.
    binaries_unread: std::sync::atomic::AtomicBool,
    /// Whether a shader object's binary data could not be read (said once per device).
    shader_objects_unread: std::sync::atomic::AtomicBool,
}

struct Inner {
    kept: Kept,
    /// Keys whose verdict the device's verifier is reaching: a pipeline with the same key
    /// meanwhile waits for that verdict rather than have its code kept and verified again.
    reaching: HashMap<Box<[u8]>, Arc<PendingVerdict>, crate::model::FastHash>,
    /// The file, until it was read (or found missing) and while it can be written.
    file: Option<PathBuf>,
    read: bool,
}

impl VerdictStore {
    /// The verdicts of a device, kept in `file` as well where one is given.
    pub fn new(file: Option<PathBuf>) -> VerdictStore {
        VerdictStore {
            inner: Mutex::new(Inner {
                kept: Kept::default(),
                reaching: HashMap::default(),
                file,
                read: false,
            }),
            capture_key: Default::default(),
            binaries_unread: std::sync::atomic::AtomicBool::new(false),
            shader_objects_unread: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether the code of a new pipeline is read from its pipeline binary: until one binary of
    /// this device could not be read.
    pub fn binaries_readable(&self) -> bool {
        !self
            .binaries_unread
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A pipeline binary of this device was not code the layer can read (`why`): said once, and
    /// later pipelines are asked for their printed code instead.
    pub fn binaries_unreadable(&self, device: &str, why: &str) {
        if !self
            .binaries_unread
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            log::warn!(
                "device '{device}': verify_isa: a pipeline binary's data is not code the layer can read ({why}): that pipeline is not verified, and later ones are created with their code printed (VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS), which costs more"
            );
        }
    }

    /// A shader object's binary data could not be had or read: said once for the device; each
    /// such shader object's records say why.
    pub fn shader_object_unreadable(&self, device: &str, why: &str) {
        if !self
            .shader_objects_unread
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            log::warn!(
                "device '{device}': verify_isa: a fragment shader object's binary data (vkGetShaderBinaryDataEXT) {why}: its code is not verified"
            );
        }
    }

    /// The verdict of `key`: reached earlier in this process or in an earlier one, or being
    /// reached now.
    pub fn get(&self, key: &[u8]) -> Option<IsaVerdict> {
        let mut g = self.inner.lock();
        g.read_file();
        if let Some(v) = g.kept.get(key) {
            return Some(IsaVerdict::Ready(v));
        }
        g.reaching.get(key).cloned().map(IsaVerdict::Pending)
    }

    /// The verdict of `key` is being reached, and will be given in `verdict`.
    pub fn reaching(&self, key: &[u8], verdict: Arc<PendingVerdict>) {
        self.inner.lock().reaching.insert(key.into(), verdict);
    }

    /// Keeps the verdict of `key`, and writes it down where it is new.
    pub fn keep(&self, key: &[u8], diagnostics: Arc<[Diagnostic]>) {
        let mut g = self.inner.lock();
        g.read_file();
        g.reaching.remove(key);
        if g.kept.insert(key, diagnostics.clone()) {
            g.append(&verdicts::line(key, &diagnostics));
        }
    }

    /// The verdict of `key` was not reached (the verification failed): the next pipeline with
    /// the key is verified anew.
    pub fn not_reached(&self, key: &[u8]) {
        self.inner.lock().reaching.remove(key);
    }

    /// Whether [`VerdictStore::note_capture_key`] has been told already of `how`.
    pub fn capture_key_noted(&self, how: CodeKept) -> bool {
        self.capture_key[how as usize].get().is_some()
    }

    /// Says, once per device and way the code is kept, what a kept verdict rests on: the
    /// driver's keys of a create info with and without the flag are equal — the
    /// specification's promise that both produce the same binaries — or they differ, as where
    /// the driver's binaries carry the representations kept, and the verdict rests on the
    /// capture changing nothing of the machine code (as every verification of captured code
    /// does).
    pub fn note_capture_key(&self, device: &str, how: CodeKept, equal: bool) {
        if self.capture_key[how as usize].set(equal).is_err() {
            return;
        }
        let flag = how.flag();
        if equal {
            log::info!(
                "device '{device}': verify_isa: the driver gives a pipeline the same key with and without the capture of its code ({flag}): a kept verdict is of the same binaries"
            );
        } else {
            log::info!(
                "device '{device}': verify_isa: the driver's key of a pipeline changes with the capture of its code ({flag}; its binaries then carry what is kept): a kept verdict rests on the capture changing nothing of the machine code"
            );
        }
    }
}

/// How the driver is asked to keep a pipeline's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeKept {
    /// Its binaries (VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR).
    Binaries = 0,
    /// Its printed internal representations.
    Representations = 1,
}

impl CodeKept {
    fn flag(self) -> &'static str {
        match self {
            CodeKept::Binaries => "VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR",
            CodeKept::Representations => {
                "VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR"
            }
        }
    }
}

impl Inner {
    fn read_file(&mut self) {
        if self.read {
            return;
        }
        self.read = true;
        let Some(path) = &self.file else {
            return;
        };
        let size = std::fs::metadata(path).map(|m| m.len());
        if size.as_ref().is_ok_and(|&n| n > MAX_FILE_BYTES) {
            log::warn!(
                "verify_isa: {} is larger than {} MiB: not read or written; remove it to keep verdicts between runs again",
                path.display(),
                MAX_FILE_BYTES >> 20
            );
            self.file = None;
            return;
        }
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (kept, unreadable) = Kept::read(&text);
                if unreadable > 0 {
                    log::warn!(
                        "verify_isa: {}: {unreadable} line(s) that are no verdict were left out",
                        path.display()
                    );
                }
                log::debug!(
                    "verify_isa: {} verdict(s) from {}",
                    kept.len(),
                    path.display()
                );
                self.kept = kept;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                log::warn!(
                    "verify_isa: cannot read {}: {e}: verdicts are kept for this process only",
                    path.display()
                );
                self.file = None;
            }
        }
    }

    /// Appends one line in one write (O_APPEND: lines of processes writing at once do not
    /// interleave).
    fn append(&mut self, line: &str) {
        let Some(path) = &self.file else {
            return;
        };
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
            })
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            log::warn!(
                "verify_isa: cannot write {}: {e}: verdicts are kept for this process only",
                path.display()
            );
            self.file = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pops_report::Severity;

    fn verdict(code: &str) -> Arc<[Diagnostic]> {
        let code = code.parse().expect("a finding code");
        vec![Diagnostic::new(Severity::Error, code, "at 0x10")].into()
    }

    /// A verdict reached, not one being reached.
    fn ready(v: Option<IsaVerdict>) -> Option<Arc<[Diagnostic]>> {
        match v {
            Some(IsaVerdict::Ready(d)) => Some(d),
            _ => None,
        }
    }

    /// A key being verified gives the verdict to come to the next pipeline with it, until the
    /// verdict is kept; a verification that failed leaves the key to be verified anew.
    #[test]
    fn a_key_being_verified_is_not_verified_twice() {
        let v = VerdictStore::new(None);
        let cell = Arc::new(PendingVerdict::default());
        v.reaching(&[7], cell.clone());
        assert!(matches!(v.get(&[7]), Some(IsaVerdict::Pending(p)) if Arc::ptr_eq(&p, &cell)));
        v.keep(&[7], verdict("isa-verified"));
        assert_eq!(ready(v.get(&[7])), Some(verdict("isa-verified")));
        v.reaching(&[8], Arc::new(PendingVerdict::default()));
        v.not_reached(&[8]);
        assert!(v.get(&[8]).is_none());
    }

    /// A verdict kept by one process is found by the next (a new store on the same file); a
    /// key never verified is not.
    #[test]
    fn verdicts_outlive_the_process_in_their_file() {
        let dir = pops_testkit::scratch("verdicts-file");
        let file = dir.join("sub").join("v.jsonl");
        let first = VerdictStore::new(Some(file.clone()));
        assert_eq!(ready(first.get(&[1, 2])), None);
        first.keep(&[1, 2], verdict("isa-counters-before-last-export"));
        first.keep(&[1, 2], verdict("isa-model"));
        first.keep(&[3], verdict("isa-verified"));
        assert_eq!(
            ready(first.get(&[1, 2])),
            Some(verdict("isa-counters-before-last-export"))
        );
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        let next = VerdictStore::new(Some(file));
        assert_eq!(
            ready(next.get(&[1, 2])),
            Some(verdict("isa-counters-before-last-export"))
        );
        assert_eq!(ready(next.get(&[3])), Some(verdict("isa-verified")));
        assert_eq!(ready(next.get(&[4])), None);
    }

    /// A file that cannot be written (its directory would be under a regular file) leaves the
    /// verdicts of the process working.
    #[test]
    fn an_unwritable_file_keeps_verdicts_for_the_process() {
        let dir = pops_testkit::scratch("verdicts-unwritable");
        let blocker = dir.join("a-file");
        std::fs::write(&blocker, "x").unwrap();
        let v = VerdictStore::new(Some(blocker.join("v.jsonl")));
        v.keep(&[1], verdict("isa-verified"));
        v.keep(&[2], verdict("isa-verified"));
        assert_eq!(ready(v.get(&[1])), Some(verdict("isa-verified")));
        assert_eq!(ready(v.get(&[2])), Some(verdict("isa-verified")));
        assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "x");
    }
}
