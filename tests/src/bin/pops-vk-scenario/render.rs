//! A rendered frame, with and without the layer.

use crate::common::*;

/// Renders a 64×64 frame of `color.frag` and writes the bytes to POPS_SCENARIO_OUT.
pub(crate) fn scenario_render() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-render")?;
    let out = std::env::var("POPS_SCENARIO_OUT").map_err(|_| "POPS_SCENARIO_OUT not set")?;
    let bytes = render(&ctx)?;
    std::fs::write(&out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{}",
        serde_json::json!({"device": ctx.name, "bytes": bytes.len()})
    );
    ctx.destroy();
    Ok(())
}

pub(crate) fn render(ctx: &Ctx) -> Res<Vec<u8>> {
    let d = &ctx.device;
    let t = render_target(ctx)?;
    // SAFETY (whole function): objects created and destroyed here in order, with waits before
    // reading back; every create info is well-formed.
    unsafe {
        let fx = Fixed::new(1);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let frag = ctx.module(spv("color.frag")?)?;
        let pipe = main_pipeline(ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
        let pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family),
                None,
            )
            .map_err(vkerr("pool"))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .map_err(vkerr("cb"))?[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("begin"))?;
        record_frame(ctx, cb, &t, pipe);
        d.end_command_buffer(cb).map_err(vkerr("end"))?;
        let queue = d.get_device_queue(ctx.queue_family, 0);
        let cbs = [cb];
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .map_err(vkerr("submit"))?;
        d.queue_wait_idle(queue).map_err(vkerr("wait"))?;
        let ptr = d
            .map_memory(t.buf_mem, 0, t.size, vk::MemoryMapFlags::empty())
            .map_err(vkerr("map"))?;
        let bytes = std::slice::from_raw_parts(ptr as *const u8, t.size as usize).to_vec();
        d.unmap_memory(t.buf_mem);
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(pipe, None);
        d.destroy_shader_module(frag, None);
        d.destroy_shader_module(vert, None);
        d.destroy_image_view(t.view, None);
        d.destroy_buffer(t.buf, None);
        d.free_memory(t.buf_mem, None);
        d.destroy_image(t.img, None);
        d.free_memory(t.img_mem, None);
        Ok(bytes)
    }
}

/// The frame's side of the image: the 64×64 RGBA8 attachment, its view, and the host-visible
/// buffer it is copied to.
struct Target {
    img: vk::Image,
    img_mem: vk::DeviceMemory,
    view: vk::ImageView,
    buf: vk::Buffer,
    buf_mem: vk::DeviceMemory,
    size: u64,
}

const W: u32 = 64;

fn render_target(ctx: &Ctx) -> Res<Target> {
    let d = &ctx.device;
    // SAFETY: every create info is well-formed; the objects are returned to be destroyed.
    unsafe {
        let mem_props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let find = |bits: u32, flags: vk::MemoryPropertyFlags| -> Res<u32> {
            (0..mem_props.memory_type_count)
                .find(|&i| {
                    bits & (1 << i) != 0
                        && mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(flags)
                })
                .ok_or_else(|| "no memory type".to_string())
        };
        // Memory for `req` of the first type with `flags`.
        let allocate = |req: vk::MemoryRequirements,
                        flags: vk::MemoryPropertyFlags|
         -> Res<vk::DeviceMemory> {
            d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(find(req.memory_type_bits, flags)?),
                None,
            )
            .map_err(vkerr("memory"))
        };
        let img = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .extent(vk::Extent3D {
                        width: W,
                        height: W,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(
                        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                    ),
                None,
            )
            .map_err(vkerr("image"))?;
        let req = d.get_image_memory_requirements(img);
        let img_mem = allocate(req, vk::MemoryPropertyFlags::empty())?;
        d.bind_image_memory(img, img_mem, 0)
            .map_err(vkerr("bind"))?;
        let size = (W * W * 4) as u64;
        let buf = d
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(vk::BufferUsageFlags::TRANSFER_DST),
                None,
            )
            .map_err(vkerr("buffer"))?;
        let breq = d.get_buffer_memory_requirements(buf);
        let buf_mem = allocate(
            breq,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        d.bind_buffer_memory(buf, buf_mem, 0)
            .map_err(vkerr("bind"))?;
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(img)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(range),
                None,
            )
            .map_err(vkerr("view"))?;
        Ok(Target {
            img,
            img_mem,
            view,
            buf,
            buf_mem,
            size,
        })
    }
}

/// Records the frame into `cb`: the attachment cleared and drawn with `pipe`, then copied into
/// the buffer.
fn record_frame(ctx: &Ctx, cb: vk::CommandBuffer, t: &Target, pipe: vk::Pipeline) {
    let d = &ctx.device;
    let (img, view, buf) = (t.img, t.view, t.buf);
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    // SAFETY: `cb` is recording on this device; the target's objects are live.
    unsafe {
        let barrier = |old, new, src, dst, sa, da| {
            let b = vk::ImageMemoryBarrier::default()
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(sa)
                .dst_access_mask(da)
                .image(img)
                .subresource_range(range)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED);
            (b, src, dst)
        };
        let (b, s, t) = barrier(
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags::empty(),
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        );
        d.cmd_pipeline_barrier(cb, s, t, vk::DependencyFlags::empty(), &[], &[], &[b]);
        let att = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 0.0, 1.0],
                },
            })];
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: W,
                height: W,
            },
        };
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&att),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: W as f32,
                height: W as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }],
        );
        d.cmd_set_scissor(cb, 0, &[area]);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        let (b, s, t) = barrier(
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::AccessFlags::TRANSFER_READ,
        );
        d.cmd_pipeline_barrier(cb, s, t, vk::DependencyFlags::empty(), &[], &[], &[b]);
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: W,
                height: W,
                depth: 1,
            });
        d.cmd_copy_image_to_buffer(
            cb,
            img,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            buf,
            &[region],
        );
    }
}
