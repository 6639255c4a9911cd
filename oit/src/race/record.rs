//! The race test's command buffer: clear the units and the statistics, draw every primitive in
//! one call, copy the units (from the buffer or the image) and the violation count back.

use super::{RaceCombo, RaceOptions, Resources, Storage};
use crate::device::{vk_err, DeviceError, Gpu};
use crate::pipelines::{bind, Layouts, Pass, Push};
use crate::render::{image_barrier, set_samples};
use crate::resources::{color_range, finish_read_back, whole_image_copy};
use ash::vk;
use vk::AccessFlags2 as A;
use vk::PipelineStageFlags2 as S;

impl Resources<'_> {
    /// Records the whole frame once; it is submitted once per frame.
    pub(super) fn record(
        &self,
        gpu: &Gpu,
        layouts: &Layouts,
        pass: &Pass,
        combo: RaceCombo,
        opts: &RaceOptions,
    ) -> Result<(), DeviceError> {
        let d = &gpu.device;
        // SAFETY: a fresh command buffer of the device; every handle lives in `self` until the
        // last submission's fence was waited for.
        unsafe {
            d.begin_command_buffer(self.sub.cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(vk_err("vkBeginCommandBuffer"))?;
            self.clear(gpu);
            self.draw(gpu, layouts, pass, combo, opts);
            self.read_back(gpu, combo, opts);
            d.end_command_buffer(self.sub.cmd)
                .map_err(vk_err("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    /// Units and statistics to zero; the image into GENERAL, the attachment ready.
    ///
    /// # Safety
    /// Recording `self.sub.cmd`.
    unsafe fn clear(&self, gpu: &Gpu) {
        let (d, cmd) = (&gpu.device, self.sub.cmd);
        let to_general = [image_barrier(
            self.cell_image.image,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::GENERAL,
            (S::ALL_TRANSFER | S::FRAGMENT_SHADER, A::empty()),
            (S::ALL_TRANSFER, A::TRANSFER_WRITE),
        )];
        // SAFETY: per the caller.
        unsafe {
            d.cmd_reset_query_pool(cmd, self.sub.queries, 0, 2);
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&to_general),
            );
            d.cmd_fill_buffer(cmd, self.cells.buffer, 0, vk::WHOLE_SIZE, 0);
            d.cmd_fill_buffer(cmd, self.stats.buffer, 0, vk::WHOLE_SIZE, 0);
            let zero = vk::ClearColorValue { uint32: [0; 4] };
            d.cmd_clear_color_image(
                cmd,
                self.cell_image.image,
                vk::ImageLayout::GENERAL,
                &zero,
                &[color_range()],
            );
            let mem = [vk::MemoryBarrier2::default()
                .src_stage_mask(S::ALL_TRANSFER)
                .src_access_mask(A::TRANSFER_WRITE)
                .dst_stage_mask(S::FRAGMENT_SHADER)
                .dst_access_mask(A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE)];
            let att = [image_barrier(
                self.color.image,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                (S::COLOR_ATTACHMENT_OUTPUT, A::empty()),
                (
                    S::COLOR_ATTACHMENT_OUTPUT,
                    A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
                ),
            )];
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default()
                    .memory_barriers(&mem)
                    .image_memory_barriers(&att),
            );
        }
    }

    /// Every primitive in one draw, between the two timestamps.
    ///
    /// # Safety
    /// After [`Resources::clear`].
    unsafe fn draw(
        &self,
        gpu: &Gpu,
        layouts: &Layouts,
        pass: &Pass,
        combo: RaceCombo,
        opts: &RaceOptions,
    ) {
        let (d, cmd) = (&gpu.device, self.sub.cmd);
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: opts.width,
                height: opts.height,
            },
        };
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: opts.width as f32,
            height: opts.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let push = Push {
            width: opts.width,
            height: opts.height,
            samples: combo.aa.samples(),
            unit_count: 0,
            node_capacity: 0,
            pad: [0; 3],
        };
        let att = [vk::RenderingAttachmentInfo::default()
            .image_view(self.color.view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)];
        // SAFETY: per the caller.
        unsafe {
            if self.sub.timed() {
                d.cmd_write_timestamp2(cmd, S::TOP_OF_PIPE, self.sub.queries, 0);
            }
            let info = vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&att);
            d.cmd_begin_rendering(cmd, &info);
            bind(gpu, cmd, pass, viewport, area);
            set_samples(gpu, cmd, combo.aa.samples());
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layouts.pipeline_layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                layouts.pipeline_layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                0,
                &push.bytes(),
            );
            d.cmd_draw(cmd, 3 * opts.primitives, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            if self.sub.timed() {
                d.cmd_write_timestamp2(cmd, S::ALL_GRAPHICS, self.sub.queries, 1);
            }
        }
    }

    /// The units (as pairs, in the buffer's order) and the violation count into the read-back
    /// buffer.
    ///
    /// # Safety
    /// After [`Resources::draw`].
    unsafe fn read_back(&self, gpu: &Gpu, combo: RaceCombo, opts: &RaceOptions) {
        let (d, cmd) = (&gpu.device, self.sub.cmd);
        let units = self.cells.size / 8;
        let mem = [vk::MemoryBarrier2::default()
            .src_stage_mask(S::FRAGMENT_SHADER)
            .src_access_mask(A::SHADER_STORAGE_WRITE)
            .dst_stage_mask(S::ALL_TRANSFER)
            .dst_access_mask(A::TRANSFER_READ)];
        // SAFETY: per the caller.
        unsafe {
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&mem));
            match combo.storage {
                Storage::Buffer => d.cmd_copy_buffer(
                    cmd,
                    self.cells.buffer,
                    self.readback.buffer,
                    &[vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 0,
                        size: units * 8,
                    }],
                ),
                // The image's texels row by row: the same count per unit, in another order
                // (only the sum of differences is read).
                Storage::Image => {
                    let region = whole_image_copy(opts.width * combo.per_pixel(), opts.height);
                    d.cmd_copy_image_to_buffer(
                        cmd,
                        self.cell_image.image,
                        vk::ImageLayout::GENERAL,
                        self.readback.buffer,
                        &[region],
                    );
                }
            }
            finish_read_back(d, cmd, &self.stats, &self.readback, units * 8);
        }
    }
}
