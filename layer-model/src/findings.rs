//! The layer's own findings: what it read from the application (the fragment shader's SPIR-V,
//! the device's features, the create info) and what its experiment could not do. Findings about
//! the chip and the register state come from `pm4::pops` alone — the derivation's diagnostics,
//! and [`pm4::pops::interlock_findings`] where no chip is known — so that every code has one
//! producer and one wording (the codes are `pops_report::finding`'s, one space for every producer).

use super::analysis::{EntryAnalysis, InterlockFeatures};
use super::capture::{CapturedState, Samples};
use pm4::{Granularity, InterlockMode};
use pops_report::finding::{Code, Layer};
use pops_report::{Diagnostic, Severity};

/// A diagnostic of one of the layer's own codes.
fn says(code: Layer, severity: Severity, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(severity, Code::Layer(code), message)
}

/// The interlock use cannot be told.
pub fn interlock_unknown(reason: &str) -> Diagnostic {
    says(
        Layer::InterlockUnknown,
        Severity::Info,
        format!("the fragment shader's interlock use cannot be told: {reason}"),
    )
}

/// `pm4::pops` refused to derive a state.
pub fn state_unavailable(chip: &str, reason: &str) -> Diagnostic {
    says(
        Layer::StateUnavailable,
        Severity::Info,
        format!("no register state for {chip}: {reason}"),
    )
}

/// The layer's findings about an interlocked fragment stage, its draw state and the device's
/// features.
pub fn stage_findings(
    mode: InterlockMode,
    e: &EntryAnalysis,
    draw: &CapturedState,
    features: InterlockFeatures,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if draw.samples == Some(Samples::Dynamic) {
        out.push(says(Layer::DynamicSampleCount,
            Severity::Info,
            "the rasterization sample count is dynamic: the state below assumes 1 sample; POPS_OVERLAP_NUM_SAMPLES and the drain workaround depend on the count at draw time",
        ));
    }
    if !features.enabled_for(mode) {
        out.push(says(
            Layer::InterlockFeatureNotEnabled,
            Severity::Error,
            format!(
                "{mode} interlock used but the device was created without {}",
                match mode.granularity {
                    Granularity::Pixel => "fragmentShaderPixelInterlock",
                    Granularity::Sample => "fragmentShaderSampleInterlock",
                    Granularity::ShadingRate => "fragmentShaderShadingRateInterlock",
                }
            ),
        ));
    }
    if e.begin_count > 1 || e.end_count > 1 {
        out.push(says(Layer::MultipleInterlockPairs,
            Severity::Warning,
            format!(
                "{} begin / {} end instructions: the ordered section is entered once per invocation; extra pairs are invalid SPIR-V for the extension",
                e.begin_count, e.end_count
            ),
        ));
    }
    if e.begin_in_divergent_control_flow {
        out.push(says(Layer::DivergentInterlockBegin,
            Severity::Warning,
            "OpBeginInvocationInterlockEXT is in divergent control flow: the driver must hoist the ordered-section entry for the whole wave",
        ));
    }
    if !e.accesses_memory {
        out.push(says(Layer::InterlockWithoutMemoryAccess,
            Severity::Warning,
            "interlock declared but the shader accesses no storage memory: the ordering costs without protecting anything",
        ));
    }
    // Article: "With POPS, on all hardware generations, the shader must have at least one export".
    if !e.has_color_output {
        out.push(says(Layer::NoColorOutput,
            Severity::Info,
            "no colour output: the driver must still export (a null export and SPI_SHADER_COL_FORMAT space, e.g. SPI_SHADER_32_R) for the ordered section to end",
        ));
    }
    out
}

/// The device runs an experiment the layer could not apply to this object.
pub fn experiment_not_applied(experiment: &str, why: &str) -> Diagnostic {
    says(
        Layer::ExperimentNotApplied,
        Severity::Info,
        format!("the {experiment} experiment was not applied: {why}"),
    )
}

/// The device is lost: the device-lost line's sentence, as an error.
/// The driver's findings as a record carries them: each finding of the driver's code or state
/// (the verify_isa rules') says which known driver defect it is, or that it is new
/// (`pops_report::defects`, the one table of them), for the chip and the driver that made it.
pub fn explained(
    diags: &[Diagnostic],
    chip: Option<pm4::Family>,
    driver: Option<&str>,
) -> Vec<Diagnostic> {
    use pops_report::defects::{explain, ChipOf};
    diags
        .iter()
        .map(|d| {
            if !d.code.is_about_the_driver() {
                return d.clone();
            }
            let chip = chip.map_or(ChipOf::Unknown, ChipOf::Family);
            let words = explain(d.code, chip, driver).words();
            Diagnostic::new(d.severity, d.code, format!("{} [{words}]", d.message))
        })
        .collect()
}

pub fn device_lost(message: &str) -> Diagnostic {
    says(Layer::DeviceLost, Severity::Error, message)
}

#[cfg(test)]
mod tests {
    /// GFX11: "The same requirements for awaiting the memory access counters as on GFX9–10.3
    /// still apply": the epilog finding on navi31 with Mesa 26 is the known defect, with Mesa 25
    /// new; a verdict without a finding is left as it is.
    #[test]
    fn driver_findings_say_known_or_new() {
        let epilog = "isa-ordered-section-open-at-epilog".parse().unwrap();
        let finding = Diagnostic::new(Severity::Error, epilog, "the driver's code: …");
        let ok = Diagnostic::new(Severity::Info, Code::ISA_VERIFIED, "keeps every rule");
        let chip = Some(pm4::Family::Navi31);
        let today = super::explained(
            &[finding.clone(), ok.clone()],
            chip,
            Some("radv (Mesa 26.2.6-1)"),
        );
        assert!(
            today[0]
                .message
                .contains("[known defect aco-epilog-store-gap"),
            "{}",
            today[0].message
        );
        assert_eq!(today[1], ok);
        let old = super::explained(&[finding], chip, Some("radv (Mesa 25.0.7-2)"));
        assert!(
            old[0].message.contains("[NEW: no known driver defect"),
            "{}",
            old[0].message
        );
    }

    use super::*;

    fn entry(mode: InterlockMode) -> EntryAnalysis {
        crate::analysis::test_entry(Some(mode))
    }

    const ALL_FEATURES: InterlockFeatures = InterlockFeatures {
        pixel: true,
        sample: true,
        shading_rate: true,
    };

    #[test]
    fn shader_shape_findings() {
        let m: InterlockMode = "pixel-ordered".parse().unwrap();
        let mut e = entry(m);
        e.begin_count = 2;
        e.begin_in_divergent_control_flow = true;
        e.accesses_memory = false;
        e.has_color_output = false;
        let d = stage_findings(m, &e, &CapturedState::default(), ALL_FEATURES);
        let c: Vec<_> = d.iter().map(|d| d.code.name()).collect();
        assert_eq!(
            c,
            [
                "multiple-interlock-pairs",
                "divergent-interlock-begin",
                "interlock-without-memory-access",
                "no-color-output"
            ]
        );
    }

    #[test]
    fn missing_feature_and_dynamic_samples() {
        let m: InterlockMode = "sample-ordered".parse().unwrap();
        let draw = CapturedState {
            samples: Some(Samples::Dynamic),
            ..CapturedState::default()
        };
        let features = InterlockFeatures {
            sample: false,
            ..ALL_FEATURES
        };
        let d = stage_findings(m, &entry(m), &draw, features);
        let c: Vec<_> = d.iter().map(|d| d.code.name()).collect();
        assert_eq!(c, ["dynamic-sample-count", "interlock-feature-not-enabled"]);
        assert!(d[1].message.contains("fragmentShaderSampleInterlock"));
    }
}
