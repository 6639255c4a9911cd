//! What one run renders: the algorithm, the anti-aliasing mode, and whether that pair makes sense.

use pm4::{Granularity, InterlockMode, Ordering};
use std::fmt;

/// Fragments kept, sorted, per A-buffer unit; must match `OIT_LAYERS` in `shaders/common.glsl`.
pub const OIT_LAYERS: usize = 8;

/// An order-independent transparency algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// nvpro's oitInterlock: A-buffer insertion inside the interlock's critical section.
    Interlock(InterlockMode),
    /// Per-unit linked lists built with an atomic counter: needs no interlock.
    LinkedList,
}

impl Algorithm {
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Interlock(InterlockMode::new(Granularity::Pixel, Ordering::Ordered)),
        Algorithm::Interlock(InterlockMode::new(Granularity::Pixel, Ordering::Unordered)),
        Algorithm::Interlock(InterlockMode::new(Granularity::Sample, Ordering::Ordered)),
        Algorithm::Interlock(InterlockMode::new(Granularity::Sample, Ordering::Unordered)),
        Algorithm::LinkedList,
    ];

    pub fn name(self) -> String {
        match self {
            Algorithm::Interlock(m) => format!("interlock-{}", m.name()),
            Algorithm::LinkedList => "linkedlist".to_string(),
        }
    }

    pub fn parse(s: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == s)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Anti-aliasing, named as in nvpro's test script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aa {
    /// One sample per pixel.
    Single,
    /// 4× MSAA, pixel-rate shading: one list per pixel, fragments carry a coverage mask.
    Msaa4,
    /// 8× MSAA, likewise.
    Msaa8,
    /// 4× sample-rate shading: one list per sample.
    Ssaa4,
}

impl Aa {
    pub const ALL: [Aa; 4] = [Aa::Single, Aa::Msaa4, Aa::Msaa8, Aa::Ssaa4];

    pub const fn name(self) -> &'static str {
        match self {
            Aa::Single => "noaa",
            Aa::Msaa4 => "msaa4",
            Aa::Msaa8 => "msaa8",
            Aa::Ssaa4 => "ssaa4",
        }
    }

    pub fn parse(s: &str) -> Option<Aa> {
        Aa::ALL.into_iter().find(|a| a.name() == s)
    }

    pub const fn samples(self) -> u32 {
        match self {
            Aa::Single => 1,
            Aa::Msaa4 | Aa::Ssaa4 => 4,
            Aa::Msaa8 => 8,
        }
    }

    /// Whether the fragment shader runs once per sample, each sample owning its own list.
    pub const fn per_sample(self) -> bool {
        matches!(self, Aa::Ssaa4)
    }
}

/// One cell of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combo {
    pub algorithm: Algorithm,
    pub aa: Aa,
}

impl Combo {
    pub fn name(self) -> String {
        format!("{}_{}", self.algorithm.name(), self.aa.name())
    }

    /// Why the pair is meaningless whatever the device, if it is.
    ///
    /// Sample interlock only excludes invocations that share a sample; with pixel-rate shading and
    /// a list per pixel, two fragments covering different samples of one pixel would update the
    /// same list at once. It is therefore only used with one sample or sample-rate shading, as in
    /// nvpro's sample.
    pub fn not_applicable(self) -> Option<&'static str> {
        match self.algorithm {
            Algorithm::Interlock(m)
                if m.granularity == Granularity::Sample
                    && self.aa.samples() > 1
                    && !self.aa.per_sample() =>
            {
                Some("sample interlock with a per-pixel list races between samples")
            }
            _ => None,
        }
    }

    /// Every meaningful combination, in matrix order.
    pub fn matrix() -> Vec<Combo> {
        let mut v = Vec::new();
        for algorithm in Algorithm::ALL {
            for aa in Aa::ALL {
                let c = Combo { algorithm, aa };
                if c.not_applicable().is_none() {
                    v.push(c);
                }
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::parse(&a.name()), Some(a));
        }
        for a in Aa::ALL {
            assert_eq!(Aa::parse(a.name()), Some(a));
        }
    }

    #[test]
    fn matrix_leaves_out_sample_interlock_with_pixel_lists() {
        let m = Combo::matrix();
        assert_eq!(m.len(), 4 + 4 + 2 + 2 + 4);
        assert!(!m
            .iter()
            .any(|c| matches!(c.algorithm, Algorithm::Interlock(i) if i.granularity == Granularity::Sample)
                && c.aa == Aa::Msaa4));
    }
}
