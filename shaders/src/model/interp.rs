//! A scalar-ALU interpreter for the instructions of [`crate::isa`]: SGPRs, SCC, EXEC, VCC, M0,
//! the MODE and POPS_PACKER hardware registers, branches, and the memory counters that
//! `s_waitcnt` drains. Everything outside the wave (the exiting wave ID, messages, events, the
//! body of the ordered section) is handed to the caller as an [`Event`] or asked of an [`Env`].

use crate::isa::{
    Encoding, HwregId, Inst, Label, Marker, Msg, Operand, Sop1, Sop2, Sopc, Sopk, SopkImm, Sopp,
    SoppImm, Waitcnt,
};
use pm4::GfxLevel;

/// Number of SGPRs a wave owns in the model (GFX10+ addresses s0–s105).
pub const SGPRS: usize = 106;

/// Why the interpreter could not execute an instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("instruction {pc} `{text}` is not supported by the model: {why}")]
    Unsupported {
        pc: usize,
        text: String,
        why: &'static str,
    },
    #[error("branch to undefined label '{0}'")]
    UndefinedLabel(&'static str),
    #[error("the program counter left the program at {0} without s_endpgm")]
    RanOff(usize),
}

/// A program with its labels resolved to instruction indices.
#[derive(Clone, Debug)]
pub struct Program {
    pub level: GfxLevel,
    enc: Encoding,
    pub insts: Vec<Inst>,
    /// What a step needs of each instruction (by index), resolved once, side by side.
    ops: Vec<Op>,
}

/// One instruction as [`WaveState::step`] runs it.
#[derive(Clone, Copy, Debug)]
struct Op {
    /// The form it runs in without looking at its operands' kinds, where it has one.
    short: Short,
    /// The first instruction after it that is not a label (or the end): a wave goes on there,
    /// as a label is no instruction.
    next: u32,
    /// Where it branches to when it branches: resolved once, as a wave spinning in a wait loop
    /// takes a branch every few instructions.
    target: u32,
    /// Whether it reads the exiting wave ID, the one value other waves change
    /// ([`reads_exiting_wave_id`]).
    reads_exiting: bool,
}

/// A 32-bit scalar source resolved when the program is made: what `read32` reads for it.
#[derive(Clone, Copy, Debug)]
enum Src32 {
    Sgpr(u8),
    Value(u32),
    Scc,
    Exiting,
}

impl Src32 {
    /// The source `op` is, where it is one of these (the rest are read as operands).
    fn of(op: Operand) -> Option<Src32> {
        Some(match op {
            Operand::Sgpr(n) if usize::from(n) < SGPRS => Src32::Sgpr(n),
            Operand::Const(v) => Src32::Value(v as i32 as u32),
            Operand::Literal(v) => Src32::Value(v),
            Operand::Null => Src32::Value(0),
            Operand::Scc => Src32::Scc,
            Operand::PopsExitingWaveId => Src32::Exiting,
            _ => return None,
        })
    }
}

/// The scalar ALU on 32 bits into an SGPR, compares of 32 bits and branches: most of what a
/// wave runs, in a form that runs with a table lookup per operand.
#[derive(Clone, Copy, Debug)]
enum Short {
    /// The instruction as it is (`WaveState::step` looks at it).
    None,
    Alu {
        op: Sop2,
        dst: u8,
        a: Src32,
        b: Src32,
    },
    Compare {
        op: Sopc,
        a: Src32,
        b: Src32,
    },
    Branch(Sopp),
    /// The events and waits every wave meets once or a few times: `s_sleep`, `s_sendmsg`,
    /// the body, `s_endpgm` and `s_waitcnt`, and what runs as nothing (labels, `s_nop`, a wait
    /// for ALU results: it orders nothing the model counts).
    Sleep(u16),
    Message(Msg),
    Body,
    End,
    Wait(Waitcnt),
    Nothing,
}

impl Short {
    fn of(inst: &Inst) -> Short {
        let w32 = |d: u8, s0: u8, s1: u8| d <= 1 && s0 == 1 && s1 == 1;
        match *inst {
            Inst::Sop2 {
                op,
                dst: Operand::Sgpr(dst),
                src0,
                src1,
            } if usize::from(dst) < SGPRS && {
                let w = op.widths();
                w32(w.dst, w.src0, w.src1)
            } =>
            {
                match (Src32::of(src0), Src32::of(src1)) {
                    (Some(a), Some(b)) => Short::Alu { op, dst, a, b },
                    _ => Short::None,
                }
            }
            Inst::Sopc { op, src0, src1 }
                if {
                    let w = op.widths();
                    w32(0, w.src0, w.src1)
                } =>
            {
                match (Src32::of(src0), Src32::of(src1)) {
                    (Some(a), Some(b)) => Short::Compare { op, a, b },
                    _ => Short::None,
                }
            }
            Inst::Sopp {
                op:
                    op @ (Sopp::Branch
                    | Sopp::CbranchScc0
                    | Sopp::CbranchScc1
                    | Sopp::CbranchExecz
                    | Sopp::CbranchExecnz),
                imm: SoppImm::Target(_),
            } => Short::Branch(op),
            Inst::Sopp {
                op: Sopp::Sleep,
                imm: SoppImm::Simm16(v),
            } => Short::Sleep(v),
            Inst::Sopp {
                op: Sopp::Sendmsg,
                imm: SoppImm::Msg(m),
            } => Short::Message(m),
            Inst::Sopp {
                op: Sopp::Endpgm, ..
            } => Short::End,
            Inst::Sopp {
                op: Sopp::Waitcnt,
                imm: SoppImm::Waitcnt(w),
            } => Short::Wait(w),
            Inst::Sopp {
                op: Sopp::Nop | Sopp::WaitAlu,
                ..
            }
            | Inst::Label(_) => Short::Nothing,
            Inst::Marker(Marker::OrderedBody) => Short::Body,
            _ => Short::None,
        }
    }
}

impl Program {
    /// Resolves labels; appends `s_endpgm` when the program does not end with one.
    pub fn new(level: GfxLevel, insts: &[Inst]) -> Result<Program, InterpError> {
        let mut insts = insts.to_vec();
        if !matches!(
            insts.last(),
            Some(Inst::Sopp {
                op: Sopp::Endpgm,
                ..
            })
        ) {
            insts.push(Inst::endpgm());
        }
        let mut labels: Vec<(&'static str, usize)> = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            if let Inst::Label(Label(name)) = inst {
                // The last definition wins, as it did in a map.
                labels.retain(|(l, _)| l != name);
                labels.push((*name, i));
            }
        }
        let mut next = vec![insts.len(); insts.len() + 1];
        for i in (0..insts.len()).rev() {
            next[i] = if matches!(insts[i], Inst::Label(_)) {
                next[i + 1]
            } else {
                i
            };
        }
        // Indices are kept in 32 bits: no program is that long.
        let index = |k: usize| u32::try_from(k).unwrap_or(u32::MAX);
        let ops = insts
            .iter()
            .enumerate()
            .map(|(k, inst)| {
                let target = match inst {
                    Inst::Sopp {
                        imm: SoppImm::Target(Label(name)),
                        ..
                    } => labels
                        .iter()
                        .find(|(l, _)| l == name)
                        .map(|&(_, t)| index(next[t]))
                        .ok_or(InterpError::UndefinedLabel(name))?,
                    _ => u32::MAX,
                };
                Ok(Op {
                    short: Short::of(inst),
                    next: index(next[k + 1]),
                    target,
                    reads_exiting: reads_exiting_wave_id(inst),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Program {
            level,
            enc: Encoding::of(level),
            insts,
            ops,
        })
    }
}

/// Whether `inst` reads the exiting wave ID: the one value a wave reads that other waves change.
pub fn reads_exiting_wave_id(inst: &Inst) -> bool {
    let mut reads = false;
    inst.map_operands(|o| {
        reads |= o == Operand::PopsExitingWaveId;
        o
    });
    reads
}

/// Outstanding memory accesses, drained by `s_waitcnt` (vm, lgkm) and `s_waitcnt_vscnt` (vs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counters {
    pub vm: u32,
    pub vs: u32,
    pub lgkm: u32,
}

impl Counters {
    pub fn is_zero(&self) -> bool {
        self.vm == 0 && self.vs == 0 && self.lgkm == 0
    }

    /// GFX12's split waits: loads, samples and BVH queries on the model's vm, stores on vs,
    /// LDS and scalar memory on lgkm; the combined forms carry the second count in bits 13:8.
    fn split_wait(&mut self, op: Sopp, v: u16) {
        let (low, high) = (u32::from(v), u32::from((v >> 8) & 0x3f));
        let ds = u32::from(v & 0x3f);
        match op {
            Sopp::WaitLoadcnt | Sopp::WaitSamplecnt | Sopp::WaitBvhcnt => {
                self.vm = self.vm.min(low)
            }
            Sopp::WaitStorecnt => self.vs = self.vs.min(low),
            Sopp::WaitDscnt | Sopp::WaitKmcnt => self.lgkm = self.lgkm.min(low),
            Sopp::WaitLoadcntDscnt => {
                self.vm = self.vm.min(high);
                self.lgkm = self.lgkm.min(ds);
            }
            Sopp::WaitStorecntDscnt => {
                self.vs = self.vs.min(high);
                self.lgkm = self.lgkm.min(ds);
            }
            _ => {}
        }
    }
}

/// The architectural state of one wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaveState {
    pub pc: usize,
    /// In place, not on the heap: the model keeps a copy of a sleeping wave's state to tell
    /// whether it polls the same values again, thousands of times per run.
    pub sgpr: [u32; SGPRS],
    pub scc: bool,
    pub exec: u64,
    pub vcc: u64,
    pub m0: u32,
    /// HW_REG_MODE; bits `[25:24]` select the POPS packer on GFX9.
    pub mode: u32,
    /// HW_REG_POPS_PACKER (GFX10–10.3).
    pub pops_packer: u32,
    pub counters: Counters,
}

impl WaveState {
    /// A wave at its start with `sgpr` in its first scalar registers (the rest 0).
    pub fn new(sgpr: &[u32], exec: u64) -> WaveState {
        let mut regs = [0; SGPRS];
        let n = sgpr.len().min(SGPRS);
        regs[..n].copy_from_slice(&sgpr[..n]);
        WaveState {
            pc: 0,
            sgpr: regs,
            scc: false,
            exec,
            vcc: 0,
            m0: 0,
            mode: 0,
            pops_packer: 0,
            counters: Counters::default(),
        }
    }
}

/// What happened in a step that concerns the world outside the wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An ordinary instruction (or a label) ran.
    None,
    /// `s_sleep imm` ran: the wave yields.
    Sleep(u16),
    /// `s_sendmsg` ran.
    Message(Msg),
    /// `s_wait_event imm` is at the program counter and was *not* executed: the caller decides
    /// whether the event has happened and then calls [`WaveState::retire_wait_event`].
    WaitEvent(u16),
    /// The ordered-section body runs with this EXEC mask.
    Body(u64),
    /// `s_endpgm`.
    End,
}

/// What the interpreter asks of the hardware around the wave.
pub trait Env {
    /// The value of `src_pops_exiting_wave_id` for a wave in state `wave`, or a reason why
    /// reading it is a violation.
    fn exiting_wave_id(&mut self, wave: &WaveState) -> Result<u32, Refusal>;
}

/// Why reading `src_pops_exiting_wave_id` is a violation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("did-overlap clear")]
    DidOverlapClear,
    #[error("the packer hardware register does not enable POPS")]
    PopsNotEnabled,
    #[error("it selects packer {selected}, but the wave belongs to packer {own}")]
    OtherPacker { selected: u8, own: u8 },
    #[error("{0}")]
    NoHardware(&'static str),
}

/// Why a step stopped: an interpreter error or an environment refusal (a contract violation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    Interp(InterpError),
    Env(Refusal),
}

impl From<InterpError> for StepError {
    fn from(e: InterpError) -> Self {
        StepError::Interp(e)
    }
}

impl WaveState {
    /// The 32-bit value of operand `op` where it is the wave's own (not the exiting wave ID).
    pub fn operand32(&self, op: Operand) -> Option<u32> {
        struct Own;
        impl Env for Own {
            fn exiting_wave_id(&mut self, _: &WaveState) -> Result<u32, Refusal> {
                Err(Refusal::NoHardware("not the wave's own"))
            }
        }
        self.read32(op, &mut Own).ok()
    }

    /// The value of a resolved 32-bit source (as `read32` reads the operand).
    #[inline(always)]
    fn src32(&self, s: Src32, env: &mut dyn Env) -> Result<u32, Refusal> {
        Ok(match s {
            Src32::Sgpr(n) => self.sgpr[usize::from(n)],
            Src32::Value(v) => v,
            Src32::Scc => u32::from(self.scc),
            Src32::Exiting => env.exiting_wave_id(self)?,
        })
    }

    /// `s_waitcnt`: the counts it names drained to at most what it says.
    #[inline(always)]
    fn wait(&mut self, w: Waitcnt) {
        if let Some(v) = w.vm {
            self.counters.vm = self.counters.vm.min(u32::from(v));
        }
        if let Some(v) = w.lgkm {
            self.counters.lgkm = self.counters.lgkm.min(u32::from(v));
        }
    }

    /// Whether instruction `pc` of `prog` reads the exiting wave ID: where a wave's run of
    /// instructions between two scheduling points stops, once it has read it.
    #[inline(always)]
    pub fn reads_exiting(prog: &Program, pc: usize) -> bool {
        prog.ops.get(pc).is_some_and(|op| op.reads_exiting)
    }

    /// Consumes an `s_wait_event` whose event has happened.
    pub fn retire_wait_event(&mut self) {
        self.pc += 1;
    }

    /// A SOP1 instruction's result for `dst` and its SCC, where it sets SCC, from its source
    /// value `a` (the saveexec forms also change EXEC here).
    fn sop1(
        &mut self,
        op: Sop1,
        dst: Operand,
        a: u64,
        env: &mut dyn Env,
    ) -> Result<(u64, Option<bool>), StepError> {
        let w = op.widths();
        Ok(match op {
            Sop1::MovB32 | Sop1::MovB64 => (a, None),
            Sop1::NotB32 => {
                let r = !(a as u32) as u64;
                (r, Some(r != 0))
            }
            Sop1::NotB64 => {
                let r = !a;
                (r, Some(r != 0))
            }
            // D = the number of set bits of S0 (ACO counts the live lanes); SCC = D != 0.
            Sop1::Bcnt1I32B32 | Sop1::Bcnt1I32B64 => {
                let bits = if w.src0 == 2 { a } else { a & 0xffff_ffff };
                let r = u64::from(bits.count_ones());
                (r, Some(r != 0))
            }
            // D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0 (the 32-bit forms on
            // EXEC_LO, for wave32).
            Sop1::AndSaveexecB64
            | Sop1::OrSaveexecB64
            | Sop1::Andn2SaveexecB64
            | Sop1::AndSaveexecB32
            | Sop1::OrSaveexecB32
            | Sop1::Andn2SaveexecB32 => {
                let mask = if w.dst == 2 { u64::MAX } else { 0xffff_ffff };
                let old = self.exec & mask;
                let new = match op {
                    Sop1::AndSaveexecB64 | Sop1::AndSaveexecB32 => a & old,
                    Sop1::OrSaveexecB64 | Sop1::OrSaveexecB32 => a | old,
                    _ => a & !old,
                } & mask;
                self.exec = (self.exec & !mask) | new;
                (old, Some(new != 0))
            }
            Sop1::Ff1I32B32 => {
                let a = a as u32;
                let r = if a == 0 { u32::MAX } else { a.trailing_zeros() };
                (r as u64, None)
            }
            Sop1::Ff1I32B64 => {
                let r = if a == 0 { u32::MAX } else { a.trailing_zeros() };
                (r as u64, None)
            }
            Sop1::Bitset0B32 | Sop1::Bitset1B32 => {
                let d = self.read32(dst, env)?;
                let bit = 1u32 << (a as u32 & 31);
                let r = if op == Sop1::Bitset1B32 {
                    d | bit
                } else {
                    d & !bit
                };
                (r as u64, None)
            }
        })
    }

    #[inline(always)]
    fn read32(&self, op: Operand, env: &mut dyn Env) -> Result<u32, StepError> {
        if let Some(s) = Src32::of(op) {
            return self.src32(s, env).map_err(StepError::Env);
        }
        Ok(match op {
            Operand::Vcc => self.vcc as u32,
            Operand::M0 => self.m0,
            Operand::Exec => self.exec as u32,
            // An SGPR past the model's reads 0 (`Src32` holds those it has).
            _ => 0,
        })
    }

    #[inline(always)]
    fn read64(&self, op: Operand, env: &mut dyn Env) -> Result<u64, StepError> {
        Ok(match op {
            Operand::Sgpr(n) => {
                let lo = self.sgpr.get(n as usize).copied().unwrap_or(0) as u64;
                let hi = self.sgpr.get(n as usize + 1).copied().unwrap_or(0) as u64;
                lo | hi << 32
            }
            Operand::Vcc => self.vcc,
            Operand::Exec => self.exec,
            Operand::Const(v) => v as i64 as u64,
            other => self.read32(other, env)? as u64,
        })
    }

    #[inline(always)]
    fn write32(&mut self, op: Operand, v: u32) {
        match op {
            Operand::Sgpr(n) => {
                if let Some(r) = self.sgpr.get_mut(n as usize) {
                    *r = v;
                }
            }
            Operand::Vcc => self.vcc = (self.vcc & !0xffff_ffff) | v as u64,
            Operand::M0 => self.m0 = v,
            Operand::Exec => self.exec = (self.exec & !0xffff_ffff) | v as u64,
            _ => {}
        }
    }

    #[inline(always)]
    fn write64(&mut self, op: Operand, v: u64) {
        match op {
            Operand::Sgpr(n) => {
                self.write32(Operand::Sgpr(n), v as u32);
                self.write32(Operand::Sgpr(n.saturating_add(1)), (v >> 32) as u32);
            }
            Operand::Vcc => self.vcc = v,
            Operand::Exec => self.exec = v,
            _ => {}
        }
    }

    #[inline(always)]
    fn read(&self, op: Operand, dwords: u8, env: &mut dyn Env) -> Result<u64, StepError> {
        if dwords == 2 {
            self.read64(op, env)
        } else {
            Ok(self.read32(op, env)? as u64)
        }
    }

    #[inline(always)]
    fn write(&mut self, op: Operand, dwords: u8, v: u64) {
        if dwords == 2 {
            self.write64(op, v)
        } else {
            self.write32(op, v as u32)
        }
    }

    /// Runs a SOPK instruction: s_setreg/s_getreg of the modelled hardware registers, s_movk,
    /// s_waitcnt_vscnt.
    fn sopk(
        &mut self,
        (op, reg, imm): (Sopk, Operand, SopkImm),
        enc: Encoding,
        env: &mut dyn Env,
        unsupported: &dyn Fn(&'static str) -> InterpError,
    ) -> Result<(), StepError> {
        match (op, imm) {
            (Sopk::SetregB32, SopkImm::Hwreg(h)) => {
                if !h.id.exists_on(enc) {
                    return Err(unsupported("hardware register absent on this level").into());
                }
                let v = self.read32(reg, env)?;
                let mask = if h.size >= 32 {
                    u32::MAX
                } else {
                    ((1u32 << h.size) - 1) << h.offset
                };
                let target = match h.id {
                    HwregId::Mode => &mut self.mode,
                    HwregId::PopsPacker => &mut self.pops_packer,
                };
                *target = (*target & !mask) | ((v << h.offset) & mask);
            }
            (Sopk::GetregB32, SopkImm::Hwreg(h)) => {
                let src = match h.id {
                    HwregId::Mode => self.mode,
                    HwregId::PopsPacker => self.pops_packer,
                };
                let mask = if h.size >= 32 {
                    u32::MAX
                } else {
                    (1u32 << h.size) - 1
                };
                self.write32(reg, (src >> h.offset) & mask);
            }
            (Sopk::MovkI32, SopkImm::Simm16(v)) => self.write32(reg, v as i16 as i32 as u32),
            (Sopk::WaitcntVscnt, SopkImm::Simm16(v)) => {
                self.counters.vs = self.counters.vs.min(v as u32)
            }
            _ => return Err(unsupported("immediate of the wrong kind").into()),
        }
        Ok(())
    }

    /// Executes the instruction at the program counter. The 32-bit scalar ALU, compares and
    /// branches, most of what a wave runs, run here in their short form; the rest in
    /// `step_other`.
    #[inline(always)]
    pub fn step(&mut self, prog: &Program, env: &mut dyn Env) -> Result<Event, Box<StepError>> {
        let pc = self.pc;
        let Some(&Op {
            short,
            next,
            target,
            ..
        }) = prog.ops.get(pc)
        else {
            return Err(Box::new(InterpError::RanOff(pc).into()));
        };
        // Labels are passed over, not run (only a wave starting at one runs it, as nothing).
        self.pc = next as usize;
        match short {
            Short::Alu { op, dst, a, b } => {
                let a = self.src32(a, env).map_err(refused)?;
                let b = self.src32(b, env).map_err(refused)?;
                let (r, scc) = sop2_result(op, u64::from(a), u64::from(b), self.scc);
                self.sgpr[usize::from(dst)] = r as u32;
                self.scc = scc;
                return Ok(Event::None);
            }
            Short::Compare { op, a, b } => {
                let a = self.src32(a, env).map_err(refused)?;
                let b = self.src32(b, env).map_err(refused)?;
                self.scc = sopc_result(op, u64::from(a), u64::from(b));
                return Ok(Event::None);
            }
            Short::Branch(op) => {
                let take = match op {
                    Sopp::Branch => true,
                    Sopp::CbranchScc0 => !self.scc,
                    Sopp::CbranchScc1 => self.scc,
                    Sopp::CbranchExecz => self.exec == 0,
                    _ => self.exec != 0,
                };
                if take {
                    self.pc = target as usize;
                }
                return Ok(Event::None);
            }
            Short::Sleep(v) => return Ok(Event::Sleep(v)),
            Short::Message(m) => return Ok(Event::Message(m)),
            Short::Body => return Ok(Event::Body(self.exec)),
            Short::End => {
                self.pc = pc;
                return Ok(Event::End);
            }
            Short::Wait(w) => {
                self.wait(w);
                return Ok(Event::None);
            }
            Short::Nothing => return Ok(Event::None),
            Short::None => {}
        }
        self.step_other(prog, pc, prog.insts[pc], env)
            .map_err(Box::new)
    }

    /// The instructions [`WaveState::step`] has no short form of: the 64-bit ALU and compares
    /// and those reading VCC, EXEC or M0, SOP1, SOPK, GFX12's split waits, `s_wait_event`.
    #[inline(never)]
    fn step_other(
        &mut self,
        prog: &Program,
        pc: usize,
        inst: Inst,
        env: &mut dyn Env,
    ) -> Result<Event, StepError> {
        let enc = prog.enc;
        let unsupported = |why: &'static str| unsupported(prog, pc, why);
        match inst {
            // Labels, the body and the SOPP forms every wave meets run in their short form.
            Inst::Label(_) | Inst::Marker(_) => Err(unsupported("runs in its short form").into()),
            Inst::Sop2 {
                op,
                dst,
                src0,
                src1,
            } => {
                let w = op.widths();
                let a = self.read(src0, w.src0, env)?;
                let b = self.read(src1, w.src1, env)?;
                let (r, scc) = sop2_result(op, a, b, self.scc);
                let r = if w.dst == 2 { r } else { r & 0xffff_ffff };
                self.write(dst, w.dst, r);
                self.scc = scc;
                Ok(Event::None)
            }
            Inst::Sopc { op, src0, src1 } => {
                let w = op.widths();
                let a = self.read(src0, w.src0, env)?;
                let b = self.read(src1, w.src1, env)?;
                self.scc = sopc_result(op, a, b);
                Ok(Event::None)
            }
            // The branches run in their short form (`Short::Branch`).
            Inst::Sopp {
                imm: SoppImm::Target(_),
                ..
            } => Err(unsupported("not a branch").into()),
            Inst::Sop1 { op, dst, src0 } => {
                let w = op.widths();
                let a = self.read(src0, w.src0, env)?;
                let (r, scc) = self.sop1(op, dst, a, env)?;
                self.write(dst, w.dst, r);
                if let Some(s) = scc {
                    self.scc = s;
                }
                Ok(Event::None)
            }
            Inst::Sopk { op, reg, imm } => {
                self.sopk((op, reg, imm), enc, env, &unsupported)?;
                Ok(Event::None)
            }
            Inst::Sopp { op, imm } => match (op, imm) {
                // GFX12's split waits: loads, samples and BVH queries on the model's vm,
                // stores on vs, LDS and scalar memory on lgkm.
                (op, SoppImm::Simm16(v)) if op.is_split_wait() => {
                    self.counters.split_wait(op, v);
                    Ok(Event::None)
                }
                (Sopp::WaitEvent, SoppImm::Simm16(v)) => {
                    if !enc.is_gfx11_plus() {
                        return Err(unsupported("s_wait_event exists on GFX11 only").into());
                    }
                    self.pc = pc;
                    Ok(Event::WaitEvent(v))
                }
                _ => Err(unsupported("SOPP form not modelled").into()),
            },
        }
    }
}

/// A refused read of the exiting wave ID as a step's error (rare: boxed, so that a step's
/// outcome stays two words).
#[cold]
fn refused(why: Refusal) -> Box<StepError> {
    Box::new(StepError::Env(why))
}

/// Why instruction `pc` of `prog` cannot run.
#[cold]
fn unsupported(prog: &Program, pc: usize, why: &'static str) -> InterpError {
    InterpError::Unsupported {
        pc,
        text: prog
            .insts
            .get(pc)
            .map_or_else(String::new, |i| i.text(prog.level, None)),
        why,
    }
}

/// A SOP2 instruction's result and SCC from its sources (and the SCC it reads: s_cselect,
/// s_addc). Pure.
fn sop2_result(op: Sop2, a: u64, b: u64, scc: bool) -> (u64, bool) {
    let (a32, b32) = (a as u32, b as u32);
    match op {
        // SCC selects and is left as it was (ISA: "D = SCC ? S0 : S1").
        Sop2::CselectB32 | Sop2::CselectB64 => (if scc { a } else { b }, scc),
        Sop2::AddU32 => {
            let (r, c) = a32.overflowing_add(b32);
            (r as u64, c)
        }
        Sop2::SubU32 => {
            let (r, c) = a32.overflowing_sub(b32);
            (r as u64, c)
        }
        Sop2::AddI32 => {
            let (r, o) = (a32 as i32).overflowing_add(b32 as i32);
            (r as u32 as u64, o)
        }
        Sop2::SubI32 => {
            let (r, o) = (a32 as i32).overflowing_sub(b32 as i32);
            (r as u32 as u64, o)
        }
        Sop2::AddcU32 => {
            let r = a32 as u64 + b32 as u64 + scc as u64;
            (r & 0xffff_ffff, r > 0xffff_ffff)
        }
        Sop2::AndB32 | Sop2::AndB64 => (a & b, a & b != 0),
        Sop2::OrB32 | Sop2::OrB64 => (a | b, a | b != 0),
        Sop2::Andn2B32 | Sop2::Andn2B64 => (a & !b, a & !b != 0),
        Sop2::NandB32 => {
            let r = !(a32 & b32) as u64;
            (r, r != 0)
        }
        Sop2::LshlB32 => {
            let r = (a32 << (b32 & 31)) as u64;
            (r, r != 0)
        }
        Sop2::LshlB64 => {
            let r = a << (b32 & 63);
            (r, r != 0)
        }
        Sop2::LshrB32 => {
            let r = (a32 >> (b32 & 31)) as u64;
            (r, r != 0)
        }
        Sop2::BfeU32 => {
            let offset = b32 & 31;
            let width = (b32 >> 16) & 0x7f;
            let mask = if width >= 32 {
                u32::MAX
            } else {
                (1u32 << width) - 1
            };
            let r = ((a32 >> offset) & mask) as u64;
            (r, r != 0)
        }
        Sop2::Lshl1AddU32 => {
            let r = ((a32 as u64) << 1) + b32 as u64;
            (r & 0xffff_ffff, r > 0xffff_ffff)
        }
        Sop2::BfeU64 => {
            let offset = b32 & 63;
            let width = (b32 >> 16) & 0x7f;
            let mask = if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let r = (a >> offset) & mask;
            (r, r != 0)
        }
        // The pack instructions leave SCC as it was.
        Sop2::PackLlB32B16 => (((a32 & 0xffff) | (b32 << 16)) as u64, scc),
    }
}

/// A SOPC comparison's SCC. Pure.
pub(super) fn sopc_result(op: Sopc, a: u64, b: u64) -> bool {
    let (a32, b32) = (a as u32, b as u32);
    let (ai, bi) = (a32 as i32, b32 as i32);
    match op {
        Sopc::CmpEqI32 => ai == bi,
        Sopc::CmpLgI32 => ai != bi,
        Sopc::CmpGtI32 => ai > bi,
        Sopc::CmpGeI32 => ai >= bi,
        Sopc::CmpLtI32 => ai < bi,
        Sopc::CmpLeI32 => ai <= bi,
        Sopc::CmpEqU32 => a32 == b32,
        Sopc::CmpLgU32 => a32 != b32,
        Sopc::CmpGtU32 => a32 > b32,
        Sopc::CmpGeU32 => a32 >= b32,
        Sopc::CmpLtU32 => a32 < b32,
        Sopc::CmpLeU32 => a32 <= b32,
        Sopc::Bitcmp0B32 => (a32 >> (b32 & 31)) & 1 == 0,
        Sopc::Bitcmp1B32 => (a32 >> (b32 & 31)) & 1 == 1,
        Sopc::CmpEqU64 => a == b,
        Sopc::CmpLgU64 => a != b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane masks RADV's GFX12 NGG code builds: `s_pack_ll_b32_b16 s0, 0, s3` puts the
    /// wave's vertex count (s3[7:0]) in the width field, `s_bfe_u64 exec, -1, s0` takes that many
    /// low bits of all ones; a pack leaves SCC alone, a bit-field extract sets it when non-zero.
    #[test]
    fn the_gfx12_ngg_lane_mask_instructions() {
        let (packed, scc) = sop2_result(Sop2::PackLlB32B16, 0, 0x1234_0520, true);
        assert_eq!((packed, scc), (0x0520_0000, true));
        assert_eq!(
            sop2_result(Sop2::BfeU64, u64::MAX, 0x0020_0000, false),
            (0xffff_ffff, true)
        );
        assert_eq!(
            sop2_result(Sop2::BfeU64, u64::MAX, 0x0040_0000, false),
            (u64::MAX, true)
        );
        assert_eq!(sop2_result(Sop2::BfeU64, u64::MAX, 0, true), (0, false));
        assert_eq!(
            sop2_result(Sop2::BfeU64, 0xf0, 0x0004_0004, false),
            (0xf, true)
        );
    }
}
