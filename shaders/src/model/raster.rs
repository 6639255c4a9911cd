//! From primitives to waves: quads in primitive order, packed into waves the way the hardware
//! must pack them for POPS, with the INTRAWAVE_COLLISION layer mask.

// Through the parent module, as `build.rs`, which includes this file, provides it too.
use super::Granularity;

/// A covered pixel of a primitive with its sample coverage mask (bit i: sample i).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub x: u16,
    pub y: u16,
    pub coverage: u8,
}

/// A primitive: the fragments it produces, in rasterization order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Primitive {
    pub fragments: Vec<Fragment>,
}

/// What two invocations must share to overlap: a pixel (sample = `PIXEL`) or one sample of it.
pub type Key = (u16, u16, u8);

/// The sample slot of a pixel-granularity key.
pub const PIXEL: u8 = 0xff;

/// The keys of a stream's screen numbered densely (pixel-major, eight sample slots and the
/// pixel's own), so that the per-key bookkeeping of packing and simulation is an array lookup:
/// the model runs many times per verified shader, and hashing keys was most of its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpace {
    width: usize,
    height: usize,
}

impl KeySpace {
    /// Slots per pixel: samples 0–7 and the whole pixel.
    const SLOTS: usize = 9;

    /// The smallest space holding every fragment of `prims`.
    pub fn of(prims: &[Primitive]) -> KeySpace {
        let (mut width, mut height) = (0, 0);
        for f in prims.iter().flat_map(|p| &p.fragments) {
            width = width.max(usize::from(f.x) + 1);
            height = height.max(usize::from(f.y) + 1);
        }
        KeySpace { width, height }
    }

    pub fn len(&self) -> usize {
        self.width * self.height * Self::SLOTS
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index of a key of a fragment in the space (samples are 0–7 or [`PIXEL`]).
    pub fn index(&self, k: Key) -> usize {
        let slot = if k.2 == PIXEL {
            8
        } else {
            usize::from(k.2 & 7)
        };
        (usize::from(k.1) * self.width + usize::from(k.0)) * Self::SLOTS + slot
    }
}

/// A set of keys of one [`KeySpace`] as bits.
#[derive(Clone, Debug)]
struct KeySet(Vec<u64>);

impl KeySet {
    fn new(space: KeySpace) -> KeySet {
        KeySet(vec![0; space.len().div_ceil(64)])
    }
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self) {
        self.0.iter_mut().for_each(|w| *w = 0);
    }
}

/// The keys of one invocation: its pixel, or its covered samples (at most eight), in place —
/// a stream packs hundreds of invocations, once per scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    len: u8,
    keys: [Key; 8],
}

impl Keys {
    /// The pixel's key, or one per sample of `coverage` (bit i: sample i).
    fn of(x: u16, y: u16, coverage: u8, granularity: Granularity) -> Keys {
        let mut k = Keys {
            len: 0,
            keys: [(0, 0, 0); 8],
        };
        let mut push = |key: Key| {
            k.keys[usize::from(k.len)] = key;
            k.len += 1;
        };
        match granularity {
            Granularity::Sample => (0..8)
                .filter(|s| coverage >> s & 1 == 1)
                .for_each(|s| push((x, y, s))),
            _ => push((x, y, PIXEL)),
        }
        k
    }
}

impl std::ops::Deref for Keys {
    type Target = [Key];
    fn deref(&self) -> &[Key] {
        &self.keys[..usize::from(self.len)]
    }
}

impl<'a> IntoIterator for &'a Keys {
    type Item = &'a Key;
    type IntoIter = std::slice::Iter<'a, Key>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// One fragment shader invocation as placed in a wave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanePlan {
    pub prim: usize,
    pub x: u16,
    pub y: u16,
    pub keys: Keys,
}

/// A wave as the hardware launches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WavePlan {
    pub packer: u8,
    /// Per lane (4 per quad), the invocation, or `None` for an inactive lane.
    pub lanes: Vec<Option<LanePlan>>,
    /// Bit q: quad q starts a new layer of overlapping invocations (INTRAWAVE_COLLISION).
    pub layer_mask: u16,
}

impl WavePlan {
    pub fn exec(&self) -> u64 {
        self.lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_some())
            .fold(0u64, |m, (i, _)| m | 1 << i)
    }
}

/// How quads are packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    pub wave64: bool,
    /// Overlapping quads may share a wave (GFX9–10.3 with INTRAWAVE_COLLISION); otherwise an
    /// overlapping quad starts a new wave ("GFX11 ... overlapping invocations are always placed in
    /// different waves").
    pub intrawave: bool,
    pub granularity: Granularity,
    /// Number of packers; each screen region belongs to one.
    pub packers: u8,
}

/// The packer of a quad: 8×8-pixel tiles distributed over the packers, so that overlapping
/// invocations always share a packer.
pub fn packer_of(qx: u16, qy: u16, packers: u8) -> u8 {
    (((qx / 4) as u32 + (qy / 4) as u32) % packers.max(1) as u32) as u8
}

struct Open {
    quads: Vec<[Option<LanePlan>; 4]>,
    all: KeySet,
    layer: KeySet,
    layer_mask: u16,
}

impl Open {
    fn new(space: KeySpace, quads_per_wave: usize) -> Open {
        Open {
            quads: Vec::with_capacity(quads_per_wave),
            all: KeySet::new(space),
            layer: KeySet::new(space),
            layer_mask: 0,
        }
    }
}

fn close(open: &mut Open, packer: u8, out: &mut Vec<WavePlan>) {
    if open.quads.is_empty() {
        return;
    }
    let capacity = open.quads.capacity();
    let quads = std::mem::replace(&mut open.quads, Vec::with_capacity(capacity));
    out.push(WavePlan {
        packer,
        lanes: quads.into_iter().flatten().collect(),
        layer_mask: open.layer_mask,
    });
    open.all.clear();
    open.layer.clear();
    open.layer_mask = 0;
}

/// The quads a primitive covers in first-appearance order, with each pixel's coverage (duplicate
/// pixels merge their coverage).
fn quads_of(prim: &Primitive) -> Vec<((u16, u16), [u8; 4])> {
    let mut quads: Vec<((u16, u16), [u8; 4])> = Vec::with_capacity(prim.fragments.len());
    for f in prim.fragments.iter().filter(|f| f.coverage != 0) {
        let q = (f.x / 2, f.y / 2);
        // Fragments come in rasterization order: the quad is almost always the last or near it.
        let k = match quads.iter().rposition(|(at, _)| *at == q) {
            Some(k) => k,
            None => {
                quads.push((q, [0; 4]));
                quads.len() - 1
            }
        };
        quads[k].1[((f.x & 1) + 2 * (f.y & 1)) as usize] |= f.coverage;
    }
    quads
}

/// The lanes of a quad with the coverage `cov` of its pixels.
fn quad_lanes(
    prim: usize,
    (qx, qy): (u16, u16),
    cov: [u8; 4],
    granularity: Granularity,
) -> [Option<LanePlan>; 4] {
    let mut lanes: [Option<LanePlan>; 4] = Default::default();
    for (i, &c) in cov.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let x = qx * 2 + (i as u16 & 1);
        let y = qy * 2 + (i as u16 >> 1);
        lanes[i] = Some(LanePlan {
            prim,
            x,
            y,
            keys: Keys::of(x, y, c, granularity),
        });
    }
    lanes
}

/// Packs the quads of `prims` into waves in launch order.
pub fn pack_waves(prims: &[Primitive], p: Packing) -> Vec<WavePlan> {
    let quads_per_wave = if p.wave64 { 16 } else { 8 };
    let space = KeySpace::of(prims);
    let mut open: Vec<Open> = (0..p.packers.max(1))
        .map(|_| Open::new(space, quads_per_wave))
        .collect();
    let mut out = Vec::new();
    let mut keys: Vec<usize> = Vec::new();
    for (pi, prim) in prims.iter().enumerate() {
        for (q, cov) in quads_of(prim) {
            let lanes = quad_lanes(pi, q, cov, p.granularity);
            keys.clear();
            keys.extend(
                lanes
                    .iter()
                    .flatten()
                    .flat_map(|l| l.keys.iter().map(|&k| space.index(k))),
            );
            let packer = packer_of(q.0, q.1, p.packers);
            let o = &mut open[packer as usize];
            let overlaps_wave = keys.iter().any(|&k| o.all.contains(k));
            if (overlaps_wave && !p.intrawave) || o.quads.len() == quads_per_wave {
                close(o, packer, &mut out);
            }
            if keys.iter().any(|&k| o.layer.contains(k)) {
                // This quad overlaps the current layer: it starts the next one.
                o.layer_mask |= 1 << o.quads.len();
                o.layer.clear();
            }
            for &k in &keys {
                o.all.insert(k);
                o.layer.insert(k);
            }
            o.quads.push(lanes);
        }
    }
    for (packer, o) in open.iter_mut().enumerate() {
        close(o, packer as u8, &mut out);
    }
    out
}

/// The shape of a generated workload (for property tests and benchmarks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamShape {
    pub primitives: usize,
    /// Screen size in pixels; small screens make primitives overlap a lot.
    pub width: u16,
    pub height: u16,
    /// Largest primitive side in pixels.
    pub max_side: u16,
    /// Samples per pixel (1–8); coverage masks are random non-empty subsets.
    pub samples: u8,
}

/// SplitMix64: a tiny deterministic generator, so that a seed names a whole run.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// SplitMix64's step: the state advances by this constant per draw.
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        Self::mix(self.0)
    }

    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// What the `k`-th next draw (from 0) will be, drawing nothing: SplitMix64's state is a
    /// counter, so a run can take the few draws it reads out of many it must skip.
    pub fn peek(&self, k: u64) -> u64 {
        Self::mix(
            self.0
                .wrapping_add(Self::GAMMA.wrapping_mul(k.wrapping_add(1))),
        )
    }

    /// As if `n` draws were made.
    pub fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(Self::GAMMA.wrapping_mul(n));
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Random axis-aligned rectangles with random per-pixel sample coverage.
pub fn generate_stream(seed: u64, s: StreamShape) -> Vec<Primitive> {
    let mut rng = Rng(seed);
    let samples = s.samples.clamp(1, 8);
    let full: u16 = (1u16 << samples) - 1;
    (0..s.primitives)
        .map(|_| {
            let w = 1 + rng.below(s.max_side.max(1) as u64) as u16;
            let h = 1 + rng.below(s.max_side.max(1) as u64) as u16;
            let x0 = rng.below(s.width.saturating_sub(w).max(1) as u64) as u16;
            let y0 = rng.below(s.height.saturating_sub(h).max(1) as u64) as u16;
            let mut fragments = Vec::new();
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    let coverage = if samples == 1 {
                        1
                    } else {
                        (1 + rng.below(full as u64)) as u8
                    };
                    fragments.push(Fragment { x, y, coverage });
                }
            }
            Primitive { fragments }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(x: u16, y: u16) -> Fragment {
        Fragment { x, y, coverage: 1 }
    }

    fn packing(intrawave: bool) -> Packing {
        Packing {
            wave64: true,
            intrawave,
            granularity: Granularity::Pixel,
            packers: 1,
        }
    }

    /// "GFX11 removes this concept entirely, instead overlapping invocations are always placed in
    /// different waves."
    #[test]
    fn without_intrawave_an_overlapping_quad_starts_a_new_wave() {
        let prims = vec![
            Primitive {
                fragments: vec![frag(0, 0), frag(2, 0)],
            },
            Primitive {
                fragments: vec![frag(0, 0)],
            },
        ];
        let w = pack_waves(&prims, packing(false));
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].exec(), 0b1_0001);
        let w = pack_waves(&prims, packing(true));
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].layer_mask, 0b100, "quad 2 starts the second layer");
    }

    /// Peeking at a later draw and skipping draws give what drawing one by one gives.
    #[test]
    fn a_draw_can_be_peeked_at_and_draws_skipped() {
        for seed in [0, 1, 0x005e_ed0f_9095, u64::MAX] {
            let mut one_by_one = Rng(seed);
            let ahead = Rng(seed);
            let draws: Vec<u64> = (0..200).map(|_| one_by_one.next_u64()).collect();
            for (k, &d) in draws.iter().enumerate() {
                assert_eq!(ahead.peek(k as u64), d, "seed {seed}, draw {k}");
            }
            let mut skipped = Rng(seed);
            skipped.skip(200);
            assert_eq!(skipped.next_u64(), one_by_one.next_u64(), "seed {seed}");
        }
    }

    #[test]
    fn sample_granularity_only_overlaps_on_common_samples() {
        let prims = vec![
            Primitive {
                fragments: vec![Fragment {
                    x: 0,
                    y: 0,
                    coverage: 0b01,
                }],
            },
            Primitive {
                fragments: vec![Fragment {
                    x: 0,
                    y: 0,
                    coverage: 0b10,
                }],
            },
        ];
        let mut p = packing(false);
        p.granularity = Granularity::Sample;
        assert_eq!(pack_waves(&prims, p).len(), 1);
        p.granularity = Granularity::Pixel;
        assert_eq!(pack_waves(&prims, p).len(), 2);
    }
}
