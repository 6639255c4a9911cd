//! The host's synchronization hooks: what they return tells the layer which submissions
//! completed (a signalled fence, a timeline semaphore's value, an idle device), or that the
//! device is lost. Each calls down exactly once with the application's arguments and returns the
//! driver's result unchanged; semaphores are followed only for their type (timeline values are
//! read only for timeline semaphores).

use super::lost;
use crate::boundary::guarded;
use crate::device::Device;
use crate::table::vkfn;
use crate::vk::capture::slice;
use ash::vk;

fn raw<H: vk::Handle>(h: H) -> u64 {
    h.as_raw()
}

/// vkDeviceWaitIdle: every queue's work completed.
///
/// # Safety
/// The application's arguments.
pub unsafe fn device_wait_idle(
    d: &Device,
    next: vk::PFN_vkDeviceWaitIdle,
    device: vk::Device,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device) };
    match r {
        vk::Result::SUCCESS => {
            let _ = guarded(&d.health, vkfn::vkDeviceWaitIdle, || {
                d.submissions.device_idle()
            });
        }
        vk::Result::ERROR_DEVICE_LOST => lost::seen(d, vkfn::vkDeviceWaitIdle, None, Vec::new),
        _ => {}
    }
    r
}

/// vkWaitForFences: with every fence signalled (or the only one), their submissions completed.
///
/// # Safety
/// The application's arguments.
pub unsafe fn wait_for_fences(
    d: &Device,
    next: vk::PFN_vkWaitForFences,
    device: vk::Device,
    n: u32,
    fences: *const vk::Fence,
    all: vk::Bool32,
    timeout: u64,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, n, fences, all, timeout) };
    let learn = r == vk::Result::SUCCESS && d.submissions.busy();
    if learn || r == vk::Result::ERROR_DEVICE_LOST {
        let _ = guarded(&d.health, vkfn::vkWaitForFences, || {
            // SAFETY: pFences holds fenceCount fences.
            let list = unsafe { slice(fences, n) }.iter().map(|f| raw(*f));
            if r == vk::Result::ERROR_DEVICE_LOST {
                let queue = d.submissions.queue_of_fences(&list.collect::<Vec<_>>());
                lost::seen(d, vkfn::vkWaitForFences, queue, Vec::new);
            } else if all == vk::TRUE || n == 1 {
                d.submissions.fences_signaled(list);
            }
        });
    }
    r
}

/// vkGetFenceStatus: a signalled fence's submission completed.
///
/// # Safety
/// The application's arguments.
pub unsafe fn get_fence_status(
    d: &Device,
    next: vk::PFN_vkGetFenceStatus,
    device: vk::Device,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, fence) };
    match r {
        vk::Result::SUCCESS if d.submissions.busy() => {
            let _ = guarded(&d.health, vkfn::vkGetFenceStatus, || {
                d.submissions.fences_signaled([raw(fence)])
            });
        }
        vk::Result::ERROR_DEVICE_LOST => {
            let queue = d.submissions.queue_of_fences(&[raw(fence)]);
            lost::seen(d, vkfn::vkGetFenceStatus, queue, Vec::new);
        }
        _ => {}
    }
    r
}

/// vkCreateSemaphore: timeline semaphores are told apart (only their values mean anything).
///
/// # Safety
/// The application's arguments.
pub unsafe fn create_semaphore(
    d: &Device,
    next: vk::PFN_vkCreateSemaphore,
    device: vk::Device,
    info: *const vk::SemaphoreCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::Semaphore,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, alloc, out) };
    if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateSemaphore, || {
            // SAFETY: a valid create info and its chain; success wrote the new semaphore.
            unsafe {
                let t = crate::ffi::find_in_chain(
                    (*info).p_next,
                    vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                ) as *const vk::SemaphoreTypeCreateInfo;
                if t.as_ref()
                    .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE)
                {
                    d.submissions.timeline_created(raw(*out));
                }
            }
        });
    }
    r
}

/// vkDestroySemaphore.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_semaphore(
    d: &Device,
    next: vk::PFN_vkDestroySemaphore,
    device: vk::Device,
    semaphore: vk::Semaphore,
    alloc: *const vk::AllocationCallbacks,
) {
    let _ = guarded(&d.health, vkfn::vkDestroySemaphore, || {
        d.submissions.semaphore_destroyed(raw(semaphore))
    });
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, semaphore, alloc) };
}

/// vkWaitSemaphores and vkWaitSemaphoresKHR: every value reached (or the only one).
///
/// # Safety
/// The application's arguments.
pub unsafe fn wait_semaphores(
    d: &Device,
    next: vk::PFN_vkWaitSemaphores,
    device: vk::Device,
    info: *const vk::SemaphoreWaitInfo,
    timeout: u64,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, timeout) };
    match r {
        vk::Result::SUCCESS if !info.is_null() => {
            let _ = guarded(&d.health, vkfn::vkWaitSemaphores, || {
                // SAFETY: a valid wait info: its arrays hold semaphoreCount entries.
                let (i, sems, values) = unsafe {
                    let i = &*info;
                    (
                        i,
                        slice(i.p_semaphores, i.semaphore_count),
                        slice(i.p_values, i.semaphore_count),
                    )
                };
                if !i.flags.contains(vk::SemaphoreWaitFlags::ANY) || sems.len() == 1 {
                    let reached: Vec<(u64, u64)> = sems
                        .iter()
                        .zip(values)
                        .map(|(s, v)| (raw(*s), *v))
                        .collect();
                    d.submissions.semaphores_reached(&reached);
                }
            });
        }
        vk::Result::ERROR_DEVICE_LOST => lost::seen(d, vkfn::vkWaitSemaphores, None, Vec::new),
        _ => {}
    }
    r
}

/// vkGetSemaphoreCounterValue and its KHR alias: the value reached.
///
/// # Safety
/// The application's arguments.
pub unsafe fn get_semaphore_counter_value(
    d: &Device,
    next: vk::PFN_vkGetSemaphoreCounterValue,
    device: vk::Device,
    semaphore: vk::Semaphore,
    value: *mut u64,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, semaphore, value) };
    match r {
        vk::Result::SUCCESS if !value.is_null() => {
            let _ = guarded(&d.health, vkfn::vkGetSemaphoreCounterValue, || {
                // SAFETY: success wrote the value.
                let v = unsafe { *value };
                d.submissions.semaphores_reached(&[(raw(semaphore), v)]);
            });
        }
        vk::Result::ERROR_DEVICE_LOST => {
            lost::seen(d, vkfn::vkGetSemaphoreCounterValue, None, Vec::new)
        }
        _ => {}
    }
    r
}

/// vkGetQueryPoolResults: only a loss is read from it. A query's availability says that its own
/// command ran, not that its submission completed, so it completes nothing here.
///
/// # Safety
/// The application's arguments.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_query_pool_results(
    d: &Device,
    next: vk::PFN_vkGetQueryPoolResults,
    device: vk::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    size: usize,
    data: *mut std::ffi::c_void,
    stride: vk::DeviceSize,
    flags: vk::QueryResultFlags,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, pool, first, count, size, data, stride, flags) };
    if r == vk::Result::ERROR_DEVICE_LOST {
        lost::seen(d, vkfn::vkGetQueryPoolResults, None, Vec::new);
    }
    r
}

/// vkAcquireNextImageKHR: the fence and semaphore are the presentation engine's to signal now.
///
/// # Safety
/// The application's arguments.
pub unsafe fn acquire_next_image(
    d: &Device,
    next: vk::PFN_vkAcquireNextImageKHR,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    index: *mut u32,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, swapchain, timeout, semaphore, fence, index) };
    acquired(d, r, vkfn::vkAcquireNextImageKHR, semaphore, fence);
    r
}

/// vkAcquireNextImage2KHR.
///
/// # Safety
/// The application's arguments.
pub unsafe fn acquire_next_image2(
    d: &Device,
    next: vk::PFN_vkAcquireNextImage2KHR,
    device: vk::Device,
    info: *const vk::AcquireNextImageInfoKHR,
    index: *mut u32,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, index) };
    // SAFETY: a valid acquire info.
    if let Some(i) = unsafe { info.as_ref() } {
        acquired(d, r, vkfn::vkAcquireNextImage2KHR, i.semaphore, i.fence);
    }
    r
}

fn acquired(d: &Device, r: vk::Result, call: &'static str, s: vk::Semaphore, f: vk::Fence) {
    match r {
        vk::Result::SUCCESS | vk::Result::SUBOPTIMAL_KHR => {
            let _ = guarded(&d.health, call, || {
                d.submissions.signaled_elsewhere(
                    (f != vk::Fence::null()).then(|| raw(f)),
                    (s != vk::Semaphore::null()).then(|| raw(s)),
                )
            });
        }
        vk::Result::ERROR_DEVICE_LOST => lost::seen(d, call, None, Vec::new),
        _ => {}
    }
}
