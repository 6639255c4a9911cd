//! The documents of the kernel-interface self-test: `pops selftest --json` ([`SelftestDocument`]),
//! its capture check ([`CaptureChecks`]) and a capture directory's `index.json`
//! ([`CaptureIndex`]), written by pops-winsys and read back by it and by whoever scripts a run.

use serde::{Deserialize, Serialize};

/// `pops selftest --json`: one line per case, and the verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelftestDocument {
    /// The chip (its family's name) and its level.
    pub family: String,
    pub gfx_level: String,
    /// Whether anything ran on a GPU (false for a capture).
    pub executed: bool,
    /// Every case passed (or was recorded), and the capture, where there is one, holds exactly
    /// the intended writes.
    pub ok: bool,
    pub cases: Vec<SelftestCase>,
    /// The modes and sample counts the chip refuses, with why (`pops selftest` lists them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<Vec<Excluded>>,
    /// The recorded IBs decoded and checked (`--capture`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureChecks>,
}

/// One submitted case: the fence test, or one register state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelftestCase {
    /// `fence`, or the state's mode and samples (`pixel-ordered 4x`).
    pub case: String,
    pub interlock: Option<String>,
    pub samples: Option<u32>,
    /// Register writes in the IB.
    pub registers: usize,
    pub ib_dwords: usize,
    /// The fence slot's dword read back, the words saying nothing ran, or `null` where nothing
    /// was read.
    pub readback: Option<FenceReadback>,
    /// `passed`, `recorded`, `failed`, `timeout`, `reset`, `not-submitted`.
    pub outcome: String,
    pub detail: String,
}

/// What a case's fence slot held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FenceReadback {
    Value(u32),
    /// Recorded by a capture: nothing ran, nothing was read.
    Note(String),
}

/// A mode and sample count the chip refuses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excluded {
    pub case: String,
    pub reason: String,
}

/// Every recorded IB, decoded and checked against what was meant to be in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureChecks {
    pub ok: bool,
    pub checks: Vec<CaptureCheck>,
}

/// One recorded IB's check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureCheck {
    pub file: String,
    pub case: String,
    pub decoded_writes: usize,
    pub ok: bool,
    /// What differs from the intended packets, `null` where nothing does.
    pub problem: Option<String>,
}

/// A capture directory's `index.json`: the device it pretended to be, its buffers and each
/// submission with the file holding its IB.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureIndex {
    /// [`CAPTURE_FORMAT`].
    pub format: String,
    pub family: String,
    pub gfx_level: String,
    pub llvm_processor: String,
    pub ib_pad_dwords: u32,
    pub ib_start_alignment: u32,
    /// Always false: a capture records, it does not run.
    pub executed: bool,
    pub buffers: Vec<CaptureBuffer>,
    pub submissions: Vec<CaptureSubmission>,
}

/// The `format` of a capture's index.
pub const CAPTURE_FORMAT: &str = "pops-capture/1";

/// One buffer of a capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureBuffer {
    pub id: usize,
    pub domain: String,
    pub gpu_address: u64,
    pub gpu_address_hex: String,
    pub size: u64,
    pub freed: bool,
}

/// One submission of a capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureSubmission {
    pub index: usize,
    pub label: String,
    pub context: u32,
    pub seq: u64,
    /// The file (in the capture's directory) holding the IB's dwords, little-endian.
    pub ib_file: String,
    pub ib_gpu_address: u64,
    pub ib_gpu_address_hex: String,
    pub ib_dwords: usize,
    pub ib_buffer: u32,
    pub buffers: Vec<u32>,
}

/// `pops selftest --draw --json`: the hardware POPS draw, variant by variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawDocument {
    pub family: String,
    pub gfx_level: String,
    pub device: String,
    /// Whether anything ran on a GPU (false for a capture).
    pub executed: bool,
    /// What `gpu_ticks` counts.
    pub timestamp_unit: String,
    /// The kernel's timestamp counter frequency, where it gave one.
    pub gpu_counter_freq_khz: Option<u64>,
    pub ok: bool,
    /// The run's verdict (`passed`, `failed`, …).
    pub verdict: String,
    pub variants: Vec<DrawVariant>,
    /// The recorded streams decoded and compared (`--capture`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<DrawCaptureChecks>,
}

/// One variant of the draw: its interlock and samples, how it ended, its checks and GPU time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawVariant {
    pub variant: String,
    pub interlock: Option<String>,
    pub samples: u32,
    pub outcome: String,
    pub detail: String,
    pub runs: u32,
    /// Per run: slots whose primitives came in another order, and slots that did not see every
    /// primitive exactly once.
    pub order_violations: Vec<usize>,
    pub count_errors: Vec<usize>,
    /// The last run's check.
    pub check: Option<DrawCheck>,
    pub gpu_ticks: GpuTime<u64>,
    /// The same in microseconds, `null` without the kernel's counter frequency (never a guess).
    pub gpu_time_us: Option<GpuTime<f64>>,
    pub ib_dwords: usize,
    pub diagnostics: Vec<String>,
}

/// The runs of a variant and their statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuTime<T> {
    pub runs: Vec<T>,
    pub median: Option<T>,
    pub min: Option<T>,
    pub max: Option<T>,
}

/// What one run's storage buffer held, slot by slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawCheck {
    pub slots: usize,
    pub in_order: usize,
    pub order_violations: usize,
    pub missing: usize,
    pub duplicates: usize,
    pub unexpected: usize,
    pub overflows: usize,
    /// Whether order was required.
    pub ordered: bool,
    pub passed: bool,
    /// The first few failures.
    pub examples: Vec<CheckExample>,
}

/// One slot that failed its check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckExample {
    pub slot: usize,
    pub x: u32,
    pub y: u32,
    pub error: String,
}

/// The draw's recorded submissions, decoded and compared with the reference draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawCaptureChecks {
    pub ok: bool,
    /// `compared`, or why there was no comparison with the reference.
    pub reference: String,
    pub submissions: Vec<DrawSubmissionCheck>,
}

/// One recorded submission's check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawSubmissionCheck {
    pub label: String,
    pub decoded_packets: usize,
    /// Registers programmed as the reference does (`null`: no reference available).
    pub same_as_reference: Option<usize>,
    pub listed_differences: usize,
    pub problem: Option<String>,
}
