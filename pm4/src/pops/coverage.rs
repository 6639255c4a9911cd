//! Every interlock mode at every sample count on a chip: the POPS register states `derive`
//! gives with no depth/stencil attachment and otherwise default draw state, and the
//! combinations it refuses with the reason. What `pops selftest` submits, and what a driver
//! developer checks a chip's whole POPS surface against. Pure.

use super::{derive, DrawState, Experiments, InterlockDesc, PopsState};
use crate::{Family, InterlockMode};

/// The sample counts every interlock mode is tried at.
pub const SAMPLE_COUNTS: [u32; 4] = [1, 2, 4, 8];

/// One mode × sample count and the state `derive` gave it.
#[derive(Clone, Debug)]
pub struct Derived {
    pub mode: InterlockMode,
    pub samples: u32,
    pub state: PopsState,
}

/// One mode × sample count the chip does not accept, and `derive`'s reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub mode: InterlockMode,
    pub samples: u32,
    pub reason: String,
}

impl Refused {
    /// `MODE Nx`, as the self-test names its cases.
    pub fn name(&self) -> String {
        format!("{} {}x", self.mode, self.samples)
    }
}

/// Every mode × sample count of `family`, derived or refused, in mode then sample order.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pub derived: Vec<Derived>,
    pub refused: Vec<Refused>,
}

/// Derives every interlock mode at every sample count of [`SAMPLE_COUNTS`] on `family`.
pub fn every_mode(family: Family) -> Coverage {
    let mut out = Coverage::default();
    for mode in InterlockMode::ALL {
        for samples in SAMPLE_COUNTS {
            let draw = DrawState {
                rasterization_samples: samples,
                ..DrawState::default()
            };
            match derive(
                family,
                &InterlockDesc::with_mode(Some(mode)),
                &draw,
                &Experiments::default(),
            ) {
                Ok(state) => out.derived.push(Derived {
                    mode,
                    samples,
                    state,
                }),
                Err(e) => out.refused.push(Refused {
                    mode,
                    samples,
                    reason: e.to_string(),
                }),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AMD offers no shading-rate interlock ("the fragmentShaderShadingRateInterlock Vulkan
    /// device feature is not available"): those are refused at every sample count, the other
    /// four modes derived at every one, on every chip.
    #[test]
    fn every_chip_derives_pixel_and_sample_modes_and_refuses_shading_rate() {
        for f in Family::ALL {
            let c = every_mode(*f);
            assert_eq!(c.derived.len(), 16, "{f}: {:?}", c.refused);
            assert_eq!(c.refused.len(), 8, "{f}");
            assert!(c
                .refused
                .iter()
                .all(|r| r.name().starts_with("shading-rate")));
        }
    }
}
