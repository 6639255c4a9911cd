//! The hooks' bodies, one module per concept; crate::entry wraps each in its entry point and
//! boundary (crate::table lists which body serves which Vulkan function). A body calls down
//! exactly once with the application's arguments (or the copy an experiment sends down); the
//! layer's own work runs inside `guarded` and reaches the device's state only through its stores.

// Bodies take the Vulkan command's own arguments, the device and its next function besides.
#![allow(clippy::too_many_arguments)]

pub mod attachments;
pub mod device;
pub mod instance;
pub mod lifecycle;
pub mod lost;
pub mod modules;
pub mod names;
pub mod passes;
pub mod pipeline_code;
pub mod pipelines;
pub mod queue;
pub mod render_passes;
pub mod shader_objects;
pub mod state;
pub mod sync;
pub mod timing;
