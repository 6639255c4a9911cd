//! The interlock a fragment shader declares (VK_EXT_fragment_shader_interlock execution modes),
//! named as `pops state`, `pops inspect` and the layer's report spell it.

use std::fmt;
use std::str::FromStr;

/// Which invocations are considered overlapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// Invocations covering the same pixel (PixelInterlock*EXT).
    Pixel,
    /// Invocations with a common sample (SampleInterlock*EXT).
    Sample,
    /// Invocations covering the same coarse fragment (ShadingRateInterlock*EXT); AMD cannot
    /// provide it, see the article's VRS section.
    ShadingRate,
}

/// Whether the critical sections of overlapping invocations run in primitive order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordering {
    Ordered,
    Unordered,
}

/// A declared interlock: granularity × ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InterlockMode {
    pub granularity: Granularity,
    pub ordering: Ordering,
}

impl InterlockMode {
    pub const ALL: [InterlockMode; 6] = [
        InterlockMode::new(Granularity::Pixel, Ordering::Ordered),
        InterlockMode::new(Granularity::Pixel, Ordering::Unordered),
        InterlockMode::new(Granularity::Sample, Ordering::Ordered),
        InterlockMode::new(Granularity::Sample, Ordering::Unordered),
        InterlockMode::new(Granularity::ShadingRate, Ordering::Ordered),
        InterlockMode::new(Granularity::ShadingRate, Ordering::Unordered),
    ];

    pub const fn new(granularity: Granularity, ordering: Ordering) -> Self {
        InterlockMode {
            granularity,
            ordering,
        }
    }

    /// `pixel-ordered`, `sample-unordered`, `shading-rate-ordered`, …
    pub const fn name(self) -> &'static str {
        use Granularity::*;
        use Ordering::*;
        match (self.granularity, self.ordering) {
            (Pixel, Ordered) => "pixel-ordered",
            (Pixel, Unordered) => "pixel-unordered",
            (Sample, Ordered) => "sample-ordered",
            (Sample, Unordered) => "sample-unordered",
            (ShadingRate, Ordered) => "shading-rate-ordered",
            (ShadingRate, Unordered) => "shading-rate-unordered",
        }
    }

    /// The SPIR-V execution mode (ExecutionMode operand value, SPV_EXT_fragment_shader_interlock).
    pub const fn spirv_execution_mode(self) -> u32 {
        use Granularity::*;
        use Ordering::*;
        match (self.granularity, self.ordering) {
            (Pixel, Ordered) => 5366,
            (Pixel, Unordered) => 5367,
            (Sample, Ordered) => 5368,
            (Sample, Unordered) => 5369,
            (ShadingRate, Ordered) => 5370,
            (ShadingRate, Unordered) => 5371,
        }
    }

    pub fn from_spirv_execution_mode(mode: u32) -> Option<InterlockMode> {
        InterlockMode::ALL
            .into_iter()
            .find(|m| m.spirv_execution_mode() == mode)
    }
}

/// A name that is not one of the six modes (or `none`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown interlock mode '{0}': expected none, pixel-ordered, pixel-unordered, sample-ordered, sample-unordered, shading-rate-ordered or shading-rate-unordered")]
pub struct UnknownInterlockMode(pub String);

impl InterlockMode {
    /// Parses a mode name; `none` gives `Ok(None)`.
    pub fn parse_optional(s: &str) -> Result<Option<InterlockMode>, UnknownInterlockMode> {
        let t = s.trim().to_ascii_lowercase();
        if t == "none" {
            return Ok(None);
        }
        InterlockMode::ALL
            .into_iter()
            .find(|m| m.name() == t)
            .map(Some)
            .ok_or_else(|| UnknownInterlockMode(s.to_string()))
    }
}

impl FromStr for InterlockMode {
    type Err = UnknownInterlockMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        InterlockMode::parse_optional(s)?.ok_or_else(|| UnknownInterlockMode(s.to_string()))
    }
}

impl fmt::Display for InterlockMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_spirv_modes_round_trip() {
        for m in InterlockMode::ALL {
            assert_eq!(m.name().parse::<InterlockMode>(), Ok(m));
            assert_eq!(
                InterlockMode::from_spirv_execution_mode(m.spirv_execution_mode()),
                Some(m)
            );
        }
        assert_eq!(InterlockMode::parse_optional("none"), Ok(None));
        assert!("pixel".parse::<InterlockMode>().is_err());
        assert_eq!(InterlockMode::from_spirv_execution_mode(5365), None);
    }
}
