//! `shaders`: what the fragment shader asks of POPS, and the machine code that gives it.
//!
//! This crate will hold the SPIR-V interlock analysis (execution modes, begin/end interlock
//! instructions, per-sample shading, memory writes), the AMD ISA emitter for entering and leaving
//! the ordered section on GFX9, GFX10–10.3 and GFX11, the GLSL test shaders in `glsl/`, and a
//! deterministic model of the hardware's ordering contract that runs the emitted code.

#[cfg(feature = "corpus")]
pub mod corpus;
pub mod spirv;
