//! Work in flight when the device is lost: interlocked command buffers submitted without
//! waiting (one of them again and again), a primary that executes an interlocked secondary and
//! signals a timeline semaphore that a submission without draws waits on, until a submission or
//! the final vkDeviceWaitIdle returns VK_ERROR_DEVICE_LOST (a device where a loss is injected:
//! RADV over the amdgpu shim). Prints one JSON line per submission (its number on the device,
//! the command buffers whose draw records it carries, whether the host waited for it, the
//! result), then one for the final wait.

use crate::common::*;

/// Submissions made at most.
const SUBMISSIONS: u64 = 8;

fn hex<H: vk::Handle>(h: H) -> String {
    format!("0x{:x}", h.as_raw())
}

pub(crate) fn scenario_lost() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-lost")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering || !ctx.caps.timeline {
        return Err(format!(
            "SKIP {}: no dynamic rendering or timeline semaphores",
            ctx.name
        ));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv("pixel_interlock_ordered.frag")?)?;
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &fx.dyn_states)?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let queue = d.get_device_queue(ctx.queue_family, 0);
        let [a, s, b, p] = record_command_buffers(&ctx, pool, pipeline)?;

        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(vkerr("vkCreateFence"))?;
        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let timeline = d
            .create_semaphore(
                &vk::SemaphoreCreateInfo::default().push_next(&mut type_info),
                None,
            )
            .map_err(vkerr("vkCreateSemaphore"))?;

        // Submission n: 1 = A (waited for), 2 = A again, 3 = B signalling the timeline,
        // 4 = P waiting for it, then A until the end.
        let mut lost = false;
        for n in 1..=SUBMISSIONS {
            let (cb, drawn): (vk::CommandBuffer, Vec<String>) = match n {
                3 => (b, vec![hex(s)]),
                4 => (p, Vec::new()),
                _ => (a, vec![hex(a)]),
            };
            let cbs = [cb];
            let one = [1u64];
            let sems = [timeline];
            let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
            let mut values = vk::TimelineSemaphoreSubmitInfo::default();
            let mut info = vk::SubmitInfo::default().command_buffers(&cbs);
            if n == 3 {
                values = values.signal_semaphore_values(&one);
                info = info.signal_semaphores(&sems).push_next(&mut values);
            } else if n == 4 {
                values = values.wait_semaphore_values(&one);
                info = info
                    .wait_semaphores(&sems)
                    .wait_dst_stage_mask(&stages)
                    .push_next(&mut values);
            }
            let waited = n == 1;
            let f = if waited { fence } else { vk::Fence::null() };
            let mut r = d.queue_submit(queue, &[info], f).err();
            if waited && r.is_none() {
                r = d.wait_for_fences(&[fence], true, u64::MAX).err();
            }
            println!(
                "{}",
                serde_json::json!({
                    "submission": n,
                    "queue": hex(queue),
                    "command_buffers": drawn,
                    // Whether it executes a secondary command buffer.
                    "secondary": n == 3,
                    "waited": waited,
                    "result": format!("{:?}", r.unwrap_or(vk::Result::SUCCESS)),
                })
            );
            if r == Some(vk::Result::ERROR_DEVICE_LOST) {
                lost = true;
                break;
            }
        }
        let idle = d.device_wait_idle().err();
        println!(
            "{}",
            serde_json::json!({
                "device_wait_idle": format!("{:?}", idle.unwrap_or(vk::Result::SUCCESS)),
                "lost": lost || idle == Some(vk::Result::ERROR_DEVICE_LOST),
            })
        );
        d.destroy_semaphore(timeline, None);
        d.destroy_fence(fence, None);
        destroy_drawn(&ctx, pool, pipeline, (vert, frag));
    }
    ctx.destroy();
    Ok(())
}

/// A: two interlocked draws; S: a secondary with one, continuing B's render pass instance; B:
/// executes S; P: no draws.
fn record_command_buffers(
    ctx: &Ctx,
    pool: vk::CommandPool,
    pipeline: vk::Pipeline,
) -> Res<[vk::CommandBuffer; 4]> {
    let d = &ctx.device;
    // SAFETY: the command buffers are allocated from `pool` and recorded once, in order.
    unsafe {
        // A: two interlocked draws.
        let a = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_attachmentless(ctx, a, pipeline)?;
        d.cmd_draw(a, 3, 1, 0, 0);
        d.cmd_draw(a, 3, 1, 0, 0);
        d.cmd_end_rendering(a);
        d.end_command_buffer(a)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        // S: a secondary with one interlocked draw, continuing B's render pass instance.
        let s = ctx.command_buffer(pool, vk::CommandBufferLevel::SECONDARY)?;
        let mut inh_rendering = vk::CommandBufferInheritanceRenderingInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let inh = vk::CommandBufferInheritanceInfo::default().push_next(&mut inh_rendering);
        d.begin_command_buffer(
            s,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
                .inheritance_info(&inh),
        )
        .map_err(vkerr("vkBeginCommandBuffer (secondary)"))?;
        bind_with_area(ctx, s, pipeline);
        d.cmd_draw(s, 3, 1, 0, 0);
        d.end_command_buffer(s)
            .map_err(vkerr("vkEndCommandBuffer (secondary)"))?;
        // B: executes S.
        let b = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(b, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_rendering(
            b,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1)
                .flags(vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS),
        );
        d.cmd_execute_commands(b, &[s]);
        d.cmd_end_rendering(b);
        d.end_command_buffer(b)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        // P: no draws.
        let p = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(p, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.end_command_buffer(p)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        Ok([a, s, b, p])
    }
}
