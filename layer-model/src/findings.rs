//! The layer's own findings: what it read from the application (the fragment shader's SPIR-V,
//! the device's features, the create info) and what its experiment could not do. Findings about
//! the chip and the register state come from `pm4::pops` alone — the derivation's diagnostics,
//! and [`pm4::pops::interlock_findings`] where no chip is known — so that every code has one
//! producer and one wording ([`Code::ALL`] and `pm4::pops::Code::ALL` share none, a test says).

use super::analysis::{EntryAnalysis, InterlockFeatures};
use super::capture::{CapturedState, Samples};
use pm4::{Granularity, InterlockMode};
use pops_report::{Diagnostic, Severity};

/// Every finding the layer itself reports, by its stable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// The fragment stage's interlock cannot be told (SPIR-V not visible or not analysable).
    InterlockUnknown,
    /// `pm4::pops` refused the inputs.
    StateUnavailable,
    DynamicSampleCount,
    InterlockFeatureNotEnabled,
    MultipleInterlockPairs,
    DivergentInterlockBegin,
    InterlockWithoutMemoryAccess,
    NoColorOutput,
    ExperimentNotApplied,
    /// A call on the device returned VK_ERROR_DEVICE_LOST (the device-lost line says more).
    DeviceLost,
}

impl Code {
    pub const ALL: [Code; 10] = [
        Code::InterlockUnknown,
        Code::StateUnavailable,
        Code::DynamicSampleCount,
        Code::InterlockFeatureNotEnabled,
        Code::MultipleInterlockPairs,
        Code::DivergentInterlockBegin,
        Code::InterlockWithoutMemoryAccess,
        Code::NoColorOutput,
        Code::ExperimentNotApplied,
        Code::DeviceLost,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Code::InterlockUnknown => "interlock-unknown",
            Code::StateUnavailable => "state-unavailable",
            Code::DynamicSampleCount => "dynamic-sample-count",
            Code::InterlockFeatureNotEnabled => "interlock-feature-not-enabled",
            Code::MultipleInterlockPairs => "multiple-interlock-pairs",
            Code::DivergentInterlockBegin => "divergent-interlock-begin",
            Code::InterlockWithoutMemoryAccess => "interlock-without-memory-access",
            Code::NoColorOutput => "no-color-output",
            Code::ExperimentNotApplied => "experiment-not-applied",
            Code::DeviceLost => "device-lost",
        }
    }

    /// A diagnostic of this code.
    pub fn says(self, severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(severity, self.name(), message)
    }
}

/// The interlock use cannot be told.
pub fn interlock_unknown(reason: &str) -> Diagnostic {
    Code::InterlockUnknown.says(
        Severity::Info,
        format!("the fragment shader's interlock use cannot be told: {reason}"),
    )
}

/// `pm4::pops` refused to derive a state.
pub fn state_unavailable(chip: &str, reason: &str) -> Diagnostic {
    Code::StateUnavailable.says(
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
        out.push(Code::DynamicSampleCount.says(
            Severity::Info,
            "the rasterization sample count is dynamic: the state below assumes 1 sample; POPS_OVERLAP_NUM_SAMPLES and the drain workaround depend on the count at draw time",
        ));
    }
    if !features.enabled_for(mode) {
        out.push(Code::InterlockFeatureNotEnabled.says(
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
        out.push(Code::MultipleInterlockPairs.says(
            Severity::Warning,
            format!(
                "{} begin / {} end instructions: the ordered section is entered once per invocation; extra pairs are invalid SPIR-V for the extension",
                e.begin_count, e.end_count
            ),
        ));
    }
    if e.begin_in_divergent_control_flow {
        out.push(Code::DivergentInterlockBegin.says(
            Severity::Warning,
            "OpBeginInvocationInterlockEXT is in divergent control flow: the driver must hoist the ordered-section entry for the whole wave",
        ));
    }
    if !e.accesses_memory {
        out.push(Code::InterlockWithoutMemoryAccess.says(
            Severity::Warning,
            "interlock declared but the shader accesses no storage memory: the ordering costs without protecting anything",
        ));
    }
    // Article: "With POPS, on all hardware generations, the shader must have at least one export".
    if !e.has_color_output {
        out.push(Code::NoColorOutput.says(
            Severity::Info,
            "no colour output: the driver must still export (a null export and SPI_SHADER_COL_FORMAT space, e.g. SPI_SHADER_32_R) for the ordered section to end",
        ));
    }
    out
}

/// The device runs an experiment the layer could not apply to this object.
pub fn experiment_not_applied(experiment: &str, why: &str) -> Diagnostic {
    Code::ExperimentNotApplied.says(
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
    use pops_report::defects::{explain, is_driver_finding, ChipOf};
    diags
        .iter()
        .map(|d| {
            if !is_driver_finding(&d.code) {
                return d.clone();
            }
            let chip = chip.map_or(ChipOf::Unknown, ChipOf::Family);
            let words = explain(&d.code, chip, driver).words();
            Diagnostic::new(d.severity, &d.code, format!("{} [{words}]", d.message))
        })
        .collect()
}

pub fn device_lost(message: &str) -> Diagnostic {
    Code::DeviceLost.says(Severity::Error, message)
}

#[cfg(test)]
mod tests {
    /// GFX11: "The same requirements for awaiting the memory access counters as on GFX9–10.3
    /// still apply": the epilog finding on navi31 with Mesa 26 is the known defect, with Mesa 25
    /// new; a verdict without a finding is left as it is.
    #[test]
    fn driver_findings_say_known_or_new() {
        let finding = Diagnostic::new(
            Severity::Error,
            "isa-ordered-section-open-at-epilog",
            "the driver's code: …",
        );
        let ok = Diagnostic::new(Severity::Info, "isa-verified", "keeps every rule");
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
    use std::collections::HashSet;

    /// Each finding has one producer: no code the layer reports is one `pm4::pops` reports.
    #[test]
    fn no_code_comes_from_both_producers() {
        let ours: HashSet<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(ours.len(), Code::ALL.len(), "codes are unique");
        for c in pm4::pops::Code::ALL {
            assert!(
                !ours.contains(c.name()),
                "{} is produced by pm4::pops and by the layer",
                c.name()
            );
        }
    }

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
        let c: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
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
        let c: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(c, ["dynamic-sample-count", "interlock-feature-not-enabled"]);
        assert!(d[1].message.contains("fragmentShaderSampleInterlock"));
    }
}
