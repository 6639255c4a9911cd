//! A deterministic model of the POPS ordering contract that runs the emitted machine code.
//!
//! The hardware side follows the article's "Shader code" sections: waves get 10-bit wrapping IDs
//! per packer; a wave's COLLISION_WAVEID reports whether it overlaps (bit 31), its packer (`[28]` on
//! GFX9, `[29:28]` on GFX10+), the newest overlapped wave (`[25:16]`, one less than the truth on GFX9
//! past a wraparound) and its own ID (`[9:0]`); `src_pops_exiting_wave_id` is the oldest wave of the
//! packer that has not sent ORDERED_PS_DONE (or ended); on GFX11 `s_wait_event` waits for "export
//! ready" — every overlapped wave having made its last export. The shader side is *not* modelled:
//! every wave interprets the very [`Inst`] list the emitter produced ([`interp`]), with the
//! ordered-section body as a [`crate::isa::Marker::OrderedBody`] that issues memory accesses.
//!
//! The scheduler interleaves waves, one wave from one scheduling point to the next at a time
//! (`Sim::advance`), in an order drawn from a seed; a wave asleep in a poll loop whose next round
//! would repeat is not scheduled until the exiting wave ID changes to one for which it would not
//! ([`quiet`]). The run fails with a [`ModelError`] on any breach of the contract: a body
//! running before an overlapping earlier invocation finished its own, a wait when the
//! did-overlap bit is clear, ORDERED_PS_DONE twice or with memory accesses outstanding, a wave
//! ending with POPS enabled and no ORDERED_PS_DONE, or a deadlock (every live wave spinning with
//! nothing left that could change what it polls).
//!
//! Modelling choices the article leaves open (documented in docs/isa.md): the hardware tracks,
//! per pixel or sample, the last wave that covered it until that wave ends; a wave with only
//! intrawave collisions reports the wave before it as the newest overlapped; bits of the arguments
//! outside the documented fields, and all other SGPRs, hold random garbage.

pub mod effects;
pub mod interp;
pub mod quiet;
pub mod raster;
pub mod rename;
pub mod scene;

use crate::isa::{Encoding, Inst, Msg, SectionOptions};
pub use interp::Refusal;
use interp::{Counters, Env, Event, InterpError, Program, StepError, WaveState, SGPRS};
use pm4::{GfxLevel, Granularity};
pub use raster::{
    generate_stream, pack_waves, Fragment, Key, KeySpace, Packing, Primitive, Rng, StreamShape,
    WavePlan,
};
pub use scene::{Check, Invocation, Scene};
use std::collections::VecDeque;

/// How the hardware and the run are set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub level: GfxLevel,
    /// Wave size, intrawave collisions and where the arguments are loaded — the same options the
    /// program was emitted with.
    pub section: SectionOptions,
    /// Pixel or sample interlock (POPS_OVERLAP_NUM_SAMPLES / OVERRIDE_INTRINSIC_RATE).
    pub granularity: Granularity,
    /// Packers: 1–2 on GFX9, 1–4 on GFX10+ (ignored on GFX11).
    pub packers: u8,
    /// Waves in flight at most (< 1024, so 10-bit IDs stay unambiguous).
    pub max_in_flight: usize,
    /// The first wave ID of every packer (to reach wraparounds quickly).
    pub first_wave_id: u16,
    /// Seeds the interleaving and the garbage in unused bits and registers.
    pub seed: u64,
    /// Upper bound on scheduler steps before the run counts as a hang.
    pub max_steps: u64,
}

impl Config {
    pub fn new(level: GfxLevel, section: SectionOptions) -> Config {
        Config {
            level,
            section,
            granularity: Granularity::Pixel,
            packers: if level.is_gfx11_plus() { 1 } else { 2 },
            max_in_flight: 32,
            first_wave_id: 0,
            seed: 1,
            max_steps: 50_000_000,
        }
    }
}

/// What a successful run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub waves: usize,
    pub invocations: usize,
    /// Times a packer's wave ID wrapped from 1023 to 0.
    pub wraps: usize,
    /// Waves with the did-overlap bit set.
    pub overlapped_waves: usize,
    /// Waves whose INTRAWAVE_COLLISION mask split them into several layers.
    pub intrawave_waves: usize,
    /// Ordered-section bodies executed (one per layer with active lanes).
    pub bodies: usize,
    /// Reads of `src_pops_exiting_wave_id`.
    pub polls: u64,
    /// Reads of `src_pops_exiting_wave_id` by waves whose did-overlap bit was clear.
    pub polls_without_overlap: u64,
    pub sleeps: u64,
    pub steps: u64,
}

/// A breach of the contract, or a run that could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("invalid model configuration: {0}")]
    Config(String),
    #[error("the program cannot run: {0}")]
    Program(InterpError),
    #[error("wave {wave}: {error}")]
    Interp { wave: usize, error: InterpError },
    #[error("ordered sections out of primitive order on {key:?}: {later:?} ran before {earlier:?} finished ({why})")]
    OutOfOrder {
        key: Key,
        earlier: Invocation,
        later: Invocation,
        why: &'static str,
    },
    #[error("{0:?} never ran its ordered section")]
    BodyMissing(Invocation),
    #[error("{0:?} ran its ordered section twice")]
    BodyTwice(Invocation),
    #[error("wave {wave} ran the ordered-section body for lanes {lanes:#x} it does not have")]
    PhantomLanes { wave: usize, lanes: u64 },
    #[error("wave {wave} sent ORDERED_PS_DONE twice")]
    DoneTwice { wave: usize },
    #[error("wave {wave} enabled POPS and ended without sending ORDERED_PS_DONE")]
    EndedWithoutDone { wave: usize },
    #[error("wave {wave} waited although its did-overlap bit is clear: \"otherwise it will result in a hang\"")]
    WaitedWithoutOverlap { wave: usize },
    #[error("wave {wave} read src_pops_exiting_wave_id without a valid packer: {why}")]
    PackerNotSet { wave: usize, why: Refusal },
    #[error(
        "wave {wave} resumed overlapping waves with memory accesses outstanding: {counters:?}"
    )]
    DoneWithOutstandingMemory { wave: usize, counters: Counters },
    #[error("deadlock: waves {waiting:?} spin with nothing left that could change what they poll ({launched} of {total} waves launched)")]
    Deadlock {
        waiting: Vec<usize>,
        launched: usize,
        total: usize,
    },
    #[error("no end after {steps} steps")]
    StepLimit { steps: u64 },
}

struct WaveRt {
    plan: usize,
    id: u16,
    packer: u8,
    did_overlap: bool,
    /// Waves overlapped at launch (the last wave on each shared key, if still in flight): where
    /// they are in the run's list of them (one list for the run, not one per wave).
    overlapped: std::ops::Range<usize>,
    state: WaveState,
    /// The lanes that have run the ordered-section body (a lane runs it once).
    ran: u64,
    done: bool,
    ended: bool,
    /// Why the wave is not scheduled now, if it is not.
    blocked: Option<Blocked>,
    /// While it is blocked polling: the exiting wave IDs for which its next round repeats.
    repeats: quiet::IdSet,
}

/// Why a wave is not scheduled: its next steps could only repeat what it did, until what it
/// waits for changes. Such steps are invisible (the same state again, nothing else touched), so
/// leaving them out leaves every run a run of the hardware, with the same events in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocked {
    /// Asleep in a poll loop whose next round would do nothing but read the exiting wave ID
    /// and come back to this sleep with the same values in every location live here
    /// (`model::quiet`), for the ID its packer has now: until the ID is one outside
    /// [`WaveRt::repeats`].
    Polling,
    /// At `s_wait_event` while a wave it overlaps has not ended: it waits until one ends.
    ExportReady,
}

#[derive(Default)]
struct PackerRt {
    /// Waves of this packer in ID order that have not yet left the ordered section.
    order: VecDeque<usize>,
    next_id: u16,
}

/// What a wave may observe of the packers during one step.
struct StepEnv<'a> {
    level: GfxLevel,
    exiting: &'a [u16],
    packer: u8,
    did_overlap: bool,
    polls: u64,
}

impl<'a> StepEnv<'a> {
    /// What `wave` may observe of the packers whose exiting wave IDs are `exiting`.
    fn of(level: GfxLevel, exiting: &'a [u16], wave: &WaveRt) -> StepEnv<'a> {
        StepEnv {
            level,
            exiting,
            packer: wave.packer,
            did_overlap: wave.did_overlap,
            polls: 0,
        }
    }
}

impl Env for StepEnv<'_> {
    fn exiting_wave_id(&mut self, w: &WaveState) -> Result<u32, Refusal> {
        self.polls += 1;
        if !self.did_overlap {
            return Err(Refusal::DidOverlapClear);
        }
        let configured = if self.level == GfxLevel::Gfx9 {
            match (w.mode >> 24) & 3 {
                0b01 => Some(0u8),
                0b10 => Some(1u8),
                _ => None,
            }
        } else if w.pops_packer & 1 == 1 {
            Some(((w.pops_packer >> 1) & 3) as u8)
        } else {
            None
        };
        let why = match configured {
            None => Some(Refusal::PopsNotEnabled),
            Some(p) if p != self.packer => Some(Refusal::OtherPacker {
                selected: p,
                own: self.packer,
            }),
            Some(_) => None,
        };
        if let Some(why) = why {
            return Err(why);
        }
        Ok(self.exiting[self.packer as usize] as u32)
    }
}

/// Runs `program` (entry, [`crate::isa::Marker::OrderedBody`], exit; `s_endpgm` is appended) on
/// every wave of `prims` under `cfg`.
pub fn simulate(cfg: &Config, program: &[Inst], prims: &[Primitive]) -> Result<Report, ModelError> {
    simulate_scene(cfg, program, &Scene::new(prims, cfg.packing()))
}

/// Runs `program` on the waves of `scene`, which must have been packed as `cfg` packs
/// ([`Config::packing`]). A scene serves any number of programs and wave-ID starts.
pub fn simulate_scene(cfg: &Config, program: &[Inst], scene: &Scene) -> Result<Report, ModelError> {
    simulate_prepared(cfg, &Prepared::new(cfg.level, program)?, scene)
}

/// A program made ready to run once for any number of runs: its interpreted form, and the
/// SGPRs whose values at launch it can read.
pub struct Prepared {
    level: GfxLevel,
    prog: Program,
    read_at_launch: Vec<u8>,
    /// What is live before each instruction (by `pc`), and after the last.
    live_at: Vec<effects::Locs>,
    /// Each instruction's effects (by `pc`): what a round of polling follows (`model::quiet`).
    fx: Vec<effects::Effects>,
}

impl Prepared {
    pub fn new(level: GfxLevel, program: &[Inst]) -> Result<Prepared, ModelError> {
        let live_at = effects::live_at_each(program);
        let prog = Program::new(level, program).map_err(ModelError::Program)?;
        Ok(Prepared {
            level,
            fx: prog.insts.iter().map(effects::effects).collect(),
            prog,
            // What is live at the start (`effects::sgprs_read_at_launch`).
            read_at_launch: live_at.first().map_or_else(Vec::new, |l| l.sgprs()),
            live_at,
        })
    }
}

/// [`simulate_scene`] with a program made ready before (for the level `cfg` runs).
pub fn simulate_prepared(
    cfg: &Config,
    program: &Prepared,
    scene: &Scene,
) -> Result<Report, ModelError> {
    if scene.packing != cfg.packing() {
        return Err(ModelError::Config(format!(
            "the scene was packed as {:?}, the run packs as {:?}",
            scene.packing,
            cfg.packing()
        )));
    }
    if program.level != cfg.level {
        return Err(ModelError::Config(format!(
            "the program was made ready for {}, the run is on {}",
            program.level, cfg.level
        )));
    }
    Sim::new(cfg, program, scene)?.run()
}

impl Config {
    /// How the hardware packs quads into waves under this configuration.
    pub fn packing(&self) -> Packing {
        Packing {
            wave64: self.section.wave64,
            intrawave: self.section.intrawave,
            granularity: self.granularity,
            packers: if self.level.is_gfx11_plus() {
                1
            } else {
                self.packers
            },
        }
    }
}

struct Sim<'a> {
    cfg: &'a Config,
    prog: &'a Prepared,
    scene: &'a Scene,
    lists: Lists,
    rng: Rng,
    epoch: u64,
    report: Report,
}

/// A run's lists, kept for the thread's next run when it ends ([`LISTS`]).
#[derive(Default)]
struct Lists {
    waves: Vec<WaveRt>,
    packers: Vec<PackerRt>,
    live: Vec<usize>,
    /// The live waves not blocked, in launch order: kept as waves launch, block, wake and end.
    runnable: Vec<usize>,
    /// The waves blocked, in no order: those a wave's exit or end may wake.
    blocked: Vec<usize>,
    /// Every wave's overlapped waves ([`WaveRt::overlapped`]).
    overlapped: Vec<usize>,
}

thread_local! {
    /// The lists of this thread's last run.
    static LISTS: std::cell::Cell<Option<Lists>> = const { std::cell::Cell::new(None) };
}

impl Drop for Sim<'_> {
    fn drop(&mut self) {
        let lists = std::mem::take(&mut self.lists);
        LISTS.with(|l| l.set(Some(lists)));
    }
}

impl<'a> Sim<'a> {
    fn new(cfg: &'a Config, prog: &'a Prepared, scene: &'a Scene) -> Result<Sim<'a>, ModelError> {
        let level = cfg.level;
        let gfx11 = level.is_gfx11_plus();
        if cfg.granularity == Granularity::ShadingRate {
            return Err(ModelError::Config(
                "shading-rate interlock is not available on AMD hardware".into(),
            ));
        }
        let max_packers = match level {
            GfxLevel::Gfx9 => 2,
            _ if gfx11 => 1,
            _ => 4,
        };
        if cfg.packers == 0 || (!gfx11 && cfg.packers > max_packers) {
            return Err(ModelError::Config(format!(
                "{} packers on {level} (1–{max_packers})",
                cfg.packers
            )));
        }
        if cfg.max_in_flight == 0 || cfg.max_in_flight > 1000 {
            return Err(ModelError::Config(
                "max_in_flight must be 1–1000 so that 10-bit wave IDs stay unambiguous".into(),
            ));
        }
        if cfg.section.intrawave && gfx11 {
            return Err(ModelError::Config(
                "no intrawave collisions on GFX11".into(),
            ));
        }
        // The lists of the thread's last run, emptied: a verification runs the model dozens of
        // times in a row, each run with lists of the same sizes.
        let Lists {
            mut waves,
            mut packers,
            mut live,
            mut runnable,
            mut blocked,
            mut overlapped,
        } = LISTS.with(|l| l.take()).unwrap_or_default();
        let in_flight = cfg.max_in_flight.min(scene.waves());
        for (list, room) in [
            (&mut live, in_flight),
            (&mut runnable, in_flight),
            (&mut blocked, in_flight),
            (&mut overlapped, scene.covered_total()),
        ] {
            list.clear();
            list.reserve(room);
        }
        waves.clear();
        waves.reserve(scene.waves());
        packers.truncate(usize::from(cfg.packers.max(1)));
        for pk in &mut packers {
            pk.order.clear();
            pk.next_id = cfg.first_wave_id & 0x3ff;
        }
        while packers.len() < usize::from(cfg.packers.max(1)) {
            packers.push(PackerRt {
                order: VecDeque::with_capacity(scene.waves()),
                next_id: cfg.first_wave_id & 0x3ff,
            });
        }
        Ok(Sim {
            cfg,
            prog,
            scene,
            lists: Lists {
                waves,
                packers,
                live,
                runnable,
                blocked,
                overlapped,
            },
            rng: Rng(cfg.seed ^ 0x005e_ed0f_9095),
            epoch: 0,
            report: Report::default(),
        })
    }

    fn launch(&mut self) {
        let level = self.cfg.level;
        let seq = self.lists.waves.len();
        let p = usize::from(self.scene.packer(seq));
        let id = self.lists.packers[p].next_id;
        self.lists.packers[p].next_id = (id + 1) & 0x3ff;
        if id == 0x3ff {
            self.report.wraps += 1;
        }
        self.lists.packers[p].order.push_back(seq);

        // The waves last on its keys (fixed by the scene), those still running.
        let from = self.lists.overlapped.len();
        let waves = &self.lists.waves;
        self.lists.overlapped.extend(
            self.scene
                .covered_before(seq)
                .iter()
                .map(|&w| w as usize)
                .filter(|&w| !waves[w].ended),
        );
        let overlapped = from..self.lists.overlapped.len();
        let quad_bits = if self.cfg.section.wave64 { 16 } else { 8 };
        let layer_mask = self.scene.layer_mask(seq);
        let layers = layer_mask & !1;
        let newest = self.lists.overlapped[overlapped.clone()]
            .iter()
            .copied()
            .max();
        let did_overlap = newest.is_some() || layers != 0;

        // COLLISION_WAVEID as the hardware reports it.
        let cur = id as u32;
        let newest_true = match newest {
            Some(w) => self.lists.waves[w].id as u32,
            None if did_overlap => (cur + 0x3ff) & 0x3ff,
            None => cur,
        };
        let newest_reported = if level == GfxLevel::Gfx9 && did_overlap && newest_true > cur {
            (newest_true + 0x3ff) & 0x3ff
        } else {
            newest_true
        };
        let (packer_field, garbage_mask) = if level == GfxLevel::Gfx9 {
            ((p as u32 & 1) << 28, 0x6c00_fc00u32)
        } else {
            ((p as u32 & 3) << 28, 0x4c00_fc00u32)
        };
        let garbage = self.rng.next_u64() as u32 & garbage_mask;
        let collision =
            (did_overlap as u32) << 31 | packer_field | newest_reported << 16 | cur | garbage;
        let intrawave = (layer_mask as u32 & ((1 << quad_bits) - 1))
            | ((self.rng.next_u64() as u32) << quad_bits);

        let exec = self.scene.exec(seq);
        // The wave is made in its place in the list (its registers are most of it).
        self.lists.waves.push(WaveRt {
            plan: seq,
            id,
            packer: p as u8,
            did_overlap,
            overlapped,
            state: WaveState::new(&[], exec),
            ran: 0,
            done: false,
            ended: false,
            blocked: None,
            repeats: quiet::IdSet::NONE,
        });
        let state = &mut self.lists.waves[seq].state;
        // Garbage in every SGPR, one draw each — only those the program can read before it
        // writes them are filled: the others' values cannot reach anything a run observes.
        for &r in &self.prog.read_at_launch {
            state.sgpr[usize::from(r)] = self.rng.peek(u64::from(r)) as u32;
        }
        self.rng.skip(SGPRS as u64);
        state.sgpr[self.cfg.section.collision_sgpr as usize % SGPRS] = collision;
        if self.cfg.section.intrawave {
            state.sgpr[self.cfg.section.intrawave_sgpr as usize % SGPRS] = intrawave;
        }
        state.scc = self.rng.next_u64() & 1 == 1;

        self.report.waves += 1;
        self.report.invocations += exec.count_ones() as usize;
        self.report.overlapped_waves += did_overlap as usize;
        self.report.intrawave_waves += (layers != 0) as usize;
        self.lists.live.push(seq);
    }

    /// Packer `p`'s exiting wave ID: its oldest wave that has not left its section, or the ID
    /// its next wave gets.
    #[inline]
    fn exiting_id(&mut self, p: usize) -> u16 {
        let waves = &self.lists.waves;
        let pk = &mut self.lists.packers[p];
        while pk.order.front().is_some_and(|&w| waves[w].done) {
            pk.order.pop_front();
        }
        pk.order.front().map_or(pk.next_id, |&w| waves[w].id)
    }

    fn run(mut self) -> Result<Report, ModelError> {
        let total = self.scene.waves();
        // Each packer's exiting wave ID, kept across the run: a wave's exit or end changes its
        // own packer's only.
        let mut exiting = [0u16; 4];
        for (p, id) in exiting
            .iter_mut()
            .enumerate()
            .take(self.lists.packers.len())
        {
            *id = self.exiting_id(p);
        }
        loop {
            self.report.steps += 1;
            if self.report.steps > self.cfg.max_steps {
                return Err(ModelError::StepLimit {
                    steps: self.report.steps,
                });
            }
            let can_launch =
                self.lists.waves.len() < total && self.lists.live.len() < self.cfg.max_in_flight;
            let choices = self.lists.runnable.len() + can_launch as usize;
            if choices == 0 {
                if self.lists.live.is_empty() {
                    break;
                }
                return Err(ModelError::Deadlock {
                    waiting: self.lists.live.clone(),
                    launched: self.lists.waves.len(),
                    total,
                });
            }
            let pick = self.rng.below(choices as u64) as usize;
            let Some(w) = self.lists.runnable.get(pick).copied() else {
                self.launch();
                // The newest wave, last in launch order, not blocked.
                self.lists.runnable.push(self.lists.waves.len() - 1);
                continue;
            };
            let before = self.epoch;
            self.step_wave(w, &exiting)?;
            if self.epoch != before {
                let was = exiting;
                let p = usize::from(self.lists.waves[w].packer);
                exiting[p] = self.exiting_id(p);
                self.wake(&exiting, &was, pick, w);
            } else if self.lists.waves[w].blocked.is_some() {
                self.lists.runnable.remove(pick);
                self.lists.blocked.push(w);
            }
        }
        Ok(std::mem::take(&mut self.report))
    }

    /// The exiting wave IDs for which wave `w`, asleep, would run a round that repeats
    /// (`model::quiet`), where it would at its packer's ID now.
    fn repeating_ids(&self, w: usize, exiting: &[u16]) -> Option<quiet::IdSet> {
        let wave = &self.lists.waves[w];
        let mut env = StepEnv::of(self.cfg.level, exiting, wave);
        quiet::repeating_ids(
            self.prog,
            &wave.state,
            &mut env,
            exiting[usize::from(wave.packer)],
        )
    }

    /// After wave `stepped` (at `pick` in the runnable list) exited its section or ended: it
    /// leaves the list if it ended, and the blocked waves whose wait that can have ended run
    /// again (a poll loop whose packer's exiting wave ID changed, a wait for export ready whose
    /// overlapped waves all ended), each in its place in launch order.
    fn wake(&mut self, exiting: &[u16], was: &[u16], pick: usize, stepped: usize) {
        if self.lists.waves[stepped].ended {
            self.lists.runnable.remove(pick);
        }
        let mut k = 0;
        while let Some(&w) = self.lists.blocked.get(k) {
            let wave = &self.lists.waves[w];
            let over = match wave.blocked {
                None => true,
                Some(Blocked::Polling) => {
                    let p = usize::from(wave.packer);
                    let now = exiting[p];
                    // Its packer's ID as it was at the last look: it still repeats.
                    let repeats = now == was[p] || wave.repeats.contains(now);
                    // The set holds what running the round would find (in the test build).
                    debug_assert!(
                        !repeats
                            || self
                                .repeating_ids(w, exiting)
                                .is_some_and(|r| r.contains(now)),
                        "wave {w}'s round at exiting wave ID {now} does not repeat"
                    );
                    !repeats
                }
                Some(Blocked::ExportReady) => self.lists.overlapped[wave.overlapped.clone()]
                    .iter()
                    .all(|&o| self.lists.waves[o].ended),
            };
            if !over {
                k += 1;
                continue;
            }
            self.lists.waves[w].blocked = None;
            self.lists.blocked.swap_remove(k);
            let at = self.lists.runnable.partition_point(|&r| r < w);
            self.lists.runnable.insert(at, w);
        }
    }

    /// Runs wave `w` from one scheduling point to the next: its instructions up to and with the
    /// first that has an event (a sleep, a wait, a message, the body, the end), and stopping
    /// before a second read of the exiting wave ID. Nothing between two scheduling points is seen
    /// by another wave — a wave's registers, EXEC, SCC, its hardware registers and counters are
    /// its own, and the exiting wave ID, read at most once, is read at one moment, as the wave
    /// running these instructions back to back would read it — so running them as one step
    /// explores the same orders of what waves can see of each other (partial-order reduction),
    /// in fewer scheduling decisions. Each instruction still counts as a step.
    fn advance(
        &mut self,
        w: usize,
        exiting: &[u16],
    ) -> Result<Result<Event, Box<StepError>>, ModelError> {
        let wave = &mut self.lists.waves[w];
        let mut env = StepEnv::of(self.cfg.level, exiting, wave);
        let prog = &self.prog.prog;
        // Steps counted here and added once: past `left`, the run is over the limit.
        let left = self.cfg.max_steps.saturating_sub(self.report.steps);
        let mut ran = 0;
        let event = loop {
            let event = wave.state.step(prog, &mut env);
            if !matches!(event, Ok(Event::None))
                || (env.polls > 0 && WaveState::reads_exiting(prog, wave.state.pc))
            {
                break event;
            }
            ran += 1;
            if ran > left {
                self.report.steps += ran;
                return Err(ModelError::StepLimit {
                    steps: self.report.steps,
                });
            }
        };
        self.report.steps += ran;
        debug_assert!(
            env.polls <= 1,
            "two reads of the exiting wave ID in one step"
        );
        self.report.polls += env.polls;
        if !wave.did_overlap {
            self.report.polls_without_overlap += env.polls;
        }
        Ok(event)
    }

    fn step_wave(&mut self, w: usize, exiting: &[u16]) -> Result<(), ModelError> {
        let level = self.cfg.level;
        let event = self.advance(w, exiting)?;
        let event = match event.map_err(|e| *e) {
            Ok(e) => e,
            Err(StepError::Interp(error)) => return Err(ModelError::Interp { wave: w, error }),
            // The refusals of the exiting wave ID's read (`StepEnv`): a wait without overlap,
            // or a packer not selected.
            Err(StepError::Env(Refusal::DidOverlapClear)) => {
                return Err(ModelError::WaitedWithoutOverlap { wave: w })
            }
            Err(StepError::Env(why)) => return Err(ModelError::PackerNotSet { wave: w, why }),
        };
        match event {
            Event::None => {}
            Event::Sleep(_) => {
                self.report.sleeps += 1;
                if let Some(repeats) = self.repeating_ids(w, exiting) {
                    // Its next round would change nothing until the exiting wave ID is one
                    // outside `repeats`: it is not scheduled until then.
                    let wave = &mut self.lists.waves[w];
                    wave.repeats = repeats;
                    wave.blocked = Some(Blocked::Polling);
                }
            }
            Event::WaitEvent(imm) => {
                // GFX11 bit 0: "don't wait for export_ready"; GFX12 waits with bit 1.
                let ready = !Encoding::of(level).waits_for_export_ready(imm)
                    || self.lists.overlapped[self.lists.waves[w].overlapped.clone()]
                        .iter()
                        .all(|&o| self.lists.waves[o].ended);
                if ready {
                    self.lists.waves[w].state.retire_wait_event();
                } else {
                    self.lists.waves[w].blocked = Some(Blocked::ExportReady);
                }
            }
            Event::Message(Msg::OrderedPsDone) => {
                if level.is_gfx11_plus() {
                    return Err(ModelError::Interp {
                        wave: w,
                        error: InterpError::Unsupported {
                            // The message, before the labels the wave passed over after it.
                            pc: (0..self.lists.waves[w].state.pc)
                                .rev()
                                .find(|&k| !matches!(self.prog.prog.insts[k], Inst::Label(_)))
                                .unwrap_or(0),
                            text: "s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)".into(),
                            why: "GFX11 has no ORDERED_PS_DONE",
                        },
                    });
                }
                self.exit_section(w)?;
            }
            Event::Body(exec) => self.body(w, exec)?,
            Event::End => {
                let wave = &self.lists.waves[w];
                if level.is_gfx11_plus() {
                    // "The overlapping waves are resumed when the wave performs the last export
                    // (with the done flag)" — at the end of the program in the model.
                    self.exit_section(w)?;
                } else {
                    let enabled = if level == GfxLevel::Gfx9 {
                        (wave.state.mode >> 24) & 3 != 0
                    } else {
                        wave.state.pops_packer & 1 == 1
                    };
                    if enabled && !wave.done {
                        return Err(ModelError::EndedWithoutDone { wave: w });
                    }
                    if !wave.done {
                        self.lists.waves[w].done = true;
                    }
                }
                let wave = &mut self.lists.waves[w];
                wave.ended = true;
                let missing = self.scene.exec(wave.plan) & !wave.ran;
                if missing != 0 {
                    let lane = missing.trailing_zeros() as u8;
                    return Err(ModelError::BodyMissing(
                        self.scene.invocation(wave.plan, lane),
                    ));
                }
                // Live waves are in launch order, as waves are numbered.
                if let Ok(at) = self.lists.live.binary_search(&w) {
                    self.lists.live.remove(at);
                }
                self.epoch += 1;
            }
        }
        Ok(())
    }

    /// Why `earlier`, which covers a key just before an invocation of wave `w`, keeps that
    /// invocation from running its ordered section now, if it does.
    fn unfinished(&self, w: usize, earlier: &Invocation) -> Option<&'static str> {
        let wave = &self.lists.waves[w];
        if earlier.wave == w {
            return if wave.ran >> earlier.lane & 1 == 0 {
                Some("an overlapping invocation of an earlier layer of the same wave has not run")
            } else if !wave.state.counters.is_zero() {
                Some("the memory accesses of the earlier layer are still outstanding")
            } else {
                None
            };
        }
        match self.lists.waves.get(earlier.wave) {
            None => Some("the earlier wave has not even launched"),
            Some(ew) if !ew.done => Some("the earlier wave has not left its ordered section"),
            Some(ew) if ew.ran >> earlier.lane & 1 == 1 => None,
            Some(_) => Some("the earlier invocation never ran its ordered section"),
        }
    }

    fn exit_section(&mut self, w: usize) -> Result<(), ModelError> {
        let wave = &mut self.lists.waves[w];
        if wave.done {
            return Err(ModelError::DoneTwice { wave: w });
        }
        // "Before the message is sent, all counters for memory accesses that need to be
        // primitive-ordered ... must be awaited."
        if !wave.state.counters.is_zero() {
            return Err(ModelError::DoneWithOutstandingMemory {
                wave: w,
                counters: wave.state.counters,
            });
        }
        wave.done = true;
        self.epoch += 1;
        Ok(())
    }

    fn body(&mut self, w: usize, exec: u64) -> Result<(), ModelError> {
        let plan = self.lists.waves[w].plan;
        let plan_exec = self.scene.exec(plan);
        if exec & !plan_exec != 0 {
            return Err(ModelError::PhantomLanes {
                wave: w,
                lanes: exec & !plan_exec,
            });
        }
        if exec == 0 {
            return Ok(());
        }
        self.report.bodies += 1;
        let ran = self.lists.waves[w].ran;
        // Almost every body keeps the order: then no lane ran before and every lane that runs
        // waits only for invocations of other waves that left their section having run theirs
        // (what `unfinished` finds of them), whatever order they are looked at in. Anything
        // else is looked at lane by lane, as the walk's first breach is the one named.
        let waves = &self.lists.waves;
        let keeps_order = ran & exec == 0
            && self.scene.waits_met(plan, exec, |ew, lanes| {
                ew != w
                    && waves
                        .get(ew)
                        .is_some_and(|e| e.done && e.ran & lanes == lanes)
            });
        if !keeps_order {
            self.walk_in_lane_order(w, exec)?;
        }
        let level = self.cfg.level;
        let wave = &mut self.lists.waves[w];
        wave.ran |= exec;
        // The body reads and writes per-pixel data: a load, a store, and (the article's
        // waterfall case) a scalar access.
        let c = &mut wave.state.counters;
        c.vm += 1;
        c.lgkm += 1;
        if level == GfxLevel::Gfx9 {
            c.vm += 1; // stores count in vmcnt before GFX10
        } else {
            c.vs += 1;
        }
        Ok(())
    }

    /// The checks of a body of wave `w` for lanes `exec` lane by lane in order, each lane's
    /// predecessors after its own check: the first breach is the one this walk meets.
    fn walk_in_lane_order(&self, w: usize, exec: u64) -> Result<(), ModelError> {
        let plan = self.lists.waves[w].plan;
        let ran = self.lists.waves[w].ran;
        let before = self.scene.checks(plan);
        let mut at = 0;
        let mut lanes = exec;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as u8;
            lanes &= lanes - 1;
            while before.get(at).is_some_and(|c| c.lane < l) {
                at += 1;
            }
            if ran >> l & 1 == 1 {
                return Err(ModelError::BodyTwice(self.scene.invocation(plan, l)));
            }
            // By induction, checking the immediate predecessor on each key suffices.
            while let Some(Check { lane, key, earlier }) = before.get(at) {
                if lane != l {
                    break;
                }
                at += 1;
                if let Some(why) = self.unfinished(w, &earlier) {
                    return Err(ModelError::OutOfOrder {
                        key,
                        earlier,
                        later: self.scene.invocation(plan, l),
                        why,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The program a wave runs for `section`: entry, the body marker, exit.
pub fn wave_program(section: &crate::isa::OrderedSection) -> Vec<Inst> {
    section.program(&[Inst::Marker(crate::isa::Marker::OrderedBody)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{ordered_section, SectionOptions};

    struct NoHw;
    impl Env for NoHw {
        fn exiting_wave_id(&mut self, _: &WaveState) -> Result<u32, Refusal> {
            Err(Refusal::NoHardware("no packer in this test"))
        }
    }

    /// Runs one wave whose did-overlap bit is clear but whose INTRAWAVE_COLLISION mask is
    /// `mask`, and returns the EXEC of each body execution.
    fn layers(level: GfxLevel, wave64: bool, mask: u32, exec: u64) -> Vec<u64> {
        let opts = SectionOptions {
            intrawave: true,
            wave64,
            ..SectionOptions::default()
        };
        let prog = Program::new(
            level,
            &wave_program(&ordered_section(level, &opts).unwrap()),
        )
        .unwrap();
        let mut sgpr = vec![0xdead_beefu32; SGPRS];
        sgpr[opts.collision_sgpr as usize] = 0x0000_0005; // bit 31 clear
        sgpr[opts.intrawave_sgpr as usize] = mask;
        let mut w = WaveState::new(&sgpr, exec);
        let mut bodies = Vec::new();
        for _ in 0..10_000 {
            match w.step(&prog, &mut NoHw).unwrap() {
                Event::Body(e) => bodies.push(e),
                Event::End => return bodies,
                _ => {}
            }
        }
        panic!("no end");
    }

    /// "if the intrawave collision mask is 0b0000001110000100 ... the code of the ordered section
    /// needs to be executed first only for quads 1:0 (lanes 7:0), then only for quads 6:2 (lanes
    /// 27:8), then for quad 7 (lanes 31:28), then for quad 8 (lanes 35:32), and then for the
    /// remaining quads 15:9 (lanes 63:36)."
    #[test]
    fn the_articles_intrawave_example_runs_five_layers() {
        for level in [GfxLevel::Gfx9, GfxLevel::Gfx10, GfxLevel::Gfx10_3] {
            // Garbage above bit 15 must be ignored.
            let got = layers(level, true, 0xabcd_0000 | 0b0000_0011_1000_0100, u64::MAX);
            assert_eq!(
                got,
                vec![
                    0xff,
                    0x0fff_ff00,
                    0xf000_0000,
                    0xf_0000_0000,
                    0xffff_fff0_0000_0000
                ],
                "{level}"
            );
        }
        // Wave32: the low 8 bits.
        let got = layers(
            GfxLevel::Gfx10_3,
            false,
            0xffff_ff00 | 0b1000_0100,
            0xffff_ffff,
        );
        assert_eq!(got, vec![0xff, 0x0fff_ff00, 0xf000_0000]);
    }

    /// Runs `insts` on one wave from `sgpr` and `exec` to the end; the final state.
    fn run_scalar(level: GfxLevel, insts: &[Inst], sgpr: &[u32], exec: u64) -> WaveState {
        let mut all = insts.to_vec();
        all.push(Inst::sopp(crate::isa::Sopp::Endpgm, 0));
        let prog = Program::new(level, &all).unwrap();
        let mut w = WaveState::new(sgpr, exec);
        for _ in 0..100 {
            if w.step(&prog, &mut NoHw).unwrap() == Event::End {
                return w;
            }
        }
        panic!("no end");
    }

    /// The scalar instructions ACO builds lane masks and single-lane loops with: each does
    /// what the ISA manual says, on every level that has it.
    #[test]
    fn aco_s_lane_mask_instructions_compute_as_the_isa_says() {
        use crate::isa::{Operand::*, Sop1, Sopc};
        for level in [GfxLevel::Gfx9, GfxLevel::Gfx10_3, GfxLevel::Gfx11] {
            // s_not_b64 s[0:1], 0: all lanes.
            let w = run_scalar(
                level,
                &[Inst::sop1(Sop1::NotB64, Sgpr(0), Const(0))],
                &[],
                0,
            );
            assert_eq!(
                (w.sgpr[0], w.sgpr[1], w.scc),
                (u32::MAX, u32::MAX, true),
                "{level}"
            );
            // s_cmp_lg_i32 s0, 0 on a saved did-overlap bit (bit 31 set: negative, not zero).
            let w = run_scalar(
                level,
                &[Inst::sopc(Sopc::CmpLgI32, Sgpr(0), Const(0))],
                &[1 << 31],
                0,
            );
            assert!(w.scc, "{level}");
            let w = run_scalar(
                level,
                &[Inst::sopc(Sopc::CmpLtI32, Sgpr(0), Const(0))],
                &[1 << 31],
                0,
            );
            assert!(w.scc, "{level}: signed");
            // s_and_saveexec_b64 s[2:3], s[0:1]: old EXEC saved, EXEC narrowed, SCC = EXEC != 0.
            let w = run_scalar(
                level,
                &[Inst::sop1(Sop1::AndSaveexecB64, Sgpr(2), Sgpr(0))],
                &[0x0f0f, 0],
                0xff,
            );
            assert_eq!(
                (w.sgpr[2], w.sgpr[3], w.exec, w.scc),
                (0xff, 0, 0x0f, true),
                "{level}"
            );
            let w = run_scalar(
                level,
                &[Inst::sop1(Sop1::Andn2SaveexecB64, Sgpr(2), Sgpr(0))],
                &[0xff, 0],
                0x0f,
            );
            assert_eq!((w.sgpr[2], w.exec, w.scc), (0x0f, 0xf0, true), "{level}");
            // s_bcnt1_i32_b64 s4, exec and s_ff1_i32_b64 s5, exec: lane count and first lane.
            let w = run_scalar(
                level,
                &[
                    Inst::sop1(Sop1::Bcnt1I32B64, Sgpr(4), Exec),
                    Inst::sop1(Sop1::Ff1I32B64, Sgpr(5), Exec),
                ],
                &[],
                0x0000_0100_0000_0000,
            );
            assert_eq!((w.sgpr[4], w.sgpr[5]), (1, 40), "{level}");
            // s_cselect_b64 vcc, -1, 0 (a lane mask from SCC): SCC chooses and stays.
            for scc_set in [false, true] {
                let mut insts = vec![Inst::sopc(Sopc::CmpEqU32, Sgpr(0), Const(0))];
                insts.push(Inst::sop2(
                    crate::isa::Sop2::CselectB64,
                    Vcc,
                    Const(-1),
                    Const(0),
                ));
                insts.push(Inst::sop2(
                    crate::isa::Sop2::CselectB32,
                    Sgpr(2),
                    Const(7),
                    Const(9),
                ));
                let w = run_scalar(level, &insts, &[u32::from(!scc_set)], 0);
                let want = if scc_set { (u64::MAX, 7) } else { (0, 9) };
                assert_eq!(
                    (w.vcc, w.sgpr[2], w.scc),
                    (want.0, want.1, scc_set),
                    "{level}"
                );
            }
        }
        // The 32-bit saveexec works on EXEC_LO (wave32, GFX10+).
        let w = run_scalar(
            GfxLevel::Gfx10_3,
            &[Inst::sop1(Sop1::OrSaveexecB32, Sgpr(2), Sgpr(0))],
            &[0xf0],
            0x1_0000_000f,
        );
        assert_eq!((w.sgpr[2], w.exec), (0x0f, 0x1_0000_00ff));
    }

    #[test]
    fn layers_without_active_lanes_are_skipped_and_exec_is_restored() {
        let got = layers(GfxLevel::Gfx10, true, 0b100, 0xf0);
        assert_eq!(got, vec![0xf0], "quads 0-1 hold the only active lanes");
        let got = layers(GfxLevel::Gfx9, true, 0, 0x1234);
        assert_eq!(got, vec![0x1234], "no collision: one layer, the whole wave");
    }

    /// A wave64 section without intrawave layers.
    const WAVE64: SectionOptions = SectionOptions {
        intrawave: false,
        wave64: true,
        collision_sgpr: 2,
        intrawave_sgpr: 3,
        scratch_sgprs: 96,
    };

    /// 24 primitives on a 12×8 screen: most of them overlap.
    fn small_stream(samples: u8) -> StreamShape {
        StreamShape {
            primitives: 24,
            width: 12,
            height: 8,
            max_side: 5,
            samples,
        }
    }

    /// A scene is packed once and serves any program and wave-ID start: the runs on it equal
    /// runs that pack the stream anew; a run packed otherwise than the scene is refused.
    #[test]
    fn a_scene_serves_every_run_packed_like_it() {
        let level = GfxLevel::Gfx10_3;
        let opts = WAVE64;
        let program = wave_program(&ordered_section(level, &opts).unwrap());
        let shape = small_stream(4);
        let prims = generate_stream(7, shape);
        let mut cfg = Config::new(level, opts);
        cfg.granularity = Granularity::Sample;
        let scene = Scene::new(&prims, cfg.packing());
        for first in [0, 1012] {
            cfg.first_wave_id = first;
            let anew = simulate(&cfg, &program, &prims).unwrap();
            assert_eq!(simulate_scene(&cfg, &program, &scene).unwrap(), anew);
            assert!(anew.waves > 0 && anew.overlapped_waves > 0, "{anew:?}");
        }
        cfg.granularity = Granularity::Pixel;
        assert!(matches!(
            simulate_scene(&cfg, &program, &scene),
            Err(ModelError::Config(_))
        ));
    }

    /// A wave runs from one scheduling point to the next in one step, but stops before a second
    /// read of the exiting wave ID (another wave may exit between the two): GFX9's wait loop
    /// with its read doubled runs to the end, each step reading at most once (`advance`'s
    /// assertion), and polls as often as its reads.
    #[test]
    fn a_step_stops_before_a_second_read_of_the_exiting_wave_id() {
        let level = GfxLevel::Gfx9;
        let opts = WAVE64;
        let mut program = wave_program(&ordered_section(level, &opts).unwrap());
        let read = program
            .iter()
            .position(interp::reads_exiting_wave_id)
            .expect("the wait loop reads the exiting wave ID");
        program.insert(read + 1, program[read]);
        let shape = small_stream(1);
        let cfg = Config::new(level, opts);
        let r = simulate(&cfg, &program, &generate_stream(3, shape)).unwrap();
        assert!(r.overlapped_waves > 0 && r.polls > 0, "{r:?}");
        assert_eq!(r.polls % 2, 0, "each round reads twice: {r:?}");
    }

    /// A wave that never reaches a scheduling point (a branch to itself) is a hang once the
    /// run's steps pass its bound: the steps it ran between two scheduling points count, one
    /// each, and the run stops at the first past the bound.
    #[test]
    fn a_wave_spinning_without_an_event_hits_the_step_bound() {
        let level = GfxLevel::Gfx10_3;
        let spin = [
            Inst::Label(crate::isa::Label("spin")),
            Inst::Sopp {
                op: crate::isa::Sopp::Branch,
                imm: crate::isa::SoppImm::Target(crate::isa::Label("spin")),
            },
        ];
        let mut cfg = Config::new(level, WAVE64);
        cfg.max_steps = 1000;
        let r = simulate(&cfg, &spin, &generate_stream(3, small_stream(1)));
        assert_eq!(r, Err(ModelError::StepLimit { steps: 1001 }));
    }

    /// Every key of a stream's screen has its own index.
    #[test]
    fn key_indices_are_distinct() {
        let prims = vec![Primitive {
            fragments: vec![
                Fragment {
                    x: 2,
                    y: 1,
                    coverage: 1,
                },
                Fragment {
                    x: 0,
                    y: 0,
                    coverage: 1,
                },
            ],
        }];
        let space = KeySpace::of(&prims);
        let mut seen = std::collections::HashSet::new();
        for y in 0..2 {
            for x in 0..3 {
                for s in (0..8).chain([raster::PIXEL]) {
                    let i = space.index((x, y, s));
                    assert!(i < space.len() && seen.insert(i), "{x},{y},{s}");
                }
            }
        }
    }
}
