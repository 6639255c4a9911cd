//! One render's command buffer with its own pool, two timestamp queries around its work and a
//! fence: recorded once, submitted once per frame, destroyed when dropped.

use crate::device::{vk_err, DeviceError, Gpu};
use ash::vk;
use std::time::Instant;

pub struct Submission<'g> {
    gpu: &'g Gpu,
    pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    /// Query 0 before the work, query 1 after it (where the queue has timestamps).
    pub queries: vk::QueryPool,
    fence: vk::Fence,
}

impl Drop for Submission<'_> {
    fn drop(&mut self) {
        let d = &self.gpu.device;
        // SAFETY: the device is idle first, so nothing below is in use; null handles (a
        // creation that failed halfway) are ignored by the destroy calls.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_query_pool(self.queries, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}

impl<'g> Submission<'g> {
    pub fn new(gpu: &'g Gpu) -> Result<Submission<'g>, DeviceError> {
        let d = &gpu.device;
        let mut s = Submission {
            gpu,
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            queries: vk::QueryPool::null(),
            fence: vk::Fence::null(),
        };
        let pool = vk::CommandPoolCreateInfo::default().queue_family_index(gpu.caps.queue_family);
        let queries = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2);
        // SAFETY: valid device and create infos; everything is destroyed on drop.
        unsafe {
            s.pool = d
                .create_command_pool(&pool, None)
                .map_err(vk_err("vkCreateCommandPool"))?;
            s.queries = d
                .create_query_pool(&queries, None)
                .map_err(vk_err("vkCreateQueryPool"))?;
            s.fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vk_err("vkCreateFence"))?;
            let alloc = vk::CommandBufferAllocateInfo::default()
                .command_pool(s.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            s.cmd = d
                .allocate_command_buffers(&alloc)
                .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
        }
        Ok(s)
    }

    /// Whether the queue writes timestamps.
    pub fn timed(&self) -> bool {
        self.gpu.caps.timestamp_valid_bits > 0
    }

    /// Submits the recorded command buffer and waits for it: the milliseconds from submission
    /// to fence, on the CPU.
    pub fn submit_and_wait(&self) -> Result<f64, DeviceError> {
        let d = &self.gpu.device;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let start = Instant::now();
        // SAFETY: the command buffer is complete and not pending (the last fence was waited
        // for).
        unsafe {
            d.queue_submit(self.gpu.queue, &submit, self.fence)
                .map_err(vk_err("vkQueueSubmit"))?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)
                .map_err(vk_err("vkWaitForFences"))?;
            d.reset_fences(&[self.fence])
                .map_err(vk_err("vkResetFences"))?;
        }
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    /// The last submission's GPU milliseconds between the two timestamps, where the queue has
    /// them.
    pub fn gpu_ms(&self) -> Result<Option<f64>, DeviceError> {
        let bits = self.gpu.caps.timestamp_valid_bits;
        if bits == 0 {
            return Ok(None);
        }
        let mut ts = [0u64; 2];
        // SAFETY: both queries were written by the completed submission.
        unsafe {
            self.gpu.device.get_query_pool_results(
                self.queries,
                0,
                &mut ts,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(vk_err("vkGetQueryPoolResults"))?;
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let ticks = ts[1].wrapping_sub(ts[0]) & mask;
        Ok(Some(
            ticks as f64 * self.gpu.caps.timestamp_period_ns as f64 * 1e-6,
        ))
    }
}
