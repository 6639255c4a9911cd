//! What the layer keeps of one device: what it is (name, chip, the interlock features the
//! application enabled), the next layer's functions, and the stores that own its state — each
//! behind its own lock, taken only inside the store's methods.

use crate::boundary::Health;
use crate::messenger::Messengers;
use crate::model::analysis::InterlockFeatures;
use crate::model::experiment::Active;
use crate::next::Next;
use crate::settings::Settings;
use crate::stores::{
    Attachments, Modules, Objects, Recordings, RenderPasses, Stats, Submissions, Timing,
    VerdictStore,
};
use ash::vk;
use pm4::Family;
use std::sync::Arc;

pub struct Device {
    pub handle: vk::Device,
    /// The loader's dispatch key of the device (and of its queues and command buffers).
    pub key: usize,
    pub next_gdpa: vk::PFN_vkGetDeviceProcAddr,
    pub next: Next,
    pub device_name: String,
    /// The driver and its release, `driverName (driverInfo)` (`radv (Mesa 26.2.6-1)`), where the
    /// device says (VkPhysicalDeviceDriverProperties): findings are matched against the known
    /// driver defects with it.
    pub driver: Option<String>,
    pub app: String,
    pub chip: Option<Family>,
    /// Where the device executes nothing, what it is (RADV's null hardware, a drm-shim): every
    /// record says so, and `pops report` and its page say nothing was rendered.
    pub null_device: Option<String>,
    pub features: InterlockFeatures,
    pub settings: Settings,
    /// Shader modules and their analyses.
    pub modules: Modules,
    /// Interlocked pipelines and shader objects, pipeline libraries, and the application's names.
    pub objects: Objects,
    /// Render passes: the attachments each subpass uses.
    pub passes: RenderPasses,
    /// Attachment images and views: their formats and sample counts.
    pub attachments: Attachments,
    /// Command buffers' recording states.
    pub recordings: Recordings,
    pub stats: Stats,
    /// The instance's debug-utils messengers.
    pub messengers: Arc<Messengers>,
    /// The instance's health: a panic in the layer's work degrades the instance.
    pub health: Arc<Health>,
    /// The interlock experiment this device runs (the `experiment` setting), if any.
    pub experiment: Option<Active>,
    /// GPU time of interlocked work (the `timing` setting), where the device allows it.
    pub timing: Option<Timing>,
    /// What was submitted and not yet known complete, for the report of a device loss.
    pub submissions: Submissions,
    /// vkGetDeviceFaultInfoEXT, where VK_EXT_device_fault's deviceFault is enabled (by the
    /// application or by the layer).
    pub fault_info: Option<vk::PFN_vkGetDeviceFaultInfoEXT>,
    /// The driver's code of pipelines (the `verify_isa` setting), where VK_KHR_pipeline_
    /// executable_properties' pipelineExecutableInfo is enabled.
    pub isa: Option<Executables>,
    /// The `verify_isa` verdicts by pipeline key, where [`Executables::pipeline_key`] is there.
    pub verdicts: VerdictStore,
    /// Where the code of pipelines seen for the first time is verified (`verify_isa`).
    pub verifier: crate::background::Verifier,
    /// The records of the device's objects, in creation order, held back while a verdict they
    /// wait for is being reached.
    pub outbox: crate::background::Outbox<Device>,
    /// Findings of records the verifier's thread wrote, for the application's debug-utils
    /// messengers: told on the application's next call into the layer, never from the layer's
    /// own thread (`records::tell_messengers`).
    pub held_messages: parking_lot::Mutex<Vec<(u64, Arc<crate::model::record::Record>)>>,
}

/// VK_KHR_pipeline_executable_properties' queries, next layer's.
#[derive(Clone, Copy)]
pub struct Executables {
    pub properties: vk::PFN_vkGetPipelineExecutablePropertiesKHR,
    pub representations: vk::PFN_vkGetPipelineExecutableInternalRepresentationsKHR,
    /// vkGetPipelineKeyKHR, where VK_KHR_pipeline_binary's pipelineBinaries is enabled: the key
    /// under which a verdict is kept.
    pub pipeline_key: Option<crate::ffi::PFN_vkGetPipelineKeyKHR>,
    /// VK_KHR_pipeline_binary's binaries of a created pipeline, where its key is asked for too:
    /// the code of a pipeline seen for the first time read from its binary instead of printed
    /// by the driver.
    pub binaries: Option<BinaryCalls>,
}

/// vkCreatePipelineBinariesKHR, vkGetPipelineBinaryDataKHR, vkDestroyPipelineBinaryKHR, next
/// layer's.
#[derive(Clone, Copy)]
pub struct BinaryCalls {
    pub create: crate::ffi::PFN_vkCreatePipelineBinariesKHR,
    pub data: crate::ffi::PFN_vkGetPipelineBinaryDataKHR,
    pub destroy: crate::ffi::PFN_vkDestroyPipelineBinaryKHR,
}

impl Device {
    /// The timing, while the device is not lost: on a lost device the layer records and reads
    /// no more queries of its own.
    pub fn timing(&self) -> Option<&Timing> {
        self.timing.as_ref().filter(|_| !self.submissions.is_lost())
    }
}
