//! A command buffer's life: allocation (secondaries are told apart: only theirs is an
//! inheritance info to read), beginning (a secondary inherits its render pass instance's
//! attachments), ending (each distinct bound object and draw state becomes one draw record),
//! reset and free. Until the device has an interlocked object, nothing is tracked.

use super::passes::subpass_rendering;
use crate::boundary::guarded;
use crate::device::Device;
use crate::model::capture::DepthAttachment;
use crate::model::draws::Rendering;
use crate::records;
use crate::table::vkfn;
use crate::vk::capture as read;
use crate::vk::convert;
use ash::vk;

fn raw(cb: vk::CommandBuffer) -> u64 {
    vk::Handle::as_raw(cb)
}

/// vkAllocateCommandBuffers.
///
/// # Safety
/// The application's arguments.
pub unsafe fn allocate(
    d: &Device,
    next: vk::PFN_vkAllocateCommandBuffers,
    device: vk::Device,
    info: *const vk::CommandBufferAllocateInfo,
    out: *mut vk::CommandBuffer,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, out) };
    if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
        let _ = guarded(&d.health, vkfn::vkAllocateCommandBuffers, || {
            // SAFETY: success: `out` holds commandBufferCount new command buffers.
            let (i, cbs) = unsafe {
                let i = &*info;
                (
                    i,
                    std::slice::from_raw_parts(out, i.command_buffer_count as usize),
                )
            };
            let cbs: Vec<u64> = cbs.iter().map(|c| raw(*c)).collect();
            if i.level == vk::CommandBufferLevel::SECONDARY {
                d.recordings.add_secondaries(&cbs);
            } else if let Some(t) = &d.timing {
                t.allocated(vk::Handle::as_raw(i.command_pool), &cbs);
            }
        });
    }
    r
}

/// vkFreeCommandBuffers.
///
/// # Safety
/// The application's arguments.
pub unsafe fn free(
    d: &Device,
    next: vk::PFN_vkFreeCommandBuffers,
    device: vk::Device,
    pool: vk::CommandPool,
    n: u32,
    cbs: *const vk::CommandBuffer,
) {
    if n > 0 && !cbs.is_null() {
        let _ = guarded(&d.health, vkfn::vkFreeCommandBuffers, || {
            // SAFETY: pCommandBuffers holds commandBufferCount handles (NULL ones allowed).
            let cbs: Vec<u64> = unsafe { std::slice::from_raw_parts(cbs, n as usize) }
                .iter()
                .map(|c| raw(*c))
                .collect();
            d.recordings.forget(&cbs, true);
            d.submissions.forget(&cbs);
            if let Some(t) = &d.timing {
                for c in &cbs {
                    t.forget(*c, true);
                }
            }
        });
    }
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, pool, n, cbs) };
}

/// vkBeginCommandBuffer.
///
/// # Safety
/// The application's arguments.
pub unsafe fn begin(
    d: &Device,
    next: vk::PFN_vkBeginCommandBuffer,
    cb: vk::CommandBuffer,
    info: *const vk::CommandBufferBeginInfo,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(cb, info) };
    if r != vk::Result::SUCCESS {
        return r;
    }
    if let Some(t) = d.timing() {
        let _ = guarded(&d.health, "timing", || t.begin(cb));
    }
    let _ = guarded(&d.health, vkfn::vkBeginCommandBuffer, || {
        d.submissions.forget(&[raw(cb)])
    });
    if d.objects.any_interlocked() {
        let _ = guarded(&d.health, vkfn::vkBeginCommandBuffer, || {
            let secondary = d.recordings.is_secondary(raw(cb));
            // pInheritanceInfo is read only for secondary command buffers, and its render pass
            // only with RENDER_PASS_CONTINUE (the specification ignores it otherwise).
            // SAFETY: a valid begin info; for a secondary, a valid inheritance info.
            let inherited = unsafe { inherited_rendering(d, info, secondary) };
            d.recordings.begin(raw(cb), inherited);
        });
    }
    r
}

/// The render pass instance a secondary command buffer continues.
///
/// # Safety
/// `info` must be a valid `VkCommandBufferBeginInfo`; `secondary` whether the buffer is one.
unsafe fn inherited_rendering(
    d: &Device,
    info: *const vk::CommandBufferBeginInfo,
    secondary: bool,
) -> Option<Rendering> {
    if !secondary || info.is_null() {
        return None;
    }
    // SAFETY: per the caller.
    let info = unsafe { &*info };
    if !info
        .flags
        .contains(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
        || info.p_inheritance_info.is_null()
    {
        return None;
    }
    // SAFETY: a secondary's inheritance info is valid.
    let inh = unsafe { &*info.p_inheritance_info };
    if inh.render_pass != vk::RenderPass::null() {
        return subpass_rendering(d, vk::Handle::as_raw(inh.render_pass), inh.subpass);
    }
    // SAFETY: the chain of a valid structure.
    let r = unsafe {
        crate::ffi::find_in_chain(
            inh.p_next,
            vk::StructureType::COMMAND_BUFFER_INHERITANCE_RENDERING_INFO,
        )
    } as *const vk::CommandBufferInheritanceRenderingInfo;
    if r.is_null() {
        return None;
    }
    // SAFETY: sType identifies the structure.
    let r = unsafe { &*r };
    let ds = r.depth_attachment_format != vk::Format::UNDEFINED
        || r.stencil_attachment_format != vk::Format::UNDEFINED;
    Some(Rendering {
        depth: DepthAttachment {
            samples: if ds {
                convert::samples(r.rasterization_samples)
            } else {
                0
            },
            has_stencil: convert::format_has_stencil(r.stencil_attachment_format)
                || convert::format_has_stencil(r.depth_attachment_format),
        },
        color_count: r.color_attachment_count,
        // SAFETY: pColorAttachmentFormats holds colorAttachmentCount formats.
        colors: crate::vk::convert::color_formats(
            unsafe { read::slice(r.p_color_attachment_formats, r.color_attachment_count) }
                .iter()
                .copied(),
        ),
    })
}

/// vkEndCommandBuffer: the buffer's last timestamp, then its draw records.
///
/// # Safety
/// The application's arguments.
pub unsafe fn end(
    d: &Device,
    next: vk::PFN_vkEndCommandBuffer,
    cb: vk::CommandBuffer,
) -> vk::Result {
    if let Some(t) = d.timing() {
        // The buffer's last timestamp, before it ends.
        let _ = guarded(&d.health, "timing", || t.end(cb));
    }
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(cb) };
    if d.objects.any_interlocked() {
        let _ = guarded(&d.health, vkfn::vkEndCommandBuffer, || {
            // Records are built outside the store's lock; each is written after its object's
            // (the outbox keeps the order), once its verdict is given, without waiting for it.
            let recs = d
                .recordings
                .end(raw(cb))
                .iter()
                .map(|g| records::draw_record(d, raw(cb), g))
                .collect();
            d.submissions.ended(raw(cb), recs);
            records::tell_held_messages(d);
        });
    }
    r
}

/// vkResetCommandBuffer.
///
/// # Safety
/// The application's arguments.
pub unsafe fn reset(
    d: &Device,
    next: vk::PFN_vkResetCommandBuffer,
    cb: vk::CommandBuffer,
    flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(cb, flags) };
    let _ = guarded(&d.health, vkfn::vkResetCommandBuffer, || {
        d.recordings.forget(&[raw(cb)], false);
        d.submissions.forget(&[raw(cb)]);
        if let Some(t) = &d.timing {
            t.forget(raw(cb), false);
        }
    });
    r
}

/// vkCmdExecuteCommands: the timing's start of the primary (an action), and the secondaries'
/// draw records go with the primary.
///
/// # Safety
/// The application's arguments.
pub unsafe fn execute_commands(
    d: &Device,
    next: vk::PFN_vkCmdExecuteCommands,
    cb: vk::CommandBuffer,
    n: u32,
    secondaries: *const vk::CommandBuffer,
) {
    super::timing::before_action(d, cb);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, n, secondaries) };
    let _ = guarded(&d.health, vkfn::vkCmdExecuteCommands, || {
        // SAFETY: pCommandBuffers holds commandBufferCount handles.
        let list: Vec<u64> = unsafe { read::slice(secondaries, n) }
            .iter()
            .map(|c| raw(*c))
            .collect();
        d.submissions.executed(raw(cb), &list);
    });
}
