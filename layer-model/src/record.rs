//! One report record of an object or draw: the fragment stage's analysis, the POPS state
//! `pm4::pops` derives for it (registers, PM4, the chip's findings) and the layer's own findings.
//! Pure: no Vulkan calls, no I/O, so it is unit-tested and benchmarked on its own.

use super::analysis::{AnalysisError, EntryAnalysis, InterlockFeatures};
use super::capture::{CapturedState, Samples};
use super::findings;
use parking_lot::Mutex;
use pm4::pops;
use pm4::{Family, InterlockMode};
use pops_report::{Diagnostic, Interlock, Kind, Source};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// A JSON value computed at most once, on first use, and shared by every record that has it.
pub trait LazyJson: Send + Sync {
    fn raw(&self) -> &serde_json::value::RawValue;
    /// What the report's `state` line of this value is called: a hash of its JSON text, so
    /// the same state has the same id in every process writing a report.
    fn id(&self) -> u64;
}

/// The id of a JSON text: stable across processes (SipHash with fixed keys).
pub fn text_id(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The register state of a record: `null`, or JSON shared between all records of one (chip,
/// shader facts, draw state). It is serialised only when a report line is written, and then only
/// once per state: building it costs far more than deriving the state.
#[derive(Clone, Default)]
pub struct Shared(Option<Arc<dyn LazyJson>>);

impl Shared {
    pub fn null() -> Self {
        Shared(None)
    }

    pub fn lazy(json: Arc<dyn LazyJson>) -> Self {
        Shared(Some(json))
    }

    pub fn is_null(&self) -> bool {
        self.0.is_none()
    }

    /// The id of the state (16 hex digits, as the report's `state` lines are named).
    pub fn id(&self) -> Option<String> {
        self.0.as_ref().map(|j| format!("{:016x}", j.id()))
    }

    /// The JSON text, where there is a value.
    pub fn raw(&self) -> Option<&serde_json::value::RawValue> {
        self.0.as_ref().map(|j| j.raw())
    }

    /// The value as a `serde_json::Value` (parses the shared text: for tests and tools).
    pub fn value(&self) -> serde_json::Value {
        match &self.0 {
            None => serde_json::Value::Null,
            Some(j) => serde_json::from_str(j.raw().get()).unwrap_or(serde_json::Value::Null),
        }
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("null"),
            Some(j) => f.write_str(j.raw().get()),
        }
    }
}

impl pops_report::Nullable for Shared {
    fn is_null(&self) -> bool {
        self.0.is_none()
    }
}

impl Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => s.serialize_unit(),
            Some(j) => j.raw().serialize(s),
        }
    }
}

/// One report line (schemas/report.schema.json, the type pops_report defines once), with the
/// register state as JSON shared between the lines of one state.
pub type Record = pops_report::Record<Shared>;

/// A draw record as its command buffer holds it (for the report of a device loss): built when the
/// buffer ends, and written to the report — with its object's `verify_isa` verdict, under the id
/// the report gives it — once that verdict is reached, in the device's outbox after its object's
/// record (on whichever thread finds it ready).
/// Until then it reads as built (every field but the verdict's findings and the id).
pub struct DrawRecord {
    built: Record,
    written: OnceLock<Record>,
}

impl DrawRecord {
    /// A record still to be written.
    pub fn built(built: Record) -> Self {
        DrawRecord {
            built,
            written: OnceLock::new(),
        }
    }

    /// A record written as it was built.
    pub fn written(rec: Record) -> Self {
        let d = DrawRecord::built(rec.clone());
        d.write(rec);
        d
    }

    /// The record as built, before its verdict: what the write completes.
    pub fn as_built(&self) -> &Record {
        &self.built
    }

    /// The record as it was written (the first write counts).
    pub fn write(&self, rec: Record) {
        let _ = self.written.set(rec);
    }

    /// Whether it has been written.
    pub fn is_written(&self) -> bool {
        self.written.get().is_some()
    }
}

impl std::ops::Deref for DrawRecord {
    type Target = Record;

    /// The record as written, else as built.
    fn deref(&self) -> &Record {
        self.written.get().unwrap_or(&self.built)
    }
}

/// The next record id of the process.
pub fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The state a driver must program, from `pops state`'s rules.
#[derive(Clone, Debug, PartialEq)]
pub struct StateOutput {
    pub registers: Shared,
    pub pm4: Arc<[u32]>,
    pub diagnostics: Vec<Diagnostic>,
}

type StateKey = (Family, pops::InterlockDesc, pops::DrawState);
type StateCache = Mutex<HashMap<StateKey, Arc<StateOutput>, crate::FastHash>>;

/// The state of one (chip, shader facts, draw state): pipelines of a game share a handful, and
/// turning registers into JSON costs far more than deriving them, so each is built once.
fn cached_state(
    family: Family,
    desc: pops::InterlockDesc,
    state: pops::DrawState,
) -> Result<Arc<StateOutput>, pops::StateError> {
    static CACHE: OnceLock<StateCache> = OnceLock::new();
    const MAX_ENTRIES: usize = 4096;
    let key = (family, desc, state);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().get(&key) {
        return Ok(hit.clone());
    }
    let out = Arc::new(derive(family, &key.1, &key.2)?);
    let mut map = cache.lock();
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
    /// Where the device executes nothing, what it is ([`null_device`]).
    pub null_device: Option<&'a str>,
    pub app: &'a str,
    pub device: &'a str,
    /// The driver and its release (`radv (Mesa 26.2.6-1)`), where the device says.
    pub driver: Option<&'a str>,
    pub kind: Kind,
    pub handle: u64,
    pub source: Source,
    pub chip: Option<Family>,
    pub features: InterlockFeatures,
}

fn to_report(d: &pops::StateFinding) -> Diagnostic {
    Diagnostic::new(
        d.severity,
        pops_report::Code::Chip(d.code),
        d.message.clone(),
    )
}

/// What the device is when it executes nothing, from the process's environment: RADV's null
/// hardware (`RADV_FORCE_FAMILY`, up to Mesa 25.0), the drm-shim `pops` re-executes on
/// (`POPS_NULL_DEVICE`), or a drm-shim preloaded (`LD_PRELOAD`: Mesa's no-op shim, the amdgpu
/// kernel-interface shim). `None`: a device that may execute. Pure.
pub fn null_device(
    force_family: Option<&str>,
    pops_null_device: Option<&str>,
    ld_preload: Option<&str>,
) -> Option<String> {
    fn set(v: Option<&str>) -> Option<&str> {
        v.filter(|v| !v.trim().is_empty())
    }
    if let Some(f) = set(force_family) {
        return Some(format!("RADV null hardware (RADV_FORCE_FAMILY={f})"));
    }
    if let Some(lib) = set(pops_null_device) {
        return Some(format!("a drm-shim device ({lib})"));
    }
    set(ld_preload)?
        .split([':', ' '])
        .find(|l| l.contains("drm_shim"))
        .map(|lib| format!("a drm-shim device ({lib})"))
}

/// Builds the report record for one fragment stage. `entry` is `Err(reason)` where the SPIR-V was
/// not visible or not analysable.
pub fn build_record(
    subject: &Subject<'_>,
    entry_name: &str,
    entry: Result<&EntryAnalysis, AnalysisError>,
    draw: &CapturedState,
) -> Record {
    let samples = match draw.samples {
        Some(Samples::Static(n)) => Some(n),
        _ => None,
    };
    let mut rec = Record {
        schema_version: pops_report::SCHEMA_VERSION,
        app: subject.app.to_string(),
        device: subject.device.to_string(),
        kind: subject.kind,
        handle: format!("0x{:x}", subject.handle),
        entry_point: entry_name.to_string(),
        interlock: Interlock::Unknown,
        begin_count: 0,
        end_count: 0,
        per_sample: false,
        samples,
        chip: subject.chip.map(|f| f.name().to_string()),
        state: None,
        registers: Shared::null(),
        pm4: Arc::from(Vec::new()),
        diagnostics: Vec::new(),
        source: subject.source,
        command_buffer: None,
        bound: None,
        draws: None,
        command_buffers: None,
        name: None,
        module_name: None,
        fossilize_module: None,
        null_device: subject.null_device.map(str::to_string),
        driver: subject.driver.map(str::to_string),
        object: None,
        experiment: None,
        id: next_id(),
        stage_hash: subject.stage_hash.map(str::to_string),
    };
    let e = match entry {
        Ok(e) => e,
        Err(reason) => {
            rec.diagnostics
                .push(findings::interlock_unknown(&reason.to_string()));
            return rec;
        }
    };
    rec.interlock = Interlock::of(e.interlock);
    rec.begin_count = e.begin_count;
    rec.end_count = e.end_count;
    rec.per_sample = e.per_sample || draw.sample_shading == Some(true);
    let Some(mode) = e.interlock else {
        return rec;
    };
    rec.diagnostics = findings::stage_findings(mode, e, draw, subject.features);
    let (desc, state) = state_inputs(mode, e, draw);
    // The chip's findings and the mode's come from pm4::pops: with the derived state where there
    // is a chip, on their own where there is none or the state cannot be derived.
    let derived = subject.chip.map(|family| {
        cached_state(family, desc, state)
            .map_err(|e| findings::state_unavailable(family.name(), &e.to_string()))
    });
    match derived {
        Some(Ok(s)) => {
            rec.registers = s.registers.clone();
            rec.pm4 = s.pm4.clone();
            rec.diagnostics.extend(s.diagnostics.iter().cloned());
        }
        other => {
            if let Some(Err(unavailable)) = other {
                rec.diagnostics.push(unavailable);
            }
            rec.diagnostics
                .extend(pops::interlock_findings(mode, &state).iter().map(to_report));
        }
    }
    rec
}

/// The `pops state` inputs the layer derives for a stage: a dynamic sample count counts as 1
/// (a finding says so); a depth/stencil attachment is assumed where depth or stencil testing is
/// enabled, at the rasterization sample count, unless the draw's attachment is known.
pub fn state_inputs(
    mode: InterlockMode,
    e: &EntryAnalysis,
    draw: &CapturedState,
) -> (pops::InterlockDesc, pops::DrawState) {
    let desc = pops::InterlockDesc {
        mode: Some(mode),
        resolves_intrawave: false,
        has_color_output: e.has_color_output,
        writes_memory: e.writes_memory,
        reads_sample_mask: e.reads_sample_mask,
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
            *slot = Some(*b);
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
            ..ds
        };
    }
    if let Some(a) = draw.depth_attachment {
        state.depth_stencil_samples = a.samples;
        state.depth_stencil.has_stencil = a.has_stencil;
    }
    state.rasterization_order = draw.rasterization_order.unwrap_or_default();
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
    id: OnceLock<u64>,
}

impl LazyJson for LazyRegisters {
    fn raw(&self) -> &serde_json::value::RawValue {
        self.raw.get_or_init(|| {
            serde_json::to_string(&pops_report::registers(&self.state))
                .ok()
                .and_then(|t| serde_json::value::RawValue::from_string(t).ok())
                .unwrap_or_else(|| {
                    serde_json::value::RawValue::from_string("null".to_string()).unwrap_or_default()
                })
        })
    }

    fn id(&self) -> u64 {
        *self.id.get_or_init(|| text_id(self.raw().get()))
    }
}

fn derive(
    family: Family,
    desc: &pops::InterlockDesc,
    state: &pops::DrawState,
) -> Result<StateOutput, pops::StateError> {
    let s = pops::derive(family, desc, state, &pops::Experiments::default())?;
    Ok(StateOutput {
        registers: Shared::lazy(Arc::new(LazyRegisters {
            state: s.clone(),
            raw: OnceLock::new(),
            id: OnceLock::new(),
        })),
        pm4: pops::emit(&s).into(),
        diagnostics: s.diagnostics.iter().map(to_report).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device that executes nothing is named from the environment the way pops and the user
    /// set it up; a real device's environment names none.
    #[test]
    fn null_devices_are_named_from_the_environment() {
        assert_eq!(
            null_device(Some("navi31"), None, None).as_deref(),
            Some("RADV null hardware (RADV_FORCE_FAMILY=navi31)")
        );
        assert_eq!(
            null_device(None, Some("/x/libamdgpu_noop_drm_shim.so"), None).as_deref(),
            Some("a drm-shim device (/x/libamdgpu_noop_drm_shim.so)")
        );
        assert_eq!(
            null_device(
                None,
                None,
                Some("/a/libfoo.so:/b/libamdgpu_oracle_drm_shim.so")
            )
            .as_deref(),
            Some("a drm-shim device (/b/libamdgpu_oracle_drm_shim.so)")
        );
        assert_eq!(null_device(Some(""), None, Some("/a/libfoo.so")), None);
        assert_eq!(null_device(None, None, None), None);
    }
    use crate::analysis::{analyze_module, fragment_entry};
    use pm4::Granularity;
    use pops_report::Severity;

    use crate::analysis::test_entry as entry;

    fn subject(chip: Option<Family>) -> Subject<'static> {
        Subject {
            stage_hash: None,
            null_device: None,
            app: "a",
            device: "d",
            driver: None,
            kind: Kind::Pipeline,
            handle: 0xabc,
            source: Source::ShaderModule,
            chip,
            features: InterlockFeatures {
                pixel: true,
                sample: true,
                shading_rate: false,
            },
        }
    }

    fn codes(r: &Record) -> Vec<&str> {
        r.diagnostics.iter().map(|d| d.code.name()).collect()
    }

    fn draw(samples: u32) -> CapturedState {
        CapturedState {
            samples: Some(Samples::Static(samples)),
            ..Default::default()
        }
    }

    const PIXEL: InterlockMode = InterlockMode::new(Granularity::Pixel, pm4::Ordering::Ordered);

    #[test]
    fn clean_single_sample_pixel_interlock_has_no_warnings() {
        let e = entry(Some(PIXEL));
        let r = build_record(&subject(None), "main", Ok(&e), &draw(1));
        assert_eq!(r.interlock, Interlock::Mode(PIXEL));
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
        assert_eq!(r.diagnostics[0].severity, Severity::Info);
        // A per-sample shader surely needs no pixel ordering: a warning, with or without a chip.
        let mut per_sample = e.clone();
        per_sample.per_sample = true;
        for chip in [None, Some(Family::Navi31)] {
            let r = build_record(&subject(chip), "main", Ok(&per_sample), &draw(4));
            let d: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| d.code.name() == "pixel-interlock-with-msaa")
                .collect();
            assert_eq!(d.len(), 1, "{chip:?}: one producer");
            assert_eq!(d[0].severity, Severity::Warning);
        }
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
                .filter(|d| d.code.name() == "pops-missed-overlap-workaround")
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
    /// Article: "the fragmentShaderShadingRateInterlock Vulkan device feature is not available":
    /// pm4::pops says so, with a chip (which refuses the state) and without one.
    #[test]
    fn shading_rate_interlock_and_missing_feature() {
        let m = InterlockMode::new(Granularity::ShadingRate, pm4::Ordering::Unordered);
        let e = entry(Some(m));
        let r = build_record(&subject(None), "main", Ok(&e), &draw(1));
        assert_eq!(
            codes(&r),
            ["interlock-feature-not-enabled", "shading-rate-interlock"]
        );
        let r = build_record(&subject(Some(Family::Navi31)), "main", Ok(&e), &draw(1));
        assert_eq!(
            codes(&r),
            [
                "interlock-feature-not-enabled",
                "state-unavailable",
                "shading-rate-interlock"
            ]
        );
        assert!(r.registers.is_null());
    }

    #[test]
    fn unknown_and_none() {
        let r = build_record(
            &subject(Some(Family::Navi31)),
            "main",
            Err(crate::analysis::AnalysisError::NotVisible("identifier")),
            &draw(1),
        );
        assert_eq!(r.interlock, Interlock::Unknown);
        assert_eq!(codes(&r), ["interlock-unknown"]);
        let e = entry(None);
        let r = build_record(&subject(Some(Family::Navi31)), "main", Ok(&e), &draw(1));
        assert_eq!(r.interlock, Interlock::None);
        assert!(r.diagnostics.is_empty());
        assert!(r.registers.is_null());
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
                    assert_eq!(r.interlock, Interlock::Mode(mode));
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
                        assert!(
                            r.diagnostics
                                .iter()
                                .any(|x| x.code == pops_report::Code::Chip(d.code)),
                            "{}",
                            d.code.name()
                        );
                    }
                }
            }
        }
    }

    /// A draw record reads as built (no verdict, its own id) until it is written, then as
    /// written (the verdict's findings, the id the report gave it); the first write counts.
    #[test]
    fn a_draw_record_reads_as_built_until_written() {
        let e = entry(Some(PIXEL));
        let built = build_record(&subject(None), "main", Ok(&e), &draw(1));
        let d = DrawRecord::built(built.clone());
        assert!(!d.is_written());
        assert_eq!((d.id, d.diagnostics.len()), (built.id, 0));
        let mut written = built.clone();
        written.id = 7;
        written
            .diagnostics
            .push(findings::experiment_not_applied("x", "y"));
        d.write(written);
        let mut again = built.clone();
        again.id = 9;
        d.write(again);
        assert!(d.is_written());
        assert_eq!((d.id, d.diagnostics.len()), (7, 1));
        assert_eq!(d.as_built().id, built.id);
    }
}
