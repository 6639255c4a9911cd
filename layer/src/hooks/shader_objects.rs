//! Shader objects: each fragment shader object is analysed and recorded; interlocked ones are
//! remembered for the draws that bind them. Where the device runs an experiment, SPIR-V fragment
//! shaders go down rewritten.

use crate::boundary::guarded;
use crate::chain;
use crate::device::Device;
use crate::model::analysis::{self, fragment_entry};
use crate::model::capture::{CapturedState, Dynamic, Samples};
use crate::model::experiment;
use crate::model::object::{Fragment, Interlocked, IsaVerdict};
use crate::records;
use crate::table::vkfn;
use crate::vk::capture as read;
use ash::vk;
use pops_report::{AppliedExperiment, Bound, Kind, Source};
use std::ffi::CStr;
use std::sync::Arc;

/// A fragment shader's rewritten words and what was changed.
type Rewritten = Option<(Vec<u32>, AppliedExperiment)>;

/// vkCreateShadersEXT: calls down (with rewritten code where the experiment applies), then
/// records every fragment shader object that was created.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create(
    d: &Device,
    next: vk::PFN_vkCreateShadersEXT,
    device: vk::Device,
    create_info_count: u32,
    p_create_infos: *const vk::ShaderCreateInfoEXT,
    p_allocator: *const vk::AllocationCallbacks,
    p_shaders: *mut vk::ShaderEXT,
) -> vk::Result {
    let valid = create_info_count > 0 && !p_create_infos.is_null();
    // SAFETY: pCreateInfos holds createInfoCount valid create infos.
    let rewritten = if valid {
        unsafe { rewrite(d, p_create_infos, create_info_count) }
    } else {
        Vec::new()
    };
    // SAFETY: as above; only the code of rewritten stages changes.
    let copies = unsafe {
        chain::copied_where(
            p_create_infos,
            create_info_count,
            &rewritten,
            |info, (words, _)| vk::ShaderCreateInfoEXT {
                code_size: words.len() * 4,
                p_code: words.as_ptr() as *const std::ffi::c_void,
                ..*info
            },
        )
    };
    let p_infos = copies.as_ref().map_or(p_create_infos, |c| c.as_ptr());
    // SAFETY: the application's arguments, the code rewritten where an experiment applies.
    let result = unsafe { next(device, create_info_count, p_infos, p_allocator, p_shaders) };
    // "When this function returns, whether or not it succeeds, it is guaranteed that every
    // element of pShaders will have been overwritten by either VK_NULL_HANDLE or a valid
    // VkShaderEXT handle": exactly the non-null elements were created, whatever the result.
    if valid && !p_shaders.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateShadersEXT, || {
            // SAFETY: both arrays hold createInfoCount elements; failed ones are VK_NULL_HANDLE.
            let (infos, shaders) = unsafe {
                (
                    std::slice::from_raw_parts(p_create_infos, create_info_count as usize),
                    std::slice::from_raw_parts(p_shaders, create_info_count as usize),
                )
            };
            for (k, (info, s)) in infos.iter().zip(shaders).enumerate() {
                if *s != vk::ShaderEXT::null()
                    && info.stage.contains(vk::ShaderStageFlags::FRAGMENT)
                {
                    let applied = rewritten.get(k).and_then(Option::as_ref);
                    // SAFETY: the valid create info the shader object was created from.
                    unsafe { record(d, vk::Handle::as_raw(*s), info, applied) };
                }
            }
        });
    }
    result
}

/// Per create info, the SPIR-V fragment shader as the device's experiment rewrites it, if any.
///
/// # Safety
/// `infos` must hold `count` valid create infos.
unsafe fn rewrite(d: &Device, infos: *const vk::ShaderCreateInfoEXT, count: u32) -> Vec<Rewritten> {
    let Some(active) = &d.experiment else {
        return Vec::new();
    };
    guarded(&d.health, "experiment", || {
        // SAFETY: per the caller.
        let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
        infos
            .iter()
            .map(|info| {
                if !info.stage.contains(vk::ShaderStageFlags::FRAGMENT)
                    || info.code_type != vk::ShaderCodeTypeEXT::SPIRV
                {
                    return None;
                }
                // SAFETY: pCode holds codeSize bytes.
                let words = unsafe { read::code_words(info.p_code as *const u8, info.code_size) };
                experiment::apply(active, &words).unwrap_or_else(|e| {
                    log::warn!(
                        "experiment {} not applied to a shader object: {e}",
                        active.experiment
                    );
                    None
                })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Records one fragment shader object; remembers it when it is interlocked.
///
/// # Safety
/// `info` must be the valid create info the shader object was created from.
unsafe fn record(
    d: &Device,
    handle: u64,
    info: &vk::ShaderCreateInfoEXT,
    rewritten: Option<&(Vec<u32>, AppliedExperiment)>,
) {
    // SAFETY: pName is a valid string per valid usage.
    let entry_name = if info.p_name.is_null() {
        "main".to_string()
    } else {
        unsafe { CStr::from_ptr(info.p_name) }
            .to_string_lossy()
            .into_owned()
    };
    let (analysis, source, hash) = if info.code_type == vk::ShaderCodeTypeEXT::SPIRV {
        // What went down: the rewritten words where an experiment applied.
        let words = match rewritten {
            Some((words, _)) => words.clone(),
            // SAFETY: pCode holds codeSize bytes.
            None => unsafe { read::code_words(info.p_code as *const u8, info.code_size) },
        };
        // SAFETY: pSpecializationInfo is NULL or valid.
        let spec = unsafe { read::specialization(info.p_specialization_info) };
        let hash = analysis::stage_hash(&words, &entry_name, spec.as_ref());
        (
            Arc::new(analysis::analyze_module(&words)),
            Source::ShaderObjectSpirv,
            hash,
        )
    } else {
        (
            analysis::unknown("the shader object was created from a driver binary"),
            Source::ShaderObjectBinary,
            None,
        )
    };
    // A shader object's state is all set at draw time.
    let draw = CapturedState {
        samples: Some(Samples::Dynamic),
        ..Default::default()
    };
    let interlocked = fragment_entry(&analysis, &entry_name).is_ok_and(|e| e.interlock.is_some());
    let (isa, waits_for) = verdict(d, handle, interlocked);
    let fragment = Fragment {
        analysis,
        entry: entry_name,
        source,
        hash,
        module_name: None,
        fossilize_module: None,
        experiment: rewritten.map(|(_, a)| a.clone()),
        isa,
    };
    let entry = fragment_entry(&fragment.analysis, &fragment.entry);
    let object = (entry.as_ref().is_ok_and(|e| e.interlock.is_some())
        || fragment.experiment.is_some())
    .then(|| {
        d.objects.add_interlocked(Interlocked::new(
            handle,
            Bound::ShaderObject,
            fragment.clone(),
            draw.clone(),
            Dynamic::all(),
        ))
    });
    // Written later where the records before it wait for a verdict: guarded wherever it runs.
    d.outbox.send(d, waits_for, move |d| {
        let _ = guarded(&d.health, vkfn::vkCreateShadersEXT, || {
            let entry = fragment_entry(&fragment.analysis, &fragment.entry);
            records::emit(
                d,
                Kind::ShaderObject,
                (handle, object),
                &fragment,
                entry,
                &draw,
            );
        });
    });
    records::tell_held_messages(d);
}

/// With verify_isa, an interlocked shader object's code is read from its binary data and given to
/// the device's verifier: the verdict to come, and the cell its record waits for in the outbox.
fn verdict(
    d: &Device,
    handle: u64,
    interlocked: bool,
) -> (
    IsaVerdict,
    Option<Arc<crate::model::object::PendingVerdict>>,
) {
    use super::pipeline_code::{shader_object_code, Isa};
    let isa = match (d.settings.verify_isa && interlocked, d.chip) {
        (true, Some(chip)) => match d.next.get_shader_binary_data_ext {
            // SAFETY: the shader object was just created on this device.
            Some(get) => unsafe {
                shader_object_code(d, get, d.handle, vk::Handle::from_raw(handle), chip)
            },
            None => Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
                pops_report::Severity::Info,
                pops_report::Code::ISA_NOT_VERIFIED,
                "the device has no vkGetShaderBinaryDataEXT: the shader object's code cannot be read, not verified",
            )])),
        },
        (true, None) => Isa::Now(super::pipeline_code::cannot_verify(d).unwrap_or_default()),
        (false, _) => Isa::Now(IsaVerdict::default()),
    };
    isa.into_verdict(d)
}

/// vkDestroyShaderEXT: the shader object and its name go.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy(
    d: &Device,
    next: vk::PFN_vkDestroyShaderEXT,
    device: vk::Device,
    shader: vk::ShaderEXT,
    p_allocator: *const vk::AllocationCallbacks,
) {
    d.objects.remove(vk::Handle::as_raw(shader));
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, shader, p_allocator) };
}
