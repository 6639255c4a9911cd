//! The device's counts, for the summary logged at vkDestroyDevice.

use parking_lot::Mutex;
use pm4::InterlockMode;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Default)]
pub struct Stats {
    analysed: AtomicU64,
    interlocked: AtomicU64,
    flagged: AtomicU64,
    unknown: AtomicU64,
    /// Draw commands recorded with an interlocked fragment stage bound, and the draw records
    /// they gave (one per command buffer × bound object × draw state).
    draws: AtomicU64,
    draw_records: AtomicU64,
    by_mode: Mutex<HashMap<InterlockMode, u64>>,
}

/// What one analysed fragment stage adds to the counts.
pub struct Analysed {
    pub mode: Option<InterlockMode>,
    pub unknown: bool,
    /// A warning or an error among its findings.
    pub flagged: bool,
}

impl Stats {
    pub fn analysed(&self, a: Analysed) {
        self.analysed.fetch_add(1, Ordering::Relaxed);
        if a.unknown {
            self.unknown.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(m) = a.mode {
            self.interlocked.fetch_add(1, Ordering::Relaxed);
            *self.by_mode.lock().entry(m).or_default() += 1;
            if a.flagged {
                self.flagged.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// One draw record of `draws` draws.
    pub fn draw_record(&self, draws: u64) {
        self.draws.fetch_add(draws, Ordering::Relaxed);
        self.draw_records.fetch_add(1, Ordering::Relaxed);
    }

    /// How many fragment stages were analysed (tests).
    pub fn analysed_count(&self) -> u64 {
        self.analysed.load(Ordering::Relaxed)
    }

    /// The summary lines of a device.
    pub fn summary(&self, device: &str) -> [String; 2] {
        let by_mode = self.by_mode.lock();
        let mut modes: Vec<String> = by_mode.iter().map(|(m, n)| format!("{m}: {n}")).collect();
        modes.sort();
        [
            format!(
                "device '{device}' destroyed: {} fragment stages analysed, {} with interlock ({}), {} flagged, {} unknown",
                self.analysed.load(Ordering::Relaxed),
                self.interlocked.load(Ordering::Relaxed),
                if modes.is_empty() { "-".to_string() } else { modes.join(", ") },
                self.flagged.load(Ordering::Relaxed),
                self.unknown.load(Ordering::Relaxed),
            ),
            format!(
                "device '{device}': {} draws with an interlocked fragment stage, in {} command buffer recordings of an interlocked object and draw state (the report holds one draw record per object and state, its counts adding up the recordings)",
                self.draws.load(Ordering::Relaxed),
                self.draw_records.load(Ordering::Relaxed),
            ),
        ]
    }
}
