//! Images and image views that can be attachments: their formats and sample counts, what a
//! render pass instance renders to at a draw.

use crate::boundary::guarded;
use crate::device::Device;
use crate::table::vkfn;
use crate::vk::convert;
use ash::vk;

/// vkCreateImage: colour and depth/stencil attachment images are remembered.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create_image(
    d: &Device,
    next: vk::PFN_vkCreateImage,
    device: vk::Device,
    info: *const vk::ImageCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::Image,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, alloc, out) };
    if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateImage, || {
            // SAFETY: success: a valid create info and the new image.
            let (i, img) = unsafe { (&*info, *out) };
            if i.usage.intersects(
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                    | vk::ImageUsageFlags::COLOR_ATTACHMENT,
            ) {
                d.attachments.add_image(
                    vk::Handle::as_raw(img),
                    i.format,
                    convert::samples(i.samples),
                );
            }
        });
    }
    r
}

/// vkDestroyImage.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_image(
    d: &Device,
    next: vk::PFN_vkDestroyImage,
    device: vk::Device,
    image: vk::Image,
    alloc: *const vk::AllocationCallbacks,
) {
    d.attachments.remove_image(vk::Handle::as_raw(image));
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, image, alloc) };
}

/// vkCreateImageView: a view takes its image's sample count.
///
/// # Safety
/// The application's arguments.
pub unsafe fn create_view(
    d: &Device,
    next: vk::PFN_vkCreateImageView,
    device: vk::Device,
    info: *const vk::ImageViewCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::ImageView,
) -> vk::Result {
    // SAFETY: the application's arguments, unchanged.
    let r = unsafe { next(device, info, alloc, out) };
    if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
        let _ = guarded(&d.health, vkfn::vkCreateImageView, || {
            // SAFETY: success: a valid create info and the new view.
            let (i, view) = unsafe { (&*info, *out) };
            d.attachments.add_view(
                vk::Handle::as_raw(view),
                vk::Handle::as_raw(i.image),
                i.format,
            );
        });
    }
    r
}

/// vkDestroyImageView.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_view(
    d: &Device,
    next: vk::PFN_vkDestroyImageView,
    device: vk::Device,
    view: vk::ImageView,
    alloc: *const vk::AllocationCallbacks,
) {
    d.attachments.remove_view(vk::Handle::as_raw(view));
    // SAFETY: the application's arguments, unchanged.
    unsafe { next(device, view, alloc) };
}
