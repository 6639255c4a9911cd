//! `shaders`: what the fragment shader asks of POPS, and the machine code that gives it.
//!
//! - [`isa`]: the AMD ISA emitter — a typed scalar assembler for GFX9, GFX10(.3) and GFX11 and
//!   the ordered-section entry/exit sequences of each level.
//! - [`model`]: a deterministic simulator of the hardware's ordering contract that runs the very
//!   instructions [`isa`] emits.
//!
//! This crate will also hold the SPIR-V interlock analysis and the GLSL test shaders in `glsl/`.

pub mod isa;
pub mod model;
