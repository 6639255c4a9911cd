//! What a driver programmed, submitted and compiled, against what pops derives — the driver
//! comparison as a library, so that `pops` and the tests use one implementation:
//!
//! - [`launch`]: where a program runs (a device with interlock, RADV's null device, RADV over
//!   the amdgpu kernel-interface shim) and the environment that puts the layer and the driver's
//!   recipe in place (the shim's IBs inline, per Mesa version);
//! - [`null_device`]: how RADV gets a null device of a chip on each Mesa (a drm-shim or
//!   `RADV_FORCE_FAMILY`);
//! - [`radv_compile`], [`radv_epilog`], [`captured_stderr`]: RADV compiling a fragment shader on
//!   a null device, and the code and PS epilog it prints;
//! - [`summary`], [`verification`], [`timing_stats`]: a layer report summed up (counts merged
//!   once), the code checker's verdicts per chip, the layer's GPU timing;
//! - [`recorded`]: the draws a driver submitted through the amdgpu shim, with the register
//!   fields in force at each (PM4 read back, not kernel transport);
//! - [`submitted_check`]: the draws RADV submitted through the shim against the layer's records;
//! - [`fossilize`]: which of a Fossilize archive's pipelines a replayed stage can be;
//! - [`table`]: the aligned text tables all of them print.

pub mod captured_stderr;
pub mod fossilize;
pub mod launch;
pub mod null_device;
pub mod radv_compile;
pub mod radv_epilog;
pub mod recorded;
pub mod submitted_check;
pub mod summary;
pub mod table;
pub mod timing_stats;
pub mod verification;
