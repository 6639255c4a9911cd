//! The layer's pure cores: what it reads from the application and decides about it, with no
//! Vulkan calls, no locks of the device's and no hook code. Each is tested on its own.
//!
//! - [`convert`]: Vulkan values as pm4's typed POPS inputs;
//! - [`capture`]: what a create info shows, read only where the specification makes it valid;
//! - [`analysis`]: the SPIR-V analysis of a fragment stage;
//! - [`object`]: fragment stages, libraries and interlocked objects as draws bind them;
//! - [`draws`]: a command buffer's recording, draw by draw;
//! - [`findings`]: the layer's own findings (the chip's are pm4::pops's);
//! - [`record`]: report records with the derived POPS state;
//! - [`timing`]: the timing's bookkeeping;
//! - [`in_flight`]: what was submitted and not yet known complete, for a device loss;
//! - [`lost`]: the device-lost line built from it;
//! - [`experiment`]: the interlock experiments' policy.

pub mod analysis;
pub mod capture;
pub mod convert;
pub mod draws;
pub mod experiment;
pub mod findings;
pub mod in_flight;
pub mod isa;
pub mod lost;
pub mod object;
pub mod record;
pub mod timing;
