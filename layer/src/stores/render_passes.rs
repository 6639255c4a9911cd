//! Render passes created through the layer: the attachments each subpass uses, which decide
//! both which pipeline create-info members the specification makes valid and what a draw inside
//! the subpass renders to.

use super::Keyed;
use crate::model::capture::AttachmentUse;
use std::sync::Arc;

#[derive(Default)]
pub struct RenderPasses(Keyed<Arc<[AttachmentUse]>>);

impl RenderPasses {
    pub fn insert(&self, render_pass: u64, uses: Vec<AttachmentUse>) {
        self.0.insert(render_pass, uses.into());
    }

    pub fn remove(&self, render_pass: u64) {
        self.0.remove(render_pass);
    }

    /// What subpass `subpass` of `render_pass` uses (`None`: a render pass the layer did not
    /// see created, or no such subpass).
    pub fn subpass(&self, render_pass: u64, subpass: u32) -> Option<AttachmentUse> {
        self.0
            .get(render_pass)
            .and_then(|s| s.get(subpass as usize).copied())
    }
}
