//! `draw`: a complete POPS draw submitted through libdrm (no Vulkan driver in between) that
//! proves primitive order per pixel on GFX9–GFX12, and the harness for the article's
//! unresearched options.
//!
//! - [`shader`]: the vertex/primitive and pixel shaders, from the project's own assembler.
//! - [`stream`]: the draw stream per generation (pure): the reference draw state (libdrm's; RADV's
//!   on GFX12), the POPS state of `pm4::pops`, N overlapping rectangles, GPU timestamps, a fence.
//! - [`mod@reference`] and [`differences`]: the reference state and every listed departure from it.
//! - [`variant`]: interlock modes, sample counts, the control run and the experiment switches.
//! - [`check`]: the pure result checker over the read-back storage buffer.
//! - [`run`]: submission on any `winsys::Winsys` (real amdgpu or capture), with timeouts,
//!   reset checks and timing.

pub mod check;
pub mod differences;
pub mod radv_differences;
pub mod reference;
mod reference_state;
pub mod run;
pub mod shader;
pub mod step;
pub mod stream;
pub mod variant;
pub mod verify;
