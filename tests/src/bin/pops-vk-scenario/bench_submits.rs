//! The submission benchmark: two devices, with and without the layer, each submitting one
//! command buffer again and again and waiting for it, as a frame loop does.

use crate::common::*;

/// `n` times: submit `cb` with `fence`, wait for the fence, reset it. What the submission
/// benchmark measures.
fn submit_loop(ctx: &Ctx, cb: vk::CommandBuffer, fence: vk::Fence, n: u32) -> Res<()> {
    let d = &ctx.device;
    // SAFETY: `cb` is executable and not pending (each submission is waited for); a live fence.
    unsafe {
        let queue = d.get_device_queue(ctx.queue_family, 0);
        let cbs = [cb];
        let info = [vk::SubmitInfo::default().command_buffers(&cbs)];
        for _ in 0..n {
            d.queue_submit(queue, &info, fence)
                .map_err(vkerr("vkQueueSubmit"))?;
            d.wait_for_fences(&[fence], true, u64::MAX)
                .map_err(vkerr("vkWaitForFences"))?;
            d.reset_fences(&[fence]).map_err(vkerr("vkResetFences"))?;
        }
    }
    Ok(())
}

/// [`submit_loop`] on the device whose instance enables the layer (a never-inlined symbol for
/// callgrind's inclusive count).
#[inline(never)]
fn submit_layered(ctx: &Ctx, cb: vk::CommandBuffer, f: vk::Fence, n: u32) -> Res<()> {
    std::hint::black_box(5u32);
    submit_loop(ctx, cb, f, n)
}

/// [`submit_loop`] on the device without the layer.
#[inline(never)]
fn submit_plain(ctx: &Ctx, cb: vk::CommandBuffer, f: vk::Fence, n: u32) -> Res<()> {
    std::hint::black_box(6u32);
    submit_loop(ctx, cb, f, n)
}

/// scripts/layer-submit-overhead-callgrind.sh: on two devices of one process, one whose
/// instance enables the layer and one without, POPS_BENCH_SUBMITS (1,000) submissions of a
/// command buffer of a few draws with the interlocked pipeline (POPS_BENCH_INTERLOCK=1) or a
/// plain one, each waited for.
pub(crate) fn scenario_bench_submits() -> Res<()> {
    // The device without the layer and its objects come first with POPS_BENCH_SWAP=1 (the shim
    // looks GPU addresses up in the order they were mapped).
    let (with, without, swap) = bench_pair(c"pops-scenario-bench-submits")?;
    require_interlock(&with)?;
    let n = env_u32("POPS_BENCH_SUBMITS", 1_000);
    let interlock = std::env::var("POPS_BENCH_INTERLOCK").is_ok_and(|v| v == "1");
    // Each device's command buffer and fence; then the submissions interleaved one by one, so
    // that whatever grows with the process's submissions weighs on both sides alike.
    let order = if swap {
        [&without, &with]
    } else {
        [&with, &without]
    };
    let mut setups = Vec::new();
    for ctx in order {
        let fx = Fixed::new(1);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let frag = ctx.module(spv(if interlock {
            "pixel_interlock_ordered.frag"
        } else {
            "color.frag"
        })?)?;
        let pipeline = attachmentless_pipeline(ctx, &fx, vert, frag, &fx.dyn_states)?;
        // SAFETY: objects of this context, created and used in order.
        unsafe {
            let pool = ctx.command_pool()?;
            let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
            begin_attachmentless(ctx, cb, pipeline)?;
            for _ in 0..4 {
                ctx.device.cmd_draw(cb, 3, 1, 0, 0);
            }
            ctx.device.cmd_end_rendering(cb);
            ctx.device
                .end_command_buffer(cb)
                .map_err(vkerr("vkEndCommandBuffer"))?;
            let fence = ctx
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vkerr("vkCreateFence"))?;
            // The driver's first submission sets up what the later ones reuse: not measured.
            submit_loop(ctx, cb, fence, 2)?;
            setups.push((pool, cb, fence, pipeline, vert, frag));
        }
    }
    if swap {
        setups.reverse();
    }
    // Which of the two goes first alternates too: the second submission of a pair costs the
    // shim more than the first.
    for i in 0..n {
        if i % 2 == 0 {
            submit_layered(&with, setups[0].1, setups[0].2, 1)?;
            submit_plain(&without, setups[1].1, setups[1].2, 1)?;
        } else {
            submit_plain(&without, setups[1].1, setups[1].2, 1)?;
            submit_layered(&with, setups[0].1, setups[0].2, 1)?;
        }
    }
    for (ctx, (pool, _, fence, pipeline, vert, frag)) in [&with, &without].into_iter().zip(setups) {
        // SAFETY: the objects created above, no longer in use (every submission was waited for).
        unsafe {
            ctx.device.destroy_fence(fence, None);
            destroy_drawn(ctx, pool, pipeline, (vert, frag));
        }
    }
    println!(
        "{}",
        serde_json::json!({"submits": n, "interlock": interlock})
    );
    with.destroy();
    without.destroy();
    Ok(())
}
