//! The driver's code of fragment shader objects, for the test that holds the layer's
//! shader-object reader to the driver: each corpus shader created as a fragment shader object,
//! and its binary data (vkGetShaderBinaryDataEXT) printed in hex, one line each, in the order of
//! POPS_SCENARIO_SHADERS (the samples are not the shader object's: its state is set at draw
//! time, so each shader once). Run with RADV_DEBUG=ps,asm, RADV also prints each fragment
//! shader's disassembly on stderr as it compiles it. No layer: the driver alone.

use crate::common::*;

pub(crate) fn scenario_shader_object_code() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-shader-object-code")?;
    require_interlock(&ctx)?;
    if !ctx.caps.shader_object {
        return Err(format!("SKIP {}: no shader objects", ctx.name));
    }
    let so = ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device);
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    let mut seen = Vec::new();
    for item in list.split(',') {
        let shader = item.split_once(':').map_or(item, |(s, _)| s);
        if seen.contains(&shader) {
            continue;
        }
        seen.push(shader);
        let code = spv(shader)?;
        let info = fragment_shader_object_info(&ctx, code, c"main");
        // SAFETY: a valid create info; the shader object is destroyed once below.
        let made = unsafe { so.create_shaders(&[info], None) }
            .map_err(|(_, e)| format!("{shader}: vkCreateShadersEXT: {e}"))?;
        // SAFETY: a live shader object of this device.
        let data = unsafe { so.get_shader_binary_data(made[0]) }
            .map_err(|e| format!("{shader}: vkGetShaderBinaryDataEXT: {e}"));
        // SAFETY: as above.
        unsafe { so.destroy_shader(made[0], None) };
        let hex: String = data?.iter().map(|b| format!("{b:02x}")).collect();
        println!("{}", serde_json::json!({"shader": shader, "data": hex}));
    }
    ctx.destroy();
    Ok(())
}
