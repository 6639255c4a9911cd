//! The draw-recording benchmark: two devices, with and without the layer.

use crate::common::*;

/// Records one command buffer: dynamic rendering without attachments, `pipeline` bound, `n`
/// draws. What the draw-recording benchmark measures.
pub(crate) fn record_draws(
    ctx: &Ctx,
    cb: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    n: u32,
) -> Res<()> {
    let d = &ctx.device;
    begin_attachmentless(ctx, cb, pipeline)?;
    // SAFETY: `cb` is recording inside the render pass instance begun above.
    unsafe {
        for _ in 0..n {
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))
    }
}

/// [`record_draws`] on the device whose instance enables the layer (a separate never-inlined
/// symbol for callgrind's inclusive count, as `bench_create_layered`).
#[inline(never)]
pub(crate) fn record_draws_layered(
    ctx: &Ctx,
    cb: vk::CommandBuffer,
    p: vk::Pipeline,
    n: u32,
) -> Res<()> {
    std::hint::black_box(3u32);
    record_draws(ctx, cb, p, n)
}

/// [`record_draws`] on the device without the layer.
#[inline(never)]
pub(crate) fn record_draws_plain(
    ctx: &Ctx,
    cb: vk::CommandBuffer,
    p: vk::Pipeline,
    n: u32,
) -> Res<()> {
    std::hint::black_box(4u32);
    record_draws(ctx, cb, p, n)
}

/// The draw-recording benchmark (scripts/layer-draw-overhead-callgrind.sh): on two devices of
/// one process, one whose instance enables the layer and one without, each with an interlocked
/// and a plain pipeline, records a command buffer of POPS_BENCH_DRAWS draws (10,000) with the
/// interlocked pipeline bound (POPS_BENCH_INTERLOCK=1) or the plain one.
pub(crate) fn scenario_bench_draws() -> Res<()> {
    let (with, without, _) = bench_pair(c"pops-scenario-bench-draws")?;
    require_interlock(&with)?;
    let n = env_u32("POPS_BENCH_DRAWS", 10_000);
    let interlock = std::env::var("POPS_BENCH_INTERLOCK").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for (k, ctx) in [&with, &without].into_iter().enumerate() {
        let fx = Fixed::new(1);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let modules = [
            ctx.module(spv(default_shader(ctx))?)?,
            ctx.module(spv("color.frag")?)?,
        ];
        let mut pipelines = Vec::new();
        for m in modules {
            pipelines.push(attachmentless_pipeline(ctx, &fx, vert, m, &fx.dyn_states)?);
        }
        let bound = pipelines[if interlock { 0 } else { 1 }];
        // SAFETY: objects of this context, created, used and destroyed in order.
        unsafe {
            let pool = ctx.command_pool()?;
            let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
            let t = std::time::Instant::now();
            if k == 0 {
                record_draws_layered(ctx, cb, bound, n)?;
            } else {
                record_draws_plain(ctx, cb, bound, n)?;
            }
            out.push(t.elapsed().as_nanos() as u64);
            ctx.device.destroy_command_pool(pool, None);
            for p in pipelines {
                ctx.device.destroy_pipeline(p, None);
            }
            for m in modules {
                ctx.device.destroy_shader_module(m, None);
            }
            ctx.device.destroy_shader_module(vert, None);
        }
    }
    println!(
        "{}",
        serde_json::json!({"draws": n, "interlock": interlock, "with_ns": out[0], "without_ns": out[1]})
    );
    with.destroy();
    without.destroy();
    Ok(())
}
