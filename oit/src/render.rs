//! Renders one combination: resources sized for it, one command buffer recorded once and
//! submitted `frames` times, GPU time from timestamp queries around the two passes.

use crate::config::{Algorithm, Combo, OIT_LAYERS};
use crate::device::{vk_err, DeviceError, Gpu};
use crate::pipelines::{bind, ComboPipelines, Layouts, Push, OUTPUT_FORMAT, TAIL_FORMAT};
use crate::reference::BACKGROUND;
use crate::resources::{color_range, finish_read_back, whole_image_copy, Buffer, Held, Image};
use crate::scene::Scene;
use crate::submission::Submission;
use ash::vk;

/// Bytes of one A-buffer entry / list node (`Fragment` in shaders/common.glsl).
const FRAGMENT_BYTES: u64 = 16;

pub struct Frames {
    /// Milliseconds per frame from the GPU's timestamps; empty if the queue has none.
    pub gpu_ms: Vec<f64>,
    /// Milliseconds per frame from submission to fence, on the CPU.
    pub cpu_ms: Vec<f64>,
}

pub struct Rendered {
    /// RGBA8, row-major, top row first.
    pub rgba: Vec<u8>,
    /// The read-back buffer still held what the CPU wrote into it before the last submission:
    /// the submission completed (its fence signalled) but nothing on the GPU wrote the image.
    pub untouched: bool,
    pub frames: Frames,
    /// Linked list: nodes asked for (may exceed the pool, which then drops fragments).
    pub nodes_used: Option<u64>,
    pub node_capacity: u64,
}

/// The byte the read-back buffer is filled with before a submission.
const SENTINEL: u8 = 0xa5;

/// GPU memory a combination needs, so a too-large request fails with a clear message first.
pub fn buffer_sizes(scene: &Scene, combo: Combo, fragments: u64) -> (u64, u64, u64) {
    let units = unit_count(scene, combo);
    match combo.algorithm {
        Algorithm::Interlock(_) => (units * OIT_LAYERS as u64 * FRAGMENT_BYTES, units * 4, 0),
        // One node per fragment the reference counted, plus slack.
        Algorithm::LinkedList => {
            let cap = fragments + fragments / 8 + 1024;
            (cap * FRAGMENT_BYTES, units * 4, cap)
        }
    }
}

fn unit_count(scene: &Scene, combo: Combo) -> u64 {
    let per = if combo.aa.per_sample() {
        combo.aa.samples() as u64
    } else {
        1
    };
    scene.width as u64 * scene.height as u64 * per
}

/// One render's resources: the triangles, the A-buffer (or node pool), the per-unit data (counts
/// or list heads), the node counter, the read-back buffer; the tail and output images.
struct Owned<'g> {
    gpu: &'g Gpu,
    tris: Held<'g, Buffer>,
    abuf: Held<'g, Buffer>,
    aux: Held<'g, Buffer>,
    counter: Held<'g, Buffer>,
    readback: Held<'g, Buffer>,
    tail: Held<'g, Image>,
    output: Held<'g, Image>,
    pool: vk::DescriptorPool,
    sub: Submission<'g>,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        let d = &self.gpu.device;
        // SAFETY: we wait for the device to be idle, so the set is not in use (the submission,
        // buffers and images are destroyed after this, as the fields drop).
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_descriptor_pool(self.pool, None);
        }
    }
}

pub(crate) fn image_barrier(
    image: vk::Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .image(image)
        .old_layout(old)
        .new_layout(new)
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .subresource_range(color_range())
}

pub fn render(
    gpu: &Gpu,
    layouts: &Layouts,
    pipelines: &ComboPipelines,
    scene: &Scene,
    combo: Combo,
    fragments: u64,
    frames: u32,
) -> Result<Rendered, DeviceError> {
    let (w, h) = (scene.width, scene.height);
    let (_, _, node_capacity) = buffer_sizes(scene, combo, fragments);
    let linked = combo.algorithm == Algorithm::LinkedList;
    let mut o = resources(gpu, scene, combo, fragments)?;
    let set = descriptors(gpu, layouts, &mut o)?;
    let cmd = o.sub.cmd;
    let rec = Recording {
        gpu,
        layouts,
        pipelines,
        scene,
        combo,
        o: &o,
        set,
        cmd,
        push: Push {
            width: w,
            height: h,
            samples: combo.aa.samples(),
            unit_count: unit_count(scene, combo) as u32,
            node_capacity: node_capacity as u32,
            pad: [0; 3],
        },
        timestamps: o.sub.timed(),
    };
    // SAFETY: recording into a fresh command buffer; every handle used is alive until `o`
    // drops, after the fence of the last submission was waited for.
    unsafe {
        rec.begin(linked)?;
        rec.color_pass();
        rec.resolve_and_read_back()?;
    }
    let readback_size = w as u64 * h as u64 * 4 + 16;
    let mut gpu_ms = Vec::new();
    let mut cpu_ms = Vec::new();
    // What the read-back buffer holds before each submission: if it is still there afterwards,
    // the GPU wrote nothing (a device whose shaders and copies do not run).
    let sentinel = vec![SENTINEL; readback_size as usize];
    for _ in 0..frames.max(1) {
        o.readback.write(&sentinel);
        cpu_ms.push(o.sub.submit_and_wait()?);
        if let Some(ms) = o.sub.gpu_ms()? {
            gpu_ms.push(ms);
        }
    }
    let bytes = o.readback.read(readback_size as usize);
    let untouched = bytes == sentinel;
    let n = w as usize * h as usize * 4;
    let rgba = bytes[..n].to_vec();
    let used = u32::from_le_bytes([bytes[n], bytes[n + 1], bytes[n + 2], bytes[n + 3]]) as u64;
    Ok(Rendered {
        rgba,
        untouched,
        frames: Frames { gpu_ms, cpu_ms },
        nodes_used: linked.then_some(used),
        node_capacity,
    })
}

/// The buffers (triangles, A-buffer, per-unit data, the node counter, the read-back buffer)
/// and images (the tail, the output) of one render; freed when the result is dropped.
fn resources<'g>(
    gpu: &'g Gpu,
    scene: &Scene,
    combo: Combo,
    fragments: u64,
) -> Result<Owned<'g>, DeviceError> {
    let (w, h) = (scene.width, scene.height);
    let samples = combo.aa.samples();
    let (abuf_size, aux_size, _) = buffer_sizes(scene, combo, fragments);
    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    let words = scene.gpu_words();
    let tri_bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let tris = Buffer::new(gpu, tri_bytes.len() as u64, storage, true)?.held(gpu);
    tris.write(&tri_bytes);
    let abuf = Buffer::new(gpu, abuf_size, storage, false)?.held(gpu);
    let aux = Buffer::new(
        gpu,
        aux_size,
        storage | vk::BufferUsageFlags::TRANSFER_DST,
        false,
    )?
    .held(gpu);
    let counter = Buffer::new(
        gpu,
        16,
        storage | vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC,
        false,
    )?
    .held(gpu);
    let readback_size = w as u64 * h as u64 * 4 + 16;
    let readback =
        Buffer::new(gpu, readback_size, vk::BufferUsageFlags::TRANSFER_DST, true)?.held(gpu);
    let tail = Image::new(
        gpu,
        w,
        h,
        TAIL_FORMAT,
        samples,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
    )?
    .held(gpu);
    let output = Image::new(
        gpu,
        w,
        h,
        OUTPUT_FORMAT,
        1,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
    )?
    .held(gpu);
    let o = Owned {
        gpu,
        tris,
        abuf,
        aux,
        counter,
        readback,
        tail,
        output,
        pool: vk::DescriptorPool::null(),
        sub: Submission::new(gpu)?,
    };
    Ok(o)
}

/// The descriptor set of the render's buffers and the tail image.
fn descriptors(
    gpu: &Gpu,
    layouts: &Layouts,
    o: &mut Owned<'_>,
) -> Result<vk::DescriptorSet, DeviceError> {
    let d = &gpu.device;
    let (tris, abuf, aux, counter) = (&*o.tris, &*o.abuf, &*o.aux, &*o.counter);
    let tail = &*o.tail;
    // Descriptors.
    let pool_sizes = [
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 4,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: 1,
        },
    ];
    let pool_info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&pool_sizes);
    // SAFETY: valid device; the pool is destroyed by `Owned`.
    o.pool = unsafe { d.create_descriptor_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
    let set_layouts = [layouts.set_layout];
    let alloc = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(o.pool)
        .set_layouts(&set_layouts);
    // SAFETY: the pool has room for one set of this layout.
    let set = unsafe { d.allocate_descriptor_sets(&alloc) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?[0];
    let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = [tris, abuf, aux, counter]
        .iter()
        .map(|b| {
            [vk::DescriptorBufferInfo {
                buffer: b.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        })
        .collect();
    let image_info = [vk::DescriptorImageInfo {
        sampler: layouts.sampler,
        image_view: tail.view,
        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let mut writes: Vec<vk::WriteDescriptorSet> = buffer_infos
        .iter()
        .enumerate()
        .map(|(i, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(i as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(info)
        })
        .collect();
    writes.push(
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(4)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&image_info),
    );
    // SAFETY: the set and resources are valid and not in use.
    unsafe { d.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}

/// What recording one render's command buffer needs.
struct Recording<'a> {
    gpu: &'a Gpu,
    layouts: &'a Layouts,
    pipelines: &'a ComboPipelines,
    scene: &'a Scene,
    combo: Combo,
    o: &'a Owned<'a>,
    set: vk::DescriptorSet,
    cmd: vk::CommandBuffer,
    push: Push,
    timestamps: bool,
}

impl Recording<'_> {
    fn area(&self) -> vk::Rect2D {
        vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: self.scene.width,
                height: self.scene.height,
            },
        }
    }

    fn viewport(&self) -> vk::Viewport {
        vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: self.scene.width as f32,
            height: self.scene.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }

    /// Begins the command buffer: the timestamp queries reset and the first written, the
    /// per-unit counters (interlock) or list heads (linked list) and the node counter cleared,
    /// the images made attachments.
    ///
    /// # Safety
    /// A fresh command buffer of the device, every handle alive until the work completes.
    unsafe fn begin(&self, linked: bool) -> Result<(), DeviceError> {
        use vk::AccessFlags2 as A;
        use vk::PipelineStageFlags2 as S;
        let (d, cmd, o, timestamps) = (&self.gpu.device, self.cmd, self.o, self.timestamps);
        let (aux, counter) = (&o.aux, &o.counter);
        let (tail, output) = (&o.tail, &o.output);
        // SAFETY: per the caller.
        unsafe {
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(vk_err("vkBeginCommandBuffer"))?;
            d.cmd_reset_query_pool(cmd, o.sub.queries, 0, 2);
            if timestamps {
                d.cmd_write_timestamp2(cmd, S::TOP_OF_PIPE, o.sub.queries, 0);
            }
            // Reset per-unit counters (interlock) or list heads (linked list), and the node counter.
            d.cmd_fill_buffer(
                cmd,
                aux.buffer,
                0,
                vk::WHOLE_SIZE,
                if linked { u32::MAX } else { 0 },
            );
            d.cmd_fill_buffer(cmd, counter.buffer, 0, vk::WHOLE_SIZE, 0);
            let mem = [vk::MemoryBarrier2::default()
                .src_stage_mask(S::ALL_TRANSFER | S::FRAGMENT_SHADER)
                .src_access_mask(
                    A::TRANSFER_WRITE | A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE,
                )
                .dst_stage_mask(S::FRAGMENT_SHADER)
                .dst_access_mask(A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE)];
            let img = [
                image_barrier(
                    tail.image,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ),
                    (
                        S::COLOR_ATTACHMENT_OUTPUT,
                        A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
                    ),
                ),
                image_barrier(
                    output.image,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    (S::ALL_TRANSFER, A::TRANSFER_READ),
                    (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE),
                ),
            ];
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default()
                    .memory_barriers(&mem)
                    .image_memory_barriers(&img),
            );
        }
        Ok(())
    }

    /// The colour pass: every triangle drawn with the combination's pipeline into the tail.
    ///
    /// # Safety
    /// After [`Recording::begin`].
    unsafe fn color_pass(&self) {
        let (d, cmd, gpu) = (&self.gpu.device, self.cmd, self.gpu);
        let (area, viewport) = (self.area(), self.viewport());
        let (layouts, pipelines, scene, combo, set, push) = (
            self.layouts,
            self.pipelines,
            self.scene,
            self.combo,
            self.set,
            &self.push,
        );
        let tail = &self.o.tail;
        // SAFETY: per the caller.
        unsafe {
            // Colour pass.
            let bg = BACKGROUND;
            let tail_att = [vk::RenderingAttachmentInfo::default()
                .image_view(tail.view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    color: vk::ClearColorValue { float32: bg },
                })];
            d.cmd_begin_rendering(
                cmd,
                &vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(1)
                    .color_attachments(&tail_att),
            );
            bind(gpu, cmd, &pipelines.color, viewport, area);
            set_samples(gpu, cmd, combo.aa.samples());
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layouts.pipeline_layout,
                0,
                &[set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                layouts.pipeline_layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                0,
                &push.bytes(),
            );
            d.cmd_draw(cmd, 3 * scene.triangles.len() as u32, 1, 0, 0);
            d.cmd_end_rendering(cmd);
        }
    }

    /// The resolve pass into the output image, the last timestamp, and the copies of the image
    /// and the node counter into the read-back buffer; ends the command buffer.
    ///
    /// # Safety
    /// After [`Recording::color_pass`].
    unsafe fn resolve_and_read_back(&self) -> Result<(), DeviceError> {
        use vk::AccessFlags2 as A;
        use vk::PipelineStageFlags2 as S;
        let (d, cmd, gpu, o, timestamps) = (
            &self.gpu.device,
            self.cmd,
            self.gpu,
            self.o,
            self.timestamps,
        );
        let (area, viewport, pipelines) = (self.area(), self.viewport(), self.pipelines);
        let (w, h) = (self.scene.width, self.scene.height);
        let (counter, readback) = (&o.counter, &o.readback);
        let (tail, output) = (&o.tail, &o.output);
        // SAFETY: per the caller.
        unsafe {
            let mem = [vk::MemoryBarrier2::default()
                .src_stage_mask(S::FRAGMENT_SHADER)
                .src_access_mask(A::SHADER_STORAGE_WRITE)
                .dst_stage_mask(S::FRAGMENT_SHADER)
                .dst_access_mask(A::SHADER_STORAGE_READ)];
            let img = [image_barrier(
                tail.image,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE),
                (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ),
            )];
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default()
                    .memory_barriers(&mem)
                    .image_memory_barriers(&img),
            );

            // Resolve pass.
            let out_att = [vk::RenderingAttachmentInfo::default()
                .image_view(output.view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::DONT_CARE)
                .store_op(vk::AttachmentStoreOp::STORE)];
            d.cmd_begin_rendering(
                cmd,
                &vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(1)
                    .color_attachments(&out_att),
            );
            bind(gpu, cmd, &pipelines.resolve, viewport, area);
            set_samples(gpu, cmd, 1);
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            if timestamps {
                d.cmd_write_timestamp2(cmd, S::COLOR_ATTACHMENT_OUTPUT, o.sub.queries, 1);
            }

            // Read back the image and the node counter.
            let img = [image_barrier(
                output.image,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE),
                (S::ALL_TRANSFER, A::TRANSFER_READ),
            )];
            let mem = [vk::MemoryBarrier2::default()
                .src_stage_mask(S::FRAGMENT_SHADER)
                .src_access_mask(A::SHADER_STORAGE_WRITE)
                .dst_stage_mask(S::ALL_TRANSFER)
                .dst_access_mask(A::TRANSFER_READ)];
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default()
                    .memory_barriers(&mem)
                    .image_memory_barriers(&img),
            );
            let region = whole_image_copy(w, h);
            d.cmd_copy_image_to_buffer(
                cmd,
                output.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback.buffer,
                &[region],
            );
            finish_read_back(d, cmd, counter, readback, w as u64 * h as u64 * 4);
            d.end_command_buffer(cmd)
                .map_err(vk_err("vkEndCommandBuffer"))?;
        }
        Ok(())
    }
}

/// `--dynamic`: the bound pipeline's rasterization sample count, set in the command buffer
/// (shader objects set it when bound).
pub(crate) fn set_samples(gpu: &Gpu, cmd: vk::CommandBuffer, samples: u32) {
    if gpu.shader_objects {
        return;
    }
    if let (true, Some(e)) = (gpu.dynamic_samples, &gpu.eds3) {
        // SAFETY: a command buffer in the recording state with a pipeline whose rasterization
        // sample count is dynamic bound; the device enabled the feature.
        unsafe { e.cmd_set_rasterization_samples(cmd, vk::SampleCountFlags::from_raw(samples)) };
    }
}
