//! POPS driver state: what a driver must program for a draw whose fragment shader uses fragment
//! shader interlock, on each chip from GFX9 to GFX12 (the article stops at GFX11: each GFX12
//! rule's reason names its source, `docs/state.md` lists them).
//!
//! [`derive()`] is a pure function from (family, interlock description, draw state, experiment
//! switches) to a [`PopsState`]: the register values, one-line reasons for every POPS-related
//! field, the device features, and diagnostics. Emission of those values as PM4 lives apart in
//! [`emit()`]; its JSON documents are the `pops-report` crate's types, so that `pops state` and the
//! layer's report print the same decisions.
//!
//! Scope of the values: each register holds the fields the POPS rules of the article decide (and
//! the fields those rules depend on, such as the sample counts). Every other field is zero; a
//! real driver merges these fields into its own values for the rest of the register.
//!
//! - [`rules`]: the register rules of the article, one function per register.
//! - [`ooo`]: whether out-of-order rasterization may be enabled.
//! - [`features`]: the Vulkan device features per family.
//! - [`enums`]: the register-database enum constants the rules use.
//! - [`radv`]: where pops deliberately differs from what RADV programs, with the reasons.

pub mod agreement;
pub mod color;
pub mod coverage;
pub mod emit;
pub mod enums;
pub mod features;
pub mod findings;
pub mod ooo;
pub mod radv;
pub mod rules;

pub use color::{ColorFormat, ColorFormatError};
pub use emit::{emit, emit_into};
pub use features::{device_features, Features};
pub use findings::interlock_findings;
pub use ooo::{out_of_order_rasterization, DsaOrderInvariance, OutOfOrderDecision};

use crate::chip::{Family, GfxLevel};
use crate::interlock::{Granularity, InterlockMode, Ordering};
use crate::regs::{Field, Reg, RegError, RegValue};
use std::fmt;

/// What the fragment shader declares and does, as far as POPS is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InterlockDesc {
    /// The declared interlock execution mode; `None` means the shader uses no interlock.
    pub mode: Option<InterlockMode>,
    /// The shader handles intrawave collisions (GFX9–10.3; GFX11 has no such concept).
    pub resolves_intrawave: bool,
    /// The shader writes at least one colour output.
    pub has_color_output: bool,
    /// The shader stores to memory (storage buffers or images).
    pub writes_memory: bool,
    /// The shader reads the input coverage mask (`SampleMask` built-in input,
    /// `gl_SampleMaskIn`). From GFX10.3 the shading rate is then kept at 1x1: the 16-bit
    /// coverage mask a coarse invocation receives cannot describe 2x2 pixels at 8 samples.
    pub reads_sample_mask: bool,
}

impl Default for InterlockDesc {
    /// A shader without interlock that writes colour: the state of an ordinary draw.
    fn default() -> Self {
        InterlockDesc {
            mode: None,
            resolves_intrawave: false,
            has_color_output: true,
            writes_memory: false,
            reads_sample_mask: false,
        }
    }
}

impl InterlockDesc {
    /// The usual interlocked shader: `mode`, colour output, memory writes, no intrawave loop.
    pub fn with_mode(mode: Option<InterlockMode>) -> Self {
        InterlockDesc {
            mode,
            writes_memory: mode.is_some(),
            ..InterlockDesc::default()
        }
    }
}

/// VkBlendOp (the core five).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum BlendOp {
    Add = 0,
    Subtract = 1,
    ReverseSubtract = 2,
    Min = 3,
    Max = 4,
}

/// VkBlendFactor, with the Vulkan values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum BlendFactor {
    Zero = 0,
    One = 1,
    SrcColor = 2,
    OneMinusSrcColor = 3,
    DstColor = 4,
    OneMinusDstColor = 5,
    SrcAlpha = 6,
    OneMinusSrcAlpha = 7,
    DstAlpha = 8,
    OneMinusDstAlpha = 9,
    ConstantColor = 10,
    OneMinusConstantColor = 11,
    ConstantAlpha = 12,
    OneMinusConstantAlpha = 13,
    SrcAlphaSaturate = 14,
    Src1Color = 15,
    OneMinusSrc1Color = 16,
    Src1Alpha = 17,
    OneMinusSrc1Alpha = 18,
}

/// The blend state of one colour attachment (VkPipelineColorBlendAttachmentState).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendTarget {
    pub enable: bool,
    pub color_op: BlendOp,
    pub alpha_op: BlendOp,
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    /// VkColorComponentFlags: R = 1, G = 2, B = 4, A = 8.
    pub write_mask: u8,
}

impl BlendTarget {
    /// No blending, all channels written.
    pub const OPAQUE: BlendTarget = BlendTarget {
        enable: false,
        color_op: BlendOp::Add,
        alpha_op: BlendOp::Add,
        src_color: BlendFactor::One,
        dst_color: BlendFactor::Zero,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        write_mask: 0xf,
    };

    /// Classic "over" alpha blending: src * As + dst * (1 - As).
    pub const ALPHA: BlendTarget = BlendTarget {
        enable: true,
        color_op: BlendOp::Add,
        alpha_op: BlendOp::Add,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::OneMinusSrcAlpha,
        write_mask: 0xf,
    };

    /// `op` with ONE/ONE factors on colour and alpha (additive, MIN, MAX blending).
    pub const fn one_one(op: BlendOp) -> BlendTarget {
        BlendTarget {
            enable: true,
            color_op: op,
            alpha_op: op,
            src_color: BlendFactor::One,
            dst_color: BlendFactor::One,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::One,
            write_mask: 0xf,
        }
    }

    /// Whether this target is written at all.
    pub const fn writes(&self) -> bool {
        self.write_mask & 0xf != 0
    }
}

/// VkCompareOp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl CompareOp {
    /// Every VkCompareOp, in Vulkan's order: for the command line's list of choices and for
    /// tests that range over all of them.
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// The name `pops state --depth-compare` takes (VK_COMPARE_OP_LESS_OR_EQUAL is
    /// `less-or-equal`).
    pub const fn name(self) -> &'static str {
        match self {
            CompareOp::Never => "never",
            CompareOp::Less => "less",
            CompareOp::Equal => "equal",
            CompareOp::LessOrEqual => "less-or-equal",
            CompareOp::Greater => "greater",
            CompareOp::NotEqual => "not-equal",
            CompareOp::GreaterOrEqual => "greater-or-equal",
            CompareOp::Always => "always",
        }
    }

    /// The op of a [`CompareOp::name`].
    pub fn from_name(name: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// VkStencilOp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementAndClamp,
    DecrementAndClamp,
    Invert,
    IncrementAndWrap,
    DecrementAndWrap,
}

impl StencilOp {
    /// Every VkStencilOp, in Vulkan's order, for tests that range over all of them.
    pub const ALL: [StencilOp; 8] = [
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrementAndClamp,
        StencilOp::DecrementAndClamp,
        StencilOp::Invert,
        StencilOp::IncrementAndWrap,
        StencilOp::DecrementAndWrap,
    ];
}

/// VkStencilOpState, less the reference and compare mask, which never change order invariance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilOpState {
    pub fail: StencilOp,
    pub pass: StencilOp,
    pub depth_fail: StencilOp,
    pub compare: CompareOp,
    pub write_mask: u32,
}

impl Default for StencilOpState {
    fn default() -> Self {
        StencilOpState {
            fail: StencilOp::Keep,
            pass: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            compare: CompareOp::Always,
            write_mask: 0xff,
        }
    }
}

/// Depth/stencil state of the draw (used only when a depth/stencil attachment is bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilState {
    /// The attachment format has a stencil aspect.
    pub has_stencil: bool,
    pub depth_test: bool,
    pub depth_write: bool,
    pub depth_compare: CompareOp,
    pub stencil_test: bool,
    pub front: StencilOpState,
    pub back: StencilOpState,
}

impl Default for DepthStencilState {
    fn default() -> Self {
        DepthStencilState {
            has_stencil: false,
            depth_test: false,
            depth_write: false,
            depth_compare: CompareOp::Less,
            stencil_test: false,
            front: StencilOpState::default(),
            back: StencilOpState::default(),
        }
    }
}

/// Rasterization order of the pipeline (VK_AMD_rasterization_order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RasterizationOrder {
    #[default]
    Strict,
    Relaxed,
}

/// Number of colour attachments a draw can have.
pub const MAX_COLOR_TARGETS: usize = 8;

/// The draw-time state POPS depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DrawState {
    /// Rasterization samples: 1, 2, 4 or 8.
    pub rasterization_samples: u32,
    /// Samples of the depth/stencil attachment: 0 (none), 1, 2, 4 or 8.
    pub depth_stencil_samples: u32,
    /// Samples of the colour attachments when they differ from the rasterization samples
    /// (VK_AMD_mixed_attachment_samples): 1, 2, 4 or 8, at most `rasterization_samples`; 0 means
    /// the same as the rasterization samples. The coverage POPS orders is the rasterizer's, so
    /// no POPS field depends on it; it is validated and reported.
    pub color_samples: u32,
    /// Sample-rate shading: sampleShadingEnable with minSampleShading 1.0 (or a shader that
    /// reads the sample ID or position), one invocation per covered sample.
    pub sample_shading: bool,
    /// Blend state per colour attachment; `None` = no attachment in that slot.
    pub color_targets: [Option<BlendTarget>; MAX_COLOR_TARGETS],
    /// Format per colour attachment (decides each target's export format); RGBA8 UNORM where
    /// not known.
    pub color_formats: [ColorFormat; MAX_COLOR_TARGETS],
    pub depth_stencil: DepthStencilState,
    pub rasterization_order: RasterizationOrder,
    /// A shading rate other than 1x1 may be used (pipeline, primitive or attachment rate).
    pub vrs_in_use: bool,
    /// radeonsi's radeonsi_commutative_blend_add: treat ADD as commutative for out-of-order
    /// rasterization, accepting non-deterministic rounding.
    pub allow_commutative_additive_blend: bool,
    /// radeonsi's radeonsi_assume_no_z_fights: colour writes without blending may be reordered
    /// when depth testing decides the last fragment ("pass_last").
    pub assume_no_z_fights: bool,
}

impl Default for DrawState {
    /// A typical draw: one sample, one RGBA8 UNORM target written without blending, no depth.
    fn default() -> Self {
        let mut color_targets = [None; MAX_COLOR_TARGETS];
        color_targets[0] = Some(BlendTarget::OPAQUE);
        DrawState {
            rasterization_samples: 1,
            depth_stencil_samples: 0,
            color_samples: 0,
            sample_shading: false,
            color_targets,
            color_formats: [ColorFormat::RGBA8_UNORM; MAX_COLOR_TARGETS],
            depth_stencil: DepthStencilState::default(),
            rasterization_order: RasterizationOrder::Strict,
            vrs_in_use: false,
            allow_commutative_additive_blend: false,
            assume_no_z_fights: false,
        }
    }
}

/// Register settings the article lists as unresearched, and knobs for reproducing hardware
/// behaviour. All off by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Experiments {
    /// Set DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP for every POPS draw (GFX9–10.3).
    pub force_drain_ps_on_overlap: bool,
    /// DB_SHADER_CONTROL.EXEC_IF_OVERLAPPED (GFX9–10.3).
    pub exec_if_overlapped: bool,
    /// PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE = BIN_MAP_MODE_POPS (GFX10+).
    pub bin_map_mode_pops: bool,
}

/// State the amdgpu kernel driver owns: it programs these registers itself (its golden
/// settings), outside the context space a userspace IB can write. The derivation never writes
/// them; it takes their value as an assumption, which decides features and diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct KernelState {
    /// PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS (GFX11+). When set, "enabling POPS
    /// will force 1x1 shading rate", so fragmentShadingRateWithFragmentShaderInterlock is false.
    /// Clear by default, as amdgpu leaves it and as RADV's features assume.
    pub force_vrs_rate_fine_pops: bool,
}

/// Why a draw description was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error("rasterization sample count {0} is not supported: expected 1, 2, 4 or 8")]
    RasterizationSamples(u32),
    #[error(
        "depth/stencil sample count {0} is not supported: expected 0 (no attachment), 1, 2, 4 or 8"
    )]
    DepthStencilSamples(u32),
    #[error("colour attachment sample count {color} is not supported with {rasterization} rasterization samples: expected 1, 2, 4 or 8, at most the rasterization samples (or 0 = the same)")]
    ColorSamples { color: u32, rasterization: u32 },
    #[error("{0} interlock is not available on AMD: the widest interlock granularity is one fine pixel, so fragmentShaderShadingRateInterlock is false")]
    ShadingRateInterlock(InterlockMode),
    #[error("register model: {0}")]
    Register(#[from] RegError),
}

/// How serious a diagnostic is (the report's `severity`: `info`, `warning`, `error`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every finding [`derive()`] can report, by its stable code: the one list of pm4::pops's codes,
/// so that another producer of findings (the layer) can be checked never to reuse one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StateCode {
    Gfx11BlendRateWorkaroundSkipped,
    ExperimentUnavailable,
    IntrawaveUnavailable,
    IntrawaveWithoutInterlock,
    PopsMissedOverlapWorkaround,
    ExperimentWithoutInterlock,
    StalledPopsWorkaround,
    KernelStateUnavailable,
    VrsUnavailable,
    PopsForcesVrs1X1,
    PopsInterlockPerFinePixel,
    Gfx11DepthSamplesMismatch,
    DepthStateWithoutAttachment,
    PixelInterlockWithMsaa,
    ShadingRateInterlock,
    Gfx12SampleRateUnconfirmed,
}

impl StateCode {
    /// Every code, in declaration order.
    pub const ALL: [StateCode; 16] = [
        StateCode::Gfx11BlendRateWorkaroundSkipped,
        StateCode::ExperimentUnavailable,
        StateCode::IntrawaveUnavailable,
        StateCode::IntrawaveWithoutInterlock,
        StateCode::PopsMissedOverlapWorkaround,
        StateCode::ExperimentWithoutInterlock,
        StateCode::StalledPopsWorkaround,
        StateCode::KernelStateUnavailable,
        StateCode::VrsUnavailable,
        StateCode::PopsForcesVrs1X1,
        StateCode::PopsInterlockPerFinePixel,
        StateCode::Gfx11DepthSamplesMismatch,
        StateCode::DepthStateWithoutAttachment,
        StateCode::PixelInterlockWithMsaa,
        StateCode::ShadingRateInterlock,
        StateCode::Gfx12SampleRateUnconfirmed,
    ];

    /// The stable kebab-case identifier (a diagnostic's `code`).
    pub const fn name(self) -> &'static str {
        match self {
            StateCode::Gfx11BlendRateWorkaroundSkipped => "gfx11-blend-rate-workaround-skipped",
            StateCode::ExperimentUnavailable => "experiment-unavailable",
            StateCode::IntrawaveUnavailable => "intrawave-unavailable",
            StateCode::IntrawaveWithoutInterlock => "intrawave-without-interlock",
            StateCode::PopsMissedOverlapWorkaround => "pops-missed-overlap-workaround",
            StateCode::ExperimentWithoutInterlock => "experiment-without-interlock",
            StateCode::StalledPopsWorkaround => "stalled-pops-workaround",
            StateCode::KernelStateUnavailable => "kernel-state-unavailable",
            StateCode::VrsUnavailable => "vrs-unavailable",
            StateCode::PopsForcesVrs1X1 => "pops-forces-vrs-1x1",
            StateCode::PopsInterlockPerFinePixel => "pops-interlock-per-fine-pixel",
            StateCode::Gfx11DepthSamplesMismatch => "gfx11-depth-samples-mismatch",
            StateCode::DepthStateWithoutAttachment => "depth-state-without-attachment",
            StateCode::PixelInterlockWithMsaa => "pixel-interlock-with-msaa",
            StateCode::ShadingRateInterlock => "shading-rate-interlock",
            StateCode::Gfx12SampleRateUnconfirmed => "gfx12-sample-rate-unconfirmed",
        }
    }
}

impl fmt::Display for StateCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A finding about the draw: a workaround applied, a switch that has no effect on this chip, or
/// a state that cannot be programmed correctly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateFinding {
    pub severity: Severity,
    /// The finding (`code.name()` is its stable kebab-case identifier).
    pub code: StateCode,
    pub message: String,
}

/// Why one field holds its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    pub reg: Reg,
    pub field: Field,
    /// Fixed text, or text naming the draw's inputs (such as the attachment formats).
    pub text: std::borrow::Cow<'static, str>,
}

/// Everything a driver needs for one POPS draw on one chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PopsState {
    pub family: Family,
    pub level: GfxLevel,
    pub interlock: InterlockDesc,
    /// The draw state the values were derived from.
    pub draw: DrawState,
    /// Every register the draw must write for POPS on this chip, each present on `level`,
    /// sorted by byte address.
    pub registers: Vec<RegValue>,
    /// A one-line reason for each POPS-related field value.
    pub reasons: Vec<Reason>,
    /// Per register of `registers` (same order), the mask of the fields the rules decided. The
    /// other bits are zero here and belong to the driver: a driver merges exactly these bits.
    pub decided: Vec<u32>,
    pub features: Features,
    /// The kernel-owned state the derivation assumed.
    pub kernel: KernelState,
    /// The out-of-order rasterization decision (also in PA_SC_MODE_CNTL_1).
    pub out_of_order: OutOfOrderDecision,
    pub diagnostics: Vec<StateFinding>,
}

impl PopsState {
    /// The written value of a register, if this state writes it.
    pub fn register(&self, reg: Reg) -> Option<&RegValue> {
        self.registers.iter().find(|r| r.reg() == reg)
    }

    /// The value of a field, if this state writes its register and the level has the field.
    pub fn field(&self, reg: Reg, field: Field) -> Option<u32> {
        self.register(reg).and_then(|r| r.get(field).ok())
    }

    /// The mask of the fields the rules decided in `reg` (0 when this state does not write it).
    pub fn decided_mask(&self, reg: Reg) -> u32 {
        self.registers
            .iter()
            .position(|r| r.reg() == reg)
            .map_or(0, |i| self.decided[i])
    }

    /// The fields the rules decided in `reg`, in bit order, with their values.
    pub fn decided_fields(&self, reg: Reg) -> impl Iterator<Item = (Field, u32)> + '_ {
        let mask = self.decided_mask(reg);
        self.register(reg)
            .into_iter()
            .flat_map(|r| r.desc.fields.iter().map(move |f| (f, r.value)))
            .filter(move |(f, _)| f.mask() & mask != 0)
            .map(|(f, v)| (f.field, f.extract(v)))
    }

    /// The reason recorded for a field, if any.
    pub fn reason(&self, reg: Reg, field: Field) -> Option<&str> {
        self.reasons
            .iter()
            .find(|r| r.reg == reg && r.field == field)
            .map(|r| &*r.text)
    }

    /// Whether any diagnostic is an error: the state cannot be programmed correctly.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Whether POPS is enabled for the draw.
    pub fn pops_enabled(&self) -> bool {
        self.interlock.mode.is_some()
    }
}

/// Checks a sample count: 1, 2, 4 or 8, and gives its log2.
pub(crate) fn log2_samples(samples: u32) -> Option<u32> {
    match samples {
        1 => Some(0),
        2 => Some(1),
        4 => Some(2),
        8 => Some(3),
        _ => None,
    }
}

/// Derives the POPS state of a draw, assuming the kernel-owned state amdgpu programs by default.
/// Pure: no I/O, and no allocation beyond the result.
pub fn derive(
    family: Family,
    interlock: &InterlockDesc,
    draw: &DrawState,
    exp: &Experiments,
) -> Result<PopsState, StateError> {
    derive_assuming(family, interlock, draw, exp, &KernelState::default())
}

/// [`derive()`] under an explicit assumption about the kernel-owned state.
pub fn derive_assuming(
    family: Family,
    interlock: &InterlockDesc,
    draw: &DrawState,
    exp: &Experiments,
    kernel: &KernelState,
) -> Result<PopsState, StateError> {
    if log2_samples(draw.rasterization_samples).is_none() {
        return Err(StateError::RasterizationSamples(draw.rasterization_samples));
    }
    if draw.depth_stencil_samples != 0 && log2_samples(draw.depth_stencil_samples).is_none() {
        return Err(StateError::DepthStencilSamples(draw.depth_stencil_samples));
    }
    if draw.color_samples != 0
        && (log2_samples(draw.color_samples).is_none()
            || draw.color_samples > draw.rasterization_samples)
    {
        return Err(StateError::ColorSamples {
            color: draw.color_samples,
            rasterization: draw.rasterization_samples,
        });
    }
    if let Some(m) = interlock.mode {
        if m.granularity == Granularity::ShadingRate {
            return Err(StateError::ShadingRateInterlock(m));
        }
    }
    let level = family.gfx_level();
    let mut state = PopsState {
        family,
        level,
        interlock: *interlock,
        draw: *draw,
        registers: Vec::with_capacity(12),
        reasons: Vec::with_capacity(24),
        decided: Vec::with_capacity(12),
        features: features::state_features(family, kernel),
        kernel: *kernel,
        out_of_order: ooo::out_of_order_rasterization(family, interlock, draw),
        diagnostics: Vec::new(),
    };
    rules::apply(&mut state, draw, exp)?;
    let mut pairs: Vec<(RegValue, u32)> = state
        .registers
        .iter()
        .copied()
        .zip(state.decided.iter().copied())
        .collect();
    pairs.sort_by_key(|(r, _)| r.desc.address);
    (state.registers, state.decided) = pairs.into_iter().unzip();
    Ok(state)
}

/// Is the interlock ordered (critical sections run in primitive order)?
pub(crate) fn is_ordered(interlock: &InterlockDesc) -> bool {
    matches!(interlock.mode, Some(m) if m.ordering == Ordering::Ordered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compare_op_is_listed_once_and_its_name_reads_back() {
        for (i, c) in CompareOp::ALL.into_iter().enumerate() {
            assert_eq!(CompareOp::from_name(c.name()), Some(c));
            assert!(!CompareOp::ALL[..i].contains(&c), "{c:?} listed twice");
        }
        assert_eq!(CompareOp::from_name("less_or_equal"), None);
    }

    #[test]
    fn sample_counts_other_than_1_2_4_8_are_refused() {
        for s in [0, 3, 5, 16] {
            let draw = DrawState {
                rasterization_samples: s,
                ..DrawState::default()
            };
            assert_eq!(
                derive(
                    Family::Raven,
                    &InterlockDesc::default(),
                    &draw,
                    &Experiments::default()
                ),
                Err(StateError::RasterizationSamples(s))
            );
        }
        for s in [3, 16] {
            let draw = DrawState {
                depth_stencil_samples: s,
                ..DrawState::default()
            };
            assert_eq!(
                derive(
                    Family::Navi31,
                    &InterlockDesc::default(),
                    &draw,
                    &Experiments::default()
                ),
                Err(StateError::DepthStencilSamples(s))
            );
        }
    }

    /// "There's no synchronization between coarse fragment shader invocations if they don't cover
    /// common fine pixels, so the fragmentShaderShadingRateInterlock Vulkan device feature is not
    /// available."
    #[test]
    fn shading_rate_interlock_is_refused_on_every_chip() {
        for f in Family::ALL {
            for m in InterlockMode::ALL {
                let r = derive(
                    *f,
                    &InterlockDesc::with_mode(Some(m)),
                    &DrawState::default(),
                    &Experiments::default(),
                );
                if m.granularity == Granularity::ShadingRate {
                    let e = r.unwrap_err();
                    assert_eq!(e, StateError::ShadingRateInterlock(m));
                    assert!(e.to_string().contains("not available on AMD"), "{e}");
                } else {
                    assert!(r.is_ok(), "{f} {m}: {r:?}");
                }
            }
        }
    }

    #[test]
    fn registers_are_sorted_unique_and_exist_on_the_level() {
        for f in Family::ALL {
            for mode in [None]
                .into_iter()
                .chain(InterlockMode::ALL.into_iter().take(4).map(Some))
            {
                for s in [1, 2, 4, 8] {
                    let draw = DrawState {
                        rasterization_samples: s,
                        ..DrawState::default()
                    };
                    let st = derive(
                        *f,
                        &InterlockDesc::with_mode(mode),
                        &draw,
                        &Experiments::default(),
                    )
                    .unwrap();
                    for w in st.registers.windows(2) {
                        assert!(w[0].desc.address < w[1].desc.address, "{f}");
                    }
                    for r in &st.registers {
                        assert_eq!(f.gfx_level().register(r.reg()), Some(r.desc), "{f}");
                    }
                }
            }
        }
    }

    /// Interlock `none` is a valid state with the same registers, POPS fields cleared.
    #[test]
    fn interlock_none_clears_pops_fields_in_the_same_registers() {
        for f in Family::ALL {
            let on = derive(
                *f,
                &InterlockDesc::with_mode(Some("sample-ordered".parse().unwrap())),
                &DrawState {
                    rasterization_samples: 8,
                    ..DrawState::default()
                },
                &Experiments::default(),
            )
            .unwrap();
            let off = derive(
                *f,
                &InterlockDesc::default(),
                &DrawState {
                    rasterization_samples: 8,
                    ..DrawState::default()
                },
                &Experiments::default(),
            )
            .unwrap();
            let regs = |s: &PopsState| s.registers.iter().map(|r| r.reg()).collect::<Vec<_>>();
            assert_eq!(regs(&on), regs(&off), "{f}");
            assert_eq!(
                off.field(
                    Reg::DB_SHADER_CONTROL,
                    Field::PRIMITIVE_ORDERED_PIXEL_SHADER
                ),
                Some(0)
            );
            assert_eq!(
                on.field(
                    Reg::DB_SHADER_CONTROL,
                    Field::PRIMITIVE_ORDERED_PIXEL_SHADER
                ),
                Some(1)
            );
            for (reg, field) in [
                (Reg::PA_SC_SHADER_CONTROL, Field::LOAD_COLLISION_WAVEID),
                (Reg::SPI_SHADER_PGM_RSRC2_PS, Field::LOAD_COLLISION_WAVEID),
                (Reg::DB_SHADER_CONTROL, Field::POPS_OVERLAP_NUM_SAMPLES),
                (
                    Reg::DB_SHADER_CONTROL,
                    Field::OVERRIDE_INTRINSIC_RATE_ENABLE,
                ),
                (Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP),
            ] {
                if let Some(v) = off.field(reg, field) {
                    assert_eq!(v, 0, "{f} {reg}.{field}");
                }
            }
        }
    }
}
