//! The decisions of VK_LAYER_POPS_interlock, in a crate of their own that forbids unsafe code:
//! what the layer keeps of what the application created and recorded, and what it decides about
//! it, with no Vulkan calls, no Vulkan memory, no locks of the device's and no hook code. The
//! layer crate (`VkLayer_pops_interlock`) reads the application's structures in its `vk` module
//! and hands the results here. Each part is tested on its own.
//!
//! - [`capture`]: what a create info shows (fragment source, draw state, dynamic state);
//! - [`analysis`]: the SPIR-V analysis of a fragment stage;
//! - [`object`]: fragment stages, libraries and interlocked objects as draws bind them;
//! - [`draws`]: a command buffer's recording, draw by draw;
//! - [`findings`]: the layer's own findings (the chip's are pm4::pops's);
//! - [`record`]: report records with the derived POPS state;
//! - [`timing`]: the timing's bookkeeping;
//! - [`in_flight`]: what was submitted and not yet known complete, for a device loss;
//! - [`lost`]: the device-lost line built from it;
//! - [`experiment`]: the interlock experiments' policy;
//! - [`isa`] and [`verdicts`]: the `verify_isa` setting's diagnostics, and its verdicts kept by
//!   the driver's pipeline key;
//! - [`FastHash`]: the one hasher of the layer's maps.

#![forbid(unsafe_code)]

pub mod analysis;
pub mod capture;
pub mod draws;
pub mod experiment;
pub mod findings;
pub mod in_flight;
pub mod isa;
pub mod lost;
pub mod object;
pub mod record;
pub mod timing;
pub mod verdicts;

/// The layer's hash for its per-pipeline caches and per-command-buffer maps: rustc's FxHash
/// (`rustc-hash`). SipHash over a few KiB of SPIR-V, or over the many small fields of a state
/// key, costs a noticeable share of the work the cache saves, and a draw looks its command
/// buffer up by handle; the keys come from the application, not from an adversary, and a
/// collision only costs a comparison.
pub type FastHash = rustc_hash::FxBuildHasher;
