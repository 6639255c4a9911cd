//! A pipeline linked from graphics pipeline libraries, mixed attachment samples.

use crate::common::*;

/// Draws of a pipeline linked from four graphics pipeline libraries (the fragment shader
/// library with interlock, 4 samples and depth testing; the fragment output library with an
/// RGBA16F colour attachment of 1 sample: VK_AMD_mixed_attachment_samples), rendering to a
/// 1-sample RGBA16F colour view and a 4-sample D32 depth view. Prints the linked pipeline, the
/// fragment library and the command buffer.
///
/// `dynamic_samples` (scenario `draws-libraries-dynamic`): the libraries take the rasterization
/// sample count at draw time, set to 4 between bind and draw, as Zink's libraries do.
pub(crate) fn scenario_draws_libraries(dynamic_samples: bool) -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-libraries")?;
    require_interlock(&ctx)?;
    if !ctx.caps.gpl || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no graphics pipeline libraries or dynamic rendering",
            ctx.name
        ));
    }
    const SAMPLES: u32 = 4;
    let color_format = vk::Format::R16G16B16A16_SFLOAT;
    let depth_format = vk::Format::D32_SFLOAT;
    let mut fx = Fixed::new(SAMPLES);
    fx.formats = [color_format];
    fx.depth_format = depth_format;
    fx.color_samples = Some(vk::SampleCountFlags::TYPE_1);
    if dynamic_samples {
        if !ctx.caps.dynamic_samples {
            return Err(format!(
                "SKIP {}: no dynamic rasterization samples",
                ctx.name
            ));
        }
        fx.dyn_states
            .push(vk::DynamicState::RASTERIZATION_SAMPLES_EXT);
    }
    fx.ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(true)
        .depth_compare_op(vk::CompareOp::LESS);
    let shader = default_shader(&ctx);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let (fs, linked, libs) = gpl_pipeline(&ctx, &fx, vert, frag)?;
    let (cimage, cmem, cview) = attachment_image(
        &ctx,
        color_format,
        1,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        vk::ImageAspectFlags::COLOR,
    )?;
    let (dimage, dmem, dview) = attachment_image(
        &ctx,
        depth_format,
        SAMPLES,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
    )?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        let color = [vk::RenderingAttachmentInfo::default()
            .image_view(cview)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(dview)
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE);
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1)
                .color_attachments(&color)
                .depth_attachment(&depth),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, linked);
        set_draw_area(&ctx, cb);
        if dynamic_samples {
            ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &ctx.device)
                .cmd_set_rasterization_samples(cb, samples_flag(SAMPLES));
        }
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        ctx.submit_if_asked(cb)?;
        println!(
            "{}",
            serde_json::json!({
                "shader": shader,
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(linked)),
                "library": format!("0x{:x}", vk::Handle::as_raw(fs)),
                "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)),
            })
        );
        d.destroy_command_pool(pool, None);
        for (image, mem, view) in [(cimage, cmem, cview), (dimage, dmem, dview)] {
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(mem, None);
        }
        d.destroy_pipeline(linked, None);
        for l in libs {
            d.destroy_pipeline(l, None);
        }
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}
