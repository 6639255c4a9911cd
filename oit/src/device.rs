//! Instance, physical device choice and logical device: what the device can do decides which
//! combinations run.

use ash::vk;
use std::ffi::{CStr, CString};

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("cannot load the Vulkan loader (libvulkan.so.1): {0}")]
    Loader(#[from] ash::LoadingError),
    #[error("Vulkan call {call} failed: {result}")]
    Vk {
        call: &'static str,
        result: vk::Result,
    },
    #[error("no Vulkan device found")]
    NoDevice,
    #[error("--device {index}: only {count} Vulkan device(s) found")]
    BadIndex { index: usize, count: usize },
    #[error("device '{name}' lacks Vulkan 1.3, dynamic rendering, synchronization2 or fragmentStoresAndAtomics, which every algorithm needs")]
    Unsuitable { name: String },
}

pub fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> DeviceError {
    move |result| DeviceError::Vk { call, result }
}

/// What a device offers that the combinations need.
#[derive(Clone, Debug, Default)]
pub struct Caps {
    pub name: String,
    pub driver: String,
    pub device_type: String,
    pub api_1_3: bool,
    pub dynamic_rendering: bool,
    pub synchronization2: bool,
    pub fragment_stores: bool,
    pub interlock_extension: bool,
    /// VK_EXT_extended_dynamic_state3's rasterizationSamples: the `--dynamic` path.
    pub dynamic_samples: bool,
    /// VK_EXT_extended_dynamic_state3's colorBlendEnable, colorBlendEquation and colorWriteMask:
    /// the `--dynamic-blend` path.
    pub dynamic_blend: bool,
    /// VK_EXT_shader_object's shaderObject: the `--shader-objects` path.
    pub shader_object: bool,
    /// VK_EXT_graphics_pipeline_library's graphicsPipelineLibrary: the `--libraries` path.
    pub libraries: bool,
    pub pixel_interlock: bool,
    pub sample_interlock: bool,
    pub shading_rate_interlock: bool,
    pub sample_rate_shading: bool,
    pub color_sample_counts: vk::SampleCountFlags,
    pub standard_sample_locations: bool,
    pub sub_pixel_precision_bits: u32,
    pub timestamp_period_ns: f32,
    pub timestamp_valid_bits: u32,
    pub queue_family: u32,
}

impl Caps {
    pub fn basic_ok(&self) -> bool {
        self.api_1_3 && self.dynamic_rendering && self.synchronization2 && self.fragment_stores
    }
    pub fn any_interlock(&self) -> bool {
        self.pixel_interlock || self.sample_interlock
    }
    pub fn supports_samples(&self, n: u32) -> bool {
        self.color_sample_counts
            .contains(vk::SampleCountFlags::from_raw(n))
    }
}

pub struct Gpu {
    /// Keeps the loader library loaded while the device lives.
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub caps: Caps,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub index: usize,
    /// `--dynamic`: pipelines take their rasterization sample count at draw time
    /// (VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT), set in the command buffer.
    pub dynamic_samples: bool,
    /// `--dynamic-blend`: pipelines take their colour blend enable, equation and write mask at
    /// draw time (VK_EXT_extended_dynamic_state3), so that RADV compiles their exports into a PS
    /// epilog, as for engines and translation layers that set blending in the command buffer.
    pub dynamic_blend: bool,
    /// The extension's commands, where the device has it.
    pub eds3: Option<ash::ext::extended_dynamic_state3::Device>,
    /// `--libraries`: each pipeline is linked, without link-time optimisation, from four graphics
    /// pipeline libraries (vertex input, pre-rasterization, fragment shader, fragment output), as
    /// DXVK, vkd3d-proton and Zink build them first: RADV then compiles the exports into a PS
    /// epilog.
    pub libraries: bool,
    /// `--shader-objects`: draws use shader objects (VK_EXT_shader_object) instead of pipelines,
    /// every state set in the command buffer.
    pub shader_objects: bool,
    /// VK_EXT_shader_object's commands, where the device has it.
    pub so: Option<ash::ext::shader_object::Device>,
    /// False for devices that cannot execute (RADV null hardware crashes in vkDeviceWaitIdle):
    /// nothing was submitted, so there is nothing to wait for.
    pub executes: bool,
    /// VK_EXT_debug_utils' commands, where the instance has the extension: every pipeline and
    /// shader object is named after its combination and pass, the names tools such as
    /// VK_LAYER_POPS_interlock, RenderDoc and validation messages show.
    debug_utils: Option<ash::ext::debug_utils::Device>,
}

fn cstr_field(raw: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan fills these fixed arrays with NUL-terminated strings.
    unsafe { CStr::from_ptr(raw.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn query_caps(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Result<Caps, DeviceError> {
    // SAFETY: `pd` comes from this instance; the chained structs live until the calls return.
    unsafe {
        let props = instance.get_physical_device_properties(pd);
        let exts = instance
            .enumerate_device_extension_properties(pd)
            .map_err(vk_err("vkEnumerateDeviceExtensionProperties"))?;
        let has_ext = |name: &CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
        let interlock_extension = has_ext(ash::ext::fragment_shader_interlock::NAME);
        let eds3_extension = has_ext(ash::ext::extended_dynamic_state3::NAME);
        let shader_object_extension = has_ext(ash::ext::shader_object::NAME);
        let gpl_extension = has_ext(ash::ext::graphics_pipeline_library::NAME)
            && has_ext(ash::khr::pipeline_library::NAME);

        let mut il = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default();
        let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default();
        let mut so = vk::PhysicalDeviceShaderObjectFeaturesEXT::default();
        let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut v13);
        if interlock_extension {
            f2 = f2.push_next(&mut il);
        }
        if eds3_extension {
            f2 = f2.push_next(&mut eds3);
        }
        if shader_object_extension {
            f2 = f2.push_next(&mut so);
        }
        if gpl_extension {
            f2 = f2.push_next(&mut gpl);
        }
        instance.get_physical_device_features2(pd, &mut f2);
        let features = f2.features;

        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
        instance.get_physical_device_properties2(pd, &mut p2);

        let families = instance.get_physical_device_queue_family_properties(pd);
        let (queue_family, valid_bits) = families
            .iter()
            .enumerate()
            .find(|(_, f)| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .map(|(i, f)| (i as u32, f.timestamp_valid_bits))
            .unwrap_or((u32::MAX, 0));

        let limits = props.limits;
        Ok(Caps {
            name: cstr_field(&props.device_name),
            driver: format!(
                "{} {}",
                cstr_field(&driver.driver_name),
                cstr_field(&driver.driver_info)
            ),
            device_type: format!("{:?}", props.device_type),
            api_1_3: props.api_version >= vk::API_VERSION_1_3 && queue_family != u32::MAX,
            dynamic_rendering: v13.dynamic_rendering == vk::TRUE,
            synchronization2: v13.synchronization2 == vk::TRUE,
            fragment_stores: features.fragment_stores_and_atomics == vk::TRUE,
            interlock_extension,
            dynamic_samples: eds3_extension
                && eds3.extended_dynamic_state3_rasterization_samples == vk::TRUE,
            dynamic_blend: eds3_extension
                && eds3.extended_dynamic_state3_color_blend_enable == vk::TRUE
                && eds3.extended_dynamic_state3_color_blend_equation == vk::TRUE
                && eds3.extended_dynamic_state3_color_write_mask == vk::TRUE,
            shader_object: shader_object_extension && so.shader_object == vk::TRUE,
            libraries: gpl_extension && gpl.graphics_pipeline_library == vk::TRUE,
            pixel_interlock: il.fragment_shader_pixel_interlock == vk::TRUE,
            sample_interlock: il.fragment_shader_sample_interlock == vk::TRUE,
            shading_rate_interlock: il.fragment_shader_shading_rate_interlock == vk::TRUE,
            sample_rate_shading: features.sample_rate_shading == vk::TRUE,
            color_sample_counts: limits.framebuffer_color_sample_counts
                & limits.sampled_image_color_sample_counts,
            standard_sample_locations: limits.standard_sample_locations == vk::TRUE,
            sub_pixel_precision_bits: limits.sub_pixel_precision_bits,
            timestamp_period_ns: limits.timestamp_period,
            timestamp_valid_bits: if limits.timestamp_compute_and_graphics == vk::TRUE {
                valid_bits
            } else {
                0
            },
            queue_family,
        })
    }
}

fn create_instance(entry: &ash::Entry, validate: bool) -> Result<ash::Instance, DeviceError> {
    let app = CString::new("pops-oit").unwrap_or_default();
    let app_info = vk::ApplicationInfo::default()
        .application_name(&app)
        .engine_name(&app)
        .api_version(vk::API_VERSION_1_3);
    let validation = c"VK_LAYER_KHRONOS_validation";
    let layers = if validate {
        vec![validation.as_ptr()]
    } else {
        vec![]
    };
    let exts = if has_debug_utils(entry) {
        vec![ash::ext::debug_utils::NAME.as_ptr()]
    } else {
        vec![]
    };
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&exts);
    // SAFETY: `info` and everything it points to outlive the call.
    unsafe { entry.create_instance(&info, None) }.map_err(vk_err("vkCreateInstance"))
}

/// Whether the instance offers VK_EXT_debug_utils (the loader or a driver does, nearly always).
fn has_debug_utils(entry: &ash::Entry) -> bool {
    // SAFETY: a global command with no object; the loader is loaded.
    unsafe { entry.enumerate_instance_extension_properties(None) }.is_ok_and(|exts| {
        exts.iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME))
    })
}

/// Every device with its capabilities, in the loader's order (the numbers `--device` takes).
pub fn list(validate: bool) -> Result<Vec<Caps>, DeviceError> {
    // SAFETY: loading the system Vulkan loader; no other code touches it concurrently.
    let entry = unsafe { ash::Entry::load() }?;
    let instance = create_instance(&entry, validate)?;
    // SAFETY: the instance is valid until destroyed below.
    let result = unsafe { instance.enumerate_physical_devices() }
        .map_err(vk_err("vkEnumeratePhysicalDevices"))
        .and_then(|pds| pds.iter().map(|&pd| query_caps(&instance, pd)).collect());
    // SAFETY: no object created from the instance is alive.
    unsafe { instance.destroy_instance(None) };
    result
}

impl Gpu {
    /// Opens device `index`, or the first usable device with interlock, or the first usable one.
    pub fn open(index: Option<usize>, validate: bool) -> Result<Gpu, DeviceError> {
        // SAFETY: see `list`.
        let entry = unsafe { ash::Entry::load() }?;
        let instance = create_instance(&entry, validate)?;
        // `entry` owns the loaded Vulkan loader: it must outlive the instance's destruction, so
        // the failed open hands it back only after that (dropping it first unloads the code
        // vkDestroyInstance would run).
        match Self::open_on(entry.clone(), instance.clone(), index) {
            Ok(g) => Ok(g),
            Err(e) => {
                // SAFETY: nothing created from the instance survived the failed open; `entry`
                // keeps the loader loaded across the call.
                unsafe { instance.destroy_instance(None) };
                drop(entry);
                Err(e)
            }
        }
    }

    fn open_on(
        entry: ash::Entry,
        instance: ash::Instance,
        index: Option<usize>,
    ) -> Result<Gpu, DeviceError> {
        // SAFETY: the instance is valid.
        let pds = unsafe { instance.enumerate_physical_devices() }
            .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
        if pds.is_empty() {
            return Err(DeviceError::NoDevice);
        }
        let caps: Vec<Caps> = pds
            .iter()
            .map(|&pd| query_caps(&instance, pd))
            .collect::<Result<_, _>>()?;
        let chosen = match index {
            Some(i) if i >= pds.len() => {
                return Err(DeviceError::BadIndex {
                    index: i,
                    count: pds.len(),
                })
            }
            Some(i) => i,
            None => caps
                .iter()
                .position(|c| c.basic_ok() && c.any_interlock())
                .or_else(|| caps.iter().position(|c| c.basic_ok()))
                .unwrap_or(0),
        };
        let c = caps[chosen].clone();
        if !c.basic_ok() {
            return Err(DeviceError::Unsuitable { name: c.name });
        }
        let pd = pds[chosen];

        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(c.queue_family)
            .queue_priorities(&priorities)];
        let features = vk::PhysicalDeviceFeatures::default()
            .fragment_stores_and_atomics(true)
            .sample_rate_shading(c.sample_rate_shading);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true);
        let mut il = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
            .fragment_shader_pixel_interlock(c.pixel_interlock)
            .fragment_shader_sample_interlock(c.sample_interlock);
        let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
            .extended_dynamic_state3_rasterization_samples(c.dynamic_samples)
            .extended_dynamic_state3_color_blend_enable(c.dynamic_blend)
            .extended_dynamic_state3_color_blend_equation(c.dynamic_blend)
            .extended_dynamic_state3_color_write_mask(c.dynamic_blend);
        let mut so = vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(true);
        let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
            .graphics_pipeline_library(true);
        let mut exts = vec![];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_features(&features)
            .push_next(&mut v13);
        if c.interlock_extension {
            exts.push(ash::ext::fragment_shader_interlock::NAME.as_ptr());
            info = info.push_next(&mut il);
        }
        if c.dynamic_samples || c.dynamic_blend {
            exts.push(ash::ext::extended_dynamic_state3::NAME.as_ptr());
            info = info.push_next(&mut eds3);
        }
        if c.shader_object {
            exts.push(ash::ext::shader_object::NAME.as_ptr());
            info = info.push_next(&mut so);
        }
        if c.libraries {
            exts.push(ash::khr::pipeline_library::NAME.as_ptr());
            exts.push(ash::ext::graphics_pipeline_library::NAME.as_ptr());
            info = info.push_next(&mut gpl);
        }
        let info = info.enabled_extension_names(&exts);
        // SAFETY: `info` and its chain outlive the call; `pd` belongs to `instance`.
        let device =
            unsafe { instance.create_device(pd, &info, None) }.map_err(vk_err("vkCreateDevice"))?;
        // SAFETY: the queue family was requested with one queue.
        let queue = unsafe { device.get_device_queue(c.queue_family, 0) };
        // SAFETY: `pd` is valid.
        let memory = unsafe { instance.get_physical_device_memory_properties(pd) };
        let eds3 = (c.dynamic_samples || c.dynamic_blend)
            .then(|| ash::ext::extended_dynamic_state3::Device::new(&instance, &device));
        let so = c
            .shader_object
            .then(|| ash::ext::shader_object::Device::new(&instance, &device));
        let debug_utils =
            has_debug_utils(&entry).then(|| ash::ext::debug_utils::Device::new(&instance, &device));
        Ok(Gpu {
            dynamic_samples: false,
            dynamic_blend: false,
            libraries: false,
            eds3,
            shader_objects: false,
            so,
            _entry: entry,
            instance,
            device,
            queue,
            caps: c,
            memory,
            index: chosen,
            executes: true,
            debug_utils,
        })
    }
}

impl Gpu {
    /// Names `handle` for tools (vkSetDebugUtilsObjectNameEXT), where the instance has
    /// VK_EXT_debug_utils. A name is a help, never a need: failing to set one is not an error.
    pub fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        let (Some(du), Ok(name)) = (&self.debug_utils, CString::new(name)) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: `handle` is a live object of this device; `info` outlives the call.
        let _ = unsafe { du.set_debug_utils_object_name(&info) };
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every object created from the device is destroyed by its owner before the Gpu
        // (the owners borrow it); waiting idle makes sure none is still in use by the GPU.
        unsafe {
            if self.executes {
                let _ = self.device.device_wait_idle();
            }
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
