//! The timing's hooks, handed out only with the `timing` setting: command pools (which queue
//! family's command buffers are timed) and the actions and synchronization commands before which
//! a command buffer's timing starts.

use crate::boundary::guarded;
use crate::device::Device;
use crate::table::vkfn;
use ash::vk;

/// Before an action or synchronization command: the timing's start of the command buffer.
pub fn before_action(d: &Device, cb: vk::CommandBuffer) {
    if let Some(t) = d.timing() {
        let _ = guarded(&d.health, "timing", || t.before_action(cb));
    }
}

/// vkCreateCommandPool: whether its command buffers are timed.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create_command_pool(
    d: &Device,
    next: vk::PFN_vkCreateCommandPool,
    device: vk::Device,
    info: *const vk::CommandPoolCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::CommandPool,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, alloc, out) };
    if let (vk::Result::SUCCESS, Some(t)) = (r, &d.timing) {
        if !info.is_null() && !out.is_null() {
            let _ = guarded(&d.health, vkfn::vkCreateCommandPool, || {
                // SAFETY: success: a valid create info and the new pool.
                let (i, pool) = unsafe { (&*info, *out) };
                // Queries may not be used in protected command buffers.
                if !i.flags.contains(vk::CommandPoolCreateFlags::PROTECTED) {
                    t.pool_created(vk::Handle::as_raw(pool), i.queue_family_index);
                }
            });
        }
    }
    r
}

/// vkDestroyCommandPool: its command buffers are gone.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_command_pool(
    d: &Device,
    next: vk::PFN_vkDestroyCommandPool,
    device: vk::Device,
    pool: vk::CommandPool,
    alloc: *const vk::AllocationCallbacks,
) {
    if let Some(t) = &d.timing {
        let _ = guarded(&d.health, vkfn::vkDestroyCommandPool, || {
            t.pool_destroyed(vk::Handle::as_raw(pool))
        });
    }
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, pool, alloc) };
}
