//! The `verify_isa` setting's verdicts by the driver's pipeline key (VK_KHR_pipeline_binary's
//! `vkGetPipelineKeyKHR`). The specification promises that two create infos with equal keys
//! "must produce the same VkPipelineBinaryKHR contents": the same code, so the same verdict. A
//! pipeline whose key was verified before is therefore created as the application asked —
//! without the capture of its internal representations, which costs the driver more than
//! compiling — and its records get the verdict already reached.
//!
//! KeptVerdicts live for the process (per device) and, where the `verify_isa_cache` setting names a
//! directory, in one JSON Lines file per driver build (the driver's global key), pops build and
//! chip, read once per device and appended to as verdicts are reached. Pure: the file's text in,
//! lines out; the layer does the file I/O.

use crate::FastHash;
use pops_report::Diagnostic;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// At most this many verdicts are kept per device (a verdict line is a few hundred bytes);
/// past it, pipelines are verified as if none were kept.
pub const MAX_VERDICTS: usize = 1 << 16;

/// A verdicts file larger than this (64 MiB) is neither read nor appended to.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// One line of a verdicts file.
#[derive(Serialize, Deserialize)]
struct Line<'a> {
    /// The pipeline key's bytes (its `keySize` first bytes).
    key: Cow<'a, [u8]>,
    diagnostics: Cow<'a, [Diagnostic]>,
}

/// KeptVerdicts by pipeline key.
#[derive(Default)]
pub struct KeptVerdicts {
    map: HashMap<Box<[u8]>, Arc<[Diagnostic]>, FastHash>,
}

impl KeptVerdicts {
    /// The verdicts of a file's text, and how many of its lines could not be read (a line cut
    /// short by a process that died while appending, or one of a different format).
    pub fn read(text: &str) -> (KeptVerdicts, usize) {
        let mut out = KeptVerdicts::default();
        let mut unreadable = 0;
        for l in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Line>(l) {
                Ok(line) if !line.key.is_empty() => {
                    out.insert(&line.key, line.diagnostics.into_owned().into());
                }
                _ => unreadable += 1,
            }
        }
        (out, unreadable)
    }

    pub fn get(&self, key: &[u8]) -> Option<Arc<[Diagnostic]>> {
        self.map.get(key).cloned()
    }

    /// Keeps a verdict; whether it is new (and so worth writing down).
    pub fn insert(&mut self, key: &[u8], diagnostics: Arc<[Diagnostic]>) -> bool {
        if self.map.len() >= MAX_VERDICTS || self.map.contains_key(key) {
            return false;
        }
        self.map.insert(key.into(), diagnostics);
        true
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The file line of a verdict, newline included.
pub fn line(key: &[u8], diagnostics: &[Diagnostic]) -> String {
    let line = Line {
        key: Cow::Borrowed(key),
        diagnostics: Cow::Borrowed(diagnostics),
    };
    // A struct of bytes and strings always serialises.
    let mut s = serde_json::to_string(&line).unwrap_or_default();
    s.push('\n');
    s
}

/// The verdicts file's name for a driver build (`global_key`: vkGetPipelineKeyKHR without a
/// create info, which changes where the driver's binaries would), a pops build and a chip.
pub fn file_name(global_key: &[u8], pops_build: &str, chip: &str) -> String {
    let driver: String = global_key.iter().map(|b| format!("{b:02x}")).collect();
    format!("verify-isa-{chip}-{pops_build}-{driver}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pops_report::Severity;

    fn verdict(code: &str) -> Arc<[Diagnostic]> {
        let code = code.parse().expect("a finding code");
        vec![Diagnostic::new(
            Severity::Info,
            code,
            "a message, with \"quotes\"\nand a newline",
        )]
        .into()
    }

    /// What is written is read back as written, key by key; a line cut short, a line of
    /// another format and an empty key are counted as unreadable and do not stop the rest.
    #[test]
    fn lines_read_back_as_written() {
        let mut text = line(&[1, 2, 3], &verdict("isa-verified"));
        text += &line(&[9; 20], &verdict("isa-ordered-ps-done-missing"));
        assert_eq!(text.lines().count(), 2, "one line per verdict: {text}");
        let cut = line(&[7], &verdict("isa-verified"));
        text += &cut[..cut.len() / 2];
        text += "\n{\"something\":\"else\"}\n";
        text += &line(&[], &verdict("isa-verified"));
        text += &line(&[4, 5], &verdict("isa-model"));
        let (v, unreadable) = KeptVerdicts::read(&text);
        assert_eq!(unreadable, 3);
        assert_eq!(v.len(), 3);
        assert_eq!(v.get(&[1, 2, 3]), Some(verdict("isa-verified")));
        assert_eq!(
            v.get(&[9; 20]),
            Some(verdict("isa-ordered-ps-done-missing"))
        );
        assert_eq!(v.get(&[4, 5]), Some(verdict("isa-model")));
        assert_eq!(v.get(&[7]), None);
        assert_eq!(v.get(&[1, 2]), None, "a key's prefix is another key");
    }

    /// The first verdict of a key stays (a second is not new), and past the bound nothing more
    /// is kept.
    #[test]
    fn first_verdict_of_a_key_stays_and_the_count_is_bounded() {
        let mut v = KeptVerdicts::default();
        assert!(v.insert(&[1], verdict("isa-verified")));
        assert!(!v.insert(&[1], verdict("isa-model")));
        assert_eq!(v.get(&[1]), Some(verdict("isa-verified")));
        for i in 1..MAX_VERDICTS as u32 {
            assert!(v.insert(&i.to_le_bytes(), verdict("isa-verified")));
        }
        assert_eq!(v.len(), MAX_VERDICTS);
        assert!(!v.insert(&[0xff; 8], verdict("isa-verified")));
        assert_eq!(v.get(&[0xff; 8]), None);
    }

    /// Files of other drivers, pops builds or chips have other names.
    #[test]
    fn one_file_per_driver_build_pops_build_and_chip() {
        let a = file_name(&[0xab, 0x01], "00ff", "navi31");
        assert_eq!(a, "verify-isa-navi31-00ff-ab01.jsonl");
        assert_ne!(a, file_name(&[0xab, 0x02], "00ff", "navi31"));
        assert_ne!(a, file_name(&[0xab, 0x01], "00fe", "navi31"));
        assert_ne!(a, file_name(&[0xab, 0x01], "00ff", "navi21"));
    }
}
