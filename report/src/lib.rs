//! The JSON documents pops writes and reads, defined once as serde types: the layer's report
//! lines ([`Record`], schemas/report.schema.json), `pops state --json` ([`StateDocument`]),
//! `pops decode --json` ([`DecodeDocument`]), the other commands' documents ([`commands`]), the
//! self-tests' and a capture's ([`selftest`]), with the register shape ([`Register`]), the
//! diagnostics ([`Diagnostic`]) and the one space of finding codes ([`finding`]) they share. The
//! layer and the commands serialise them, `pops run`, `pops report` and scripts deserialise them;
//! nothing builds or parses these documents by hand.

use pm4::pops::PopsState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use pm4::pops::Severity;

pub mod commands;
pub mod defects;
pub mod finding;
pub mod read;
pub mod selftest;

pub use finding::Code;

/// The environment variable `pops` sets in a process it runs on a drm-shim device (the shim's
/// library): the layer reads it to say in every record that nothing executes there.
pub const NULL_DEVICE_ENV: &str = "POPS_NULL_DEVICE";

/// The version of schemas/report.schema.json that [`Record`] follows. Version 2 writes each
/// distinct register state once, as a `state` line that records refer to by its id, and adds
/// the draws of command buffers recorded again with the same object and state to one draw
/// record (`counts` lines carry the totals); version 1 repeated the registers on every line.
pub const SCHEMA_VERSION: u32 = 2;

/// A value that may be JSON `null`: a field holding it is left out where it is.
pub trait Nullable {
    fn is_null(&self) -> bool;
}

impl<T> Nullable for Option<T> {
    fn is_null(&self) -> bool {
        self.is_none()
    }
}

fn no_words(p: &Arc<[u32]>) -> bool {
    p.is_empty()
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The finding, written as its stable kebab-case name.
    pub code: Code,
    pub message: String,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
        }
    }
}

/// One register as the rules set it: byte address, value, every field, and the fields the
/// POPS rules decide.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Register {
    pub address: u32,
    pub value: u32,
    pub fields: BTreeMap<String, u64>,
    pub decided: Vec<String>,
}

/// Registers by the register database's names.
pub type Registers = BTreeMap<String, Register>;

/// The registers of a derived state.
pub fn registers(state: &PopsState) -> Registers {
    state
        .registers
        .iter()
        .map(|r| {
            (
                r.desc.name().to_string(),
                Register {
                    address: r.desc.address,
                    value: r.value,
                    fields: r
                        .fields()
                        .map(|(f, v)| (f.name().to_string(), u64::from(v)))
                        .collect(),
                    decided: state
                        .decided_fields(r.reg())
                        .map(|(f, _)| f.name().to_string())
                        .collect(),
                },
            )
        })
        .collect()
}

/// The diagnostics of a derived state.
pub fn diagnostics(state: &PopsState) -> Vec<Diagnostic> {
    state
        .diagnostics
        .iter()
        .map(|d| Diagnostic::new(d.severity, Code::Chip(d.code), d.message.clone()))
        .collect()
}

/// The interlock of a fragment stage as a record states it: a mode, `none`, or `unknown` where
/// the SPIR-V is not visible or not analysable. Written as `pops state` spells a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum Interlock {
    None,
    Unknown,
    Mode(pm4::InterlockMode),
}

impl Interlock {
    /// Every value, in the schema's order.
    pub const ALL: [Interlock; 8] = [
        Interlock::None,
        Interlock::Unknown,
        Interlock::Mode(pm4::InterlockMode::ALL[0]),
        Interlock::Mode(pm4::InterlockMode::ALL[1]),
        Interlock::Mode(pm4::InterlockMode::ALL[2]),
        Interlock::Mode(pm4::InterlockMode::ALL[3]),
        Interlock::Mode(pm4::InterlockMode::ALL[4]),
        Interlock::Mode(pm4::InterlockMode::ALL[5]),
    ];

    /// `none` for a stage without interlock.
    pub fn of(mode: Option<pm4::InterlockMode>) -> Interlock {
        mode.map_or(Interlock::None, Interlock::Mode)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Interlock::None => "none",
            Interlock::Unknown => "unknown",
            Interlock::Mode(m) => m.name(),
        }
    }

    /// The declared mode, if any.
    pub fn mode(self) -> Option<pm4::InterlockMode> {
        match self {
            Interlock::Mode(m) => Some(m),
            _ => None,
        }
    }
}

impl std::fmt::Display for Interlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Interlock> for &'static str {
    fn from(i: Interlock) -> &'static str {
        i.name()
    }
}

/// A report value outside its closed set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value:?} is not one of: {expected}")]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
    pub expected: String,
}

impl TryFrom<String> for Interlock {
    type Error = UnknownValue;
    fn try_from(s: String) -> Result<Interlock, UnknownValue> {
        Interlock::ALL
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| UnknownValue {
                what: "interlock",
                expected: Interlock::ALL.map(Interlock::name).join(", "),
                value: s,
            })
    }
}

/// Where a record's fragment SPIR-V came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A `VkShaderModule` created through the layer.
    ShaderModule,
    /// A `VkShaderModuleCreateInfo` chained to the pipeline's fragment stage.
    InlineCreateInfo,
    /// A shader module identifier: the SPIR-V is not visible.
    ModuleIdentifier,
    /// Pipeline binaries replace the stages: no SPIR-V.
    PipelineBinary,
    /// A graphics pipeline library linked into the pipeline.
    Library,
    /// A shader object created from SPIR-V.
    ShaderObjectSpirv,
    /// A shader object created from a driver binary.
    ShaderObjectBinary,
}

impl Source {
    /// Every value, in the schema's order.
    pub const ALL: [Source; 7] = [
        Source::ShaderModule,
        Source::InlineCreateInfo,
        Source::ModuleIdentifier,
        Source::PipelineBinary,
        Source::Library,
        Source::ShaderObjectSpirv,
        Source::ShaderObjectBinary,
    ];

    /// Whether the SPIR-V of this source is visible to a layer.
    pub const fn spirv_visible(self) -> bool {
        !matches!(
            self,
            Source::ModuleIdentifier | Source::PipelineBinary | Source::ShaderObjectBinary
        )
    }
}

/// What a draw record's command buffer had bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Pipeline,
    ShaderObject,
}

impl Bound {
    /// Every value, in the schema's order.
    pub const ALL: [Bound; 2] = [Bound::Pipeline, Bound::ShaderObject];

    pub const fn name(self) -> &'static str {
        match self {
            Bound::Pipeline => "pipeline",
            Bound::ShaderObject => "shader_object",
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a report line describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Pipeline,
    Library,
    ShaderObject,
    /// The draws of one command buffer with one bound pipeline or shader object and one state.
    Draw,
}

impl Kind {
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Pipeline => "pipeline",
            Kind::Library => "library",
            Kind::ShaderObject => "shader_object",
            Kind::Draw => "draw",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One line of the layer's report (schemas/report.schema.json). `R` is how the registers are
/// held: parsed ([`Registers`], the default, for readers) or, in the layer, JSON built once per
/// distinct state and shared by every line that has it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize + Nullable",
    deserialize = "R: Deserialize<'de> + Default"
))]
pub struct Record<R = Option<Registers>> {
    /// Absent in reports written before the schema was versioned.
    #[serde(default)]
    pub schema_version: u32,
    /// Unique in the process, in creation order: a recycled handle never merges two objects.
    #[serde(default)]
    pub id: u64,
    pub app: String,
    pub device: String,
    pub kind: Kind,
    /// `0x…` of the VkPipeline or VkShaderEXT (for draws: the one bound).
    pub handle: String,
    pub entry_point: String,
    /// The fragment stage's content hash, as `pops inspect` prints it; null where the SPIR-V is
    /// not visible.
    #[serde(default)]
    pub stage_hash: Option<String>,
    /// A mode name as `pops state` spells it, `none`, or `unknown`.
    pub interlock: Interlock,
    pub begin_count: u32,
    pub end_count: u32,
    pub per_sample: bool,
    /// Rasterization samples; null where dynamic or not part of the object.
    pub samples: Option<u32>,
    pub chip: Option<String>,
    /// Version 2: the id of the `state` line holding the register state and its PM4; null
    /// without a chip or interlock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Version 1: the register state, inline; null without a chip or interlock. Version 2
    /// leaves it out (see `state`); a reader fills it in from the state line.
    #[serde(default, skip_serializing_if = "Nullable::is_null")]
    pub registers: R,
    /// Version 1: the PM4 words programming `registers`; version 2 leaves them out.
    #[serde(default, skip_serializing_if = "no_words")]
    pub pm4: Arc<[u32]>,
    pub diagnostics: Vec<Diagnostic>,
    /// Where the fragment SPIR-V came from.
    pub source: Source,
    /// Draw lines: `0x…` of the command buffer (version 2: the first one recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_buffer: Option<String>,
    /// Draw lines: what was bound, `pipeline` or `shader_object`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
    /// The object's number on its device (the n-th interlocked object, in creation order), so
    /// that two objects created at one reused address stay two records and two rows: on a
    /// draw line the bound object's, on a pipeline or shader object line its own (absent where
    /// the layer does not follow the object: no interlock, or a library).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<u64>,
    /// Draw lines: how many draw commands used this state (version 2: when the line was
    /// written; `counts` lines carry later totals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
    /// Version 2 draw lines: how many command buffer recordings the draws came from (when the
    /// line was written; `counts` lines carry later totals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_buffers: Option<u64>,
    /// The application's name of the object, where it had one when the line was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The application's name of the shader module the fragment stage came from, where it had
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    /// Fossilize's hash of that shader module (`shaders::spirv::fossilize_module_hash`, as
    /// `fossilize-list` prints it): what names the module, and through it the pipelines, in a
    /// Fossilize archive the application is replaying. Absent for shader objects and where the
    /// SPIR-V is not visible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fossilize_module: Option<String>,
    /// Where the device executes nothing, what it is (RADV's null hardware, a drm-shim): the
    /// pipelines were created and the draws recorded, nothing was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_device: Option<String>,
    /// The Vulkan driver and its release, as `VkPhysicalDeviceDriverProperties` names them
    /// (`radv (Mesa 26.2.6-1)`): what a finding is matched against the known defects with.
    /// Absent where the device does not say (no Vulkan 1.2 or VK_KHR_driver_properties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The interlock experiment the layer applied to the fragment stage, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<AppliedExperiment>,
}

impl<R> Record<R> {
    /// The same record with its registers held another way.
    pub fn map_registers<R2>(self, f: impl FnOnce(R) -> R2) -> Record<R2> {
        Record {
            registers: f(self.registers),
            schema_version: self.schema_version,
            id: self.id,
            app: self.app,
            device: self.device,
            kind: self.kind,
            handle: self.handle,
            entry_point: self.entry_point,
            stage_hash: self.stage_hash,
            interlock: self.interlock,
            begin_count: self.begin_count,
            end_count: self.end_count,
            per_sample: self.per_sample,
            samples: self.samples,
            chip: self.chip,
            state: self.state,
            pm4: self.pm4,
            diagnostics: self.diagnostics,
            source: self.source,
            command_buffer: self.command_buffer,
            bound: self.bound,
            object: self.object,
            draws: self.draws,
            command_buffers: self.command_buffers,
            name: self.name,
            module_name: self.module_name,
            fossilize_module: self.fossilize_module,
            null_device: self.null_device,
            driver: self.driver,
            experiment: self.experiment,
        }
    }
}

/// An interlock experiment the layer applied to the object's fragment stage (the `experiment`
/// setting): its name and each mode change, written `"pixel-ordered -> sample-ordered"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedExperiment {
    pub name: ExperimentName,
    pub changes: Vec<ModeChange>,
}

impl AppliedExperiment {
    /// The changes as the report writes them, comma-separated.
    pub fn changes_text(&self) -> String {
        self.changes
            .iter()
            .map(ModeChange::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The interlock experiments, by the names the `experiment` setting and `pops compare` take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExperimentName {
    PixelToSample,
    SampleToPixel,
    OrderedToUnordered,
    UnorderedToOrdered,
    NoInterlock,
}

impl ExperimentName {
    /// Every value, in the schema's order.
    pub const ALL: [ExperimentName; 5] = [
        ExperimentName::PixelToSample,
        ExperimentName::SampleToPixel,
        ExperimentName::OrderedToUnordered,
        ExperimentName::UnorderedToOrdered,
        ExperimentName::NoInterlock,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            ExperimentName::PixelToSample => "pixel-to-sample",
            ExperimentName::SampleToPixel => "sample-to-pixel",
            ExperimentName::OrderedToUnordered => "ordered-to-unordered",
            ExperimentName::UnorderedToOrdered => "unordered-to-ordered",
            ExperimentName::NoInterlock => "no-interlock",
        }
    }
}

impl std::fmt::Display for ExperimentName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One change of an entry point's interlock mode: from a mode to another, or to none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ModeChange {
    pub from: pm4::InterlockMode,
    pub to: Option<pm4::InterlockMode>,
}

impl std::fmt::Display for ModeChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} -> {}", self.from, Interlock::of(self.to))
    }
}

impl From<ModeChange> for String {
    fn from(c: ModeChange) -> String {
        c.to_string()
    }
}

impl TryFrom<String> for ModeChange {
    type Error = UnknownValue;
    fn try_from(s: String) -> Result<ModeChange, UnknownValue> {
        let bad = |s: &str| UnknownValue {
            what: "mode change",
            value: s.to_string(),
            expected: "\"<mode> -> <mode or none>\"".to_string(),
        };
        let (from, to) = s.split_once(" -> ").ok_or_else(|| bad(&s))?;
        let from = from.parse().map_err(|_| bad(&s))?;
        let to = match Interlock::try_from(to.to_string()).map_err(|_| bad(&s))? {
            Interlock::None => None,
            Interlock::Mode(m) => Some(m),
            Interlock::Unknown => return Err(bad(&s)),
        };
        Ok(ModeChange { from, to })
    }
}

/// A timing line's `kind`: always `timing` (what tells it from the object and draw lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingKind {
    Timing,
}

/// What a timing line measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimingScope {
    /// The submissions between two presents (`index`: the frame, from 0).
    Frame,
    /// One submission of a device that has not presented (`index`: the submission, from 0).
    Submission,
    /// One interlocked pipeline or shader object over the device's life.
    Object,
}

/// One line of the layer's report with the `timing` setting: GPU time measured with the
/// layer's own timestamp queries (schemas/report.schema.json, `kind: timing`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub schema_version: u32,
    pub app: String,
    pub device: String,
    pub kind: TimingKind,
    pub scope: TimingScope,
    /// Frame or submission number, from 0; absent for objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// GPU time of the unit's command buffers, each from its first to its last command, summed
    /// over the submissions (ns); absent for objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_ns: Option<u64>,
    /// GPU time of the command-buffer ranges that drew with an interlocked fragment stage (ns).
    pub interlocked_ns: u64,
    /// How many such ranges were timed.
    pub ranges: u64,
    /// Ranges that drew with interlock but could not be timed (multiview render pass instances,
    /// a command buffer's queries used up inside a render pass instance).
    pub unmeasured: u64,
    /// The interlocked objects drawn with, each with its share.
    pub objects: Vec<TimedObject>,
}

/// An interlocked pipeline or shader object's share of a timing line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedObject {
    /// The device's n-th interlocked object, from 1, in creation order: the same object in two
    /// runs of a deterministic application.
    pub object: u64,
    /// `0x…` of the VkPipeline or VkShaderEXT.
    pub handle: String,
    /// `pipeline` or `shader_object`.
    pub bound: Bound,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    /// The fragment stage's content hash (of what went down to the driver).
    pub stage_hash: Option<String>,
    /// The interlock mode that went down to the driver.
    pub interlock: Interlock,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<AppliedExperiment>,
    pub ns: u64,
    pub ranges: u64,
}

impl TimedObject {
    /// What names the object across runs: its name, else its shader module's name, else its
    /// creation order (the stage hash changes under an experiment).
    pub fn key(&self) -> String {
        match (&self.name, &self.module_name) {
            (Some(n), _) => n.clone(),
            (None, Some(m)) => format!("module '{m}'"),
            (None, None) => format!("object {}", self.object),
        }
    }
}

/// A device-lost line's `kind`: always `device_lost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceLostKind {
    DeviceLost,
}

/// The one line the layer writes when a call on a device first returns VK_ERROR_DEVICE_LOST
/// (schemas/report.schema.json, `kind: device_lost`): the interlocked draws that were on the
/// GPU, or about to be, when the loss was seen. `R` is how the registers are held, as in
/// [`Record`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize + Nullable",
    deserialize = "R: Deserialize<'de> + Default"
))]
pub struct DeviceLost<R = Option<Registers>> {
    pub schema_version: u32,
    pub app: String,
    pub device: String,
    pub kind: DeviceLostKind,
    pub chip: Option<String>,
    /// The command that returned VK_ERROR_DEVICE_LOST (`vkQueueSubmit`, `vkWaitForFences`…).
    pub call: String,
    /// `0x…` of the queue the call concerned; null where it concerned none the layer knows
    /// (vkDeviceWaitIdle, a fence no submission the layer saw signals).
    pub queue: Option<String>,
    /// What the line says, in a sentence: the counts of the lists, or "no interlocked work".
    pub message: String,
    /// The interlocked draws of submissions not known complete when the loss was seen, on every
    /// queue of the device, oldest first: on a real hang the culprit is among them.
    pub in_flight: Vec<LostDraw<R>>,
    /// Those of the submission whose call returned the loss (a driver often notices a loss only
    /// at the next submission).
    pub at_loss: Vec<LostDraw<R>>,
    /// Those of the last submissions known complete on the queue (on every queue where the call
    /// concerned none), oldest first: a job can look complete before the reset is noticed.
    pub recent: Vec<LostDraw<R>>,
    /// Submissions with interlocked draws that were in flight but not kept (over the layer's
    /// bound): their draws are in no list.
    pub not_kept: u64,
    /// The driver's description of the fault (VK_EXT_device_fault), where the device has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<DeviceFault>,
}

/// One draw record's draws in a submission, as a device-lost line lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize + Nullable",
    deserialize = "R: Deserialize<'de> + Default"
))]
pub struct LostDraw<R = Option<Registers>> {
    /// The `id` of the draw record line these draws are.
    pub record: u64,
    /// `0x…` of the queue the submission went to.
    pub queue: String,
    /// The submission's number on the device, from 1 (every vkQueueSubmit and
    /// vkQueueSubmit2 call counts).
    pub submission: u64,
    pub command_buffer: String,
    /// `0x…` of the VkPipeline or VkShaderEXT bound.
    pub handle: String,
    pub bound: Bound,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    pub stage_hash: Option<String>,
    pub interlock: Interlock,
    pub samples: Option<u32>,
    pub chip: Option<String>,
    /// How many draw commands of the command buffer used this state.
    pub draws: u64,
    /// Version 2: the id of the `state` line of the draws' register state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Version 1: the register state, inline (version 2: see `state`).
    #[serde(default, skip_serializing_if = "Nullable::is_null")]
    pub registers: R,
    /// The findings the draw record already had (a missing workaround, …).
    pub diagnostics: Vec<Diagnostic>,
}

/// What VK_EXT_device_fault's vkGetDeviceFaultInfoEXT said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceFault {
    pub description: String,
    pub addresses: Vec<FaultAddress>,
    pub vendor: Vec<FaultVendor>,
    /// Bytes of vendor binary crash dump the driver has (not copied into the report).
    pub vendor_binary_bytes: u64,
}

/// A faulting GPU address (VkDeviceFaultAddressInfoEXT).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultAddress {
    /// The VkDeviceFaultAddressTypeEXT, as the specification names it without prefix
    /// (`READ_INVALID`, `WRITE_INVALID`, `INSTRUCTION_POINTER_FAULT`, …) or its number.
    #[serde(rename = "type")]
    pub kind: String,
    /// `0x…`.
    pub address: String,
    /// The address is exact to within this many bytes (a power of two).
    pub precision: u64,
}

/// A vendor-specific fault (VkDeviceFaultVendorInfoEXT).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultVendor {
    pub description: String,
    pub code: u64,
    pub data: u64,
}

/// A state line's `kind`: always `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateKind {
    State,
}

/// Version 2: one distinct register state, written once per report before the first line that
/// refers to it (schemas/report.schema.json, `kind: state`). `R` is how the registers are held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State<R = Registers> {
    pub schema_version: u32,
    pub kind: StateKind,
    /// What records call it: 16 hex digits, a hash of the registers (the same state has the
    /// same id in every process and report).
    pub state: String,
    pub chip: Option<String>,
    pub registers: R,
    /// The PM4 words programming `registers`.
    pub pm4: Arc<[u32]>,
}

/// A counts line's `kind`: always `counts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountsKind {
    Counts,
}

/// Version 2: the totals of draw records that command buffers recorded again have added to
/// since they were written (schemas/report.schema.json, `kind: counts`). Written at most about
/// once a second while totals change, and when a device or the process ends; a later line's
/// totals replace an earlier one's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub schema_version: u32,
    pub app: String,
    pub kind: CountsKind,
    pub records: Vec<Count>,
}

/// One draw record's totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// The `id` of the draw record line (of the same `app`).
    pub record: u64,
    /// Draw commands with its state, over every command buffer recording.
    pub draws: u64,
    /// Command buffer recordings.
    pub command_buffers: u64,
}

/// Any line of the layer's report, as written (version 2 records refer to state lines; see
/// [`read`] for lines with their registers resolved).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Line {
    Timing(Timing),
    DeviceLost(Box<DeviceLost>),
    State(Box<State>),
    Counts(Counts),
    Record(Box<Record>),
}

/// Why one field holds its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub register: String,
    pub field: String,
    pub reason: String,
}

/// Assumptions about registers the kernel owns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelAssumptions {
    pub force_vrs_rate_fine_pops: bool,
}

/// The out-of-order rasterization decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutOfOrder {
    pub enabled: bool,
    pub reason: String,
}

/// `pops state --json`: everything a driver needs for one POPS draw on one chip.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateDocument {
    pub chip: String,
    pub gfx_level: String,
    pub interlock: Interlock,
    pub samples: u32,
    pub registers: Registers,
    pub pm4: Vec<u32>,
    /// The Vulkan features under their member names.
    pub features: BTreeMap<String, bool>,
    pub kernel_assumptions: KernelAssumptions,
    pub diagnostics: Vec<Diagnostic>,
    pub reasons: Vec<Reason>,
    pub out_of_order_rasterization: OutOfOrder,
}

/// The Vulkan features of a state under their member names.
pub fn features(f: &pm4::pops::Features) -> BTreeMap<String, bool> {
    [
        (
            "fragmentShaderPixelInterlock",
            f.fragment_shader_pixel_interlock,
        ),
        (
            "fragmentShaderSampleInterlock",
            f.fragment_shader_sample_interlock,
        ),
        (
            "fragmentShaderShadingRateInterlock",
            f.fragment_shader_shading_rate_interlock,
        ),
        (
            "fragmentShadingRateWithFragmentShaderInterlock",
            f.fragment_shading_rate_with_fragment_shader_interlock,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

impl StateDocument {
    /// The document of `st`, with `pm4` the stream the caller emitted for it (this crate
    /// describes documents; emitting PM4 is `pm4::pops::emit`'s).
    pub fn from_state(st: &PopsState, pm4: Vec<u32>) -> StateDocument {
        StateDocument {
            chip: st.family.name().to_string(),
            gfx_level: st.level.name().to_string(),
            interlock: Interlock::of(st.interlock.mode),
            samples: st.draw.rasterization_samples,
            registers: registers(st),
            pm4,
            features: features(&st.features),
            kernel_assumptions: KernelAssumptions {
                force_vrs_rate_fine_pops: st.kernel.force_vrs_rate_fine_pops,
            },
            diagnostics: diagnostics(st),
            reasons: st
                .reasons
                .iter()
                .map(|r| Reason {
                    register: r.reg.name().to_string(),
                    field: r.field.name().to_string(),
                    reason: r.text.to_string(),
                })
                .collect(),
            out_of_order_rasterization: OutOfOrder {
                enabled: st.out_of_order.enabled,
                reason: st.out_of_order.reason.to_string(),
            },
        }
    }
}

/// One register write of a decoded packet; `register` null where the address is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    pub register: Option<String>,
    pub address: u32,
    pub value: u32,
    pub fields: BTreeMap<String, u64>,
}

/// One decoded packet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    pub index: usize,
    pub opcode: String,
    pub dwords: usize,
    pub writes: Vec<Write>,
}

/// `pops decode --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeDocument {
    pub gfx_level: String,
    pub packets: Vec<Packet>,
}

impl DecodeDocument {
    pub fn from_decoded(d: &pm4::decode::Decoded) -> DecodeDocument {
        DecodeDocument {
            gfx_level: d.level.name().to_string(),
            packets: d
                .packets
                .iter()
                .map(|p| Packet {
                    index: p.index,
                    opcode: p.opcode.name().to_string(),
                    dwords: p.dwords,
                    writes: p
                        .writes
                        .iter()
                        .map(|w| Write {
                            register: w.name().map(str::to_string),
                            address: w.address,
                            value: w.value,
                            fields: w
                                .fields()
                                .map(|(f, v)| (f.name().to_string(), u64::from(v)))
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pm4::pops::{derive, DrawState, Experiments, InterlockDesc};
    use pm4::{Family, Reg};

    fn raven_8x() -> PopsState {
        derive(
            Family::Raven,
            &InterlockDesc::with_mode(Some("sample-ordered".parse().unwrap())),
            &DrawState {
                rasterization_samples: 8,
                ..DrawState::default()
            },
            &Experiments::default(),
        )
        .unwrap()
    }

    /// Every field of every register, with its address and value, and the decided fields.
    #[test]
    fn registers_list_every_field_with_address_and_value() {
        let st = raven_8x();
        let regs = registers(&st);
        let dsc = &regs["DB_SHADER_CONTROL"];
        let desc = st.register(Reg::DB_SHADER_CONTROL).unwrap();
        assert_eq!(dsc.address, desc.desc.address);
        assert_eq!(dsc.value, desc.value);
        assert_eq!(dsc.fields["PRIMITIVE_ORDERED_PIXEL_SHADER"], 1);
        assert_eq!(dsc.fields["POPS_OVERLAP_NUM_SAMPLES"], 3);
        assert_eq!(dsc.fields.len(), desc.desc.fields.len());
        assert!(dsc.decided.iter().any(|f| f == "POPS_OVERLAP_NUM_SAMPLES"));
    }

    /// The documents survive a round trip through JSON: what is written is what is read.
    #[test]
    fn documents_round_trip() {
        let st = raven_8x();
        let doc = StateDocument::from_state(&st, pm4::pops::emit(&st));
        let text = serde_json::to_string(&doc).unwrap();
        assert_eq!(serde_json::from_str::<StateDocument>(&text).unwrap(), doc);
        assert!(text.contains("\"severity\":\"warning\"") || doc.diagnostics.is_empty());
        let rec: Record = Record {
            schema_version: SCHEMA_VERSION,
            id: 1,
            app: "a".into(),
            device: "d".into(),
            kind: Kind::Draw,
            handle: "0x1".into(),
            entry_point: "main".into(),
            stage_hash: None,
            interlock: Interlock::Mode("sample-ordered".parse().unwrap()),
            begin_count: 1,
            end_count: 1,
            per_sample: true,
            samples: Some(8),
            chip: Some("raven".into()),
            state: None,
            registers: Some(registers(&st)),
            pm4: pm4::pops::emit(&st).into(),
            diagnostics: diagnostics(&st),
            source: Source::ShaderModule,
            command_buffer: Some("0x2".into()),
            bound: Some(Bound::Pipeline),
            object: Some(3),
            draws: Some(3),
            command_buffers: None,
            name: None,
            module_name: Some("oit.frag".into()),
            fossilize_module: Some("1c2c72731e23855c".into()),
            null_device: Some("RADV null hardware (RADV_FORCE_FAMILY=raven)".into()),
            driver: None,
            experiment: None,
        };
        let line = serde_json::to_string(&rec).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), rec);
        assert!(
            line.starts_with("{\"schema_version\":2,\"id\":1,"),
            "{line}"
        );
        assert!(
            !line.contains("\"name\""),
            "absent optional fields are left out"
        );
    }
}

/// The schema's closed sets are exactly these types' values: the schema is checked against the
/// types, so the two cannot drift apart.
#[cfg(test)]
mod schema {
    use super::*;
    use serde_json::Value;

    fn schema() -> Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/report.schema.json");
        serde_json::from_str(&std::fs::read_to_string(path).expect("the report schema"))
            .expect("the schema is JSON")
    }

    fn enum_at(s: &Value, pointer: &str) -> Vec<String> {
        s.pointer(pointer)
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("no enum at {pointer}"))
            .iter()
            .map(|v| v.as_str().expect("string values").to_string())
            .collect()
    }

    fn names<T: Serialize>(all: &[T]) -> Vec<String> {
        all.iter()
            .map(|v| match serde_json::to_value(v).expect("serialises") {
                Value::String(s) => s,
                other => panic!("not a string: {other}"),
            })
            .collect()
    }

    #[test]
    fn closed_sets_are_the_types_values() {
        let s = schema();
        assert_eq!(
            enum_at(&s, "/$defs/record/properties/interlock/enum"),
            names(&Interlock::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/record/properties/source/enum"),
            names(&Source::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/record/properties/bound/enum"),
            names(&Bound::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/record/properties/kind/enum"),
            names(&[
                Kind::Pipeline,
                Kind::Library,
                Kind::ShaderObject,
                Kind::Draw
            ])
        );
        assert_eq!(
            enum_at(
                &s,
                "/$defs/record/properties/experiment/properties/name/enum"
            ),
            names(&ExperimentName::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/timed_object/properties/interlock/enum"),
            names(&Interlock::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/timed_object/properties/bound/enum"),
            names(&Bound::ALL)
        );
        assert_eq!(
            enum_at(
                &s,
                "/$defs/timed_object/properties/experiment/properties/name/enum"
            ),
            names(&ExperimentName::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/lost_draw/properties/interlock/enum"),
            names(&Interlock::ALL)
        );
        assert_eq!(
            enum_at(&s, "/$defs/lost_draw/properties/bound/enum"),
            names(&Bound::ALL)
        );
        assert_eq!(
            s.pointer("/$defs/device_lost/properties/kind/const"),
            Some(&serde_json::to_value(DeviceLostKind::DeviceLost).unwrap())
        );
        assert_eq!(
            enum_at(&s, "/$defs/timing/properties/scope/enum"),
            names(&[
                TimingScope::Frame,
                TimingScope::Submission,
                TimingScope::Object
            ])
        );
        assert_eq!(
            enum_at(&s, "/$defs/diagnostic/properties/severity/enum"),
            names(&[Severity::Info, Severity::Warning, Severity::Error])
        );
    }

    /// A value outside a closed set is refused by name, not taken as text.
    #[test]
    fn values_outside_the_sets_are_refused() {
        assert_eq!(
            serde_json::from_str::<Interlock>("\"pixel-ordered\"").unwrap(),
            Interlock::Mode("pixel-ordered".parse().unwrap())
        );
        let e = serde_json::from_str::<Interlock>("\"pixel\"").unwrap_err();
        assert!(
            e.to_string().contains("interlock \"pixel\" is not one of"),
            "{e}"
        );
        assert!(serde_json::from_str::<Source>("\"spirv\"").is_err());
        assert!(serde_json::from_str::<Bound>("\"library\"").is_err());
        let c: ModeChange = serde_json::from_str("\"pixel-ordered -> none\"").unwrap();
        assert_eq!((c.from.name(), c.to), ("pixel-ordered", None));
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            "\"pixel-ordered -> none\""
        );
        assert!(serde_json::from_str::<ModeChange>("\"pixel-ordered -> unknown\"").is_err());
        assert!(serde_json::from_str::<ModeChange>("\"pixel-ordered\"").is_err());
    }
}

/// `pops verify-isa --json`: the verification of one fragment shader's machine code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyIsaDocument {
    pub chip: String,
    pub gfx_level: String,
    /// What the input was: `RADV/ACO assembly`, `LLVM disassembly` or `raw code words`.
    pub input: String,
    pub instructions: usize,
    /// Each exit some path reaches: byte address and `s_endpgm`, `s_endpgm_ordered_ps_done`
    /// or `epilog` (a jump into a PS epilog, which does the exports).
    pub exits: Vec<IsaExit>,
    /// The first byte address of each wait loop.
    pub wait_loops: Vec<u32>,
    /// The entry sequence run in the ordering model.
    pub model: IsaModel,
    pub findings: Vec<IsaFinding>,
    /// With `--compile`: the driver and version that compiled the code (`radv (Mesa 26.2.6-1)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled_by: Option<String>,
    /// Where the PS epilog's code was verified with the shader's: the address its code was
    /// placed at (an address from here on is `epilog_base` + its offset in the epilog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epilog_base: Option<u32>,
}

/// `pops verify-isa --json` over many inputs: each input's verification in the order given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyIsaBatchDocument {
    pub chip: String,
    pub inputs: Vec<VerifyIsaBatchInput>,
}

/// One input of many: its verification, or why it was not read or compiled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyIsaBatchInput {
    /// The file as given (or found in a folder given).
    pub file: String,
    /// What one input's exit status would be: 0 clean, 1 a finding, 2 not read or compiled,
    /// 3 the rules hold but the model could not run the entry sequence (not verified).
    pub status: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<VerifyIsaDocument>,
    /// Why the input was not read (not code, not the chip's) or, with `--compile`, not compiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_read: Option<String>,
}

/// The driver's entry sequence run in pops' ordering model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsaModel {
    pub runs: usize,
    pub waves: usize,
    pub wraps: usize,
    pub overlapped_waves: usize,
    pub entry_instructions: usize,
    /// Instructions of the entry not run (vector ALU, scalar memory, pacing, scalar results
    /// nothing the model observes reads), as `0xADDR: text`.
    pub skipped: Vec<String>,
    /// Why the model rejected the entry sequence, if it did.
    pub finding: Option<String>,
    /// Why the entry sequence could not be run in the model (an instruction it does not
    /// interpret): the ordering is then not verified, which is no finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_verified: Option<String>,
}

/// An exit of the verified code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsaExit {
    pub addr: u32,
    pub kind: String,
}

/// One broken rule of the verified code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsaFinding {
    /// Stable kebab-case name of the rule.
    pub rule: String,
    /// The finding's code as the layer's records, `pops report` and `pops replay` name it:
    /// `isa-` and the rule's name.
    #[serde(default)]
    pub code: String,
    /// The known driver defect that explains it on this chip and driver (`docs/defects.md`), or
    /// none: a new finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_defect: Option<String>,
    /// The article's sentence the rule checks.
    pub sentence: String,
    pub addr: u32,
    pub instruction: String,
    pub message: String,
    /// A path reaching it: the entry, then each byte address control jumped to.
    pub path: Vec<u32>,
    /// The smallest part of that path that shows it: the memory accesses still outstanding,
    /// the jump into the PS epilog, and the instruction itself.
    #[serde(default)]
    pub excerpt: Vec<IsaLine>,
}

/// One instruction of verified code: its byte address and text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsaLine {
    pub addr: u32,
    pub instruction: String,
}
