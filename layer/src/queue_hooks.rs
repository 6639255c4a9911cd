//! The queue hooks, handed out only with the `timing` setting (crate::timing): a submission
//! keeps its command buffers' timestamp queries until their results are read; a present closes
//! a frame. Each calls down exactly once with the application's arguments.

use crate::dispatch::{self, guarded, DeviceData};
use crate::ffi::dispatch_key;
use ash::vk;
use std::sync::Arc;

/// The device of a queue.
fn device_of(queue: vk::Queue) -> Option<Arc<DeviceData>> {
    if vk::Handle::as_raw(queue) == 0 {
        return None;
    }
    // SAFETY: hooks are only reachable for queues of devices created through this layer, which
    // share their device's dispatch key.
    dispatch::device(unsafe { dispatch_key(queue) })
}

/// Around one submission of `cbs`: earlier results read first (their queries may be reused by
/// this submission), the submission kept after it succeeds.
fn submit(d: &DeviceData, cbs: &[u64], call: impl FnOnce() -> vk::Result) -> vk::Result {
    let Some(t) = &d.timing else {
        return call();
    };
    let recs = guarded(&d.health, "timing", || t.before_submit(cbs)).map(|(recs, done)| {
        crate::records::write_timing(d, done, None);
        recs
    });
    let r = call();
    if let (vk::Result::SUCCESS, Some(recs)) = (r, recs) {
        let _ = guarded(&d.health, "timing", || t.submitted(recs));
    }
    r
}

pub(crate) unsafe extern "system" fn queue_submit(
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo,
    fence: vk::Fence,
) -> vk::Result {
    crate::dispatch::ffi_boundary("queue_submit", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(queue) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.queue_submit else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: pSubmits holds submitCount infos, each with commandBufferCount buffers.
        let cbs: Vec<u64> = unsafe { crate::capture::slice(submits, n) }
            .iter()
            .flat_map(|s| {
                // SAFETY: as above.
                unsafe { crate::capture::slice(s.p_command_buffers, s.command_buffer_count) }
            })
            .map(|c| vk::Handle::as_raw(*c))
            .collect();
        // SAFETY: the application's arguments, unchanged.
        submit(&d, &cbs, || unsafe { next(queue, n, submits, fence) })
    })
}

/// vkQueueSubmit2 and vkQueueSubmit2KHR, with the next layer's function `pick` gives.
///
/// # Safety
/// The command's valid usage: a queue of a device created through this layer, `submits` holding
/// `n` valid `VkSubmitInfo2`.
unsafe fn submit2(
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo2,
    fence: vk::Fence,
    pick: impl Fn(&DeviceData) -> Option<vk::PFN_vkQueueSubmit2>,
) -> vk::Result {
    let Some(d) = device_of(queue) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let Some(next) = pick(&d) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: per the caller; each info holds commandBufferInfoCount buffer infos.
    let cbs: Vec<u64> = unsafe { crate::capture::slice(submits, n) }
        .iter()
        .flat_map(|s| {
            // SAFETY: as above.
            unsafe { crate::capture::slice(s.p_command_buffer_infos, s.command_buffer_info_count) }
        })
        .map(|c| vk::Handle::as_raw(c.command_buffer))
        .collect();
    // SAFETY: the application's arguments, unchanged.
    submit(&d, &cbs, || unsafe { next(queue, n, submits, fence) })
}

pub(crate) unsafe extern "system" fn queue_submit2(
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo2,
    fence: vk::Fence,
) -> vk::Result {
    crate::dispatch::ffi_boundary("queue_submit2", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: the application's arguments.
        unsafe { submit2(queue, n, submits, fence, |d| d.next.queue_submit2) }
    })
}

pub(crate) unsafe extern "system" fn queue_submit2_khr(
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo2,
    fence: vk::Fence,
) -> vk::Result {
    crate::dispatch::ffi_boundary("queue_submit2_khr", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: the application's arguments.
        unsafe { submit2(queue, n, submits, fence, |d| d.next.queue_submit2_khr) }
    })
}

pub(crate) unsafe extern "system" fn queue_present_khr(
    queue: vk::Queue,
    info: *const vk::PresentInfoKHR,
) -> vk::Result {
    crate::dispatch::ffi_boundary("queue_present_khr", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(queue) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.queue_present_khr else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(queue, info) };
        if let Some(t) = &d.timing {
            if let Some(done) = guarded(&d.health, "timing", || t.present()) {
                crate::records::write_timing(&d, done, None);
            }
        }
        r
    })
}
