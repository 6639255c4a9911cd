//! Create-info members the specification ignores point at inaccessible memory.

use crate::common::*;

/// One page the process may not touch: any read of it is a SIGSEGV.
pub(crate) fn inaccessible_page() -> Res<*const std::ffi::c_void> {
    use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
    // SAFETY: a fresh anonymous private mapping, never unmapped (the process ends with it).
    let p = unsafe {
        mmap_anonymous(
            None,
            std::num::NonZeroUsize::new(4096).ok_or("page size")?,
            ProtFlags::PROT_NONE,
            MapFlags::MAP_PRIVATE,
        )
    }
    .map_err(|e| format!("mmap: {e}"))?;
    Ok(p.as_ptr() as *const std::ffi::c_void)
}

/// Pipelines whose create infos carry pointers to an inaccessible page in every member the
/// specification says is ignored for them; prints each case's result. With and without the
/// layer the results must be the same, and the process must survive.
pub(crate) fn scenario_poison() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-poison")?;
    let poison = inaccessible_page()?;
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let att = fx.att;
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let base = || {
        vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&fx.vi)
            .input_assembly_state(&fx.ia)
            .viewport_state(&fx.vp)
            .rasterization_state(&fx.rs)
            .multisample_state(&fx.ms)
            .layout(ctx.layout)
    };
    let mut results = Vec::new();
    let mut run = |case: &str, ci: vk::GraphicsPipelineCreateInfo<'_>| {
        // SAFETY: every member the specification makes valid for this pipeline is valid; the
        // others point to an inaccessible page, as an application may leave them.
        let r = unsafe {
            ctx.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
        };
        let result = match r {
            Ok(p) => {
                // SAFETY: live pipeline.
                unsafe { ctx.device.destroy_pipeline(p[0], None) };
                "created".to_string()
            }
            Err((_, e)) => e.to_string(),
        };
        println!("{}", serde_json::json!({"case": case, "result": result}));
        results.push(result);
    };

    // 1. A render pass whose subpass has a colour attachment and no depth/stencil attachment:
    //    pDepthStencilState is ignored.
    let rp = colour_only_render_pass(&ctx)?;
    let mut ci = base()
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .render_pass(rp);
    ci.p_depth_stencil_state = poison.cast();
    run("render-pass-without-depth: pDepthStencilState", ci);

    // 2. Dynamic rendering with a colour format and no depth/stencil formats.
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
    let mut ci = base()
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .push_next(&mut rendering);
    ci.p_depth_stencil_state = poison.cast();
    run("dynamic-rendering-without-depth: pDepthStencilState", ci);

    // 3. Dynamic rendering with no attachment at all: pColorBlendState is ignored too.
    let mut nothing = vk::PipelineRenderingCreateInfo::default();
    let mut ci = base().dynamic_state(&dy).push_next(&mut nothing);
    ci.p_depth_stencil_state = poison.cast();
    ci.p_color_blend_state = poison.cast();
    run(
        "dynamic-rendering-without-attachments: pDepthStencilState, pColorBlendState",
        ci,
    );

    // 4. Blend enable, equation and write mask dynamic: pAttachments is ignored.
    if ctx.caps.dynamic_blend {
        let dyn_blend = [
            vk::DynamicState::VIEWPORT,
            vk::DynamicState::SCISSOR,
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ];
        let dyb = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_blend);
        let cb_poison = vk::PipelineColorBlendStateCreateInfo {
            attachment_count: 1,
            p_attachments: poison.cast(),
            ..Default::default()
        };
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
        let ci = base()
            .color_blend_state(&cb_poison)
            .dynamic_state(&dyb)
            .push_next(&mut rendering);
        run("dynamic-blend: pColorBlendState->pAttachments", ci);
    } else {
        println!(
            "{}",
            serde_json::json!({"case": "dynamic-blend: pColorBlendState->pAttachments", "result": "unsupported"})
        );
    }
    // SAFETY: objects of this context, destroyed once.
    unsafe {
        ctx.device.destroy_render_pass(rp, None);
        ctx.device.destroy_shader_module(vert, None);
        ctx.device.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// A render pass of one subpass with one RGBA8 colour attachment and no depth/stencil.
fn colour_only_render_pass(ctx: &Ctx) -> Res<vk::RenderPass> {
    let color = [vk::AttachmentDescription::default()
        .format(vk::Format::R8G8B8A8_UNORM)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::DONT_CARE)
        .store_op(vk::AttachmentStoreOp::STORE)
        .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
    let color_ref = [vk::AttachmentReference::default()
        .attachment(0)
        .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
    let subpass = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref)];
    let rpci = vk::RenderPassCreateInfo::default()
        .attachments(&color)
        .subpasses(&subpass);
    // SAFETY: valid create info.
    unsafe { ctx.device.create_render_pass(&rpci, None) }.map_err(vkerr("vkCreateRenderPass"))
}
