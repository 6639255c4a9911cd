//! The article's rules for the ordered section, checked on every path of the control-flow graph.
//!
//! Every path from the entry is walked with the state the rules need, merged per instruction so
//! that loops end: what the did-overlap test (bit 31 of COLLISION_WAVEID) said, whether the
//! packer register is set, whether the wave is inside or past the wait loop, how many
//! ORDERED_PS_DONE messages it sent, how many vector memory accesses are outstanding on each
//! counter, and its exports. Counters are tracked along each path, so a wait that is missing
//! where nothing is outstanding is no finding.

use super::code::Instr;
use super::opcodes::{self, at};
use crate::isa::decode::{Class, VmemFormat, VmemKind};
use crate::isa::{Encoding, Sop1, Sopc, Sopk, Sopp, Waitcnt};
use pm4::GfxLevel;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, VecDeque};

/// One of the article's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    WaitWithoutOverlapTest,
    PackerNotSetBeforeWait,
    PackerRegister,
    WaitWithoutSleep,
    DoneTwice,
    DoneBeforeWait,
    CountersBeforeDone,
    DoneMissing,
    OpenAtEpilogJump,
    WaitEventBeforeOrderedAccess,
    CountersBeforeLastExport,
    LastExportWithoutDone,
    NoExport,
    BranchOutside,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::WaitWithoutOverlapTest,
        Rule::PackerNotSetBeforeWait,
        Rule::PackerRegister,
        Rule::WaitWithoutSleep,
        Rule::DoneTwice,
        Rule::DoneBeforeWait,
        Rule::CountersBeforeDone,
        Rule::DoneMissing,
        Rule::OpenAtEpilogJump,
        Rule::WaitEventBeforeOrderedAccess,
        Rule::CountersBeforeLastExport,
        Rule::LastExportWithoutDone,
        Rule::NoExport,
        Rule::BranchOutside,
    ];

    /// Stable kebab-case name.
    pub const fn code(self) -> &'static str {
        match self {
            Rule::WaitWithoutOverlapTest => "wait-without-overlap-test",
            Rule::PackerNotSetBeforeWait => "packer-not-set-before-wait",
            Rule::PackerRegister => "packer-register",
            Rule::WaitWithoutSleep => "wait-without-sleep",
            Rule::DoneTwice => "ordered-ps-done-twice",
            Rule::DoneBeforeWait => "ordered-ps-done-before-wait",
            Rule::CountersBeforeDone => "counters-before-ordered-ps-done",
            Rule::DoneMissing => "ordered-ps-done-missing",
            Rule::OpenAtEpilogJump => "ordered-section-open-at-epilog",
            Rule::WaitEventBeforeOrderedAccess => "wait-event-before-ordered-access",
            Rule::CountersBeforeLastExport => "counters-before-last-export",
            Rule::LastExportWithoutDone => "last-export-without-done",
            Rule::NoExport => "no-export",
            Rule::BranchOutside => "branch-outside-the-code",
        }
    }

    /// The article's sentence the rule checks.
    pub const fn sentence(self) -> &'static str {
        match self {
            Rule::WaitWithoutOverlapTest => "The wait must not be performed if the \u{201c}did overlap\u{201d} bit 31 is set to 0, otherwise it will result in a hang.",
            Rule::PackerNotSetBeforeWait => "The packer hardware register, however, may be set even without overlap safely \u{2014} it\u{2019}s the wait loop itself that must not be executed if it was reported that there was no overlap. (The wait needs the packer set: GFX9 HW_REG_MODE[25:24], GFX10+ HW_REG_POPS_PACKER.)",
            Rule::PackerRegister => "Starting from GFX10, the POPS_PACKER (25) hardware register is used instead [of MODE[25:24] on GFX9].",
            Rule::WaitWithoutSleep => "If it\u{2019}s too early for the current wave to enter the ordered section, it needs to yield execution to other waves that may potentially be overlapped \u{2014} via s_sleep.",
            Rule::DoneTwice => "It must still be ensured that ORDERED_PS_DONE is sent by the wave only once.",
            Rule::DoneBeforeWait => "[ORDERED_PS_DONE must be sent] especially not before any awaiting of overlapped waves.",
            Rule::CountersBeforeDone => "Before the message is sent, all counters for memory accesses that need to be primitive-ordered, both writes and reads, must be awaited.",
            Rule::DoneMissing => "If the wave has enabled POPS by setting the packer hardware register, it must not execute s_endpgm without having sent ORDERED_PS_DONE once.",
            Rule::OpenAtEpilogJump => "GFX9\u{2013}10.3: \u{201c}the message must be sent on all execution paths after the packer register setup\u{201d} [before the jump into the PS epilog, which does not send it]. GFX11: \u{201c}The overlapping waves are resumed when the wave performs the last export (with the done flag). The same requirements for awaiting the memory access counters as on GFX9\u{2013}10.3 still apply\u{201d} [the last export is the PS epilog's].",
            Rule::WaitEventBeforeOrderedAccess => "[GFX11:] \u{201c}export ready\u{201d} is awaited by the s_wait_event instruction, with the bit 0 of the immediate operand set to 0.",
            Rule::CountersBeforeLastExport => "[GFX11:] The overlapping waves are resumed when the wave performs the last export (with the done flag). The same requirements for awaiting the memory access counters as on GFX9\u{2013}10.3 still apply.",
            Rule::LastExportWithoutDone => "The overlapping waves are resumed when the wave performs the last export (with the done flag).",
            Rule::NoExport => "With POPS, on all hardware generations, the shader must have at least one export, though it can be a null or an off, off, off, off one.",
            Rule::BranchOutside => "[The code's control flow must stay inside it.]",
        }
    }
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    /// The instruction's byte address and text.
    pub addr: u32,
    pub text: String,
    /// What is wrong there, in a sentence.
    pub message: String,
    /// A path that reaches it: the entry, then each address control jumped to.
    pub path: Vec<u32>,
    /// The smallest part of that path that shows it, by address and text: the memory accesses
    /// still outstanding, the jump into the PS epilog, and the instruction itself.
    pub excerpt: Vec<(u32, String)>,
}

/// How a path leaves the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExitKind {
    Endpgm,
    EndpgmOrderedPsDone,
    /// `s_setpc_b64` into a PS epilog: the exports are the epilog's.
    EpilogJump,
}

/// An exit instruction some path reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Exit {
    pub addr: u32,
    pub kind: ExitKind,
}

/// The verification of one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub level: GfxLevel,
    pub instructions: usize,
    /// Exits reached, by address.
    pub exits: Vec<Exit>,
    /// Wait loops found (their first address).
    pub wait_loops: Vec<u32>,
    pub findings: Vec<Finding>,
    /// Where the PS epilog's code was placed, where it was given (its addresses are this plus
    /// their offset in the epilog).
    pub epilog_base: Option<u32>,
}

/// What the did-overlap test said on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Tri {
    Unknown,
    Yes,
    No,
}

/// The state of one path at one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    overlap: Tri,
    /// SCC holds the did-overlap bit (`Some(true)`: SCC = 1 means overlap), where known.
    scc_overlap: Option<bool>,
    /// An SGPR holding a copy of that SCC (`s_mov_b32 sN, src_scc`, as ACO keeps the bit for
    /// later waits): the register, and `v` where the bit is set exactly when (sN != 0) == v.
    /// Forgotten at any instruction that may write the register.
    saved_overlap: Option<(u8, bool)>,
    packer: bool,
    /// Past the wait (GFX9–10.3: left a wait loop; GFX11: `s_wait_event` with bit 0 clear).
    waited: bool,
    done: u8,
    /// Outstanding vector memory accesses: loads (and returning atomics; GFX9 also stores),
    /// stores (and other atomics, GFX10+), and GFX12's samples and BVH queries, which it
    /// counts apart.
    vm: u8,
    vs: u8,
    vt: u8,
    exported: bool,
    last_export_done: bool,
    /// The path crossed the jump into the PS epilog.
    crossed: bool,
}

/// Hashed as one word: every state reached is looked up once or more.
impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(self.packed());
    }
}

impl State {
    /// Every field in one word (52 bits): states with the same word are the same state.
    fn packed(&self) -> u64 {
        let tri = |t: Tri| t as u64;
        let opt = |b: Option<bool>| b.map_or(0, |b| 1 + u64::from(b));
        let saved = self
            .saved_overlap
            .map_or(0, |(r, v)| 1 | u64::from(r) << 1 | u64::from(v) << 9);
        tri(self.overlap)
            | opt(self.scc_overlap) << 2
            | saved << 4
            | u64::from(self.packer) << 14
            | u64::from(self.waited) << 15
            | u64::from(self.done) << 16
            | u64::from(self.vm) << 24
            | u64::from(self.vs) << 32
            | u64::from(self.vt) << 40
            | u64::from(self.exported) << 48
            | u64::from(self.last_export_done) << 49
            | u64::from(self.crossed) << 50
    }
}

const CAP: u8 = 63;

/// Where an instruction's paths go on: two places at most (a conditional branch), kept without
/// an allocation as every state reached asks.
#[derive(Default)]
struct Next([Option<(usize, State)>; 2]);

impl Next {
    fn push(&mut self, to: (usize, State)) {
        let free = if self.0[0].is_none() { 0 } else { 1 };
        debug_assert!(
            self.0[free].is_none(),
            "an instruction goes on to two places at most"
        );
        self.0[free] = Some(to);
    }
}

impl IntoIterator for Next {
    type Item = (usize, State);
    type IntoIter = std::iter::Flatten<std::array::IntoIter<Option<(usize, State)>, 2>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter().flatten()
    }
}
/// States explored at most before giving up (never reached by real shaders).
const MAX_STATES: usize = 200_000;

/// What an instruction does, for the rules.
#[derive(Clone, Copy)]
enum Sem {
    Endpgm,
    EndpgmDone,
    EpilogJump,
    Jump(i64),
    CondJump(i64, Option<bool>),
    Waitcnt(Waitcnt),
    Vscnt(Option<u16>),
    /// GFX12's split waits (`s_wait_loadcnt` …, `s_wait_idle`): the counts to reach.
    Wait12 {
        vm: Option<u8>,
        vs: Option<u8>,
        vt: Option<u8>,
    },
    WaitEvent(u16),
    Sleep,
    Sendmsg(u16),
    Setreg {
        id: u16,
        offset: u16,
        size: u16,
    },
    OverlapTest(bool),
    /// `s_mov_b32 sN, src_scc`.
    SaveScc(u8),
    /// `s_cmp_lg_{i,u}32 sN, 0` (`true`: SCC = sN != 0) or `s_cmp_eq_{i,u}32 sN, 0`.
    TestZero {
        sgpr: u8,
        nonzero: bool,
    },
    SccClobber,
    Vmem(Option<VmemKind>, bool, VmemFormat),
    Export(bool),
    Other,
}

fn sem(enc: Encoding, i: &Instr) -> Sem {
    let target = |simm16: u16| i64::from(i.addr) + 4 + 4 * i64::from(simm16 as i16);
    match i.class {
        Class::Sopp { op, simm16 } => {
            let known = Sopp::ALL.iter().find(|o| o.opcode(enc) == Some(op));
            match known {
                Some(Sopp::Endpgm) => Sem::Endpgm,
                Some(Sopp::Branch) => Sem::Jump(target(simm16)),
                Some(Sopp::CbranchScc0) => Sem::CondJump(target(simm16), Some(false)),
                Some(Sopp::CbranchScc1) => Sem::CondJump(target(simm16), Some(true)),
                Some(Sopp::CbranchExecz | Sopp::CbranchExecnz) => {
                    Sem::CondJump(target(simm16), None)
                }
                Some(Sopp::Waitcnt) => Sem::Waitcnt(Waitcnt::from_simm16(enc, simm16)),
                Some(&o) if wait12(o, simm16).is_some() => wait12(o, simm16).unwrap_or(Sem::Other),
                None if enc == Encoding::Gfx12 && op == WAIT_IDLE_GFX12 => Sem::Wait12 {
                    vm: Some(0),
                    vs: Some(0),
                    vt: Some(0),
                },
                Some(Sopp::Sleep) => Sem::Sleep,
                Some(Sopp::Sendmsg) => {
                    Sem::Sendmsg(simm16 & if enc.is_gfx11_plus() { 0xff } else { 0xf })
                }
                Some(Sopp::WaitEvent) => Sem::WaitEvent(simm16),
                _ if Some(op) == at(opcodes::ENDPGM_ORDERED_PS_DONE, enc) => Sem::EndpgmDone,
                _ if op == at(opcodes::CBRANCH_VCCZ, enc)
                    || op == at(opcodes::CBRANCH_VCCNZ, enc) =>
                {
                    Sem::CondJump(target(simm16), None)
                }
                _ => Sem::Other,
            }
        }
        Class::Sopk { op, sdst, simm16 } => {
            let hwreg = |s: u16| {
                let (id, offset, size) = crate::isa::Hwreg::fields(s);
                Sem::Setreg {
                    id,
                    offset: offset.into(),
                    size: size.into(),
                }
            };
            if Sopk::SetregB32.opcode(enc) == Some(op) || op == at(opcodes::SETREG_IMM32_B32, enc) {
                hwreg(simm16)
            } else if Sopk::WaitcntVscnt.opcode(enc) == Some(op) {
                Sem::Vscnt((Some(sdst) == enc.null()).then_some(simm16))
            } else if Sopk::MovkI32.opcode(enc) == Some(op) {
                Sem::Other
            } else {
                Sem::SccClobber
            }
        }
        Class::Sopc { op, src0, src1 } => {
            // `s_cmp_lg_i32 sN, 0` and the like: a test of a saved copy of SCC.
            const ZERO: u8 = 128;
            let cmp = |o: Sopc| o.opcode(enc) == Some(op);
            let sgpr = match (src0, src1) {
                (s, ZERO) | (ZERO, s) if s < 106 => Some(s),
                _ => None,
            };
            if let Some(sgpr) = sgpr {
                if cmp(Sopc::CmpLgI32) || cmp(Sopc::CmpLgU32) {
                    return Sem::TestZero {
                        sgpr,
                        nonzero: true,
                    };
                }
                if cmp(Sopc::CmpEqI32) || cmp(Sopc::CmpEqU32) {
                    return Sem::TestZero {
                        sgpr,
                        nonzero: false,
                    };
                }
            }
            // `s_bitcmp1_b32 sN, 31`: SCC = bit 31 (the did-overlap bit of COLLISION_WAVEID).
            if src1 == 128 + 31 {
                if Sopc::Bitcmp1B32.opcode(enc) == Some(op) {
                    return Sem::OverlapTest(true);
                }
                if Sopc::Bitcmp0B32.opcode(enc) == Some(op) {
                    return Sem::OverlapTest(false);
                }
            }
            Sem::SccClobber
        }
        Class::Sop1 { op, sdst, src0 } => {
            const SRC_SCC: u8 = 253;
            if op == at(opcodes::SETPC_B64, enc) {
                Sem::EpilogJump
            } else if Sop1::MovB32.opcode(enc) == Some(op) && src0 == SRC_SCC {
                Sem::SaveScc(sdst)
            } else if Sop1::MovB32.opcode(enc) == Some(op) || Sop1::MovB64.opcode(enc) == Some(op) {
                Sem::Other
            } else {
                Sem::SccClobber
            }
        }
        Class::Sop2 { .. } => Sem::SccClobber,
        Class::Vmem { kind, glc, format } => Sem::Vmem(kind, glc, format),
        Class::Export { done, .. } => Sem::Export(done),
        Class::Smem | Class::Ds | Class::Valu => Sem::Other,
    }
}

/// A vector memory access as the walk counts it: kind, returning (GLC), format.
type VmemAccess = (Option<VmemKind>, bool, VmemFormat);

/// SOPP `s_wait_idle` on GFX12 (llvm-mc-19): waits for every counter.
const WAIT_IDLE_GFX12: u8 = 10;

/// GFX12's split waits: what each makes the counters reach (the combined ones' load or store
/// count in bits [13:8], as LLVM encodes `s_wait_loadcnt_dscnt`).
fn wait12(op: Sopp, simm16: u16) -> Option<Sem> {
    let n = Some(simm16.min(u16::from(CAP)) as u8);
    let high = Some(((simm16 >> 8) & 0x3f) as u8);
    let (vm, vs, vt) = match op {
        Sopp::WaitLoadcnt => (n, None, None),
        Sopp::WaitStorecnt => (None, n, None),
        Sopp::WaitSamplecnt | Sopp::WaitBvhcnt => (None, None, n),
        Sopp::WaitLoadcntDscnt => (high, None, None),
        Sopp::WaitStorecntDscnt => (None, high, None),
        _ => return None,
    };
    Some(Sem::Wait12 { vm, vs, vt })
}

/// The outstanding counts in a finding's words, by each generation's counter names.
fn counts(enc: Encoding, s: &State) -> String {
    if enc == Encoding::Gfx12 {
        format!("loadcnt {}, storecnt {}, samplecnt {}", s.vm, s.vs, s.vt)
    } else {
        format!("vmcnt {}, vscnt {}", s.vm, s.vs)
    }
}

impl State {
    /// Any vector memory access outstanding.
    fn outstanding(&self) -> bool {
        self.vm > 0 || self.vs > 0 || self.vt > 0
    }
}

/// Whether the instruction reads `src_pops_exiting_wave_id` (operand 239, GFX9–10.3).
fn reads_exiting_id(enc: Encoding, i: &Instr) -> bool {
    const EXITING: u8 = 239;
    !enc.is_gfx11_plus()
        && match i.class {
            Class::Sop2 { src0, src1, .. } | Class::Sopc { src0, src1, .. } => {
                src0 == EXITING || src1 == EXITING
            }
            Class::Sop1 { src0, .. } => src0 == EXITING,
            _ => false,
        }
}

/// The wait loops of `code` (GFX9–10.3): each backward branch whose span reads
/// `src_pops_exiting_wave_id`, as (its target, the branch's own address).
pub fn wait_loops(enc: Encoding, code: &[Instr]) -> Vec<(u32, u32)> {
    code.iter()
        .filter_map(|i| match sem(enc, i) {
            Sem::Jump(t) | Sem::CondJump(t, _) if t >= 0 && t <= i64::from(i.addr) => {
                Some((t as u32, i.addr))
            }
            _ => None,
        })
        .filter(|&(t, here)| {
            code.iter()
                .any(|i| i.addr >= t && i.addr <= here && reads_exiting_id(enc, i))
        })
        .collect()
}

/// Verifies `code` for `level` on every path from its first instruction.
pub fn verify(level: GfxLevel, code: &[Instr]) -> Report {
    verify_with_epilog(level, code, None)
}

/// Where [`verify_with_epilog`] places the PS epilog's code: past the shader's, at the next
/// multiple of this, so that its addresses read as `EPILOG_ALIGN + offset`.
pub const EPILOG_ALIGN: u32 = 0x1_0000;

/// Verifies `code`, and where it jumps into a PS epilog and `epilog` is that epilog's code,
/// every path on across the jump: the export that ends the ordered section is then the
/// epilog's, and the counters are judged there. The epilog's instructions are placed at
/// [`Report::epilog_base`].
pub fn verify_with_epilog(level: GfxLevel, code: &[Instr], epilog: Option<&[Instr]>) -> Report {
    let end = code.last().map_or(0, |i| i.addr + 4 * i.words.len() as u32);
    let base = (end / EPILOG_ALIGN + 1) * EPILOG_ALIGN;
    // The shader's code as it is; with an epilog, a copy that has the epilog's after it.
    let mut all: std::borrow::Cow<[Instr]> = code.into();
    let epilog_entry = epilog.filter(|e| !e.is_empty()).map(|e| {
        let entry = all.len();
        all.to_mut().extend(e.iter().map(|i| Instr {
            addr: i.addr + base,
            ..i.clone()
        }));
        entry
    });
    let mut w = Walk::new(level, &all, epilog_entry);
    w.check_wait_loops();
    w.run();
    let mut exits: Vec<Exit> = w.exits.iter().copied().collect();
    exits.sort();
    Report {
        level,
        instructions: all.len(),
        exits,
        wait_loops: w.loops.iter().map(|&(a, _)| a).collect(),
        findings: w.findings.into_values().collect(),
        epilog_base: epilog_entry.map(|_| base),
    }
}

/// One walk of every path: the program, what each instruction means, and what was found.
struct Walk<'a> {
    enc: Encoding,
    gfx11: bool,
    code: &'a [Instr],
    sems: Vec<Sem>,
    /// Each instruction's address with its index, by address.
    index: Vec<(u32, usize)>,
    loops: Vec<(u32, u32)>,
    /// The first instruction of the PS epilog, where its code was given.
    epilog_entry: Option<usize>,
    findings: BTreeMap<(Rule, u32), Finding>,
    /// Every (instruction, state) reached, with where in this list the one it was reached from
    /// is (the entry: none): the paths findings name.
    nodes: Vec<(usize, State, Option<u32>)>,
    /// Where each reached (instruction, state) is in `nodes`.
    index_of: HashMap<(usize, State), u32>,
    exits: HashSet<Exit>,
}

impl<'a> Walk<'a> {
    fn new(level: GfxLevel, code: &'a [Instr], epilog_entry: Option<usize>) -> Walk<'a> {
        let enc = Encoding::of(level);
        Walk {
            enc,
            gfx11: enc.is_gfx11_plus(),
            code,
            sems: code.iter().map(|i| sem(enc, i)).collect(),
            index: {
                let mut index: Vec<(u32, usize)> =
                    code.iter().enumerate().map(|(k, i)| (i.addr, k)).collect();
                // Code comes in address order; anything else is put in it.
                if !index.is_sorted() {
                    index.sort_unstable();
                }
                index
            },
            loops: wait_loops(enc, code),
            epilog_entry,
            findings: BTreeMap::new(),
            // Most shaders reach a few states per instruction: room for them from the start.
            nodes: Vec::with_capacity(4 * code.len()),
            index_of: HashMap::with_capacity_and_hasher(4 * code.len(), Default::default()),
            exits: HashSet::default(),
        }
    }

    /// "If it's too early for the current wave to enter the ordered section, it needs to yield
    /// execution to other waves … via s_sleep": every wait loop holds one.
    fn check_wait_loops(&mut self) {
        for &(start, end) in &self.loops {
            let mut span = self
                .code
                .iter()
                .zip(&self.sems)
                .filter(|(i, _)| i.addr >= start && i.addr <= end);
            if span.clone().any(|(_, s)| matches!(s, Sem::Sleep)) {
                continue;
            }
            let text = span
                .next_back()
                .map_or_else(String::new, |(i, _)| i.text(self.enc));
            self.findings.insert(
                (Rule::WaitWithoutSleep, end),
                Finding {
                    rule: Rule::WaitWithoutSleep,
                    addr: end,
                    text,
                    message: "the wait loop never yields with s_sleep".into(),
                    path: Vec::new(),
                    excerpt: Vec::new(),
                },
            );
        }
    }

    fn in_wait(&self, addr: u32) -> bool {
        self.loops.iter().any(|&(a, b)| addr >= a && addr <= b)
    }

    /// Every path from the entry, states merged per instruction so that loops end.
    fn run(&mut self) {
        let start = State {
            overlap: Tri::Unknown,
            scc_overlap: None,
            saved_overlap: None,
            packer: false,
            waited: false,
            done: 0,
            vm: 0,
            vs: 0,
            vt: 0,
            exported: false,
            last_export_done: false,
            crossed: false,
        };
        let mut queue: VecDeque<u32> = VecDeque::new();
        if !self.code.is_empty() {
            self.nodes.push((0, start, None));
            self.index_of.insert((0, start), 0);
            queue.push_back(0);
        }
        while let Some(at) = queue.pop_front() {
            if self.nodes.len() > MAX_STATES {
                break;
            }
            let (k, st, _) = self.nodes[at as usize];
            for (n, mut ns) in self.step(k, st) {
                self.entering(k, st, n, &mut ns);
                let index = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
                if let std::collections::hash_map::Entry::Vacant(v) = self.index_of.entry((n, ns)) {
                    v.insert(index);
                    self.nodes.push((n, ns, Some(at)));
                    queue.push_back(index);
                }
            }
        }
    }

    /// The instructions a path to `at` ran, in order.
    fn trace(&self, at: (usize, State)) -> Vec<usize> {
        let mut ks = vec![at.0];
        let mut from = self
            .index_of
            .get(&at)
            .and_then(|&i| self.nodes.get(i as usize))
            .and_then(|&(_, _, p)| p);
        while let Some(&(k, _, p)) = from.and_then(|i| self.nodes.get(i as usize)) {
            ks.push(k);
            from = p;
        }
        ks.reverse();
        ks
    }

    /// The entry, then every address control jumped to (not fell through to), the jump into
    /// the PS epilog included.
    fn path(&self, ks: &[usize]) -> Vec<u32> {
        let mut out = vec![self.code[ks[0]].addr];
        for w in ks.windows(2) {
            let (from, to) = (&self.code[w[0]], &self.code[w[1]]);
            if to.addr != from.addr + 4 * from.words.len() as u32 {
                out.push(to.addr);
            }
        }
        out
    }

    /// The smallest part of a path that shows a finding at its last instruction: the memory
    /// accesses on it still counted when it is reached (each dropped once a wait empties every
    /// counter it counts on), the jump into the epilog, and the instruction itself.
    fn excerpt(&self, ks: &[usize]) -> Vec<(u32, String)> {
        let last = ks.len().saturating_sub(1);
        // (index, counted on [vm, vs, vt]) of the accesses not yet awaited, and the jumps.
        let mut shown: Vec<(usize, [bool; 3])> = Vec::new();
        for &k in &ks[..last] {
            let emptied = match &self.sems[k] {
                Sem::Vmem(kind, glc, format) => {
                    shown.push((k, self.counters((*kind, *glc, *format))));
                    continue;
                }
                Sem::EpilogJump => {
                    shown.push((k, [true; 3]));
                    continue;
                }
                Sem::Waitcnt(w) => [w.vm == Some(0), false, false],
                Sem::Vscnt(v) => [false, *v == Some(0), false],
                Sem::Wait12 { vm, vs, vt } => [*vm == Some(0), *vs == Some(0), *vt == Some(0)],
                _ => continue,
            };
            for (k, counted) in &mut shown {
                if matches!(self.sems[*k], Sem::Vmem(..)) {
                    for (c, e) in counted.iter_mut().zip(emptied) {
                        *c &= !e;
                    }
                }
            }
            shown.retain(|(_, counted)| counted.iter().any(|&c| c));
        }
        let mut out: Vec<(u32, String)> = shown
            .iter()
            .map(|&(k, _)| (self.code[k].addr, self.code[k].text(self.enc)))
            .collect();
        if let Some(&k) = ks.last() {
            out.push((self.code[k].addr, self.code[k].text(self.enc)));
        }
        out
    }

    /// The counters a vector memory access counts on, as [vm, vs, vt]: loads (and before GFX10
    /// stores) on vm (GFX12's loadcnt), stores and atomics without return on vs (storecnt), and
    /// on GFX12 sampler accesses on vt (samplecnt); one whose kind is unknown on every counter.
    fn counters(&self, (kind, glc, format): VmemAccess) -> [bool; 3] {
        let gfx12 = self.enc == Encoding::Gfx12;
        if kind.is_none() {
            return [true, self.enc != Encoding::Gfx9, gfx12];
        }
        let to_vs = self.enc != Encoding::Gfx9
            && match kind {
                Some(VmemKind::Store) => true,
                Some(VmemKind::Atomic) => !glc,
                _ => false,
            };
        if to_vs {
            [false, true, false]
        } else if gfx12 && format == VmemFormat::Vsample {
            [false, false, true]
        } else {
            [true, false, false]
        }
    }

    fn report(&mut self, rule: Rule, k: usize, st: State, message: String) {
        let addr = self.code[k].addr;
        if self.findings.contains_key(&(rule, addr)) {
            return;
        }
        let ks = self.trace((k, st));
        let finding = Finding {
            rule,
            addr,
            text: self.code[k].text(self.enc),
            message,
            path: self.path(&ks),
            excerpt: self.excerpt(&ks),
        };
        self.findings.insert((rule, addr), finding);
    }

    /// The successors of instruction `k` in state `st`, with the findings it makes.
    fn step(&mut self, k: usize, st: State) -> Next {
        let i = &self.code[k];
        let fall = i64::from(i.addr) + 4 * i.words.len() as i64;
        let mut next = Next::default();
        match self.sems[k] {
            Sem::Endpgm | Sem::EndpgmDone => self.end(k, st),
            Sem::EpilogJump => {
                self.epilog_jump(k, st);
                if let Some(e) = self.epilog_entry {
                    next.push((
                        e,
                        State {
                            crossed: true,
                            ..st
                        },
                    ));
                }
            }
            Sem::Jump(t) => self.to(t, k, st, &mut next),
            Sem::CondJump(t, on_scc) => {
                let (mut taken, mut fallen) = (st, st);
                if let (Some(want), Some(scc_is_overlap)) = (on_scc, st.scc_overlap) {
                    // Taken where SCC == want.
                    let overlap_if = |scc: bool| {
                        if scc == scc_is_overlap {
                            Tri::Yes
                        } else {
                            Tri::No
                        }
                    };
                    taken.overlap = overlap_if(want);
                    fallen.overlap = overlap_if(!want);
                }
                self.to(t, k, taken, &mut next);
                self.to(fall, k, fallen, &mut next);
            }
            _ => {
                let s = self.effect(k, st);
                self.to(fall, k, s, &mut next);
            }
        }
        next
    }

    /// Control from `k` reaching byte `addr`.
    fn to(&mut self, addr: i64, k: usize, st: State, next: &mut Next) {
        let found = u32::try_from(addr).ok().and_then(|a| {
            // Most control goes on to the next instruction.
            if self.code.get(k + 1).is_some_and(|i| i.addr == a) {
                return Some(k + 1);
            }
            let at = self.index.partition_point(|&(x, _)| x < a);
            self.index
                .get(at)
                .filter(|&&(x, _)| x == a)
                .map(|&(_, k)| k)
        });
        match found {
            Some(n) => next.push((n, st)),
            None => self.report(
                Rule::BranchOutside,
                k,
                st,
                format!("control reaches byte 0x{addr:x}, where no instruction starts"),
            ),
        }
    }

    /// An `s_endpgm` (or GFX9–10.3's `s_endpgm_ordered_ps_done`).
    fn end(&mut self, k: usize, st: State) {
        let done_here = matches!(self.sems[k], Sem::EndpgmDone);
        if done_here {
            if st.done >= 1 {
                self.report(
                    Rule::DoneTwice,
                    k,
                    st,
                    "s_endpgm_ordered_ps_done after ORDERED_PS_DONE was already sent on this path"
                        .into(),
                );
            }
            if st.packer && st.overlap == Tri::Yes && !st.waited {
                self.report(
                    Rule::DoneBeforeWait,
                    k,
                    st,
                    "the wave leaves the ordered section before it waited for the overlapped waves"
                        .into(),
                );
            }
        } else if !self.gfx11 && st.packer && st.done == 0 {
            self.report(
                Rule::DoneMissing,
                k,
                st,
                "s_endpgm after the packer register was set, without ORDERED_PS_DONE on this path"
                    .into(),
            );
        }
        if !st.exported {
            let m = "the program ends without any export on this path".into();
            self.report(Rule::NoExport, k, st, m);
        } else if !st.last_export_done {
            let m = "the last export on this path has no done flag".into();
            self.report(Rule::LastExportWithoutDone, k, st, m);
        }
        let kind = if done_here {
            ExitKind::EndpgmOrderedPsDone
        } else {
            ExitKind::Endpgm
        };
        let addr = self.code[k].addr;
        self.exits.insert(Exit { addr, kind });
    }

    /// `s_setpc_b64` into the PS epilog. GFX9–10.3 must have sent ORDERED_PS_DONE (the epilog
    /// does not); on GFX11 the epilog's export resumes the overlapped waves, so the counters
    /// are judged there where its code was given, and at the jump where not.
    fn epilog_jump(&mut self, k: usize, st: State) {
        if !self.gfx11 && st.packer && st.done == 0 {
            self.report(Rule::OpenAtEpilogJump, k, st, "jumps to the PS epilog with the ordered section still open: ORDERED_PS_DONE was not sent on this path".into());
        }
        if self.gfx11 && self.epilog_entry.is_none() && st.outstanding() {
            self.report(Rule::OpenAtEpilogJump, k, st, format!("jumps to the PS epilog, whose export resumes the overlapped waves, with memory accesses outstanding ({})", counts(self.enc, &st)));
        }
        let addr = self.code[k].addr;
        self.exits.insert(Exit {
            addr,
            kind: ExitKind::EpilogJump,
        });
    }

    /// What instruction `k` does to the state, reporting what it breaks.
    fn effect(&mut self, k: usize, st: State) -> State {
        let (enc, gfx11) = (self.enc, self.gfx11);
        let mut s = st;
        match self.sems[k] {
            Sem::Waitcnt(w) => {
                if let Some(v) = w.vm {
                    s.vm = s.vm.min(v);
                    if enc == Encoding::Gfx9 {
                        s.vs = s.vs.min(v);
                    }
                }
            }
            Sem::Vscnt(Some(v)) => s.vs = s.vs.min(v.min(u16::from(CAP)) as u8),
            Sem::Wait12 { vm, vs, vt } => {
                s.vm = vm.map_or(s.vm, |n| s.vm.min(n));
                s.vs = vs.map_or(s.vs, |n| s.vs.min(n));
                s.vt = vt.map_or(s.vt, |n| s.vt.min(n));
            }
            Sem::WaitEvent(imm) if enc.waits_for_export_ready(imm) => s.waited = true,
            Sem::Sendmsg(7) if !gfx11 => s = self.done_message(k, st),
            Sem::Setreg { id, offset, size } => self.setreg(k, st, &mut s, (id, offset, size)),
            Sem::OverlapTest(set) => s.scc_overlap = Some(set),
            Sem::TestZero { sgpr, nonzero } => {
                // Bit set ⟺ (sN != 0) == v; SCC = (sN != 0) for lg, (sN == 0) for eq.
                s.scc_overlap = match s.saved_overlap {
                    Some((r, v)) if r == sgpr => Some(if nonzero { v } else { !v }),
                    _ => None,
                };
            }
            Sem::SccClobber => s.scc_overlap = None,
            Sem::Vmem(kind, glc, format) => self.vmem(k, st, &mut s, (kind, glc, format)),
            Sem::Export(done) => {
                if done && gfx11 && s.outstanding() {
                    let (rule, whose) = if s.crossed {
                        (Rule::OpenAtEpilogJump, "the PS epilog's export with done")
                    } else {
                        (Rule::CountersBeforeLastExport, "the export with done")
                    };
                    self.report(rule, k, st, format!("{whose} resumes the overlapped waves while vector memory accesses are outstanding ({})", counts(enc, &s)));
                }
                s.exported = true;
                s.last_export_done = done;
            }
            _ => {}
        }
        let i = &self.code[k];
        if reads_exiting_id(enc, i) {
            s.scc_overlap = None;
        }
        // A saved copy of the bit is forgotten where its register may be written; the copy
        // itself is made from SCC as it stands.
        let clobbered = s
            .saved_overlap
            .is_some_and(|(r, _)| crate::isa::decode::may_write_sgpr(enc, i.class, &i.words, r));
        if clobbered {
            s.saved_overlap = None;
        }
        if let Sem::SaveScc(r) = self.sems[k] {
            s.saved_overlap = s.scc_overlap.map(|v| (r, v));
        }
        s
    }

    /// GFX9–10.3's ORDERED_PS_DONE message.
    fn done_message(&mut self, k: usize, st: State) -> State {
        let mut s = st;
        if s.done >= 1 {
            let m = "ORDERED_PS_DONE sent a second time on this path".into();
            self.report(Rule::DoneTwice, k, st, m);
        }
        if (s.packer && s.overlap == Tri::Yes && !s.waited) || self.in_wait(self.code[k].addr) {
            self.report(
                Rule::DoneBeforeWait,
                k,
                st,
                "ORDERED_PS_DONE before the wave has waited for the overlapped waves".into(),
            );
        }
        if s.outstanding() {
            self.report(
                Rule::CountersBeforeDone,
                k,
                st,
                format!(
                    "ORDERED_PS_DONE with vector memory accesses outstanding ({})",
                    counts(self.enc, &s)
                ),
            );
        }
        s.done = (s.done + 1).min(2);
        s
    }

    /// `s_setreg`: the packer register, or a generation's wrong one.
    fn setreg(&mut self, k: usize, st: State, s: &mut State, (id, offset, size): (u16, u16, u16)) {
        let covers = |bit: u16| bit >= offset && bit < offset + size;
        let mode_packer = id == 1 && (covers(24) || covers(25));
        let pops_packer = id == 25;
        let wrong = match (self.enc, mode_packer, pops_packer) {
            (Encoding::Gfx9, true, _) | (Encoding::Gfx10, _, true) => {
                s.packer = true;
                None
            }
            (Encoding::Gfx9, _, true) => {
                Some("GFX9 has no HW_REG_POPS_PACKER: the packer is MODE[25:24]")
            }
            (Encoding::Gfx10, true, _) => Some("writes MODE[25:24], GFX9's packer bits: GFX10+ select the packer with HW_REG_POPS_PACKER"),
            (Encoding::Gfx11, true, _) | (Encoding::Gfx11, _, true) => {
                Some("GFX11 has no POPS packer register: it waits with s_wait_event")
            }
            _ => None,
        };
        if let Some(m) = wrong {
            self.report(Rule::PackerRegister, k, st, m.into());
        }
    }

    /// A vector memory access: the counter it increments, and GFX11's wait before it.
    fn vmem(&mut self, k: usize, st: State, s: &mut State, (kind, glc, format): VmemAccess) {
        let ordered = matches!(kind, Some(VmemKind::Store | VmemKind::Atomic) | None);
        if self.gfx11 && ordered && !s.waited {
            let wait = if self.enc == Encoding::Gfx12 {
                "s_wait_event with bit 1 set"
            } else {
                "s_wait_event with bit 0 clear"
            };
            self.report(Rule::WaitEventBeforeOrderedAccess, k, st, format!("a memory write before the wave waited for \u{201c}export ready\u{201d} ({wait}) on this path"));
        }
        let inc = |c: &mut u8| *c = (*c + 1).min(CAP);
        let [vm, vs, vt] = self.counters((kind, glc, format));
        if vm {
            inc(&mut s.vm);
        }
        if vs {
            inc(&mut s.vs);
        }
        if vt {
            inc(&mut s.vt);
        }
    }

    /// Control passing from `k` (state `st`) to `n` (state `ns`): entering a wait loop needs
    /// the did-overlap test and the packer; leaving one is the end of the wait.
    fn entering(&mut self, k: usize, st: State, n: usize, ns: &mut State) {
        let (from, to) = (
            self.in_wait(self.code[k].addr),
            self.in_wait(self.code[n].addr),
        );
        if from && !to {
            ns.waited = true;
        }
        if from || !to {
            return;
        }
        let entering = |w: &mut Self, rule: Rule, message: &str| {
            let addr = w.code[n].addr;
            if w.findings.contains_key(&(rule, addr)) {
                return;
            }
            let mut ks = w.trace((k, st));
            ks.push(n);
            let finding = Finding {
                rule,
                addr,
                text: w.code[n].text(w.enc),
                message: message.into(),
                path: w.path(&ks),
                excerpt: w.excerpt(&ks),
            };
            w.findings.insert((rule, addr), finding);
        };
        if ns.overlap != Tri::Yes {
            entering(
                self,
                Rule::WaitWithoutOverlapTest,
                "enters the wait loop on a path where the did-overlap bit was not tested set",
            );
        }
        if !ns.packer {
            entering(
                self,
                Rule::PackerNotSetBeforeWait,
                "enters the wait loop before the packer register is set",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACO's code (Mesa 25.0.7, navi21) for the corpus's `helper_twice`: the interlock begins
    /// in a helper called twice, so the second wait is guarded by the did-overlap bit that the
    /// first test saved (`s_mov_b32 s0, src_scc`) and tests again (`s_cmp_lg_i32 s0, 0`).
    const HELPER_TWICE: &str = include_str!("../../tests/aco/helper_twice_navi21_mesa25.s");

    fn rules_of(text: &str) -> Vec<Rule> {
        let (_, code) = super::super::read(Encoding::Gfx10, text).expect("ACO assembly");
        verify(GfxLevel::Gfx10_3, &code)
            .findings
            .iter()
            .map(|f| f.rule)
            .collect()
    }

    fn with(line: &str, replacement: &str) -> String {
        assert!(HELPER_TWICE.contains(line), "{line}");
        HELPER_TWICE.replacen(line, replacement, 1)
    }

    /// "The wait must not be performed if the “did overlap” bit 31 is set to 0": a bit kept in
    /// an SGPR and tested again guards the second wait as the first test did.
    #[test]
    fn a_saved_did_overlap_bit_guards_a_later_wait() {
        assert_eq!(rules_of(HELPER_TWICE), []);
    }

    /// The same sentence: the saved bit tested the wrong way round, or the register written
    /// between the save and the test (scalar ALU, vector to scalar, scalar load), leaves the
    /// second wait unguarded, and the rule fires.
    #[test]
    fn a_saved_bit_overwritten_or_inverted_guards_nothing() {
        let wait = vec![Rule::WaitWithoutOverlapTest];
        let cases = [
            (
                "s_cmp_lg_i32 s0, 0 ; bf018000",
                "s_cmp_eq_i32 s0, 0 ; bf008000",
            ),
            (
                "s_movk_i32 s3, 0x8000 ; b0038000",
                "s_movk_i32 s0, 0x8000 ; b0008000",
            ),
            (
                "v_mov_b32_e32 v0, s1 ; 7e000201",
                "v_readfirstlane_b32 s0, v1 ; 7e000501",
            ),
            (
                "s_load_dwordx4 s[8:11], s[2:3], null ; f4080201 fa000000",
                "s_load_dwordx4 s[0:3], s[2:3], null ; f4080001 fa000000",
            ),
        ];
        for (line, replacement) in cases {
            assert_eq!(rules_of(&with(line, replacement)), wait, "{replacement}");
        }
    }
}
