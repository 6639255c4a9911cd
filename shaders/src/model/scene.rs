//! A primitive stream packed into waves, with what each invocation's ordered section waits for:
//! all that a model run takes from the stream, the same for every program run on it.
//!
//! The verification runs every shader on the same few scenes ([`fixed_scenes`]). Packing them is
//! pure and costs more than running a program on them, so they are packed when pops is built:
//! `build.rs` includes this file and `raster.rs`, writes [`encode_fixed`]'s words, and a run only
//! reads them back ([`Scene::decode`]). A test holds every decoded scene equal to the one packed
//! at run time.

// Through the parent module, as `build.rs` provides it too.
use super::raster::{generate_stream, pack_waves, Key, KeySpace, Packing, Primitive, StreamShape};
use super::Granularity;
use std::borrow::Cow;

/// One invocation: a lane of a wave (waves numbered in launch order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Invocation {
    pub wave: usize,
    pub lane: u8,
    pub prim: usize,
}

/// What one lane's ordered section waits for: an invocation that covers one of its keys just
/// before it in primitive order, with the first such key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub lane: u8,
    pub key: Key,
    pub earlier: Invocation,
}

impl Check {
    /// The check in its four words ([`Scene::encode`]'s): its lane, the key's sample and the
    /// earlier invocation's lane; the earlier wave; its primitive; the key's pixel.
    fn words(&self) -> [u32; 4] {
        let (x, y, s) = self.key;
        let e = self.earlier;
        [
            u32::from(self.lane) | u32::from(s) << 8 | u32::from(e.lane) << 16,
            e.wave as u32,
            e.prim as u32,
            u32::from(x) | u32::from(y) << 16,
        ]
    }

    fn of(w: &[u32; 4]) -> Check {
        Check {
            lane: w[0] as u8,
            key: (w[3] as u16, (w[3] >> 16) as u16, (w[0] >> 8) as u8),
            earlier: Invocation {
                wave: w[1] as usize,
                lane: (w[0] >> 16) as u8,
                prim: w[2] as usize,
            },
        }
    }
}

/// One wave's checks, in lane order, as the scene keeps them.
#[derive(Clone, Copy)]
pub struct Checks<'a>(&'a [[u32; 4]]);

impl Checks<'_> {
    pub fn get(&self, k: usize) -> Option<Check> {
        self.0.get(k).map(Check::of)
    }

    pub fn iter(&self) -> impl Iterator<Item = Check> + '_ {
        self.0.iter().map(Check::of)
    }
}

/// A packed stream in its words ([`Scene::encode`]): per wave in launch order its packer,
/// INTRAWAVE_COLLISION layer mask, EXEC at launch, its lanes' primitives, its checks and the
/// waves it may overlap (each wave's part of a flat list from `*_start[w]` to
/// `*_start[w + 1]`). The scenes every verification runs on are words built into pops
/// (`build.rs`): a run reads them where they are, with nothing to decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    pub(super) packing: Packing,
    words: Cow<'static, [u32]>,
    waves: usize,
    /// Where each list begins in `words`.
    at: Lists,
}

/// Where each of a scene's lists begins in its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lists {
    packer: usize,
    layer_mask: usize,
    exec: usize,
    lane_start: usize,
    /// Per lane, its primitive ([`NO_PRIM`]: an inactive lane).
    lane_prim: usize,
    before_start: usize,
    /// Per lane in lane order, what its ordered section waits for: each invocation that covers
    /// one of its keys just before it in primitive order, once, with the first such key, in
    /// key order. (Checking one key's predecessor or another's with the same predecessor gives
    /// the same answer: a run checks each predecessor once, and the first failing key is the
    /// same.) Four words each.
    before: usize,
    /// The earlier waves that last covered one of its keys when it launches (waves launch in
    /// plan order, so this is fixed by the scene), each once, in first-key order.
    covered_start: usize,
    covered: usize,
    /// Per wave, what its lanes wait for by earlier wave: five words each (see
    /// [`waits_by_wave`]).
    group_start: usize,
    groups: usize,
    end: usize,
}

/// Per wave, its checks by the earlier wave they name, in first-check order: that wave, the
/// lanes waiting for it (two words) and the lanes of it they wait for (two words). A body whose
/// lanes wait only for waves that left their section with all those lanes run keeps the order
/// — one look per earlier wave rather than per check.
fn waits_by_wave(before: &[Check], before_start: &[u32]) -> (Vec<[u32; 5]>, Vec<u32>) {
    let mut groups: Vec<[u32; 5]> = Vec::new();
    let mut group_start = Vec::with_capacity(before_start.len());
    for range in before_start.windows(2) {
        let from = groups.len();
        group_start.push(from as u32);
        for c in &before[range[0] as usize..range[1] as usize] {
            let wave = c.earlier.wave as u32;
            let g = match groups[from..].iter().position(|g| g[0] == wave) {
                Some(k) => from + k,
                None => {
                    groups.push([wave, 0, 0, 0, 0]);
                    groups.len() - 1
                }
            };
            let (lane, earlier) = (u64::from(c.lane), u64::from(c.earlier.lane));
            let g = &mut groups[g];
            let waiting = (u64::from(g[1]) | u64::from(g[2]) << 32) | 1 << lane;
            let needed = (u64::from(g[3]) | u64::from(g[4]) << 32) | 1 << earlier;
            *g = [
                wave,
                waiting as u32,
                (waiting >> 32) as u32,
                needed as u32,
                (needed >> 32) as u32,
            ];
        }
    }
    group_start.push(groups.len() as u32);
    (groups, group_start)
}

/// The primitive of an inactive lane.
const NO_PRIM: u32 = u32::MAX;

/// One key of one invocation of a packed stream: its wave (in launch order), lane, primitive,
/// the key and its index in the stream's [`KeySpace`]. A scene is built from these in a few
/// passes over one flat list, each key's index computed once.
#[derive(Clone, Copy)]
struct KeySlot {
    wave: usize,
    lane: u8,
    prim: usize,
    key: Key,
    at: usize,
}

impl KeySlot {
    fn invocation(&self) -> Invocation {
        Invocation {
            wave: self.wave,
            lane: self.lane,
            prim: self.prim,
        }
    }
}

/// Every wave's key slots in launch order, each wave's lanes in order, and where each wave's
/// slots begin (one more entry: the end).
fn key_slots(plans: &[super::raster::WavePlan], space: KeySpace) -> (Vec<KeySlot>, Vec<usize>) {
    let mut slots = Vec::new();
    let mut starts = Vec::with_capacity(plans.len() + 1);
    for (wave, plan) in plans.iter().enumerate() {
        starts.push(slots.len());
        for (l, lane) in plan.lanes.iter().enumerate() {
            let Some(lane) = lane else { continue };
            slots.extend(lane.keys.iter().map(|&key| KeySlot {
                wave,
                lane: l as u8,
                prim: lane.prim,
                key,
                at: space.index(key),
            }));
        }
    }
    starts.push(slots.len());
    (slots, starts)
}

/// Per wave, the earlier waves that last covered one of its keys when it launches, each once,
/// in first-key order: flat, with where each wave's begin.
fn covered_before(slots: &[KeySlot], starts: &[usize], space: KeySpace) -> (Vec<u32>, Vec<u32>) {
    let mut last_cover: Vec<Option<usize>> = vec![None; space.len()];
    let mut covered = Vec::new();
    let mut covered_start = Vec::with_capacity(starts.len());
    for (seq, range) in starts.windows(2).enumerate() {
        let wave = &slots[range[0]..range[1]];
        let from = covered.len();
        covered_start.push(from as u32);
        for slot in wave {
            if let Some(w) = last_cover[slot.at] {
                if w != seq && !covered[from..].contains(&(w as u32)) {
                    covered.push(w as u32);
                }
            }
        }
        for slot in wave {
            last_cover[slot.at] = Some(seq);
        }
    }
    covered_start.push(covered.len() as u32);
    (covered, covered_start)
}

/// Per key slot, the slot just before it on its key in primitive order (invocations of one
/// primitive on a key keep their launch order). A counting sort over the dense key space: the
/// buckets come out almost sorted, since a key belongs to one packer, whose waves launch in
/// order.
fn predecessors(slots: &[KeySlot], space: KeySpace) -> Vec<Option<usize>> {
    let mut start = vec![0usize; space.len() + 1];
    for slot in slots {
        start[slot.at + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut next = start.clone();
    let mut by_key = vec![0usize; slots.len()];
    for (k, slot) in slots.iter().enumerate() {
        by_key[next[slot.at]] = k;
        next[slot.at] += 1;
    }
    let mut pred = vec![None; slots.len()];
    for key in start.windows(2) {
        if key[1] - key[0] < 2 {
            continue;
        }
        let bucket = &mut by_key[key[0]..key[1]];
        // Most buckets come sorted (a key's packer launches its waves in order): sorting is
        // for the others (the sort is stable, as the checked order is).
        if !bucket.is_sorted_by_key(|&k| slots[k].prim) {
            bucket.sort_by_key(|&k| slots[k].prim);
        }
        for pair in bucket.windows(2) {
            pred[pair[1]] = Some(pair[0]);
        }
    }
    pred
}

/// Per wave, its checks in lane order (once per lane and predecessor), flat, with where each
/// wave's begin.
fn checks(slots: &[KeySlot], starts: &[usize], pred: &[Option<usize>]) -> (Vec<Check>, Vec<u32>) {
    let mut before: Vec<Check> = Vec::with_capacity(slots.len());
    let mut before_start = Vec::with_capacity(starts.len());
    for range in starts.windows(2) {
        let from = before.len();
        before_start.push(from as u32);
        for (slot, p) in slots[range[0]..range[1]].iter().zip(&pred[range[0]..]) {
            let Some(e) = p.map(|e| slots[e].invocation()) else {
                continue;
            };
            let lane = slot.lane;
            // Once per lane and predecessor: this lane's checks are the list's tail.
            let seen = before[from..]
                .iter()
                .rev()
                .take_while(|c| c.lane == lane)
                .any(|c| c.earlier == e);
            if !seen {
                before.push(Check {
                    lane,
                    key: slot.key,
                    earlier: e,
                });
            }
        }
    }
    before_start.push(before.len() as u32);
    (before, before_start)
}

impl Scene {
    pub fn new(prims: &[Primitive], packing: Packing) -> Scene {
        let plans = pack_waves(prims, packing);
        let space = KeySpace::of(prims);
        let (slots, starts) = key_slots(&plans, space);
        let pred = predecessors(&slots, space);
        let (before, before_start) = checks(&slots, &starts, &pred);
        let (covered, covered_start) = covered_before(&slots, &starts, space);
        let mut lane_prim = Vec::new();
        let mut lane_start = Vec::with_capacity(plans.len() + 1);
        for plan in &plans {
            lane_start.push(lane_prim.len() as u32);
            lane_prim.extend(
                plan.lanes
                    .iter()
                    .map(|l| l.as_ref().map_or(NO_PRIM, |l| l.prim as u32)),
            );
        }
        lane_start.push(lane_prim.len() as u32);
        let (groups, group_start) = waits_by_wave(&before, &before_start);
        let mut w = vec![
            packing_word(packing),
            plans.len() as u32,
            lane_prim.len() as u32,
            before.len() as u32,
            covered.len() as u32,
            groups.len() as u32,
        ];
        w.extend(plans.iter().map(|p| u32::from(p.packer)));
        w.extend(plans.iter().map(|p| u32::from(p.layer_mask)));
        w.extend(plans.iter().flat_map(|p| {
            let e = p.exec();
            [e as u32, (e >> 32) as u32]
        }));
        w.extend(&lane_start);
        w.extend(&lane_prim);
        w.extend(&before_start);
        w.extend(before.iter().flat_map(Check::words));
        w.extend(&covered_start);
        w.extend(&covered);
        w.extend(&group_start);
        w.extend(groups.iter().flatten());
        match Scene::from_words(Cow::Owned(w)) {
            Some(scene) => scene,
            None => unreachable!("a packed stream's words are a whole scene"),
        }
    }

    /// The scene in `words` ([`Scene::new`]'s), where they are one: the packing, the counts of
    /// waves, lanes, checks and covered waves, then each list. Every start list must ascend to
    /// its list's end, and every check and overlap name a wave the scene has and lanes a wave64
    /// has: what the accessors index by.
    fn from_words(words: Cow<'static, [u32]>) -> Option<Scene> {
        let scene = Scene::laid_out(words)?;
        scene.is_whole().then_some(scene)
    }

    /// The scene in `words` with only its header and length looked at: for the scenes built
    /// into pops, which [`Scene::new`] checked whole when pops was built (checking them again
    /// at every process's first read cost more than a tenth of a GFX9 verification's margin).
    /// Their accessors index safely, so words that were not whole would stop the verification
    /// with a panic, never read past them.
    fn laid_out(words: Cow<'static, [u32]>) -> Option<Scene> {
        let head = words.get(..6)?;
        let packing = packing_of(head[0])?;
        let [waves, lanes, checks, covered, groups] = [1, 2, 3, 4, 5].map(|k| head[k] as usize);
        let mut end = 6usize;
        let mut list = |n: usize| {
            let from = end;
            end = end.checked_add(n)?;
            Some(from)
        };
        let at = Lists {
            packer: list(waves)?,
            layer_mask: list(waves)?,
            exec: list(waves.checked_mul(2)?)?,
            lane_start: list(waves.checked_add(1)?)?,
            lane_prim: list(lanes)?,
            before_start: list(waves.checked_add(1)?)?,
            before: list(checks.checked_mul(4)?)?,
            covered_start: list(waves.checked_add(1)?)?,
            covered: list(covered)?,
            group_start: list(waves.checked_add(1)?)?,
            groups: list(groups.checked_mul(5)?)?,
            end,
        };
        (words.len() == at.end).then_some(Scene {
            packing,
            words,
            waves,
            at,
        })
    }

    /// Whether every start list ascends to its list's end and every check, overlap and group
    /// names a wave the scene has (and a check lanes a wave64 has).
    fn is_whole(&self) -> bool {
        let (words, at, waves) = (&self.words, &self.at, self.waves);
        let count = |k: usize| words[k] as usize;
        let fits = |from: usize, len: usize| {
            let starts = &words[from..from + waves + 1];
            starts.first() == Some(&0)
                && starts.windows(2).all(|p| p[0] <= p[1])
                && starts.last().is_some_and(|&l| l as usize == len)
        };
        // Every word looked at without stopping early.
        let n = waves as u32;
        let beyond = |list: &[u32]| list.iter().fold(false, |bad, &w| bad | (w >= n));
        let bad_checks = words[at.before..at.covered_start]
            .as_chunks::<4>()
            .0
            .iter()
            .fold(false, |bad, c| bad | (c[0] & 0xc0_00c0 != 0) | (c[1] >= n));
        let bad_groups = words[at.groups..at.end]
            .as_chunks::<5>()
            .0
            .iter()
            .fold(false, |bad, g| bad | (g[0] >= n));
        fits(at.lane_start, count(2))
            && fits(at.before_start, count(3))
            && fits(at.covered_start, count(4))
            && fits(at.group_start, count(5))
            && !beyond(&words[at.covered..at.group_start])
            && !bad_groups
            && !bad_checks
    }

    /// The waves in launch order.
    pub fn waves(&self) -> usize {
        self.waves
    }

    /// The packer of wave `w`.
    pub fn packer(&self, w: usize) -> u8 {
        self.words[self.at.packer + w] as u8
    }

    /// Wave `w`'s INTRAWAVE_COLLISION layer mask (bit q: quad q starts a new layer).
    pub fn layer_mask(&self, w: usize) -> u16 {
        self.words[self.at.layer_mask + w] as u16
    }

    /// Wave `w`'s lanes with an invocation (its EXEC at launch).
    pub fn exec(&self, w: usize) -> u64 {
        let at = self.at.exec + 2 * w;
        u64::from(self.words[at]) | u64::from(self.words[at + 1]) << 32
    }

    /// The part of a flat list wave `w` has, by its start list.
    fn part(&self, starts: usize, list: usize, size: usize, w: usize) -> &[u32] {
        let (from, to) = (self.words[starts + w], self.words[starts + w + 1]);
        &self.words[list + size * from as usize..list + size * to as usize]
    }

    /// What wave `w`'s lanes wait for, in lane order.
    pub fn checks(&self, w: usize) -> Checks<'_> {
        Checks(
            self.part(self.at.before_start, self.at.before, 4, w)
                .as_chunks()
                .0,
        )
    }

    /// Whether every lane of wave `w` in `lanes` waits only for earlier waves `met(wave, lanes
    /// of it)` holds for, where the lanes are all those any lane of `w` waits for of that
    /// wave (`waits_by_wave`): a condition stronger than each check's.
    pub fn waits_met(&self, w: usize, lanes: u64, met: impl Fn(usize, u64) -> bool) -> bool {
        self.part(self.at.group_start, self.at.groups, 5, w)
            .as_chunks::<5>()
            .0
            .iter()
            .all(|g| {
                let waiting = u64::from(g[1]) | u64::from(g[2]) << 32;
                lanes & waiting == 0 || met(g[0] as usize, u64::from(g[3]) | u64::from(g[4]) << 32)
            })
    }

    /// The earlier waves that last covered one of wave `w`'s keys when it launches.
    pub fn covered_before(&self, w: usize) -> &[u32] {
        self.part(self.at.covered_start, self.at.covered, 1, w)
    }

    /// How many waves [`Scene::covered_before`] names for all waves together.
    pub fn covered_total(&self) -> usize {
        self.at.group_start - self.at.covered
    }

    /// The invocation in lane `lane` of wave `wave`.
    pub fn invocation(&self, wave: usize, lane: u8) -> Invocation {
        let lanes = self.part(self.at.lane_start, self.at.lane_prim, 1, wave);
        let prim = match lanes.get(usize::from(lane)) {
            Some(&p) if p != NO_PRIM => p as usize,
            _ => 0,
        };
        Invocation { wave, lane, prim }
    }
}

/// The seeds of the verification's streams and interleavings.
pub const SEEDS: std::ops::RangeInclusive<u64> = 1..=4;

/// Every packer count the verification runs with on some level (GFX9: 1–2, GFX10–10.3: 1–4,
/// GFX11 and later: 1).
pub const PACKERS: [u8; 3] = [1, 2, 4];

/// The streams every verified entry sequence runs on: 48 random rectangles on a 16×12 screen
/// (pixel coverage, or random subsets of 4 samples), per seed.
pub fn stream_shape(granularity: Granularity) -> StreamShape {
    StreamShape {
        primitives: 48,
        width: 16,
        height: 12,
        max_side: 6,
        samples: if granularity == Granularity::Sample {
            4
        } else {
            1
        },
    }
}

/// How the verification packs: wave64, no intrawave collisions (the options it emits its own
/// exit with), pixel or sample interlock, and `packers`.
pub fn verification_packing(granularity: Granularity, packers: u8) -> Packing {
    Packing {
        wave64: true,
        intrawave: false,
        granularity,
        packers,
    }
}

/// Every scene the verification runs on: each seed under each of its packings.
pub fn fixed_scenes() -> impl Iterator<Item = (u64, Packing)> {
    SEEDS.flat_map(|seed| {
        PACKERS.into_iter().flat_map(move |p| {
            [Granularity::Pixel, Granularity::Sample]
                .into_iter()
                .map(move |g| (seed, verification_packing(g, p)))
        })
    })
}

/// Packs the fixed scene of `seed` under `packing` (what `build.rs` does for every one).
pub fn pack_fixed(seed: u64, packing: Packing) -> Scene {
    let prims = generate_stream(seed, stream_shape(packing.granularity));
    Scene::new(&prims, packing)
}

fn granularity_code(g: Granularity) -> u32 {
    match g {
        Granularity::Pixel => 0,
        Granularity::Sample => 1,
        Granularity::ShadingRate => 2,
    }
}

fn packing_word(p: Packing) -> u32 {
    u32::from(p.wave64)
        | u32::from(p.intrawave) << 1
        | granularity_code(p.granularity) << 2
        | u32::from(p.packers) << 8
}

fn packing_of(word: u32) -> Option<Packing> {
    let granularity = match word >> 2 & 3 {
        0 => Granularity::Pixel,
        1 => Granularity::Sample,
        2 => Granularity::ShadingRate,
        _ => return None,
    };
    Some(Packing {
        wave64: word & 1 == 1,
        intrawave: word >> 1 & 1 == 1,
        granularity,
        packers: (word >> 8) as u8,
    })
}

/// Every fixed scene as words: per scene its length, then [`Scene::encode`]'s words.
pub fn encode_fixed() -> Vec<u32> {
    let mut out = Vec::new();
    for (seed, packing) in fixed_scenes() {
        let words = pack_fixed(seed, packing).encode(seed);
        out.push(words.len() as u32);
        out.extend(words);
    }
    out
}

/// The scene of `seed` under `packing` in a table [`encode_fixed`] wrote, read where it is and
/// checked whole; `None` if the table does not hold it.
pub fn find_fixed(table: &'static [u32], seed: u64, packing: Packing) -> Option<Scene> {
    find_in(table, seed, packing).filter(Scene::is_whole)
}

/// [`find_fixed`] for the table built into pops (`build.rs`), whose scenes [`Scene::new`]
/// checked whole when pops was built: only their layout is read.
pub fn find_built(table: &'static [u32], seed: u64, packing: Packing) -> Option<Scene> {
    find_in(table, seed, packing)
}

fn find_in(table: &'static [u32], seed: u64, packing: Packing) -> Option<Scene> {
    let mut rest = table;
    while let Some((&len, after)) = rest.split_first() {
        let (scene, next) = after.split_at_checked(len as usize)?;
        rest = next;
        let [lo, hi, p, ..] = *scene else {
            return None;
        };
        if (u64::from(hi) << 32 | u64::from(lo)) == seed && packing_of(p) == Some(packing) {
            return Scene::laid_out(Cow::Borrowed(&scene[2..]));
        }
    }
    None
}

impl Scene {
    /// The scene as words, after its seed (two words).
    pub fn encode(&self, seed: u64) -> Vec<u32> {
        let mut w = vec![seed as u32, (seed >> 32) as u32];
        w.extend_from_slice(&self.words);
        w
    }

    /// The scene [`Scene::encode`] wrote, as little-endian bytes; `None` if they are not one.
    pub fn decode(bytes: &[u8]) -> Option<Scene> {
        let (words, rest) = bytes.as_chunks::<4>();
        if !rest.is_empty() || words.len() < 2 {
            return None;
        }
        Scene::from_words(Cow::Owned(
            words[2..].iter().map(|w| u32::from_le_bytes(*w)).collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A scene read back from its words is the scene packed, for every fixed scene; each is
    /// found by its seed and packing, and no other.
    #[test]
    fn a_scene_survives_its_words() {
        let table: &'static [u32] = Box::leak(encode_fixed().into_boxed_slice());
        for (seed, packing) in fixed_scenes() {
            let packed = pack_fixed(seed, packing);
            assert!(packed.waves() > 0 && packed.at.covered > packed.at.before);
            assert_eq!(
                Scene::decode(&bytes(&packed.encode(seed))).as_ref(),
                Some(&packed)
            );
            assert_eq!(find_fixed(table, seed, packing).as_ref(), Some(&packed));
        }
        let other = verification_packing(Granularity::Pixel, 3);
        assert_eq!(find_fixed(table, 1, other), None);
        assert_eq!(
            find_fixed(table, 99, verification_packing(Granularity::Pixel, 1)),
            None
        );
    }

    /// A body that [`Scene::waits_met`] lets through passes each of its lanes' checks: for
    /// every wave of every fixed scene, with earlier waves that ran random lanes.
    #[test]
    fn the_waits_by_wave_hold_each_check() {
        let mut rng = super::super::raster::Rng(7);
        for (seed, packing) in fixed_scenes() {
            let scene = pack_fixed(seed, packing);
            for w in 0..scene.waves() {
                for _ in 0..8 {
                    let ran: Vec<u64> = (0..scene.waves()).map(|_| rng.next_u64()).collect();
                    let lanes = rng.next_u64();
                    let met = |e: usize, need: u64| ran[e] & need == need;
                    if scene.waits_met(w, lanes, met) {
                        for c in scene.checks(w).iter() {
                            assert!(
                                lanes >> c.lane & 1 == 0
                                    || ran[c.earlier.wave] >> c.earlier.lane & 1 == 1,
                                "seed {seed}, wave {w}: {c:?}"
                            );
                        }
                    }
                }
                // Every lane's check passing lets the body through.
                let mut all = vec![0u64; scene.waves()];
                for c in scene.checks(w).iter() {
                    all[c.earlier.wave] |= 1 << c.earlier.lane;
                }
                assert!(scene.waits_met(w, u64::MAX, |e, need| all[e] & need == need));
            }
        }
    }

    /// Words that are not a whole scene read as none, never a panic: cut short anywhere, or
    /// with a start list, an overlapped wave or a waited-for wave out of bounds.
    #[test]
    fn damaged_words_are_no_scene() {
        let words = pack_fixed(2, verification_packing(Granularity::Sample, 2)).encode(2);
        for cut in 0..words.len() {
            assert_eq!(Scene::decode(&bytes(&words[..cut])), None, "cut at {cut}");
        }
        let (waves, groups) = (words[3] as usize, words[7] as usize);
        let lane_start = 8 + 4 * waves;
        let last_covered = words.len() - 5 * groups - (waves + 1) - 1;
        for (at, value) in [
            (lane_start + 1, u32::MAX),
            (2, 0b1100),
            (last_covered, 9999),
            (words.len() - 5, 9999),
        ] {
            let mut bad = words.clone();
            bad[at] = value;
            assert_eq!(Scene::decode(&bytes(&bad)), None, "word {at} = {value}");
        }
    }
}
