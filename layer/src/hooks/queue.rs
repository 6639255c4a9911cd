//! The queue hooks: submissions (their interlocked draws kept until known complete, for a device
//! loss; with the `timing` setting, their command buffers' timestamp queries kept until read),
//! presents (the end of a frame) and idle waits. Each calls down exactly once with the
//! application's arguments and returns the driver's result unchanged; a VK_ERROR_DEVICE_LOST is
//! reported once (crate::hooks::lost).

use super::lost;
use crate::boundary::guarded;
use crate::device::Device;
use crate::model::in_flight::{Batch, SemaphoreOp};
use crate::model::lost::Recorded;
use crate::records;
use crate::stores::Submissions;
use crate::table::vkfn;
use crate::vk::capture::slice;
use ash::vk;

fn raw<H: vk::Handle>(h: H) -> u64 {
    h.as_raw()
}

/// A submission as the layer reads it: its command buffers (for the timing) and its batches
/// (for the in-flight bookkeeping), each read only where wanted.
#[derive(Default)]
struct Read {
    cbs: Vec<u64>,
    batches: Option<Vec<Batch<Recorded>>>,
}

/// The semaphore operations of a batch: a timeline semaphore's value where it is one (the
/// value is ignored for binary semaphores, so it is not trusted for them).
fn ops(d: &Device, sems: &[vk::Semaphore], values: Option<&[u64]>) -> Vec<SemaphoreOp> {
    sems.iter()
        .enumerate()
        .map(|(i, s)| {
            let semaphore = raw(*s);
            let value = match values.and_then(|v| v.get(i)) {
                Some(v) if d.submissions.is_timeline(semaphore) => *v,
                _ => 0,
            };
            SemaphoreOp { semaphore, value }
        })
        .collect()
}

/// Around one submission to `queue`: numbered; the timing's earlier results read first (their
/// queries may be reused by this submission); the driver's result decides what is kept, or
/// reports the loss with the call's own draws.
fn around(
    d: &Device,
    queue: vk::Queue,
    call_name: &'static str,
    read: Read,
    fence: vk::Fence,
    numbered: bool,
    call: impl FnOnce() -> vk::Result,
) -> vk::Result {
    let submission = if numbered { d.submissions.number() } else { 0 };
    let timed = d.timing().and_then(|t| {
        guarded(&d.health, "timing", || {
            let (recs, done) = t.before_submit(&read.cbs);
            records::write_timing(d, done, None);
            d.submissions.batches_done(&t.take_completed());
            // Its last command buffer's end stamp, once read, completes the whole submission.
            let last_timed = read.cbs.last().is_some_and(|cb| t.timed(*cb));
            (recs, last_timed)
        })
    });
    let r = call();
    let queue = raw(queue);
    match r {
        vk::Result::SUCCESS => {
            let mut last = None;
            if let Some(batches) = read.batches {
                let fence = (fence != vk::Fence::null()).then(|| raw(fence));
                last = guarded(&d.health, call_name, || {
                    d.submissions.submitted(queue, submission, batches, fence)
                })
                .flatten();
            }
            if let (Some(t), Some((recs, last_timed))) = (&d.timing, timed) {
                let through = last.filter(|_| last_timed).map(|seq| (queue, seq));
                let _ = guarded(&d.health, "timing", || t.submitted(recs, through));
            }
        }
        vk::Result::ERROR_DEVICE_LOST => lost::seen(d, call_name, Some(queue), || {
            Submissions::at_loss(queue, submission, read.batches.unwrap_or_default())
        }),
        _ => {}
    }
    r
}

/// A submission with nothing to keep (no command buffer has interlocked draws, nothing is in
/// flight, no timing): numbered, and a loss reported.
#[inline]
fn plain(
    d: &Device,
    queue: vk::Queue,
    call_name: &'static str,
    call: impl FnOnce() -> vk::Result,
) -> vk::Result {
    d.submissions.number();
    let r = call();
    if r == vk::Result::ERROR_DEVICE_LOST {
        lost::seen(d, call_name, Some(raw(queue)), Vec::new);
    }
    r
}

/// Reads the command buffers and batches of a submission, as far as they are wanted.
fn read<I>(d: &Device, infos: &[I], batch: impl Fn(&I) -> (Vec<u64>, Batch<Recorded>)) -> Read {
    let track = d.submissions.tracking();
    if !track && d.timing.is_none() {
        return Read::default();
    }
    let mut out = Read::default();
    let mut batches = Vec::with_capacity(if track { infos.len() } else { 0 });
    for i in infos {
        let (cbs, mut b) = batch(i);
        if track {
            b.draws = d.submissions.draws_of(&cbs);
            batches.push(b);
        }
        if d.timing.is_some() {
            out.cbs.extend(cbs);
        }
    }
    out.batches = track.then_some(batches);
    out
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
    if !d.submissions.tracking() && d.timing.is_none() {
        // SAFETY: the application's arguments, unchanged.
        return plain(d, queue, vkfn::vkQueueSubmit, || unsafe {
            next(queue, n, submits, fence)
        });
    }
    let r = guarded(&d.health, vkfn::vkQueueSubmit, || {
        // SAFETY: pSubmits holds submitCount valid infos.
        read(d, unsafe { slice(submits, n) }, |s| {
            // SAFETY: each info's arrays hold their counts (the semaphore values where a
            // VkTimelineSemaphoreSubmitInfo is chained, with the counts it gives).
            unsafe { submit_info(d, s) }
        })
    })
    .unwrap_or_default();
    around(d, queue, vkfn::vkQueueSubmit, r, fence, true, || {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(queue, n, submits, fence) }
    })
}

/// # Safety
/// `s` must be a valid `VkSubmitInfo`.
unsafe fn submit_info(d: &Device, s: &vk::SubmitInfo) -> (Vec<u64>, Batch<Recorded>) {
    // SAFETY: per the caller.
    unsafe {
        let cbs = slice(s.p_command_buffers, s.command_buffer_count)
            .iter()
            .map(|c| raw(*c))
            .collect();
        let t =
            crate::ffi::find_in_chain(s.p_next, vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO)
                as *const vk::TimelineSemaphoreSubmitInfo;
        let (waits, signals) = match t.as_ref() {
            Some(t) => (
                (t.wait_semaphore_value_count == s.wait_semaphore_count)
                    .then(|| slice(t.p_wait_semaphore_values, t.wait_semaphore_value_count)),
                (t.signal_semaphore_value_count == s.signal_semaphore_count)
                    .then(|| slice(t.p_signal_semaphore_values, t.signal_semaphore_value_count)),
            ),
            None => (None, None),
        };
        let batch = Batch {
            draws: Vec::new(),
            waits: ops(d, slice(s.p_wait_semaphores, s.wait_semaphore_count), waits),
            signals: ops(
                d,
                slice(s.p_signal_semaphores, s.signal_semaphore_count),
                signals,
            ),
        };
        (cbs, batch)
    }
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
    if !d.submissions.tracking() && d.timing.is_none() {
        // SAFETY: the application's arguments, unchanged.
        return plain(d, queue, vkfn::vkQueueSubmit2, || unsafe {
            next(queue, n, submits, fence)
        });
    }
    let r = guarded(&d.health, vkfn::vkQueueSubmit2, || {
        // SAFETY: pSubmits holds submitCount valid infos.
        read(d, unsafe { slice(submits, n) }, |s| {
            let op = |i: &vk::SemaphoreSubmitInfo| (i.semaphore, i.value);
            // SAFETY: each info's arrays hold their counts.
            let (cbs, waits, signals) = unsafe {
                (
                    slice(s.p_command_buffer_infos, s.command_buffer_info_count),
                    slice(s.p_wait_semaphore_infos, s.wait_semaphore_info_count),
                    slice(s.p_signal_semaphore_infos, s.signal_semaphore_info_count),
                )
            };
            let split = |l: &[vk::SemaphoreSubmitInfo]| -> (Vec<vk::Semaphore>, Vec<u64>) {
                l.iter().map(op).unzip()
            };
            let (ws, wv) = split(waits);
            let (ss, sv) = split(signals);
            (
                cbs.iter().map(|c| raw(c.command_buffer)).collect(),
                Batch {
                    draws: Vec::new(),
                    waits: ops(d, &ws, Some(&wv)),
                    signals: ops(d, &ss, Some(&sv)),
                },
            )
        })
    })
    .unwrap_or_default();
    around(d, queue, vkfn::vkQueueSubmit2, r, fence, true, || {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(queue, n, submits, fence) }
    })
}

/// vkQueueBindSparse: no command buffers, but semaphores and a fence that complete what was
/// submitted before.
///
/// # Safety
/// The application's arguments.
pub unsafe fn bind_sparse(
    d: &Device,
    next: vk::PFN_vkQueueBindSparse,
    queue: vk::Queue,
    n: u32,
    infos: *const vk::BindSparseInfo,
    fence: vk::Fence,
) -> vk::Result {
    let r = guarded(&d.health, vkfn::vkQueueBindSparse, || {
        // SAFETY: pBindInfo holds bindInfoCount valid infos.
        read(d, unsafe { slice(infos, n) }, |s| {
            // SAFETY: each info's arrays hold their counts.
            unsafe {
                let t = crate::ffi::find_in_chain(
                    s.p_next,
                    vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO,
                ) as *const vk::TimelineSemaphoreSubmitInfo;
                let t = t.as_ref();
                let waits = t
                    .filter(|t| t.wait_semaphore_value_count == s.wait_semaphore_count)
                    .map(|t| slice(t.p_wait_semaphore_values, t.wait_semaphore_value_count));
                let signals = t
                    .filter(|t| t.signal_semaphore_value_count == s.signal_semaphore_count)
                    .map(|t| slice(t.p_signal_semaphore_values, t.signal_semaphore_value_count));
                (
                    Vec::new(),
                    Batch {
                        draws: Vec::new(),
                        waits: ops(d, slice(s.p_wait_semaphores, s.wait_semaphore_count), waits),
                        signals: ops(
                            d,
                            slice(s.p_signal_semaphores, s.signal_semaphore_count),
                            signals,
                        ),
                    },
                )
            }
        })
    })
    .unwrap_or_default();
    around(d, queue, vkfn::vkQueueBindSparse, r, fence, false, || {
        // SAFETY: the application's arguments, unchanged.
        unsafe { next(queue, n, infos, fence) }
    })
}

/// vkQueuePresentKHR: closes the timing's frame.
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
    // Draw totals that replayed command buffers changed reach the report about once a second.
    crate::report::tick();
    if r == vk::Result::ERROR_DEVICE_LOST {
        lost::seen(d, vkfn::vkQueuePresentKHR, Some(raw(queue)), Vec::new);
    } else if let Some(t) = d.timing() {
        let _ = guarded(&d.health, "timing", || {
            records::write_timing(d, t.present(), None);
            d.submissions.batches_done(&t.take_completed());
        });
    }
    r
}

/// vkQueueWaitIdle: everything submitted to the queue completed.
///
/// # Safety
/// The application's arguments.
pub unsafe fn wait_idle(d: &Device, next: vk::PFN_vkQueueWaitIdle, queue: vk::Queue) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(queue) };
    match r {
        vk::Result::SUCCESS => {
            let _ = guarded(&d.health, vkfn::vkQueueWaitIdle, || {
                d.submissions.queue_idle(raw(queue))
            });
        }
        vk::Result::ERROR_DEVICE_LOST => {
            lost::seen(d, vkfn::vkQueueWaitIdle, Some(raw(queue)), Vec::new)
        }
        _ => {}
    }
    r
}
