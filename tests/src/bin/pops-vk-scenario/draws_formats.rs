//! Six colour attachments of different formats.

use crate::common::*;

/// The colour attachments of the mixed-format draw: format, and whether it blends "over"
/// (source alpha read).
pub(crate) const MIXED_TARGETS: [(vk::Format, bool); 6] = [
    (vk::Format::R8G8B8A8_UNORM, false),
    (vk::Format::R16G16B16A16_SFLOAT, true),
    (vk::Format::R32_UINT, false),
    (vk::Format::R8_UNORM, false),
    (vk::Format::R16G16B16A16_UNORM, true),
    (vk::Format::R32G32_SFLOAT, false),
];

/// One draw of an interlocked pipeline rendering (dynamic rendering) to six colour attachments
/// of different formats, two of them blending with source alpha: each target's export format
/// follows its format and blending. Prints the pipeline and the command buffer.
pub(crate) fn scenario_draws_formats() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-formats")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv("interlock_mrt.frag")?)?;
    let formats = MIXED_TARGETS.map(|(f, _)| f);
    let blend = MIXED_TARGETS.map(|(_, over)| {
        let a = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA);
        if over {
            a.blend_enable(true)
                .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .color_blend_op(vk::BlendOp::ADD)
                .src_alpha_blend_factor(vk::BlendFactor::ONE)
                .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .alpha_blend_op(vk::BlendOp::ADD)
        } else {
            a
        }
    });
    let cb_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let pipeline = rendering_pipeline(
        &ctx,
        &fx,
        (vert, frag),
        &fx.dyn_states,
        &mut rendering,
        Some(&cb_state),
        false,
    )?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let mut images = Vec::new();
        for f in formats {
            images.push(attachment_image(
                &ctx,
                f,
                1,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
                vk::ImageAspectFlags::COLOR,
            )?);
        }
        let atts: Vec<_> = images
            .iter()
            .map(|(_, _, v)| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(*v)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::DONT_CARE)
                    .store_op(vk::AttachmentStoreOp::STORE)
            })
            .collect();
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1)
                .color_attachments(&atts),
        );
        draw_once_and_end(&ctx, cb, pipeline)?;
        ctx.submit_if_asked(cb)?;
        println!(
            "{}",
            serde_json::json!({
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)),
                "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)),
            })
        );
        d.destroy_command_pool(pool, None);
        for (image, mem, view) in images {
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(mem, None);
        }
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}
