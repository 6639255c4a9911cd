//! Shader modules created through the layer: their SPIR-V (as it went down to the driver) and
//! its analysis, done the first time a graphics pipeline uses the module as a fragment stage:
//! vertex, compute and unused modules never cost an analysis.

use super::Keyed;
use crate::model::analysis::{analyze_module_cached, ModuleAnalysis};
use std::sync::{Arc, OnceLock};

/// One shader module.
pub struct ModuleEntry {
    words: Box<[u32]>,
    analysis: OnceLock<Arc<ModuleAnalysis>>,
    /// The interlock experiment applied to the module (`words` are then the rewritten ones).
    pub experiment: Option<pops_report::AppliedExperiment>,
}

impl ModuleEntry {
    pub fn new(words: Vec<u32>, experiment: Option<pops_report::AppliedExperiment>) -> Self {
        ModuleEntry {
            words: words.into_boxed_slice(),
            analysis: OnceLock::new(),
            experiment,
        }
    }

    /// The module's words.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The module's analysis, done on first use.
    pub fn analysis(&self) -> Arc<ModuleAnalysis> {
        self.analysis
            .get_or_init(|| analyze_module_cached(&self.words))
            .clone()
    }
}

/// The device's shader modules by handle.
#[derive(Default)]
pub struct Modules(Keyed<Arc<ModuleEntry>>);

impl Modules {
    pub fn get(&self, module: u64) -> Option<Arc<ModuleEntry>> {
        self.0.get(module)
    }

    pub fn insert(&self, module: u64, entry: ModuleEntry) {
        self.0.insert(module, Arc::new(entry));
    }

    pub fn remove(&self, module: u64) {
        self.0.remove(module);
    }
}
