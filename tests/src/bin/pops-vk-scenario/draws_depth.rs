//! Depth attachments in primaries, secondaries and render passes.

use crate::common::*;

/// Draws rendering to a 4-sample D32_SFLOAT depth attachment with depth testing: one in the
/// primary command buffer, two in a secondary that continues the render pass instance
/// (VkCommandBufferInheritanceRenderingInfo), one more in the primary through a render pass and
/// framebuffer (vkCmdBeginRenderPass2). Prints the pipelines and both command buffers.
pub(crate) fn scenario_draws_depth() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-depth")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    const SAMPLES: u32 = 4;
    let depth_format = vk::Format::D32_SFLOAT;
    let shader = default_shader(&ctx);
    let mut fx = Fixed::new(SAMPLES);
    fx.ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(true)
        .depth_compare_op(vk::CompareOp::LESS);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().depth_attachment_format(depth_format);
    // The state both pipelines share: one for dynamic rendering, one for a render pass.
    let fixed = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .depth_stencil_state(&fx.ds)
        .dynamic_state(&dy)
        .layout(ctx.layout);
    let ci = fixed.push_next(&mut rendering);
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))?[0];
        let (image, mem, view) = attachment_image(
            &ctx,
            depth_format,
            SAMPLES,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageAspectFlags::DEPTH,
        )?;
        let pool = ctx.command_pool()?;
        let primary = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        let secondary = ctx.command_buffer(pool, vk::CommandBufferLevel::SECONDARY)?;
        let area = vk::Rect2D::default().extent(vk::Extent2D {
            width: 64,
            height: 64,
        });
        record_depth_secondary(&ctx, secondary, pipeline, depth_format, SAMPLES)?;
        record_depth_primary(&ctx, primary, secondary, pipeline, view)?;
        // The same attachment through a render pass and framebuffer (vkCmdBeginRenderPass2), with
        // a pipeline created against its subpass.
        let (rp, fb) = depth_render_pass(&ctx, depth_format, SAMPLES, view)?;
        let rp_ci = fixed.render_pass(rp);
        let rp_pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[rp_ci], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines (render pass): {e}"))?[0];
        let clear = [vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 0,
            },
        }];
        d.cmd_begin_render_pass2(
            primary,
            &vk::RenderPassBeginInfo::default()
                .render_pass(rp)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clear),
            &vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE),
        );
        d.cmd_bind_pipeline(primary, vk::PipelineBindPoint::GRAPHICS, rp_pipeline);
        set_draw_area(&ctx, primary);
        d.cmd_draw(primary, 3, 1, 0, 0);
        d.cmd_end_render_pass2(primary, &vk::SubpassEndInfo::default());
        d.end_command_buffer(primary)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        ctx.submit_if_asked(primary)?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "samples": SAMPLES, "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "render_pass_pipeline": format!("0x{:x}", vk::Handle::as_raw(rp_pipeline)), "primary": format!("0x{:x}", vk::Handle::as_raw(primary)), "secondary": format!("0x{:x}", vk::Handle::as_raw(secondary))})
        );
        d.destroy_pipeline(rp_pipeline, None);
        d.destroy_framebuffer(fb, None);
        d.destroy_render_pass(rp, None);
        d.destroy_command_pool(pool, None);
        d.destroy_image_view(view, None);
        d.destroy_image(image, None);
        d.free_memory(mem, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// The secondary: continues a render pass instance with the depth attachment, two draws.
fn record_depth_secondary(
    ctx: &Ctx,
    secondary: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    depth_format: vk::Format,
    samples: u32,
) -> Res<()> {
    let d = &ctx.device;
    // SAFETY: `secondary` was allocated from this device and is recorded once.
    unsafe {
        // The secondary: continues a render pass instance with the depth attachment.
        let mut inh_rendering = vk::CommandBufferInheritanceRenderingInfo::default()
            .depth_attachment_format(depth_format)
            .rasterization_samples(samples_flag(samples));
        let inh = vk::CommandBufferInheritanceInfo::default().push_next(&mut inh_rendering);
        d.begin_command_buffer(
            secondary,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
                .inheritance_info(&inh),
        )
        .map_err(vkerr("vkBeginCommandBuffer (secondary)"))?;
        d.cmd_bind_pipeline(secondary, vk::PipelineBindPoint::GRAPHICS, pipeline);
        set_draw_area(ctx, secondary);
        d.cmd_draw(secondary, 3, 1, 0, 0);
        d.cmd_draw(secondary, 3, 1, 0, 0);
        d.end_command_buffer(secondary)
            .map_err(vkerr("vkEndCommandBuffer (secondary)"))?;
    }
    Ok(())
}

/// A render pass of one subpass with the depth attachment (`vkCreateRenderPass2`) and a
/// framebuffer of `view`.
fn depth_render_pass(
    ctx: &Ctx,
    depth_format: vk::Format,
    samples: u32,
    view: vk::ImageView,
) -> Res<(vk::RenderPass, vk::Framebuffer)> {
    let d = &ctx.device;
    // SAFETY: well-formed create infos; `view` is a live view of this device.
    unsafe {
        let att = [vk::AttachmentDescription2::default()
            .format(depth_format)
            .samples(samples_flag(samples))
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .final_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)];
        let ds_ref = vk::AttachmentReference2::default()
            .attachment(0)
            .layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .aspect_mask(vk::ImageAspectFlags::DEPTH);
        let sub = [vk::SubpassDescription2::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .depth_stencil_attachment(&ds_ref)];
        let rp = d
            .create_render_pass2(
                &vk::RenderPassCreateInfo2::default()
                    .attachments(&att)
                    .subpasses(&sub),
                None,
            )
            .map_err(vkerr("vkCreateRenderPass2"))?;
        let views = [view];
        let fb = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(rp)
                    .attachments(&views)
                    .width(64)
                    .height(64)
                    .layers(1),
                None,
            )
            .map_err(vkerr("vkCreateFramebuffer"))?;
        Ok((rp, fb))
    }
}

/// The primary: one draw of its own, then the secondary in a second render pass instance (the
/// command buffer is left recording).
fn record_depth_primary(
    ctx: &Ctx,
    primary: vk::CommandBuffer,
    secondary: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    view: vk::ImageView,
) -> Res<()> {
    let d = &ctx.device;
    let area = vk::Rect2D::default().extent(vk::Extent2D {
        width: 64,
        height: 64,
    });
    // SAFETY: the command buffers were allocated from this device; `secondary` is recorded.
    unsafe {
        // The primary: one draw of its own, then the secondary in a second render pass
        // instance.
        d.begin_command_buffer(primary, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE);
        let info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .depth_attachment(&depth);
        d.cmd_begin_rendering(primary, &info);
        d.cmd_bind_pipeline(primary, vk::PipelineBindPoint::GRAPHICS, pipeline);
        set_draw_area(ctx, primary);
        d.cmd_draw(primary, 3, 1, 0, 0);
        d.cmd_end_rendering(primary);
        let info2 = info.flags(vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS);
        d.cmd_begin_rendering(primary, &info2);
        d.cmd_execute_commands(primary, &[secondary]);
        d.cmd_end_rendering(primary);
    }
    Ok(())
}
