//! Which exiting wave IDs leave a polling wave where it is: a wave that sleeps in its wait loop
//! is run once more, on a copy, from its sleep to the next, and the run follows how what it did
//! depends on the exiting wave ID it read.
//!
//! Why: a wave waiting for an overlapped wave polls `src_pops_exiting_wave_id`, and every exit of
//! a wave of its packer changes the ID — on GFX9, with two packers and waits of several waves,
//! most of the model's work was rounds that read the new ID, found it not yet theirs and slept
//! again, invisible to every other wave. Run once on a copy at the ID the wave would read now,
//! a round that only reads the ID, sleeps and comes back to where it began, with the same values
//! in every location live there (`model::effects`), repeats until the ID is one for which it
//! would not. The wave's registers hold values of the ID that only the ID changes; where the
//! round uses them only as the ID plus a constant, compared with a value of its own — the wait
//! loops drivers emit — the IDs for which every compare goes the way it went are a few ranges,
//! found from where a compare can change its outcome (the interpreter's own compare evaluated
//! there). The wave is then not run for any ID in those ranges: no scheduling of a round that
//! cannot change anything. Anything else the ID reaches leaves the set at the one ID the copy
//! read: the wave runs again as soon as the ID changes, as before.

use super::effects::{Effects, Locs};
use super::interp::{sopc_result, Env, Event, WaveState};
use super::Prepared;
use crate::isa::{Inst, Operand, Sop2, Sopc, Sopp};

/// Wave IDs have 10 bits.
const IDS: u32 = 1024;

/// Most ranges an [`IdSet`] holds: a compare's outcome changes at four points at most, so one
/// compare's IDs are at most three ranges, and the intersection of two sets of three at most
/// five.
const RANGES: usize = 6;

/// A set of 10-bit wave IDs: ascending, disjoint ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdSet {
    ranges: [(u16, u16); RANGES],
    len: usize,
}

impl IdSet {
    const ALL: IdSet = IdSet {
        ranges: [(0, IDS as u16); RANGES],
        len: 1,
    };
    pub const NONE: IdSet = IdSet {
        ranges: [(0, 0); RANGES],
        len: 0,
    };

    /// The set of one ID.
    pub fn one(id: u16) -> IdSet {
        let mut s = IdSet::NONE;
        s.add(u32::from(id), u32::from(id) + 1);
        s
    }

    /// Adds the IDs `from..to` (clipped to 10 bits), above every ID in the set; whether there
    /// was room (a set with no room left is not narrowed further).
    fn add(&mut self, from: u32, to: u32) -> bool {
        let (from, to) = (from.min(IDS) as u16, to.min(IDS) as u16);
        if from >= to {
            return true;
        }
        match self.ranges[..self.len].last_mut() {
            Some(last) if last.1 == from => last.1 = to,
            _ if self.len == RANGES => return false,
            _ => {
                self.ranges[self.len] = (from, to);
                self.len += 1;
            }
        }
        true
    }

    #[inline]
    pub fn contains(&self, id: u16) -> bool {
        self.ranges[..self.len]
            .iter()
            .any(|&(a, b)| a <= id && id < b)
    }

    /// The IDs in both sets, where there is room for them.
    fn and(&self, other: &IdSet) -> Option<IdSet> {
        // A round's first narrowing: every ID and a set of ascending, disjoint ranges.
        if *self == IdSet::ALL {
            return Some(*other);
        }
        let mut out = IdSet::NONE;
        for &(a, b) in &self.ranges[..self.len] {
            for &(c, d) in &other.ranges[..other.len] {
                let (lo, hi) = (a.max(c), b.min(d));
                if lo < hi && !out.add(u32::from(lo), u32::from(hi)) {
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// A compare of the ID plus `c` with the value `k`: SCC as a function of the ID.
#[derive(Clone, Copy, Debug)]
struct Compare {
    op: Sopc,
    c: u32,
    /// Whether the ID's side is the first source.
    id_first: bool,
    k: u32,
}

impl Compare {
    fn at(&self, id: u32) -> bool {
        let v = u64::from(id.wrapping_add(self.c));
        let k = u64::from(self.k);
        if self.id_first {
            sopc_result(self.op, v, k)
        } else {
            sopc_result(self.op, k, v)
        }
    }

    /// The IDs for which the compare gives `scc`. `id + c` (32 bits) rises with the ID but where
    /// it wraps to 0 and where it passes 2^31 (its sign, for the signed compares); in between,
    /// an equality or order with `k` changes only where `id + c` reaches `k` and `k + 1`: on
    /// each stretch between those points the outcome is that at its start.
    fn ids(&self, scc: bool) -> IdSet {
        let at_k = self.k.wrapping_sub(self.c);
        // The points inside the 10-bit IDs, after 0; the stretches end at the last ID.
        let mut points = [0u32; 6];
        let mut n = 1;
        for p in [
            at_k,
            at_k.wrapping_add(1),
            0u32.wrapping_sub(self.c),
            (1u32 << 31).wrapping_sub(self.c),
        ] {
            if p > 0 && p < IDS {
                points[n] = p;
                n += 1;
            }
        }
        points[..n].sort_unstable();
        points[n] = IDS;
        let mut set = IdSet::NONE;
        for w in points[..=n].windows(2) {
            if w[0] < w[1] && self.at(w[0]) == scc {
                // Five stretches at most, in ascending order: always room.
                set.add(w[0], w[1]);
            }
        }
        set
    }
}

/// How SCC depends on the ID.
#[derive(Clone, Copy, Debug)]
enum SccDep {
    Compare(Compare),
    Other,
}

/// SGPRs holding the ID plus a constant that are followed at once (more are not).
const PLUS: usize = 4;

/// What holds a value of the ID during the round.
#[derive(Default)]
struct Taint {
    /// SGPRs holding the ID plus a constant, the first `plus_len`, and as locations.
    plus: [(u8, u32); PLUS],
    plus_len: usize,
    plus_locs: Locs,
    /// Other locations whose value depends on the ID otherwise (SCC apart).
    other: Locs,
    scc: Option<SccDep>,
    /// Whether every use of the ID so far is one [`Compare`] follows.
    followed: bool,
}

/// How one operand's value depends on the ID.
enum Source {
    Fixed,
    Plus(u32),
    Other,
}

impl Taint {
    fn locs(&self) -> Locs {
        let l = self.other.with(self.plus_locs);
        if self.scc.is_some() {
            l.with(Locs::scc())
        } else {
            l
        }
    }

    /// SGPR `d` (not followed now) holds the ID plus `c`.
    fn set_plus(&mut self, d: u8, c: u32) {
        self.other = self.other.without(Locs::sgpr(d));
        if self.plus_len < PLUS {
            self.plus[self.plus_len] = (d, c);
            self.plus_len += 1;
            self.plus_locs = self.plus_locs.with(Locs::sgpr(d));
        } else {
            self.other = self.other.with(Locs::sgpr(d));
        }
    }

    fn source(&self, op: Operand, dwords: u8) -> Source {
        match op {
            Operand::PopsExitingWaveId if dwords == 1 => Source::Plus(0),
            Operand::PopsExitingWaveId => Source::Other,
            Operand::Sgpr(n) if dwords == 1 => {
                match self.plus[..self.plus_len].iter().find(|&&(r, _)| r == n) {
                    Some(&(_, c)) => Source::Plus(c),
                    None if self.other.meets(Locs::sgpr(n)) => Source::Other,
                    None => Source::Fixed,
                }
            }
            Operand::Scc if self.scc.is_some() => Source::Other,
            _ if self.other.meets(super::effects::reads(op, dwords)) => Source::Other,
            _ => Source::Fixed,
        }
    }

    /// `fx`'s writes hold no value of the ID any more.
    fn clear(&mut self, fx: &Effects) {
        if fx.writes.meets(self.plus_locs) {
            let mut kept = 0;
            for k in 0..self.plus_len {
                if !fx.writes.meets(Locs::sgpr(self.plus[k].0)) {
                    self.plus[kept] = self.plus[k];
                    kept += 1;
                }
            }
            self.plus_len = kept;
            self.plus_locs = self.plus_locs.without(fx.writes);
        }
        self.other = self.other.without(fx.writes);
        if fx.writes.meets(Locs::scc()) {
            self.scc = None;
        }
    }

    /// `fx`'s writes hold values of the ID that nothing here follows.
    fn lose(&mut self, fx: &Effects) {
        self.clear(fx);
        self.other = self.other.with(fx.writes.without(Locs::scc()));
        if fx.writes.meets(Locs::scc()) {
            self.scc = Some(SccDep::Other);
        }
    }

    /// Updates the taint for `inst`, which ran at ID `id` and left `st`; narrows `ids` to those
    /// for which a branch it took on SCC goes the same way.
    fn after(&mut self, inst: &Inst, read: Read, st: &WaveState, ids: &mut IdSet) {
        let Read { fx, reads_id, id } = read;
        let tainted = self.locs();
        if !reads_id && !fx.reads.meets(tainted) {
            self.clear(fx);
            return;
        }
        if reads_id && tainted.meets(Locs::packer_selects()) {
            // Whether the read is refused depends on the ID read before.
            self.followed = false;
        }
        match *inst {
            Inst::Sop1 {
                op: crate::isa::Sop1::MovB32,
                dst: Operand::Sgpr(d),
                src0,
            } => match self.source(src0, 1) {
                Source::Plus(c) => {
                    self.lose(fx);
                    self.set_plus(d, c);
                }
                _ => self.lose(fx),
            },
            Inst::Sop2 {
                op: op @ (Sop2::AddI32 | Sop2::AddU32 | Sop2::SubI32 | Sop2::SubU32),
                dst: Operand::Sgpr(d),
                src0,
                src1,
            } => {
                // The ID plus a constant, plus or less a value of the wave's own; not a value
                // less the ID (that falls as the ID rises).
                let sub = matches!(op, Sop2::SubI32 | Sop2::SubU32);
                match (self.source(src0, 1), self.source(src1, 1)) {
                    (Source::Plus(_), Source::Fixed) => self.plus_into(fx, d, st, id),
                    (Source::Fixed, Source::Plus(_)) if !sub => self.plus_into(fx, d, st, id),
                    _ => self.lose(fx),
                }
            }
            Inst::Sopc { op, src0, src1 }
                if op.widths().src0 == 1 && !matches!(op, Sopc::Bitcmp0B32 | Sopc::Bitcmp1B32) =>
            {
                let cmp = match (self.source(src0, 1), self.source(src1, 1)) {
                    (Source::Plus(c), Source::Fixed) => st.operand32(src1).map(|k| Compare {
                        op,
                        c,
                        id_first: true,
                        k,
                    }),
                    (Source::Fixed, Source::Plus(c)) => st.operand32(src0).map(|k| Compare {
                        op,
                        c,
                        id_first: false,
                        k,
                    }),
                    _ => None,
                };
                self.scc = Some(cmp.map_or(SccDep::Other, SccDep::Compare));
            }
            Inst::Sopp {
                op: Sopp::CbranchScc0 | Sopp::CbranchScc1,
                ..
            } => match self.scc {
                Some(SccDep::Compare(c)) => {
                    debug_assert_eq!(c.at(id), st.scc, "the compare follows the run");
                    match ids.and(&c.ids(st.scc)) {
                        Some(both) => *ids = both,
                        None => self.followed = false,
                    }
                }
                _ => self.followed = false,
            },
            _ => {
                // Any other use: what it writes is not followed, and an effect beyond its
                // registers (a branch on EXEC, a hardware register, an event) leaves the set at
                // the ID read.
                // (An instruction observable only as it reads the ID is followed as any other.)
                let uses_values = !reads_id || fx.reads.meets(tainted);
                if fx.observable && uses_values {
                    self.followed = false;
                }
                self.lose(fx);
            }
        }
    }

    /// SGPR `d` now holds the ID plus a constant: its value less the ID read.
    fn plus_into(&mut self, fx: &Effects, d: u8, st: &WaveState, id: u32) {
        let v = st.sgpr.get(usize::from(d)).copied().unwrap_or(0);
        self.lose(fx);
        self.set_plus(d, v.wrapping_sub(id));
    }
}

/// What [`Taint::after`] knows of the instruction that ran: its effects, whether it read the
/// ID, and the ID it read.
#[derive(Clone, Copy)]
struct Read<'a> {
    fx: &'a Effects,
    reads_id: bool,
    id: u32,
}

/// Most instructions a round may take before it counts as not coming round.
const ROUND_LIMIT: usize = 4096;

/// The exiting wave IDs for which the wave in `state`, just after a sleep, would run a round
/// that does nothing but read the ID (once at most) and sleep again at the same place with the
/// same values in every location live there, as it does reading `id` (what `env` answers) — or
/// `None` where it would not at `id`.
pub fn repeating_ids(
    program: &Prepared,
    state: &WaveState,
    env: &mut dyn Env,
    id: u16,
) -> Option<IdSet> {
    let Prepared {
        prog, fx, live_at, ..
    } = program;
    let start = state.pc;
    let mut st = *state;
    let mut taint = Taint {
        followed: true,
        ..Taint::default()
    };
    let mut ids = IdSet::ALL;
    let mut reads = 0;
    let mut written = Locs::default();
    for _ in 0..ROUND_LIMIT {
        let pc = st.pc;
        let inst = prog.insts.get(pc)?;
        let event = st.step(prog, env).ok()?;
        let reads_id = WaveState::reads_exiting(prog, pc);
        reads += usize::from(reads_id);
        if reads > 1 {
            // A second read would be a scheduling point of its own: another wave may exit
            // between the two.
            return None;
        }
        let fx = fx.get(pc)?;
        written = written.with(fx.writes);
        let read = Read {
            fx,
            reads_id,
            id: u32::from(id),
        };
        taint.after(inst, read, &st, &mut ids);
        match event {
            Event::None => {}
            Event::Sleep(_) => {
                let live = *live_at.get(st.pc.min(live_at.len().saturating_sub(1)))?;
                // Only what the round wrote can differ.
                let changed = live.without(live.without(written));
                if st.pc != start || !changed.agree(state, &st) {
                    return None;
                }
                let followed = taint.followed && !live.meets(taint.locs());
                debug_assert!(ids.contains(id), "the run's own ID is in the set");
                return Some(if followed { ids } else { IdSet::one(id) });
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compare's IDs are exactly those for which the interpreter's compare gives that SCC,
    /// for every compare, near every break point.
    #[test]
    fn a_compares_ids_are_the_interpreters_outcomes() {
        let ops = [
            Sopc::CmpEqI32,
            Sopc::CmpLgI32,
            Sopc::CmpGtI32,
            Sopc::CmpGeI32,
            Sopc::CmpLtI32,
            Sopc::CmpLeI32,
            Sopc::CmpEqU32,
            Sopc::CmpLgU32,
            Sopc::CmpGtU32,
            Sopc::CmpGeU32,
            Sopc::CmpLtU32,
            Sopc::CmpLeU32,
        ];
        let values = [
            0u32,
            1,
            5,
            511,
            1023,
            1024,
            0xffff_fc00,
            0xffff_fc05,
            0xffff_ffff,
            0x7fff_fe00,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0100,
        ];
        for op in ops {
            for &c in &values {
                for &k in &values {
                    for id_first in [false, true] {
                        let cmp = Compare { op, c, id_first, k };
                        for scc in [false, true] {
                            let set = cmp.ids(scc);
                            for id in 0..IDS {
                                assert_eq!(
                                    set.contains(id as u16),
                                    cmp.at(id) == scc,
                                    "{cmp:?} at {id}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    use super::super::interp::Refusal;
    use crate::isa::{ordered_section, Label, Marker, SectionOptions, Sop2};
    use pm4::GfxLevel;

    /// Answers one exiting wave ID.
    struct Fixed(u16);
    impl Env for Fixed {
        fn exiting_wave_id(&mut self, _: &WaveState) -> Result<u32, Refusal> {
            Ok(u32::from(self.0))
        }
    }

    /// What `repeating_ids` says at every ID for a wave of `program` at its first sleep (run
    /// from `sgpr` reading `first`), and whether the round run at each ID on a copy repeats.
    fn sets_and_truth(
        level: GfxLevel,
        program: &[Inst],
        sgpr: &[u32],
        first: u16,
    ) -> Vec<(Option<IdSet>, bool)> {
        let prepared = Prepared::new(level, program).expect("a program");
        let mut st = WaveState::new(sgpr, u64::MAX);
        loop {
            match st.step(&prepared.prog, &mut Fixed(first)).expect("runs") {
                Event::Sleep(_) => break,
                Event::None => {}
                e => panic!("no sleep before {e:?}"),
            }
        }
        (0..IDS as u16)
            .map(|id| {
                let set = repeating_ids(&prepared, &st, &mut Fixed(id), id);
                (set, set.is_some())
            })
            .collect()
    }

    /// The set a sleeping wave is kept asleep for holds only IDs at which its round, run at that
    /// ID, repeats (what the model relies on), and the ID it was found at; for pops' own GFX9
    /// wait loop (the exiting wave ID plus a constant compared with the newest overlapped wave's
    /// ID) it is exactly those IDs.
    #[test]
    fn a_wait_loops_set_is_the_ids_at_which_its_round_repeats() {
        let opts = SectionOptions {
            intrawave: false,
            wave64: true,
            collision_sgpr: 2,
            intrawave_sgpr: 3,
            scratch_sgprs: 96,
        };
        let program = super::super::wave_program(&ordered_section(GfxLevel::Gfx9, &opts).unwrap());
        for (own, newest) in [(5u32, 4u32), (3, 1020), (1023, 1021), (0, 1023)] {
            // COLLISION_WAVEID: overlapped, packer 0, the newest overlapped wave, its own ID.
            let mut sgpr = vec![0; 8];
            sgpr[2] = 1 << 31 | newest << 16 | own;
            let all = sets_and_truth(GfxLevel::Gfx9, &program, &sgpr, newest as u16);
            let mut kept = 0;
            for (id, (set, _)) in all.iter().enumerate() {
                let Some(set) = set else { continue };
                kept += 1;
                assert!(set.contains(id as u16), "{own}/{newest}: its own ID {id}");
                for (other, (_, repeats)) in all.iter().enumerate() {
                    assert_eq!(
                        set.contains(other as u16),
                        *repeats,
                        "{own}/{newest}: found at {id}, ID {other}"
                    );
                }
            }
            assert!(kept > 0, "{own}/{newest}: the wave waits at the ID it read");
        }
    }

    /// A loop that masks the ID before it compares is not followed: the set is the one ID read,
    /// and the wave runs again at any other (as before the sets).
    #[test]
    fn a_round_using_the_id_otherwise_keeps_only_the_id_read() {
        let wait = Label("wait");
        let go = Label("go");
        let program = [
            Inst::Label(wait),
            Inst::sop2(
                Sop2::AndB32,
                Operand::Sgpr(0),
                Operand::PopsExitingWaveId,
                Operand::Literal(0x3ff),
            ),
            Inst::sopc(Sopc::CmpLtU32, Operand::Sgpr(1), Operand::Sgpr(0)),
            Inst::branch(Sopp::CbranchScc1, go),
            Inst::sleep(1),
            Inst::branch(Sopp::Branch, wait),
            Inst::Label(go),
            Inst::Marker(Marker::OrderedBody),
        ];
        let all = sets_and_truth(GfxLevel::Gfx9, &program, &[0, 40], 7);
        for (id, (set, repeats)) in all.iter().enumerate() {
            assert_eq!(set.is_some(), *repeats, "ID {id}");
            if let Some(set) = set {
                assert_eq!(*set, IdSet::one(id as u16), "ID {id}");
            }
        }
        assert!(all[7].1 && !all[41].1, "waits until the ID passes s1");
    }
}
