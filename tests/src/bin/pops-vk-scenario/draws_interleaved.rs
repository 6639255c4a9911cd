//! Command buffers recorded in alternation.

use crate::common::*;

/// Many repeated draws in command buffers recorded in alternation (the layer's lock-free draw
/// counting, its table and its slow path): A and B draw with the interlocked pipeline at 4
/// samples, drawing in turn; A also binds a plain pipeline for some draws (not counted) and
/// changes its sample count once; C draws only with the plain pipeline. Prints the handles and
/// the draws each made.
pub(crate) fn scenario_draws_interleaved() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-interleaved")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_samples || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no dynamic rasterization samples or dynamic rendering",
            ctx.name
        ));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let plain_frag = ctx.module(spv("color.frag")?)?;
    let dyn_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::RASTERIZATION_SAMPLES_EXT,
    ];
    let interlocked = attachmentless_pipeline(&ctx, &fx, vert, frag, &dyn_states)?;
    let plain = attachmentless_pipeline(&ctx, &fx, vert, plain_frag, &dyn_states)?;
    let d = &ctx.device;
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, d);
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let [a, b, c] = [(); 3].map(|_| ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY));
        let (a, b, c) = (a?, b?, c?);
        begin_attachmentless(&ctx, a, interlocked)?;
        begin_attachmentless(&ctx, b, interlocked)?;
        begin_attachmentless(&ctx, c, plain)?;
        for cb in [a, b, c] {
            eds3.cmd_set_rasterization_samples(cb, vk::SampleCountFlags::TYPE_4);
        }
        let (mut a4, mut a8, mut b4) = (0u32, 0u32, 0u32);
        for i in 0..300u32 {
            match i {
                100 => d.cmd_bind_pipeline(a, vk::PipelineBindPoint::GRAPHICS, plain),
                150 => d.cmd_bind_pipeline(a, vk::PipelineBindPoint::GRAPHICS, interlocked),
                250 => eds3.cmd_set_rasterization_samples(a, vk::SampleCountFlags::TYPE_8),
                _ => {}
            }
            d.cmd_draw(a, 3, 1, 0, 0);
            if !(100..150).contains(&i) {
                if i < 250 {
                    a4 += 1;
                } else {
                    a8 += 1;
                }
            }
            d.cmd_draw(b, 3, 1, 0, 0);
            b4 += 1;
            d.cmd_draw(c, 3, 1, 0, 0);
        }
        for cb in [a, b, c] {
            d.cmd_end_rendering(cb);
            d.end_command_buffer(cb)
                .map_err(vkerr("vkEndCommandBuffer"))?;
        }
        for cb in [a, b, c] {
            ctx.submit_if_asked(cb)?;
        }
        let h = |cb: vk::CommandBuffer| format!("0x{:x}", vk::Handle::as_raw(cb));
        println!(
            "{}",
            serde_json::json!({
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(interlocked)),
                "a": h(a), "b": h(b), "c": h(c),
                "expected": [[h(a), 4, a4], [h(a), 8, a8], [h(b), 4, b4]],
            })
        );
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(interlocked, None);
        d.destroy_pipeline(plain, None);
        for m in [vert, frag, plain_frag] {
            d.destroy_shader_module(m, None);
        }
    }
    ctx.destroy();
    Ok(())
}
