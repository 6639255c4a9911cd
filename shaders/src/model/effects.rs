//! What each of the model's instructions reads and writes, and the instructions of a program
//! whose results nothing the model observes ever reads.
//!
//! Why: drivers put scalar set-up in front of the ordered section (descriptor addresses, moved
//! arguments) that differs from shader to shader while the ordering code does not. Such an
//! instruction only writes wave-local registers no later instruction reads before rewriting
//! them: in every interleaving it is a step no other wave, no event and no check can see.
//! Removing it leaves the programs the model runs equal wherever their ordering code is, so one
//! run's outcome serves every shader with the same ordering code, and no outcome depends on
//! set-up the ordering does not read.
//!
//! The reads and writes here are the interpreter's ([`super::interp`]); the test beside them
//! holds every opcode to the interpreter: locations outside an instruction's reads do not change
//! what it writes, and it writes nothing outside its writes.

use super::interp::{WaveState, SGPRS};
use crate::isa::{Inst, Label, Marker, Operand, Sop1, Sop2, Sopk, SopkImm, Sopp, SoppImm};

/// A set of the wave's locations: SGPRs 0–105, then the named ones below.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Locs(u128);

const VCC_LO: u32 = SGPRS as u32;
const VCC_HI: u32 = VCC_LO + 1;
const EXEC_LO: u32 = VCC_LO + 2;
const EXEC_HI: u32 = VCC_LO + 3;
const M0: u32 = VCC_LO + 4;
const SCC: u32 = VCC_LO + 5;
const MODE: u32 = VCC_LO + 6;
const POPS_PACKER: u32 = VCC_LO + 7;
const COUNTERS: u32 = VCC_LO + 8;

impl Locs {
    const NONE: Locs = Locs(0);

    const fn of(bit: u32) -> Locs {
        Locs(1 << bit)
    }

    pub(super) fn sgpr(n: u8) -> Locs {
        if usize::from(n) < SGPRS {
            Locs::of(u32::from(n))
        } else {
            // The interpreter reads 0 from and drops writes to registers past the model's.
            Locs::NONE
        }
    }

    pub(super) fn with(self, other: Locs) -> Locs {
        Locs(self.0 | other.0)
    }

    pub(super) fn without(self, other: Locs) -> Locs {
        Locs(self.0 & !other.0)
    }

    pub(super) fn meets(self, other: Locs) -> bool {
        self.0 & other.0 != 0
    }

    /// The SGPRs among these locations, in ascending order.
    pub fn sgprs(self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = self.0 & ((1u128 << SGPRS) - 1);
        while rest != 0 {
            out.push(rest.trailing_zeros() as u8);
            rest &= rest - 1;
        }
        out
    }

    /// SCC.
    pub(super) fn scc() -> Locs {
        Locs::of(SCC)
    }

    /// The hardware registers that select the packer a read of the exiting wave ID reads.
    pub(super) fn packer_selects() -> Locs {
        Locs::of(MODE).with(Locs::of(POPS_PACKER))
    }

    /// Whether two states of a wave hold the same values in these locations.
    pub fn agree(self, a: &WaveState, b: &WaveState) -> bool {
        let half = |x: u64, hi: bool| if hi { x >> 32 } else { x & 0xffff_ffff };
        let mut rest = self.0;
        while rest != 0 {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            let same = match bit {
                r if r < VCC_LO => a.sgpr[r as usize] == b.sgpr[r as usize],
                VCC_LO | VCC_HI => half(a.vcc, bit == VCC_HI) == half(b.vcc, bit == VCC_HI),
                EXEC_LO | EXEC_HI => half(a.exec, bit == EXEC_HI) == half(b.exec, bit == EXEC_HI),
                M0 => a.m0 == b.m0,
                SCC => a.scc == b.scc,
                MODE => a.mode == b.mode,
                POPS_PACKER => a.pops_packer == b.pops_packer,
                _ => a.counters == b.counters,
            };
            if !same {
                return false;
            }
        }
        true
    }

    /// Every location (for the interpreter test).
    #[cfg(test)]
    pub(crate) fn all() -> Locs {
        Locs((1 << (COUNTERS + 1)) - 1)
    }
}

/// The registers an operand of `dwords` dwords names: an SGPR (pair), VCC's or EXEC's low half
/// (or both); none for the others.
fn registers(op: Operand, dwords: u8) -> Locs {
    let halves = |lo: u32, hi: u32| {
        if dwords == 2 {
            Locs::of(lo).with(Locs::of(hi))
        } else {
            Locs::of(lo)
        }
    };
    match op {
        Operand::Sgpr(n) if dwords == 2 => Locs::sgpr(n).with(Locs::sgpr(n.saturating_add(1))),
        Operand::Sgpr(n) => Locs::sgpr(n),
        Operand::Vcc => halves(VCC_LO, VCC_HI),
        Operand::Exec => halves(EXEC_LO, EXEC_HI),
        _ => Locs::NONE,
    }
}

/// What an operand of `dwords` dwords reads.
pub(super) fn reads(op: Operand, dwords: u8) -> Locs {
    match op {
        Operand::M0 => Locs::of(M0),
        Operand::Scc => Locs::of(SCC),
        // The exiting wave ID's refusal looks at the packer the wave selected.
        Operand::PopsExitingWaveId => Locs::of(MODE).with(Locs::of(POPS_PACKER)),
        _ => registers(op, dwords),
    }
}

/// What writing an operand of `dwords` dwords overwrites, entirely.
fn writes(op: Operand, dwords: u8) -> Locs {
    match op {
        // A 64-bit write of M0 is dropped, as are writes of constants and of SCC as an operand.
        Operand::M0 if dwords == 1 => Locs::of(M0),
        _ => registers(op, dwords),
    }
}

/// One instruction's effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    pub reads: Locs,
    pub writes: Locs,
    /// An effect beyond its registers: control flow, an event, a hardware register, memory
    /// counters, a read of the exiting wave ID, or an error of the interpreter. Kept always.
    pub observable: bool,
}

const fn kept() -> Effects {
    Effects {
        reads: Locs::NONE,
        writes: Locs::NONE,
        observable: true,
    }
}

fn sop1(op: Sop1, dst: Operand, src0: Operand) -> Effects {
    let w = op.widths();
    let mut reads = reads(src0, w.src0);
    let mut writes = writes(dst, w.dst);
    match op {
        Sop1::MovB32 | Sop1::MovB64 | Sop1::Ff1I32B32 | Sop1::Ff1I32B64 => {}
        Sop1::NotB32 | Sop1::NotB64 | Sop1::Bcnt1I32B32 | Sop1::Bcnt1I32B64 => {
            writes = writes.with(Locs::of(SCC))
        }
        Sop1::AndSaveexecB64
        | Sop1::OrSaveexecB64
        | Sop1::Andn2SaveexecB64
        | Sop1::AndSaveexecB32
        | Sop1::OrSaveexecB32
        | Sop1::Andn2SaveexecB32 => {
            let exec = self::reads(Operand::Exec, w.dst);
            reads = reads.with(exec);
            writes = writes.with(exec).with(Locs::of(SCC));
        }
        // The bit is set in the destination's old value.
        Sop1::Bitset0B32 | Sop1::Bitset1B32 => reads = reads.with(self::reads(dst, 1)),
    }
    Effects {
        // s_bitset reads its destination: a destination of the exiting wave ID is a poll.
        observable: src0 == Operand::PopsExitingWaveId || dst == Operand::PopsExitingWaveId,
        reads,
        writes,
    }
}

fn sop2(op: Sop2, dst: Operand, src0: Operand, src1: Operand) -> Effects {
    let w = op.widths();
    let mut reads = reads(src0, w.src0).with(reads(src1, w.src1));
    let mut writes = writes(dst, w.dst);
    match op {
        // SCC selects (or carries in) and, for the select, is left as it was.
        Sop2::CselectB32 | Sop2::CselectB64 => reads = reads.with(Locs::of(SCC)),
        Sop2::AddcU32 => {
            reads = reads.with(Locs::of(SCC));
            writes = writes.with(Locs::of(SCC));
        }
        // The pack leaves SCC as it was.
        Sop2::PackLlB32B16 => {}
        Sop2::AddU32
        | Sop2::SubU32
        | Sop2::AddI32
        | Sop2::SubI32
        | Sop2::AndB32
        | Sop2::AndB64
        | Sop2::OrB32
        | Sop2::OrB64
        | Sop2::Andn2B32
        | Sop2::Andn2B64
        | Sop2::NandB32
        | Sop2::LshlB32
        | Sop2::LshlB64
        | Sop2::LshrB32
        | Sop2::BfeU32
        | Sop2::BfeU64
        | Sop2::Lshl1AddU32 => writes = writes.with(Locs::of(SCC)),
    }
    Effects {
        observable: src0 == Operand::PopsExitingWaveId || src1 == Operand::PopsExitingWaveId,
        reads,
        writes,
    }
}

/// What `inst` reads and writes in the interpreter.
pub fn effects(inst: &Inst) -> Effects {
    match *inst {
        Inst::Sop1 { op, dst, src0 } => sop1(op, dst, src0),
        Inst::Sop2 {
            op,
            dst,
            src0,
            src1,
        } => sop2(op, dst, src0, src1),
        Inst::Sopc { op, src0, src1 } => {
            let w = op.widths();
            Effects {
                reads: reads(src0, w.src0).with(reads(src1, w.src1)),
                writes: Locs::of(SCC),
                observable: src0 == Operand::PopsExitingWaveId
                    || src1 == Operand::PopsExitingWaveId,
            }
        }
        Inst::Sopk {
            op: Sopk::MovkI32,
            reg,
            imm: SopkImm::Simm16(_),
        } => Effects {
            reads: Locs::NONE,
            writes: writes(reg, 1),
            observable: false,
        },
        // Nothing happens; the step is the only trace.
        Inst::Sopp {
            op: Sopp::Nop | Sopp::WaitAlu,
            ..
        } => Effects {
            reads: Locs::NONE,
            writes: Locs::NONE,
            observable: false,
        },
        Inst::Sopp {
            op: Sopp::CbranchScc0 | Sopp::CbranchScc1,
            ..
        } => Effects {
            reads: Locs::of(SCC),
            ..kept()
        },
        Inst::Sopp {
            op: Sopp::CbranchExecz | Sopp::CbranchExecnz,
            ..
        } => Effects {
            reads: reads(Operand::Exec, 2),
            ..kept()
        },
        // The body runs on EXEC's lanes; a message, the end and the waits look at the
        // counters; the end, at the packer the wave selected.
        Inst::Marker(Marker::OrderedBody)
        | Inst::Sopp {
            op: Sopp::Endpgm | Sopp::Sendmsg,
            ..
        } => Effects {
            reads: reads(Operand::Exec, 2)
                .with(Locs::of(COUNTERS))
                .with(Locs::of(MODE))
                .with(Locs::of(POPS_PACKER)),
            ..kept()
        },
        // s_setreg merges into the register's other bits; s_getreg reads it; the SOPK and
        // SOPP forms the interpreter refuses stay, so that it still refuses them.
        Inst::Sopk { reg, .. } => Effects {
            reads: reads(reg, 1)
                .with(Locs::of(MODE))
                .with(Locs::of(POPS_PACKER))
                .with(Locs::of(COUNTERS)),
            ..kept()
        },
        Inst::Sopp { .. } | Inst::Label(_) => Effects {
            reads: Locs::of(COUNTERS),
            ..kept()
        },
    }
}

/// The instructions a wave may run after instruction `i` of `program`.
fn successors(program: &[Inst], labels: &[(&'static str, usize)], i: usize) -> [Option<usize>; 2] {
    let next = (i + 1 < program.len()).then_some(i + 1);
    // A label defined twice jumps to its last definition, as in the interpreter.
    let target = |name: &str| {
        labels
            .iter()
            .rev()
            .find(|(l, _)| *l == name)
            .map(|&(_, k)| k)
    };
    match program[i] {
        Inst::Sopp {
            op: Sopp::Endpgm, ..
        } => [None, None],
        Inst::Sopp {
            op: Sopp::Branch,
            imm: SoppImm::Target(Label(name)),
        } => [target(name), None],
        Inst::Sopp {
            imm: SoppImm::Target(Label(name)),
            ..
        } => [next, target(name)],
        _ => [next, None],
    }
}

/// Which instructions of `program` have an effect the model can observe: `false` for those
/// that only write registers no later instruction reads before overwriting them, and for
/// `s_nop`. Found by liveness to a fixed point: removing one may leave another's result unread.
/// Labels, branches, events, messages, waits, the body and every instruction that reads the
/// exiting wave ID or touches a hardware register are kept.
pub fn observable(program: &[Inst]) -> Vec<bool> {
    let succ = flow(program);
    let fx: Vec<Effects> = program.iter().map(effects).collect();
    let mut keep: Vec<bool> = vec![true; program.len()];
    // A wait for memory counters where they are zero lowers nothing, and a move of the value a
    // register already holds writes nothing new: steps nothing can see.
    let after_body = after_a_body(program, &succ);
    let moves_nothing = moves_nothing(program);
    for (k, inst) in program.iter().enumerate() {
        if (drains_counters(inst) && !after_body[k]) || moves_nothing[k] {
            keep[k] = false;
        }
    }
    let end = end_reads(program);
    loop {
        let live_in = liveness(&succ, &fx, &keep, &end);
        let mut removed = false;
        for i in 0..program.len() {
            let out = live_out(&succ, &live_in, &end, i);
            if keep[i] && !fx[i].observable && !fx[i].writes.meets(out) {
                keep[i] = false;
                removed = true;
            }
        }
        if !removed {
            return keep;
        }
    }
}

/// Per instruction, what is live after it for falling off the program's end: the interpreter
/// appends `s_endpgm` where the last instruction is neither that nor a branch.
fn end_reads(program: &[Inst]) -> Vec<Locs> {
    let endpgm = effects(&Inst::endpgm()).reads;
    program
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let falls_off = i + 1 == program.len()
                && !matches!(
                    inst,
                    Inst::Sopp {
                        op: Sopp::Endpgm | Sopp::Branch,
                        ..
                    }
                );
            if falls_off {
                endpgm
            } else {
                Locs::NONE
            }
        })
        .collect()
}

/// A wait for memory counters with the immediate the interpreter takes for it: all it does is
/// lower counters to the counts it names.
fn drains_counters(inst: &Inst) -> bool {
    match *inst {
        Inst::Sopp {
            op: Sopp::Waitcnt,
            imm: SoppImm::Waitcnt(_),
        }
        | Inst::Sopk {
            op: Sopk::WaitcntVscnt,
            imm: SopkImm::Simm16(_),
            ..
        } => true,
        Inst::Sopp {
            op,
            imm: SoppImm::Simm16(_),
        } => op.is_split_wait(),
        _ => false,
    }
}

/// What a location holds in the straight code from a program's start: its value at the start,
/// a constant, or what instruction `k` wrote into location `bit` (equal only to itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    AtStart(u32),
    Constant(u32),
    Written { k: usize, bit: u32 },
}

/// Per instruction, whether it is a move (`s_mov_b32`, `s_mov_b64`) of the value its
/// destination already holds on every path to it: ACO saves EXEC in SGPRs and restores it with
/// nothing in between. Only the straight code from the start is followed (up to the first label,
/// where other paths join, or an unconditional branch).
fn moves_nothing(program: &[Inst]) -> Vec<bool> {
    let mut none = vec![false; program.len()];
    let mut held: Vec<Held> = (0..=COUNTERS).map(Held::AtStart).collect();
    let halves = |op: Operand, dwords: u8| -> Vec<u32> {
        let locs = registers(op, dwords).0;
        (0..=COUNTERS).filter(|&b| locs >> b & 1 == 1).collect()
    };
    for (k, inst) in program.iter().enumerate() {
        match *inst {
            Inst::Label(_)
            | Inst::Sopp {
                op: Sopp::Branch, ..
            } => break,
            Inst::Sop1 {
                op: op @ (Sop1::MovB32 | Sop1::MovB64),
                dst,
                src0,
            } => {
                let dwords = if op == Sop1::MovB64 { 2 } else { 1 };
                let (to, from) = (halves(dst, dwords), halves(src0, dwords));
                let values: Option<Vec<Held>> = match src0 {
                    Operand::Const(c) if dwords == 1 => Some(vec![Held::Constant(c as i32 as u32)]),
                    Operand::Literal(v) if dwords == 1 => Some(vec![Held::Constant(v)]),
                    _ if from.len() == usize::from(dwords) => {
                        Some(from.iter().map(|&b| held[b as usize]).collect())
                    }
                    _ => None,
                };
                match values {
                    Some(v) if to.len() == v.len() => {
                        none[k] = to.iter().zip(&v).all(|(&b, h)| held[b as usize] == *h);
                        for (&b, h) in to.iter().zip(v) {
                            held[b as usize] = h;
                        }
                    }
                    _ => forget(&mut held, effects(inst).writes, k),
                }
            }
            _ => forget(&mut held, effects(inst).writes, k),
        }
    }
    none
}

/// The locations `writes` names now hold what instruction `k` wrote.
fn forget(held: &mut [Held], writes: Locs, k: usize) {
    // The written bits only (an instruction writes a few of the 128).
    let mut rest = writes.0;
    while rest != 0 {
        let bit = rest.trailing_zeros();
        rest &= rest - 1;
        if let Some(h) = held.get_mut(bit as usize) {
            *h = Held::Written { k, bit };
        }
    }
}

/// Per instruction, whether some path reaches it after an ordered-section body: only a body
/// raises the model's memory counters, so elsewhere they are zero.
fn after_a_body(program: &[Inst], succ: &[[Option<usize>; 2]]) -> Vec<bool> {
    let mut reached = vec![false; program.len()];
    let mut todo: Vec<usize> = program
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Inst::Marker(Marker::OrderedBody)))
        .flat_map(|(k, _)| succ[k].into_iter().flatten())
        .collect();
    while let Some(k) = todo.pop() {
        if !reached[k] {
            reached[k] = true;
            todo.extend(succ[k].into_iter().flatten());
        }
    }
    reached
}

/// The SGPRs some path of `program` reads before writing them, in ascending order: the only
/// ones whose value at launch can matter to a run. The model fills the others with nothing
/// (its runs draw their garbage all the same, so that a seed names the same run).
pub fn sgprs_read_at_launch(program: &[Inst]) -> Vec<u8> {
    live_at_each(program)
        .first()
        .map_or_else(Vec::new, |live| live.sgprs())
}

/// What is live before each instruction of `program`, by the interpreter's index (its `pc`),
/// and after the last (the `s_endpgm` the interpreter appends).
pub fn live_at_each(program: &[Inst]) -> Vec<Locs> {
    let succ = flow(program);
    let fx: Vec<Effects> = program.iter().map(effects).collect();
    let keep = vec![true; program.len()];
    let mut live = liveness(&succ, &fx, &keep, &end_reads(program));
    live.push(effects(&Inst::endpgm()).reads);
    live
}

/// Each instruction's successors in `program`, its labels resolved once (the liveness passes
/// over every instruction until nothing changes).
fn flow(program: &[Inst]) -> Vec<[Option<usize>; 2]> {
    let labels: Vec<(&'static str, usize)> = program
        .iter()
        .enumerate()
        .filter_map(|(k, i)| match i {
            Inst::Label(Label(name)) => Some((*name, k)),
            _ => None,
        })
        .collect();
    (0..program.len())
        .map(|i| successors(program, &labels, i))
        .collect()
}

/// What is live before each instruction of `program` (those not in `keep` pass everything
/// through), backwards to a fixed point (loops).
fn liveness(succ: &[[Option<usize>; 2]], fx: &[Effects], keep: &[bool], end: &[Locs]) -> Vec<Locs> {
    let mut live_in = vec![Locs::NONE; fx.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..fx.len()).rev() {
            let out = live_out(succ, &live_in, end, i);
            let now = if keep[i] {
                out.without(fx[i].writes).with(fx[i].reads)
            } else {
                out
            };
            if now != live_in[i] {
                live_in[i] = now;
                changed = true;
            }
        }
    }
    live_in
}

/// Live after instruction `i` (`end`: what falling off the program's end reads, per
/// instruction).
fn live_out(succ: &[[Option<usize>; 2]], live_in: &[Locs], end: &[Locs], i: usize) -> Locs {
    let mut out = end[i];
    for s in succ[i].into_iter().flatten() {
        out = out.with(live_in[s]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::interp::{Env, Program, Refusal, WaveState};
    use super::*;
    use crate::isa::{Sopc, Sopk};
    use crate::model::Rng;
    use pm4::GfxLevel;

    struct Exiting;
    impl Env for Exiting {
        fn exiting_wave_id(&mut self, _: &WaveState) -> Result<u32, Refusal> {
            Ok(7)
        }
    }

    /// The location `bit` of a wave's state, as a number.
    fn get(w: &WaveState, bit: u32) -> u64 {
        match bit {
            b if b < VCC_LO => u64::from(w.sgpr[b as usize]),
            VCC_LO => w.vcc & 0xffff_ffff,
            VCC_HI => w.vcc >> 32,
            EXEC_LO => w.exec & 0xffff_ffff,
            EXEC_HI => w.exec >> 32,
            M0 => u64::from(w.m0),
            SCC => u64::from(w.scc),
            MODE => u64::from(w.mode),
            POPS_PACKER => u64::from(w.pops_packer),
            _ => u64::from(w.counters.vm) | u64::from(w.counters.vs) << 20,
        }
    }

    fn set(w: &mut WaveState, bit: u32, v: u64) {
        let lo = |x: u64, v: u64| (x & !0xffff_ffff) | (v & 0xffff_ffff);
        let hi = |x: u64, v: u64| (x & 0xffff_ffff) | (v << 32);
        match bit {
            b if b < VCC_LO => w.sgpr[b as usize] = v as u32,
            VCC_LO => w.vcc = lo(w.vcc, v),
            VCC_HI => w.vcc = hi(w.vcc, v),
            EXEC_LO => w.exec = lo(w.exec, v),
            EXEC_HI => w.exec = hi(w.exec, v),
            M0 => w.m0 = v as u32,
            SCC => w.scc = v & 1 == 1,
            MODE => w.mode = v as u32,
            POPS_PACKER => w.pops_packer = v as u32,
            _ => w.counters.vm = (v & 0xfff) as u32,
        }
    }

    fn random_state(rng: &mut Rng) -> WaveState {
        let sgpr: Vec<u32> = (0..SGPRS).map(|_| rng.next_u64() as u32).collect();
        let mut w = WaveState::new(&sgpr, rng.next_u64());
        w.vcc = rng.next_u64();
        w.m0 = rng.next_u64() as u32;
        w.scc = rng.next_u64() & 1 == 1;
        w
    }

    /// Operands an instruction may name: registers at the model's edge included.
    const OPERANDS: [Operand; 11] = [
        Operand::Sgpr(0),
        Operand::Sgpr(5),
        Operand::Sgpr(104),
        Operand::Sgpr(105),
        Operand::Sgpr(120),
        Operand::Vcc,
        Operand::M0,
        Operand::Exec,
        Operand::Scc,
        Operand::Const(-3),
        Operand::Literal(0x8000_0001),
    ];

    /// Every instruction the pruning may remove, over the operands above.
    fn removable() -> Vec<Inst> {
        let mut all = vec![Inst::Sopp {
            op: Sopp::Nop,
            imm: SoppImm::Simm16(0),
        }];
        for &d in OPERANDS.iter().chain(&[Operand::Null]) {
            all.push(Inst::Sopk {
                op: Sopk::MovkI32,
                reg: d,
                imm: SopkImm::Simm16(0x8123),
            });
            for &a in &OPERANDS {
                all.extend(Sop1::ALL.iter().map(|&op| Inst::sop1(op, d, a)));
                for &b in [Operand::Sgpr(104), Operand::Scc, Operand::Const(-3)].iter() {
                    all.extend(Sop2::ALL.iter().map(|&op| Inst::sop2(op, d, a, b)));
                    all.extend(Sop2::ALL.iter().map(|&op| Inst::sop2(op, d, b, a)));
                }
            }
        }
        for &a in &OPERANDS {
            for &b in &OPERANDS {
                all.extend(Sopc::ALL.iter().map(|&op| Inst::sopc(op, a, b)));
            }
        }
        all
    }

    fn kept_of(program: &[Inst]) -> Vec<bool> {
        observable(program)
    }

    const S: fn(u8) -> Operand = Operand::Sgpr;

    fn label(name: &'static str) -> Inst {
        Inst::Label(Label(name))
    }

    fn branch(op: Sopp, to: &'static str) -> Inst {
        Inst::Sopp {
            op,
            imm: SoppImm::Target(Label(to)),
        }
    }

    /// A move nothing reads goes, and with it the move only it read (a fixed point); what a
    /// branch decides on stays, with what it is computed from.
    #[test]
    fn unread_results_go_and_decisions_stay() {
        let program = [
            Inst::sop1(Sop1::MovB32, S(1), S(0)), // read only by the next: goes with it
            Inst::sop1(Sop1::MovB32, S(2), S(1)), // nothing reads s2
            Inst::sopc(Sopc::Bitcmp1B32, S(3), Operand::Const(31)), // SCC for the branch
            branch(Sopp::CbranchScc0, "skip"),
            Inst::sop2(Sop2::AndB32, S(4), S(4), S(4)), // SCC overwritten before read, s4 unread
            label("skip"),
            Inst::Marker(Marker::OrderedBody),
            Inst::endpgm(),
        ];
        assert_eq!(
            kept_of(&program),
            [false, false, true, true, false, true, true, true]
        );
    }

    /// A register carried around a loop is read by the loop's next iteration, and EXEC by the
    /// body: both stay; a 32-bit write of EXEC leaves its high half live.
    #[test]
    fn loop_carried_and_lane_mask_writes_stay() {
        let program = [
            label("again"),
            Inst::sop2(Sop2::AddU32, S(5), S(5), Operand::Const(1)),
            Inst::sopc(Sopc::CmpLtU32, S(5), Operand::Const(9)),
            branch(Sopp::CbranchScc1, "again"),
            Inst::sop1(Sop1::MovB32, Operand::Exec, S(6)),
            Inst::Marker(Marker::OrderedBody),
        ];
        assert_eq!(kept_of(&program), [true; 6]);
        // A result read only past the program's end is read by nothing: the end reads the
        // counters and the selected packer, no SGPR.
        let tail = [Inst::sop1(Sop1::MovB32, S(7), S(6))];
        assert_eq!(kept_of(&tail), [false]);
    }

    /// A wait for memory counters before any body waits for nothing (only a body raises them in
    /// the model): it goes; one a body can reach before it, through a loop too, stays.
    #[test]
    fn waits_before_any_body_go() {
        let lgkm = Inst::Sopp {
            op: Sopp::Waitcnt,
            imm: SoppImm::Waitcnt(crate::isa::Waitcnt {
                vm: None,
                exp: None,
                lgkm: Some(0),
            }),
        };
        let vscnt = Inst::waitcnt_vscnt(0);
        let program = [
            lgkm,
            Inst::sopp(Sopp::WaitEvent, 0),
            vscnt,
            label("again"),
            vscnt,
            Inst::Marker(Marker::OrderedBody),
            lgkm,
            Inst::sop2(Sop2::AddU32, S(5), S(5), Operand::Const(1)),
            Inst::sopc(Sopc::CmpLtU32, S(5), Operand::Const(9)),
            branch(Sopp::CbranchScc1, "again"),
        ];
        assert_eq!(
            kept_of(&program),
            [false, true, false, true, true, true, true, true, true, true]
        );
        // In the interpreter each such wait, with the counters zero, changes nothing but the
        // program counter.
        for level in [GfxLevel::Gfx9, GfxLevel::Gfx11, GfxLevel::Gfx12] {
            for wait in [lgkm, vscnt, Inst::sopp(Sopp::WaitStorecnt, 0)] {
                assert!(drains_counters(&wait));
                let prog = Program::new(level, &[wait]).expect("a program");
                let mut rng = Rng(7);
                let mut w = random_state(&mut rng);
                w.pc = 0;
                w.counters = Default::default();
                let before = w;
                let _ = w.step(&prog, &mut Exiting);
                assert_eq!(
                    (w.pc, w.sgpr, w.counters),
                    (1, before.sgpr, before.counters)
                );
                assert_eq!(
                    (w.exec, w.vcc, w.scc, w.m0),
                    (before.exec, before.vcc, before.scc, before.m0)
                );
            }
        }
        // The wrong kind of immediate is the interpreter's error: kept.
        let odd = [Inst::Sopp {
            op: Sopp::Waitcnt,
            imm: SoppImm::Simm16(0),
        }];
        assert_eq!(kept_of(&odd), [true]);
    }

    /// ACO's save and restore of EXEC with nothing between: the restore moves the value EXEC
    /// holds, so it goes, and then the save's result is read by nothing. With EXEC changed
    /// between, or two registers one instruction wrote, nothing goes.
    #[test]
    fn moves_of_what_a_register_holds_go() {
        let save = Inst::sop1(Sop1::MovB64, S(2), Operand::Exec);
        let restore = Inst::sop1(Sop1::MovB64, Operand::Exec, S(2));
        let body = Inst::Marker(Marker::OrderedBody);
        assert_eq!(kept_of(&[save, restore, body]), [false, false, true]);
        let narrow = Inst::sop2(Sop2::AndB64, Operand::Exec, Operand::Exec, S(6));
        assert_eq!(
            kept_of(&[save, narrow, body, restore, body]),
            [true, true, true, true, true]
        );
        // A join: other paths reach the restore.
        assert_eq!(
            kept_of(&[save, label("join"), restore, body]),
            [true, true, true, true]
        );
        // s[0:1] both written by one instruction hold different values.
        let both = Inst::sop2(Sop2::AndB64, S(0), S(4), S(6));
        let copy = Inst::sop1(Sop1::MovB32, S(1), S(0));
        let read = Inst::sop2(Sop2::AddU32, Operand::Exec, S(1), S(0));
        assert_eq!(kept_of(&[both, copy, read, body]), [true, true, true, true]);
        // The same constant twice: the second moves nothing.
        let five = Inst::sop1(Sop1::MovB32, Operand::Exec, Operand::Const(5));
        assert_eq!(kept_of(&[five, five, body]), [true, false, true]);
    }

    /// Reading the exiting wave ID is itself observed (a poll, and a refusal where the wave may
    /// not read it), whether or not its value is used.
    #[test]
    fn reads_of_the_exiting_wave_id_stay() {
        let program = [
            Inst::sop1(Sop1::MovB32, S(8), Operand::PopsExitingWaveId),
            // s_bitset reads its destination, and writes it nowhere.
            Inst::sop1(
                Sop1::Bitset1B32,
                Operand::PopsExitingWaveId,
                Operand::Const(3),
            ),
            Inst::endpgm(),
        ];
        assert_eq!(kept_of(&program), [true, true, true]);
    }

    /// The pruning is sound only if these are the interpreter's effects: an instruction it may
    /// remove writes nothing but its writes, and what it writes (and the event) depends on
    /// nothing but its reads. Each checked on random states, every location outside the reads
    /// changed in turn.
    #[test]
    fn effects_are_the_interpreters() {
        let mut rng = Rng(0x5eed);
        for inst in removable() {
            let fx = effects(&inst);
            assert!(!fx.observable, "{inst:?}");
            let prog = Program::new(GfxLevel::Gfx10_3, &[inst]).expect("one instruction");
            for _ in 0..2 {
                let s = random_state(&mut rng);
                let mut s1 = s;
                let e1 = s1.step(&prog, &mut Exiting).expect("runs");
                for bit in 0..=COUNTERS {
                    if !fx.writes.meets(Locs::of(bit)) {
                        assert_eq!(get(&s, bit), get(&s1, bit), "{inst:?} wrote location {bit}");
                    }
                }
                for bit in (0..=COUNTERS).filter(|&b| !fx.reads.meets(Locs::of(b))) {
                    let mut t = s;
                    set(&mut t, bit, get(&s, bit) ^ (rng.next_u64() | 1));
                    let e2 = t.step(&prog, &mut Exiting).expect("runs");
                    assert_eq!(e1, e2, "{inst:?}");
                    for w in (0..=COUNTERS).filter(|&w| fx.writes.meets(Locs::of(w))) {
                        assert_eq!(
                            get(&s1, w),
                            get(&t, w),
                            "{inst:?}: location {w} depends on {bit}, which it does not read"
                        );
                    }
                }
            }
        }
        assert_eq!(Locs::all().0.count_ones(), COUNTERS + 1);
    }
}
