//! The variants of `pops selftest --draw`: interlock mode × sample count, the POPS-disabled
//! control run, and the article's unresearched experiment switches.

use pm4::{Granularity, InterlockMode, Ordering};
use std::fmt;

/// Out-of-order rasterization for the draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OutOfOrder {
    /// What `pm4::pops` decides (never for ordered interlock).
    #[default]
    Auto,
    /// PA_SC_MODE_CNTL_1.OUT_OF_ORDER_PRIMITIVE_ENABLE forced on (experiment).
    On,
    /// Forced off.
    Off,
}

/// The experiment switches of one variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Switches {
    /// DB_SHADER_CONTROL.EXEC_IF_OVERLAPPED (GFX9–10.3).
    pub exec_if_overlapped: bool,
    /// PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE = BIN_MAP_MODE_POPS (GFX10+).
    pub bin_map_mode_pops: bool,
    /// DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP forced (GFX9–10.3).
    pub force_drain: bool,
    pub out_of_order: OutOfOrder,
}

impl Switches {
    fn suffix(&self) -> String {
        let mut s = String::new();
        if self.exec_if_overlapped {
            s.push_str("+exec-if-overlapped");
        }
        if self.bin_map_mode_pops {
            s.push_str("+bin-map-pops");
        }
        if self.force_drain {
            s.push_str("+drain");
        }
        match self.out_of_order {
            OutOfOrder::Auto => {}
            OutOfOrder::On => s.push_str("+ooo"),
            OutOfOrder::Off => s.push_str("+no-ooo"),
        }
        s
    }
}

/// One draw configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// `None`: the control run with POPS disabled (and no ordered section in the shader).
    pub interlock: Option<InterlockMode>,
    /// Rasterization samples: 1, 4 or 8.
    pub samples: u32,
    pub switches: Switches,
}

impl Variant {
    pub const fn new(interlock: Option<InterlockMode>, samples: u32) -> Variant {
        Variant {
            interlock,
            samples,
            switches: Switches {
                exec_if_overlapped: false,
                bin_map_mode_pops: false,
                force_drain: false,
                out_of_order: OutOfOrder::Auto,
            },
        }
    }

    /// `pixel-ordered-4x`, `control-1x`, `pixel-ordered-1x+ooo`, …
    pub fn name(&self) -> String {
        let base = self.interlock.map_or("control", |m| m.name());
        format!("{base}-{}x{}", self.samples, self.switches.suffix())
    }

    /// Sample interlock runs the pixel shader per sample, one storage slot per sample.
    pub fn per_sample(&self) -> bool {
        matches!(self.interlock, Some(m) if m.granularity == Granularity::Sample)
    }

    /// The result must be in primitive order (ordered interlock).
    pub fn expects_order(&self) -> bool {
        matches!(self.interlock, Some(m) if m.ordering == Ordering::Ordered)
    }

    /// Colour goes to the 32x32 single-sample target; MSAA draws export to MRT0 with no target
    /// bound (the null export the article allows).
    pub fn color_target(&self) -> bool {
        self.samples == 1
    }

    /// Slots in the storage buffer: pixels, times samples with sample interlock.
    pub fn slots(&self) -> u32 {
        crate::shader::WIDTH
            * crate::shader::HEIGHT
            * if self.per_sample() { self.samples } else { 1 }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

const PIXEL_ORDERED: InterlockMode = InterlockMode::new(Granularity::Pixel, Ordering::Ordered);
const PIXEL_UNORDERED: InterlockMode = InterlockMode::new(Granularity::Pixel, Ordering::Unordered);
const SAMPLE_ORDERED: InterlockMode = InterlockMode::new(Granularity::Sample, Ordering::Ordered);
const SAMPLE_UNORDERED: InterlockMode =
    InterlockMode::new(Granularity::Sample, Ordering::Unordered);

/// The standard plan: pixel interlock at 1x, 4x, 8x; sample interlock at 4x, 8x; ordered and
/// unordered; the control run; and each experiment switch on pixel-ordered 1x (forced drain and
/// out-of-order rasterization also at 8x, where the VEGA10/RAVEN workaround matters).
pub fn standard() -> Vec<Variant> {
    let mut v = Vec::new();
    for mode in [PIXEL_ORDERED, PIXEL_UNORDERED] {
        for s in [1, 4, 8] {
            v.push(Variant::new(Some(mode), s));
        }
    }
    for mode in [SAMPLE_ORDERED, SAMPLE_UNORDERED] {
        for s in [4, 8] {
            v.push(Variant::new(Some(mode), s));
        }
    }
    v.push(Variant::new(None, 1));
    let with = |mode, s, f: fn(&mut Switches)| {
        let mut x = Variant::new(Some(mode), s);
        f(&mut x.switches);
        x
    };
    v.push(with(PIXEL_ORDERED, 1, |s| s.exec_if_overlapped = true));
    v.push(with(PIXEL_ORDERED, 1, |s| s.bin_map_mode_pops = true));
    v.push(with(PIXEL_ORDERED, 1, |s| s.force_drain = true));
    v.push(with(PIXEL_ORDERED, 8, |s| s.force_drain = true));
    v.push(with(PIXEL_ORDERED, 1, |s| s.out_of_order = OutOfOrder::On));
    v.push(with(PIXEL_ORDERED, 1, |s| s.out_of_order = OutOfOrder::Off));
    v.push(with(SAMPLE_ORDERED, 8, |s| s.out_of_order = OutOfOrder::On));
    v
}

/// Variants whose name starts with `filter` (`pixel-ordered`, `control`, `sample-ordered-8x`).
pub fn select(filter: &str) -> Vec<Variant> {
    standard()
        .into_iter()
        .filter(|v| v.name().starts_with(filter))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_plan_covers_the_issue() {
        let all = standard();
        let mut names: Vec<String> = all.iter().map(|v| v.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for want in [
            "pixel-ordered-1x",
            "pixel-ordered-4x",
            "pixel-ordered-8x",
            "sample-ordered-4x",
            "sample-ordered-8x",
            "pixel-unordered-1x",
            "sample-unordered-8x",
            "control-1x",
            "pixel-ordered-1x+exec-if-overlapped",
            "pixel-ordered-1x+bin-map-pops",
            "pixel-ordered-1x+drain",
            "pixel-ordered-1x+ooo",
            "pixel-ordered-1x+no-ooo",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} missing");
        }
        assert_eq!(select("control").len(), 1);
        assert!(select("nothing").is_empty());
    }

    #[test]
    fn slots_follow_the_granularity() {
        assert_eq!(Variant::new(Some(PIXEL_ORDERED), 8).slots(), 1024);
        assert_eq!(Variant::new(Some(SAMPLE_ORDERED), 8).slots(), 8192);
    }
}
