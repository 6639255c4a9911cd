//! Two instances, one with a panic injected into the layer.

use crate::common::*;

/// Two instances in one process; the first asks (through VK_EXT_layer_settings, debug builds of
/// the layer only) for a panic inside the layer's work at vkCreateShaderModule. Each creates an
/// interlocked pipeline. Prints both pipelines: the application must not notice anything.
pub(crate) fn scenario_fault_two_instances() -> Res<()> {
    std::env::set_var(
        "POPS_SCENARIO_API_SETTINGS",
        "test_fault=vkCreateShaderModule",
    );
    let faulty = create_ctx(c"pops-scenario-fault-a");
    std::env::remove_var("POPS_SCENARIO_API_SETTINGS");
    let faulty = faulty?;
    let healthy = create_ctx(c"pops-scenario-fault-b")?;
    require_interlock(&faulty)?;
    let mut made = Vec::new();
    for ctx in [&faulty, &healthy] {
        let fx = Fixed::new(4);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let frag = ctx.module(spv(default_shader(ctx))?)?;
        let p = main_pipeline(ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
        made.push(format!("0x{:x}", vk::Handle::as_raw(p)));
        // SAFETY: objects of this context, unused by any command buffer.
        unsafe {
            ctx.device.destroy_pipeline(p, None);
            ctx.device.destroy_shader_module(vert, None);
            ctx.device.destroy_shader_module(frag, None);
        }
    }
    println!(
        "{}",
        serde_json::json!({"faulty": made[0], "healthy": made[1]})
    );
    faulty.destroy();
    healthy.destroy();
    Ok(())
}
