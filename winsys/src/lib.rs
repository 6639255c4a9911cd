//! `winsys`: the one place pops talks to a GPU kernel driver.
//!
//! This crate will hold a winsys interface modelled on a driver's (device info, buffers, contexts,
//! IB submission, fences, reset status), the real `AmdgpuWinsys` over `libdrm_amdgpu_sys`, and
//! `CaptureWinsys`, which records the same streams to disk where no AMD GPU exists.
