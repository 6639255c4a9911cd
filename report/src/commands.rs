//! The `--json` documents of the commands that describe things pops knows or finds — `pops
//! chips`, `pops isa`, `pops lint`, `pops inspect`, `pops devices` — as serde types: each command
//! fills one, scripts and the tests read it back, and the key names (part of the command-line
//! interface) are written in one place.

use serde::{Deserialize, Serialize};

/// One chip of `pops chips --json` (a JSON array of them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChipRow {
    pub family: String,
    pub gfx_level: String,
    pub llvm_processor: String,
    pub quirks: ChipQuirks,
}

/// The POPS workarounds and switches of a chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChipQuirks {
    pub pops_missed_overlap: bool,
    pub stalled_pops_mode: bool,
    pub out_of_order_rast: bool,
}

/// `pops isa --json`: the ordered section's entry and exit sequences for one chip.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsaDocument {
    pub chip: String,
    pub gfx_level: String,
    pub llvm_processor: String,
    pub wave64: bool,
    pub intrawave: bool,
    pub collision_sgpr: u8,
    pub intrawave_sgpr: u8,
    pub scratch_sgprs: u8,
    pub scratch_count: u8,
    /// The encoded words of each sequence.
    pub enter: Vec<u32>,
    pub exit: Vec<u32>,
    /// Each instruction of the sequence, as text.
    pub enter_text: Vec<String>,
    pub exit_text: Vec<String>,
}

/// `pops lint --json`: an IB checked as the kernel and the CP read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintDocument {
    pub gfx_level: String,
    pub dwords: usize,
    pub packets: usize,
    pub register_writes: usize,
    pub ok: bool,
    pub violations: Vec<LintViolation>,
}

/// One violation `pops lint` found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintViolation {
    /// Dword index of the packet's header.
    pub index: usize,
    /// Dword index of the offending dword.
    pub dword: usize,
    /// The packet's opcode name (`?` where the header is no known type-3 header).
    pub packet: String,
    /// Stable kebab-case identifier of the kind of violation.
    pub code: String,
    /// The register address it is about, where there is one.
    pub address: Option<u32>,
    pub message: String,
}

/// `pops inspect --json`: a SPIR-V module's entry points and their interlock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectDocument {
    /// `MAJOR.MINOR`.
    pub spirv_version: String,
    pub bound: u32,
    pub entry_points: Vec<InspectedEntryPoint>,
}

/// One entry point of `pops inspect --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InspectedEntryPoint {
    pub name: String,
    /// The stage hash the layer reports for a stage made from this module and entry point
    /// (no specialization constants).
    pub stage_hash: String,
    pub execution_model: String,
    pub function: u32,
    /// A mode as `pops state` spells it, or `none`.
    pub interlock: String,
    pub begin_count: u32,
    pub end_count: u32,
    pub begin_in_divergent_control_flow: bool,
    pub end_in_divergent_control_flow: bool,
    pub per_sample: bool,
    pub writes_memory: bool,
    pub accesses_memory: bool,
    pub has_color_output: bool,
    pub early_fragment_tests: bool,
    pub reads_sample_mask: bool,
    pub interlock_sites: Vec<InterlockSite>,
}

/// One OpBeginInvocationInterlockEXT or OpEndInvocationInterlockEXT.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterlockSite {
    /// `begin` or `end`.
    pub instruction: String,
    pub function: u32,
    pub function_name: Option<String>,
    pub divergent: bool,
    pub paths: u32,
    /// The instruction's word offset in the module.
    pub word: usize,
}

/// `pops devices --json`: the amdgpu GPUs of the machine's render nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevicesDocument {
    pub devices: Vec<Device>,
    /// Render nodes that are not a usable amdgpu GPU, with why.
    pub skipped: Vec<SkippedNode>,
    /// Why there is no device, where there is none.
    pub message: Option<String>,
}

/// One amdgpu GPU as the kernel describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    pub render_node: Option<String>,
    pub family: String,
    pub gfx_level: String,
    pub llvm_processor: String,
    pub asic: String,
    pub marketing_name: Option<String>,
    pub pci_bus: Option<String>,
    /// `1002:DEVICE`.
    pub pci_id: Option<String>,
    pub pci_revision: Option<u32>,
    pub shader_engines: u32,
    pub me_firmware: Option<Firmware>,
    pub pfp_firmware: Option<Firmware>,
    pub ib_pad_dwords: u32,
    pub ib_start_alignment: u32,
    /// `MAJOR.MINOR.PATCH` of the kernel driver.
    pub drm_version: Option<String>,
    pub gpu_counter_freq_khz: Option<u64>,
    /// The chip's POPS workarounds and switches, by name.
    pub quirks: Vec<String>,
}

/// A firmware's version and feature level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Firmware {
    pub version: u32,
    pub feature: u32,
}

/// A render node that is not a usable amdgpu GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedNode {
    pub render_node: String,
    pub reason: String,
}
