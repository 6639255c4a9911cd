//! Draws with shader objects.

use crate::common::*;

/// Shader objects (every state dynamic): a vertex and an interlocked fragment shader object,
/// dynamic rendering without attachments, the rasterization sample count set between draws
/// (1, then 4 for two draws). Prints the fragment shader object and the command buffer.
pub(crate) fn scenario_draws_shader_objects() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-so")?;
    require_interlock(&ctx)?;
    if !ctx.caps.shader_object || !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no shader objects", ctx.name));
    }
    let shader = default_shader(&ctx);
    let so = ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device);
    let vcode = spv("fullscreen.vert")?;
    let fcode = spv(shader)?;
    let vci = vk::ShaderCreateInfoEXT::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .next_stage(vk::ShaderStageFlags::FRAGMENT)
        .code_type(vk::ShaderCodeTypeEXT::SPIRV)
        .code(vcode)
        .name(c"main")
        .set_layouts(std::slice::from_ref(&ctx.set_layout))
        .push_constant_ranges(&PUSH_CONSTANTS);
    let fci = fragment_shader_object_info(&ctx, fcode, c"main");
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let shaders = so
            .create_shaders(&[vci, fci], None)
            .map_err(|(_, e)| format!("vkCreateShadersEXT: {e}"))?;
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_rendering_attachmentless(&ctx, cb)?;
        bind_shader_objects(&so, cb, shaders[0], shaders[1]);
        for n in [1u32, 4, 4] {
            so.cmd_set_rasterization_samples(cb, samples_flag(n));
            so.cmd_set_sample_mask(cb, samples_flag(n), &[u32::MAX]);
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        ctx.submit_if_asked(cb)?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "fragment": format!("0x{:x}", vk::Handle::as_raw(shaders[1])), "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb))})
        );
        d.destroy_command_pool(pool, None);
        for s in shaders {
            so.destroy_shader(s, None);
        }
    }
    ctx.destroy();
    Ok(())
}
