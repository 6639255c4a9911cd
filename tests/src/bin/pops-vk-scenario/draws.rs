//! A dynamic rasterization sample count changing between draws.

use crate::common::*;

/// The rasterization sample counts the `draws` scenario sets before its draws, in order.
pub(crate) const DRAW_SAMPLES: [u32; 4] = [1, 4, 4, 8];

/// One command buffer whose interlocked pipeline takes its rasterization sample count at draw
/// time (VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT), in dynamic rendering without attachments:
/// one draw per entry of DRAW_SAMPLES. Prints the pipeline, the command buffer and the samples.
pub(crate) fn scenario_draws() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_samples || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no dynamic rasterization samples or dynamic rendering",
            ctx.name
        ));
    }
    let shader = default_shader(&ctx);
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let dyn_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::RASTERIZATION_SAMPLES_EXT,
    ];
    // The application's name for the fragment module, given before the pipeline is created.
    // SAFETY: a live module of this device.
    unsafe {
        ash::ext::debug_utils::Device::new(&ctx.instance, &ctx.device)
            .set_debug_utils_object_name(
                &vk::DebugUtilsObjectNameInfoEXT::default()
                    .object_handle(frag)
                    .object_name(c"oit.frag"),
            )
            .map_err(vkerr("vkSetDebugUtilsObjectNameEXT"))?;
    }
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &dyn_states)?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_attachmentless(&ctx, cb, pipeline)?;
        // The application's name for the pipeline, given after creation as engines do.
        let du = ash::ext::debug_utils::Device::new(&ctx.instance, d);
        du.set_debug_utils_object_name(
            &vk::DebugUtilsObjectNameInfoEXT::default()
                .object_handle(pipeline)
                .object_name(c"oit colour pass"),
        )
        .map_err(vkerr("vkSetDebugUtilsObjectNameEXT"))?;
        let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, d);
        for n in DRAW_SAMPLES {
            eds3.cmd_set_rasterization_samples(cb, samples_flag(n));
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        ctx.submit_if_asked(cb)?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)), "samples": DRAW_SAMPLES})
        );
        destroy_drawn(&ctx, pool, pipeline, (vert, frag));
    }
    ctx.destroy();
    Ok(())
}
