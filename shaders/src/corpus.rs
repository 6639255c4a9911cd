//! The GLSL/SPIR-V test shaders of `shaders/glsl/`, compiled at build time (feature `corpus`).
//!
//! No SPIR-V is committed: `build.rs` compiles every source with the Debian tools
//! (`glslangValidator`, `spirv-as`, `spirv-link`) so the modules always match their sources and
//! the expectations written in them. Other crates' tests enable the feature from their
//! `[dev-dependencies]`.

/// One compiled module.
#[derive(Clone, Copy, Debug)]
pub struct CorpusShader {
    /// The source's file name in `shaders/glsl/` (`oit_interlock.frag`).
    pub name: &'static str,
    /// `frag`, `vert`, `comp`, or `module` for a module with several entry points
    /// (`.spvasm`, `.link`).
    pub stage: &'static str,
    /// The source text (GLSL, SPIR-V assembly, or link recipe), whose `expect` comments give the
    /// analysis each entry point must have.
    pub source: &'static str,
    /// The SPIR-V module, little-endian bytes as the tools write it.
    pub spirv: &'static [u8],
}

impl CorpusShader {
    /// The module as words (the bytes carry no alignment guarantee).
    pub fn words(&self) -> Vec<u32> {
        self.spirv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

/// Every compiled test shader.
pub fn all() -> &'static [CorpusShader] {
    ALL
}

/// The shader whose file name is `name` (`oit_interlock.frag`), or whose name without the
/// extension is (`oit_interlock`).
pub fn get(name: &str) -> Option<&'static CorpusShader> {
    ALL.iter().find(|s| s.name == name).or_else(|| {
        ALL.iter().find(|s| {
            s.name
                .rsplit_once('.')
                .is_some_and(|(stem, _)| stem == name)
        })
    })
}
