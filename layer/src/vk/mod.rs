//! The layer's Vulkan edge for what it reads: the application's create infos (read only where
//! the specification makes each member valid) and Vulkan's raw values turned into the decision
//! crate's (`layer_model`) and pm4's typed ones. Everything here that dereferences the
//! application's memory is `unsafe` with its contract; the decisions made from what is read are
//! `layer_model`'s, which forbids unsafe code.

pub mod capture;
pub mod convert;
