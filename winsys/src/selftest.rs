//! The hardware self-test behind `pops selftest`: a fence test, then the register states it is
//! given (`pops selftest` gives every interlock mode and sample count valid on the chip,
//! `pm4::pops::coverage`) submitted as state-only IBs, each waited for with a timeout and
//! followed by a reset-status check. Stops submitting after a
//! reset. Works on any [`Winsys`]; on capture every case is recorded and marked so, never
//! reported as having run.

use crate::cs;
use crate::{BufferId, ContextId, DeviceInfo, Domain, Readback, Winsys, WinsysError};
use pm4::fields::{ContextControlLoad, ContextControlShadow, WriteDataControl};
use pm4::{InterlockMode, RegValue, ReleaseMem};
use pops_report::selftest::{CaptureChecks, FenceReadback, SelftestCase, SelftestDocument};
use std::fmt;
use std::time::Duration;

/// The value the fence test writes: recognisable in a memory dump, never a plausible leftover.
pub const FENCE_MAGIC: u32 = 0x9095_f3c3;
/// The value the fence buffer is cleared to before each test, so a stale result cannot pass.
const CLEAR: u32 = 0xdead_0000;
/// Size of the buffer each IB is written into.
const IB_BUFFER_BYTES: u64 = 64 * 1024;
/// Fence slots: one dword per case.
const FENCE_BUFFER_BYTES: u64 = 4096;

/// One POPS register state to submit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateCase {
    pub interlock: InterlockMode,
    pub samples: u32,
    /// The registers the state writes, in emission order.
    pub registers: Vec<RegValue>,
}

impl StateCase {
    pub fn name(&self) -> String {
        format!("{} {}x", self.interlock, self.samples)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// How long each fence wait may take before the GPU is presumed hung.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(5),
        }
    }
}

/// How one case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Ran on the GPU: accepted, fence signalled, value read back, no reset.
    Passed,
    /// Recorded by the capture backend; nothing ran.
    Recorded,
    /// Ran, but something was wrong (read-back mismatch, rejected submission, …).
    Failed(String),
    /// The GPU did not finish in time.
    Timeout(String),
    /// The context was reset (the message says who was blamed).
    Reset(String),
    /// Not submitted because an earlier case reset the context or hung the GPU.
    NotSubmitted(String),
}

impl Outcome {
    pub const fn name(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Recorded => "recorded",
            Outcome::Failed(_) => "failed",
            Outcome::Timeout(_) => "timeout",
            Outcome::Reset(_) => "reset",
            Outcome::NotSubmitted(_) => "not-submitted",
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            Outcome::Passed | Outcome::Recorded => "",
            Outcome::Failed(s)
            | Outcome::Timeout(s)
            | Outcome::Reset(s)
            | Outcome::NotSubmitted(s) => s,
        }
    }

    pub const fn is_ok(&self) -> bool {
        matches!(self, Outcome::Passed | Outcome::Recorded)
    }
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// `fence`, or the state case's name (`pixel-ordered 4x`).
    pub name: String,
    pub interlock: Option<InterlockMode>,
    pub samples: Option<u32>,
    /// Number of register writes in the IB.
    pub registers: usize,
    pub ib_dwords: usize,
    /// The dword read back from the fence slot, or why there is none.
    pub readback: ReadbackResult,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadbackResult {
    Value(u32),
    NotExecuted,
    None,
}

impl fmt::Display for ReadbackResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadbackResult::Value(v) => write!(f, "{v:#010x}"),
            ReadbackResult::NotExecuted => f.write_str("not executed (capture)"),
            ReadbackResult::None => f.write_str("-"),
        }
    }
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub family: pm4::Family,
    pub executed: bool,
    pub cases: Vec<CaseResult>,
}

impl Report {
    pub fn all_ok(&self) -> bool {
        self.cases.iter().all(|c| c.outcome.is_ok())
    }

    /// `pops selftest --json`'s document: one line per case (without the excluded cases and the
    /// capture check, which the command adds).
    pub fn document(&self) -> SelftestDocument {
        SelftestDocument {
            family: self.family.name().to_string(),
            gfx_level: self.family.gfx_level().name().to_string(),
            executed: self.executed,
            ok: self.all_ok(),
            cases: self
                .cases
                .iter()
                .map(|c| SelftestCase {
                    case: c.name.clone(),
                    interlock: c.interlock.map(|m| m.name().to_string()),
                    samples: c.samples,
                    registers: c.registers,
                    ib_dwords: c.ib_dwords,
                    readback: match c.readback {
                        ReadbackResult::Value(v) => Some(FenceReadback::Value(v)),
                        ReadbackResult::NotExecuted => {
                            Some(FenceReadback::Note(ReadbackResult::NotExecuted.to_string()))
                        }
                        ReadbackResult::None => None,
                    },
                    outcome: c.outcome.name().to_string(),
                    detail: c.outcome.detail().to_string(),
                })
                .collect(),
            excluded: None,
            capture: None,
        }
    }

    /// A fixed-width table.
    pub fn to_table(&self) -> String {
        let mut s = format!(
            "{} ({}), {}\n{:<26} {:>5} {:>6} {:<24} {:<14} detail\n",
            self.family,
            self.family.gfx_level(),
            if self.executed {
                "executed on the GPU"
            } else {
                "capture: recorded, not executed"
            },
            "case",
            "regs",
            "dwords",
            "readback",
            "outcome"
        );
        for c in &self.cases {
            s.push_str(&format!(
                "{:<26} {:>5} {:>6} {:<24} {:<14} {}\n",
                c.name,
                c.registers,
                c.ib_dwords,
                c.readback.to_string(),
                c.outcome.name(),
                c.outcome.detail()
            ));
        }
        s
    }
}

/// The fence test's IB: WRITE_DATA of [`FENCE_MAGIC`] to `fence_va` (confirmed, by the ME).
pub fn fence_ib(info: &DeviceInfo, fence_va: u64) -> Result<Vec<u32>, WinsysError> {
    let mut cb = cs::cmdbuf(info);
    cb.write_data(WriteDataControl::memory(), fence_va, &[FENCE_MAGIC])?;
    Ok(cs::finish(cb, info))
}

/// A state-only IB: CONTEXT_CONTROL, the SET_*_REG packets of the state, and an end-of-pipe
/// fence (RELEASE_MEM) writing `tag` to `fence_va` once everything before it has completed.
pub fn state_ib(
    info: &DeviceInfo,
    case: &StateCase,
    fence_va: u64,
    tag: u32,
) -> Result<Vec<u32>, WinsysError> {
    let mut cb = cs::cmdbuf(info);
    cb.context_control(
        ContextControlLoad::update_only(),
        ContextControlShadow::update_only(),
    )?;
    cb.set_regs(&case.registers)?;
    cb.release_mem(&ReleaseMem::eop_fence(info.gfx_level, fence_va, tag))?;
    Ok(cs::finish(cb, info))
}

/// The tag state case `i` writes to its fence slot.
pub const fn state_tag(i: usize) -> u32 {
    0x9095_0000 | (i as u32 & 0xffff)
}

struct Resources {
    ctx: ContextId,
    fence: BufferId,
    ib: BufferId,
}

/// Runs the self-test. Errors are returned only for failures to set the test up (buffers,
/// context); everything that happens to a submitted case is in its row.
pub fn run(
    ws: &mut dyn Winsys,
    cases: &[StateCase],
    opts: &Options,
) -> Result<Report, WinsysError> {
    let res = Resources {
        ctx: ws.create_context()?,
        fence: ws.create_buffer(FENCE_BUFFER_BYTES, Domain::Gtt)?,
        ib: ws.create_buffer(IB_BUFFER_BYTES, Domain::Gtt)?,
    };
    let result = run_cases(ws, &res, cases, opts);
    // Release on every path; a failure to free does not hide the result.
    let _ = ws.free_buffer(res.ib);
    let _ = ws.free_buffer(res.fence);
    result
}

fn run_cases(
    ws: &mut dyn Winsys,
    res: &Resources,
    cases: &[StateCase],
    opts: &Options,
) -> Result<Report, WinsysError> {
    let info = ws.info().clone();
    let fence_va = ws.gpu_address(res.fence)?;
    let mut rows = Vec::with_capacity(cases.len() + 1);
    let mut stopped: Option<String> = None;

    let ib = fence_ib(&info, fence_va)?;
    let row = submit_case(ws, res, 0, &ib, FENCE_MAGIC, opts)?;
    if !row.1.is_ok() && !matches!(row.1, Outcome::Failed(_)) {
        stopped = Some(format!("the fence test ended in {}", row.1.name()));
    }
    rows.push(CaseResult {
        name: "fence".into(),
        interlock: None,
        samples: None,
        registers: 0,
        ib_dwords: ib.len(),
        readback: row.0,
        outcome: row.1,
    });

    for (i, case) in cases.iter().enumerate() {
        let slot = 4 * (i as u64 + 1) % FENCE_BUFFER_BYTES;
        let tag = state_tag(i);
        let ib = state_ib(&info, case, fence_va + slot, tag)?;
        let (readback, outcome) = match &stopped {
            Some(why) => (
                ReadbackResult::None,
                Outcome::NotSubmitted(format!("not submitted: {why}")),
            ),
            None => submit_case(ws, res, slot, &ib, tag, opts)?,
        };
        if stopped.is_none() && matches!(outcome, Outcome::Reset(_) | Outcome::Timeout(_)) {
            stopped = Some(format!(
                "case '{}' ended in {}",
                case.name(),
                outcome.name()
            ));
        }
        rows.push(CaseResult {
            name: case.name(),
            interlock: Some(case.interlock),
            samples: Some(case.samples),
            registers: case.registers.len(),
            ib_dwords: ib.len(),
            readback,
            outcome,
        });
    }
    Ok(Report {
        family: ws.info().family,
        executed: ws.executes(),
        cases: rows,
    })
}

/// Clears the fence slot, uploads and submits the IB, waits, checks the reset status and reads
/// the slot back.
fn submit_case(
    ws: &mut dyn Winsys,
    res: &Resources,
    slot: u64,
    ib: &[u32],
    expect: u32,
    opts: &Options,
) -> Result<(ReadbackResult, Outcome), WinsysError> {
    if 4 * ib.len() as u64 > IB_BUFFER_BYTES {
        return Ok((
            ReadbackResult::None,
            Outcome::Failed(format!("IB of {} dwords is too large", ib.len())),
        ));
    }
    ws.write(res.fence, slot, &[CLEAR])?;
    let fence = match cs::submit_ib(ws, res.ctx, res.ib, ib, &[res.fence], "selftest") {
        Ok(f) => f,
        Err(e) => return Ok((ReadbackResult::None, outcome_of(e))),
    };
    if let Err(e) = ws.wait(fence, opts.timeout) {
        return Ok((ReadbackResult::None, outcome_of(e)));
    }
    match ws.reset_status(res.ctx) {
        Ok(s) if !s.is_clean() => {
            return Ok((
                ReadbackResult::None,
                Outcome::Reset(format!(
                    "reset status after the wait: reset={} guilty={} vram_lost={} in_progress={}",
                    s.reset, s.guilty, s.vram_lost, s.in_progress
                )),
            ))
        }
        Ok(_) => {}
        Err(e) => return Ok((ReadbackResult::None, outcome_of(e))),
    }
    Ok(match ws.read(res.fence, slot, 1)? {
        Readback::NotExecuted => (ReadbackResult::NotExecuted, Outcome::Recorded),
        Readback::Executed(v) => {
            let got = v.first().copied().unwrap_or(CLEAR);
            let outcome = if got == expect {
                Outcome::Passed
            } else {
                Outcome::Failed(format!(
                    "read back {got:#010x}, expected {expect:#010x}: the IB did not run to its end"
                ))
            };
            (ReadbackResult::Value(got), outcome)
        }
    })
}

fn outcome_of(e: WinsysError) -> Outcome {
    match e {
        WinsysError::FenceTimeout { .. } => Outcome::Timeout(e.to_string()),
        e if e.is_reset() => Outcome::Reset(e.to_string()),
        e => Outcome::Failed(e.to_string()),
    }
}

impl From<&pm4::pops::coverage::Derived> for StateCase {
    /// The registers of a derived state, named by its mode and sample count.
    fn from(d: &pm4::pops::coverage::Derived) -> Self {
        StateCase {
            interlock: d.mode,
            samples: d.samples,
            registers: d.state.registers.clone(),
        }
    }
}

/// The check of one recorded IB against what was meant to be in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureCheck {
    pub file: String,
    pub case: String,
    /// Register writes found by the decoder.
    pub decoded_writes: usize,
    /// `None` when the IB decodes to exactly the intended packets and writes.
    pub problem: Option<String>,
}

/// Every recorded IB of a self-test capture, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureVerification {
    pub checks: Vec<CaptureCheck>,
}

impl CaptureVerification {
    pub fn all_ok(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.problem.is_none())
    }

    pub fn document(&self) -> CaptureChecks {
        CaptureChecks {
            ok: self.all_ok(),
            checks: self
                .checks
                .iter()
                .map(|c| pops_report::selftest::CaptureCheck {
                    file: c.file.clone(),
                    case: c.case.clone(),
                    decoded_writes: c.decoded_writes,
                    ok: c.problem.is_none(),
                    problem: c.problem.clone(),
                })
                .collect(),
        }
    }

    pub fn to_table(&self) -> String {
        let mut s = String::from("capture decoded with the pm4 decoder:\n");
        for c in &self.checks {
            s.push_str(&format!(
                "{:<16} {:<26} {:>4} writes  {}\n",
                c.file,
                c.case,
                c.decoded_writes,
                c.problem
                    .as_deref()
                    .unwrap_or("exactly the intended writes")
            ));
        }
        s
    }
}

/// Decodes every IB a self-test recorded in `dir` (with `pm4::decode`, the decoder behind
/// `pops decode`) and checks it holds exactly what was intended: the fence IB one WRITE_DATA and
/// no register write; each state IB CONTEXT_CONTROL, the state's register writes — the same
/// addresses and values in the same order, nothing more — and one RELEASE_MEM; padding NOPs
/// only after that.
pub fn verify_capture(
    dir: &std::path::Path,
    cases: &[StateCase],
) -> Result<CaptureVerification, WinsysError> {
    use pm4::Opcode;
    let cap = crate::capture::load(dir)?;
    let mut checks = Vec::new();
    if cap.submissions.len() != cases.len() + 1 {
        checks.push(CaptureCheck {
            file: "index.json".into(),
            case: "-".into(),
            decoded_writes: 0,
            problem: Some(format!(
                "{} submissions recorded, expected {} (the fence test and {} state cases)",
                cap.submissions.len(),
                cases.len() + 1,
                cases.len()
            )),
        });
    }
    for (i, (_, ib)) in cap.submissions.iter().enumerate() {
        let file = format!("submit-{i:04}.bin");
        let case = if i == 0 { None } else { cases.get(i - 1) };
        let name = case.map_or("fence".to_string(), StateCase::name);
        let decoded = pm4::decode(cap.gfx_level, ib);
        let writes: Vec<(u32, u32)> = decoded.writes().map(|w| (w.address, w.value)).collect();
        let opcodes: Vec<Opcode> = decoded
            .packets
            .iter()
            .map(|p| p.opcode)
            .filter(|o| *o != Opcode::NOP)
            .collect();
        let problem = if let Some(e) = decoded.error {
            Some(format!("does not decode: {e}"))
        } else if i == 0 {
            (opcodes != [Opcode::WRITE_DATA] || !writes.is_empty()).then(|| {
                format!(
                    "expected one WRITE_DATA and no register write, found {opcodes:?} and {} writes",
                    writes.len()
                )
            })
        } else if let Some(case) = case {
            let intended: Vec<(u32, u32)> = case
                .registers
                .iter()
                .map(|r| (r.desc.address, r.value))
                .collect();
            let set_packets_ok = opcodes.first() == Some(&Opcode::CONTEXT_CONTROL)
                && opcodes.last() == Some(&Opcode::RELEASE_MEM)
                && opcodes[1..opcodes.len() - 1].iter().all(|o| {
                    matches!(
                        o,
                        Opcode::SET_CONTEXT_REG
                            | Opcode::SET_SH_REG
                            | Opcode::SET_SH_REG_INDEX
                            | Opcode::SET_UCONFIG_REG
                            | Opcode::SET_UCONFIG_REG_INDEX
                            | Opcode::SET_CONFIG_REG
                    )
                });
            if !set_packets_ok {
                Some(format!(
                    "expected CONTEXT_CONTROL, SET_*_REG packets and RELEASE_MEM, found {opcodes:?}"
                ))
            } else if writes != intended {
                Some(describe_write_difference(cap.gfx_level, &intended, &writes))
            } else {
                None
            }
        } else {
            Some("a submission the self-test did not make".into())
        };
        checks.push(CaptureCheck {
            file,
            case: name,
            decoded_writes: writes.len(),
            problem,
        });
    }
    Ok(CaptureVerification { checks })
}

/// Names the first difference between intended and decoded (address, value) writes.
fn describe_write_difference(
    level: pm4::GfxLevel,
    intended: &[(u32, u32)],
    got: &[(u32, u32)],
) -> String {
    let name = |a: u32| {
        level
            .register_at(a)
            .map_or(format!("{a:#x}"), |d| d.name().to_string())
    };
    for (k, (i, g)) in intended.iter().zip(got).enumerate() {
        if i != g {
            return format!(
                "write {k}: intended {} = {:#x}, decoded {} = {:#x}",
                name(i.0),
                i.1,
                name(g.0),
                g.1
            );
        }
    }
    format!(
        "intended {} register writes, decoded {}",
        intended.len(),
        got.len()
    )
}
