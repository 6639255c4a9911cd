//! What the scenarios share: the context (instance, device, capabilities), shader and
//! pipeline helpers, attachments.

pub(crate) use ash::vk;
pub(crate) use pops_tests::local_shaders;
pub(crate) use std::ffi::CStr;

/// The interlocked fragment shaders of the corpus the scenarios build pipelines from, with a
/// sample count. Shading-rate interlock is absent: no AMD device has the feature.
pub const DEFAULT_SHADERS: &str = "pixel_interlock_ordered.frag:1,pixel_interlock_ordered.frag:4,pixel_interlock_unordered.frag:1,sample_interlock_ordered.frag:8,sample_interlock_unordered.frag:4,oit_interlock.frag:1,oit_interlock.frag:8,oit_interlock_sample.frag:4,interlock_reads_only.frag:1,no_color_output.frag:1,interlock_buffer_reference.frag:1,color.frag:1";

pub(crate) type Res<T> = Result<T, String>;

pub(crate) fn vkerr(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// What the device supports and what was enabled.
#[derive(Default, Clone, Copy)]
pub(crate) struct Caps {
    pub(crate) interlock: bool,
    pub(crate) gpl: bool,
    pub(crate) shader_object: bool,
    pub(crate) module_identifier: bool,
    pub(crate) dynamic_rendering: bool,
    pub(crate) mutable: bool,
    /// VK_EXT_extended_dynamic_state3's colour blend enable, equation and write mask.
    pub(crate) dynamic_blend: bool,
    /// VK_EXT_extended_dynamic_state3's rasterization samples.
    pub(crate) dynamic_samples: bool,
    /// Vulkan 1.2's timeline semaphores.
    pub(crate) timeline: bool,
}

pub(crate) struct Ctx {
    pub(crate) _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) pdev: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) caps: Caps,
    pub(crate) queue_family: u32,
    pub(crate) set_layout: vk::DescriptorSetLayout,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) name: String,
}

/// Push constants for every graphics stage (the corpus uses up to a few words).
pub(crate) const PUSH_CONSTANTS: [vk::PushConstantRange; 1] = [vk::PushConstantRange {
    stage_flags: vk::ShaderStageFlags::ALL_GRAPHICS,
    offset: 0,
    size: 128,
}];

/// VK_KHR_pipeline_binary, newer than the headers `ash` is generated from.
pub(crate) const PIPELINE_BINARY: &CStr = c"VK_KHR_pipeline_binary";

/// `VkPhysicalDevicePipelineBinaryFeaturesKHR` with `pipelineBinaries` on (Vulkan registry:
/// sType 1000483000).
#[repr(C)]
pub(crate) struct PipelineBinaryFeatures {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    pipeline_binaries: vk::Bool32,
}

impl Default for PipelineBinaryFeatures {
    fn default() -> Self {
        PipelineBinaryFeatures {
            s_type: vk::StructureType::from_raw(1_000_483_000),
            p_next: std::ptr::null_mut(),
            pipeline_binaries: vk::TRUE,
        }
    }
}

pub(crate) fn has_ext(exts: &[vk::ExtensionProperties], name: &CStr) -> bool {
    exts.iter()
        .any(|e| e.extension_name_as_c_str().ok() == Some(name))
}

pub(crate) fn create_ctx(app: &CStr) -> Res<Ctx> {
    create_ctx_with_layers(app, &[])
}

/// A context whose instance enables `layers` itself (ppEnabledLayerNames), on top of whatever
/// VK_INSTANCE_LAYERS adds.
pub(crate) fn create_ctx_with_layers(app: &CStr, layers: &[&CStr]) -> Res<Ctx> {
    create_ctx_with_settings(app, layers, "")
}

/// [`create_ctx_with_layers`] whose instance also chains the layer settings `extra`
/// ("name=value;…", as POPS_SCENARIO_API_SETTINGS), for this instance alone.
pub(crate) fn create_ctx_with_settings(app: &CStr, layers: &[&CStr], extra: &str) -> Res<Ctx> {
    // SAFETY: loads libvulkan.so.1, the system loader.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("loader: {e}"))?;
    let instance = create_instance(&entry, app, layers, extra)?;
    // SAFETY: live instance.
    let pdevs = unsafe { instance.enumerate_physical_devices() }
        .map_err(vkerr("vkEnumeratePhysicalDevices"))?;
    let pdev = *pdevs.first().ok_or("no physical device")?;
    // SAFETY: live physical device.
    let props = unsafe { instance.get_physical_device_properties(pdev) };
    let name = props
        .device_name_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if props.api_version < vk::API_VERSION_1_3 {
        return Err(format!("{name}: Vulkan 1.3 needed"));
    }
    let (device, caps, queue_family) = create_device(&instance, pdev, &name)?;
    let (set_layout, layout) = shared_layout(&device, caps)?;
    Ok(Ctx {
        _entry: entry,
        instance,
        pdev,
        device,
        caps,
        queue_family,
        set_layout,
        layout,
        name,
    })
}

/// The instance, with VK_EXT_debug_utils where the loader has it (the `draws` scenario names its
/// pipeline) and the layer settings of POPS_SCENARIO_API_SETTINGS.
fn create_instance(
    entry: &ash::Entry,
    app: &CStr,
    layers: &[&CStr],
    extra: &str,
) -> Res<ash::Instance> {
    let app_info = vk::ApplicationInfo::default()
        .application_name(app)
        .api_version(vk::API_VERSION_1_3);
    // POPS_SCENARIO_API_SETTINGS="report=path;chip=navi10": VK_EXT_layer_settings values for
    // VK_LAYER_POPS_interlock, as an application would chain them.
    let from_env = std::env::var("POPS_SCENARIO_API_SETTINGS").unwrap_or_default();
    let api: Vec<(std::ffi::CString, std::ffi::CString)> = from_env
        .split(';')
        .chain(extra.split(';'))
        .filter_map(|kv| kv.split_once('='))
        .filter_map(|(k, v)| {
            Some((
                std::ffi::CString::new(k).ok()?,
                std::ffi::CString::new(v).ok()?,
            ))
        })
        .collect();
    let value_ptrs: Vec<*const std::ffi::c_char> = api.iter().map(|(_, v)| v.as_ptr()).collect();
    let settings: Vec<vk::LayerSettingEXT> = api
        .iter()
        .zip(&value_ptrs)
        .map(|((k, _), v)| {
            let mut s = vk::LayerSettingEXT::default()
                .layer_name(c"VK_LAYER_POPS_interlock")
                .setting_name(k)
                .ty(vk::LayerSettingTypeEXT::STRING);
            s.value_count = 1;
            s.p_values = v as *const *const std::ffi::c_char as *const std::ffi::c_void;
            s
        })
        .collect();
    let mut layer_settings = vk::LayerSettingsCreateInfoEXT::default().settings(&settings);
    let layer_names: Vec<*const std::ffi::c_char> = layers.iter().map(|l| l.as_ptr()).collect();
    // VK_EXT_debug_utils where the loader has it: the `draws` scenario names its pipeline.
    // SAFETY: a loaded entry.
    let instance_exts = unsafe { entry.enumerate_instance_extension_properties(None) }
        .map_err(vkerr("vkEnumerateInstanceExtensionProperties"))?;
    let debug_utils = has_ext(&instance_exts, ash::ext::debug_utils::NAME);
    let instance_ext_names = [ash::ext::debug_utils::NAME.as_ptr()];
    let mut ci = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layer_names)
        .enabled_extension_names(if debug_utils {
            &instance_ext_names[..]
        } else {
            &[]
        });
    if !settings.is_empty() {
        ci = ci.push_next(&mut layer_settings);
    }
    // SAFETY: valid create info.
    let instance =
        unsafe { entry.create_instance(&ci, None) }.map_err(vkerr("vkCreateInstance"))?;
    Ok(instance)
}

/// The device extensions the scenarios enable where the device has them, and which of the
/// feature structures they bring (`present`, by the index in `want`).
struct Wanted {
    names: Vec<*const std::ffi::c_char>,
    present: [bool; 6],
    code_queries: bool,
}

fn wanted_extensions(exts: &[vk::ExtensionProperties], name: &str) -> Res<Wanted> {
    let mut names: Vec<*const std::ffi::c_char> = Vec::new();
    let want = [
        (vk::EXT_FRAGMENT_SHADER_INTERLOCK_NAME, 0),
        (vk::EXT_GRAPHICS_PIPELINE_LIBRARY_NAME, 1),
        (vk::KHR_PIPELINE_LIBRARY_NAME, 9),
        (vk::EXT_SHADER_OBJECT_NAME, 2),
        (vk::EXT_SHADER_MODULE_IDENTIFIER_NAME, 3),
        (vk::EXT_PIPELINE_CREATION_CACHE_CONTROL_NAME, 9),
        (vk::EXT_MUTABLE_DESCRIPTOR_TYPE_NAME, 4),
        (vk::EXT_EXTENDED_DYNAMIC_STATE3_NAME, 5),
    ];
    // POPS_SCENARIO_BASIC=1: no shader objects (VK_LAYER_KHRONOS_validation 1.3.239 predates
    // VK_EXT_shader_object and crashes on its feature structure).
    let basic = std::env::var("POPS_SCENARIO_BASIC").is_ok_and(|v| v == "1");
    let mut present = [false; 6];
    for (n, i) in want {
        if basic && i == 2 {
            continue;
        }
        if has_ext(exts, n) {
            names.push(n.as_ptr());
            if i < present.len() {
                present[i] = true;
            }
        }
    }
    // POPS_SCENARIO_CODE_QUERIES=1: the driver's compiled code and pipeline binaries
    // (VK_KHR_pipeline_executable_properties; VK_KHR_pipeline_binary with VK_KHR_maintenance5,
    // which it depends on), as the capture-code scenario reads them.
    let code_queries = std::env::var("POPS_SCENARIO_CODE_QUERIES").is_ok_and(|v| v == "1");
    let code_exts = [
        ash::khr::pipeline_executable_properties::NAME,
        ash::khr::maintenance5::NAME,
        PIPELINE_BINARY,
    ];
    if code_queries {
        if let Some(missing) = code_exts.iter().find(|n| !has_ext(exts, n)) {
            return Err(format!("SKIP: {name} has no {}", missing.to_string_lossy()));
        }
        names.extend(code_exts.iter().map(|n| n.as_ptr()));
    }
    Ok(Wanted {
        names,
        present,
        code_queries,
    })
}

/// What the device has, read through vkGetPhysicalDeviceFeatures2.
struct Queried {
    caps: Caps,
    sample_interlock: bool,
    cache_control: bool,
    device_address: bool,
    base: vk::PhysicalDeviceFeatures,
}

/// The device's features, the structures of the extensions it has (`present`) chained.
fn query_features(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    present: [bool; 6],
) -> Queried {
    let mut f_interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default();
    let mut f_gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default();
    let mut f_so = vk::PhysicalDeviceShaderObjectFeaturesEXT::default();
    let mut f_mi = vk::PhysicalDeviceShaderModuleIdentifierFeaturesEXT::default();
    let mut f_mut = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default();
    let mut f_eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut f13)
        .push_next(&mut f12);
    if present[0] {
        f2 = f2.push_next(&mut f_interlock);
    }
    if present[1] {
        f2 = f2.push_next(&mut f_gpl);
    }
    if present[2] {
        f2 = f2.push_next(&mut f_so);
    }
    if present[3] {
        f2 = f2.push_next(&mut f_mi);
    }
    if present[4] {
        f2 = f2.push_next(&mut f_mut);
    }
    if present[5] {
        f2 = f2.push_next(&mut f_eds3);
    }
    // SAFETY: a valid features chain.
    unsafe { instance.get_physical_device_features2(pdev, &mut f2) };
    let base = f2.features;
    let caps = Caps {
        interlock: f_interlock.fragment_shader_pixel_interlock == vk::TRUE,
        gpl: f_gpl.graphics_pipeline_library == vk::TRUE,
        shader_object: f_so.shader_object == vk::TRUE,
        module_identifier: f_mi.shader_module_identifier == vk::TRUE,
        dynamic_rendering: f13.dynamic_rendering == vk::TRUE,
        mutable: f_mut.mutable_descriptor_type == vk::TRUE,
        dynamic_blend: f_eds3.extended_dynamic_state3_color_blend_enable == vk::TRUE
            && f_eds3.extended_dynamic_state3_color_blend_equation == vk::TRUE
            && f_eds3.extended_dynamic_state3_color_write_mask == vk::TRUE,
        dynamic_samples: f_eds3.extended_dynamic_state3_rasterization_samples == vk::TRUE,
        timeline: f12.timeline_semaphore == vk::TRUE,
    };
    Queried {
        caps,
        sample_interlock: f_interlock.fragment_shader_sample_interlock == vk::TRUE,
        cache_control: f13.pipeline_creation_cache_control == vk::TRUE,
        device_address: f12.buffer_device_address == vk::TRUE,
        base,
    }
}

/// The device with every feature the scenarios use that it has, what it has, and its graphics
/// queue family.
fn create_device(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    name: &str,
) -> Res<(ash::Device, Caps, u32)> {
    // SAFETY: live physical device.
    let exts = unsafe { instance.enumerate_device_extension_properties(pdev) }
        .map_err(vkerr("vkEnumerateDeviceExtensionProperties"))?;
    let Wanted {
        names,
        present,
        code_queries,
    } = wanted_extensions(&exts, name)?;
    let Queried {
        caps,
        sample_interlock,
        cache_control,
        device_address,
        base,
    } = query_features(instance, pdev, present);
    let mut e_eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(caps.dynamic_blend)
        .extended_dynamic_state3_color_blend_equation(caps.dynamic_blend)
        .extended_dynamic_state3_color_write_mask(caps.dynamic_blend)
        .extended_dynamic_state3_rasterization_samples(caps.dynamic_samples);
    // POPS_SCENARIO_PIXEL_INTERLOCK_ONLY=1: an application that enables pixel interlock only.
    let pixel_only = std::env::var("POPS_SCENARIO_PIXEL_INTERLOCK_ONLY").is_ok_and(|v| v == "1");
    let mut e_interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
        .fragment_shader_pixel_interlock(caps.interlock)
        .fragment_shader_sample_interlock(sample_interlock && !pixel_only);
    let mut e_gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(caps.gpl);
    let mut e_so =
        vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(caps.shader_object);
    let mut e_mi = vk::PhysicalDeviceShaderModuleIdentifierFeaturesEXT::default()
        .shader_module_identifier(caps.module_identifier);
    let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
        .dynamic_rendering(caps.dynamic_rendering)
        .pipeline_creation_cache_control(cache_control);
    let mut e_mut = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default()
        .mutable_descriptor_type(caps.mutable);
    let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(device_address)
        .timeline_semaphore(caps.timeline);
    let features = vk::PhysicalDeviceFeatures::default()
        .sample_rate_shading(base.sample_rate_shading == vk::TRUE)
        .fragment_stores_and_atomics(base.fragment_stores_and_atomics == vk::TRUE);
    let prio = [1.0f32];
    // SAFETY: live physical device.
    let qf = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
    let queue_family = qf
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        .ok_or("no graphics queue")? as u32;
    let qci = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&prio)];
    let mut dci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&qci)
        .enabled_extension_names(&names)
        .enabled_features(&features)
        .push_next(&mut e13)
        .push_next(&mut e12);
    if present[0] {
        dci = dci.push_next(&mut e_interlock);
    }
    if present[1] {
        dci = dci.push_next(&mut e_gpl);
    }
    if present[2] {
        dci = dci.push_next(&mut e_so);
    }
    if present[3] {
        dci = dci.push_next(&mut e_mi);
    }
    if present[4] {
        dci = dci.push_next(&mut e_mut);
    }
    if present[5] {
        dci = dci.push_next(&mut e_eds3);
    }
    let mut e_exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let mut e_m5 = vk::PhysicalDeviceMaintenance5FeaturesKHR::default().maintenance5(true);
    let mut e_bin = PipelineBinaryFeatures::default();
    if code_queries {
        dci = dci.push_next(&mut e_exec).push_next(&mut e_m5);
        e_bin.p_next = dci.p_next as *mut std::ffi::c_void;
        dci.p_next = &e_bin as *const PipelineBinaryFeatures as *const std::ffi::c_void;
    }
    // SAFETY: valid create info.
    let device =
        unsafe { instance.create_device(pdev, &dci, None) }.map_err(vkerr("vkCreateDevice"))?;
    Ok((device, caps, queue_family))
}

/// The one layout every corpus shader fits: set 0 bindings 0 and 1 as storage images or
/// storage buffers, and push constants.
fn shared_layout(
    device: &ash::Device,
    caps: Caps,
) -> Res<(vk::DescriptorSetLayout, vk::PipelineLayout)> {
    // The corpus shaders use set 0 bindings 0 and 1 as storage images or storage buffers, and
    // push constants: one layout fits all of them when each binding may hold either type
    // (VK_EXT_mutable_descriptor_type).
    let binding_type = if caps.mutable {
        vk::DescriptorType::MUTABLE_EXT
    } else {
        vk::DescriptorType::STORAGE_BUFFER
    };
    let bindings = [
        vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(binding_type)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT),
        vk::DescriptorSetLayoutBinding::default()
            .binding(1)
            .descriptor_type(if caps.mutable {
                binding_type
            } else {
                vk::DescriptorType::STORAGE_IMAGE
            })
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT),
    ];
    let types = [
        vk::DescriptorType::STORAGE_IMAGE,
        vk::DescriptorType::STORAGE_BUFFER,
    ];
    let lists = [
        vk::MutableDescriptorTypeListEXT::default().descriptor_types(&types),
        vk::MutableDescriptorTypeListEXT::default().descriptor_types(&types),
    ];
    let mut mutable =
        vk::MutableDescriptorTypeCreateInfoEXT::default().mutable_descriptor_type_lists(&lists);
    let mut sci = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
    if caps.mutable {
        sci = sci.push_next(&mut mutable);
    }
    // SAFETY: valid create info.
    let set_layout = unsafe { device.create_descriptor_set_layout(&sci, None) }
        .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
    let sets = [set_layout];
    let lci = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(&sets)
        .push_constant_ranges(&PUSH_CONSTANTS);
    // SAFETY: valid create info.
    let layout = unsafe { device.create_pipeline_layout(&lci, None) }
        .map_err(vkerr("vkCreatePipelineLayout"))?;
    Ok((set_layout, layout))
}

impl Ctx {
    pub(crate) fn destroy(self) {
        // SAFETY: every object of this context, destroyed once, children first.
        unsafe {
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device
                .destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }

    /// A command pool on the graphics queue family.
    pub(crate) fn command_pool(&self) -> Res<vk::CommandPool> {
        // SAFETY: valid create info.
        unsafe {
            self.device.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family),
                None,
            )
        }
        .map_err(vkerr("vkCreateCommandPool"))
    }

    /// Submits the ended primary command buffer `cb` to the graphics queue and waits for it,
    /// where `POPS_SCENARIO_SUBMIT=1` asks (a driver with a real winsys, e.g. RADV over the
    /// amdgpu kernel-interface shim, which records what reaches the kernel); otherwise nothing:
    /// RADV's null hardware records command buffers but cannot submit them.
    pub(crate) fn submit_if_asked(&self, cb: vk::CommandBuffer) -> Res<()> {
        if std::env::var("POPS_SCENARIO_SUBMIT").as_deref() != Ok("1") {
            return Ok(());
        }
        let d = &self.device;
        // SAFETY: `cb` is an ended primary command buffer of this device; the fence is created,
        // waited for and destroyed here, so nothing is in flight when this returns.
        unsafe {
            let queue = d.get_device_queue(self.queue_family, 0);
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vkerr("vkCreateFence"))?;
            let cbs = [cb];
            let submitted = d
                .queue_submit(
                    queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .map_err(vkerr("vkQueueSubmit"))
                .and_then(|()| {
                    d.wait_for_fences(&[fence], true, u64::MAX)
                        .map_err(vkerr("vkWaitForFences"))
                });
            d.destroy_fence(fence, None);
            submitted
        }
    }

    /// One command buffer of `level` from `pool`.
    pub(crate) fn command_buffer(
        &self,
        pool: vk::CommandPool,
        level: vk::CommandBufferLevel,
    ) -> Res<vk::CommandBuffer> {
        // SAFETY: a live pool of this device.
        unsafe {
            self.device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(level)
                    .command_buffer_count(1),
            )
        }
        .map(|v| v[0])
        .map_err(vkerr("vkAllocateCommandBuffers"))
    }

    pub(crate) fn module(&self, spv: &[u8]) -> Res<vk::ShaderModule> {
        let words =
            ash::util::read_spv(&mut std::io::Cursor::new(spv)).map_err(|e| e.to_string())?;
        let ci = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: valid create info.
        unsafe { self.device.create_shader_module(&ci, None) }
            .map_err(vkerr("vkCreateShaderModule"))
    }
}

/// A shader of the corpus (`shaders/glsl/`) or of `tests/shaders/`, by file name.
pub(crate) fn spv(name: &str) -> Res<&'static [u8]> {
    if let Some(s) = shaders::corpus::get(name) {
        return Ok(s.spirv);
    }
    local_shaders::SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("shader {name} not built (glslangValidator missing?)"))
}

pub(crate) fn words(spv: &[u8]) -> Res<Vec<u32>> {
    ash::util::read_spv(&mut std::io::Cursor::new(spv)).map_err(|e| e.to_string())
}

pub(crate) fn samples_flag(n: u32) -> vk::SampleCountFlags {
    vk::SampleCountFlags::from_raw(n.max(1))
}

/// Fixed-function state shared by every pipeline of the scenarios.
pub(crate) struct Fixed {
    pub(crate) vi: vk::PipelineVertexInputStateCreateInfo<'static>,
    pub(crate) ia: vk::PipelineInputAssemblyStateCreateInfo<'static>,
    pub(crate) vp: vk::PipelineViewportStateCreateInfo<'static>,
    pub(crate) rs: vk::PipelineRasterizationStateCreateInfo<'static>,
    pub(crate) ms: vk::PipelineMultisampleStateCreateInfo<'static>,
    pub(crate) ds: vk::PipelineDepthStencilStateCreateInfo<'static>,
    pub(crate) att: [vk::PipelineColorBlendAttachmentState; 1],
    pub(crate) dyn_states: Vec<vk::DynamicState>,
    pub(crate) formats: [vk::Format; 1],
    /// The depth attachment format of dynamic rendering (UNDEFINED: none).
    pub(crate) depth_format: vk::Format,
    /// VkAttachmentSampleCountInfoAMD's colour sample count, where it differs from the
    /// rasterization samples (VK_AMD_mixed_attachment_samples).
    pub(crate) color_samples: Option<vk::SampleCountFlags>,
}

impl Fixed {
    pub(crate) fn new(samples: u32) -> Box<Fixed> {
        Box::new(Fixed {
            vi: vk::PipelineVertexInputStateCreateInfo::default(),
            ia: vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(vk::PrimitiveTopology::TRIANGLE_LIST),
            vp: vk::PipelineViewportStateCreateInfo::default()
                .viewport_count(1)
                .scissor_count(1),
            rs: vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .line_width(1.0),
            ms: vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(samples_flag(samples)),
            ds: vk::PipelineDepthStencilStateCreateInfo::default(),
            att: [vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA)],
            dyn_states: vec![vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR],
            formats: [vk::Format::R8G8B8A8_UNORM],
            depth_format: vk::Format::UNDEFINED,
            color_samples: None,
        })
    }
}

/// One created object, as the scenario prints it for the test to match with the report.
pub(crate) struct Made {
    pub(crate) way: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) handle: u64,
}

impl Made {
    pub(crate) fn new(way: &'static str, kind: &'static str, handle: impl vk::Handle) -> Self {
        Made {
            way,
            kind,
            handle: handle.as_raw(),
        }
    }
}

/// Scenarios that exercise interlock give up with a SKIP line where the device lacks it.
pub(crate) fn require_interlock(ctx: &Ctx) -> Res<()> {
    if !ctx.caps.interlock {
        return Err(format!(
            "SKIP {}: no fragmentShaderPixelInterlock",
            ctx.name
        ));
    }
    Ok(())
}

/// The corpus shader the generic scenarios use: an interlocked one where the device has
/// interlock, else a plain one.
pub(crate) fn default_shader(ctx: &Ctx) -> &'static str {
    if ctx.caps.interlock {
        "pixel_interlock_ordered.frag"
    } else {
        "color.frag"
    }
}

/// A shader stage taken from a module object, entered at `name`.
pub(crate) fn stage_info<'a>(
    stage: vk::ShaderStageFlags,
    module: vk::ShaderModule,
    name: &'a CStr,
) -> vk::PipelineShaderStageCreateInfo<'a> {
    vk::PipelineShaderStageCreateInfo::default()
        .stage(stage)
        .module(module)
        .name(name)
}

/// A fragment stage without a module object: the caller chains the code (inline SPIR-V or a
/// module identifier).
pub(crate) fn inline_fragment_stage(name: &CStr) -> vk::PipelineShaderStageCreateInfo<'_> {
    vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::FRAGMENT)
        .name(name)
}

/// The fragment shader object create info every scenario uses: SPIR-V `code` entered at `name`,
/// with the shared set layout and push constants.
pub(crate) fn fragment_shader_object_info<'a>(
    ctx: &'a Ctx,
    code: &'a [u8],
    name: &'a CStr,
) -> vk::ShaderCreateInfoEXT<'a> {
    vk::ShaderCreateInfoEXT::default()
        .stage(vk::ShaderStageFlags::FRAGMENT)
        .code_type(vk::ShaderCodeTypeEXT::SPIRV)
        .code(code)
        .name(name)
        .set_layouts(std::slice::from_ref(&ctx.set_layout))
        .push_constant_ranges(&PUSH_CONSTANTS)
}

/// The plain case: both stages from module objects entered at `main`, no cache, no flags.
pub(crate) fn main_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
) -> Result<vk::Pipeline, vk::Result> {
    full_pipeline(
        ctx,
        fx,
        vert,
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
        vk::PipelineCache::null(),
        vk::PipelineCreateFlags::empty(),
    )
}

/// One complete (non-library) graphics pipeline with the `stages` given over the fixed state;
/// the raw result of vkCreateGraphicsPipelines, for the caller to judge.
pub(crate) fn create_complete_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    cache: vk::PipelineCache,
    flags: vk::PipelineCreateFlags,
) -> Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)> {
    create_complete_pipeline_flags2(ctx, fx, stages, cache, flags, None)
}

/// [`create_complete_pipeline`] with a VkPipelineCreateFlags2CreateInfoKHR chained where
/// `flags2` is given (its flags replace `flags`, VK_KHR_maintenance5).
pub(crate) fn create_complete_pipeline_flags2(
    ctx: &Ctx,
    fx: &Fixed,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    cache: vk::PipelineCache,
    flags: vk::PipelineCreateFlags,
    flags2: Option<vk::PipelineCreateFlags2KHR>,
) -> Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)> {
    with_complete_pipeline_info(ctx, fx, stages, (flags, flags2), |ci| {
        // SAFETY: valid create info; every chained structure outlives the call.
        unsafe { ctx.device.create_graphics_pipelines(cache, &[*ci], None) }
    })
}

/// `f` given the create info [`create_complete_pipeline_flags2`] creates its pipeline from.
pub(crate) fn with_complete_pipeline_info<T>(
    ctx: &Ctx,
    fx: &Fixed,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    (flags, flags2): (vk::PipelineCreateFlags, Option<vk::PipelineCreateFlags2KHR>),
    f: impl FnOnce(&vk::GraphicsPipelineCreateInfo) -> T,
) -> T {
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&fx.att);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
    let mut f2 = vk::PipelineCreateFlags2CreateInfoKHR::default().flags(flags2.unwrap_or_default());
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .flags(flags)
        .stages(stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .depth_stencil_state(&fx.ds)
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .layout(ctx.layout)
        .push_next(&mut rendering);
    let ci = if flags2.is_some() {
        ci.push_next(&mut f2)
    } else {
        ci
    };
    f(&ci)
}

pub(crate) fn print_made(shader: &str, samples: u32, m: &Made) {
    println!(
        "{}",
        serde_json::json!({"shader": shader, "samples": samples, "way": m.way, "kind": m.kind, "handle": format!("0x{:x}", m.handle)})
    );
}

/// Creates a complete pipeline with the fragment stage `frag` (a prepared stage create info).
pub(crate) fn full_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::PipelineShaderStageCreateInfo<'_>,
    cache: vk::PipelineCache,
    flags: vk::PipelineCreateFlags,
) -> Result<vk::Pipeline, vk::Result> {
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        frag,
    ];
    match create_complete_pipeline(ctx, fx, &stages, cache, flags) {
        Ok(p) => Ok(p[0]),
        Err((p, e)) => {
            if p.first().is_some_and(|p| *p != vk::Pipeline::null()) {
                Ok(p[0])
            } else {
                Err(e)
            }
        }
    }
}

/// Builds the four graphics pipeline libraries and links them.
pub(crate) fn gpl_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
) -> Res<(vk::Pipeline, vk::Pipeline, Vec<vk::Pipeline>)> {
    gpl_pipeline_named(ctx, fx, (vert, c"main"), (frag, c"main"))
}

/// [`gpl_pipeline`] with the entry points of both stages named.
pub(crate) fn gpl_pipeline_named(
    ctx: &Ctx,
    fx: &Fixed,
    (vert, vname): (vk::ShaderModule, &CStr),
    (frag, fname): (vk::ShaderModule, &CStr),
) -> Res<(vk::Pipeline, vk::Pipeline, Vec<vk::Pipeline>)> {
    use vk::GraphicsPipelineLibraryFlagsEXT as G;
    let lib = |flags: G, ci: vk::GraphicsPipelineCreateInfo<'_>| -> Res<vk::Pipeline> {
        let mut gpl = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(flags);
        let mixed_samples = fx.color_samples.map(|s| [s]);
        let mixed = mixed_samples.as_ref().map(|s| {
            vk::AttachmentSampleCountInfoAMD::default()
                .color_attachment_samples(s)
                .depth_stencil_attachment_samples(fx.ms.rasterization_samples)
        });
        if let Some(m) = &mixed {
            gpl.p_next = m as *const _ as *const std::ffi::c_void;
        }
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&fx.formats)
            .depth_attachment_format(fx.depth_format);
        rendering.p_next = &gpl as *const _ as *const std::ffi::c_void;
        let mut ci = ci
            .flags(vk::PipelineCreateFlags::LIBRARY_KHR)
            .layout(ctx.layout);
        ci.p_next = &rendering as *const _ as *const std::ffi::c_void;
        // SAFETY: valid create info; the chained structures outlive the call.
        unsafe {
            ctx.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
        }
        .map(|p| p[0])
        .map_err(|(_, e)| format!("library {flags:?}: {e}"))
    };
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let vstage = [stage_info(vk::ShaderStageFlags::VERTEX, vert, vname)];
    let fstage = [stage_info(vk::ShaderStageFlags::FRAGMENT, frag, fname)];
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&fx.att);
    let c = vk::GraphicsPipelineCreateInfo::default;
    let vi = lib(
        G::VERTEX_INPUT_INTERFACE,
        c().vertex_input_state(&fx.vi).input_assembly_state(&fx.ia),
    )?;
    let pre = lib(
        G::PRE_RASTERIZATION_SHADERS,
        c().stages(&vstage)
            .viewport_state(&fx.vp)
            .rasterization_state(&fx.rs)
            .dynamic_state(&dy),
    )?;
    // Each library declares the states dynamic as engines and Zink do; a library ignores those
    // of state it does not provide.
    let fs = lib(
        G::FRAGMENT_SHADER,
        c().stages(&fstage)
            .multisample_state(&fx.ms)
            .depth_stencil_state(&fx.ds)
            .dynamic_state(&dy),
    )?;
    let out = lib(
        G::FRAGMENT_OUTPUT_INTERFACE,
        c().multisample_state(&fx.ms)
            .color_blend_state(&cb)
            .dynamic_state(&dy),
    )?;
    let libs = [vi, pre, fs, out];
    let mut li = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .layout(ctx.layout)
        .push_next(&mut li);
    // SAFETY: valid create info.
    let linked = unsafe {
        ctx.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .map(|p| p[0])
    .map_err(|(_, e)| format!("link: {e}"))?;
    Ok((fs, linked, libs.to_vec()))
}

/// Every way of delivering fragment SPIR-V for one shader; prints what was made.
pub(crate) fn all_ways(ctx: &Ctx, shader: &str, samples: u32, cleanup: bool) -> Res<Vec<Made>> {
    let fx = Fixed::new(samples);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag_spv = spv(shader)?;
    let frag = ctx.module(frag_spv)?;
    let mut made = Vec::new();
    let mut pipelines = Vec::new();

    let p = main_pipeline(ctx, &fx, vert, frag).map_err(vkerr("pipeline (module)"))?;
    made.push(Made::new("module", "pipeline", p));
    pipelines.push(p);

    if ctx.caps.gpl {
        let w = words(frag_spv)?;
        let mut smci = vk::ShaderModuleCreateInfo::default().code(&w);
        let stage = inline_fragment_stage(c"main").push_next(&mut smci);
        let p = full_pipeline(
            ctx,
            &fx,
            vert,
            stage,
            vk::PipelineCache::null(),
            vk::PipelineCreateFlags::empty(),
        )
        .map_err(vkerr("pipeline (inline)"))?;
        made.push(Made::new("inline", "pipeline", p));
        pipelines.push(p);

        let (fs, linked, libs) = gpl_pipeline(ctx, &fx, vert, frag)?;
        made.push(Made::new("gpl", "library", fs));
        made.push(Made::new("gpl", "pipeline", linked));
        pipelines.push(linked);
        pipelines.extend(libs);
    }

    if ctx.caps.module_identifier {
        let mi = ash::ext::shader_module_identifier::Device::new(&ctx.instance, &ctx.device);
        let mut id = vk::ShaderModuleIdentifierEXT::default();
        // SAFETY: live module.
        unsafe { (mi.fp().get_shader_module_identifier_ext)(ctx.device.handle(), frag, &mut id) };
        let cci = vk::PipelineCacheCreateInfo::default();
        // SAFETY: valid create info.
        let cache =
            unsafe { ctx.device.create_pipeline_cache(&cci, None) }.map_err(vkerr("cache"))?;
        let stage = stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main");
        // Warm the cache so that the identifier-only creation can succeed.
        let warm = full_pipeline(
            ctx,
            &fx,
            vert,
            stage,
            cache,
            vk::PipelineCreateFlags::empty(),
        )
        .map_err(vkerr("pipeline (cache warm-up)"))?;
        pipelines.push(warm);
        let id_bytes = id.identifier[..id.identifier_size as usize].to_vec();
        let mut ident =
            vk::PipelineShaderStageModuleIdentifierCreateInfoEXT::default().identifier(&id_bytes);
        let stage = inline_fragment_stage(c"main").push_next(&mut ident);
        match full_pipeline(
            ctx,
            &fx,
            vert,
            stage,
            cache,
            vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED_EXT,
        ) {
            Ok(p) => {
                made.push(Made::new("identifier", "pipeline", p));
                pipelines.push(p);
            }
            Err(e) => println!(
                "{}",
                serde_json::json!({"shader": shader, "way": "identifier", "not_created": e.to_string()})
            ),
        }
        // SAFETY: no pipeline creation is in flight on the cache.
        unsafe { ctx.device.destroy_pipeline_cache(cache, None) };
    }

    if ctx.caps.shader_object {
        let so = ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device);
        let ci = fragment_shader_object_info(ctx, frag_spv, c"main");
        // SAFETY: valid create info.
        let s = unsafe { so.create_shaders(&[ci], None) }
            .map_err(|(_, e)| format!("vkCreateShadersEXT: {e}"))?;
        made.push(Made::new("shader_object", "shader_object", s[0]));
        if cleanup {
            // SAFETY: live shader object.
            unsafe { so.destroy_shader(s[0], None) };
        }
    }

    if cleanup {
        // SAFETY: objects of this function, destroyed once; libraries after linked pipelines.
        unsafe {
            for p in pipelines {
                ctx.device.destroy_pipeline(p, None);
            }
            ctx.device.destroy_shader_module(frag, None);
            ctx.device.destroy_shader_module(vert, None);
        }
    }
    Ok(made)
}

pub(crate) fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A pipeline for dynamic rendering without attachments (the draw scenarios): `vert` and
/// `frag` entered at `main` over the fixed state, with `dynamic` states.
pub(crate) fn attachmentless_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
    dynamic: &[vk::DynamicState],
) -> Res<vk::Pipeline> {
    let mut rendering = vk::PipelineRenderingCreateInfo::default();
    rendering_pipeline(ctx, fx, (vert, frag), dynamic, &mut rendering, None, false)
}

/// A pipeline for dynamic rendering to the attachments `rendering` describes: `vert` and `frag`
/// entered at `main` over the fixed state, with `dynamic` states, `blend` where colour is
/// written and `fx.ds` where `depth_stencil`.
pub(crate) fn rendering_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    (vert, frag): (vk::ShaderModule, vk::ShaderModule),
    dynamic: &[vk::DynamicState],
    rendering: &mut vk::PipelineRenderingCreateInfo,
    blend: Option<&vk::PipelineColorBlendStateCreateInfo>,
    depth_stencil: bool,
) -> Res<vk::Pipeline> {
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic);
    let mut ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .dynamic_state(&dy)
        .layout(ctx.layout)
        .push_next(rendering);
    if let Some(b) = blend {
        ci = ci.color_blend_state(b);
    }
    if depth_stencil {
        ci = ci.depth_stencil_state(&fx.ds);
    }
    // SAFETY: valid create info.
    unsafe {
        ctx.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .map(|p| p[0])
    .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))
}

/// Sets the viewport and scissor of [`DRAW_AREA`] in `cb`.
pub(crate) fn set_draw_area(ctx: &Ctx, cb: vk::CommandBuffer) {
    // SAFETY: a command buffer of this context in the recording state.
    unsafe {
        ctx.device.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport::default()
                .width(64.0)
                .height(64.0)
                .max_depth(1.0)],
        );
        ctx.device.cmd_set_scissor(cb, 0, &[DRAW_AREA]);
    }
}

/// The 64x64 area the draw scenarios render to.
pub(crate) const DRAW_AREA: vk::Rect2D = vk::Rect2D {
    offset: vk::Offset2D { x: 0, y: 0 },
    extent: vk::Extent2D {
        width: 64,
        height: 64,
    },
};

/// Begins `cb` and a render pass instance without attachments over [`DRAW_AREA`], binds
/// `pipeline` and sets its viewport and scissor.
pub(crate) fn begin_attachmentless(
    ctx: &Ctx,
    cb: vk::CommandBuffer,
    pipeline: vk::Pipeline,
) -> Res<()> {
    begin_rendering_attachmentless(ctx, cb)?;
    bind_with_area(ctx, cb, pipeline);
    Ok(())
}

/// Begins `cb` and, in it, dynamic rendering over [`DRAW_AREA`] without attachments.
pub(crate) fn begin_rendering_attachmentless(ctx: &Ctx, cb: vk::CommandBuffer) -> Res<()> {
    let d = &ctx.device;
    // SAFETY: a command buffer of this context in the initial state.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1),
        );
    }
    Ok(())
}

/// Binds the vertex shader object `vert` and the fragment shader object `frag` in `cb` (no
/// tessellation or geometry) and sets every state a shader-object draw needs: the viewport and
/// scissor of [`DRAW_AREA`], no culling, depth, stencil or blending tests, triangle lists
/// without vertex input. The sample count and mask are the caller's.
pub(crate) fn bind_shader_objects(
    so: &ash::ext::shader_object::Device,
    cb: vk::CommandBuffer,
    vert: vk::ShaderEXT,
    frag: vk::ShaderEXT,
) {
    let area = DRAW_AREA;
    // SAFETY: a command buffer in the recording state inside a render pass instance, of the
    // device `so` was made for; live shader objects of it.
    unsafe {
        so.cmd_bind_shaders(
            cb,
            &[
                vk::ShaderStageFlags::VERTEX,
                vk::ShaderStageFlags::TESSELLATION_CONTROL,
                vk::ShaderStageFlags::TESSELLATION_EVALUATION,
                vk::ShaderStageFlags::GEOMETRY,
                vk::ShaderStageFlags::FRAGMENT,
            ],
            &[
                vert,
                vk::ShaderEXT::null(),
                vk::ShaderEXT::null(),
                vk::ShaderEXT::null(),
                frag,
            ],
        );
        so.cmd_set_viewport_with_count(
            cb,
            &[vk::Viewport::default()
                .width(64.0)
                .height(64.0)
                .max_depth(1.0)],
        );
        so.cmd_set_scissor_with_count(cb, &[area]);
        so.cmd_set_rasterizer_discard_enable(cb, false);
        so.cmd_set_cull_mode(cb, vk::CullModeFlags::NONE);
        so.cmd_set_front_face(cb, vk::FrontFace::COUNTER_CLOCKWISE);
        so.cmd_set_depth_test_enable(cb, false);
        so.cmd_set_depth_write_enable(cb, false);
        so.cmd_set_depth_bias_enable(cb, false);
        so.cmd_set_depth_bounds_test_enable(cb, false);
        so.cmd_set_stencil_test_enable(cb, false);
        so.cmd_set_primitive_topology(cb, vk::PrimitiveTopology::TRIANGLE_LIST);
        so.cmd_set_primitive_restart_enable(cb, false);
        so.cmd_set_polygon_mode(cb, vk::PolygonMode::FILL);
        so.cmd_set_alpha_to_coverage_enable(cb, false);
        so.cmd_set_vertex_input(cb, &[], &[]);
    }
}

/// Binds `pipeline` in `cb` and sets the viewport and scissor of [`DRAW_AREA`].
pub(crate) fn bind_with_area(ctx: &Ctx, cb: vk::CommandBuffer, pipeline: vk::Pipeline) {
    // SAFETY: a command buffer of this context in the recording state; a live pipeline.
    unsafe {
        ctx.device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline)
    };
    set_draw_area(ctx, cb);
}

/// A 64×64 image of `format` and `samples` with its memory and a view of `aspect`: an
/// attachment to render to.
pub(crate) fn attachment_image(
    ctx: &Ctx,
    format: vk::Format,
    samples: u32,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
) -> Res<(vk::Image, vk::DeviceMemory, vk::ImageView)> {
    let d = &ctx.device;
    // SAFETY: objects of this device, created in order; the caller destroys them.
    unsafe {
        let image = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(format)
                    .extent(vk::Extent3D {
                        width: 64,
                        height: 64,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(samples_flag(samples))
                    .usage(usage),
                None,
            )
            .map_err(vkerr("vkCreateImage"))?;
        let req = d.get_image_memory_requirements(image);
        let mem_props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let ty = (0..mem_props.memory_type_count)
            .find(|i| req.memory_type_bits & (1 << i) != 0)
            .ok_or("no memory type")?;
        let mem = d
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
            .map_err(vkerr("vkAllocateMemory"))?;
        d.bind_image_memory(image, mem, 0)
            .map_err(vkerr("vkBindImageMemory"))?;
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(format)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(aspect)
                            .level_count(1)
                            .layer_count(1),
                    ),
                None,
            )
            .map_err(vkerr("vkCreateImageView"))?;
        Ok((image, mem, view))
    }
}

/// The corpus modules with several entry points and the fragment entry points the `entries`
/// scenario builds pipelines from, by `pName` (`module:entry` items).
pub const DEFAULT_ENTRIES: &str = "multi_entry_linked.link:frag_ordered,multi_entry_linked.link:frag_no_color,divergent_interlock.spvasm:begin_in_selection,divergent_interlock.spvasm:begin_in_loop,divergent_interlock.spvasm:helper_twice,divergent_interlock.spvasm:helper_under_branch,divergent_interlock.spvasm:kill_before_begin,divergent_interlock.spvasm:return_before_begin,divergent_interlock.spvasm:end_in_both_branches,divergent_interlock.spvasm:sample_id_entry,divergent_interlock.spvasm:no_interlock";

/// Binds `pipeline` in `cb`, sets the draw area, draws one triangle, ends the render pass
/// instance and the command buffer.
pub(crate) fn draw_once_and_end(
    ctx: &Ctx,
    cb: vk::CommandBuffer,
    pipeline: vk::Pipeline,
) -> Res<()> {
    let d = &ctx.device;
    bind_with_area(ctx, cb, pipeline);
    // SAFETY: a command buffer of this context recording a render pass instance.
    unsafe {
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))
    }
}

/// Destroys a scenario's command pool, pipeline and its two shader modules.
///
/// # Safety
/// The objects are of this context, and no longer in use.
pub(crate) unsafe fn destroy_drawn(
    ctx: &Ctx,
    pool: vk::CommandPool,
    pipeline: vk::Pipeline,
    (vert, frag): (vk::ShaderModule, vk::ShaderModule),
) {
    let d = &ctx.device;
    // SAFETY: per the caller.
    unsafe {
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
}

/// The two devices of an overhead benchmark, in one process: one whose instance enables the
/// layer and one without (`POPS_BENCH_CONTROL=1`: neither, an A/A run showing the method's own
/// bias). `POPS_BENCH_SWAP=1` creates the one without the layer first: what coming first or
/// second in the process costs differs, so harnesses run both orders. The third value says
/// whether the order is swapped.
pub(crate) fn bench_pair(app: &CStr) -> Res<(Ctx, Ctx, bool)> {
    // POPS_BENCH_BASELINE=layer: both instances enable the layer, and only the first asks for
    // verify_isa (VK_EXT_layer_settings): what the setting itself costs.
    if std::env::var("POPS_BENCH_BASELINE").is_ok_and(|v| v == "layer") {
        let layer: &[&CStr] = &[c"VK_LAYER_POPS_interlock"];
        let with = create_ctx_with_settings(app, layer, "verify_isa=1")?;
        return Ok((with, create_ctx_with_layers(app, layer)?, false));
    }
    let control = std::env::var("POPS_BENCH_CONTROL").is_ok_and(|v| v == "1");
    let layers: &[&CStr] = if control {
        &[]
    } else {
        &[c"VK_LAYER_POPS_interlock"]
    };
    if std::env::var("POPS_BENCH_SWAP").is_ok_and(|v| v == "1") {
        let without = create_ctx(app)?;
        Ok((create_ctx_with_layers(app, layers)?, without, true))
    } else {
        let with = create_ctx_with_layers(app, layers)?;
        Ok((with, create_ctx(app)?, false))
    }
}
