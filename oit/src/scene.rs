//! The scene: camera-facing transparent triangles at distinct depths, from a seed.
//!
//! Vertices lie on the 1/256-pixel grid (8 subpixel bits, the precision every Vulkan
//! rasterizer this runs on snaps to), so the GPU sees exactly the triangles the CPU reference
//! rasterizes. A triangle whose edge would pass exactly through a sample position of any of
//! the standard 1×, 4× or 8× patterns is redrawn, so no coverage decision depends on a
//! rasterizer's tie-breaking rule.

/// Subpixel units per pixel.
pub const SUBPIXEL: i64 = 256;

/// Standard sample locations (Vulkan spec, "Multisampling"), in 1/16 pixel.
pub const SAMPLES_1: [(i64, i64); 1] = [(8, 8)];
pub const SAMPLES_4: [(i64, i64); 4] = [(6, 2), (14, 6), (2, 10), (10, 14)];
pub const SAMPLES_8: [(i64, i64); 8] = [
    (9, 5),
    (7, 11),
    (13, 9),
    (5, 3),
    (3, 13),
    (1, 7),
    (11, 15),
    (15, 1),
];

pub fn sample_pattern(samples: u32) -> &'static [(i64, i64)] {
    match samples {
        1 => &SAMPLES_1,
        4 => &SAMPLES_4,
        _ => &SAMPLES_8,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Vertices in 1/256 pixel, inside the image.
    pub v: [[i64; 2]; 3],
    /// Window depth in (0, 1), distinct per triangle.
    pub depth: f32,
    /// RGBA8, not premultiplied.
    pub color: [u8; 4],
}

#[derive(Clone, Debug)]
pub struct Scene {
    pub width: u32,
    pub height: u32,
    pub triangles: Vec<Triangle>,
}

/// SplitMix64: a tiny, well-known generator, so the scene is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo).max(1) as u64) as i64
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Whether the line through `a` and `b` meets a sample position (pixel corner + offset) anywhere.
///
/// Points p = 256·(X, Y) + o with o the offset; E(p) = dx·(py − ay) − dy·(px − ax) = 0 becomes
/// 256·(dx·Y − dy·X) = dy·(ox − ax) − dx·(oy − ay), solvable in integers X, Y exactly when the
/// right side is a multiple of 256·gcd(dx, dy). Conservative: ignores the segment's extent.
fn edge_meets_sample(a: [i64; 2], b: [i64; 2], offset: (i64, i64)) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let (ox, oy) = (offset.0 * SUBPIXEL / 16, offset.1 * SUBPIXEL / 16);
    let c = dy * (ox - a[0]) - dx * (oy - a[1]);
    let g = gcd(dx, dy);
    if g == 0 {
        return true;
    }
    c % (SUBPIXEL * g) == 0
}

fn has_tie(v: &[[i64; 2]; 3]) -> bool {
    let all = SAMPLES_1
        .iter()
        .chain(SAMPLES_4.iter())
        .chain(SAMPLES_8.iter());
    for &o in all {
        for e in 0..3 {
            if edge_meets_sample(v[e], v[(e + 1) % 3], o) {
                return true;
            }
        }
    }
    false
}

/// Twice the signed area, in subpixel² units.
pub fn area2(v: &[[i64; 2]; 3]) -> i64 {
    (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0])
}

impl Scene {
    /// `count` triangles; each spans 5–30 % of the smaller image side, so the depth complexity
    /// depends on the count, not on the resolution.
    pub fn generate(width: u32, height: u32, count: u32, seed: u64) -> Scene {
        let mut rng = Rng(seed);
        let (w, h) = (width as i64 * SUBPIXEL, height as i64 * SUBPIXEL);
        let side = width.min(height) as i64 * SUBPIXEL;
        // Distinct depths: a shuffled ramp.
        let mut order: Vec<u32> = (0..count).collect();
        for i in (1..order.len()).rev() {
            let j = rng.range(0, i as i64 + 1) as usize;
            order.swap(i, j);
        }
        let mut triangles = Vec::with_capacity(count as usize);
        for &rank in &order {
            let v = loop {
                let size = rng.range(side / 20, side * 3 / 10).max(4 * SUBPIXEL);
                let cx = rng.range(0, w);
                let cy = rng.range(0, h);
                let mut v = [[0i64; 2]; 3];
                for p in v.iter_mut() {
                    p[0] = (cx + rng.range(-size, size)).clamp(0, w);
                    p[1] = (cy + rng.range(-size, size)).clamp(0, h);
                }
                if area2(&v).abs() >= 8 * SUBPIXEL * SUBPIXEL && !has_tie(&v) {
                    break v;
                }
            };
            let c = rng.next();
            let alpha = 64 + (c >> 24) as u8 % 160; // 0.25 .. 0.88
            triangles.push(Triangle {
                v,
                depth: (rank + 1) as f32 / (count + 2) as f32,
                color: [c as u8, (c >> 8) as u8, (c >> 16) as u8, alpha],
            });
        }
        Scene {
            width,
            height,
            triangles,
        }
    }

    /// The triangle buffer as the vertex shader reads it (`Triangle` in shaders/common.glsl).
    /// Words, not floats: the colour is raw bits and must not pass through a float register.
    pub fn gpu_words(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.triangles.len() * 8);
        for t in &self.triangles {
            // v0.xy v1.xy | v2.xy depth colour: the shader's p01 / p2zc split.
            for p in &t.v {
                out.push((p[0] as f32 / SUBPIXEL as f32).to_bits());
                out.push((p[1] as f32 / SUBPIXEL as f32).to_bits());
            }
            out.push(t.depth.to_bits());
            out.push(u32::from_le_bytes(t.color));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_scene() {
        let a = Scene::generate(64, 48, 50, 7);
        let b = Scene::generate(64, 48, 50, 7);
        assert_eq!(a.triangles, b.triangles);
        assert_ne!(a.triangles, Scene::generate(64, 48, 50, 8).triangles);
    }

    #[test]
    fn depths_distinct_and_vertices_inside() {
        let s = Scene::generate(100, 60, 300, 1);
        let mut d: Vec<u32> = s.triangles.iter().map(|t| t.depth.to_bits()).collect();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 300);
        for t in &s.triangles {
            for p in &t.v {
                assert!((0..=100 * SUBPIXEL).contains(&p[0]));
                assert!((0..=60 * SUBPIXEL).contains(&p[1]));
            }
        }
    }

    #[test]
    fn no_edge_passes_through_a_sample() {
        let s = Scene::generate(40, 30, 100, 3);
        for t in &s.triangles {
            for py in 0..30i64 {
                for px in 0..40i64 {
                    for &(ox, oy) in SAMPLES_1.iter().chain(&SAMPLES_4).chain(&SAMPLES_8) {
                        let p = [px * SUBPIXEL + ox * 16, py * SUBPIXEL + oy * 16];
                        for e in 0..3 {
                            let (a, b) = (t.v[e], t.v[(e + 1) % 3]);
                            let ev = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
                            assert_ne!(ev, 0, "edge through sample at {p:?}");
                        }
                    }
                }
            }
        }
    }
}
