//! Graphics pipelines and libraries: each created pipeline's fragment stage (its own, or a
//! linked library's) is analysed and recorded; interlocked ones are remembered for the draws
//! that bind them. Where the device runs an experiment, inline fragment SPIR-V and modules the
//! experiment targets by name go down rewritten, in copies of the create infos. With
//! `verify_isa`, the driver's code is asked for and read as crate::hooks::pipeline_code says,
//! and a record whose verdict is still being reached waits in the device's outbox.

use super::pipeline_code::{assembly_code, binary_code, capture_flags, Capture, Isa};
use crate::boundary::guarded;
use crate::chain::{self, StageCopy};
use crate::device::Device;
use crate::model::analysis::{self, fragment_entry, ModuleAnalysis};
use crate::model::capture::{FragmentSource, PipelineCapture};
use crate::model::experiment::{self, Active};
use crate::model::object::{Fragment, Interlocked, IsaVerdict, Library};
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
    // verify_isa: interlocked pipelines, and every library, are created with their code kept:
    // their binaries, or their internal representations.
    // SAFETY: as above.
    let mut capture = if valid && d.isa.is_some() {
        unsafe { capture_flags(d, device, p_infos, create_info_count, |c| interlocked(d, c)) }
    } else {
        Vec::new()
    };
    // The driver asked to print its code: the process's exit waits for the creation.
    // SAFETY: as above.
    let _printing = unsafe { super::pipeline_code::printing(&mut capture, p_infos) };
    // SAFETY: as above; only the flags (or the flags structure) of the captured ones change.
    let flagged = unsafe {
        chain::copied_where(p_infos, create_info_count, &capture, |i, c| match c {
            Capture::Kept(k, _) | Capture::Data(k, _) => vk::GraphicsPipelineCreateInfo {
                flags: k.flags,
                p_next: k.p_next,
                ..*i
            },
            Capture::Known(_) | Capture::Unkept | Capture::Exiting => *i,
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
            _ if cap.is_library => Isa::Now(Default::default()),
            // SAFETY: a pipeline of `device` just created with its representations captured.
            (Some(Some(Capture::Kept(_, key))), Some(x), Some(chip)) => unsafe {
                assembly_code(x, device, *p, chip, key.clone())
            },
            // SAFETY: a pipeline of `device` just created with its binaries kept.
            (Some(Some(Capture::Data(_, key))), Some(x), Some(chip)) => unsafe {
                binary_code(d, x, device, *p, chip, key)
            },
            (Some(Some(Capture::Known(verdict))), _, _) => {
                log::debug!(
                    "verify_isa: pipeline 0x{:x}: the driver's key is one verified before (or being verified): its verdict, without capturing the code again",
                    vk::Handle::as_raw(*p)
                );
                Isa::Now(verdict.clone())
            }
            (Some(Some(Capture::Unkept)), _, _) => Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
                pops_report::Severity::Info,
                pops_report::Code::ISA_NOT_VERIFIED,
                "the create info chains a structure the layer does not know before its VkPipelineCreateFlags2CreateInfoKHR, so the layer could not ask the driver to keep the code: not verified",
            )])),
            (Some(Some(Capture::Exiting)), _, _) if interlocked(d, &cap) => Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
                pops_report::Severity::Info,
                pops_report::Code::ISA_NOT_VERIFIED,
                "created while the process exits, after the layer waited for the pipelines printing their code: the driver was not asked to print this one's (printing then can abort the exit), so it is not verified",
            )])),
            // verify_isa asked, the pipeline interlocked, its code out of reach: said so.
            _ => match super::pipeline_code::cannot_verify(d) {
                Some(v) if interlocked(d, &cap) => Isa::Now(v),
                _ => Isa::Now(Default::default()),
            },
        };
        process_pipeline(d, vk::Handle::as_raw(*p), cap, applied, isa);
    }
}

/// Whether the pipeline's fragment stage uses interlock, as far as the layer can tell.
fn interlocked(d: &Device, cap: &PipelineCapture) -> bool {
    resolve_fragment(d, cap, None)
        .is_some_and(|f| fragment_entry(&f.analysis, &f.entry).is_ok_and(|e| e.interlock.is_some()))
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
    // Fossilize hashes the words as the application gave them, then the module's flags
    // (reserved: zero).
    let archived = |words: &[u32]| Some(shaders::spirv::fossilize_module_hash(words, 0));
    let (analysis, hash, module_name, fossilize_module, experiment): (Arc<ModuleAnalysis>, _, _, _, _) =
        match src {
            FragmentSource::Module { module, entry } => match d.modules.get(*module) {
                // Analysed outside any lock, once per module.
                Some(m) => (
                    m.analysis(),
                    analysis::stage_hash(m.words(), entry, spec),
                    d.objects.name(*module),
                    archived(m.words()),
                    m.experiment.clone(),
                ),
                None => (
                    analysis::unknown("the shader module was not created through the layer"),
                    None,
                    d.objects.name(*module),
                    None,
                    None,
                ),
            },
            FragmentSource::Inline { words, entry } => (
                analysis::analyze_module_cached(words),
                analysis::stage_hash(words, entry, spec),
                None,
                archived(words),
                inline_experiment.cloned(),
            ),
            FragmentSource::Identifier { .. } => (
                analysis::unknown(
                    "the stage gives a shader module identifier; its SPIR-V is not visible to layers",
                ),
                None,
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
                None,
            ),
        };
    Fragment {
        analysis,
        entry: src.entry().to_string(),
        source: src.source(),
        hash,
        module_name,
        fossilize_module,
        experiment,
        isa: Default::default(),
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
    isa: Isa,
) {
    let fragment = resolve_fragment(d, &cap, inline_experiment.as_ref());
    let mut draw = cap.draw.clone();
    // A linked pipeline's state is its libraries': so are the states set at draw time (a sample
    // count set with vkCmdSetRasterizationSamplesEXT is the draw's).
    let mut dynamic = cap.dynamic;
    for l in cap.libraries.iter().filter_map(|l| d.objects.library(*l)) {
        draw.merge_from(&l.draw);
        dynamic |= l.dynamic;
    }
    if cap.is_library {
        d.objects.add_library(
            handle,
            Library {
                fragment: fragment.clone(),
                draw: draw.clone(),
                dynamic,
            },
        );
    }
    let Some(mut frag) = fragment else {
        return;
    };
    // A verdict still to be reached: the device's verifier reaches it, and the record waits
    // for it in the device's outbox (with the records after it).
    let (verdict, waits_for) = isa.into_verdict(d);
    frag.isa = verdict;
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
            dynamic,
        ))
    });
    // Written later, maybe from another hook: guarded wherever it runs.
    d.outbox.send(d, waits_for, move |d: &Device| {
        let _ = guarded(&d.health, vkfn::vkCreateGraphicsPipelines, || {
            let entry = fragment_entry(&frag.analysis, &frag.entry);
            records::emit(d, kind, (handle, object), &frag, entry, &draw);
        });
    });
    records::tell_held_messages(d);
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
