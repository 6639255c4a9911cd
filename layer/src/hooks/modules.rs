//! Shader modules: each is remembered with its SPIR-V (rewritten, where the device runs an
//! experiment that concerns it) for the pipelines that use it as a fragment stage.

use crate::boundary::guarded;
use crate::device::Device;
use crate::model::experiment;
use crate::stores::ModuleEntry;
use crate::table::vkfn;
use crate::vk::capture::code_words;
use ash::vk;
use pops_report::AppliedExperiment;

/// vkCreateShaderModule: the module goes down rewritten where the device's experiment applies to
/// it; the words it is remembered by are the ones that went down.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create(
    d: &Device,
    next: vk::PFN_vkCreateShaderModule,
    device: vk::Device,
    p_create_info: *const vk::ShaderModuleCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_module: *mut vk::ShaderModule,
) -> vk::Result {
    if p_create_info.is_null() {
        // SAFETY: the application's arguments, unchanged (invalid usage is the driver's to meet).
        return unsafe { next(device, p_create_info, p_allocator, p_module) };
    }
    // SAFETY: the application's valid create info, read as the driver will.
    let words = unsafe {
        let ci = &*p_create_info;
        code_words(ci.p_code as *const u8, ci.code_size)
    };
    let rewritten = rewrite(d, &words);
    let copy;
    let p_ci = match &rewritten {
        Some((words, _)) => {
            // SAFETY: a valid create info (checked for null above); only the code changes.
            copy = vk::ShaderModuleCreateInfo {
                code_size: words.len() * 4,
                p_code: words.as_ptr(),
                ..unsafe { *p_create_info }
            };
            &copy as *const vk::ShaderModuleCreateInfo
        }
        None => p_create_info,
    };
    // SAFETY: the application's arguments, the code rewritten where an experiment applies.
    let result = unsafe { next(device, p_ci, p_allocator, p_module) };
    if result != vk::Result::SUCCESS || p_module.is_null() {
        return result;
    }
    let _ = guarded(&d.health, vkfn::vkCreateShaderModule, || {
        // SAFETY: success, so *p_module is the new module.
        let module = vk::Handle::as_raw(unsafe { *p_module });
        let entry = match rewritten {
            Some((words, applied)) => {
                log::info!(
                    "experiment {}: shader module 0x{module:x}: {}",
                    applied.name,
                    applied.changes_text()
                );
                ModuleEntry::new(words, Some(applied))
            }
            None => ModuleEntry::new(words, None),
        };
        d.modules.insert(module, entry);
    });
    result
}

/// The module's code as the device's experiment rewrites it, if it concerns the module.
fn rewrite(d: &Device, words: &[u32]) -> Option<(Vec<u32>, AppliedExperiment)> {
    let active = d.experiment.as_ref()?;
    guarded(&d.health, "experiment", || {
        match experiment::apply(active, words) {
            Ok(r) => r,
            Err(e) => {
                log::warn!(
                    "experiment {} not applied to a shader module: {e}",
                    active.experiment
                );
                None
            }
        }
    })
    .flatten()
}

/// vkDestroyShaderModule: the module and its name go (its handle may be reused).
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy(
    d: &Device,
    next: vk::PFN_vkDestroyShaderModule,
    device: vk::Device,
    module: vk::ShaderModule,
    p_allocator: *const vk::AllocationCallbacks,
) {
    let raw = vk::Handle::as_raw(module);
    d.modules.remove(raw);
    d.objects.remove(raw);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, module, p_allocator) };
}
