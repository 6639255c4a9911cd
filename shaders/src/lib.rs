//! `shaders`: what the fragment shader asks of POPS, and the machine code that gives it.
//!
//! - [`spirv`]: the SPIR-V interlock analysis — execution modes, begin/end interlock instructions,
//!   per-sample shading, memory access and colour outputs of every fragment entry point.
//! - [`isa`]: the AMD ISA emitter — a typed scalar assembler for GFX9, GFX10(.3) and GFX11 and
//!   the ordered-section entry/exit sequences of each level.
//! - [`model`]: a deterministic simulator of the hardware's ordering contract that runs the very
//!   instructions [`isa`] emits.
//! - `corpus` (feature `corpus`): the GLSL test shaders of `glsl/`, compiled at build time.

#[cfg(feature = "corpus")]
pub mod corpus;
pub mod isa;
pub mod model;
pub mod spirv;
pub mod verify;
