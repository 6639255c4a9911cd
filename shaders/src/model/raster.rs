//! From primitives to waves: quads in primitive order, packed into waves the way the hardware
//! must pack them for POPS, with the INTRAWAVE_COLLISION layer mask.

use pm4::Granularity;
use std::collections::{HashMap, HashSet};

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

/// One fragment shader invocation as placed in a wave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanePlan {
    pub prim: usize,
    pub x: u16,
    pub y: u16,
    pub keys: Vec<Key>,
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
    all: HashSet<Key>,
    layer: HashSet<Key>,
    layer_mask: u16,
}

impl Open {
    fn new() -> Open {
        Open {
            quads: Vec::new(),
            all: HashSet::new(),
            layer: HashSet::new(),
            layer_mask: 0,
        }
    }
}

fn close(open: &mut Open, packer: u8, out: &mut Vec<WavePlan>) {
    if open.quads.is_empty() {
        return;
    }
    let quads = std::mem::take(&mut open.quads);
    out.push(WavePlan {
        packer,
        lanes: quads.into_iter().flatten().collect(),
        layer_mask: open.layer_mask,
    });
    *open = Open::new();
}

/// Packs the quads of `prims` into waves in launch order.
pub fn pack_waves(prims: &[Primitive], p: Packing) -> Vec<WavePlan> {
    let quads_per_wave = if p.wave64 { 16 } else { 8 };
    let mut open: Vec<Open> = (0..p.packers.max(1)).map(|_| Open::new()).collect();
    let mut out = Vec::new();
    for (pi, prim) in prims.iter().enumerate() {
        // Quads of this primitive in first-appearance order; duplicate pixels merge coverage.
        let mut order: Vec<(u16, u16)> = Vec::new();
        let mut quads: HashMap<(u16, u16), [u8; 4]> = HashMap::new();
        for f in prim.fragments.iter().filter(|f| f.coverage != 0) {
            let q = (f.x / 2, f.y / 2);
            let e = quads.entry(q).or_insert_with(|| {
                order.push(q);
                [0; 4]
            });
            e[((f.x & 1) + 2 * (f.y & 1)) as usize] |= f.coverage;
        }
        for (qx, qy) in order {
            let cov = quads[&(qx, qy)];
            let mut lanes: [Option<LanePlan>; 4] = Default::default();
            let mut keys = HashSet::new();
            for (i, &c) in cov.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let x = qx * 2 + (i as u16 & 1);
                let y = qy * 2 + (i as u16 >> 1);
                let lane_keys: Vec<Key> = match p.granularity {
                    Granularity::Sample => (0..8)
                        .filter(|s| c >> s & 1 == 1)
                        .map(|s| (x, y, s))
                        .collect(),
                    _ => vec![(x, y, PIXEL)],
                };
                keys.extend(lane_keys.iter().copied());
                lanes[i] = Some(LanePlan {
                    prim: pi,
                    x,
                    y,
                    keys: lane_keys,
                });
            }
            let packer = packer_of(qx, qy, p.packers);
            let o = &mut open[packer as usize];
            let overlaps_wave = !o.all.is_disjoint(&keys);
            if (overlaps_wave && !p.intrawave) || o.quads.len() == quads_per_wave {
                close(o, packer, &mut out);
            }
            if !o.layer.is_disjoint(&keys) {
                // This quad overlaps the current layer: it starts the next one.
                o.layer_mask |= 1 << o.quads.len();
                o.layer.clear();
            }
            o.all.extend(keys.iter().copied());
            o.layer.extend(keys);
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
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
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
