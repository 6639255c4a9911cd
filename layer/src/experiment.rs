//! The interlock experiments in the layer (the `experiment` setting): a fragment shader with
//! interlock is rewritten ([`shaders::spirv::rewrite`]) before it reaches the driver, so that the
//! application runs with pixel instead of sample interlock, unordered instead of ordered, or
//! none, and every record of an affected object says what was changed.
//!
//! A device runs an experiment only when the feature its new mode needs is enabled: the
//! application must have enabled it in `VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT`
//! (the layer does not rewrite the application's device create info). Otherwise the experiment
//! is refused for that device with a message, and nothing is changed. Shader modules
//! (`vkCreateShaderModule`) and SPIR-V shader objects are rewritten; SPIR-V chained inline to a
//! pipeline stage, module identifiers, pipeline binaries and binary shader objects are left
//! alone, as is shading-rate interlock.

use crate::settings::Settings;
use ash::vk;
use pops_report::Experiment as Applied;
use shaders::spirv::rewrite::{rewrite, Experiment, RewriteError};
use shaders::spirv::{ExecutionMode, ExecutionModel};

/// An experiment a device runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Active {
    pub experiment: Experiment,
    /// Stage hashes it is limited to; empty: every interlocked fragment shader.
    pub targets: Vec<String>,
}

/// The feature the experiment's new interlock mode needs, with its Vulkan member name.
fn needed_feature(e: Experiment) -> Option<&'static str> {
    match e {
        Experiment::PixelToSample => Some("fragmentShaderSampleInterlock"),
        Experiment::SampleToPixel => Some("fragmentShaderPixelInterlock"),
        _ => None,
    }
}

/// Whether the device runs the configured experiment: `Ok(None)` when none is configured,
/// `Err(message)` when it is refused.
///
/// # Safety
/// `ci` must be the application's valid `VkDeviceCreateInfo`.
pub unsafe fn for_device(
    settings: &Settings,
    ci: &vk::DeviceCreateInfo,
) -> Result<Option<Active>, String> {
    let Some(experiment) = settings.experiment else {
        return Ok(None);
    };
    if let Some(feature) = needed_feature(experiment) {
        // SAFETY: the application's valid chain, per the caller.
        let f = unsafe {
            crate::ffi::find_in_chain(
                ci.p_next,
                vk::StructureType::PHYSICAL_DEVICE_FRAGMENT_SHADER_INTERLOCK_FEATURES_EXT,
            )
        } as *const vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT;
        // SAFETY: sType identifies the structure.
        let enabled = !f.is_null()
            && unsafe {
                match experiment {
                    Experiment::PixelToSample => (*f).fragment_shader_sample_interlock,
                    _ => (*f).fragment_shader_pixel_interlock,
                }
            } == vk::TRUE;
        if !enabled {
            return Err(format!(
                "experiment {experiment} refused: the application did not enable {feature}, which the new interlock mode needs; nothing is changed"
            ));
        }
    }
    Ok(Some(Active {
        experiment,
        targets: settings.experiment_targets.clone(),
    }))
}

/// The name `pops state` gives an interlock execution mode.
fn mode_name(m: ExecutionMode) -> &'static str {
    match m {
        ExecutionMode::PixelInterlockOrderedEXT => "pixel-ordered",
        ExecutionMode::PixelInterlockUnorderedEXT => "pixel-unordered",
        ExecutionMode::SampleInterlockOrderedEXT => "sample-ordered",
        ExecutionMode::SampleInterlockUnorderedEXT => "sample-unordered",
        _ => "other",
    }
}

/// The experiment applied to a module's words: the new words and what was changed, or `None`
/// when the module is not concerned (no interlock, not a target, already in the new mode).
pub fn apply(active: &Active, words: &[u32]) -> Result<Option<(Vec<u32>, Applied)>, RewriteError> {
    if !active.targets.is_empty() {
        let info = shaders::spirv::analyze(words).map_err(RewriteError::Spirv)?;
        let hit = info
            .entry_points
            .iter()
            .filter(|e| e.execution_model == ExecutionModel::Fragment)
            .filter_map(|e| crate::compute::stage_hash(words, &e.name, None))
            .any(|h| active.targets.contains(&h));
        if !hit {
            return Ok(None);
        }
    }
    let r = rewrite(words, active.experiment)?;
    if !r.changed() {
        return Ok(None);
    }
    let changes = r
        .changes
        .iter()
        .map(|(from, to)| {
            format!(
                "{} -> {}",
                mode_name(*from),
                to.map_or("none", |m| mode_name(m))
            )
        })
        .collect();
    Ok(Some((
        r.words,
        Applied {
            name: active.experiment.name().to_string(),
            changes,
        },
    )))
}
