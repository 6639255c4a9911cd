//! Render passes: which attachments each subpass uses.

use crate::boundary::guarded;
use crate::device::Device;
use crate::model::capture::AttachmentUse;
use crate::table::vkfn;
use crate::vk::capture as read;
use ash::vk;

/// vkCreateRenderPass.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create(
    d: &Device,
    next: vk::PFN_vkCreateRenderPass,
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
    if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateRenderPass, || {
            // SAFETY: success, so the create info was valid and *p_render_pass is the new one.
            unsafe { remember(d, *p_render_pass, read::render_pass_use(&*p_create_info)) }
        });
    }
    result
}

/// vkCreateRenderPass2 and vkCreateRenderPass2KHR, each with its own next function.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create2(
    d: &Device,
    next: vk::PFN_vkCreateRenderPass2,
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2,
    p_allocator: *const vk::AllocationCallbacks,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let result = unsafe { next(device, p_create_info, p_allocator, p_render_pass) };
    if result == vk::Result::SUCCESS && !p_create_info.is_null() && !p_render_pass.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateRenderPass2, || {
            // SAFETY: as in create.
            unsafe { remember(d, *p_render_pass, read::render_pass2_use(&*p_create_info)) }
        });
    }
    result
}

fn remember(d: &Device, render_pass: vk::RenderPass, uses: Vec<AttachmentUse>) {
    d.passes.insert(vk::Handle::as_raw(render_pass), uses);
}

/// vkDestroyRenderPass.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy(
    d: &Device,
    next: vk::PFN_vkDestroyRenderPass,
    device: vk::Device,
    render_pass: vk::RenderPass,
    p_allocator: *const vk::AllocationCallbacks,
) {
    d.passes.remove(vk::Handle::as_raw(render_pass));
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, render_pass, p_allocator) };
}
