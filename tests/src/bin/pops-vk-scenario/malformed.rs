//! Malformed SPIR-V handed to the driver through the layer.

use crate::common::*;

pub(crate) fn scenario_malformed() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-malformed")?;
    let cases: Vec<(&str, Vec<u32>)> = vec![
        ("bad_magic", vec![0xdead_beef, 0x0001_0000, 0, 10, 0]),
        ("truncated", vec![0x0723_0203, 0x0001_0000]),
        (
            "huge_word_count",
            vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0xffff_0011, 1],
        ),
        (
            "zero_word_count",
            vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0x0000_0011, 1],
        ),
    ];
    for (name, w) in cases {
        let ci = vk::ShaderModuleCreateInfo::default().code(&w);
        // SAFETY: a create info with well-formed memory; the SPIR-V content is the test input.
        let r = unsafe { ctx.device.create_shader_module(&ci, None) };
        let result = match r {
            Ok(m) => {
                // SAFETY: live module.
                unsafe { ctx.device.destroy_shader_module(m, None) };
                "created".to_string()
            }
            Err(e) => e.to_string(),
        };
        println!("{}", serde_json::json!({"case": name, "result": result}));
    }
    // Destroying handles the layer never saw must pass through harmlessly.
    // SAFETY: VK_NULL_HANDLE destruction is valid for every destroy command.
    unsafe {
        ctx.device
            .destroy_shader_module(vk::ShaderModule::null(), None);
        ctx.device.destroy_pipeline(vk::Pipeline::null(), None);
    }
    ctx.destroy();
    Ok(())
}
