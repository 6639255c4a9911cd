//! The CPU reference: exact coverage at the standard sample positions, every sample's fragments
//! sorted by depth and blended front to back over the background, samples averaged.
//!
//! The GPU algorithms keep only the `OIT_LAYERS` frontmost fragments of a unit sorted; what does
//! not fit (the tail) is blended behind them in an order the algorithm does not sort. For each
//! pixel the reference therefore also computes how far the GPU may legitimately differ: nothing
//! beyond rounding where no unit overflows, and at most the transmittance left after the kept
//! layers (times 255) where one does, since the tail can only change what shows through them.

use crate::config::{Aa, OIT_LAYERS};
use crate::scene::{sample_pattern, Scene, SUBPIXEL};

/// Allowed difference per channel, in 8-bit levels, where no unit overflows: one level for the
/// final rounding to 8 bits (GPU and CPU sum in different orders), one for the RGBA16F tail
/// attachment the interlock algorithm blends the background and tail into.
pub const ROUNDING_LEVELS: f64 = 2.0;

/// Allowed mean absolute difference over all channels of the image, in 8-bit levels: rounding
/// alone gives about 0.25; the rest leaves room for the tail pixels' (bounded) differences.
pub const MEAN_LEVELS: f64 = 1.0;

/// The background the transparent triangles are blended over (opaque, linear RGBA).
pub const BACKGROUND: [f32; 4] = [0.1, 0.1, 0.12, 1.0];

pub struct Reference {
    pub width: u32,
    /// RGBA8 per pixel.
    pub image: Vec<u8>,
    /// Allowed difference per pixel (all channels), in 8-bit levels.
    pub allowed: Vec<f32>,
    /// Fragments the rasterizer generates (per unit: per pixel, or per sample with sample shading).
    pub fragments: u64,
    /// Pixels where some unit holds more than `OIT_LAYERS` fragments.
    pub tail_pixels: u64,
    pub max_depth_complexity: u32,
}

fn premultiplied(c: [u8; 4]) -> [f64; 4] {
    let a = c[3] as f64 / 255.0;
    [
        c[0] as f64 / 255.0 * a,
        c[1] as f64 / 255.0 * a,
        c[2] as f64 / 255.0 * a,
        a,
    ]
}

fn under(acc: &mut [f64; 4], c: [f64; 4]) {
    let t = 1.0 - acc[3];
    for i in 0..4 {
        acc[i] += t * c[i];
    }
}

/// Per pixel, the triangles covering at least one sample and their coverage masks (CSR).
struct Coverage {
    start: Vec<u32>,
    tri: Vec<u32>,
    mask: Vec<u8>,
}

fn rasterize(scene: &Scene, samples: u32) -> Coverage {
    let (w, h) = (scene.width as usize, scene.height as usize);
    let pattern = sample_pattern(samples);
    let mut per_pixel: Vec<Vec<(u32, u8)>> = vec![Vec::new(); w * h];
    for (ti, t) in scene.triangles.iter().enumerate() {
        let v = t.v;
        let ccw = crate::scene::area2(&v) > 0;
        let min_x = v.iter().map(|p| p[0]).min().unwrap_or(0) / SUBPIXEL;
        let max_x = (v.iter().map(|p| p[0]).max().unwrap_or(0) / SUBPIXEL).min(w as i64 - 1);
        let min_y = v.iter().map(|p| p[1]).min().unwrap_or(0) / SUBPIXEL;
        let max_y = (v.iter().map(|p| p[1]).max().unwrap_or(0) / SUBPIXEL).min(h as i64 - 1);
        for py in min_y.max(0)..=max_y {
            for px in min_x.max(0)..=max_x {
                let mut mask = 0u8;
                for (s, &(ox, oy)) in pattern.iter().enumerate() {
                    let p = [px * SUBPIXEL + ox * 16, py * SUBPIXEL + oy * 16];
                    let inside = (0..3).all(|e| {
                        let (a, b) = (v[e], v[(e + 1) % 3]);
                        let ev = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
                        if ccw {
                            ev > 0
                        } else {
                            ev < 0
                        }
                    });
                    if inside {
                        mask |= 1 << s;
                    }
                }
                if mask != 0 {
                    per_pixel[py as usize * w + px as usize].push((ti as u32, mask));
                }
            }
        }
    }
    let mut cov = Coverage {
        start: Vec::with_capacity(w * h + 1),
        tri: Vec::new(),
        mask: Vec::new(),
    };
    for list in per_pixel {
        cov.start.push(cov.tri.len() as u32);
        for (t, m) in list {
            cov.tri.push(t);
            cov.mask.push(m);
        }
    }
    cov.start.push(cov.tri.len() as u32);
    cov
}

/// Transmittance left after blending `frags` (premultiplied alpha only).
fn transmittance<'a>(frags: impl Iterator<Item = &'a [f64; 4]>) -> f64 {
    frags.fold(1.0, |t, c| t * (1.0 - c[3]))
}

pub fn render(scene: &Scene, aa: Aa) -> Reference {
    let samples = aa.samples();
    let cov = rasterize(scene, samples);
    let (w, h) = (scene.width as usize, scene.height as usize);
    let bg = BACKGROUND.map(|c| c as f64);
    let colors: Vec<[f64; 4]> = scene
        .triangles
        .iter()
        .map(|t| premultiplied(t.color))
        .collect();
    let mut image = vec![0u8; w * h * 4];
    let mut allowed = vec![0f32; w * h];
    let (mut fragments, mut tail_pixels, mut max_dc) = (0u64, 0u64, 0u32);
    let mut list: Vec<(f32, u32, u8)> = Vec::new();
    for pix in 0..w * h {
        let (a, b) = (cov.start[pix] as usize, cov.start[pix + 1] as usize);
        list.clear();
        for i in a..b {
            let t = cov.tri[i];
            list.push((scene.triangles[t as usize].depth, t, cov.mask[i]));
        }
        list.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut sum = [0f64; 4];
        for s in 0..samples {
            let mut acc = [0f64; 4];
            for &(_, t, m) in &list {
                if m & (1 << s) != 0 {
                    under(&mut acc, colors[t as usize]);
                }
            }
            under(&mut acc, bg);
            for i in 0..4 {
                sum[i] += acc[i];
            }
        }
        // Bound for units that overflow.
        let mut bound = 0f64;
        if aa.per_sample() || samples == 1 {
            for s in 0..samples {
                let unit: Vec<&[f64; 4]> = list
                    .iter()
                    .filter(|f| f.2 & (1 << s) != 0)
                    .map(|f| &colors[f.1 as usize])
                    .collect();
                fragments += unit.len() as u64;
                max_dc = max_dc.max(unit.len() as u32);
                if unit.len() > OIT_LAYERS {
                    bound = bound.max(transmittance(unit.into_iter().take(OIT_LAYERS)));
                }
            }
        } else {
            fragments += list.len() as u64;
            max_dc = max_dc.max(list.len() as u32);
            if list.len() > OIT_LAYERS {
                let kept = &list[..OIT_LAYERS];
                for s in 0..samples {
                    let t = transmittance(
                        kept.iter()
                            .filter(|f| f.2 & (1 << s) != 0)
                            .map(|f| &colors[f.1 as usize]),
                    );
                    bound = bound.max(t);
                }
            }
        }
        if bound > 0.0 {
            tail_pixels += 1;
        }
        allowed[pix] = (ROUNDING_LEVELS + 255.0 * bound) as f32;
        for i in 0..4 {
            let v = sum[i] / samples as f64;
            image[pix * 4 + i] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    }
    Reference {
        width: scene.width,
        image,
        allowed,
        fragments,
        tail_pixels,
        max_depth_complexity: max_dc,
    }
}

/// How a rendered image compares with the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub max_abs: u8,
    pub mean_abs: f64,
    /// Pixels where some channel differs by more than that pixel's allowance.
    pub violations: u64,
    /// The first such pixel.
    pub first_violation: Option<(u32, u32)>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.violations == 0 && self.mean_abs <= MEAN_LEVELS
    }
}

pub fn compare(reference: &Reference, rgba: &[u8]) -> Comparison {
    let mut max_abs = 0u8;
    let mut total = 0u64;
    let mut violations = 0u64;
    let mut first = None;
    for (pix, (r, g)) in reference
        .image
        .chunks_exact(4)
        .zip(rgba.chunks_exact(4))
        .enumerate()
    {
        let mut worst = 0u8;
        for i in 0..4 {
            let d = r[i].abs_diff(g[i]);
            worst = worst.max(d);
            total += d as u64;
        }
        max_abs = max_abs.max(worst);
        if worst as f32 > reference.allowed[pix] {
            violations += 1;
            if first.is_none() {
                let w = reference.width as usize;
                first = Some(((pix % w) as u32, (pix / w) as u32));
            }
        }
    }
    let n = (reference.image.len()).max(1) as f64;
    Comparison {
        max_abs,
        mean_abs: total as f64 / n,
        violations,
        first_violation: first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Scene, Triangle};

    fn one_triangle(color: [u8; 4]) -> Scene {
        Scene {
            width: 8,
            height: 8,
            triangles: vec![Triangle {
                // A right triangle over the upper-left half: pixels on both sides of its
                // hypotenuse x + y = 8 are checked.
                v: [[1, 1], [8 * 256 - 1, 1], [1, 8 * 256 - 1]],
                depth: 0.5,
                color,
            }],
        }
    }

    #[test]
    fn single_opaque_triangle_replaces_background() {
        let s = one_triangle([255, 0, 0, 255]);
        let r = render(&s, Aa::Single);
        assert_eq!(&r.image[0..4], &[255, 0, 0, 255]);
        // Pixel (7,7) lies beyond the hypotenuse: background.
        let p = (7 * 8 + 7) * 4;
        assert_eq!(&r.image[p..p + 4], &[26, 26, 31, 255]);
        assert_eq!(r.tail_pixels, 0);
    }

    #[test]
    fn msaa_edge_pixel_averages_its_samples() {
        let s = one_triangle([255, 255, 255, 255]);
        let r = render(&s, Aa::Msaa4);
        // Pixel (3,4) straddles the hypotenuse x + y = 8: some, not all, samples covered.
        let p = (4 * 8 + 3) * 4;
        assert!(
            r.image[p] > 26 && r.image[p] < 255,
            "{:?}",
            &r.image[p..p + 4]
        );
    }

    #[test]
    fn sorted_blending_ignores_submission_order() {
        let mut s = Scene::generate(32, 32, 40, 5);
        let a = render(&s, Aa::Msaa4).image;
        s.triangles.reverse();
        assert_eq!(a, render(&s, Aa::Msaa4).image);
    }

    #[test]
    fn allowance_grows_only_where_units_overflow() {
        let s = Scene::generate(64, 64, 400, 9);
        let r = render(&s, Aa::Single);
        assert!(r.tail_pixels > 0, "the scene must exercise tail blending");
        let loose = r
            .allowed
            .iter()
            .filter(|&&a| a > ROUNDING_LEVELS as f32)
            .count();
        assert_eq!(loose as u64, r.tail_pixels);
    }

    #[test]
    fn comparison_flags_a_changed_pixel() {
        let s = Scene::generate(16, 16, 10, 2);
        let r = render(&s, Aa::Single);
        let mut img = r.image.clone();
        assert!(compare(&r, &img).passed());
        img[0] = img[0].wrapping_add(100);
        let c = compare(&r, &img);
        assert_eq!(c.violations, 1);
        assert_eq!(c.first_violation, Some((0, 0)));
    }
}
