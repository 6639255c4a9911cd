//! Running the draw variants on a [`Winsys`]: upload, submit, wait with a timeout, check the
//! reset status after every submission, read back, check, time. On the capture backend every
//! variant is recorded once and reported as not executed; nothing is ever reported as having run
//! on a GPU that did not run it. After a reset or a hang nothing more is submitted.

use crate::check::{self, CheckReport};
use crate::shader::SLOT_DWORDS;
use crate::stream::{self, Addresses, DrawStream, FENCE_VALUE};
use crate::variant::Variant;
use pops_report::selftest::{DrawDocument, DrawVariant, GpuTime};
use std::fmt::Write as _;
use std::time::Duration;
use winsys::{cs, BufferId, ContextId, Domain, Readback, Winsys, WinsysError};

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Submissions per variant on real hardware (the capture backend records one).
    pub runs: u32,
    /// How long each wait may take before the GPU is presumed hung.
    pub timeout: Duration,
    /// Overlapping rectangles per run.
    pub rects: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runs: 5,
            timeout: Duration::from_secs(5),
            rects: stream::DEFAULT_RECTS,
        }
    }
}

/// GPU time of the runs of one variant, in ticks of the GPU timestamp counter (RELEASE_MEM
/// DATA_SEL_TIMESTAMP, bottom of pipe, before the first and after the last draw). Ticks are what
/// the command processor wrote; time follows only with the kernel's counter frequency
/// ([`ticks_to_ns`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub ticks: Vec<u64>,
}

impl Timing {
    fn sorted(&self) -> Vec<u64> {
        let mut t = self.ticks.clone();
        t.sort_unstable();
        t
    }
    pub fn min(&self) -> Option<u64> {
        self.sorted().first().copied()
    }
    pub fn max(&self) -> Option<u64> {
        self.sorted().last().copied()
    }
    /// The median (the lower middle for an even count).
    pub fn median(&self) -> Option<u64> {
        let s = self.sorted();
        s.get(s.len().saturating_sub(1) / 2).copied()
    }
}

/// Nanoseconds in `ticks` of a counter running at `freq_khz`, rounded to the nearest nanosecond.
///
/// `None` when the frequency is unknown (capture backend, or the kernel reported 0) — a time is
/// never made up from a typical frequency — or when the time does not fit in a u64 of
/// nanoseconds (about 584 years). One tick lasts 10^6 / kHz ns; the product is taken in u128,
/// where `ticks * 10^6 + kHz / 2` cannot overflow (< 2^85).
pub fn ticks_to_ns(ticks: u64, freq_khz: Option<u64>) -> Option<u64> {
    let khz = u128::from(freq_khz.filter(|&f| f != 0)?);
    let ns = (u128::from(ticks) * NS_PER_MS + khz / 2) / khz;
    u64::try_from(ns).ok()
}

/// Ticks at 1 kHz are milliseconds: 10^6 ns per tick per kHz.
const NS_PER_MS: u128 = 1_000_000;

/// Microseconds in `ticks` at `freq_khz` (nanosecond resolution), as [`ticks_to_ns`].
pub fn ticks_to_us(ticks: u64, freq_khz: Option<u64>) -> Option<f64> {
    ticks_to_ns(ticks, freq_khz).map(|ns| ns as f64 / 1000.0)
}

/// How a variant ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Ran; every run's result is correct.
    Passed,
    /// Ran; a run's result is wrong (the message says how).
    Failed(String),
    /// The POPS-disabled control ran; its violations are counted, not judged.
    Reported,
    /// Recorded by the capture backend; nothing ran.
    NotExecuted,
    /// Submitted and completed (the command processor's writes landed: fence and timestamps),
    /// but no shader wrote anything: the GPU's results are unavailable. What a device that does
    /// not run shaders gives (a userspace stand-in for the kernel interface), and what a GPU that
    /// silently drops the draw gives; never a pass, never an order failure.
    NoShaderOutput,
    /// A wait timed out: the GPU may be hung.
    Timeout(String),
    /// The context was reset (or the kernel reported this context lost).
    Reset(String),
    /// Not submitted because an earlier variant reset the context or hung the GPU.
    NotSubmitted(String),
    /// Submission or read-back failed for another reason.
    Error(String),
}

impl Outcome {
    pub const fn name(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed(_) => "FAILED",
            Outcome::Reported => "reported",
            Outcome::NotExecuted => "not executed (capture)",
            Outcome::NoShaderOutput => "NO SHADER OUTPUT",
            Outcome::Timeout(_) => "TIMEOUT",
            Outcome::Reset(_) => "RESET",
            Outcome::NotSubmitted(_) => "not submitted",
            Outcome::Error(_) => "ERROR",
        }
    }
    pub fn detail(&self) -> &str {
        match self {
            Outcome::Failed(s)
            | Outcome::Timeout(s)
            | Outcome::Reset(s)
            | Outcome::NotSubmitted(s)
            | Outcome::Error(s) => s,
            _ => "",
        }
    }
    /// Whether the run as a whole may pass with this outcome.
    pub const fn is_ok(&self) -> bool {
        matches!(
            self,
            Outcome::Passed | Outcome::Reported | Outcome::NotExecuted
        )
    }
}

/// One row of the report.
#[derive(Clone, Debug)]
pub struct VariantResult {
    pub variant: Variant,
    pub outcome: Outcome,
    /// Runs that completed and were checked.
    pub runs: u32,
    /// The check of each completed run.
    pub checks: Vec<CheckReport>,
    pub timing: Timing,
    /// The built IB (unpadded), for capture verification.
    pub ib: Vec<u32>,
    /// POPS diagnostics of the variant's state (`code: message`).
    pub diagnostics: Vec<String>,
}

/// The whole run.
#[derive(Clone, Debug)]
pub struct Report {
    pub family: pm4::Family,
    pub executed: bool,
    pub device: String,
    /// The GPU timestamp counter frequency the kernel reported (kHz); `None` when unknown, and
    /// then times are reported in ticks only.
    pub gpu_counter_freq_khz: Option<u64>,
    pub results: Vec<VariantResult>,
}

/// What a whole draw run says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunVerdict {
    /// Every variant passed (or was only recorded, on the capture backend).
    Passed,
    /// The draws were submitted and completed, but no shader output came back: the GPU's
    /// results are unavailable (nothing failed that could be seen).
    NoShaderOutput,
    Failed,
}

impl RunVerdict {
    /// The table's last words and the JSON's `verdict`.
    pub const fn text(self) -> &'static str {
        match self {
            RunVerdict::Passed => "ok",
            RunVerdict::NoShaderOutput => "submitted, GPU results unavailable: no shader output",
            RunVerdict::Failed => "FAILED",
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            RunVerdict::Passed => "passed",
            RunVerdict::NoShaderOutput => "no-shader-output",
            RunVerdict::Failed => "failed",
        }
    }
}

impl Report {
    pub fn all_ok(&self) -> bool {
        self.results.iter().all(|r| r.outcome.is_ok())
    }

    /// The run's verdict: failed where any variant failed in a way that could be seen; no
    /// shader output where some variant completed without any and nothing else went wrong.
    pub fn verdict(&self) -> RunVerdict {
        let silent = |o: &Outcome| matches!(o, Outcome::NoShaderOutput);
        if self
            .results
            .iter()
            .any(|r| !r.outcome.is_ok() && !silent(&r.outcome))
        {
            RunVerdict::Failed
        } else if self.results.iter().any(|r| silent(&r.outcome)) {
            RunVerdict::NoShaderOutput
        } else {
            RunVerdict::Passed
        }
    }

    /// `gpu_time_us` of one variant: the runs and their statistics in microseconds, or `None`
    /// when the counter frequency is unknown (never converted with a guessed frequency).
    fn time_us(&self, t: &Timing) -> Option<GpuTime<f64>> {
        let khz = self.gpu_counter_freq_khz.filter(|&k| k != 0)?;
        let us = |v: Option<u64>| v.and_then(|x| ticks_to_us(x, Some(khz)));
        Some(GpuTime {
            runs: t
                .ticks
                .iter()
                .filter_map(|&x| ticks_to_us(x, Some(khz)))
                .collect(),
            median: us(t.median()),
            min: us(t.min()),
            max: us(t.max()),
        })
    }

    /// The table's last line: what the timing columns hold and where the frequency came from.
    fn timing_note(&self) -> String {
        let what = "GPU time from the draws' first to last RELEASE_MEM timestamp (bottom of pipe)";
        match self.gpu_counter_freq_khz {
            Some(khz) => format!(
                "{what}: ticks of the GPU timestamp counter, and microseconds at the kernel-reported {khz} kHz."
            ),
            None if self.executed => format!(
                "{what}: ticks only; the kernel reported no timestamp counter frequency, so no microseconds."
            ),
            None => format!(
                "{what}: nothing ran (capture), and a capture has no counter frequency."
            ),
        }
    }

    /// `pops selftest --draw --json`'s document (without the capture check, which the command
    /// adds).
    pub fn document(&self) -> DrawDocument {
        DrawDocument {
            family: self.family.name().into(),
            gfx_level: self.family.gfx_level().name().into(),
            device: self.device.clone(),
            executed: self.executed,
            timestamp_unit: "ticks of the GPU timestamp counter (RELEASE_MEM DATA_SEL_TIMESTAMP, bottom of pipe)".into(),
            gpu_counter_freq_khz: self.gpu_counter_freq_khz,
            ok: self.all_ok(),
            verdict: self.verdict().name().into(),
            variants: self
                .results
                .iter()
                .map(|r| DrawVariant {
                    variant: r.variant.name(),
                    interlock: r.variant.interlock.map(|m| m.name().into()),
                    samples: r.variant.samples,
                    outcome: r.outcome.name().into(),
                    detail: r.outcome.detail().into(),
                    runs: r.runs,
                    order_violations: r.checks.iter().map(|c| c.order_violations).collect(),
                    count_errors: r.checks.iter().map(CheckReport::count_errors).collect(),
                    check: r.checks.last().map(CheckReport::document),
                    gpu_ticks: GpuTime {
                        runs: r.timing.ticks.clone(),
                        median: r.timing.median(),
                        min: r.timing.min(),
                        max: r.timing.max(),
                    },
                    gpu_time_us: self.time_us(&r.timing),
                    ib_dwords: r.ib.len(),
                    diagnostics: r.diagnostics.clone(),
                })
                .collect(),
            capture: None,
        }
    }

    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "pops selftest --draw on {} ({}), {}",
            self.family,
            self.family.gfx_level(),
            if self.executed {
                "executed on the GPU"
            } else {
                "NOT executed: capture backend, streams recorded only"
            }
        );
        let _ = writeln!(
            s,
            "{:<40} {:<24} {:>4} {:>10} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "variant",
            "outcome",
            "runs",
            "violations",
            "errors",
            "med ticks",
            "min ticks",
            "max ticks",
            "med us",
            "min us",
            "max us"
        );
        let khz = self.gpu_counter_freq_khz;
        for r in &self.results {
            let t = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |x| x.to_string());
            let us = |v: Option<u64>| {
                v.and_then(|x| ticks_to_us(x, khz))
                    .map_or_else(|| "-".to_string(), |x| format!("{x:.3}"))
            };
            let viol = r.checks.iter().map(|c| c.order_violations).max();
            let errs = r.checks.iter().map(|c| c.count_errors()).max();
            let _ = writeln!(
                s,
                "{:<40} {:<24} {:>4} {:>10} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                r.variant.name(),
                r.outcome.name(),
                r.runs,
                t(viol.map(|x| x as u64)),
                t(errs.map(|x| x as u64)),
                t(r.timing.median()),
                t(r.timing.min()),
                t(r.timing.max()),
                us(r.timing.median()),
                us(r.timing.min()),
                us(r.timing.max()),
            );
            if !r.outcome.detail().is_empty() {
                let _ = writeln!(s, "    {}", r.outcome.detail());
            }
        }
        let _ = writeln!(s, "{}", self.timing_note());
        s
    }
}

/// Buffers of one run.
struct Buffers {
    code: BufferId,
    storage: BufferId,
    color: BufferId,
    attr_ring: BufferId,
    stamps: BufferId,
    ib: BufferId,
    addrs: Addresses,
    storage_bytes: u64,
}

const CODE_BYTES: u64 = 16 * 1024;
const PS_OFFSET: u64 = 8 * 1024;
const COLOR_BYTES: u64 = 256 * 1024;
const STAMPS_BYTES: u64 = 4096;
const FENCE_OFFSET: u64 = 64;
const IB_BYTES: u64 = 256 * 1024;

fn allocate(ws: &mut dyn Winsys, variants: &[Variant]) -> Result<Buffers, WinsysError> {
    let max_slots = variants.iter().map(Variant::slots).max().unwrap_or(1) as u64;
    let storage_bytes = max_slots * SLOT_DWORDS as u64 * 4;
    let code = ws.create_buffer(CODE_BYTES, Domain::Gtt)?;
    let storage = ws.create_buffer(storage_bytes, Domain::Gtt)?;
    let color = ws.create_buffer(COLOR_BYTES, Domain::Gtt)?;
    let rings = crate::stream::ring_layout(ws.info().family);
    let attr_ring = ws.create_buffer(rings.bytes, Domain::Gtt)?;
    let stamps = ws.create_buffer(STAMPS_BYTES, Domain::Gtt)?;
    let ib = ws.create_buffer(IB_BYTES, Domain::Gtt)?;
    let code_va = ws.gpu_address(code)?;
    // The ring registers hold addresses >> 16: the first 64 KiB boundary inside.
    let ring_va = (ws.gpu_address(attr_ring)? + 0xffff) & !0xffff;
    let stamps_va = ws.gpu_address(stamps)?;
    let addrs = Addresses {
        vs: code_va,
        ps: code_va + PS_OFFSET,
        storage: ws.gpu_address(storage)?,
        color: ws.gpu_address(color)?,
        attr_ring: ring_va,
        pos_ring: ring_va + rings.pos_offset,
        prim_ring: ring_va + rings.prim_offset,
        timestamps: stamps_va,
        fence: stamps_va + FENCE_OFFSET,
    };
    Ok(Buffers {
        code,
        storage,
        color,
        attr_ring,
        stamps,
        ib,
        addrs,
        storage_bytes,
    })
}

fn free(ws: &mut dyn Winsys, b: &Buffers) {
    for id in [b.code, b.storage, b.color, b.attr_ring, b.stamps, b.ib] {
        // Freeing after a reset can fail; the winsys releases everything when dropped anyway.
        let _ = ws.free_buffer(id);
    }
}

/// What stopped further submissions.
enum Stop {
    Reset(String),
    Hang(String),
}

/// Runs `variants` on `ws`.
pub fn run(
    ws: &mut dyn Winsys,
    variants: &[Variant],
    opts: &Options,
) -> Result<Report, WinsysError> {
    run_with_progress(ws, variants, opts, |_, _, _| {})
}

/// [`run`], telling `progress` (index from 0, count, variant) before each variant runs.
pub fn run_with_progress(
    ws: &mut dyn Winsys,
    variants: &[Variant],
    opts: &Options,
    mut progress: impl FnMut(usize, usize, &Variant),
) -> Result<Report, WinsysError> {
    let info = ws.info().clone();
    let family = info.family;
    let executes = ws.executes();
    let bufs = allocate(ws, variants)?;
    let ctx = ws.create_context()?;
    let rects = stream::rectangles(opts.rects);
    let mut results = Vec::with_capacity(variants.len());
    let mut stop: Option<Stop> = None;
    for (i, v) in variants.iter().enumerate() {
        progress(i, variants.len(), v);
        let built = stream::build(family, v, &bufs.addrs, &rects);
        let mut res = VariantResult {
            variant: *v,
            outcome: Outcome::NotExecuted,
            runs: 0,
            checks: Vec::new(),
            timing: Timing { ticks: Vec::new() },
            ib: Vec::new(),
            diagnostics: Vec::new(),
        };
        let built = match built {
            Ok(b) => b,
            Err(e) => {
                res.outcome = Outcome::Error(format!("cannot build the stream: {e}"));
                results.push(res);
                continue;
            }
        };
        res.ib = built.dwords.clone();
        res.diagnostics = built
            .pops
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        if let Some(s) = &stop {
            res.outcome = Outcome::NotSubmitted(match s {
                Stop::Reset(v) => {
                    format!("the context was reset by variant {v}: no further submissions")
                }
                Stop::Hang(v) => {
                    format!("the GPU may be hung since variant {v}: no further submissions")
                }
            });
            results.push(res);
            continue;
        }
        res.outcome = run_variant(
            ws, ctx, &bufs, &built, opts, &info, &mut res, executes, &mut stop,
        );
        results.push(res);
    }
    if stop.is_none() {
        free(ws, &bufs);
    }
    Ok(Report {
        family,
        executed: executes,
        device: info.render_node.as_ref().map_or_else(
            || info.asic.clone(),
            |p| format!("{} ({})", p.display(), info.asic),
        ),
        gpu_counter_freq_khz: info.gpu_counter_freq_khz,
        results,
    })
}

/// Waits for run `run` of variant `name` and reads the context's reset status after it,
/// whatever the wait said: a reset or a hang stops the runs (`stop`) with its outcome.
fn settle(
    ws: &mut dyn Winsys,
    ctx: ContextId,
    fence: winsys::Fence,
    timeout: std::time::Duration,
    (name, run): (&str, u32),
    stop: &mut Option<Stop>,
) -> Result<(), Outcome> {
    let waited = ws.wait(fence, timeout);
    match ws.reset_status(ctx) {
        Ok(st) if !st.is_clean() => {
            *stop = Some(Stop::Reset(name.to_string()));
            return Err(Outcome::Reset(format!(
                "after {name} run {run}: reset={} guilty={} vram_lost={} in_progress={}",
                st.reset, st.guilty, st.vram_lost, st.in_progress
            )));
        }
        Ok(_) => {}
        Err(e) => {
            *stop = Some(Stop::Reset(name.to_string()));
            return Err(Outcome::Reset(format!(
                "after {name} run {run}: reset status unknown: {e}"
            )));
        }
    }
    match waited {
        Ok(()) => Ok(()),
        Err(WinsysError::FenceTimeout { .. }) => {
            *stop = Some(Stop::Hang(name.to_string()));
            Err(Outcome::Timeout(format!(
                "{name} run {run} did not finish within {timeout:?}: the GPU may be hung"
            )))
        }
        Err(WinsysError::ContextLost { kind, .. }) => {
            *stop = Some(Stop::Reset(name.to_string()));
            Err(Outcome::Reset(format!("{name}: {}", kind.describe())))
        }
        Err(e) => Err(Outcome::Error(e.to_string())),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_variant(
    ws: &mut dyn Winsys,
    ctx: ContextId,
    b: &Buffers,
    built: &DrawStream,
    opts: &Options,
    info: &winsys::DeviceInfo,
    res: &mut VariantResult,
    executes: bool,
    stop: &mut Option<Stop>,
) -> Outcome {
    let name = built.variant.name();
    let step = |r: Result<(), WinsysError>| r.map_err(|e| Outcome::Error(e.to_string()));
    // Upload the programs of this variant.
    let upload = (|| {
        ws.write(b.code, 0, &built.programs.vs.words())?;
        ws.write(b.code, PS_OFFSET, &built.programs.ps.words())
    })();
    if let Err(o) = step(upload) {
        return o;
    }
    let mut pcb = pm4::CmdBuf::new(info.gfx_level);
    pcb.raw(&built.dwords);
    let ib = cs::finish(pcb, info);
    let expected = check::expected(&built.variant, &built.rects);
    let ordered = built.variant.expects_order();
    let slots_dwords = (built.variant.slots() * SLOT_DWORDS) as usize;
    let runs = if executes { opts.runs.max(1) } else { 1 };
    let list = [b.code, b.storage, b.color, b.attr_ring, b.stamps, b.ib];
    let mut failure = None;
    for run in 0..runs {
        let clear = (|| {
            let zeros = vec![0u32; (b.storage_bytes / 4) as usize];
            ws.write(b.storage, 0, &zeros)?;
            ws.write(b.stamps, 0, &[0u32; 32])
        })();
        if let Err(o) = step(clear) {
            return o;
        }
        let label = format!("{name} run {run}");
        let fence = match cs::submit_ib(ws, ctx, b.ib, &ib, &list, &label) {
            Ok(f) => f,
            Err(WinsysError::ContextLost { kind, .. }) => {
                *stop = Some(Stop::Reset(name.clone()));
                return Outcome::Reset(format!("{name}: {}", kind.describe()));
            }
            Err(e) => return Outcome::Error(e.to_string()),
        };
        if let Err(o) = settle(ws, ctx, fence, opts.timeout, (&name, run), stop) {
            return o;
        }
        let stamps = match ws.read(b.stamps, 0, 32) {
            Ok(Readback::Executed(d)) => d,
            Ok(Readback::NotExecuted) => return Outcome::NotExecuted,
            Err(e) => return Outcome::Error(e.to_string()),
        };
        if stamps[(FENCE_OFFSET / 4) as usize] != FENCE_VALUE {
            return Outcome::Failed(format!(
                "run {run}: fence holds {:#x}, expected {FENCE_VALUE:#x}",
                stamps[(FENCE_OFFSET / 4) as usize]
            ));
        }
        let t0 = stamps[0] as u64 | (stamps[1] as u64) << 32;
        let t1 = stamps[2] as u64 | (stamps[3] as u64) << 32;
        res.timing.ticks.push(t1.wrapping_sub(t0));
        let data = match ws.read(b.storage, 0, slots_dwords) {
            Ok(Readback::Executed(d)) => d,
            Ok(Readback::NotExecuted) => return Outcome::NotExecuted,
            Err(e) => return Outcome::Error(e.to_string()),
        };
        if data.iter().all(|d| *d == 0) {
            // Cleared before the run and untouched: no shader wrote its slot, although the
            // command processor's fence and timestamps landed.
            res.runs += 1;
            return Outcome::NoShaderOutput;
        }
        let c = check::check(&data, &expected, ordered);
        res.runs += 1;
        if !c.passed() && failure.is_none() && built.variant.interlock.is_some() {
            failure = Some(format!(
                "run {run}: {} order violations, {} missing, {} duplicates, {} unexpected, {} overflows; first: {:?}",
                c.order_violations, c.missing, c.duplicates, c.unexpected, c.overflows, c.examples.first()
            ));
        }
        res.checks.push(c);
    }
    match (failure, built.variant.interlock) {
        (Some(f), _) => Outcome::Failed(f),
        (None, None) => Outcome::Reported,
        (None, Some(_)) => Outcome::Passed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_statistics() {
        let t = Timing {
            ticks: vec![30, 10, 20, 50],
        };
        assert_eq!(
            (t.min(), t.median(), t.max()),
            (Some(10), Some(20), Some(50))
        );
        let one = Timing { ticks: vec![7] };
        assert_eq!(one.median(), Some(7));
        let none = Timing { ticks: vec![] };
        assert_eq!((none.min(), none.median(), none.max()), (None, None, None));
    }

    #[test]
    fn ticks_convert_with_the_kernel_frequency_only() {
        // Unknown (capture) or a kernel-reported 0: no time, whatever the ticks.
        assert_eq!(ticks_to_ns(12_345, None), None);
        assert_eq!(ticks_to_ns(12_345, Some(0)), None);
        assert_eq!(ticks_to_us(12_345, None), None);
        // 100 MHz = 100000 kHz: 10 ns a tick.
        assert_eq!(ticks_to_ns(12_345, Some(100_000)), Some(123_450));
        assert_eq!(ticks_to_us(12_345, Some(100_000)), Some(123.45));
        assert_eq!(ticks_to_ns(0, Some(100_000)), Some(0));
        // 25 MHz: 40 ns a tick.
        assert_eq!(ticks_to_ns(3, Some(25_000)), Some(120));
        // 27 MHz: 37.037… ns a tick, rounded to the nearest nanosecond.
        assert_eq!(ticks_to_ns(1, Some(27_000)), Some(37));
        assert_eq!(ticks_to_ns(2, Some(27_000)), Some(74));
        assert_eq!(ticks_to_ns(27_000, Some(27_000)), Some(1_000_000));
    }

    #[test]
    fn tick_conversion_cannot_overflow() {
        // ticks * 10^6 overflows u64 long before this; the u128 product does not.
        assert_eq!(ticks_to_ns(u64::MAX, Some(1_000_000)), Some(u64::MAX));
        assert_eq!(ticks_to_ns(u64::MAX, Some(u64::MAX)), Some(1_000_000));
        assert_eq!(ticks_to_ns(1, Some(u64::MAX)), Some(0));
        // More nanoseconds than a u64 holds: no figure rather than a wrapped one.
        assert_eq!(ticks_to_ns(u64::MAX, Some(100_000)), None);
        assert_eq!(ticks_to_ns(u64::MAX, Some(999_999)), None);
    }

    fn report(freq_khz: Option<u64>, executed: bool) -> Report {
        let v = crate::variant::standard()[0];
        Report {
            family: pm4::Family::Navi21,
            executed,
            device: "test".into(),
            gpu_counter_freq_khz: freq_khz,
            results: vec![VariantResult {
                variant: v,
                outcome: Outcome::Passed,
                runs: 3,
                checks: Vec::new(),
                timing: Timing {
                    ticks: vec![300, 100, 200],
                },
                ib: Vec::new(),
                diagnostics: Vec::new(),
            }],
        }
    }

    #[test]
    fn report_gives_microseconds_next_to_ticks_when_the_frequency_is_known() {
        let r = report(Some(100_000), true);
        let j = r.document();
        assert_eq!(j.gpu_counter_freq_khz, Some(100_000));
        let x = &j.variants[0];
        assert_eq!(x.gpu_ticks.median, Some(200));
        assert_eq!(
            x.gpu_time_us,
            Some(GpuTime {
                runs: vec![3.0, 1.0, 2.0],
                median: Some(2.0),
                min: Some(1.0),
                max: Some(3.0),
            })
        );
        let table = r.to_table();
        assert!(table.contains("2.000") && table.contains("200"), "{table}");
        assert!(table.contains("100000 kHz"), "{table}");
        assert!(!table.contains("MHz"), "{table}");
    }

    #[test]
    fn report_gives_no_time_without_a_frequency() {
        for executed in [true, false] {
            let r = report(None, executed);
            let j = r.document();
            assert!(j.gpu_counter_freq_khz.is_none());
            let x = &j.variants[0];
            assert_eq!(x.gpu_ticks.max, Some(300));
            assert!(x.gpu_time_us.is_none());
            let table = r.to_table();
            assert!(!table.contains("MHz") && !table.contains("kHz"), "{table}");
            assert!(!table.contains("3.000"), "{table}");
        }
    }

    #[test]
    fn only_passing_reported_and_unexecuted_outcomes_are_ok() {
        assert!(
            Outcome::Passed.is_ok() && Outcome::Reported.is_ok() && Outcome::NotExecuted.is_ok()
        );
        for o in [
            Outcome::Failed("x".into()),
            Outcome::Timeout("x".into()),
            Outcome::Reset("x".into()),
            Outcome::NotSubmitted("x".into()),
            Outcome::Error("x".into()),
        ] {
            assert!(!o.is_ok(), "{o:?}");
            assert_eq!(o.detail(), "x");
        }
        assert!(!Outcome::NoShaderOutput.is_ok());
    }

    /// A run with no shader output is its own verdict: not a pass, not a failure, unless
    /// something visible failed besides.
    #[test]
    fn no_shader_output_is_its_own_verdict() {
        let mut r = report(Some(100_000), true);
        assert_eq!(r.verdict(), RunVerdict::Passed);
        r.results[0].outcome = Outcome::NoShaderOutput;
        assert_eq!(r.verdict(), RunVerdict::NoShaderOutput);
        assert!(!r.all_ok());
        assert_eq!(r.document().verdict, "no-shader-output");
        let mut failed = r.results[0].clone();
        failed.outcome = Outcome::Failed("order".into());
        r.results.push(failed);
        assert_eq!(r.verdict(), RunVerdict::Failed);
        assert_eq!(
            RunVerdict::NoShaderOutput.text(),
            "submitted, GPU results unavailable: no shader output"
        );
    }
}
