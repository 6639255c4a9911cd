//! The object hooks: shader modules, graphics pipelines (and libraries), shader objects and
//! render passes. Each calls down the chain exactly once with the application's own arguments;
//! the layer's work happens after the call returns, inside [`guarded`], and only reads the
//! create infos the specification makes valid ([`crate::capture`]).

use crate::capture::{self, DrawState, FragmentSource, Samples};
use crate::compute::{self, ModuleAnalysis};
use crate::dispatch::{self, guarded, DeviceData, LibraryFragment, LibraryInfo};
use crate::hooks::device_of;
use crate::records::emit;
use crate::report::Kind;
use ash::vk;
use std::ffi::CStr;
use std::sync::Arc;

pub(crate) unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    p_create_info: *const vk::ShaderModuleCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_module: *mut vk::ShaderModule,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_shader_module", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_shader_module else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // The device's interlock experiment, if any: the module goes down rewritten. The words
        // read for it are the ones the module is then remembered by.
        let mut words = None;
        let rewritten = match &d.experiment {
            Some(active) if !p_create_info.is_null() => guarded(&d.health, "experiment", || {
                // SAFETY: the application's valid create info, read as the driver will.
                let w = words.insert(unsafe {
                    let ci = &*p_create_info;
                    capture::code_words(ci.p_code as *const u8, ci.code_size)
                });
                match crate::experiment::apply(active, w) {
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
            .flatten(),
            _ => None,
        };
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
        if result != vk::Result::SUCCESS || p_create_info.is_null() || p_module.is_null() {
            return result;
        }
        let _ = guarded(&d.health, "vkCreateShaderModule", || {
            // SAFETY: success, so the create info was valid and *p_module is the new module.
            let module = vk::Handle::as_raw(unsafe { *p_module });
            let entry = match rewritten {
                Some((words, applied)) => {
                    log::info!(
                        "experiment {}: shader module 0x{module:x}: {}",
                        applied.name,
                        applied.changes.join(", ")
                    );
                    let mut e = dispatch::ModuleEntry::new(words);
                    e.experiment = Some(applied);
                    e
                }
                None => dispatch::ModuleEntry::new(words.unwrap_or_else(|| {
                    // SAFETY: as above.
                    unsafe {
                        let ci = &*p_create_info;
                        capture::code_words(ci.p_code as *const u8, ci.code_size)
                    }
                })),
            };
            let mut m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
            m.insert(module, Arc::new(entry));
        });
        result
    })
}

/// Remembers which attachments each subpass of a new render pass uses.
fn remember_render_pass(
    d: &DeviceData,
    p_render_pass: *mut vk::RenderPass,
    uses: Vec<capture::AttachmentUse>,
) {
    // SAFETY: creation succeeded, so *p_render_pass is the new render pass.
    let rp = vk::Handle::as_raw(unsafe { *p_render_pass });
    let mut m = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
    m.insert(rp, uses.into());
}

pub(crate) unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_render_pass", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_render_pass else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
        if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
            let _ = guarded(&d.health, "vkCreateRenderPass", || {
                // SAFETY: success, so the create info was valid.
                let uses = unsafe { capture::render_pass_use(&*p_create_info) };
                remember_render_pass(&d, p_render_pass, uses);
            });
        }
        result
    })
}

/// vkCreateRenderPass2 and vkCreateRenderPass2KHR, each calling its own next function (`next`
/// picks it).
///
/// # Safety
/// The application's arguments of either function.
unsafe fn create_render_pass2_with(
    name: &str,
    next: fn(&DeviceData) -> Option<vk::PFN_vkCreateRenderPass2>,
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    let Some(d) = device_of(device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = next(&d) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
    if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
        let _ = guarded(&d.health, name, || {
            // SAFETY: success, so the create info was valid.
            let uses = unsafe { capture::render_pass2_use(&*p_create_info) };
            remember_render_pass(&d, p_render_pass, uses);
        });
    }
    result
}

pub(crate) unsafe extern "system" fn create_render_pass2(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_render_pass2", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: forwarded from the caller.
        unsafe {
            create_render_pass2_with(
                "vkCreateRenderPass2",
                |d| d.next.create_render_pass2,
                device,
                p_create_info,
                p_allocator,
                p_render_pass,
            )
        }
    })
}

pub(crate) unsafe extern "system" fn create_render_pass2_khr(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_render_pass2_khr", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: forwarded from the caller.
        unsafe {
            create_render_pass2_with(
                "vkCreateRenderPass2KHR",
                |d| d.next.create_render_pass2_khr,
                device,
                p_create_info,
                p_allocator,
                p_render_pass,
            )
        }
    })
}

pub(crate) unsafe extern "system" fn destroy_render_pass(
    device: vk::Device,
    render_pass: vk::RenderPass,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_render_pass", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        {
            let mut m = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
            m.remove(&vk::Handle::as_raw(render_pass));
        }
        if let Some(next) = d.next.destroy_render_pass {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, render_pass, p_allocator) };
        }
    })
}

pub(crate) unsafe extern "system" fn destroy_shader_module(
    device: vk::Device,
    module: vk::ShaderModule,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_shader_module", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        {
            let mut m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
            m.remove(&vk::Handle::as_raw(module));
        }
        // Its handle may be reused: the name goes with the module.
        d.names
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&vk::Handle::as_raw(module));
        if let Some(next) = d.next.destroy_shader_module {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, module, p_allocator) };
        }
    })
}

pub(crate) unsafe extern "system" fn create_graphics_pipelines(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    create_info_count: u32,
    p_create_infos: *const vk::GraphicsPipelineCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    crate::dispatch::ffi_boundary(
        "create_graphics_pipelines",
        vk::Result::ERROR_UNKNOWN,
        || {
            let Some(d) = device_of(device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(next) = d.next.create_graphics_pipelines else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // The device's interlock experiment, if any: inline fragment SPIR-V, and modules the
            // experiment targets by name, go down rewritten, in copies of the create infos.
            let inline: Vec<Option<Box<crate::experiment::StageCopy>>> = match &d.experiment {
                Some(active) if create_info_count > 0 && !p_create_infos.is_null() => {
                    guarded(&d.health, "experiment", || {
                        // SAFETY: pCreateInfos holds createInfoCount valid create infos.
                        let infos = unsafe {
                            std::slice::from_raw_parts(p_create_infos, create_info_count as usize)
                        };
                        infos
                            .iter()
                            .map(|i| {
                                // SAFETY: a valid create info of this device.
                                unsafe {
                                    crate::experiment::rewrite_inline(active, i)
                                        .or_else(|| named_module_copy(&d, active, device, i))
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default()
                }
                _ => Vec::new(),
            };
            // SAFETY: as above; only the stages of rewritten pipelines change.
            let copies = unsafe {
                copied_where(p_create_infos, create_info_count, &inline, |i, c| {
                    vk::GraphicsPipelineCreateInfo {
                        p_stages: c.stages.as_ptr(),
                        ..*i
                    }
                })
            };
            let p_infos = copies.as_ref().map_or(p_create_infos, |c| c.as_ptr());
            // SAFETY: the application's arguments, inline code rewritten where an experiment
            // applies.
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
            if create_info_count == 0 || p_create_infos.is_null() || p_pipelines.is_null() {
                return result;
            }
            // The attachments a render pass's subpass uses, cloned out of the map's lock.
            let subpass_use = |rp: vk::RenderPass, subpass: u32| {
                let passes = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
                passes
                    .get(&vk::Handle::as_raw(rp))
                    .and_then(|s| s.get(subpass as usize).copied())
            };
            let _ = guarded(&d.health, "vkCreateGraphicsPipelines", || {
                // SAFETY: the call returned, so both arrays hold createInfoCount elements; a non-null
                // pipeline was created from the create info at its index.
                // What went down: the copies where an experiment rewrote inline code.
                let (infos, pipelines) = unsafe {
                    (
                        std::slice::from_raw_parts(p_infos, create_info_count as usize),
                        std::slice::from_raw_parts(p_pipelines, create_info_count as usize),
                    )
                };
                for (k, (info, p)) in infos.iter().zip(pipelines).enumerate() {
                    if *p == vk::Pipeline::null() {
                        continue;
                    }
                    // SAFETY: a valid create info of a pipeline that was created.
                    let cap = unsafe { capture::capture(info, subpass_use) };
                    let applied = inline
                        .get(k)
                        .and_then(|c| c.as_ref().map(|c| c.applied.clone()));
                    process_pipeline(&d, vk::Handle::as_raw(*p), cap, applied);
                }
            });
            // The layer's own modules have served their pipelines.
            for m in inline.iter().flatten().filter_map(|c| c.module) {
                forget_module(&d, vk::Handle::as_raw(m));
                if let Some(destroy) = d.next.destroy_shader_module {
                    // SAFETY: the layer's own module; the pipelines made from it are created.
                    unsafe { destroy(device, m, std::ptr::null()) };
                }
            }
            result
        },
    )
}

/// The application's `count` create infos with those an experiment changed replaced by
/// `change(info, what changed)`, or `None` when the experiment changed none (the application's
/// array then goes down as it is).
///
/// # Safety
/// `infos` must point to `count` valid create infos, `changed` have one entry per info.
unsafe fn copied_where<T: Copy, C>(
    infos: *const T,
    count: u32,
    changed: &[Option<C>],
    change: impl Fn(&T, &C) -> T,
) -> Option<Vec<T>> {
    if !changed.iter().any(Option::is_some) {
        return None;
    }
    // SAFETY: per the caller.
    let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
    Some(
        infos
            .iter()
            .zip(changed)
            .map(|(i, c)| c.as_ref().map_or(*i, |c| change(i, c)))
            .collect(),
    )
}

/// A module leaves the layer's maps: its handle may be reused.
fn forget_module(d: &DeviceData, module: u64) {
    d.modules
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&module);
    d.names
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&module);
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
    d: &DeviceData,
    active: &crate::experiment::Active,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
) -> Option<Box<crate::experiment::StageCopy>> {
    if active.names.is_empty() {
        return None;
    }
    // SAFETY: per the caller.
    let k = unsafe { crate::experiment::fragment_stage(info) }?;
    // SAFETY: stage k exists (fragment_stage found it).
    let module = unsafe { (*info.p_stages.add(k)).module };
    let raw = vk::Handle::as_raw(module);
    let name = d
        .names
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&raw)
        .cloned()?;
    let entry = d
        .modules
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&raw)
        .cloned()?;
    if entry.experiment.is_some() {
        return None;
    }
    let (words, applied) = match crate::experiment::apply_to_named(active, &name, entry.words()) {
        Ok(r) => r?,
        Err(e) => {
            log::warn!(
                "experiment {} not applied to shader module '{name}': {e}",
                active.experiment
            );
            return None;
        }
    };
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
    log::info!(
        "experiment {}: shader module '{name}' (0x{raw:x}): {}",
        applied.name,
        applied.changes.join(", ")
    );
    let mut e = dispatch::ModuleEntry::new(words);
    e.experiment = Some(applied.clone());
    let own_raw = vk::Handle::as_raw(own);
    d.modules
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(own_raw, Arc::new(e));
    d.names
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(own_raw, name);
    // SAFETY: per the caller; stage k is the fragment stage.
    Some(unsafe { crate::experiment::with_module(info, k, own, applied) })
}

fn unknown(reason: &str) -> Arc<ModuleAnalysis> {
    Arc::new(Err(reason.to_string()))
}

/// The per-pipeline work: resolve the fragment stage (own or from linked libraries), merge the
/// draw state, remember libraries, report.
pub fn process_pipeline(
    d: &DeviceData,
    handle: u64,
    cap: capture::PipelineCapture,
    inline_experiment: Option<pops_report::Experiment>,
) {
    let mut fragment: Option<LibraryFragment> = cap.fragment.as_ref().map(|src| {
        let analysis = match src {
            FragmentSource::Module { module, .. } => {
                let entry = {
                    let m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
                    m.get(module).cloned()
                };
                // Analysed outside the map's lock, once per module.
                match entry {
                    Some(e) => e.analysis(),
                    None => unknown("the shader module was not created through the layer"),
                }
            }
            FragmentSource::Inline { words, .. } => compute::analyze_module_cached(words),
            FragmentSource::Identifier { .. } => unknown(
                "the stage gives a shader module identifier; its SPIR-V is not visible to layers",
            ),
            FragmentSource::Binary => unknown(
                "the pipeline is created from pipeline binaries; its SPIR-V is not visible to layers",
            ),
        };
        let hash = match src {
            FragmentSource::Module { module, entry } => {
                let m = d.modules.lock().unwrap_or_else(|p| p.into_inner());
                m.get(module).cloned()
            }
            .and_then(|e| compute::stage_hash(e.words(), entry, cap.fragment_spec.as_ref())),
            FragmentSource::Inline { words, entry } => {
                compute::stage_hash(words, entry, cap.fragment_spec.as_ref())
            }
            FragmentSource::Identifier { .. } | FragmentSource::Binary => None,
        };
        let module_name = match src {
            FragmentSource::Module { module, .. } => d
                .names
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(module)
                .cloned(),
            _ => None,
        };
        let experiment = match src {
            FragmentSource::Module { module, .. } => d
                .modules
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(module)
                .and_then(|m| m.experiment.clone()),
            FragmentSource::Inline { .. } => inline_experiment.clone(),
            _ => None,
        };
        LibraryFragment {
            analysis,
            entry: src.entry().to_string(),
            source: src.label(),
            hash,
            module_name,
            experiment,
        }
    });
    let mut draw = cap.draw.clone();
    if !cap.libraries.is_empty() {
        let libs = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
        for l in &cap.libraries {
            if let Some(li) = libs.get(l) {
                draw.merge_from(&li.draw);
                if fragment.is_none() {
                    fragment = li.fragment.clone().map(|f| LibraryFragment {
                        source: "library",
                        ..f
                    });
                }
            }
        }
    }
    if cap.is_library {
        let mut libs = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
        libs.insert(
            handle,
            Arc::new(LibraryInfo {
                fragment: fragment.clone(),
                draw: draw.clone(),
            }),
        );
    }
    let Some(frag) = fragment else {
        return;
    };
    let kind = if cap.is_library {
        Kind::Library
    } else {
        Kind::Pipeline
    };
    let entry = compute::fragment_entry(&frag.analysis, &frag.entry);
    // Objects whose interlock an experiment removed are followed too: their draws are the
    // application's interlocked work, timed and compared as such.
    if kind == Kind::Pipeline
        && (entry.as_ref().is_ok_and(|e| e.interlock.is_some()) || frag.experiment.is_some())
    {
        d.add_bindable(crate::draws::Bindable {
            handle,
            seq: 0,
            name: Default::default(),
            kind,
            fragment: frag.clone(),
            draw: draw.clone(),
            dynamic: cap.dynamic,
        });
    }
    emit(
        d,
        kind,
        handle,
        frag.source,
        frag.hash.as_deref(),
        &frag.entry,
        entry,
        &draw,
        frag.module_name.as_deref(),
        frag.experiment.as_ref(),
    );
}

pub(crate) unsafe extern "system" fn destroy_pipeline(
    device: vk::Device,
    pipeline: vk::Pipeline,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_pipeline", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        {
            let mut l = d.libraries.lock().unwrap_or_else(|p| p.into_inner());
            l.remove(&vk::Handle::as_raw(pipeline));
        }
        d.remove_bindable(vk::Handle::as_raw(pipeline));
        if let Some(next) = d.next.destroy_pipeline {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, pipeline, p_allocator) };
        }
    })
}

pub(crate) unsafe extern "system" fn create_shaders_ext(
    device: vk::Device,
    create_info_count: u32,
    p_create_infos: *const vk::ShaderCreateInfoEXT,
    p_allocator: *const vk::AllocationCallbacks,
    p_shaders: *mut vk::ShaderEXT,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_shaders_ext", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_shaders_ext else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // The device's interlock experiment, if any: SPIR-V fragment shaders go down rewritten.
        let rewritten: Vec<Option<(Vec<u32>, pops_report::Experiment)>> = match &d.experiment {
            Some(active) if create_info_count > 0 && !p_create_infos.is_null() => {
                guarded(&d.health, "experiment", || {
                    // SAFETY: pCreateInfos holds createInfoCount valid create infos.
                    let infos = unsafe {
                        std::slice::from_raw_parts(p_create_infos, create_info_count as usize)
                    };
                    infos
                        .iter()
                        .map(|info| {
                            if !info.stage.contains(vk::ShaderStageFlags::FRAGMENT)
                                || info.code_type != vk::ShaderCodeTypeEXT::SPIRV
                            {
                                return None;
                            }
                            // SAFETY: pCode holds codeSize bytes.
                            let words = unsafe {
                                capture::code_words(info.p_code as *const u8, info.code_size)
                            };
                            crate::experiment::apply(active, &words).unwrap_or_else(|e| {
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
            _ => Vec::new(),
        };
        // SAFETY: as above; only the code of rewritten stages changes.
        let copies = unsafe {
            copied_where(
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
        if create_info_count == 0 || p_create_infos.is_null() || p_shaders.is_null() {
            return result;
        }
        let _ = guarded(&d.health, "vkCreateShadersEXT", || {
            // SAFETY: both arrays hold createInfoCount elements; failed ones are VK_NULL_HANDLE.
            let (infos, shaders) = unsafe {
                (
                    std::slice::from_raw_parts(p_create_infos, create_info_count as usize),
                    std::slice::from_raw_parts(p_shaders, create_info_count as usize),
                )
            };
            for (k, (info, s)) in infos.iter().zip(shaders).enumerate() {
                let experiment = rewritten.get(k).and_then(|r| r.as_ref());
                if *s == vk::ShaderEXT::null()
                    || !info.stage.contains(vk::ShaderStageFlags::FRAGMENT)
                {
                    continue;
                }
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
                    let words = match experiment {
                        Some((words, _)) => words.clone(),
                        // SAFETY: pCode holds codeSize bytes.
                        None => unsafe {
                            capture::code_words(info.p_code as *const u8, info.code_size)
                        },
                    };
                    // SAFETY: pSpecializationInfo is NULL or valid.
                    let spec = unsafe { capture::specialization(info.p_specialization_info) };
                    let hash = compute::stage_hash(&words, &entry_name, spec.as_ref());
                    (compute::analyze_module(&words), "shader_object_spirv", hash)
                } else {
                    (
                        Err("the shader object was created from a driver binary".to_string()),
                        "shader_object_binary",
                        None,
                    )
                };
                let draw = DrawState {
                    samples: Some(Samples::Dynamic),
                    ..Default::default()
                };
                let analysis = Arc::new(analysis);
                let entry = compute::fragment_entry(&analysis, &entry_name);
                if entry.as_ref().is_ok_and(|e| e.interlock.is_some()) || experiment.is_some() {
                    // A shader object's state is all set at draw time.
                    d.add_bindable(crate::draws::Bindable {
                        handle: vk::Handle::as_raw(*s),
                        seq: 0,
                        name: Default::default(),
                        kind: Kind::ShaderObject,
                        fragment: LibraryFragment {
                            analysis: analysis.clone(),
                            entry: entry_name.clone(),
                            source,
                            hash: hash.clone(),
                            module_name: None,
                            experiment: experiment.map(|(_, a)| a.clone()),
                        },
                        draw: draw.clone(),
                        dynamic: capture::Dynamic::all(),
                    });
                }
                emit(
                    &d,
                    Kind::ShaderObject,
                    vk::Handle::as_raw(*s),
                    source,
                    hash.as_deref(),
                    &entry_name,
                    entry,
                    &draw,
                    None,
                    experiment.map(|(_, a)| a),
                );
            }
        });
        result
    })
}

pub(crate) unsafe extern "system" fn destroy_shader_ext(
    device: vk::Device,
    shader: vk::ShaderEXT,
    p_allocator: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_shader_ext", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        d.remove_bindable(vk::Handle::as_raw(shader));
        if let Some(next) = d.next.destroy_shader_ext {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, shader, p_allocator) };
        }
    })
}
