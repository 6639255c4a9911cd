//! The pipeline-creation benchmark: two devices, with and without the layer.

use crate::common::*;

/// Thread CPU time in nanoseconds: the driver compiles on the calling thread, and CPU time is far
/// less disturbed than wall time by other processes on a shared machine.
pub(crate) fn thread_cpu_ns() -> i64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|t| t.tv_sec() * 1_000_000_000 + t.tv_nsec())
        .unwrap_or(0)
}

/// The measured calls of one pipeline: vkCreateShaderModule + vkCreateGraphicsPipelines.
pub(crate) fn bench_create(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    let frag = ctx.module(code)?;
    let p = main_pipeline(ctx, fx, vert, frag).map_err(vkerr("pipeline"))?;
    Ok((frag, p))
}

/// [`bench_create`] on the device whose instance enables the layer. A separate, never-inlined
/// symbol so that `valgrind --tool=callgrind` gives its inclusive instruction count
/// (scripts/layer-overhead-callgrind.sh); the `black_box` keeps rustc from merging it with
/// [`bench_create_plain`], which would otherwise be the same code.
#[inline(never)]
pub(crate) fn bench_create_layered(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    std::hint::black_box(1u32);
    bench_create(ctx, fx, vert, code)
}

/// [`bench_create`] on the device without the layer (see [`bench_create_layered`]).
#[inline(never)]
pub(crate) fn bench_create_plain(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    std::hint::black_box(2u32);
    bench_create(ctx, fx, vert, code)
}

/// Times vkCreateShaderModule + vkCreateGraphicsPipelines (the calls the layer intercepts) for
/// the corpus shaders on two devices of one process: one whose instance enables
/// VK_LAYER_POPS_interlock, one without, alternating pipeline by pipeline (and which goes first)
/// so that load changes on the machine hit both alike. Prints wall and thread-CPU totals of each.
pub(crate) fn scenario_bench() -> Res<()> {
    // The first-created device measures ~2 % slower (A/A runs): the harness alternates the
    // order between processes (POPS_BENCH_SWAP).
    let (with, without, _) = bench_pair(c"pops-scenario-bench")?;
    let iters = env_u32("POPS_BENCH_ITERS", 5);
    let fx = Fixed::new(1);
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    let verts = [
        with.module(spv("fullscreen.vert")?)?,
        without.module(spv("fullscreen.vert")?)?,
    ];
    let ctxs = [&with, &without];
    let mut wall = [0u128; 2];
    let mut cpu = [0i64; 2];
    let mut n = 0u32;
    for it in 0..iters {
        for (k, item) in list.split(',').enumerate() {
            let shader = item.split(':').next().unwrap_or(item);
            let code = spv(shader)?;
            let order = if (it as usize + k).is_multiple_of(2) {
                [0, 1]
            } else {
                [1, 0]
            };
            for i in order {
                let ctx = ctxs[i];
                let t = std::time::Instant::now();
                let c0 = thread_cpu_ns();
                let (frag, p) = if i == 0 {
                    bench_create_layered(ctx, &fx, verts[i], code)?
                } else {
                    bench_create_plain(ctx, &fx, verts[i], code)?
                };
                cpu[i] += thread_cpu_ns() - c0;
                wall[i] += t.elapsed().as_nanos();
                // SAFETY: objects of this iteration, destroyed once.
                unsafe {
                    ctx.device.destroy_pipeline(p, None);
                    ctx.device.destroy_shader_module(frag, None);
                }
            }
            n += 1;
        }
    }
    // SAFETY: live modules of each context.
    unsafe {
        with.device.destroy_shader_module(verts[0], None);
        without.device.destroy_shader_module(verts[1], None);
    }
    println!(
        "{}",
        serde_json::json!({"pipelines": n,
            "with": {"wall_ns": wall[0] as u64, "cpu_ns": cpu[0]},
            "without": {"wall_ns": wall[1] as u64, "cpu_ns": cpu[1]}})
    );
    with.destroy();
    without.destroy();
    Ok(())
}
