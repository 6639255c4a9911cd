//! The driver's own entry sequence run in [`crate::model`]: everything from the start of its
//! code to its first ordered access (the first vector memory instruction), converted from the
//! decoded encodings into the model's instructions, then pops' exit and the model's ordered
//! body. The model's hardware gives each wave a 10-bit wrapping wave ID, overlaps, packers and
//! garbage in the other bits; any run where a body starts before an overlapped wave's body
//! finished, a wave waits without overlap, or the waves deadlock, is a finding.
//!
//! Scalar instructions are interpreted; vector ALU and scalar memory instructions in the entry
//! do not touch the wave-ID arithmetic and are skipped (listed in the result); a scalar
//! instruction the model has no meaning for is a finding of its own, never skipped silently.

use super::code::Instr;
use crate::isa::decode::Class;
use crate::isa::{
    ordered_section, Encoding, Hwreg, HwregId, Inst, Label, Marker, Operand, SectionOptions, Sop1,
    Sop2, Sopc, Sopk, SopkImm, Sopp, SoppImm, Waitcnt,
};
use crate::model::{self, effects, simulate_prepared, Config, Packing, Prepared, Scene};
use parking_lot::Mutex;
use pm4::{GfxLevel, Granularity};
use std::sync::{Arc, OnceLock};

/// What running the entry sequence showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRun {
    /// Instructions of the entry sequence run.
    pub entry_instructions: usize,
    /// Those not run, by address and text: vector ALU, scalar memory, pacing, and scalar
    /// instructions whose results nothing the model observes reads (`model::effects`).
    pub skipped: Vec<(u32, String)>,
    /// Simulations run, waves, wave-ID wraparounds and overlapped waves over all of them.
    pub runs: usize,
    pub waves: usize,
    pub wraps: usize,
    pub overlapped_waves: usize,
    /// Reads of the exiting wave ID.
    pub polls: u64,
    /// Scheduling steps over all runs (one wave's instruction or one launch each): with the
    /// seeds, what names the interleavings explored.
    pub steps: u64,
}

/// Why the model rejected the entry sequence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelFinding {
    #[error("the model cannot interpret {text} at 0x{addr:x}: {why}")]
    Uninterpreted {
        addr: u32,
        text: String,
        why: Unmodelled,
    },
    #[error("the entry sequence breaks the ordering contract in the model ({setup}): {error}")]
    Breach { setup: String, error: String },
}

/// Why the model cannot run an instruction of the entry sequence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unmodelled {
    #[error("the model takes at most {0} branch targets in the entry")]
    TooManyTargets(usize),
    #[error("a literal operand without its dword")]
    LiteralWithoutDword,
    #[error("operand {0} is not modelled")]
    Operand(u8),
    #[error("hardware register {0} is not modelled")]
    Hwreg(u16),
    #[error("a scalar ALU opcode the model does not know")]
    ScalarAlu,
    #[error("a scalar compare the model does not know")]
    ScalarCompare,
    #[error("a SOPK opcode the model does not know")]
    Sopk,
    #[error("a program-control opcode the model does not know")]
    ProgramControl,
    #[error("a message in the entry sequence")]
    Message,
    #[error("pops's own ordered section for the comparison: {0}")]
    OwnSection(#[from] crate::isa::IsaError),
}

/// Instructions not run, by address and text.
type Skipped = Vec<(u32, String)>;

/// Label names for branch targets (the model's labels are static).
const LABELS: [&str; 32] = [
    "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12", "t13", "t14",
    "t15", "t16", "t17", "t18", "t19", "t20", "t21", "t22", "t23", "t24", "t25", "t26", "t27",
    "t28", "t29", "t30", "t31",
];
const ENTERED: &str = "entered";

/// The 32-bit value of a floating-point inline constant (operand codes 240 to 248: ±0.5, ±1.0,
/// ±2.0, ±4.0 and 1/(2π)), as a 32-bit scalar instruction reads it: the single-precision bits.
fn float_constant(code: u8) -> Option<u32> {
    let v: f32 = match code {
        240 => 0.5,
        241 => -0.5,
        242 => 1.0,
        243 => -1.0,
        244 => 2.0,
        245 => -2.0,
        246 => 4.0,
        247 => -4.0,
        // 1/(2π) as the hardware has it (0x3e22f983).
        248 => return Some(0x3e22_f983),
        _ => return None,
    };
    Some(v.to_bits())
}

/// A scalar operand field of `dwords` dwords, or why the model cannot hold it. A
/// floating-point inline constant is a 32-bit value here; a 64-bit operand reads it as a
/// double, which the model does not hold.
fn operand_of(
    level: GfxLevel,
    code: u8,
    literal: Option<u32>,
    dwords: u8,
) -> Result<Operand, Unmodelled> {
    match float_constant(code) {
        Some(bits) if dwords <= 1 => Ok(Operand::Literal(bits)),
        Some(_) => Err(Unmodelled::Operand(code)),
        None => operand(level, code, literal),
    }
}

/// A scalar source operand field, or why the model cannot hold it.
fn operand(level: GfxLevel, code: u8, literal: Option<u32>) -> Result<Operand, Unmodelled> {
    let enc = Encoding::of(level);
    let max = crate::isa::max_sgpr(level);
    Ok(match code {
        c if c <= max => Operand::Sgpr(c),
        106 => Operand::Vcc,
        c if c == enc.m0() => Operand::M0,
        // GFX9 has no NULL: its code there (that of GFX10) reads as NULL all the same.
        124 | 125 => Operand::Null,
        126 => Operand::Exec,
        128..=192 => Operand::Const((code - 128) as i8),
        193..=208 => Operand::Const(-((code - 192) as i8)),
        239 if !enc.is_gfx11_plus() => Operand::PopsExitingWaveId,
        253 => Operand::Scc,
        255 => Operand::Literal(literal.ok_or(Unmodelled::LiteralWithoutDword)?),
        c => return Err(Unmodelled::Operand(c)),
    })
}

fn find<T: Copy>(
    all: &[T],
    enc: Encoding,
    op: u8,
    opcode: impl Fn(T, Encoding) -> Option<u8>,
) -> Option<T> {
    all.iter().copied().find(|&o| opcode(o, enc) == Some(op))
}

/// Where the entry sequence ends: the code before its first vector memory access, export or
/// message (a section with no memory access ends at its ORDERED_PS_DONE, or on GFX11 at its
/// export or its jump into the PS epilog that exports) — or, where the code waits, where the
/// wait ends.
fn entry_end(level: GfxLevel, code: &[Instr]) -> usize {
    let enc = Encoding::of(level);
    let sendmsg = Sopp::Sendmsg.opcode(enc);
    let endpgm = Sopp::Endpgm.opcode(enc);
    let wait_event = Sopp::WaitEvent.opcode(enc);
    let setpc = super::opcodes::at(super::opcodes::SETPC_B64, enc);
    // Where the wait is over: past GFX11's `s_wait_event` (bit 0 clear), or past the last
    // instruction of the wait loop (the backward branch whose span reads the exiting wave ID).
    // Memory accesses before it are outside the ordered section: skipped, not run.
    // GFX9–10.3's first wait loop (its head and its backward branch), found once.
    let first_loop = match enc {
        Encoding::Gfx11 | Encoding::Gfx12 => None,
        _ => super::rules::wait_loops(enc, code).first().copied(),
    };
    let waited = match enc {
        Encoding::Gfx11 | Encoding::Gfx12 => code.iter().position(|i| {
            matches!(i.class, Class::Sopp { op, simm16 }
                if Some(op) == wait_event && enc.waits_for_export_ready(simm16))
        }),
        _ => first_loop.and_then(|(_, branch)| code.iter().position(|i| i.addr == branch)),
    };
    let from = waited.map_or(0, |k| k + 1);
    // The ordered section begins where the wait ends: right after GFX11's `s_wait_event`, or
    // at the wait loop's exit, where the path that waited and the one that did not overlap
    // meet. What follows is the section's body, whatever lane masks it builds (ACO runs an
    // atomic in a loop of single lanes). Without a wait, the entry runs up to the first access.
    let loop_exit = match enc {
        Encoding::Gfx11 | Encoding::Gfx12 => waited.map(|k| k + 1),
        _ => first_loop.and_then(|(head, back)| wait_exit(enc, code, head, back)),
    };
    let end = loop_exit.unwrap_or_else(|| {
        code[from..]
            .iter()
            .position(|i| match i.class {
                Class::Vmem { .. } | Class::Export { .. } => true,
                Class::Sopp { op, .. } => Some(op) == sendmsg || Some(op) == endpgm,
                Class::Sop1 { op, .. } => op == setpc,
                _ => false,
            })
            .map_or(code.len(), |k| from + k)
    });
    end
}

/// The addresses branches of `slice` jump to inside it, each to be a label of the model's
/// program (branches past its end, discard exits, are not).
fn branch_targets(enc: Encoding, slice: &[Instr]) -> Result<Vec<u32>, ModelFinding> {
    let end_addr = slice
        .last()
        .map_or(0, |i| i.addr + 4 * i.words.len() as u32);
    let mut targets: Vec<u32> = Vec::new();
    for i in slice {
        if let Class::Sopp { op, simm16 } = i.class {
            if find(Sopp::ALL, enc, op, Sopp::opcode).is_some_and(Sopp::is_branch) {
                let t = i64::from(i.addr) + 4 + 4 * i64::from(simm16 as i16);
                if t >= 0 && (t as u32) < end_addr && !targets.contains(&(t as u32)) {
                    targets.push(t as u32);
                }
            }
        }
    }
    if targets.len() > LABELS.len() {
        return Err(ModelFinding::Uninterpreted {
            addr: 0,
            text: format!("{} branch targets", targets.len()),
            why: Unmodelled::TooManyTargets(LABELS.len()),
        });
    }
    Ok(targets)
}

/// A SOPK instruction's immediate: the hardware register `s_setreg`/`s_getreg` name (the model
/// knows MODE and POPS_PACKER), else the plain 16 bits.
fn sopk_imm(o: Sopk, simm16: u16) -> Result<SopkImm, Unmodelled> {
    if o != Sopk::SetregB32 && o != Sopk::GetregB32 {
        return Ok(SopkImm::Simm16(simm16));
    }
    let (id, offset, size) = Hwreg::fields(simm16);
    let id = HwregId::of_code(id).ok_or(Unmodelled::Hwreg(id))?;
    Ok(SopkImm::Hwreg(Hwreg { id, offset, size }))
}

/// The entry sequence in the model's instructions, each with the driver's instruction it came
/// from (its index in the code; none for a label), and the driver's instructions not run (by
/// index: named only in the result).
struct Entry {
    insts: Vec<Inst>,
    origin: Vec<Option<usize>>,
    skipped: Vec<usize>,
}

/// Converts the entry sequence ([`entry_end`]) into the model's instructions, with those it
/// does not run.
fn entry(level: GfxLevel, code: &[Instr]) -> Result<Entry, ModelFinding> {
    let enc = Encoding::of(level);
    let end = entry_end(level, code);
    let slice = &code[..end];
    let targets = branch_targets(enc, slice)?;
    let label_of = |t: i64| -> Label {
        match targets.iter().position(|&x| i64::from(x) == t) {
            Some(k) => Label(LABELS[k]),
            None => Label(ENTERED),
        }
    };
    let mut out = Vec::new();
    let mut origin = Vec::new();
    let mut skipped = Vec::new();
    for (at, i) in slice.iter().enumerate() {
        if let Some(k) = targets.iter().position(|&t| t == i.addr) {
            out.push(Inst::Label(Label(LABELS[k])));
            origin.push(None);
        }
        let lit = i.words.get(1).copied();
        let bad = |why: Unmodelled| ModelFinding::Uninterpreted {
            addr: i.addr,
            text: i.text(enc),
            why,
        };
        let op_of = |c: u8| operand(level, c, lit).map_err(bad);
        let src_of = |c: u8, dwords: u8| operand_of(level, c, lit, dwords).map_err(bad);
        let inst = match i.class {
            Class::Sop1 { op, sdst, src0 } => match find(Sop1::ALL, enc, op, Sop1::opcode) {
                Some(o) => Inst::sop1(o, op_of(sdst)?, src_of(src0, o.widths().src0)?),
                // An instruction that only reshapes the lane mask (`s_wqm_b64 exec, exec`: whole
                // quad mode for helper lanes) leaves the wave-ID arithmetic alone.
                None if sdst == 126 && src0 == 126 => {
                    skipped.push(at);
                    continue;
                }
                None => return Err(bad(Unmodelled::ScalarAlu)),
            },
            Class::Sop2 {
                op,
                sdst,
                src0,
                src1,
            } => {
                let o = find(Sop2::ALL, enc, op, Sop2::opcode)
                    .ok_or_else(|| bad(Unmodelled::ScalarAlu))?;
                let w = o.widths();
                Inst::sop2(
                    o,
                    op_of(sdst)?,
                    src_of(src0, w.src0)?,
                    src_of(src1, w.src1)?,
                )
            }
            Class::Sopc { op, src0, src1 } => {
                let o = find(Sopc::ALL, enc, op, Sopc::opcode)
                    .ok_or_else(|| bad(Unmodelled::ScalarCompare))?;
                let w = o.widths();
                Inst::sopc(o, src_of(src0, w.src0)?, src_of(src1, w.src1)?)
            }
            Class::Sopk { op, sdst, simm16 } => {
                let o =
                    find(Sopk::ALL, enc, op, Sopk::opcode).ok_or_else(|| bad(Unmodelled::Sopk))?;
                let imm = sopk_imm(o, simm16).map_err(bad)?;
                Inst::Sopk {
                    op: o,
                    reg: op_of(sdst)?,
                    imm,
                }
            }
            Class::Sopp { op, .. } if super::opcodes::is_pacing(enc, op) => {
                skipped.push(at);
                continue;
            }
            Class::Sopp { op, simm16 } => {
                let o = find(Sopp::ALL, enc, op, Sopp::opcode)
                    .ok_or_else(|| bad(Unmodelled::ProgramControl))?;
                let imm = if o.is_branch() {
                    SoppImm::Target(label_of(
                        i64::from(i.addr) + 4 + 4 * i64::from(simm16 as i16),
                    ))
                } else if o == Sopp::Waitcnt {
                    SoppImm::Waitcnt(Waitcnt::from_simm16(enc, simm16))
                } else if o == Sopp::Sendmsg {
                    return Err(bad(Unmodelled::Message));
                } else {
                    SoppImm::Simm16(simm16)
                };
                Inst::Sopp { op: o, imm }
            }
            Class::Valu | Class::Smem | Class::Ds => {
                skipped.push(at);
                continue;
            }
            // Before the wait: accesses outside the ordered section, not run.
            Class::Export { .. } | Class::Vmem { .. } => {
                skipped.push(at);
                continue;
            }
        };
        out.push(inst);
        origin.push(Some(at));
    }
    out.push(Inst::Label(Label(ENTERED)));
    origin.push(None);
    Ok(Entry {
        insts: out,
        origin,
        skipped,
    })
}

/// The index of the instruction a wait loop (from `head` to its backward branch at `back`)
/// exits to: the one after a conditional backward branch (a rotated loop, `s_cbranch_scc0`
/// back to the `s_sleep`), else the target of its forward branch out of the loop.
fn wait_exit(enc: Encoding, code: &[Instr], head: u32, back: u32) -> Option<usize> {
    let at_back = code.iter().position(|i| i.addr == back)?;
    if let Class::Sopp { op, .. } = code[at_back].class {
        let conditional = find(Sopp::ALL, enc, op, Sopp::opcode)
            .is_some_and(|o| o.is_branch() && o != Sopp::Branch);
        if conditional {
            return (at_back + 1 < code.len()).then_some(at_back + 1);
        }
    }
    let target = code
        .iter()
        .filter(|i| i.addr >= head && i.addr < back)
        .find_map(|i| match i.class {
            Class::Sopp { op, simm16 }
                if find(Sopp::ALL, enc, op, Sopp::opcode).is_some_and(Sopp::is_branch) =>
            {
                let t = i64::from(i.addr) + 4 + 4 * i64::from(simm16 as i16);
                (t > i64::from(back)).then_some(t)
            }
            _ => None,
        })?;
    code.iter().position(|i| i64::from(i.addr) == target)
}

/// The SGPR the did-overlap test reads (`s_bitcmp1_b32 sN, 31`): where the driver keeps
/// COLLISION_WAVEID.
fn collision_sgpr(enc: Encoding, code: &[Instr]) -> Option<u8> {
    code.iter().find_map(|i| match i.class {
        Class::Sopc { op, src0, src1 }
            if src1 == 128 + 31 && Sopc::Bitcmp1B32.opcode(enc) == Some(op) =>
        {
            Some(src0)
        }
        _ => None,
    })
}

// The scenes every verification runs on, packed when pops was built (`build.rs`,
// `model::scene::encode_fixed`): `FIXED_SCENES`.
include!(concat!(env!("OUT_DIR"), "/fixed_scenes.rs"));

/// The packed stream of `seed` under `packing`: read from the scenes packed when pops was built
/// (packed here only if that table lacks it), once per process, and shared by every verified
/// shader of a chip.
fn scene(seed: u64, packing: Packing) -> Arc<Scene> {
    type Scenes = Mutex<Vec<(u64, Packing, Arc<Scene>)>>;
    static SCENES: OnceLock<Scenes> = OnceLock::new();
    let scenes = SCENES.get_or_init(Default::default);
    let kept = |all: &[(u64, Packing, Arc<Scene>)]| {
        all.iter()
            .find(|(s, p, _)| *s == seed && *p == packing)
            .map(|(_, _, scene)| scene.clone())
    };
    if let Some(hit) = kept(&scenes.lock()) {
        return hit;
    }
    let scene = Arc::new(
        model::scene::find_built(&FIXED_SCENES, seed, packing)
            .unwrap_or_else(|| model::scene::pack_fixed(seed, packing)),
    );
    let mut all = scenes.lock();
    if let Some(raced) = kept(&all) {
        return raced;
    }
    all.push((seed, packing, scene.clone()));
    scene
}

/// Runs the driver's entry sequence in the model under several seeds, wave-ID starts near the
/// wraparound, packer counts and pixel or sample interlock.
pub fn run(level: GfxLevel, code: &[Instr]) -> Result<ModelRun, ModelFinding> {
    run_with(level, code, simulate_all)
}

/// [`run`] without the outcomes of programs run before in this process: what verifying a
/// shader whose entry sequence is new costs (the benchmark, `benches/verify.rs`). The scenes are
/// still packed once per process.
pub fn run_new(level: GfxLevel, code: &[Instr]) -> Result<ModelRun, ModelFinding> {
    run_with(level, code, |level, opts, program| {
        simulate_uncached(level, opts, &program)
    })
}

fn run_with(
    level: GfxLevel,
    code: &[Instr],
    simulate: impl FnOnce(GfxLevel, SectionOptions, Vec<Inst>) -> Result<Totals, ModelFinding>,
) -> Result<ModelRun, ModelFinding> {
    let Modelled {
        options,
        program,
        skipped,
        entry_instructions,
    } = modelled(level, code)?;
    let totals = simulate(level, options, program)?;
    Ok(ModelRun {
        entry_instructions,
        skipped,
        runs: totals.runs,
        waves: totals.waves,
        wraps: totals.wraps,
        overlapped_waves: totals.overlapped_waves,
        polls: totals.polls,
        steps: totals.steps,
    })
}

/// The program the model runs for a driver's code, with the options pops' exit was emitted
/// with, the driver's instructions not run, and how many of its instructions are.
struct Modelled {
    options: SectionOptions,
    program: Vec<Inst>,
    skipped: Skipped,
    entry_instructions: usize,
}

/// The driver's entry sequence, the model's body and pops' exit, less what no wave, event or
/// check can observe (`model::effects`): the driver's set-up around the ordering code, which
/// differs from shader to shader.
fn modelled(level: GfxLevel, code: &[Instr]) -> Result<Modelled, ModelFinding> {
    let enc = Encoding::of(level);
    let Entry {
        insts: enter,
        origin,
        mut skipped,
    } = entry(level, code)?;
    // pops' exit after the model's body; its scratch SGPRs far from the driver's.
    let options = SectionOptions {
        intrawave: false,
        wave64: true,
        collision_sgpr: collision_sgpr(enc, code).unwrap_or(2),
        intrawave_sgpr: 3,
        scratch_sgprs: 96,
    };
    let ours = ordered_section(level, &options).map_err(|e| ModelFinding::Uninterpreted {
        addr: 0,
        text: String::new(),
        why: e.into(),
    })?;
    let mut whole = enter;
    whole.push(Inst::Marker(Marker::OrderedBody));
    whole.extend_from_slice(&ours.exit);
    let keep = observable(&whole);
    let mut program = Vec::with_capacity(whole.len());
    let mut entry_instructions = 0;
    for (k, inst) in whole.into_iter().enumerate() {
        let from = origin.get(k);
        if keep[k] {
            entry_instructions += usize::from(matches!(from, Some(Some(_))));
            program.push(inst);
        } else if let Some(&Some(at)) = from {
            skipped.push(at);
        }
    }
    // Code comes in address order: by index is by address.
    skipped.sort_unstable();
    Ok(Modelled {
        options,
        program,
        skipped: skipped
            .into_iter()
            .map(|at| (code[at].addr, code[at].text(enc)))
            .collect(),
        entry_instructions,
    })
}

/// Which instructions of `whole` (the driver's entry, the model's body, pops' exit) have an
/// effect the model can observe (`model::effects::observable`). Shaders of one driver share a
/// few entry sequences whatever else they do, so the answer for a program seen before in this
/// process is reused, as the outcomes of its runs are ([`simulate_all`]).
fn observable(whole: &[Inst]) -> Vec<bool> {
    type Kept = parking_lot::Mutex<rustc_hash::FxHashMap<Vec<Inst>, Vec<bool>>>;
    static KEPT: OnceLock<Kept> = OnceLock::new();
    let store = KEPT.get_or_init(Default::default);
    if let Some(hit) = store.lock().get(whole) {
        return hit.clone();
    }
    let keep = effects::observable(whole);
    let mut store = store.lock();
    if store.len() >= OUTCOMES_KEPT {
        store.clear();
    }
    store.insert(whole.to_vec(), keep.clone());
    keep
}

/// What every run of one program added up to.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    runs: usize,
    waves: usize,
    wraps: usize,
    overlapped_waves: usize,
    polls: u64,
    steps: u64,
}

/// A program with what it was run with: the key of [`simulate_all`]'s outcomes.
type ProgramKey = (GfxLevel, SectionOptions, Vec<Inst>);
type Outcomes = parking_lot::Mutex<rustc_hash::FxHashMap<ProgramKey, Result<Totals, ModelFinding>>>;

/// Programs whose outcome is kept, at most; when full, the store starts over.
const OUTCOMES_KEPT: usize = 256;

/// Every run of `program` (the driver's entry, the model's body, pops' exit). The outcome is a
/// function of the program alone, and drivers emit the same few entry sequences for every
/// shader of a chip, so the outcome of a program run before in this process is reused: the
/// layer verifies every interlocked pipeline an application creates.
fn simulate_all(
    level: GfxLevel,
    opts: SectionOptions,
    program: Vec<Inst>,
) -> Result<Totals, ModelFinding> {
    static OUTCOMES: OnceLock<Outcomes> = OnceLock::new();
    let store = OUTCOMES.get_or_init(Default::default);
    let keep = |key: ProgramKey, outcome: &Result<Totals, ModelFinding>| {
        let mut store = store.lock();
        if store.len() >= OUTCOMES_KEPT {
            store.clear();
        }
        store.insert(key, outcome.clone());
    };
    let key = (level, opts, program);
    if let Some(hit) = store.lock().get(&key) {
        return hit.clone();
    }
    // The same code in another register allocation is the same program (`model::rename`): its
    // clean outcome is the one kept. A breach is named in the driver's own registers, so a
    // program that breaches is run, and kept, as it is.
    if let Some(renamed) = model::rename::canonical(&key.2, opts) {
        let renamed_key = (level, renamed.options, renamed.program);
        let hit = store.lock().get(&renamed_key).cloned();
        let outcome = match hit {
            Some(hit) => hit,
            // Run outside the lock: other threads keep verifying meanwhile.
            None => {
                let outcome = simulate_uncached(level, renamed_key.1, &renamed_key.2);
                keep(renamed_key, &outcome);
                outcome
            }
        };
        if outcome.is_ok() {
            keep(key, &outcome);
            return outcome;
        }
    }
    let outcome = simulate_uncached(level, opts, &key.2);
    keep(key, &outcome);
    outcome
}

/// The packer counts the verification runs `level` with: all it can have (GFX9: 2, GFX10–10.3: 4,
/// GFX11 and later: one), and fewer.
fn packers(level: GfxLevel) -> &'static [u8] {
    match level {
        GfxLevel::Gfx9 => &[1, 2],
        l if l.is_gfx11_plus() => &[1],
        _ => &[1, 2, 4],
    }
}

/// Runs `program` under several seeds, wave-ID starts near the wraparound, packer counts and
/// pixel or sample interlock; the first breach is the outcome.
fn simulate_uncached(
    level: GfxLevel,
    opts: SectionOptions,
    program: &[Inst],
) -> Result<Totals, ModelFinding> {
    let mut run = Totals::default();
    let packers = packers(level);
    let prepared = Prepared::new(level, program).map_err(|e| ModelFinding::Breach {
        setup: "before any run".into(),
        error: e.to_string(),
    })?;
    for seed in model::scene::SEEDS {
        for &p in packers {
            for sample in [false, true] {
                for first in [0u16, 1012] {
                    let mut cfg = Config::new(level, opts);
                    cfg.seed = seed;
                    cfg.packers = p;
                    cfg.first_wave_id = first;
                    cfg.granularity = if sample {
                        Granularity::Sample
                    } else {
                        Granularity::Pixel
                    };
                    cfg.max_steps = 5_000_000;
                    let scene = scene(seed, cfg.packing());
                    let r = simulate_prepared(&cfg, &prepared, &scene).map_err(|e| {
                        ModelFinding::Breach {
                            setup: format!(
                                "seed {seed}, {p} packer(s), {} interlock, first wave ID {first}",
                                if sample { "sample" } else { "pixel" }
                            ),
                            error: e.to_string(),
                        }
                    })?;
                    run.runs += 1;
                    run.waves += r.waves;
                    run.wraps += r.wraps;
                    run.overlapped_waves += r.overlapped_waves;
                    run.polls += r.polls;
                    run.steps += r.steps;
                }
            }
        }
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACO's code (Mesa 26.2.6, navi21) for the corpus's `helper_under_branch`: a rotated wait
    /// loop (`s_branch` into its compare, `s_cbranch_scc0` back to `s_sleep`), then the ordered
    /// atomic in a loop of single lanes.
    const ROTATED: &str = include_str!("../../tests/aco/helper_under_branch_navi21_mesa26.s");

    /// The interleavings the model explores for ACO's code of two corpus shaders (the
    /// benchmark's, `benches/code/`), pinned: a change that makes the model cheaper must explore
    /// the same steps, waves and polls (what it proves stays the same); a change that
    /// means to explore otherwise updates these figures and says why.
    ///
    /// Last changed when a sleeping poller came to be set aside by a round run on a copy
    /// (`model::quiet`): at its sleep, the wave's next round is run once on a copy; where it
    /// would only read the exiting wave ID and come back with the same live values, the wave is
    /// not scheduled until the ID is one for which a compare it made would go otherwise (before:
    /// it ran a second round first, and every exit of its packer scheduled it for one more
    /// round). Labels are passed over, not counted as steps. The same runs and waves; the
    /// scheduler's choices differ as fewer waves are runnable: overlapped GFX9 726 → 728; polls
    /// GFX9 3,370 → 1,372, steps 32,246 → 18,036 (GFX11 and GFX12 do not poll, and run no label:
    /// unchanged); every mutation test still catches its mutation, and in the test build every
    /// wave kept asleep is checked by running its round at the new ID.
    ///
    /// Before, when a wave came to run from one scheduling point to the next in one step
    /// (`model::Sim::advance`: its instructions up to the next event, or to just before a second
    /// read of the exiting wave ID, are seen by no other wave — partial-order reduction): the
    /// same runs and waves, the same instructions counted as steps, fewer scheduling decisions.
    /// Waves now pass their private instructions in one decision, so fewer are still in flight
    /// when the next wave launches: overlapped waves GFX9 810 → 726, GFX11/12 344 → 336; fewer
    /// polls on GFX9 (6,516 → 3,370, a woken poller's round no longer interleaved with others);
    /// steps GFX9 51,710 → 32,246, GFX11 2,892 → 2,878, GFX12 4,342 → 4,326; every mutation
    /// test still catches its mutation.
    ///
    /// Before, when waves whose wait cannot have ended stopped being scheduled: a poll
    /// loop once a round of it came back to its sleep with the same values in every location
    /// read after it, having read the exiting wave ID it would read again (before: the whole
    /// state and two rounds after every exit of any wave), until that ID changes; and
    /// `s_wait_event` until a wave it overlaps ends. The same runs, waves and overlaps in fewer
    /// steps: GFX11 5,796 → 2,892, GFX12 7,600 → 4,342, GFX9 65,270 → 51,710 (8,776 → 6,516
    /// polls). Before, when instructions without an observable effect stopped being run
    /// (`model::effects`): 6,562 and 8,280 steps for GFX11 and GFX12. GFX9's two shaders have
    /// the same figures: their code is one entry sequence in two register allocations, whose
    /// runs are the same renamed (`model::rename`).
    #[test]
    fn the_explored_interleavings_are_pinned() {
        let cases: [(&str, GfxLevel, &str, [u64; 5]); 4] = [
            (
                "navi31 25",
                GfxLevel::Gfx11,
                include_str!("../../benches/code/oit_interlock_navi31_mesa25.s"),
                [16, 362, 336, 0, 2878],
            ),
            (
                "vega10 25",
                GfxLevel::Gfx9,
                include_str!("../../benches/code/oit_interlock_vega10_mesa25.s"),
                [32, 864, 728, 1372, 18036],
            ),
            (
                "vega10 25 pixel",
                GfxLevel::Gfx9,
                include_str!("../../benches/code/pixel_interlock_ordered_vega10_mesa25.s"),
                [32, 864, 728, 1372, 18036],
            ),
            (
                "gfx1201 26",
                GfxLevel::Gfx12,
                include_str!("../../benches/code/oit_interlock_gfx1201_mesa26.s"),
                [16, 362, 336, 0, 4326],
            ),
        ];
        let mut wrong = Vec::new();
        for (at, level, text, want) in cases {
            let (_, code) = super::super::read(Encoding::of(level), text).expect("ACO assembly");
            let m = run_new(level, &code).unwrap_or_else(|e| panic!("{at}: {e}"));
            let got = [
                m.runs as u64,
                m.waves as u64,
                m.overlapped_waves as u64,
                m.polls,
                m.steps,
            ];
            if got != want {
                wrong.push(format!("{at}: {got:?}, pinned {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// Every scene a verification runs on is in the table packed when pops was built, equal to
    /// the scene packed now from its stream.
    #[test]
    fn every_scene_verified_on_was_packed_at_build_time() {
        for level in GfxLevel::ALL {
            for &p in packers(level) {
                for seed in model::scene::SEEDS {
                    for sample in [false, true] {
                        let mut cfg = Config::new(level, SectionOptions::default());
                        cfg.section.wave64 = true;
                        cfg.section.intrawave = false;
                        cfg.packers = p;
                        cfg.granularity = if sample {
                            Granularity::Sample
                        } else {
                            Granularity::Pixel
                        };
                        let packing = cfg.packing();
                        let built = model::scene::find_fixed(&FIXED_SCENES, seed, packing);
                        let now = model::scene::pack_fixed(seed, packing);
                        assert_eq!(
                            built.as_ref(),
                            Some(&now),
                            "{level} {packing:?} seed {seed}"
                        );
                        // What the verification reads (the layout only) is that same scene.
                        assert_eq!(
                            model::scene::find_built(&FIXED_SCENES, seed, packing).as_ref(),
                            Some(&now),
                            "{level} {packing:?} seed {seed}"
                        );
                    }
                }
            }
        }
    }

    /// RADV's GFX9 code of two corpus shaders: one entry sequence with its arguments in `s5`
    /// and in `s4`. Renamed, they are one program, whose outcome one run gives both.
    #[test]
    fn one_entry_sequence_in_two_allocations_is_one_program() {
        let level = GfxLevel::Gfx9;
        let program = |text: &str| {
            let (_, code) = super::super::read(Encoding::of(level), text).expect("ACO assembly");
            let m = modelled(level, &code).expect("modelled");
            (
                m.options.collision_sgpr,
                model::rename::canonical(&m.program, m.options),
            )
        };
        let (oit_at, oit) = program(include_str!(
            "../../benches/code/oit_interlock_vega10_mesa25.s"
        ));
        let (pixel_at, pixel) = program(include_str!(
            "../../benches/code/pixel_interlock_ordered_vega10_mesa25.s"
        ));
        assert_eq!((oit_at, pixel_at), (5, 4));
        assert!(oit.is_some());
        assert_eq!(oit, pixel);
    }

    fn run_text(text: &str) -> Result<ModelRun, ModelFinding> {
        let (_, code) = super::super::read(Encoding::Gfx10, text).expect("ACO assembly");
        run(GfxLevel::Gfx10_3, &code)
    }

    /// A floating-point inline constant (ACO writes `0.5` for operand 240) is a 32-bit value to a
    /// 32-bit scalar instruction, and the entry still runs in primitive order; read by a 64-bit
    /// one it is a double the model does not hold: not interpreted, never a breach.
    #[test]
    fn float_inline_constants_are_values_where_32_bit() {
        let nop = "\ts_nop 0 ; bf800000";
        assert!(ROTATED.contains(nop));
        let narrow = ROTATED.replacen(nop, "\ts_mov_b32 s9, 0.5 ; be8903f0", 1);
        let m = run_text(&narrow).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.overlapped_waves > 0, "{m:?}");
        let wide = ROTATED.replacen(nop, "\ts_mov_b64 s[10:11], 0.5 ; be8a04f0", 1);
        assert!(
            matches!(
                run_text(&wide),
                Err(ModelFinding::Uninterpreted {
                    why: Unmodelled::Operand(240),
                    ..
                })
            ),
            "{:?}",
            run_text(&wide)
        );
        assert_eq!(float_constant(240), Some(0x3f00_0000));
        assert_eq!(float_constant(247), Some((-4.0f32).to_bits()));
        assert_eq!(float_constant(239), None);
    }

    /// The section begins where the wait ends, the rotated loop's fall-through: the entry runs
    /// in primitive order, and what the body does with lane masks is not the entry's.
    #[test]
    fn a_rotated_wait_loop_ends_the_entry_at_its_fall_through() {
        let m = run_text(ROTATED).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.overlapped_waves > 0 && m.wraps > 0, "{m:?}");
    }

    /// "It's a volatile operand, and it needs to be read in a loop until its value becomes
    /// greater than the newest overlapped wave ID (after remapping both to monotonic)": the
    /// rotated loop's compare reversed lets ordered sections run out of order.
    #[test]
    fn a_reversed_exit_compare_in_a_rotated_loop_breaks_the_order() {
        let line = "s_cmp_lt_u32 s5, s3 ; bf0a0305";
        assert!(ROTATED.contains(line));
        let reversed = ROTATED.replacen(line, "s_cmp_lt_u32 s3, s5 ; bf0a0503", 1);
        let first = run_text(&reversed);
        assert!(
            matches!(first, Err(ModelFinding::Breach { .. })),
            "{first:?}"
        );
        // The same program again is answered from the outcomes kept: the same breach, and the
        // one the driver's code itself gives run as it is (never renamed, never kept).
        assert_eq!(run_text(&reversed), first);
        let (_, code) = super::super::read(Encoding::Gfx10, &reversed).expect("ACO assembly");
        assert_eq!(run_new(GfxLevel::Gfx10_3, &code), first);
    }

    /// An outcome kept is reused only for the very program it was run with: a correct program
    /// verified after a broken one that differs in one operand is run, and clean.
    #[test]
    fn kept_outcomes_are_per_program() {
        let line = "s_cmp_lt_u32 s5, s3 ; bf0a0305";
        let reversed = ROTATED.replacen(line, "s_cmp_lt_u32 s3, s5 ; bf0a0503", 1);
        assert!(run_text(&reversed).is_err());
        let clean = run_text(ROTATED).expect("ACO's rotated loop is correct");
        assert!(clean.runs > 0 && clean.overlapped_waves > 0, "{clean:?}");
        assert!(run_text(&reversed).is_err());
    }
}
