//! Graphics pipelines and libraries: each created pipeline's fragment stage (its own, or a
//! linked library's) is analysed and recorded; interlocked ones are remembered for the draws
//! that bind them. Where the device runs an experiment, inline fragment SPIR-V and modules the
//! experiment targets by name go down rewritten, in copies of the create infos.

use crate::boundary::guarded;
use crate::chain::{self, StageCopy};
use crate::device::Device;
use crate::model::analysis::{self, fragment_entry, ModuleAnalysis};
use crate::model::capture::{FragmentSource, PipelineCapture};
use crate::model::experiment::{self, Active};
use crate::model::object::{Fragment, Interlocked, Library};
use crate::records;
use crate::stores::ModuleEntry;
use crate::table::vkfn;
use crate::vk::capture as read;
use ash::vk;
use pops_report::{Bound, Kind, Source};
use std::sync::Arc;

/// vkCreateGraphicsPipelines: calls down (with rewritten stages where the experiment applies),
/// then records every pipeline that was created.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create(
    d: &Device,
    next: vk::PFN_vkCreateGraphicsPipelines,
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    create_info_count: u32,
    p_create_infos: *const vk::GraphicsPipelineCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    let valid = create_info_count > 0 && !p_create_infos.is_null();
    // SAFETY: pCreateInfos holds createInfoCount valid create infos.
    let copies = if valid {
        unsafe { rewrite_stages(d, device, p_create_infos, create_info_count) }
    } else {
        Vec::new()
    };
    // SAFETY: as above; only the stages of rewritten pipelines change.
    let copied = unsafe {
        chain::copied_where(p_create_infos, create_info_count, &copies, |i, c| {
            vk::GraphicsPipelineCreateInfo {
                p_stages: c.stages.as_ptr(),
                ..*i
            }
        })
    };
    let p_infos = copied.as_ref().map_or(p_create_infos, |c| c.as_ptr());
    // verify_isa: interlocked pipelines, and every library, are created with their internal
    // representations kept.
    // SAFETY: as above.
    let capture = if valid && d.isa.is_some() {
        unsafe { capture_flags(d, device, p_infos, create_info_count) }
    } else {
        Vec::new()
    };
    // SAFETY: as above; only the flags (or the flags structure) of the captured ones change.
    let flagged = unsafe {
        chain::copied_where(p_infos, create_info_count, &capture, |i, c| match c {
            Capture::Kept(k, _) => vk::GraphicsPipelineCreateInfo {
                flags: k.flags,
                p_next: k.p_next,
                ..*i
            },
            Capture::Known(_) | Capture::Unkept => *i,
        })
    };
    let p_infos = flagged.as_ref().map_or(p_infos, |c| c.as_ptr());
    // SAFETY: the application's arguments, the stages rewritten where an experiment applies.
    let result = unsafe {
        next(
            device,
            pipeline_cache,
            create_info_count,
            p_infos,
            p_allocator,
            p_pipelines,
        )
    };
    // Whatever the result — success, VK_PIPELINE_COMPILE_REQUIRED, or the error of one of several
    // pipelines — each element of pPipelines is a created pipeline or VK_NULL_HANDLE (the
    // specification: a failed creation sets its element to VK_NULL_HANDLE, and the
    // implementation attempts every other), so exactly the created ones are recorded.
    if valid && !p_pipelines.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateGraphicsPipelines, || {
            // SAFETY: the call returned, so both arrays hold createInfoCount elements; what went
            // down are the copies where an experiment rewrote a stage.
            unsafe {
                record_created(
                    d,
                    device,
                    p_infos,
                    p_pipelines,
                    create_info_count,
                    &copies,
                    &capture,
                )
            }
        });
    }
    // The layer's own modules have served their pipelines.
    for m in copies.iter().flatten().filter_map(|c| c.module) {
        forget_module(d, vk::Handle::as_raw(m));
        if let Some(destroy) = d.next.destroy_shader_module {
            // SAFETY: the layer's own module; the pipelines made from it are created.
            unsafe { destroy(device, m, std::ptr::null()) };
        }
    }
    result
}

/// Per create info, the stages the device's experiment sends down instead, if any.
///
/// # Safety
/// `infos` must hold `count` valid create infos of `device`.
unsafe fn rewrite_stages(
    d: &Device,
    device: vk::Device,
    infos: *const vk::GraphicsPipelineCreateInfo,
    count: u32,
) -> Vec<Option<Box<StageCopy>>> {
    let Some(active) = &d.experiment else {
        return Vec::new();
    };
    // On a lost device the layer makes no call of its own (the named modules' copies).
    if d.submissions.is_lost() {
        return Vec::new();
    }
    guarded(&d.health, "experiment", || {
        // SAFETY: per the caller.
        let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
        infos
            .iter()
            .map(|i| {
                // SAFETY: a valid create info of this device.
                unsafe {
                    chain::rewrite_inline(active, i)
                        .or_else(|| named_module_copy(d, active, device, i))
                }
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Records each created pipeline of a call.
///
/// # Safety
/// `infos` and `pipelines` must hold `count` elements after the call; a non-null pipeline was
/// created from the create info at its index.
unsafe fn record_created(
    d: &Device,
    device: vk::Device,
    infos: *const vk::GraphicsPipelineCreateInfo,
    pipelines: *const vk::Pipeline,
    count: u32,
    copies: &[Option<Box<StageCopy>>],
    captured: &[Option<Capture>],
) {
    // SAFETY: per the caller.
    let (infos, pipelines) = unsafe {
        (
            std::slice::from_raw_parts(infos, count as usize),
            std::slice::from_raw_parts(pipelines, count as usize),
        )
    };
    let subpass =
        |rp: vk::RenderPass, subpass: u32| d.passes.subpass(vk::Handle::as_raw(rp), subpass);
    for (k, (info, p)) in infos.iter().zip(pipelines).enumerate() {
        if *p == vk::Pipeline::null() {
            continue;
        }
        // SAFETY: a valid create info of a pipeline that was created.
        let cap = unsafe { read::capture(info, subpass) };
        let applied = copies
            .get(k)
            .and_then(|c| c.as_ref().map(|c| c.applied.clone()));
        let isa = match (captured.get(k), d.isa, d.chip) {
            // A library's code is verified in the pipelines linked from it.
            _ if cap.is_library => Vec::new(),
            // SAFETY: a pipeline of `device` just created with its representations captured.
            (Some(Some(Capture::Kept(_, key))), Some(x), Some(chip)) => unsafe {
                verify_code(d, x, device, *p, chip, key.as_deref())
            },
            (Some(Some(Capture::Known(verdict))), _, _) => {
                log::debug!(
                    "verify_isa: pipeline 0x{:x}: the driver's key is one verified before: its verdict, without capturing the code again",
                    vk::Handle::as_raw(*p)
                );
                verdict.to_vec()
            }
            (Some(Some(Capture::Unkept)), _, _) => vec![pops_report::Diagnostic::new(
                pops_report::Severity::Info,
                "isa-not-verified",
                "the create info chains a structure the layer does not know before its VkPipelineCreateFlags2CreateInfoKHR, so the layer could not ask the driver to keep the code: not verified",
            )],
            _ => Vec::new(),
        };
        process_pipeline(d, vk::Handle::as_raw(*p), cap, applied, isa);
    }
}

/// verify_isa: how a create info goes down.
enum Capture {
    /// With the flags (and flags structure) that ask the driver to keep its code; under the
    /// driver's key of the create info, where verdicts are kept by key.
    Kept(chain::CaptureCopy, Option<Box<[u8]>>),
    /// As the application made it: the driver's key is one whose code was verified before, and
    /// this is its verdict.
    Known(std::sync::Arc<[pops_report::Diagnostic]>),
    /// As the application made it: a structure before its flags structure is one the layer
    /// does not know the size of, so it cannot be copied.
    Unkept,
}

/// Per create info, whether the driver is asked to keep its code: a complete pipeline whose
/// fragment stage (its own or a linked library's) is interlocked, and every graphics pipeline
/// library — the libraries linked into one pipeline must agree on the flag
/// (VUID-VkGraphicsPipelineCreateInfo-pLibraries-06646, -06647, -flags-06645), and which of them
/// will meet an interlocked fragment shader is not known when each is created.
///
/// # Safety
/// `infos` must hold `count` valid create infos.
unsafe fn capture_flags(
    d: &Device,
    device: vk::Device,
    infos: *const vk::GraphicsPipelineCreateInfo,
    count: u32,
) -> Vec<Option<Capture>> {
    guarded(&d.health, "verify_isa", || {
        // SAFETY: per the caller.
        let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
        let subpass =
            |rp: vk::RenderPass, subpass: u32| d.passes.subpass(vk::Handle::as_raw(rp), subpass);
        infos
            .iter()
            .map(|info| {
                // SAFETY: a valid create info, read where valid usage makes it valid.
                let cap = unsafe { read::capture(info, subpass) };
                let wanted = cap.is_library
                    || resolve_fragment(d, &cap, None).is_some_and(|f| {
                        fragment_entry(&f.analysis, &f.entry).is_ok_and(|e| e.interlock.is_some())
                    });
                // SAFETY: as above.
                wanted.then(|| unsafe { capture_or_known(d, device, info, &cap) })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// How a wanted create info goes down: as it is, where the driver's key of it is one whose
/// code was verified before; else asking the driver to keep its code, the verdict to be kept
/// under the key of the create info as the application made it. The key of the create info as
/// it goes down, with the capture, is asked for too, once per device: whether the driver gives
/// both the same key (its promise that the capture changes nothing of the binaries) is said.
///
/// # Safety
/// `info` must be a valid create info of `device`.
unsafe fn capture_or_known(
    d: &Device,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
    cap: &PipelineCapture,
) -> Capture {
    // SAFETY: per the caller.
    let key = unsafe { pipeline_key(d, device, info, cap) };
    if let Some(verdict) = key.as_deref().and_then(|k| d.verdicts.get(k)) {
        return Capture::Known(verdict);
    }
    // SAFETY: per the caller.
    let Some(copy) = (unsafe { chain::with_capture(info) }) else {
        return Capture::Unkept;
    };
    if let Some(k) = key.as_deref().filter(|_| !d.verdicts.capture_key_noted()) {
        let captured = vk::GraphicsPipelineCreateInfo {
            flags: copy.flags,
            p_next: copy.p_next,
            ..*info
        };
        // SAFETY: the create info as it goes down, valid while `copy` lives.
        if let Some(with_capture) = unsafe { pipeline_key(d, device, &captured, cap) } {
            d.verdicts
                .note_capture_key(&d.device_name, *with_capture == *k);
        }
    }
    Capture::Kept(copy, key)
}

/// The driver's key of a complete pipeline's create info (vkGetPipelineKeyKHR), where the
/// device has the query. None for libraries and pipelines linked from them (their capture
/// follows the libraries', which are always created with it), and for pipelines made from
/// pipeline binaries (VUID-vkGetPipelineKeyKHR-pNext-09605).
///
/// # Safety
/// `info` must be a valid create info of `device`.
unsafe fn pipeline_key(
    d: &Device,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
    cap: &PipelineCapture,
) -> Option<Box<[u8]>> {
    let get_key = d.isa?.pipeline_key?;
    // SAFETY: per the caller.
    if cap.is_library || !cap.libraries.is_empty() || unsafe { chain::has_binaries(info) } {
        return None;
    }
    let create_info = crate::ffi::PipelineCreateInfoKHR {
        s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR,
        p_next: info as *const vk::GraphicsPipelineCreateInfo as *mut std::ffi::c_void,
    };
    let mut key = crate::ffi::PipelineBinaryKeyKHR::default();
    // SAFETY: a valid create info of `device` behind a VkPipelineCreateInfoKHR, on a device
    // with pipelineBinaries enabled (pipeline_key is only set there).
    let r = unsafe { get_key(device, &create_info, &mut key) };
    (r == vk::Result::SUCCESS)
        .then(|| key.bytes().map(Box::from))
        .flatten()
}

/// The fragment shader's code the driver returned for `pipeline`, verified; the verdict kept
/// under the create info's `key`, where it has one.
///
/// # Safety
/// `pipeline` must be a live pipeline of `device`, created with its internal representations
/// captured, on a device with pipelineExecutableInfo enabled.
unsafe fn verify_code(
    d: &Device,
    x: crate::device::Executables,
    device: vk::Device,
    pipeline: vk::Pipeline,
    chip: pm4::Family,
    key: Option<&[u8]>,
) -> Vec<pops_report::Diagnostic> {
    // SAFETY: per the caller.
    let Some(text) = (unsafe { fragment_assembly(x, device, pipeline) }) else {
        return vec![pops_report::Diagnostic::new(
            pops_report::Severity::Info,
            "isa-not-verified",
            "the driver returned no assembly of the fragment shader (VK_KHR_pipeline_executable_properties): not verified",
        )];
    };
    let verdict = crate::model::isa::diagnostics_cached(chip.gfx_level(), &text);
    if let Some(key) = key {
        d.verdicts.keep(key, verdict.clone());
    }
    verdict.to_vec()
}

/// The text of the fragment executable's "Assembly" (or "Disassembly") representation.
///
/// # Safety
/// As [`verify_code`].
unsafe fn fragment_assembly(
    x: crate::device::Executables,
    device: vk::Device,
    pipeline: vk::Pipeline,
) -> Option<String> {
    let info = vk::PipelineInfoKHR {
        pipeline,
        ..Default::default()
    };
    let mut n = 0u32;
    // SAFETY (whole function): two-call idioms on a live pipeline; every array has the count
    // the driver asked for, and the data buffers the sizes it reported.
    unsafe {
        if (x.properties)(device, &info, &mut n, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        let mut props = vec![vk::PipelineExecutablePropertiesKHR::default(); n as usize];
        if (x.properties)(device, &info, &mut n, props.as_mut_ptr()) != vk::Result::SUCCESS {
            return None;
        }
        let index = props
            .iter()
            .take(n as usize)
            .position(|p| p.stages.contains(vk::ShaderStageFlags::FRAGMENT))?;
        let exec = vk::PipelineExecutableInfoKHR {
            pipeline,
            executable_index: u32::try_from(index).ok()?,
            ..Default::default()
        };
        let mut m = 0u32;
        if (x.representations)(device, &exec, &mut m, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); m as usize];
        let r = (x.representations)(device, &exec, &mut m, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let k = reps.iter().take(m as usize).position(|r| {
            matches!(
                r.name_as_c_str().ok().and_then(|n| n.to_str().ok()),
                Some("Assembly" | "Disassembly")
            ) && r.is_text == vk::TRUE
        })?;
        let mut data = vec![0u8; reps[k].data_size];
        for (j, rep) in reps.iter_mut().enumerate() {
            rep.p_data = if j == k {
                data.as_mut_ptr() as *mut std::ffi::c_void
            } else {
                std::ptr::null_mut()
            };
            if j != k {
                rep.data_size = 0;
            }
        }
        let r = (x.representations)(device, &exec, &mut m, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        Some(String::from_utf8_lossy(&data[..end]).into_owned())
    }
}

/// A module leaves the layer's maps: its handle may be reused.
fn forget_module(d: &Device, module: u64) {
    d.modules.remove(module);
    d.objects.remove(module);
}

/// A pipeline's stages with its fragment module replaced by one the layer creates from the
/// module's rewritten code, where the application named that module and the experiment targets
/// the name (names are given after a module is created, so this happens at pipeline creation).
/// The layer's module is known under the application's name and its experiment, and destroyed
/// once the pipeline is created.
///
/// # Safety
/// `info` must be the application's valid create info for `device`.
unsafe fn named_module_copy(
    d: &Device,
    active: &Active,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
) -> Option<Box<StageCopy>> {
    if active.names.is_empty() {
        return None;
    }
    // SAFETY: per the caller.
    let k = unsafe { chain::fragment_stage(info) }?;
    // SAFETY: stage k exists (fragment_stage found it).
    let raw = vk::Handle::as_raw(unsafe { (*info.p_stages.add(k)).module });
    let name = d.objects.name(raw)?;
    let entry = d.modules.get(raw)?;
    if entry.experiment.is_some() {
        return None;
    }
    let (words, applied) = match experiment::apply_to_named(active, &name, entry.words()) {
        Ok(r) => r?,
        Err(e) => {
            log::warn!(
                "experiment {} not applied to shader module '{name}': {e}",
                active.experiment
            );
            return None;
        }
    };
    let own = create_own_module(d, device, &words, active, &name)?;
    log::info!(
        "experiment {}: shader module '{name}' (0x{raw:x}): {}",
        applied.name,
        applied.changes_text()
    );
    let own_raw = vk::Handle::as_raw(own);
    d.modules
        .insert(own_raw, ModuleEntry::new(words, Some(applied.clone())));
    d.objects.set_name(own_raw, Some(name));
    // SAFETY: per the caller; stage k is the fragment stage.
    Some(unsafe { chain::with_module(info, k, own, applied) })
}

/// A shader module of the layer's own, made from rewritten code.
fn create_own_module(
    d: &Device,
    device: vk::Device,
    words: &[u32],
    active: &Active,
    name: &str,
) -> Option<vk::ShaderModule> {
    let create = d.next.create_shader_module?;
    let ci = vk::ShaderModuleCreateInfo {
        code_size: words.len() * 4,
        p_code: words.as_ptr(),
        ..Default::default()
    };
    let mut own = vk::ShaderModule::null();
    // SAFETY: a valid create info of rewritten SPIR-V (it passes spirv-val) on the live device.
    let r = unsafe { create(device, &ci, std::ptr::null(), &mut own) };
    if r != vk::Result::SUCCESS {
        log::warn!(
            "experiment {} not applied to shader module '{name}': the driver refused the rewritten module ({r})",
            active.experiment
        );
        return None;
    }
    Some(own)
}

/// The fragment stage of a pipeline's own stages, with where it came from.
fn own_fragment(
    d: &Device,
    src: &FragmentSource,
    spec: Option<&shaders::spirv::Specialization>,
    inline_experiment: Option<&pops_report::AppliedExperiment>,
) -> Fragment {
    let (analysis, hash, module_name, experiment): (Arc<ModuleAnalysis>, _, _, _) = match src {
        FragmentSource::Module { module, entry } => match d.modules.get(*module) {
            // Analysed outside any lock, once per module.
            Some(m) => (
                m.analysis(),
                analysis::stage_hash(m.words(), entry, spec),
                d.objects.name(*module),
                m.experiment.clone(),
            ),
            None => (
                analysis::unknown("the shader module was not created through the layer"),
                None,
                d.objects.name(*module),
                None,
            ),
        },
        FragmentSource::Inline { words, entry } => (
            analysis::analyze_module_cached(words),
            analysis::stage_hash(words, entry, spec),
            None,
            inline_experiment.cloned(),
        ),
        FragmentSource::Identifier { .. } => (
            analysis::unknown(
                "the stage gives a shader module identifier; its SPIR-V is not visible to layers",
            ),
            None,
            None,
            None,
        ),
        FragmentSource::Binary => (
            analysis::unknown(
                "the pipeline is created from pipeline binaries; its SPIR-V is not visible to layers",
            ),
            None,
            None,
            None,
        ),
    };
    Fragment {
        analysis,
        entry: src.entry().to_string(),
        source: src.source(),
        hash,
        module_name,
        experiment,
        isa: Vec::new(),
    }
}

/// The pipeline's fragment stage: its own (analysed), or the first linked library's.
fn resolve_fragment(
    d: &Device,
    cap: &PipelineCapture,
    inline_experiment: Option<&pops_report::AppliedExperiment>,
) -> Option<Fragment> {
    if let Some(src) = &cap.fragment {
        return Some(own_fragment(
            d,
            src,
            cap.fragment_spec.as_ref(),
            inline_experiment,
        ));
    }
    cap.libraries
        .iter()
        .filter_map(|l| d.objects.library(*l))
        .find_map(|l| l.fragment.clone())
        .map(|f| Fragment {
            source: Source::Library,
            ..f
        })
}

/// The per-pipeline work: resolve the fragment stage (own or from linked libraries), merge the
/// draw state, remember libraries and interlocked pipelines, report.
pub fn process_pipeline(
    d: &Device,
    handle: u64,
    cap: PipelineCapture,
    inline_experiment: Option<pops_report::AppliedExperiment>,
    isa: Vec<pops_report::Diagnostic>,
) {
    let fragment = resolve_fragment(d, &cap, inline_experiment.as_ref());
    let mut draw = cap.draw.clone();
    for l in cap.libraries.iter().filter_map(|l| d.objects.library(*l)) {
        draw.merge_from(&l.draw);
    }
    if cap.is_library {
        d.objects.add_library(
            handle,
            Library {
                fragment: fragment.clone(),
                draw: draw.clone(),
            },
        );
    }
    let Some(mut frag) = fragment else {
        return;
    };
    frag.isa = isa;
    let kind = if cap.is_library {
        Kind::Library
    } else {
        Kind::Pipeline
    };
    let entry = fragment_entry(&frag.analysis, &frag.entry);
    // Objects whose interlock an experiment removed are followed too: their draws are the
    // application's interlocked work, timed and compared as such.
    let object = (kind == Kind::Pipeline
        && (entry.as_ref().is_ok_and(|e| e.interlock.is_some()) || frag.experiment.is_some()))
    .then(|| {
        d.objects.add_interlocked(Interlocked::new(
            handle,
            Bound::Pipeline,
            frag.clone(),
            draw.clone(),
            cap.dynamic,
        ))
    });
    records::emit(d, kind, (handle, object), &frag, entry, &draw);
}

/// vkDestroyPipeline: the pipeline (or library) and its name go.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy(
    d: &Device,
    next: vk::PFN_vkDestroyPipeline,
    device: vk::Device,
    pipeline: vk::Pipeline,
    p_allocator: *const vk::AllocationCallbacks,
) {
    d.objects.remove(vk::Handle::as_raw(pipeline));
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, pipeline, p_allocator) };
}
