//! Every way of delivering fragment SPIR-V, for the corpus shaders.

use crate::common::*;

pub(crate) fn scenario_pipelines() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-pipelines")?;
    println!(
        "{}",
        serde_json::json!({"device": ctx.name, "caps": {
        "interlock": ctx.caps.interlock, "gpl": ctx.caps.gpl, "shader_object": ctx.caps.shader_object,
        "module_identifier": ctx.caps.module_identifier}})
    );
    require_interlock(&ctx)?;
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    for item in list.split(',') {
        let (shader, samples) = item.split_once(':').unwrap_or((item, "1"));
        let samples: u32 = samples
            .parse()
            .map_err(|_| format!("bad sample count in {item}"))?;
        for m in all_ways(&ctx, shader, samples, true)? {
            print_made(shader, samples, &m);
        }
    }
    // POPS_SCENARIO_DIE=abort|exit: the application dies a while after its last pipeline, by a
    // signal or `_exit`, with its device live and no exit handler run.
    if let Ok(how) = std::env::var("POPS_SCENARIO_DIE") {
        std::thread::sleep(std::time::Duration::from_millis(400));
        match how.as_str() {
            "abort" => std::process::abort(),
            // SAFETY: ends the process at once, as a crashing application's last call would.
            _ => unsafe { libc_exit(7) },
        }
    }
    ctx.destroy();
    Ok(())
}

extern "C" {
    /// `_exit(2)`: the process ends without running exit handlers or flushing anything.
    #[link_name = "_exit"]
    fn libc_exit(status: i32) -> !;
}
