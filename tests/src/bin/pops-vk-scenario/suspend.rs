//! A dynamic render pass instance suspended in one command buffer and resumed in the next.

use crate::common::*;

/// Two primary command buffers: the first begins a render pass instance with
/// VK_RENDERING_SUSPENDING_BIT and draws once with the interlocked pipeline; the second resumes
/// it (VK_RENDERING_RESUMING_BIT) first thing and draws once more. Prints both handles.
pub(crate) fn scenario_suspend() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-suspend")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let dyn_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &dyn_states)?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let cbs = [
            ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?,
            ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?,
        ];
        for (k, flags) in [vk::RenderingFlags::SUSPENDING, vk::RenderingFlags::RESUMING]
            .into_iter()
            .enumerate()
        {
            let cb = cbs[k];
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .map_err(vkerr("vkBeginCommandBuffer"))?;
            d.cmd_begin_rendering(
                cb,
                &vk::RenderingInfo::default()
                    .flags(flags)
                    .render_area(DRAW_AREA)
                    .layer_count(1),
            );
            draw_once_and_end(&ctx, cb, pipeline)?;
        }
        println!(
            "{}",
            serde_json::json!({"command_buffers": cbs.iter().map(|c| format!("0x{:x}", vk::Handle::as_raw(*c))).collect::<Vec<_>>()})
        );
        destroy_drawn(&ctx, pool, pipeline, (vert, frag));
    }
    ctx.destroy();
    Ok(())
}
