//! The interlock experiments' policy (the `experiment` setting): which fragment shaders an
//! experiment rewrites ([`shaders::spirv::rewrite`]) before they reach the driver, what a device
//! needs for it, and what every record of an affected object says was changed. Pure: the copies
//! of create infos that carry a rewrite down are crate::chain's.
//!
//! A device runs an experiment only with the feature its new mode needs: where the application
//! did not enable it, the layer enables it in a copy of the device create info when the device
//! supports it; when it does not, or the chain holds a structure the layer cannot copy, the
//! experiment is refused for that device with a message, and nothing is changed. Shader
//! modules, SPIR-V chained inline to a pipeline's fragment stage and SPIR-V shader objects are
//! rewritten; module identifiers, pipeline binaries and binary shader objects are left alone, as
//! is shading-rate interlock.

use super::analysis::InterlockFeatures;
use pops_report::{AppliedExperiment, ExperimentName, ModeChange};
use shaders::spirv::rewrite::{rewrite, Experiment, RewriteError};
use shaders::spirv::{ExecutionMode, ExecutionModel};

/// An experiment a device runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Active {
    pub experiment: Experiment,
    /// Stage hashes it is limited to…
    pub hashes: Vec<String>,
    /// …and the application's names of shader modules; both empty: every interlocked fragment
    /// shader.
    pub names: Vec<String>,
}

impl Active {
    /// The experiment limited to `targets`: a stage hash (16 hexadecimal digits, as
    /// `pops inspect` prints it) or the application's name of a shader module.
    pub fn new(experiment: Experiment, targets: &[String]) -> Active {
        let (hashes, names): (Vec<&String>, Vec<&String>) = targets
            .iter()
            .partition(|t| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit()));
        Active {
            experiment,
            hashes: hashes.into_iter().map(|h| h.to_ascii_lowercase()).collect(),
            names: names.into_iter().cloned().collect(),
        }
    }

    fn targeted(&self) -> bool {
        !self.hashes.is_empty() || !self.names.is_empty()
    }
}

/// The feature the experiment's new interlock mode needs, with its Vulkan member name.
fn needed_feature(e: Experiment) -> Option<&'static str> {
    match e {
        Experiment::PixelToSample => Some("fragmentShaderSampleInterlock"),
        Experiment::SampleToPixel => Some("fragmentShaderPixelInterlock"),
        _ => None,
    }
}

/// What a device needs for the configured experiment, from the interlock features the
/// application enabled (`None`: it chains no interlock features at all): `Ok(None)` when no
/// experiment is configured; `Ok(Some((active, enable)))` with `enable` true when the application
/// did not enable the feature the new mode needs (the layer then enables it in a copy of the
/// device create info); `Err` with the reason the experiment is refused.
pub fn for_device(
    experiment: Option<Experiment>,
    targets: &[String],
    enabled: Option<InterlockFeatures>,
) -> Result<Option<(Active, bool)>, Refused> {
    let Some(experiment) = experiment else {
        return Ok(None);
    };
    let active = Active::new(experiment, targets);
    if let Some(feature) = needed_feature(experiment) {
        let Some(f) = enabled else {
            return Err(Refused {
                experiment,
                feature,
            });
        };
        let on = match experiment {
            Experiment::PixelToSample => f.sample,
            _ => f.pixel,
        };
        return Ok(Some((active, !on)));
    }
    Ok(Some((active, false)))
}
/// An experiment the device cannot run: the application enables no interlock feature, and
/// the experiment's new mode needs one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("experiment {experiment} refused: the application enables no fragment shader interlock feature; nothing is changed (it needs {feature})")]
pub struct Refused {
    pub experiment: Experiment,
    pub feature: &'static str,
}

/// The report's name of an experiment.
pub fn report_name(e: Experiment) -> ExperimentName {
    match e {
        Experiment::PixelToSample => ExperimentName::PixelToSample,
        Experiment::SampleToPixel => ExperimentName::SampleToPixel,
        Experiment::OrderedToUnordered => ExperimentName::OrderedToUnordered,
        Experiment::UnorderedToOrdered => ExperimentName::UnorderedToOrdered,
        Experiment::NoInterlock => ExperimentName::NoInterlock,
    }
}

/// The interlock mode of an execution mode (`None` for one that declares no interlock).
fn mode_of(m: ExecutionMode) -> Option<pm4::InterlockMode> {
    pm4::InterlockMode::from_spirv_execution_mode(m.0)
}

/// The experiment applied to a module's words when they are created: the new words and what
/// was changed, or `None` when the module is not concerned (no interlock, not a target by its
/// stage hash, already in the new mode). Targets named by the module's name are found later,
/// at pipeline creation ([`apply_to_named`]): a module is named after it is created.
pub fn apply(
    active: &Active,
    words: &[u32],
) -> Result<Option<(Vec<u32>, AppliedExperiment)>, RewriteError> {
    if active.targeted() {
        if active.hashes.is_empty() {
            return Ok(None);
        }
        let info = shaders::spirv::analyze(words).map_err(RewriteError::Spirv)?;
        let hit = info
            .entry_points
            .iter()
            .filter(|e| e.execution_model == ExecutionModel::Fragment)
            .filter_map(|e| super::analysis::stage_hash(words, &e.name, None))
            .any(|h| active.hashes.contains(&h));
        if !hit {
            return Ok(None);
        }
    }
    rewritten(active, words)
}

/// The experiment applied to the words of a module the application named `name`, where the
/// name is one of the targets.
pub fn apply_to_named(
    active: &Active,
    name: &str,
    words: &[u32],
) -> Result<Option<(Vec<u32>, AppliedExperiment)>, RewriteError> {
    if !active.names.iter().any(|n| n == name) {
        return Ok(None);
    }
    rewritten(active, words)
}

fn rewritten(
    active: &Active,
    words: &[u32],
) -> Result<Option<(Vec<u32>, AppliedExperiment)>, RewriteError> {
    let r = rewrite(words, active.experiment)?;
    if !r.changed() {
        return Ok(None);
    }
    // The rewrite changes interlock modes only: every change starts from one.
    let changes = r
        .changes
        .iter()
        .filter_map(|(from, to)| {
            Some(ModeChange {
                from: mode_of(*from)?,
                to: to.and_then(mode_of),
            })
        })
        .collect();
    Ok(Some((
        r.words,
        AppliedExperiment {
            name: report_name(active.experiment),
            changes,
        },
    )))
}

#[cfg(test)]
mod targets {
    use super::*;

    fn words() -> Vec<u32> {
        let sh = shaders::corpus::get("pixel_interlock_ordered.frag").expect("corpus shader");
        sh.words().to_vec()
    }

    /// A target of 16 hexadecimal digits is a stage hash (any case); anything else is a shader
    /// module's name (exact). A module matches a hash at its creation; a name only at pipeline
    /// creation, once the application has named the module.
    #[test]
    fn targets_are_hashes_or_module_names() {
        let w = words();
        let hash = super::super::analysis::stage_hash(&w, "main", None).unwrap();
        let a = Active::new(
            Experiment::PixelToSample,
            &[hash.to_ascii_uppercase(), "OIT pass".into()],
        );
        assert_eq!(a.hashes, [hash]);
        assert_eq!(a.names, ["OIT pass"]);
        assert!(
            apply(&a, &w).unwrap().is_some(),
            "the hash matches at creation"
        );
        let by_name = Active::new(Experiment::PixelToSample, &["OIT pass".into()]);
        assert!(
            apply(&by_name, &w).unwrap().is_none(),
            "no name at creation"
        );
        assert!(apply_to_named(&by_name, "OIT pass", &w).unwrap().is_some());
        assert!(apply_to_named(&by_name, "oit pass", &w).unwrap().is_none());
        let everything = Active::new(Experiment::PixelToSample, &[]);
        assert!(apply(&everything, &w).unwrap().is_some());
        let other = Active::new(Experiment::PixelToSample, &["0123456789abcdef".into()]);
        assert!(apply(&other, &w).unwrap().is_none());
        let (_, applied) = apply(&everything, &w).unwrap().unwrap();
        assert_eq!(applied.name, ExperimentName::PixelToSample);
        assert_eq!(applied.changes_text(), "pixel-ordered -> sample-ordered");
    }

    /// The report names each experiment as the setting does.
    #[test]
    fn report_names_are_the_setting_names() {
        for e in [
            Experiment::PixelToSample,
            Experiment::SampleToPixel,
            Experiment::OrderedToUnordered,
            Experiment::UnorderedToOrdered,
            Experiment::NoInterlock,
        ] {
            assert_eq!(report_name(e).name(), e.name());
        }
    }

    /// The experiment's feature decides whether the device copy enables it; no interlock
    /// features at all refuses the experiment.
    #[test]
    fn devices_enable_the_feature_the_new_mode_needs() {
        let pixel_only = InterlockFeatures {
            pixel: true,
            ..InterlockFeatures::default()
        };
        let plan = for_device(Some(Experiment::PixelToSample), &[], Some(pixel_only)).unwrap();
        assert!(matches!(plan, Some((_, true))));
        let plan = for_device(Some(Experiment::SampleToPixel), &[], Some(pixel_only)).unwrap();
        assert!(matches!(plan, Some((_, false))));
        let plan = for_device(Some(Experiment::NoInterlock), &[], None).unwrap();
        assert!(matches!(plan, Some((_, false))));
        assert!(for_device(Some(Experiment::PixelToSample), &[], None).is_err());
        assert!(for_device(None, &[], Some(pixel_only)).unwrap().is_none());
    }
}
