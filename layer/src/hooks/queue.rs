//! The queue hooks, handed out only with the `timing` setting: a submission keeps its command
//! buffers' timestamp queries until their results are read; a present closes a frame. Each calls
//! down exactly once with the application's arguments.

use crate::boundary::guarded;
use crate::device::Device;
use crate::model::capture::slice;
use crate::records;
use ash::vk;

/// Around one submission of `cbs`: earlier results read first (their queries may be reused by
/// this submission), the submission kept after it succeeds.
fn around(d: &Device, cbs: &[u64], call: impl FnOnce() -> vk::Result) -> vk::Result {
    let Some(t) = &d.timing else {
        return call();
    };
    let recs = guarded(&d.health, "timing", || t.before_submit(cbs)).map(|(recs, done)| {
        records::write_timing(d, done, None);
        recs
    });
    let r = call();
    if let (vk::Result::SUCCESS, Some(recs)) = (r, recs) {
        let _ = guarded(&d.health, "timing", || t.submitted(recs));
    }
    r
}

/// vkQueueSubmit.
///
/// # Safety
/// The application's arguments.
pub unsafe fn submit(
    d: &Device,
    next: vk::PFN_vkQueueSubmit,
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: pSubmits holds submitCount infos, each with commandBufferCount buffers.
    let cbs: Vec<u64> = unsafe { slice(submits, n) }
        .iter()
        // SAFETY: as above.
        .flat_map(|s| unsafe { slice(s.p_command_buffers, s.command_buffer_count) })
        .map(|c| vk::Handle::as_raw(*c))
        .collect();
    // SAFETY: the application's arguments, unchanged.
    around(d, &cbs, || unsafe { next(queue, n, submits, fence) })
}

/// vkQueueSubmit2 and vkQueueSubmit2KHR.
///
/// # Safety
/// The application's arguments.
pub unsafe fn submit2(
    d: &Device,
    next: vk::PFN_vkQueueSubmit2,
    queue: vk::Queue,
    n: u32,
    submits: *const vk::SubmitInfo2,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: pSubmits holds submitCount infos, each with commandBufferInfoCount buffer infos.
    let cbs: Vec<u64> = unsafe { slice(submits, n) }
        .iter()
        // SAFETY: as above.
        .flat_map(|s| unsafe { slice(s.p_command_buffer_infos, s.command_buffer_info_count) })
        .map(|c| vk::Handle::as_raw(c.command_buffer))
        .collect();
    // SAFETY: the application's arguments, unchanged.
    around(d, &cbs, || unsafe { next(queue, n, submits, fence) })
}

/// vkQueuePresentKHR: closes the frame.
///
/// # Safety
/// The application's arguments.
pub unsafe fn present(
    d: &Device,
    next: vk::PFN_vkQueuePresentKHR,
    queue: vk::Queue,
    info: *const vk::PresentInfoKHR,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(queue, info) };
    if let Some(t) = &d.timing {
        if let Some(done) = guarded(&d.health, "timing", || t.present()) {
            records::write_timing(d, done, None);
        }
    }
    r
}
