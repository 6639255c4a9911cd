//! The JSON documents pops writes and reads, defined once as serde types: the layer's report
//! lines ([`Record`], schemas/report.schema.json), `pops state --json` ([`StateDocument`]) and
//! `pops decode --json` ([`DecodeDocument`]), with the register shape ([`Register`]) and
//! diagnostics ([`Diagnostic`]) they share. The layer serialises them, `pops run` and
//! `pops report` deserialise them; nothing else builds or parses these documents by hand.

use pm4::pops::PopsState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use pm4::pops::Severity;

/// The version of schemas/report.schema.json that [`Record`] follows.
pub const SCHEMA_VERSION: u32 = 1;

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable kebab-case identifier.
    pub code: String,
    pub message: String,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code: code.to_string(),
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
        .map(|d| Diagnostic::new(d.severity, d.code, d.message.clone()))
        .collect()
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

/// One line of the layer's report (schemas/report.schema.json). `R` is how the registers are
/// held: parsed ([`Registers`], the default, for readers) or, in the layer, JSON built once per
/// distinct state and shared by every line that has it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    pub interlock: String,
    pub begin_count: u32,
    pub end_count: u32,
    pub per_sample: bool,
    /// Rasterization samples; null where dynamic or not part of the object.
    pub samples: Option<u32>,
    pub chip: Option<String>,
    /// The register state; null without a chip or interlock.
    pub registers: R,
    /// The PM4 words programming `registers`.
    pub pm4: Arc<[u32]>,
    pub diagnostics: Vec<Diagnostic>,
    /// Where the fragment SPIR-V came from.
    pub source: String,
    /// Draw lines: `0x…` of the command buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_buffer: Option<String>,
    /// Draw lines: what was bound, `pipeline` or `shader_object`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    /// Draw lines: how many draw commands used this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
    /// The application's name of the object, where it had one when the line was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The application's name of the shader module the fragment stage came from, where it had
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    /// The interlock experiment the layer applied to the fragment stage, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<Experiment>,
}

/// An interlock experiment the layer applied to the object's fragment stage (the `experiment`
/// setting): its name and each mode change, `"pixel-ordered -> sample-ordered"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Experiment {
    pub name: String,
    pub changes: Vec<String>,
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
    pub bound: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_name: Option<String>,
    /// The fragment stage's content hash (of what went down to the driver).
    pub stage_hash: Option<String>,
    /// The interlock mode that went down to the driver.
    pub interlock: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<Experiment>,
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

/// Any line of the layer's report.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Line {
    Timing(Timing),
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
    pub interlock: String,
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
    pub fn from_state(st: &PopsState) -> StateDocument {
        StateDocument {
            chip: st.family.name().to_string(),
            gfx_level: st.level.name().to_string(),
            interlock: st.interlock.mode.map_or("none", |m| m.name()).to_string(),
            samples: st.draw.rasterization_samples,
            registers: registers(st),
            pm4: pm4::pops::emit(st),
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
        let doc = StateDocument::from_state(&st);
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
            interlock: "sample-ordered".into(),
            begin_count: 1,
            end_count: 1,
            per_sample: true,
            samples: Some(8),
            chip: Some("raven".into()),
            registers: Some(registers(&st)),
            pm4: pm4::pops::emit(&st).into(),
            diagnostics: diagnostics(&st),
            source: "shader_module".into(),
            command_buffer: Some("0x2".into()),
            bound: Some("pipeline".into()),
            draws: Some(3),
            name: None,
            module_name: Some("oit.frag".into()),
            experiment: None,
        };
        let line = serde_json::to_string(&rec).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), rec);
        assert!(
            line.starts_with("{\"schema_version\":1,\"id\":1,"),
            "{line}"
        );
        assert!(
            !line.contains("\"name\""),
            "absent optional fields are left out"
        );
    }
}
