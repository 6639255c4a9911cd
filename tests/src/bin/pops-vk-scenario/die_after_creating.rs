//! An application that dies right after creating an interlocked pipeline, before it calls the
//! layer again (as Zink's shader_runner does when it aborts in its teardown): with `verify_isa`,
//! the pipeline's record carries a verdict reached on the layer's own thread after
//! vkCreateGraphicsPipelines returned, and must still reach the report.

use crate::common::*;

/// Creates an interlocked pipeline, then makes no Vulkan call: reads the report
/// (`VK_POPS_INTERLOCK_REPORT`) until it holds a pipeline record, for at most a minute, prints
/// whether it did, and aborts (no exit handlers run).
pub(crate) fn scenario_die_after_creating() -> Res<()> {
    let report = std::env::var_os("VK_POPS_INTERLOCK_REPORT")
        .ok_or("the scenario reads the report VK_POPS_INTERLOCK_REPORT names")?;
    let ctx = create_ctx(c"pops-scenario-die-after-creating")?;
    require_interlock(&ctx)?;
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let _pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &fx.dyn_states)?;
    let written = |text: &str| text.lines().any(|l| l.contains("\"kind\":\"pipeline\""));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let found = loop {
        let text = std::fs::read_to_string(&report).unwrap_or_default();
        if written(&text) {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    println!(
        "{}",
        serde_json::json!({ "pipeline_record_written": found })
    );
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::abort();
}
