//! Attachment images and their views: format and sample count, what a render pass instance's
//! attachments are at a draw.

use super::Keyed;
use ash::vk;

#[derive(Default)]
pub struct Attachments {
    images: Keyed<(vk::Format, u32)>,
    views: Keyed<(vk::Format, u32)>,
}

impl Attachments {
    pub fn add_image(&self, image: u64, format: vk::Format, samples: u32) {
        self.images.insert(image, (format, samples));
    }

    pub fn remove_image(&self, image: u64) {
        self.images.remove(image);
    }

    /// A view of `image`: an image the layer did not see created (a swapchain image) has one
    /// sample.
    pub fn add_view(&self, view: u64, image: u64, format: vk::Format) {
        let samples = self.images.get(image).map_or(1, |(_, s)| s);
        self.views.insert(view, (format, samples));
    }

    pub fn remove_view(&self, view: u64) {
        self.views.remove(view);
    }

    /// A view's (format, samples).
    pub fn view(&self, view: u64) -> Option<(vk::Format, u32)> {
        self.views.get(view)
    }
}
