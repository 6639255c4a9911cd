//! The PS epilog RADV compiles for a pipeline with dynamic colour blending. RADV builds it when
//! a draw first needs it, not with the pipeline, and hands out its code only in its debug dump
//! (`RADV_DEBUG=epilogs`, on standard error): one draw is recorded into a colour target of the
//! pipeline's format (nothing is submitted), and the dump is read back.

use ash::vk;

/// Why the epilog could not be had.
#[derive(Debug, thiserror::Error)]
pub enum EpilogError {
    #[error("{what} failed: {result}")]
    Vulkan {
        what: &'static str,
        result: vk::Result,
    },
    #[error("RADV's debug dump could not be read: {0}")]
    Capture(#[from] crate::captured_stderr::CaptureError),
    #[error("no device memory type holds the epilog draw's colour target")]
    NoMemoryType,
}

/// The colour target's format and size (the pipeline is built for one RGBA8 attachment).
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const SIZE: u32 = 64;

/// The epilog's code as RADV dumped it (its "disasm" text), or `None` where RADV dumped none.
pub fn epilog(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    device: &ash::Device,
    pipeline: vk::Pipeline,
    samples: vk::SampleCountFlags,
) -> Result<Option<String>, EpilogError> {
    let mut draw = Objects {
        device,
        image: vk::Image::null(),
        memory: vk::DeviceMemory::null(),
        view: vk::ImageView::null(),
        pool: vk::CommandPool::null(),
    };
    // SAFETY: a query on the live physical device the device was created from.
    let memory = unsafe { instance.get_physical_device_memory_properties(pdev) };
    draw.target(&memory, samples)?;
    // SAFETY: a valid create info; the pool is destroyed with `draw`.
    draw.pool = unsafe {
        device.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(0),
            None,
        )
    }
    .map_err(vkerr("vkCreateCommandPool"))?;
    // SAFETY: a live pool of this device.
    let cb = unsafe {
        device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(draw.pool)
                .command_buffer_count(1),
        )
    }
    .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(instance, device);
    let (recorded, dump) = crate::captured_stderr::capture(|| {
        // SAFETY: a fresh primary command buffer, the live pipeline and view of this device.
        unsafe { record(device, &eds3, cb, pipeline, draw.view) }
    })?;
    recorded?;
    Ok(disasm_after(&dump, "epilog"))
}

/// The first "disasm:" block of `dump` after a line that names `what`: the code with its
/// encodings, or where RADV has no disassembler for the chip (GFX11.5 on Mesa 25) ACO's
/// program listing after its notice. Pure.
fn disasm_after(dump: &str, what: &str) -> Option<String> {
    let mut lines = dump
        .lines()
        .skip_while(|l| !l.to_ascii_lowercase().contains(what))
        .skip_while(|l| l.trim() != "disasm:")
        .skip(1)
        .skip_while(|l| l.trim().is_empty() || l.starts_with("Shader disassembly is not supported"))
        .peekable();
    lines.peek()?;
    let text: Vec<&str> = lines.take_while(|l| !l.trim().is_empty()).collect();
    Some(text.join("\n") + "\n")
}

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> EpilogError {
    move |result| EpilogError::Vulkan { what, result }
}

/// One draw of `pipeline` into `view`, blending off: RADV compiles the epilog for it.
///
/// # Safety
/// `cb` is a fresh primary command buffer of `device`; `pipeline` and `view` are its live
/// objects, the view of an RGBA8 image with the pipeline's samples.
unsafe fn record(
    device: &ash::Device,
    eds3: &ash::ext::extended_dynamic_state3::Device,
    cb: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    view: vk::ImageView,
) -> Result<(), EpilogError> {
    let area = vk::Rect2D::default().extent(vk::Extent2D {
        width: SIZE,
        height: SIZE,
    });
    let attachments = [vk::RenderingAttachmentInfo::default()
        .image_view(view)
        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::DONT_CARE)
        .store_op(vk::AttachmentStoreOp::STORE)];
    let viewport = vk::Viewport::default()
        .width(SIZE as f32)
        .height(SIZE as f32)
        .max_depth(1.0);
    // SAFETY (whole block): per the caller; every structure outlives its call.
    unsafe {
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        device.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&attachments),
        );
        device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        device.cmd_set_viewport(cb, 0, &[viewport]);
        device.cmd_set_scissor(cb, 0, &[area]);
        eds3.cmd_set_color_blend_enable(cb, 0, &[vk::FALSE]);
        eds3.cmd_set_color_blend_equation(cb, 0, &[vk::ColorBlendEquationEXT::default()]);
        eds3.cmd_set_color_write_mask(cb, 0, &[vk::ColorComponentFlags::RGBA]);
        device.cmd_draw(cb, 3, 1, 0, 0);
        device.cmd_end_rendering(cb);
        device
            .end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))
    }
}

/// The draw's objects, destroyed when dropped.
struct Objects<'d> {
    device: &'d ash::Device,
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    pool: vk::CommandPool,
}

impl Objects<'_> {
    /// The colour target: an RGBA8 image with `samples`, its memory and view.
    fn target(
        &mut self,
        memory: &vk::PhysicalDeviceMemoryProperties,
        samples: vk::SampleCountFlags,
    ) -> Result<(), EpilogError> {
        let d = self.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(FORMAT)
            .extent(vk::Extent3D {
                width: SIZE,
                height: SIZE,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT);
        // SAFETY: a valid create info; the image is destroyed with `self`.
        self.image = unsafe { d.create_image(&info, None) }.map_err(vkerr("vkCreateImage"))?;
        // SAFETY: a live image of this device.
        let req = unsafe { d.get_image_memory_requirements(self.image) };
        let index = (0..memory.memory_type_count)
            .find(|i| req.memory_type_bits & (1 << i) != 0)
            .ok_or(EpilogError::NoMemoryType)?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index);
        // SAFETY: a valid allocation of a type the image accepts; freed with `self`.
        self.memory =
            unsafe { d.allocate_memory(&alloc, None) }.map_err(vkerr("vkAllocateMemory"))?;
        // SAFETY: unbound image, fresh memory of a type it accepts, offset 0.
        unsafe { d.bind_image_memory(self.image, self.memory, 0) }
            .map_err(vkerr("vkBindImageMemory"))?;
        let view = vk::ImageViewCreateInfo::default()
            .image(self.image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(FORMAT)
            .subresource_range(
                vk::ImageSubresourceRange::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .level_count(1)
                    .layer_count(1),
            );
        // SAFETY: a view of the live, bound image; destroyed with `self`.
        self.view =
            unsafe { d.create_image_view(&view, None) }.map_err(vkerr("vkCreateImageView"))?;
        Ok(())
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        // SAFETY: each handle is this device's (or null), and nothing runs on the GPU: the
        // command buffer was never submitted.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_image_view(self.view, None);
            self.device.destroy_image(self.image, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

#[cfg(test)]
mod tests {
    /// RADV's dump: each shader's NIR and then its "disasm:" block; the epilog's is the one
    /// after its heading.
    #[test]
    fn the_epilog_block_is_read_from_the_dump() {
        let dump = "Fragment shader\ndisasm:\n\ts_endpgm ; bf810000\n\n\
                    PS epilog\ndisasm:\nBB0:\n\texp mrt0 v0, v1, off, off done ; f8000803 00000100\n\ts_endpgm ; bf810000\n\nother\n";
        assert_eq!(
            super::disasm_after(dump, "epilog").as_deref(),
            Some("BB0:\n\texp mrt0 v0, v1, off, off done ; f8000803 00000100\n\ts_endpgm ; bf810000\n")
        );
        assert_eq!(super::disasm_after("nothing here\n", "epilog"), None);
        // Without a disassembler: the notice, then ACO's program listing.
        let listing = "Fragment epilog\ndisasm:\nShader disassembly is not supported in the \
                       current configuration, falling back to print_program.\n\nAfter lowering \
                       to hw instructions:\nBB0\n\ts_endpgm\n\n\n";
        assert_eq!(
            super::disasm_after(listing, "epilog").as_deref(),
            Some("After lowering to hw instructions:\nBB0\n\ts_endpgm\n")
        );
    }
}
