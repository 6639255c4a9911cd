//! Render pass instances: what a draw inside one renders to (dynamic rendering's attachments,
//! a render pass's subpass), and the timing's queries around them, recorded outside or inside
//! the instance as vkCmdResetQueryPool and vkCmdWriteTimestamp require.

use super::state::update;
use crate::boundary::guarded;
use crate::device::Device;
use crate::model::capture::DepthAttachment;
use crate::model::draws::Rendering;
use crate::model::timing::PassBegin;
use crate::table::vkfn;
use crate::vk::convert;
use ash::vk;

/// What dynamic rendering renders to: the depth/stencil attachment's samples and stencil aspect
/// from its image view, the colour attachments' formats.
///
/// # Safety
/// `info` must be NULL or a valid `VkRenderingInfo`.
unsafe fn rendering_of(d: &Device, info: *const vk::RenderingInfo) -> Option<Rendering> {
    if info.is_null() {
        return None;
    }
    // SAFETY: a valid rendering info per the caller.
    let info = unsafe { &*info };
    let view_of = |a: *const vk::RenderingAttachmentInfo| {
        // SAFETY: NULL or a valid attachment info.
        (!a.is_null())
            .then(|| unsafe { (*a).image_view })
            .filter(|v| *v != vk::ImageView::null())
            .and_then(|v| d.attachments.view(vk::Handle::as_raw(v)))
    };
    let depth = view_of(info.p_depth_attachment).or_else(|| view_of(info.p_stencil_attachment));
    // SAFETY: pColorAttachments holds colorAttachmentCount attachment infos.
    let colors =
        unsafe { crate::vk::capture::slice(info.p_color_attachments, info.color_attachment_count) };
    let colors = crate::vk::convert::color_formats(colors.iter().map(|a| {
        if a.image_view == vk::ImageView::null() {
            vk::Format::UNDEFINED
        } else {
            // A view the layer did not see created: a written target of unknown format.
            d.attachments
                .view(vk::Handle::as_raw(a.image_view))
                .map_or(vk::Format::R8G8B8A8_UNORM, |(format, _)| format)
        }
    }));
    Some(Rendering {
        colors,
        depth: depth.map_or(DepthAttachment::default(), |(format, samples)| {
            DepthAttachment {
                samples,
                has_stencil: convert::format_has_stencil(format),
            }
        }),
        color_count: info.color_attachment_count,
    })
}

/// How a dynamic rendering instance begins: multiview (a timestamp there writes one query per
/// view), resuming or suspending.
///
/// # Safety
/// `info` must be NULL or a valid `VkRenderingInfo`.
unsafe fn rendering_pass(info: *const vk::RenderingInfo) -> PassBegin {
    if info.is_null() {
        return PassBegin::default();
    }
    // SAFETY: per the caller.
    let i = unsafe { &*info };
    PassBegin {
        multiview: i.view_mask != 0,
        resuming: i.flags.contains(vk::RenderingFlags::RESUMING),
        suspending: i.flags.contains(vk::RenderingFlags::SUSPENDING),
    }
}

/// A render pass's subpass as [`Rendering`].
pub fn subpass_rendering(d: &Device, rp: u64, subpass: u32) -> Option<Rendering> {
    d.passes.subpass(rp, subpass).map(|u| Rendering {
        depth: u.depth,
        color_count: u.color_count,
        colors: u.colors,
    })
}

/// Before a render pass instance begins (outside it): the timing's queries for it.
fn timing_before_pass(d: &Device, cb: vk::CommandBuffer, pass: PassBegin) {
    if let Some(t) = d.timing() {
        let _ = guarded(&d.health, "timing", || t.before_pass(cb, pass));
    }
}

/// Before a render pass instance or subpass ends (inside it): the open range ends; for a
/// subpass, `next_multiview` is the next subpass's.
fn timing_end_pass(d: &Device, cb: vk::CommandBuffer, next_multiview: Option<bool>) {
    if let Some(t) = d.timing() {
        let _ = guarded(&d.health, "timing", || {
            t.with(cb, |r, out| match next_multiview {
                Some(mv) => r.next_subpass(mv, out),
                None => r.end_pass(out),
            })
        });
    }
}

/// Updates the recording state after a render pass command, contained.
fn after(
    d: &Device,
    cb: vk::CommandBuffer,
    what: &str,
    f: impl FnOnce(&mut crate::model::draws::CmdState),
) {
    let _ = guarded(&d.health, what, || update(d, cb, f));
}

/// vkCmdBeginRendering(KHR).
///
/// # Safety
/// The command's arguments.
pub unsafe fn begin_rendering(
    d: &Device,
    next: vk::PFN_vkCmdBeginRendering,
    cb: vk::CommandBuffer,
    info: *const vk::RenderingInfo,
) {
    // SAFETY: the application's valid rendering info.
    timing_before_pass(d, cb, unsafe { rendering_pass(info) });
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, info) };
    // SAFETY: as above.
    after(d, cb, vkfn::vkCmdBeginRendering, |st| {
        st.rendering = unsafe { rendering_of(d, info) }
    });
}

/// vkCmdEndRendering(KHR).
///
/// # Safety
/// The command's arguments.
pub unsafe fn end_rendering(d: &Device, next: vk::PFN_vkCmdEndRendering, cb: vk::CommandBuffer) {
    timing_end_pass(d, cb, None);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb) };
    after(d, cb, vkfn::vkCmdEndRendering, |st| st.rendering = None);
}

/// Whether a render pass's subpass is multiview.
fn subpass_multiview(d: &Device, rp: u64, subpass: u32) -> bool {
    d.passes.subpass(rp, subpass).is_some_and(|u| u.multiview)
}

/// How the render pass instance `begin` starts, and its render pass.
///
/// # Safety
/// `begin` must be NULL or a valid `VkRenderPassBeginInfo`.
unsafe fn pass_begin(
    d: &Device,
    begin: *const vk::RenderPassBeginInfo,
) -> (PassBegin, Option<u64>) {
    // SAFETY: per the caller.
    let rp = (!begin.is_null()).then(|| vk::Handle::as_raw(unsafe { (*begin).render_pass }));
    let multiview = rp.is_some_and(|rp| subpass_multiview(d, rp, 0));
    (
        PassBegin {
            multiview,
            ..PassBegin::default()
        },
        rp,
    )
}

/// The render pass instance begins in its first subpass.
fn begin_pass(d: &Device, cb: vk::CommandBuffer, rp: Option<u64>) {
    if let Some(rp) = rp {
        after(d, cb, vkfn::vkCmdBeginRenderPass, |st| {
            st.render_pass = Some((rp, 0));
            st.rendering = subpass_rendering(d, rp, 0);
        });
    }
}

/// vkCmdBeginRenderPass.
///
/// # Safety
/// The command's arguments.
pub unsafe fn begin_render_pass(
    d: &Device,
    next: vk::PFN_vkCmdBeginRenderPass,
    cb: vk::CommandBuffer,
    b: *const vk::RenderPassBeginInfo,
    c: vk::SubpassContents,
) {
    // SAFETY: the application's valid begin info.
    let (pass, rp) = unsafe { pass_begin(d, b) };
    timing_before_pass(d, cb, pass);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, b, c) };
    begin_pass(d, cb, rp);
}

/// vkCmdBeginRenderPass2(KHR).
///
/// # Safety
/// The command's arguments.
pub unsafe fn begin_render_pass2(
    d: &Device,
    next: vk::PFN_vkCmdBeginRenderPass2,
    cb: vk::CommandBuffer,
    b: *const vk::RenderPassBeginInfo,
    s: *const vk::SubpassBeginInfo,
) {
    // SAFETY: the application's valid begin info.
    let (pass, rp) = unsafe { pass_begin(d, b) };
    timing_before_pass(d, cb, pass);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, b, s) };
    begin_pass(d, cb, rp);
}

/// Before vkCmdNextSubpass: the open range ends, the next subpass's multiview decides.
fn before_next_subpass(d: &Device, cb: vk::CommandBuffer) {
    if d.timing.is_some() {
        let pass = d.recordings.render_pass(vk::Handle::as_raw(cb));
        let multiview = pass.is_some_and(|(rp, s)| subpass_multiview(d, rp, s + 1));
        timing_end_pass(d, cb, Some(multiview));
    }
}

/// After vkCmdNextSubpass: draws render to the next subpass.
fn next_subpass_state(d: &Device, cb: vk::CommandBuffer) {
    after(d, cb, vkfn::vkCmdNextSubpass, |st| {
        if let Some((rp, s)) = st.render_pass {
            st.render_pass = Some((rp, s + 1));
            st.rendering = subpass_rendering(d, rp, s + 1);
        }
    });
}

/// vkCmdNextSubpass.
///
/// # Safety
/// The command's arguments.
pub unsafe fn next_subpass(
    d: &Device,
    next: vk::PFN_vkCmdNextSubpass,
    cb: vk::CommandBuffer,
    c: vk::SubpassContents,
) {
    before_next_subpass(d, cb);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, c) };
    next_subpass_state(d, cb);
}

/// vkCmdNextSubpass2(KHR).
///
/// # Safety
/// The command's arguments.
pub unsafe fn next_subpass2(
    d: &Device,
    next: vk::PFN_vkCmdNextSubpass2,
    cb: vk::CommandBuffer,
    b: *const vk::SubpassBeginInfo,
    e: *const vk::SubpassEndInfo,
) {
    before_next_subpass(d, cb);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, b, e) };
    next_subpass_state(d, cb);
}

/// After the render pass instance ends.
fn end_pass_state(d: &Device, cb: vk::CommandBuffer) {
    after(d, cb, vkfn::vkCmdEndRenderPass, |st| {
        st.render_pass = None;
        st.rendering = None;
    });
}

/// vkCmdEndRenderPass.
///
/// # Safety
/// The command's arguments.
pub unsafe fn end_render_pass(d: &Device, next: vk::PFN_vkCmdEndRenderPass, cb: vk::CommandBuffer) {
    timing_end_pass(d, cb, None);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb) };
    end_pass_state(d, cb);
}

/// vkCmdEndRenderPass2(KHR).
///
/// # Safety
/// The command's arguments.
pub unsafe fn end_render_pass2(
    d: &Device,
    next: vk::PFN_vkCmdEndRenderPass2,
    cb: vk::CommandBuffer,
    e: *const vk::SubpassEndInfo,
) {
    timing_end_pass(d, cb, None);
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(cb, e) };
    end_pass_state(d, cb);
}
