//! What the layer keeps of one instance: its settings, the next layer's functions, the
//! application's debug-utils messengers and the instance's health, all shared with its devices.

use crate::boundary::Health;
use crate::messenger::Messengers;
use crate::next::InstanceNext;
use crate::settings::Settings;
use ash::vk;
use std::sync::Arc;

pub struct Instance {
    pub handle: vk::Instance,
    pub next_gipa: vk::PFN_vkGetInstanceProcAddr,
    pub next: InstanceNext,
    pub settings: Settings,
    /// The application's name (VkApplicationInfo, else the executable's).
    pub app: String,
    /// The application's debug-utils messengers, shared with the instance's devices.
    pub messengers: Arc<Messengers>,
    /// Whether the layer still works for this instance, shared with its devices.
    pub health: Arc<Health>,
    /// Whether the application's instance has vkGetPhysicalDeviceFeatures2 (Vulkan 1.1, or
    /// VK_KHR_get_physical_device_properties2 enabled): what the device extensions the layer
    /// may enable for itself (VK_EXT_device_fault) depend on.
    pub properties2: bool,
}
