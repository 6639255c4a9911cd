//! What a pipeline create info shows about its fragment stage and draw state, read without
//! touching any member the Vulkan specification says is ignored for this pipeline, and which an
//! application may therefore leave dangling:
//!
//! - the state of graphics pipeline library subsets the pipeline does not contain;
//! - everything fragment-related under static rasterizer discard;
//! - `pDepthStencilState` when the subpass (or dynamic rendering's formats) uses no depth/stencil
//!   attachment; `pColorBlendState` when it uses no colour attachment;
//! - `pColorBlendState->pAttachments` when blend enable, the blend equation (or advanced blend)
//!   and the write mask are all dynamic (VK_EXT_extended_dynamic_state3);
//! - `pStages` (and its `pName`s) when `VkPipelineBinaryInfoKHR` supplies the binaries.
//!
//! The results are the decision crate's types (`layer_model::capture`).

use super::convert;
use crate::ffi::find_in_chain;
use ash::vk;
use layer_model::capture::{
    AttachmentUse, ColorFormats, DepthAttachment, DepthStencil, Dynamic, FragmentSource,
    PipelineCapture, Samples,
};
use pm4::pops;
use std::ffi::CStr;

/// The flag of a `VkDynamicState`, if it feeds the derivation.
pub fn dynamic_of(s: vk::DynamicState) -> Dynamic {
    use vk::DynamicState as S;
    match s {
        S::RASTERIZATION_SAMPLES_EXT => Dynamic::RASTERIZATION_SAMPLES,
        S::DEPTH_TEST_ENABLE => Dynamic::DEPTH_TEST_ENABLE,
        S::DEPTH_WRITE_ENABLE => Dynamic::DEPTH_WRITE_ENABLE,
        S::DEPTH_COMPARE_OP => Dynamic::DEPTH_COMPARE_OP,
        S::STENCIL_TEST_ENABLE => Dynamic::STENCIL_TEST_ENABLE,
        S::STENCIL_OP => Dynamic::STENCIL_OP,
        S::COLOR_BLEND_ENABLE_EXT => Dynamic::COLOR_BLEND_ENABLE,
        S::COLOR_BLEND_EQUATION_EXT => Dynamic::COLOR_BLEND_EQUATION,
        S::COLOR_WRITE_MASK_EXT => Dynamic::COLOR_WRITE_MASK,
        S::FRAGMENT_SHADING_RATE_KHR => Dynamic::FRAGMENT_SHADING_RATE,
        S::RASTERIZER_DISCARD_ENABLE => Dynamic::RASTERIZER_DISCARD_ENABLE,
        _ => Dynamic::empty(),
    }
}

/// The depth/stencil attachment `index` of a render pass, from its description.
fn depth_of(
    index: Option<u32>,
    describe: impl Fn(u32) -> Option<(vk::Format, u32)>,
) -> DepthAttachment {
    match index.and_then(&describe) {
        Some((format, samples)) => DepthAttachment {
            samples: samples.max(1),
            has_stencil: convert::format_has_stencil(format),
        },
        None => DepthAttachment::default(),
    }
}

/// The attachments each subpass of a render pass uses.
///
/// # Safety
/// `ci` must be a valid `VkRenderPassCreateInfo`.
pub unsafe fn render_pass_use(ci: &vk::RenderPassCreateInfo) -> Vec<AttachmentUse> {
    // SAFETY: pSubpasses holds subpassCount descriptions, each with valid attachment arrays, and
    // pAttachments attachmentCount descriptions.
    unsafe {
        let atts = slice(ci.p_attachments, ci.attachment_count);
        // VkRenderPassMultiviewCreateInfo: subpassCount view masks, or none (no multiview).
        let mv = crate::ffi::find_in_chain(
            ci.p_next,
            vk::StructureType::RENDER_PASS_MULTIVIEW_CREATE_INFO,
        ) as *const vk::RenderPassMultiviewCreateInfo;
        let masks = if mv.is_null() {
            &[][..]
        } else {
            slice((*mv).p_view_masks, (*mv).subpass_count)
        };
        slice(ci.p_subpasses, ci.subpass_count)
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let ds = (!s.p_depth_stencil_attachment.is_null())
                    .then(|| (*s.p_depth_stencil_attachment).attachment);
                let colors = slice(s.p_color_attachments, s.color_attachment_count);
                AttachmentUse {
                    multiview: masks.get(k).is_some_and(|m| *m != 0),
                    ..subpass_use(ds, colors.iter().map(|a| a.attachment), |i| {
                        atts.get(i as usize)
                            .map(|a| (a.format, convert::samples(a.samples)))
                    })
                }
            })
            .collect()
    }
}

/// [`render_pass_use`] for `vkCreateRenderPass2`.
///
/// # Safety
/// `ci` must be a valid `VkRenderPassCreateInfo2`.
pub unsafe fn render_pass2_use(ci: &vk::RenderPassCreateInfo2) -> Vec<AttachmentUse> {
    // SAFETY: as in render_pass_use.
    unsafe {
        let atts = slice(ci.p_attachments, ci.attachment_count);
        slice(ci.p_subpasses, ci.subpass_count)
            .iter()
            .map(|s| {
                let ds = (!s.p_depth_stencil_attachment.is_null())
                    .then(|| (*s.p_depth_stencil_attachment).attachment);
                let colors = slice(s.p_color_attachments, s.color_attachment_count);
                AttachmentUse {
                    multiview: s.view_mask != 0,
                    ..subpass_use(ds, colors.iter().map(|a| a.attachment), |i| {
                        atts.get(i as usize)
                            .map(|a| (a.format, convert::samples(a.samples)))
                    })
                }
            })
            .collect()
    }
}

/// An array of a create info: empty when the pointer is NULL.
///
/// # Safety
/// `p` must be NULL or point to `n` valid elements that outlive the use.
pub unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() {
        &[]
    } else {
        // SAFETY: per the caller.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// One subpass: its depth/stencil attachment index, its colour attachment indices, and the
/// render pass's (format, samples) of an attachment index.
fn subpass_use(
    depth_stencil: Option<u32>,
    colors: impl Iterator<Item = u32>,
    describe: impl Fn(u32) -> Option<(vk::Format, u32)>,
) -> AttachmentUse {
    let ds = depth_stencil.filter(|a| *a != vk::ATTACHMENT_UNUSED);
    let mut color_count = 0;
    let mut color = false;
    let mut formats = Vec::new();
    for a in colors {
        color_count += 1;
        color |= a != vk::ATTACHMENT_UNUSED;
        formats.push(if a == vk::ATTACHMENT_UNUSED {
            vk::Format::UNDEFINED
        } else {
            describe(a).map_or(vk::Format::UNDEFINED, |(f, _)| f)
        });
    }
    AttachmentUse {
        depth_stencil: ds.is_some(),
        color,
        depth: depth_of(ds, describe),
        color_count,
        colors: crate::vk::convert::color_formats(formats),
        multiview: false,
    }
}

const LIBRARY_BIT: u64 = vk::PipelineCreateFlags::LIBRARY_KHR.as_raw() as u64;

/// The state subsets a create info defines (VK_EXT_graphics_pipeline_library): a pipeline
/// without the extension's structure that is neither a library nor linked from libraries is
/// complete.
struct Subsets {
    pre_raster: bool,
    fragment: bool,
    output: bool,
}

/// The create info's flags (`VkPipelineCreateFlags2CreateInfoKHR` where chained).
///
/// # Safety
/// `info` must be a valid create info.
unsafe fn create_flags(info: &vk::GraphicsPipelineCreateInfo) -> u64 {
    // SAFETY: a valid chain; sType identifies the structure.
    unsafe {
        let flags2 = find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR,
        ) as *const vk::PipelineCreateFlags2CreateInfoKHR;
        if flags2.is_null() {
            info.flags.as_raw() as u64
        } else {
            (*flags2).flags.as_raw()
        }
    }
}

/// The libraries linked in (VkPipelineLibraryCreateInfoKHR).
///
/// # Safety
/// `info` must be a valid create info.
unsafe fn linked_libraries(info: &vk::GraphicsPipelineCreateInfo) -> Vec<u64> {
    // SAFETY: a valid chain; pLibraries holds libraryCount handles.
    unsafe {
        let l = find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
        ) as *const vk::PipelineLibraryCreateInfoKHR;
        if l.is_null() {
            return Vec::new();
        }
        slice((*l).p_libraries, (*l).library_count)
            .iter()
            .map(|l| vk::Handle::as_raw(*l))
            .collect()
    }
}

/// # Safety
/// `info` must be a valid create info.
unsafe fn subsets(info: &vk::GraphicsPipelineCreateInfo, partial: bool) -> Subsets {
    use vk::GraphicsPipelineLibraryFlagsEXT as G;
    // SAFETY: a valid chain; sType identifies the structure.
    let gpl = unsafe {
        find_in_chain(
            info.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        ) as *const vk::GraphicsPipelineLibraryCreateInfoEXT
    };
    let flags = if !gpl.is_null() {
        // SAFETY: as above.
        unsafe { (*gpl).flags }
    } else if partial {
        G::empty()
    } else {
        G::VERTEX_INPUT_INTERFACE
            | G::PRE_RASTERIZATION_SHADERS
            | G::FRAGMENT_SHADER
            | G::FRAGMENT_OUTPUT_INTERFACE
    };
    Subsets {
        pre_raster: flags.contains(G::PRE_RASTERIZATION_SHADERS),
        fragment: flags.contains(G::FRAGMENT_SHADER),
        output: flags.contains(G::FRAGMENT_OUTPUT_INTERFACE),
    }
}

/// The create info's dynamic states.
///
/// # Safety
/// `info` must be a valid create info.
unsafe fn dynamic_states<'a>(info: &'a vk::GraphicsPipelineCreateInfo) -> &'a [vk::DynamicState] {
    // SAFETY: pDynamicState is NULL or valid, with dynamicStateCount states.
    unsafe {
        if info.p_dynamic_state.is_null() {
            return &[];
        }
        let d = &*info.p_dynamic_state;
        slice(d.p_dynamic_states, d.dynamic_state_count)
    }
}

/// The attachments the pipeline renders to: a render pass's subpass, or dynamic rendering's
/// formats (no VkPipelineRenderingCreateInfo: no attachments at all); and whether they are known
/// (a render pass the layer did not see created is not).
///
/// # Safety
/// `info` must be a valid create info; `output`: it defines the fragment output interface.
unsafe fn attachments(
    info: &vk::GraphicsPipelineCreateInfo,
    output: bool,
    subpass: impl Fn(vk::RenderPass, u32) -> Option<AttachmentUse>,
) -> (AttachmentUse, bool) {
    if info.render_pass != vk::RenderPass::null() {
        let used = subpass(info.render_pass, info.subpass);
        return (used.unwrap_or(AttachmentUse::UNKNOWN), used.is_some());
    }
    // SAFETY: a valid chain; sType identifies the structure.
    let r = unsafe {
        find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_RENDERING_CREATE_INFO,
        ) as *const vk::PipelineRenderingCreateInfo
    };
    if r.is_null() {
        return (AttachmentUse::UNKNOWN, true);
    }
    // SAFETY: as above.
    let r = unsafe { &*r };
    // pColorAttachmentFormats is valid only with the fragment output interface.
    let colors = if output && r.color_attachment_count > 0 {
        // SAFETY: pColorAttachmentFormats holds colorAttachmentCount formats.
        let formats = unsafe { slice(r.p_color_attachment_formats, r.color_attachment_count) };
        crate::vk::convert::color_formats(formats.iter().copied())
    } else {
        ColorFormats::default()
    };
    let used = AttachmentUse {
        depth_stencil: r.depth_attachment_format != vk::Format::UNDEFINED
            || r.stencil_attachment_format != vk::Format::UNDEFINED,
        color: r.color_attachment_count > 0,
        color_count: r.color_attachment_count,
        colors,
        ..AttachmentUse::UNKNOWN
    };
    (used, true)
}

/// Whether pipeline binaries (VkPipelineBinaryInfoKHR with binaries) replace the stages, which
/// the specification then ignores.
///
/// # Safety
/// `info` must be a valid create info.
unsafe fn from_binaries(info: &vk::GraphicsPipelineCreateInfo) -> bool {
    // SAFETY: a valid chain; sType identifies the structure.
    unsafe {
        let b = find_in_chain(
            info.p_next,
            crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR,
        ) as *const crate::ffi::PipelineBinaryInfoKHR;
        !b.is_null() && (*b).binary_count > 0
    }
}

/// The rasterization state's part: `Err(())` under static rasterizer discard (fragment state
/// is then ignored and may be garbage), else AMD's rasterization order where chained.
///
/// # Safety
/// `info` must be a valid create info that defines the pre-rasterization shader state.
unsafe fn rasterization(
    info: &vk::GraphicsPipelineCreateInfo,
    discard_dynamic: bool,
) -> Result<Option<pops::RasterizationOrder>, ()> {
    if info.p_rasterization_state.is_null() {
        return Ok(None);
    }
    // SAFETY: valid per the caller.
    let rs = unsafe { &*info.p_rasterization_state };
    if rs.rasterizer_discard_enable == vk::TRUE && !discard_dynamic {
        return Err(());
    }
    // SAFETY: the rasterization state's valid chain; sType identifies the structure.
    let order = unsafe {
        find_in_chain(
            rs.p_next,
            vk::StructureType::PIPELINE_RASTERIZATION_STATE_RASTERIZATION_ORDER_AMD,
        ) as *const vk::PipelineRasterizationStateRasterizationOrderAMD
    };
    // SAFETY: as above.
    Ok((!order.is_null()).then(|| unsafe {
        if (*order).rasterization_order == vk::RasterizationOrderAMD::RELAXED {
            pops::RasterizationOrder::Relaxed
        } else {
            pops::RasterizationOrder::Strict
        }
    }))
}

/// Whether a shading rate other than 1x1 may be used: dynamic, or a static rate or combiner.
///
/// # Safety
/// `info` must be a valid create info.
unsafe fn shading_rate(info: &vk::GraphicsPipelineCreateInfo, dynamic: bool) -> bool {
    // SAFETY: a valid chain; sType identifies the structure.
    let vrs = unsafe {
        find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_FRAGMENT_SHADING_RATE_STATE_CREATE_INFO_KHR,
        ) as *const vk::PipelineFragmentShadingRateStateCreateInfoKHR
    };
    // SAFETY: as above.
    let fixed = !vrs.is_null()
        && unsafe {
            let v = &*vrs;
            v.fragment_size.width > 1
                || v.fragment_size.height > 1
                || v.combiner_ops[0] != vk::FragmentShadingRateCombinerOpKHR::KEEP
                || v.combiner_ops[1] != vk::FragmentShadingRateCombinerOpKHR::KEEP
        };
    dynamic || fixed
}

/// The fragment stage and its specialization constants.
///
/// # Safety
/// `info` must be a valid create info that defines the fragment shader state and whose stages
/// are not replaced by binaries.
unsafe fn fragment_stage(
    info: &vk::GraphicsPipelineCreateInfo,
) -> (
    Option<FragmentSource>,
    Option<shaders::spirv::Specialization>,
) {
    // SAFETY: pStages holds stageCount valid stages.
    let stages = unsafe { slice(info.p_stages, info.stage_count) };
    match stages
        .iter()
        .find(|s| s.stage.contains(vk::ShaderStageFlags::FRAGMENT))
    {
        // SAFETY: a valid stage.
        Some(st) => unsafe {
            (
                fragment_source(st),
                specialization(st.p_specialization_info),
            )
        },
        None => (None, None),
    }
}

/// The depth/stencil state.
///
/// # Safety
/// `ds` must be a valid depth/stencil state.
unsafe fn depth_stencil(ds: *const vk::PipelineDepthStencilStateCreateInfo) -> DepthStencil {
    // SAFETY: per the caller.
    let ds = unsafe { &*ds };
    DepthStencil {
        has_stencil: false,
        depth_test: ds.depth_test_enable == vk::TRUE,
        depth_write: ds.depth_write_enable == vk::TRUE,
        depth_compare: convert::compare_op(ds.depth_compare_op),
        stencil_test: ds.stencil_test_enable == vk::TRUE,
        front: convert::stencil_face(&ds.front),
        back: convert::stencil_face(&ds.back),
    }
}

/// The colour attachments' blend state.
///
/// # Safety
/// `cb` must be a valid colour blend state whose attachments the specification makes valid.
unsafe fn blend(cb: *const vk::PipelineColorBlendStateCreateInfo) -> Vec<pops::BlendTarget> {
    // SAFETY: per the caller: pAttachments holds attachmentCount states.
    let atts = unsafe { slice((*cb).p_attachments, (*cb).attachment_count) };
    atts.iter().map(convert::blend_target).collect()
}

/// Reads a create info. `subpass` gives the attachments the subpass of a render pass uses
/// (`None` when the layer did not see the render pass created); dynamic rendering's are read
/// from `VkPipelineRenderingCreateInfo`.
///
/// # Safety
/// `info` must be a valid `VkGraphicsPipelineCreateInfo` as the application passed it to
/// vkCreateGraphicsPipelines (the call has already returned): every member the specification
/// makes valid for this pipeline is valid.
pub unsafe fn capture(
    info: &vk::GraphicsPipelineCreateInfo,
    subpass: impl Fn(vk::RenderPass, u32) -> Option<AttachmentUse>,
) -> PipelineCapture {
    let mut out = PipelineCapture::default();
    // SAFETY (whole function): every pointer is read only where the specification requires it
    // to be valid for this pipeline's subsets, as the caller's valid usage guarantees; the
    // readers above say which.
    unsafe {
        out.is_library = create_flags(info) & LIBRARY_BIT != 0;
        out.libraries = linked_libraries(info);
        let sub = subsets(info, out.is_library || !out.libraries.is_empty());
        let dynamic = dynamic_states(info);
        let is_dynamic = |s: vk::DynamicState| dynamic.contains(&s);
        out.dynamic = dynamic.iter().fold(Dynamic::empty(), |m, s| {
            m | crate::vk::capture::dynamic_of(*s)
        });
        let (attachments, known) = attachments(info, sub.output, subpass);
        if sub.pre_raster {
            match rasterization(
                info,
                is_dynamic(vk::DynamicState::RASTERIZER_DISCARD_ENABLE),
            ) {
                Ok(order) => out.draw.rasterization_order = order,
                // Static rasterizer discard: fragment state is ignored and may be garbage.
                Err(()) => return out,
            }
        }
        if sub.pre_raster || sub.fragment {
            out.draw.vrs = Some(shading_rate(
                info,
                is_dynamic(vk::DynamicState::FRAGMENT_SHADING_RATE_KHR),
            ));
        }
        if sub.fragment && from_binaries(info) {
            out.fragment = Some(FragmentSource::Binary);
        } else if sub.fragment {
            (out.fragment, out.fragment_spec) = fragment_stage(info);
        }
        if sub.fragment || sub.output {
            if is_dynamic(vk::DynamicState::RASTERIZATION_SAMPLES_EXT) {
                out.draw.samples = Some(Samples::Dynamic);
            }
            if !info.p_multisample_state.is_null() {
                let ms = &*info.p_multisample_state;
                if out.draw.samples.is_none() {
                    out.draw.samples =
                        Some(Samples::Static(convert::samples(ms.rasterization_samples)));
                }
                out.draw.sample_shading = Some(ms.sample_shading_enable == vk::TRUE);
            }
        }
        if sub.fragment && attachments.depth_stencil && !info.p_depth_stencil_state.is_null() {
            out.draw.depth_stencil = Some(depth_stencil(info.p_depth_stencil_state));
        }
        // "pAttachments ... is ignored if" blend enable, the equation (or advanced blend) and the
        // write mask are all dynamic.
        let blend_dynamic = is_dynamic(vk::DynamicState::COLOR_BLEND_ENABLE_EXT)
            && is_dynamic(vk::DynamicState::COLOR_WRITE_MASK_EXT)
            && (is_dynamic(vk::DynamicState::COLOR_BLEND_EQUATION_EXT)
                || is_dynamic(vk::DynamicState::COLOR_BLEND_ADVANCED_EXT));
        if sub.output && known {
            out.draw.color_formats = Some(attachments.colors);
            if !attachments.color {
                // No colour attachment: nothing is written (the export requirement then applies).
                out.draw.blend = Some(Vec::new());
            }
        }
        if sub.output && attachments.color && !blend_dynamic && !info.p_color_blend_state.is_null()
        {
            out.draw.blend = Some(blend(info.p_color_blend_state));
        }
    }
    out
}

/// The fragment stage's SPIR-V source.
///
/// # Safety
/// `st` must be a valid `VkPipelineShaderStageCreateInfo`.
pub unsafe fn fragment_source(st: &vk::PipelineShaderStageCreateInfo) -> Option<FragmentSource> {
    // SAFETY: pName is a valid null-terminated string per valid usage.
    let entry = if st.p_name.is_null() {
        "main".to_string()
    } else {
        unsafe { CStr::from_ptr(st.p_name) }
            .to_string_lossy()
            .into_owned()
    };
    if st.module != vk::ShaderModule::null() {
        return Some(FragmentSource::Module {
            module: vk::Handle::as_raw(st.module),
            entry,
        });
    }
    // SAFETY: the stage's pNext chain is valid per valid usage.
    let smci = unsafe { find_in_chain(st.p_next, vk::StructureType::SHADER_MODULE_CREATE_INFO) }
        as *const vk::ShaderModuleCreateInfo;
    if !smci.is_null() {
        // SAFETY: sType identifies the structure; pCode holds codeSize bytes.
        let words = unsafe { code_words((*smci).p_code as *const u8, (*smci).code_size) };
        return Some(FragmentSource::Inline { words, entry });
    }
    // SAFETY: as above.
    let ident = unsafe {
        find_in_chain(
            st.p_next,
            vk::StructureType::PIPELINE_SHADER_STAGE_MODULE_IDENTIFIER_CREATE_INFO_EXT,
        )
    };
    if !ident.is_null() {
        return Some(FragmentSource::Identifier { entry });
    }
    None
}

/// A stage's specialization constants (`pSpecializationInfo`), copied.
///
/// # Safety
/// `info` must be NULL or a valid `VkSpecializationInfo`.
pub unsafe fn specialization(
    info: *const vk::SpecializationInfo,
) -> Option<shaders::spirv::Specialization> {
    if info.is_null() {
        return None;
    }
    // SAFETY: a valid specialization info: mapEntryCount entries and dataSize bytes.
    unsafe {
        let i = &*info;
        let entries = slice(i.p_map_entries, i.map_entry_count)
            .iter()
            .map(|e| (e.constant_id, e.offset, e.size as u64))
            .collect();
        let data = if i.p_data.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(i.p_data as *const u8, i.data_size).to_vec()
        };
        Some(shaders::spirv::Specialization { entries, data })
    }
}

/// Copies SPIR-V code into words, whatever the pointer's alignment; a trailing partial word is
/// dropped (the analysis then reports the module as malformed).
///
/// # Safety
/// `code` must be null or point to `size` readable bytes.
pub unsafe fn code_words(code: *const u8, size: usize) -> Vec<u32> {
    if code.is_null() {
        return Vec::new();
    }
    if code.align_offset(std::mem::align_of::<u32>()) == 0 {
        // pCode is a `const uint32_t*` in the API, so this is the usual case: one copy.
        // SAFETY: forwarded from the caller (size bytes readable), and the pointer is aligned
        // for u32; size / 4 whole words lie within those bytes.
        return unsafe { std::slice::from_raw_parts(code as *const u32, size / 4) }.to_vec();
    }
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { std::slice::from_raw_parts(code, size) };
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use layer_model::capture::CapturedState;
    use pops_report::Source;

    #[test]
    fn code_words_aligned_and_unaligned_agree() {
        let words: Vec<u32> = vec![0x0723_0203, 0x0001_0000, 0xdead_beef, 7];
        let mut bytes: Vec<u8> = vec![0xff];
        for w in &words {
            bytes.extend_from_slice(&w.to_ne_bytes());
        }
        bytes.push(0xaa);
        // SAFETY: each pointer/size pair lies within `bytes` or `words`.
        unsafe {
            let aligned = words.as_ptr() as *const u8;
            assert_eq!(code_words(aligned, 16), words);
            assert_eq!(code_words(aligned, 15), words[..3]);
            let unaligned = bytes.as_ptr().add(1);
            assert_ne!(unaligned.align_offset(4), 0);
            assert_eq!(code_words(unaligned, 16), words);
            assert_eq!(code_words(unaligned, 17), words);
            assert!(code_words(std::ptr::null(), 16).is_empty());
        }
    }

    fn stage<'a>(
        module: vk::ShaderModule,
        name: &'a CStr,
    ) -> vk::PipelineShaderStageCreateInfo<'a> {
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(module)
            .name(name)
    }

    /// A render pass whose subpass uses a colour and a depth/stencil attachment.
    fn both(_: vk::RenderPass, _: u32) -> Option<AttachmentUse> {
        Some(AttachmentUse {
            depth_stencil: true,
            color: true,
            ..AttachmentUse::UNKNOWN
        })
    }

    /// An address that must never be dereferenced: the tests below would crash on it.
    fn poison<T>() -> *const T {
        0x10 as *const T
    }

    /// "pDepthStencilState ... is ignored if ... the subpass ... does not use a depth/stencil
    /// attachment" (dynamic rendering: both formats VK_FORMAT_UNDEFINED); "pColorBlendState ...
    /// is ignored if ... the subpass ... does not use any color attachments".
    #[test]
    fn depth_and_blend_state_are_not_read_without_their_attachments() {
        let name = c"main";
        let stages = [stage(vk::Handle::from_raw(0x1234), name)];
        let colour = [vk::Format::R8G8B8A8_UNORM];
        // Dynamic rendering with a colour target and no depth/stencil format.
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&colour);
        let att = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .color_blend_state(&cb)
            .push_next(&mut rendering);
        info.p_depth_stencil_state = poison();
        // SAFETY: every member the specification makes valid here is valid.
        let c = unsafe { capture(&info, |_, _| panic!("no render pass")) };
        assert_eq!(c.draw.depth_stencil, None);
        assert_eq!(c.draw.blend.as_ref().map(|b| b.len()), Some(1));
        // A render pass subpass with neither attachment: both ignored; no colour target is
        // written.
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .render_pass(vk::Handle::from_raw(0x77));
        info.p_depth_stencil_state = poison();
        info.p_color_blend_state = poison();
        let none = |_: vk::RenderPass, _: u32| Some(AttachmentUse::UNKNOWN);
        // SAFETY: as above.
        let c = unsafe { capture(&info, none) };
        assert_eq!((c.draw.depth_stencil, c.draw.blend), (None, Some(vec![])));
        assert!(c.fragment.is_some());
    }

    /// "pAttachments ... is ignored if the pipeline is created with
    /// VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT, VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT, and
    /// VK_DYNAMIC_STATE_COLOR_WRITE_MASK_EXT dynamic states set".
    #[test]
    fn blend_attachments_are_not_read_when_all_blend_state_is_dynamic() {
        let dyn_states = [
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_states);
        let cb = vk::PipelineColorBlendStateCreateInfo {
            attachment_count: 4,
            p_attachments: poison(),
            ..Default::default()
        };
        let info = vk::GraphicsPipelineCreateInfo::default()
            .color_blend_state(&cb)
            .dynamic_state(&dy)
            .render_pass(vk::Handle::from_raw(0x77));
        // SAFETY: as above.
        let c = unsafe { capture(&info, both) };
        assert_eq!(c.draw.blend, None);
        // Two of the three dynamic: the attachments are valid and read.
        let att = [vk::PipelineColorBlendAttachmentState::default(); 2];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_states[..2]);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .color_blend_state(&cb)
            .dynamic_state(&dy)
            .render_pass(vk::Handle::from_raw(0x77));
        // SAFETY: as above.
        let c = unsafe { capture(&info, both) };
        assert_eq!(c.draw.blend.map(|b| b.len()), Some(2));
    }

    /// VkPipelineBinaryInfoKHR with binaries: "pStages ... is ignored".
    #[test]
    fn stages_are_not_read_when_pipeline_binaries_are_given() {
        let binaries = [5u64];
        let bi = crate::ffi::PipelineBinaryInfoKHR {
            s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR,
            p_next: std::ptr::null(),
            binary_count: 1,
            p_pipeline_binaries: binaries.as_ptr(),
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_next: &bi as *const _ as *const std::ffi::c_void,
            stage_count: 2,
            p_stages: poison(),
            ..Default::default()
        };
        // SAFETY: as above.
        let c = unsafe { capture(&info, both) };
        assert_eq!(c.fragment, Some(FragmentSource::Binary));
        assert_eq!(c.fragment.map(|f| f.source()), Some(Source::PipelineBinary));
    }

    #[test]
    fn full_pipeline_reads_fragment_and_draw_state() {
        let name = c"main";
        let stages = [stage(vk::Handle::from_raw(0x1234), name)];
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_4)
            .sample_shading_enable(true);
        let att = [vk::PipelineColorBlendAttachmentState::default()
            .blend_enable(true)
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
        let ds = vk::PipelineDepthStencilStateCreateInfo::default().depth_test_enable(true);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .multisample_state(&ms)
            .color_blend_state(&cb)
            .depth_stencil_state(&ds)
            .render_pass(vk::Handle::from_raw(0x77));
        // SAFETY: a well-formed create info built above.
        let c = unsafe { capture(&info, both) };
        assert!(!c.is_library);
        assert_eq!(
            c.fragment,
            Some(FragmentSource::Module {
                module: 0x1234,
                entry: "main".into()
            })
        );
        assert_eq!(c.draw.samples, Some(Samples::Static(4)));
        assert_eq!(c.draw.sample_shading, Some(true));
        assert_eq!(c.draw.blend.as_ref().map(|b| b.len()), Some(1));
        assert_eq!(c.draw.depth_stencil.map(|d| d.depth_test), Some(true));
        assert_eq!(c.draw.vrs, Some(false));
    }

    #[test]
    fn inline_module_and_dynamic_samples() {
        let code = [0x0723_0203u32, 0x0001_0000, 0, 1, 0];
        let mut smci = vk::ShaderModuleCreateInfo::default().code(&code);
        let name = c"fs";
        let stages = [stage(vk::ShaderModule::null(), name).push_next(&mut smci)];
        let dyn_states = [vk::DynamicState::RASTERIZATION_SAMPLES_EXT];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_states);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .dynamic_state(&dy);
        // SAFETY: a well-formed create info built above.
        let c = unsafe { capture(&info, both) };
        assert_eq!(
            c.fragment,
            Some(FragmentSource::Inline {
                words: code.to_vec(),
                entry: "fs".into()
            })
        );
        assert_eq!(c.draw.samples, Some(Samples::Dynamic));
    }

    #[test]
    fn library_subsets_limit_what_is_read() {
        // A fragment-output library: pStages is ignored by the spec, so a dangling pointer there
        // must not be read.
        let mut gpl = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
            .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE);
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_8);
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::LIBRARY_KHR)
            .multisample_state(&ms)
            .push_next(&mut gpl);
        info.stage_count = 3;
        info.p_stages = 0x10 as *const _; // never dereferenced for this subset
                                          // SAFETY: only the fragment-output subset is read, which is valid.
        let c = unsafe { capture(&info, both) };
        assert!(c.is_library);
        assert_eq!(c.fragment, None);
        assert_eq!(c.draw.samples, Some(Samples::Static(8)));
        assert_eq!(c.draw.depth_stencil, None);
    }

    #[test]
    fn linked_pipeline_lists_libraries_and_merges_state() {
        let libs = [vk::Handle::from_raw(7u64), vk::Handle::from_raw(9u64)];
        let mut li = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
        let info = vk::GraphicsPipelineCreateInfo::default().push_next(&mut li);
        // SAFETY: well-formed.
        let c = unsafe { capture(&info, both) };
        assert_eq!(c.libraries, vec![7, 9]);
        assert!(!c.is_library);
        let mut d = c.draw.clone();
        d.merge_from(&CapturedState {
            samples: Some(Samples::Static(2)),
            ..Default::default()
        });
        assert_eq!(d.samples, Some(Samples::Static(2)));
    }

    #[test]
    fn static_rasterizer_discard_ignores_fragment_state() {
        let rs =
            vk::PipelineRasterizationStateCreateInfo::default().rasterizer_discard_enable(true);
        let mut info = vk::GraphicsPipelineCreateInfo::default().rasterization_state(&rs);
        info.p_multisample_state = 0x10 as *const _; // ignored per the spec
                                                     // SAFETY: only the rasterization state is read.
        let c = unsafe { capture(&info, both) };
        assert_eq!(c.fragment, None);
        assert_eq!(c.draw.samples, None);
    }
}
