//! Buffers and images with their memory, destroyed by their owner — or, held
//! ([`Buffer::held`], [`Image::held`]), when dropped.

use crate::device::{vk_err, DeviceError, Gpu};
use ash::vk;

pub struct Buffer {
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    pub size: u64,
    mapped: Option<*mut u8>,
}

pub struct Image {
    pub image: vk::Image,
    memory: vk::DeviceMemory,
    pub view: vk::ImageView,
}

fn memory_type(gpu: &Gpu, bits: u32, want: vk::MemoryPropertyFlags) -> Option<u32> {
    (0..gpu.memory.memory_type_count).find(|&i| {
        bits & (1 << i) != 0
            && gpu.memory.memory_types[i as usize]
                .property_flags
                .contains(want)
    })
}

fn allocate(
    gpu: &Gpu,
    req: vk::MemoryRequirements,
    host_visible: bool,
) -> Result<vk::DeviceMemory, DeviceError> {
    let want = if host_visible {
        vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT
    } else {
        vk::MemoryPropertyFlags::DEVICE_LOCAL
    };
    let index = memory_type(gpu, req.memory_type_bits, want)
        .or_else(|| memory_type(gpu, req.memory_type_bits, vk::MemoryPropertyFlags::empty()))
        .ok_or(DeviceError::Vk {
            call: "vkAllocateMemory (no memory type)",
            result: vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        })?;
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(index);
    // SAFETY: valid device and allocation info.
    unsafe { gpu.device.allocate_memory(&info, None) }.map_err(vk_err("vkAllocateMemory"))
}

impl Buffer {
    pub fn new(
        gpu: &Gpu,
        size: u64,
        usage: vk::BufferUsageFlags,
        host_visible: bool,
    ) -> Result<Buffer, DeviceError> {
        let size = size.max(16);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device; the buffer is destroyed in `destroy`.
        unsafe {
            let buffer = gpu
                .device
                .create_buffer(&info, None)
                .map_err(vk_err("vkCreateBuffer"))?;
            let req = gpu.device.get_buffer_memory_requirements(buffer);
            let memory = match allocate(gpu, req, host_visible) {
                Ok(m) => m,
                Err(e) => {
                    gpu.device.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            gpu.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(vk_err("vkBindBufferMemory"))?;
            let mapped = if host_visible {
                Some(
                    gpu.device
                        .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                        .map_err(vk_err("vkMapMemory"))? as *mut u8,
                )
            } else {
                None
            };
            Ok(Buffer {
                buffer,
                memory,
                size,
                mapped,
            })
        }
    }

    /// Copies `data` to the start of a host-visible buffer.
    pub fn write(&self, data: &[u8]) {
        if let Some(p) = self.mapped {
            let n = data.len().min(self.size as usize);
            // SAFETY: the mapping covers `size` bytes, coherent, and no GPU work uses it now.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, n) };
        }
    }

    /// The first `n` bytes of a host-visible buffer.
    pub fn read(&self, n: usize) -> Vec<u8> {
        match self.mapped {
            // SAFETY: as in `write`; the caller waited for the GPU writes (fence).
            Some(p) => unsafe { std::slice::from_raw_parts(p, n.min(self.size as usize)) }.to_vec(),
            None => Vec::new(),
        }
    }

    pub fn destroy(&self, gpu: &Gpu) {
        // SAFETY: the GPU is idle with respect to this buffer (callers wait on fences first).
        unsafe {
            gpu.device.destroy_buffer(self.buffer, None);
            gpu.device.free_memory(self.memory, None);
        }
    }
}

impl Image {
    pub fn new(
        gpu: &Gpu,
        width: u32,
        height: u32,
        format: vk::Format,
        samples: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, DeviceError> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::from_raw(samples))
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device; destroyed in `destroy`.
        unsafe {
            let image = gpu
                .device
                .create_image(&info, None)
                .map_err(vk_err("vkCreateImage"))?;
            let req = gpu.device.get_image_memory_requirements(image);
            let memory = allocate(gpu, req, false)?;
            gpu.device
                .bind_image_memory(image, memory, 0)
                .map_err(vk_err("vkBindImageMemory"))?;
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(color_range());
            let view = gpu
                .device
                .create_image_view(&view_info, None)
                .map_err(vk_err("vkCreateImageView"))?;
            Ok(Image {
                image,
                memory,
                view,
            })
        }
    }

    pub fn destroy(&self, gpu: &Gpu) {
        // SAFETY: the GPU no longer uses the image (callers wait on fences first).
        unsafe {
            gpu.device.destroy_image_view(self.view, None);
            gpu.device.destroy_image(self.image, None);
            gpu.device.free_memory(self.memory, None);
        }
    }
}

/// The whole first layer of a `width`×`height` colour image, copied to the start of a buffer.
pub fn whole_image_copy(width: u32, height: u32) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        })
        .image_extent(vk::Extent3D {
            width,
            height,
            depth: 1,
        })
}

/// Records the last of a read-back: the first word of `from` copied to `offset` in `to`, then
/// every transfer made visible to the host.
///
/// # Safety
/// `cmd` is recording; both buffers live until the work completes and hold the bytes copied.
pub unsafe fn finish_read_back(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    from: &Buffer,
    to: &Buffer,
    offset: u64,
) {
    use vk::AccessFlags2 as A;
    use vk::PipelineStageFlags2 as S;
    let word = vk::BufferCopy {
        src_offset: 0,
        dst_offset: offset,
        size: 4,
    };
    let host = [vk::MemoryBarrier2::default()
        .src_stage_mask(S::ALL_TRANSFER)
        .src_access_mask(A::TRANSFER_WRITE)
        .dst_stage_mask(S::HOST)
        .dst_access_mask(A::HOST_READ)];
    // SAFETY: per the caller.
    unsafe {
        d.cmd_copy_buffer(cmd, from.buffer, to.buffer, &[word]);
        d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&host));
    }
}

pub fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A buffer or an image that destroys itself when dropped, so that a render's resources are
/// named fields and a failure halfway through making them frees what was made.
pub struct Held<'g, T: Destroy> {
    gpu: &'g Gpu,
    inner: T,
}

/// What a [`Held`] calls when dropped.
pub trait Destroy {
    fn destroy(&self, gpu: &Gpu);
}

impl Destroy for Buffer {
    fn destroy(&self, gpu: &Gpu) {
        Buffer::destroy(self, gpu);
    }
}

impl Destroy for Image {
    fn destroy(&self, gpu: &Gpu) {
        Image::destroy(self, gpu);
    }
}

impl Buffer {
    pub fn held(self, gpu: &Gpu) -> Held<'_, Buffer> {
        Held { gpu, inner: self }
    }
}

impl Image {
    pub fn held(self, gpu: &Gpu) -> Held<'_, Image> {
        Held { gpu, inner: self }
    }
}

impl<T: Destroy> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: Destroy> Drop for Held<'_, T> {
    fn drop(&mut self) {
        // The owner waited for the device to be idle before its fields are dropped.
        self.inner.destroy(self.gpu);
    }
}
