//! Pipelines created from many threads at once.

use crate::common::*;

pub(crate) fn scenario_threads() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-threads")?;
    let threads = env_u32("POPS_SCENARIO_THREADS", 16);
    let per = env_u32("POPS_SCENARIO_PER_THREAD", 4);
    let fx = Fixed::new(1);
    let total = std::sync::atomic::AtomicU32::new(0);
    let shader = default_shader(&ctx);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| -> Res<()> {
                for _ in 0..per {
                    let vert = ctx.module(spv("fullscreen.vert")?)?;
                    let frag = ctx.module(spv(shader)?)?;
                    let p = main_pipeline(&ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
                    total.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // SAFETY: objects of this iteration, destroyed once.
                    unsafe {
                        ctx.device.destroy_pipeline(p, None);
                        ctx.device.destroy_shader_module(frag, None);
                        ctx.device.destroy_shader_module(vert, None);
                    }
                }
                Ok(())
            });
        }
    });
    println!(
        "{}",
        serde_json::json!({"pipelines": total.load(std::sync::atomic::Ordering::Relaxed), "shader": shader})
    );
    ctx.destroy();
    Ok(())
}
