//! `VK_LAYER_POPS_interlock`, loaded through `VK_INSTANCE_LAYERS`.
//!
//! This crate will build `libVkLayer_pops_interlock.so`: a layer that exports only
//! `vkNegotiateLoaderLayerInterfaceVersion`, intercepts shader-module, pipeline and shader-object
//! creation, analyses each fragment shader's interlock use and reports the AMD register state and
//! PM4 a driver must program for it, while passing every call down the chain unchanged.
#![allow(non_snake_case)]
