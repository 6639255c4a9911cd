//! SPIR-V interlock analysis: what a fragment shader asks of POPS.
//!
//! - [`module`]: the physical layout (header, byte order, instructions, strings) and the typed
//!   [`SpirvError`] every malformed input produces.
//! - [`table`]: opcodes and enumerants generated from the Khronos grammar
//!   (`tools/gen-spirv-table.py`).
//! - [`analysis`]: one pass over a module's words giving, per entry point, the interlock mode,
//!   the begin/end instructions it reaches and whether they are in divergent control flow,
//!   per-sample shading, memory writes, colour outputs and early fragment tests.
//! - [`hash`]: the stable content hash that names a fragment stage in every tool.
//! - [`validity`]: what a driver rejects on sight (no OpMemoryModel, opcodes and enumerants the
//!   grammar does not know), which the lenient analysis lets through.

pub mod analysis;
pub mod hash;
pub mod interface;
pub mod module;
pub mod rewrite;
pub mod table;
pub mod validity;

pub use analysis::{analyze, analyze_bytes, EntryPointInfo, InterlockSite, ModuleInfo};
pub use hash::{fossilize_module_hash, stage_hash, Specialization};
pub use module::{SpirvError, MAGIC};
pub use table::{ExecutionMode, ExecutionModel, Op};
