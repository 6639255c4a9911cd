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

/// One invocation: a lane of a wave (waves numbered in launch order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Invocation {
    pub wave: usize,
    pub lane: u8,
    pub prim: usize,
}

/// What one lane's ordered section waits for: an invocation that covers one of its keys just
/// before it in primitive order, with the first such key.
pub type Check = (u8, Key, Invocation);

/// A packed stream, flat: per wave in launch order its packer, INTRAWAVE_COLLISION layer mask,
/// EXEC at launch, its lanes' primitives, its checks and the waves it may overlap (each wave's
/// part of a flat list from `*_start[w]` to `*_start[w + 1]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    pub(super) packing: Packing,
    packer: Vec<u8>,
    layer_mask: Vec<u16>,
    exec: Vec<u64>,
    /// Per lane, its primitive ([`NO_PRIM`]: an inactive lane).
    lane_prim: Vec<u32>,
    lane_start: Vec<u32>,
    /// Per lane in lane order, what its ordered section waits for: each invocation that covers
    /// one of its keys just before it in primitive order, once, with the first such key, in key
    /// order. (Checking one key's predecessor or another's with the same predecessor gives the
    /// same answer: a run checks each predecessor once, and the first failing key is the same.)
    before: Vec<Check>,
    before_start: Vec<u32>,
    /// The earlier waves that last covered one of its keys when it launches (waves launch in
    /// plan order, so this is fixed by the scene), each once, in first-key order.
    covered: Vec<u32>,
    covered_start: Vec<u32>,
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
                .take_while(|(cl, _, _)| *cl == lane)
                .any(|(_, _, c)| *c == e);
            if !seen {
                before.push((lane, slot.key, e));
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
        Scene {
            packing,
            packer: plans.iter().map(|p| p.packer).collect(),
            layer_mask: plans.iter().map(|p| p.layer_mask).collect(),
            exec: plans.iter().map(super::raster::WavePlan::exec).collect(),
            lane_prim,
            lane_start,
            before,
            before_start,
            covered,
            covered_start,
        }
    }

    /// The waves in launch order.
    pub fn waves(&self) -> usize {
        self.packer.len()
    }

    /// The packer of wave `w`.
    pub fn packer(&self, w: usize) -> u8 {
        self.packer[w]
    }

    /// Wave `w`'s INTRAWAVE_COLLISION layer mask (bit q: quad q starts a new layer).
    pub fn layer_mask(&self, w: usize) -> u16 {
        self.layer_mask[w]
    }

    /// Wave `w`'s lanes with an invocation (its EXEC at launch).
    pub fn exec(&self, w: usize) -> u64 {
        self.exec[w]
    }

    /// What wave `w`'s lanes wait for, in lane order.
    pub fn checks(&self, w: usize) -> &[Check] {
        &self.before[self.before_start[w] as usize..self.before_start[w + 1] as usize]
    }

    /// The earlier waves that last covered one of wave `w`'s keys when it launches.
    pub fn covered_before(&self, w: usize) -> &[u32] {
        &self.covered[self.covered_start[w] as usize..self.covered_start[w + 1] as usize]
    }

    /// How many waves [`Scene::covered_before`] names for all waves together.
    pub fn covered_total(&self) -> usize {
        self.covered.len()
    }

    /// The invocation in lane `lane` of wave `wave`.
    pub fn invocation(&self, wave: usize, lane: u8) -> Invocation {
        let at = self.lane_start[wave] as usize + usize::from(lane);
        let prim = match self.lane_prim.get(at) {
            Some(&p) if p != NO_PRIM && at < self.lane_start[wave + 1] as usize => p as usize,
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

/// The words of the scene of `seed` under `packing` in a table [`encode_fixed`] wrote, given
/// as its little-endian bytes; `None` if the table does not hold it.
pub fn find_fixed(table: &[u8], seed: u64, packing: Packing) -> Option<Scene> {
    let mut words = Words { bytes: table };
    while let Some(len) = words.next() {
        let scene = words.take(len as usize)?;
        let mut head = Words { bytes: scene };
        let (lo, hi, p) = (head.next()?, head.next()?, head.next()?);
        if (u64::from(hi) << 32 | u64::from(lo)) == seed && packing_of(p) == Some(packing) {
            return Scene::decode(scene);
        }
    }
    None
}

/// Little-endian words read from bytes.
struct Words<'a> {
    bytes: &'a [u8],
}

impl<'a> Words<'a> {
    fn next(&mut self) -> Option<u32> {
        let (w, rest) = self.bytes.split_first_chunk::<4>()?;
        self.bytes = rest;
        Some(u32::from_le_bytes(*w))
    }

    /// The bytes of the next `n` words.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let bytes = n.checked_mul(4)?;
        if bytes > self.bytes.len() {
            return None;
        }
        let (taken, rest) = self.bytes.split_at(bytes);
        self.bytes = rest;
        Some(taken)
    }

    /// `n` words, each converted.
    fn list<T>(&mut self, n: usize, f: impl Fn(u32) -> T) -> Option<Vec<T>> {
        let taken = self.take(n)?;
        Some(
            taken
                .chunks_exact(4)
                .map(|w| f(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect(),
        )
    }
}

impl Scene {
    /// The scene as words: seed (two words), packing, counts, then each list. A check is four
    /// words: its lane, the key's sample and the earlier invocation's lane; the earlier wave;
    /// its primitive; the key's pixel.
    pub fn encode(&self, seed: u64) -> Vec<u32> {
        let mut w = vec![
            seed as u32,
            (seed >> 32) as u32,
            packing_word(self.packing),
            self.packer.len() as u32,
            self.lane_prim.len() as u32,
            self.before.len() as u32,
            self.covered.len() as u32,
        ];
        w.extend(self.packer.iter().map(|&p| u32::from(p)));
        w.extend(self.layer_mask.iter().map(|&m| u32::from(m)));
        w.extend(self.exec.iter().flat_map(|&e| [e as u32, (e >> 32) as u32]));
        w.extend(&self.lane_start);
        w.extend(&self.lane_prim);
        w.extend(&self.before_start);
        for &(lane, (x, y, s), e) in &self.before {
            w.push(u32::from(lane) | u32::from(s) << 8 | u32::from(e.lane) << 16);
            w.push(e.wave as u32);
            w.push(e.prim as u32);
            w.push(u32::from(x) | u32::from(y) << 16);
        }
        w.extend(&self.covered_start);
        w.extend(&self.covered);
        w
    }

    /// The scene [`Scene::encode`] wrote, as little-endian bytes; `None` if they are not one.
    pub fn decode(bytes: &[u8]) -> Option<Scene> {
        let mut r = Words { bytes };
        let _seed = (r.next()?, r.next()?);
        let packing = packing_of(r.next()?)?;
        let (waves, lanes, checks, covered) = (
            r.next()? as usize,
            r.next()? as usize,
            r.next()? as usize,
            r.next()? as usize,
        );
        let packer = r.list(waves, |w| w as u8)?;
        let layer_mask = r.list(waves, |w| w as u16)?;
        let halves = r.list(2 * waves, u64::from)?;
        let exec = halves.chunks_exact(2).map(|h| h[0] | h[1] << 32).collect();
        let lane_start = r.list(waves + 1, |w| w)?;
        let lane_prim = r.list(lanes, |w| w)?;
        let before_start = r.list(waves + 1, |w| w)?;
        let raw = r.take(checks.checked_mul(4)?)?;
        let covered_start = r.list(waves + 1, |w| w)?;
        let covered = r.list(covered, |w| w)?;
        let mut scene = Scene {
            packing,
            packer,
            layer_mask,
            exec,
            lane_prim,
            lane_start,
            before: Vec::with_capacity(checks),
            before_start,
            covered,
            covered_start,
        };
        if !scene.is_whole() {
            return None;
        }
        let word = |b: &[u8], k: usize| {
            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        };
        for c in raw.chunks_exact(16) {
            let e = Invocation {
                wave: word(c, 1) as usize,
                lane: (word(c, 0) >> 16) as u8,
                prim: word(c, 2) as usize,
            };
            let (pixel, first) = (word(c, 3), word(c, 0));
            // A wave the scene has, and lanes a wave64 has (lane masks are 64 bits).
            if e.wave >= waves || e.lane >= 64 || first as u8 >= 64 {
                return None;
            }
            let key = (pixel as u16, (pixel >> 16) as u16, (first >> 8) as u8);
            scene.before.push((first as u8, key, e));
        }
        (scene.before_start.last() == Some(&(checks as u32))).then_some(scene)
    }

    /// Every start list ascends to its list's end (the checks' list is filled after), and
    /// every wave an overlap names exists: what the accessors index by.
    fn is_whole(&self) -> bool {
        let fits = |starts: &[u32], len: Option<usize>| {
            starts.len() == self.packer.len() + 1
                && starts.first() == Some(&0)
                && starts.windows(2).all(|p| p[0] <= p[1])
                && len.is_none_or(|len| starts.last().is_some_and(|&l| l as usize == len))
        };
        fits(&self.lane_start, Some(self.lane_prim.len()))
            && fits(&self.before_start, None)
            && fits(&self.covered_start, Some(self.covered.len()))
            && self
                .covered
                .iter()
                .all(|&w| (w as usize) < self.packer.len())
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
        let table = bytes(&encode_fixed());
        for (seed, packing) in fixed_scenes() {
            let packed = pack_fixed(seed, packing);
            assert!(packed.waves() > 0 && !packed.before.is_empty());
            assert_eq!(
                Scene::decode(&bytes(&packed.encode(seed))).as_ref(),
                Some(&packed)
            );
            assert_eq!(find_fixed(&table, seed, packing).as_ref(), Some(&packed));
        }
        let other = verification_packing(Granularity::Pixel, 3);
        assert_eq!(find_fixed(&table, 1, other), None);
        assert_eq!(
            find_fixed(&table, 99, verification_packing(Granularity::Pixel, 1)),
            None
        );
    }

    /// Words that are not a whole scene read as none, never a panic: cut short anywhere, or
    /// with a start list or a wave out of bounds.
    #[test]
    fn damaged_words_are_no_scene() {
        let words = pack_fixed(2, verification_packing(Granularity::Sample, 2)).encode(2);
        for cut in 0..words.len() {
            assert_eq!(Scene::decode(&bytes(&words[..cut])), None, "cut at {cut}");
        }
        let waves = words[3] as usize;
        let lane_start = 7 + 4 * waves;
        for (at, value) in [
            (lane_start + 1, u32::MAX),
            (2, 0b1100),
            (words.len() - 1, 9999),
        ] {
            let mut bad = words.clone();
            bad[at] = value;
            assert_eq!(Scene::decode(&bytes(&bad)), None, "word {at} = {value}");
        }
    }
}
