//! The per-pipeline work of the layer: SPIR-V analysis (`shaders`), the POPS state (`pm4`) and the
//! layer's own diagnostics, turned into a report [`Record`]. Pure: no Vulkan calls, no I/O, so it
//! is unit-tested and benchmarked on its own.

use crate::capture::{DrawState, Samples};
use crate::report::{Diagnostic, Kind, Record, Severity, Shared};
use pm4::{Family, Granularity, InterlockMode};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One entry point's interlock use, as the SPIR-V analysis found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryAnalysis {
    pub name: String,
    pub is_fragment: bool,
    pub interlock: Option<InterlockMode>,
    pub begin_count: u32,
    pub end_count: u32,
    pub begin_in_divergent_control_flow: bool,
    pub per_sample: bool,
    pub writes_memory: bool,
    pub accesses_memory: bool,
    pub has_color_output: bool,
    pub early_fragment_tests: bool,
}

/// A module's analysis, or why there is none (malformed SPIR-V, analysis unavailable).
pub type ModuleAnalysis = Result<Vec<EntryAnalysis>, String>;

/// Analyses a SPIR-V module.
pub fn analyze_module(words: &[u32]) -> ModuleAnalysis {
    backend::analyze(words)
}

/// A fast, non-keyed hash (FxHash's mixing step over 8-byte chunks) for the layer's two
/// per-pipeline caches: SipHash over a few KiB of SPIR-V, or over the many small fields of a state
/// key, costs a noticeable share of the work the cache saves. The keys come from the application,
/// not from an adversary, and collisions only cost a comparison: entries are compared in full.
#[derive(Default)]
pub struct FastHasher(u64);

pub type FastHash = std::hash::BuildHasherDefault<FastHasher>;

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
}

type AnalysisCache = Mutex<(HashMap<Arc<[u32]>, Arc<ModuleAnalysis>, FastHash>, usize)>;

/// Analyses a SPIR-V module, or returns the analysis of the same words done before in this
/// process. Applications and engines create modules with the same code again and again (per
/// pipeline, per device, after a cache miss), and the analysis is a function of the words alone.
/// The cache holds at most [`ANALYSIS_CACHE_WORDS`] words of SPIR-V; when full it starts over.
pub fn analyze_module_cached(words: &[u32]) -> Arc<ModuleAnalysis> {
    static CACHE: OnceLock<AnalysisCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).0.get(words) {
        return hit.clone();
    }
    // Analysed outside the lock: other threads keep creating pipelines meanwhile.
    let out = Arc::new(analyze_module(words));
    if words.len() <= ANALYSIS_CACHE_WORDS {
        let mut guard = cache.lock().unwrap_or_else(|p| p.into_inner());
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

/// The device features VK_EXT_fragment_shader_interlock gates each mode on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterlockFeatures {
    pub pixel: bool,
    pub sample: bool,
    pub shading_rate: bool,
}

impl InterlockFeatures {
    fn enabled_for(self, mode: InterlockMode) -> bool {
        match mode.granularity {
            Granularity::Pixel => self.pixel,
            Granularity::Sample => self.sample,
            Granularity::ShadingRate => self.shading_rate,
        }
    }
}

/// The state a driver must program, from `pops state`'s rules.
#[derive(Clone, Debug, PartialEq)]
pub struct StateOutput {
    pub registers: Shared,
    pub pm4: Arc<[u32]>,
    pub diagnostics: Vec<Diagnostic>,
}

type StateKey = (Family, pm4::pops::InterlockDesc, pm4::pops::DrawState);
type StateCache = Mutex<HashMap<StateKey, Arc<StateOutput>, FastHash>>;

/// The state of one (chip, shader facts, draw state): pipelines of a game share a handful, and
/// turning registers into JSON costs far more than deriving them, so each is built once.
fn cached_state(
    family: Family,
    mode: InterlockMode,
    e: &EntryAnalysis,
    draw: &DrawState,
) -> Result<Arc<StateOutput>, String> {
    static CACHE: OnceLock<StateCache> = OnceLock::new();
    const MAX_ENTRIES: usize = 4096;
    let (desc, state) = backend::inputs(mode, e, draw);
    let key = (family, desc, state);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(hit.clone());
    }
    let out = Arc::new(backend::derive(family, &key.1, &key.2)?);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= MAX_ENTRIES {
        map.clear();
    }
    map.insert(key, out.clone());
    Ok(out)
}

/// What the record is about, apart from the analysis.
pub struct Subject<'a> {
    /// The fragment stage's content hash, where its SPIR-V is visible.
    pub stage_hash: Option<&'a str>,
    pub app: &'a str,
    pub device: &'a str,
    pub kind: Kind,
    pub handle: u64,
    pub source: &'a str,
    pub chip: Option<Family>,
    pub features: InterlockFeatures,
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
) -> Result<&'a EntryAnalysis, String> {
    match analysis {
        Err(e) => Err(e.clone()),
        Ok(eps) => eps
            .iter()
            .find(|e| e.is_fragment && e.name == entry)
            .ok_or_else(|| format!("no fragment entry point named '{entry}' in the module")),
    }
}

/// Builds the report record for one fragment stage. `entry` is `Err(reason)` where the SPIR-V was
/// not visible or not analysable.
pub fn build_record(
    subject: &Subject<'_>,
    entry_name: &str,
    entry: Result<&EntryAnalysis, String>,
    draw: &DrawState,
) -> Record {
    let samples = match draw.samples {
        Some(Samples::Static(n)) => Some(n),
        _ => None,
    };
    let mut rec = Record {
        schema_version: crate::report::SCHEMA_VERSION,
        app: subject.app.to_string(),
        device: subject.device.to_string(),
        kind: subject.kind,
        handle: format!("0x{:x}", subject.handle),
        entry_point: entry_name.to_string(),
        interlock: "unknown".to_string(),
        begin_count: 0,
        end_count: 0,
        per_sample: false,
        samples,
        chip: subject.chip.map(|f| f.name().to_string()),
        registers: Shared::null(),
        pm4: Arc::from(Vec::new()),
        diagnostics: Vec::new(),
        source: subject.source.to_string(),
        command_buffer: None,
        bound: None,
        draws: None,
        name: None,
        module_name: None,
        experiment: None,
        id: crate::report::next_id(),
        stage_hash: subject.stage_hash.map(str::to_string),
    };
    let e = match entry {
        Ok(e) => e,
        Err(reason) => {
            rec.diagnostics.push(Diagnostic::new(
                Severity::Info,
                "interlock-unknown",
                format!("the fragment shader's interlock use cannot be told: {reason}"),
            ));
            return rec;
        }
    };
    rec.interlock = e.interlock.map_or("none", InterlockMode::name).to_string();
    rec.begin_count = e.begin_count;
    rec.end_count = e.end_count;
    rec.per_sample = e.per_sample || draw.sample_shading == Some(true);
    let Some(mode) = e.interlock else {
        return rec;
    };
    rec.diagnostics = diagnostics(subject, mode, e, draw);
    if let Some(family) = subject.chip {
        match cached_state(family, mode, e, draw) {
            Ok(state) => {
                rec.registers = state.registers.clone();
                rec.pm4 = state.pm4.clone();
                for d in &state.diagnostics {
                    if !rec.diagnostics.iter().any(|x| x.code == d.code) {
                        rec.diagnostics.push(d.clone());
                    }
                }
            }
            Err(reason) => rec.diagnostics.push(Diagnostic::new(
                Severity::Info,
                "state-unavailable",
                format!("no register state for {}: {reason}", family.name()),
            )),
        }
    }
    rec
}

/// The layer's own findings about an interlocked fragment stage.
pub fn diagnostics(
    subject: &Subject<'_>,
    mode: InterlockMode,
    e: &EntryAnalysis,
    draw: &DrawState,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let samples = match draw.samples {
        Some(Samples::Static(n)) => Some(n),
        _ => None,
    };
    if draw.samples == Some(Samples::Dynamic) {
        out.push(Diagnostic::new(
            Severity::Info,
            "dynamic-sample-count",
            "the rasterization sample count is dynamic: the state below assumes 1 sample; POPS_OVERLAP_NUM_SAMPLES and the drain workaround depend on the count at draw time",
        ));
    }
    // Article, "with MSAA, on AMD hardware, pixel interlock generally performs massively,
    // sometimes prohibitively, slower than sample interlock".
    if mode.granularity == Granularity::Pixel && samples.is_some_and(|n| n > 1) {
        let per_sample = e.per_sample || draw.sample_shading == Some(true);
        out.push(Diagnostic::new(
            if per_sample { Severity::Warning } else { Severity::Info },
            "pixel-interlock-with-msaa",
            format!(
                "pixel interlock at {}x MSAA orders invocations of adjacent primitives along shared edges on AMD even without common samples; if the shader only touches per-sample data, SampleInterlock{}EXT is enough and much cheaper",
                samples.unwrap_or(1),
                if mode.ordering == pm4::Ordering::Ordered { "Ordered" } else { "Unordered" },
            ),
        ));
    }
    // Chip-specific findings (the VEGA10/RAVEN drain, GFX10.3's forced 1x1 rate, …) come from
    // pm4::pops's derivation alone, with its codes and severities: see `build_record`.
    // Article: "the fragmentShaderShadingRateInterlock Vulkan device feature is not available".
    if mode.granularity == Granularity::ShadingRate {
        out.push(Diagnostic::new(
            Severity::Error,
            "shading-rate-interlock",
            "shading-rate interlock is not available on AMD: POPS synchronises fine pixels at best",
        ));
    }
    if !subject.features.enabled_for(mode) {
        out.push(Diagnostic::new(
            Severity::Error,
            "interlock-feature-not-enabled",
            format!(
                "{mode} interlock used but the device was created without {}",
                match mode.granularity {
                    Granularity::Pixel => "fragmentShaderPixelInterlock",
                    Granularity::Sample => "fragmentShaderSampleInterlock",
                    Granularity::ShadingRate => "fragmentShaderShadingRateInterlock",
                }
            ),
        ));
    }
    if e.begin_count > 1 || e.end_count > 1 {
        out.push(Diagnostic::new(
            Severity::Warning,
            "multiple-interlock-pairs",
            format!(
                "{} begin / {} end instructions: the ordered section is entered once per invocation; extra pairs are invalid SPIR-V for the extension",
                e.begin_count, e.end_count
            ),
        ));
    }
    if e.begin_in_divergent_control_flow {
        out.push(Diagnostic::new(
            Severity::Warning,
            "divergent-interlock-begin",
            "OpBeginInvocationInterlockEXT is in divergent control flow: the driver must hoist the ordered-section entry for the whole wave",
        ));
    }
    if !e.accesses_memory {
        out.push(Diagnostic::new(
            Severity::Warning,
            "interlock-without-memory-access",
            "interlock declared but the shader accesses no storage memory: the ordering costs without protecting anything",
        ));
    }
    // Article: "With POPS, on all hardware generations, the shader must have at least one export".
    if !e.has_color_output {
        out.push(Diagnostic::new(
            Severity::Info,
            "no-color-output",
            "no colour output: the driver must still export (a null export and SPI_SHADER_COL_FORMAT space, e.g. SPI_SHADER_32_R) for the ordered section to end",
        ));
    }
    out
}

/// The one place that calls the other crates' analysis and state rules.
mod backend {
    use super::*;
    use crate::capture::{self, RasterizationOrder};
    use pm4::pops;

    pub fn analyze(words: &[u32]) -> ModuleAnalysis {
        let info = shaders::spirv::analyze(words).map_err(|e| format!("SPIR-V analysis: {e}"))?;
        Ok(info
            .entry_points
            .into_iter()
            .map(|e| EntryAnalysis {
                is_fragment: e.execution_model == shaders::spirv::ExecutionModel::Fragment,
                name: e.name,
                interlock: e.interlock,
                begin_count: e.begin_count,
                end_count: e.end_count,
                begin_in_divergent_control_flow: e.begin_in_divergent_control_flow,
                per_sample: e.per_sample,
                writes_memory: e.writes_memory,
                accesses_memory: e.accesses_memory,
                has_color_output: e.has_color_output,
                early_fragment_tests: e.early_fragment_tests,
            })
            .collect())
    }

    /// The `pops state` inputs for what the pipeline shows: a dynamic sample count counts as 1
    /// (a diagnostic says so); a depth/stencil attachment is assumed where depth or stencil
    /// testing is enabled, at the rasterization sample count.
    pub fn inputs(
        mode: InterlockMode,
        e: &EntryAnalysis,
        draw: &DrawState,
    ) -> (pops::InterlockDesc, pops::DrawState) {
        let desc = pops::InterlockDesc {
            mode: Some(mode),
            resolves_intrawave: false,
            has_color_output: e.has_color_output,
            writes_memory: e.writes_memory,
        };
        let samples = match draw.samples {
            Some(Samples::Static(n)) => n,
            _ => 1,
        };
        let mut state = pops::DrawState {
            rasterization_samples: samples,
            ..pops::DrawState::default()
        };
        if let Some(blend) = &draw.blend {
            state.color_targets = [None; pops::MAX_COLOR_TARGETS];
            for (slot, b) in state.color_targets.iter_mut().zip(blend) {
                *slot = Some(blend_target(b));
            }
        }
        if let Some(formats) = draw.color_formats {
            for (i, f) in formats.0.iter().enumerate() {
                match f {
                    Some(f) => state.color_formats[i] = *f,
                    // No attachment at this location: nothing written there.
                    None => state.color_targets[i] = None,
                }
            }
        }
        if let Some(ds) = draw.depth_stencil {
            // At creation the attachment is not known: assumed where a test uses it. At a draw
            // the bound attachment decides (below).
            if ds.depth_test || ds.depth_write || ds.stencil_test {
                state.depth_stencil_samples = samples;
            }
            state.depth_stencil = pops::DepthStencilState {
                has_stencil: ds.stencil_test,
                depth_test: ds.depth_test,
                depth_write: ds.depth_write,
                depth_compare: compare(ds.depth_compare),
                stencil_test: ds.stencil_test,
                front: stencil(&ds.front),
                back: stencil(&ds.back),
            };
        }
        if let Some(a) = draw.depth_attachment {
            state.depth_stencil_samples = a.samples;
            state.depth_stencil.has_stencil = a.has_stencil;
        }
        state.rasterization_order = match draw.rasterization_order {
            Some(RasterizationOrder::Relaxed) => pops::RasterizationOrder::Relaxed,
            _ => pops::RasterizationOrder::Strict,
        };
        state.vrs_in_use = draw.vrs == Some(true);
        // One invocation per sample: sampleShadingEnable, or a shader that reads the sample ID
        // or position.
        state.sample_shading = e.per_sample || draw.sample_shading == Some(true);
        (desc, state)
    }

    /// The registers of a state (pops_report::registers), serialised on first use.
    struct LazyRegisters {
        state: pops::PopsState,
        raw: OnceLock<Box<serde_json::value::RawValue>>,
    }

    impl crate::report::LazyJson for LazyRegisters {
        fn raw(&self) -> &serde_json::value::RawValue {
            self.raw.get_or_init(|| {
                serde_json::to_string(&pops_report::registers(&self.state))
                    .ok()
                    .and_then(|t| serde_json::value::RawValue::from_string(t).ok())
                    .unwrap_or_else(|| {
                        serde_json::value::RawValue::from_string("null".to_string())
                            .unwrap_or_default()
                    })
            })
        }
    }

    pub fn derive(
        family: Family,
        desc: &pops::InterlockDesc,
        state: &pops::DrawState,
    ) -> Result<StateOutput, String> {
        let s = pops::derive(family, desc, state, &pops::Experiments::default())
            .map_err(|e| e.to_string())?;
        Ok(StateOutput {
            registers: Shared::lazy(Arc::new(LazyRegisters {
                state: s.clone(),
                raw: OnceLock::new(),
            })),
            pm4: pops::emit(&s).into(),
            diagnostics: s
                .diagnostics
                .iter()
                .map(|d| {
                    Diagnostic::new(
                        match d.severity {
                            pops::Severity::Info => Severity::Info,
                            pops::Severity::Warning => Severity::Warning,
                            pops::Severity::Error => Severity::Error,
                        },
                        d.code,
                        d.message.clone(),
                    )
                })
                .collect(),
        })
    }

    fn blend_target(b: &capture::BlendTarget) -> pops::BlendTarget {
        use pops::BlendOp as O;
        let op = |v: i32| match v {
            0 => O::Add,
            1 => O::Subtract,
            2 => O::ReverseSubtract,
            3 => O::Min,
            4 => O::Max,
            // Advanced blend operations: never commutative; Subtract stands for them.
            _ => O::Subtract,
        };
        use pops::BlendFactor as F;
        const FACTORS: [F; 19] = [
            F::Zero,
            F::One,
            F::SrcColor,
            F::OneMinusSrcColor,
            F::DstColor,
            F::OneMinusDstColor,
            F::SrcAlpha,
            F::OneMinusSrcAlpha,
            F::DstAlpha,
            F::OneMinusDstAlpha,
            F::ConstantColor,
            F::OneMinusConstantColor,
            F::ConstantAlpha,
            F::OneMinusConstantAlpha,
            F::SrcAlphaSaturate,
            F::Src1Color,
            F::OneMinusSrc1Color,
            F::Src1Alpha,
            F::OneMinusSrc1Alpha,
        ];
        let factor = |v: i32| {
            usize::try_from(v)
                .ok()
                .and_then(|i| FACTORS.get(i).copied())
                .unwrap_or(F::SrcAlpha)
        };
        pops::BlendTarget {
            enable: b.blend_enable,
            color_op: op(b.color_op),
            alpha_op: op(b.alpha_op),
            src_color: factor(b.src_color),
            dst_color: factor(b.dst_color),
            src_alpha: factor(b.src_alpha),
            dst_alpha: factor(b.dst_alpha),
            write_mask: (b.write_mask & 0xf) as u8,
        }
    }

    fn compare(v: i32) -> pops::CompareOp {
        use pops::CompareOp as C;
        match v {
            0 => C::Never,
            1 => C::Less,
            2 => C::Equal,
            3 => C::LessOrEqual,
            4 => C::Greater,
            5 => C::NotEqual,
            6 => C::GreaterOrEqual,
            _ => C::Always,
        }
    }

    fn stencil(f: &capture::StencilFace) -> pops::StencilOpState {
        use pops::StencilOp as S;
        let op = |v: i32| match v {
            1 => S::Zero,
            2 => S::Replace,
            3 => S::IncrementAndClamp,
            4 => S::DecrementAndClamp,
            5 => S::Invert,
            6 => S::IncrementAndWrap,
            7 => S::DecrementAndWrap,
            _ => S::Keep,
        };
        pops::StencilOpState {
            fail: op(f.fail),
            pass: op(f.pass),
            depth_fail: op(f.depth_fail),
            compare: compare(f.compare),
            write_mask: f.write_mask,
        }
    }
}

/// The `pops state` inputs the layer derives for a stage (for tests that cross-check the report
/// against `pm4::pops::derive`).
pub fn state_inputs(
    mode: InterlockMode,
    e: &EntryAnalysis,
    draw: &DrawState,
) -> (pm4::pops::InterlockDesc, pm4::pops::DrawState) {
    backend::inputs(mode, e, draw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(mode: Option<InterlockMode>) -> EntryAnalysis {
        EntryAnalysis {
            name: "main".into(),
            is_fragment: true,
            interlock: mode,
            begin_count: 1,
            end_count: 1,
            begin_in_divergent_control_flow: false,
            per_sample: false,
            writes_memory: true,
            accesses_memory: true,
            has_color_output: true,
            early_fragment_tests: false,
        }
    }

    fn subject(chip: Option<Family>) -> Subject<'static> {
        Subject {
            stage_hash: None,
            app: "a",
            device: "d",
            kind: Kind::Pipeline,
            handle: 0xabc,
            source: "shader_module",
            chip,
            features: InterlockFeatures {
                pixel: true,
                sample: true,
                shading_rate: false,
            },
        }
    }

    fn codes(r: &Record) -> Vec<&str> {
        r.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    fn draw(samples: u32) -> DrawState {
        DrawState {
            samples: Some(Samples::Static(samples)),
            ..Default::default()
        }
    }

    const PIXEL: InterlockMode = InterlockMode::new(Granularity::Pixel, pm4::Ordering::Ordered);

    #[test]
    fn clean_single_sample_pixel_interlock_has_no_warnings() {
        let e = entry(Some(PIXEL));
        let r = build_record(&subject(None), "main", Ok(&e), &draw(1));
        assert_eq!(r.interlock, "pixel-ordered");
        assert_eq!(r.handle, "0xabc");
        assert_eq!(r.samples, Some(1));
        assert!(codes(&r).is_empty(), "{:?}", r.diagnostics);
    }

    /// Article: "with MSAA, on AMD hardware, pixel interlock generally performs massively,
    /// sometimes prohibitively, slower than sample interlock".
    #[test]
    fn pixel_interlock_with_msaa_is_flagged() {
        let e = entry(Some(PIXEL));
        let r = build_record(&subject(None), "main", Ok(&e), &draw(4));
        assert_eq!(codes(&r), ["pixel-interlock-with-msaa"]);
        let sample = entry(Some(InterlockMode::new(
            Granularity::Sample,
            pm4::Ordering::Ordered,
        )));
        let r = build_record(&subject(None), "main", Ok(&sample), &draw(4));
        assert!(codes(&r).is_empty());
    }

    /// Article: "if POPS is used with 8 or more rasterization samples … POPS_DRAIN_PS_ON_OVERLAP
    /// must be set" on CHIP_VEGA10 and CHIP_RAVEN only. The record carries pm4::pops's
    /// diagnostic, once, with pm4::pops's code and severity.
    #[test]
    fn eight_samples_on_vega10_and_raven_only() {
        let e = entry(Some(InterlockMode::new(
            Granularity::Sample,
            pm4::Ordering::Ordered,
        )));
        for (f, expect) in [
            (Family::Vega10, true),
            (Family::Raven, true),
            (Family::Vega20, false),
            (Family::Navi31, false),
        ] {
            let r = build_record(&subject(Some(f)), "main", Ok(&e), &draw(8));
            let found: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| d.code == "pops-missed-overlap-workaround")
                .collect();
            assert_eq!(found.len(), expect as usize, "{f:?}");
            if let Some(d) = found.first() {
                assert_eq!(d.severity, Severity::Warning);
            }
            let r = build_record(&subject(Some(f)), "main", Ok(&e), &draw(4));
            assert!(!codes(&r).contains(&"pops-missed-overlap-workaround"));
            // Without a chip there is no chip-specific finding.
            let r = build_record(&subject(None), "main", Ok(&e), &draw(8));
            assert!(!codes(&r).contains(&"pops-missed-overlap-workaround"));
        }
    }

    /// Article: "the fragmentShaderShadingRateInterlock Vulkan device feature is not available".
    #[test]
    fn shading_rate_interlock_and_missing_feature() {
        let m = InterlockMode::new(Granularity::ShadingRate, pm4::Ordering::Unordered);
        let e = entry(Some(m));
        let d = diagnostics(&subject(None), m, &e, &draw(1));
        let c: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            c,
            ["shading-rate-interlock", "interlock-feature-not-enabled"]
        );
    }

    #[test]
    fn shader_shape_diagnostics() {
        let mut e = entry(Some(PIXEL));
        e.begin_count = 2;
        e.begin_in_divergent_control_flow = true;
        e.accesses_memory = false;
        e.has_color_output = false;
        let d = diagnostics(&subject(None), PIXEL, &e, &draw(1));
        let c: Vec<_> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            c,
            [
                "multiple-interlock-pairs",
                "divergent-interlock-begin",
                "interlock-without-memory-access",
                "no-color-output"
            ]
        );
    }

    #[test]
    fn unknown_and_none() {
        let r = build_record(
            &subject(Some(Family::Navi31)),
            "main",
            Err("identifier".into()),
            &draw(1),
        );
        assert_eq!(r.interlock, "unknown");
        assert_eq!(codes(&r), ["interlock-unknown"]);
        let e = entry(None);
        let r = build_record(&subject(Some(Family::Navi31)), "main", Ok(&e), &draw(1));
        assert_eq!(r.interlock, "none");
        assert!(r.diagnostics.is_empty());
        assert!(r.registers.is_null());
    }

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
        let a: ModuleAnalysis = Ok(vec![entry(None)]);
        assert!(fragment_entry(&a, "main").is_ok());
        assert!(fragment_entry(&a, "other").is_err());
        assert!(fragment_entry(&Err("bad".into()), "main").is_err());
    }

    /// End to end on the shader corpus: the record's registers and PM4 are exactly what
    /// `pm4::pops::derive` gives for the same inputs (`pops state` and the layer cannot diverge).
    #[test]
    fn corpus_records_match_pops_state() {
        use pm4::pops;
        for name in [
            "pixel_interlock_ordered.frag",
            "sample_interlock_ordered.frag",
            "oit_interlock.frag",
            "no_color_output.frag",
        ] {
            let sh = shaders::corpus::get(name).expect("corpus shader");
            let analysis = analyze_module(&sh.words());
            let e = fragment_entry(&analysis, "main").expect("fragment main");
            let mode = e.interlock.expect("interlock");
            for family in [
                Family::Vega10,
                Family::Raven,
                Family::Navi10,
                Family::Navi21,
                Family::Navi31,
            ] {
                for samples in [1, 4, 8] {
                    let d = draw(samples);
                    let r = build_record(&subject(Some(family)), "main", Ok(e), &d);
                    assert_eq!(r.interlock, mode.name());
                    let (desc, state) = state_inputs(mode, e, &d);
                    assert_eq!(desc.has_color_output, e.has_color_output);
                    assert_eq!(state.rasterization_samples, samples);
                    let s =
                        pops::derive(family, &desc, &state, &pops::Experiments::default()).unwrap();
                    assert_eq!(
                        r.registers.value(),
                        serde_json::to_value(pops_report::registers(&s)).unwrap(),
                        "{name} {family:?} {samples}"
                    );
                    assert!(r.registers.value().get("DB_SHADER_CONTROL").is_some());
                    assert_eq!(&r.pm4[..], &pops::emit(&s)[..]);
                    for d in &s.diagnostics {
                        assert!(r.diagnostics.iter().any(|x| x.code == d.code), "{}", d.code);
                    }
                }
            }
        }
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
