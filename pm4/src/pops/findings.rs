//! Findings about an interlock mode that hold on every AMD chip: what the article says of pixel
//! interlock with MSAA and of shading-rate interlock. [`derive`](super::derive) includes them in
//! every state it derives; a tool that has no chip to derive for (a layer on another vendor's
//! GPU) asks [`interlock_findings`] alone, so each finding has one producer and one wording.

use super::{DrawState, Severity, StateCode, StateError, StateFinding};
use crate::interlock::{Granularity, InterlockMode, Ordering};

/// The chip-independent findings of `mode` in `draw`.
pub fn interlock_findings(mode: InterlockMode, draw: &DrawState) -> Vec<StateFinding> {
    let mut out = Vec::new();
    // Article: "with MSAA, on AMD hardware, pixel interlock generally performs massively,
    // sometimes prohibitively, slower than sample interlock".
    if mode.granularity == Granularity::Pixel && draw.rasterization_samples > 1 {
        out.push(StateFinding {
            // A shader that runs per sample touches per-sample data only: it surely does not
            // need pixel ordering.
            severity: if draw.sample_shading {
                Severity::Warning
            } else {
                Severity::Info
            },
            code: StateCode::PixelInterlockWithMsaa,
            message: format!(
                "pixel interlock at {}x MSAA orders invocations of adjacent primitives along shared edges on AMD even without common samples; if the shader only touches per-sample data, SampleInterlock{}EXT is enough and much cheaper",
                draw.rasterization_samples,
                if mode.ordering == Ordering::Ordered { "Ordered" } else { "Unordered" },
            ),
        });
    }
    // Article: "the fragmentShaderShadingRateInterlock Vulkan device feature is not available".
    if mode.granularity == Granularity::ShadingRate {
        out.push(StateFinding {
            severity: Severity::Error,
            code: StateCode::ShadingRateInterlock,
            message: StateError::ShadingRateInterlock(mode).to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(samples: u32, sample_shading: bool) -> DrawState {
        DrawState {
            rasterization_samples: samples,
            sample_shading,
            ..DrawState::default()
        }
    }

    fn codes(mode: &str, d: &DrawState) -> Vec<(&'static str, Severity)> {
        interlock_findings(mode.parse().unwrap(), d)
            .into_iter()
            .map(|x| (x.code.name(), x.severity))
            .collect()
    }

    /// Article: "with MSAA, on AMD hardware, pixel interlock generally performs massively,
    /// sometimes prohibitively, slower than sample interlock" — a warning where the shader runs
    /// per sample, information otherwise; nothing for sample interlock or one sample.
    #[test]
    fn pixel_interlock_with_msaa() {
        assert_eq!(
            codes("pixel-ordered", &draw(4, false)),
            [("pixel-interlock-with-msaa", Severity::Info)]
        );
        assert_eq!(
            codes("pixel-unordered", &draw(8, true)),
            [("pixel-interlock-with-msaa", Severity::Warning)]
        );
        assert!(codes("pixel-ordered", &draw(1, true)).is_empty());
        assert!(codes("sample-ordered", &draw(8, false)).is_empty());
        let m = &interlock_findings("pixel-unordered".parse().unwrap(), &draw(4, false))[0];
        assert!(m.message.contains("4x MSAA") && m.message.contains("SampleInterlockUnorderedEXT"));
    }

    /// Article: "the fragmentShaderShadingRateInterlock Vulkan device feature is not available".
    #[test]
    fn shading_rate_interlock_is_an_error() {
        assert_eq!(
            codes("shading-rate-ordered", &draw(1, false)),
            [("shading-rate-interlock", Severity::Error)]
        );
    }
}
