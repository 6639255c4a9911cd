//! What the SPIR-V analysis (`shaders`) says of a fragment stage, as the layer keeps it: one
//! entry per entry point, analysed once per distinct module in the process.

use parking_lot::Mutex;
use pm4::{Granularity, InterlockMode};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// One entry point's interlock use, as the SPIR-V analysis (`shaders::spirv`) found it.
pub type EntryAnalysis = shaders::spirv::EntryPointInfo;

/// Why the layer cannot tell a fragment stage's interlock use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The SPIR-V is malformed.
    #[error("SPIR-V analysis: {0}")]
    Spirv(#[from] shaders::spirv::SpirvError),
    /// The SPIR-V is not visible to layers (a module identifier, pipeline binaries, a driver
    /// binary, a module not created through the layer): the reason.
    #[error("{0}")]
    NotVisible(&'static str),
    /// The module has no fragment entry point of the stage's name.
    #[error("no fragment entry point named '{0}' in the module")]
    NoFragmentEntry(String),
}

/// A module's analysis, or why there is none.
pub type ModuleAnalysis = Result<Vec<EntryAnalysis>, AnalysisError>;

/// Analyses a SPIR-V module.
pub fn analyze_module(words: &[u32]) -> ModuleAnalysis {
    Ok(shaders::spirv::analyze(words)?.entry_points)
}

use crate::FastHash;

type AnalysisCache = Mutex<(HashMap<Arc<[u32]>, Arc<ModuleAnalysis>, FastHash>, usize)>;

/// Analyses a SPIR-V module, or returns the analysis of the same words done before in this
/// process. Applications and engines create modules with the same code again and again (per
/// pipeline, per device, after a cache miss), and the analysis is a function of the words alone.
/// The cache holds at most [`ANALYSIS_CACHE_WORDS`] words of SPIR-V; when full it starts over.
pub fn analyze_module_cached(words: &[u32]) -> Arc<ModuleAnalysis> {
    static CACHE: OnceLock<AnalysisCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().0.get(words) {
        return hit.clone();
    }
    // Analysed outside the lock: other threads keep creating pipelines meanwhile.
    let out = Arc::new(analyze_module(words));
    if words.len() <= ANALYSIS_CACHE_WORDS {
        let mut guard = cache.lock();
        let (map, held) = &mut *guard;
        if *held + words.len() > ANALYSIS_CACHE_WORDS {
            map.clear();
            *held = 0;
        }
        if map.insert(Arc::from(words), out.clone()).is_none() {
            *held += words.len();
        }
    }
    out
}

/// How many SPIR-V words [`analyze_module_cached`] keeps (16 MiB).
pub const ANALYSIS_CACHE_WORDS: usize = 4 << 20;

/// A fragment entry point `main` with `mode` that writes memory and colour, once each (tests).
#[cfg(test)]
pub fn test_entry(mode: Option<InterlockMode>) -> EntryAnalysis {
    EntryAnalysis {
        name: "main".into(),
        execution_model: shaders::spirv::ExecutionModel::Fragment,
        function: 1,
        interlock: mode,
        begin_count: 1,
        end_count: 1,
        interlock_sites: Vec::new(),
        begin_in_divergent_control_flow: false,
        end_in_divergent_control_flow: false,
        per_sample: false,
        writes_memory: true,
        accesses_memory: true,
        has_color_output: true,
        early_fragment_tests: false,
        reads_sample_mask: false,
    }
}

/// The analysis of a stage whose SPIR-V is not visible, with the reason.
pub fn unknown(reason: &'static str) -> Arc<ModuleAnalysis> {
    Arc::new(Err(AnalysisError::NotVisible(reason)))
}

/// The device features VK_EXT_fragment_shader_interlock gates each mode on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterlockFeatures {
    pub pixel: bool,
    pub sample: bool,
    pub shading_rate: bool,
}

impl InterlockFeatures {
    pub fn enabled_for(self, mode: InterlockMode) -> bool {
        match mode.granularity {
            Granularity::Pixel => self.pixel,
            Granularity::Sample => self.sample,
            Granularity::ShadingRate => self.shading_rate,
        }
    }
}

/// The stage hash of `words` (either byte order) entered at `entry` with `spec`.
pub fn stage_hash(
    words: &[u32],
    entry: &str,
    spec: Option<&shaders::spirv::Specialization>,
) -> Option<String> {
    let host = shaders::spirv::module::host_order_words(words).ok()?;
    Some(shaders::spirv::stage_hash(&host, entry, spec))
}

/// The fragment entry point of a module analysis, or why it cannot be told.
pub fn fragment_entry<'a>(
    analysis: &'a ModuleAnalysis,
    entry: &str,
) -> Result<&'a EntryAnalysis, AnalysisError> {
    match analysis {
        Err(e) => Err(e.clone()),
        Ok(eps) => eps
            .iter()
            .find(|e| {
                e.execution_model == shaders::spirv::ExecutionModel::Fragment && e.name == entry
            })
            .ok_or_else(|| AnalysisError::NoFragmentEntry(entry.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_analysis_is_the_analysis_of_the_same_words() {
        let a = shaders::corpus::get("oit_interlock.frag").expect("corpus shader");
        let b = shaders::corpus::get("sample_interlock_ordered.frag").expect("corpus shader");
        let (wa, wb) = (a.words(), b.words());
        let first = analyze_module_cached(&wa);
        assert_eq!(*first, analyze_module(&wa));
        // Same words (another copy): the cached analysis, not a new one.
        let again = analyze_module_cached(&wa.to_vec());
        assert_eq!(*again, *first);
        assert!(Arc::ptr_eq(&again, &analyze_module_cached(&wa)));
        assert_eq!(*analyze_module_cached(&wb), analyze_module(&wb));
        assert_ne!(*analyze_module_cached(&wb), *first);
        // One word changed: analysed anew (here: no longer valid SPIR-V at all).
        let mut bad = wa.to_vec();
        bad[0] = 0;
        assert_eq!(*analyze_module_cached(&bad), analyze_module(&bad));
        assert!(analyze_module_cached(&bad).is_err());
    }

    #[test]
    fn fragment_entry_lookup() {
        let a: ModuleAnalysis = Ok(vec![test_entry(None)]);
        assert!(fragment_entry(&a, "main").is_ok());
        assert!(fragment_entry(&a, "other").is_err());
        assert!(fragment_entry(&Err(AnalysisError::NotVisible("bad")), "main").is_err());
    }

    #[test]
    fn malformed_spirv_is_an_analysis_error_not_a_panic() {
        for words in [
            vec![],
            vec![0xdead_beef, 0, 0, 0, 0],
            vec![0x0723_0203, 0x0001_0000, 0, 0xffff_ffff, 0, 0xffff_0011],
        ] {
            assert!(analyze_module(&words).is_err());
        }
    }
}
