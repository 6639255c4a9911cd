//! A Vulkan application run by the loader-level tests, one scenario per process so that loader
//! environment variables and crashes stay isolated.
//!
//! `pops-vk-scenario <scenario>`; scenarios print one JSON object per line on stdout. Exit code 0:
//! done; 2: the device lacks something the scenario needs (the message says what); 1: failure.

use ash::vk;
use pops_tests::local_shaders;

/// The interlocked fragment shaders of the corpus the scenarios build pipelines from, with a
/// sample count. Shading-rate interlock is absent: no AMD device has the feature.
pub const DEFAULT_SHADERS: &str = "pixel_interlock_ordered.frag:1,pixel_interlock_ordered.frag:4,pixel_interlock_unordered.frag:1,sample_interlock_ordered.frag:8,sample_interlock_unordered.frag:4,oit_interlock.frag:1,oit_interlock.frag:8,oit_interlock_sample.frag:4,interlock_reads_only.frag:1,no_color_output.frag:1,interlock_buffer_reference.frag:1,color.frag:1";
use std::ffi::CStr;
use std::process::ExitCode;

type Res<T> = Result<T, String>;

fn vkerr(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// What the device supports and what was enabled.
#[derive(Default, Clone, Copy)]
struct Caps {
    interlock: bool,
    gpl: bool,
    shader_object: bool,
    module_identifier: bool,
    dynamic_rendering: bool,
    mutable: bool,
    /// VK_EXT_extended_dynamic_state3's colour blend enable, equation and write mask.
    dynamic_blend: bool,
    /// VK_EXT_extended_dynamic_state3's rasterization samples.
    dynamic_samples: bool,
}

struct Ctx {
    _entry: ash::Entry,
    instance: ash::Instance,
    pdev: vk::PhysicalDevice,
    device: ash::Device,
    caps: Caps,
    queue_family: u32,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    name: String,
}

/// Push constants for every graphics stage (the corpus uses up to a few words).
const PUSH_CONSTANTS: [vk::PushConstantRange; 1] = [vk::PushConstantRange {
    stage_flags: vk::ShaderStageFlags::ALL_GRAPHICS,
    offset: 0,
    size: 128,
}];

fn has_ext(exts: &[vk::ExtensionProperties], name: &CStr) -> bool {
    exts.iter()
        .any(|e| e.extension_name_as_c_str().ok() == Some(name))
}

fn create_ctx(app: &CStr) -> Res<Ctx> {
    create_ctx_with_layers(app, &[])
}

/// A context whose instance enables `layers` itself (ppEnabledLayerNames), on top of whatever
/// VK_INSTANCE_LAYERS adds.
fn create_ctx_with_layers(app: &CStr, layers: &[&CStr]) -> Res<Ctx> {
    // SAFETY: loads libvulkan.so.1, the system loader.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("loader: {e}"))?;
    let app_info = vk::ApplicationInfo::default()
        .application_name(app)
        .api_version(vk::API_VERSION_1_3);
    // POPS_SCENARIO_API_SETTINGS="report=path;chip=navi10": VK_EXT_layer_settings values for
    // VK_LAYER_POPS_interlock, as an application would chain them.
    let api: Vec<(std::ffi::CString, std::ffi::CString)> =
        std::env::var("POPS_SCENARIO_API_SETTINGS")
            .unwrap_or_default()
            .split(';')
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
    // SAFETY: live physical device.
    let exts = unsafe { instance.enumerate_device_extension_properties(pdev) }
        .map_err(vkerr("vkEnumerateDeviceExtensionProperties"))?;

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
        if has_ext(&exts, n) {
            names.push(n.as_ptr());
            if i < present.len() {
                present[i] = true;
            }
        }
    }
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
    };
    let mut e_eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(caps.dynamic_blend)
        .extended_dynamic_state3_color_blend_equation(caps.dynamic_blend)
        .extended_dynamic_state3_color_write_mask(caps.dynamic_blend)
        .extended_dynamic_state3_rasterization_samples(caps.dynamic_samples);
    let mut e_interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
        .fragment_shader_pixel_interlock(f_interlock.fragment_shader_pixel_interlock == vk::TRUE)
        .fragment_shader_sample_interlock(f_interlock.fragment_shader_sample_interlock == vk::TRUE);
    let mut e_gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(caps.gpl);
    let mut e_so =
        vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(caps.shader_object);
    let mut e_mi = vk::PhysicalDeviceShaderModuleIdentifierFeaturesEXT::default()
        .shader_module_identifier(caps.module_identifier);
    let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
        .dynamic_rendering(caps.dynamic_rendering)
        .pipeline_creation_cache_control(f13.pipeline_creation_cache_control == vk::TRUE);
    let mut e_mut = vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT::default()
        .mutable_descriptor_type(caps.mutable);
    let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(f12.buffer_device_address == vk::TRUE);
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
    // SAFETY: valid create info.
    let device =
        unsafe { instance.create_device(pdev, &dci, None) }.map_err(vkerr("vkCreateDevice"))?;
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

impl Ctx {
    fn destroy(self) {
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
    fn command_pool(&self) -> Res<vk::CommandPool> {
        // SAFETY: valid create info.
        unsafe {
            self.device.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family),
                None,
            )
        }
        .map_err(vkerr("vkCreateCommandPool"))
    }

    /// One command buffer of `level` from `pool`.
    fn command_buffer(
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

    fn module(&self, spv: &[u8]) -> Res<vk::ShaderModule> {
        let words =
            ash::util::read_spv(&mut std::io::Cursor::new(spv)).map_err(|e| e.to_string())?;
        let ci = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: valid create info.
        unsafe { self.device.create_shader_module(&ci, None) }
            .map_err(vkerr("vkCreateShaderModule"))
    }
}

/// A shader of the corpus (`shaders/glsl/`) or of `tests/shaders/`, by file name.
fn spv(name: &str) -> Res<&'static [u8]> {
    if let Some(s) = shaders::corpus::get(name) {
        return Ok(s.spirv);
    }
    local_shaders::SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .ok_or_else(|| format!("shader {name} not built (glslangValidator missing?)"))
}

fn words(spv: &[u8]) -> Res<Vec<u32>> {
    ash::util::read_spv(&mut std::io::Cursor::new(spv)).map_err(|e| e.to_string())
}

fn samples_flag(n: u32) -> vk::SampleCountFlags {
    vk::SampleCountFlags::from_raw(n.max(1))
}

/// Fixed-function state shared by every pipeline of the scenarios.
struct Fixed {
    vi: vk::PipelineVertexInputStateCreateInfo<'static>,
    ia: vk::PipelineInputAssemblyStateCreateInfo<'static>,
    vp: vk::PipelineViewportStateCreateInfo<'static>,
    rs: vk::PipelineRasterizationStateCreateInfo<'static>,
    ms: vk::PipelineMultisampleStateCreateInfo<'static>,
    ds: vk::PipelineDepthStencilStateCreateInfo<'static>,
    att: [vk::PipelineColorBlendAttachmentState; 1],
    dyn_states: [vk::DynamicState; 2],
    formats: [vk::Format; 1],
    /// The depth attachment format of dynamic rendering (UNDEFINED: none).
    depth_format: vk::Format,
    /// VkAttachmentSampleCountInfoAMD's colour sample count, where it differs from the
    /// rasterization samples (VK_AMD_mixed_attachment_samples).
    color_samples: Option<vk::SampleCountFlags>,
}

impl Fixed {
    fn new(samples: u32) -> Box<Fixed> {
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
            dyn_states: [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR],
            formats: [vk::Format::R8G8B8A8_UNORM],
            depth_format: vk::Format::UNDEFINED,
            color_samples: None,
        })
    }
}

/// One created object, as the scenario prints it for the test to match with the report.
struct Made {
    way: &'static str,
    kind: &'static str,
    handle: u64,
}

impl Made {
    fn new(way: &'static str, kind: &'static str, handle: impl vk::Handle) -> Self {
        Made {
            way,
            kind,
            handle: handle.as_raw(),
        }
    }
}

/// Scenarios that exercise interlock give up with a SKIP line where the device lacks it.
fn require_interlock(ctx: &Ctx) -> Res<()> {
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
fn default_shader(ctx: &Ctx) -> &'static str {
    if ctx.caps.interlock {
        "pixel_interlock_ordered.frag"
    } else {
        "color.frag"
    }
}

/// A shader stage taken from a module object, entered at `name`.
fn stage_info<'a>(
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
fn inline_fragment_stage(name: &CStr) -> vk::PipelineShaderStageCreateInfo<'_> {
    vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::FRAGMENT)
        .name(name)
}

/// The fragment shader object create info every scenario uses: SPIR-V `code` entered at `name`,
/// with the shared set layout and push constants.
fn fragment_shader_object_info<'a>(
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
fn main_pipeline(
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
fn create_complete_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    cache: vk::PipelineCache,
    flags: vk::PipelineCreateFlags,
) -> Result<Vec<vk::Pipeline>, (Vec<vk::Pipeline>, vk::Result)> {
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&fx.att);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
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
    // SAFETY: valid create info; every chained structure outlives the call.
    unsafe { ctx.device.create_graphics_pipelines(cache, &[ci], None) }
}

fn print_made(shader: &str, samples: u32, m: &Made) {
    println!(
        "{}",
        serde_json::json!({"shader": shader, "samples": samples, "way": m.way, "kind": m.kind, "handle": format!("0x{:x}", m.handle)})
    );
}

/// Creates a complete pipeline with the fragment stage `frag` (a prepared stage create info).
fn full_pipeline(
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
fn gpl_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
) -> Res<(vk::Pipeline, vk::Pipeline, Vec<vk::Pipeline>)> {
    gpl_pipeline_named(ctx, fx, (vert, c"main"), (frag, c"main"))
}

/// [`gpl_pipeline`] with the entry points of both stages named.
fn gpl_pipeline_named(
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
    let fs = lib(
        G::FRAGMENT_SHADER,
        c().stages(&fstage)
            .multisample_state(&fx.ms)
            .depth_stencil_state(&fx.ds),
    )?;
    let out = lib(
        G::FRAGMENT_OUTPUT_INTERFACE,
        c().multisample_state(&fx.ms).color_blend_state(&cb),
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
fn all_ways(ctx: &Ctx, shader: &str, samples: u32, cleanup: bool) -> Res<Vec<Made>> {
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

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn scenario_pipelines() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-pipelines")?;
    println!(
        "{}",
        serde_json::json!({"device": ctx.name, "caps": {
        "interlock": ctx.caps.interlock, "gpl": ctx.caps.gpl, "shader_object": ctx.caps.shader_object,
        "module_identifier": ctx.caps.module_identifier}})
    );
    require_interlock(&ctx)?;
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    for item in list.split(',') {
        let (shader, samples) = item.split_once(':').unwrap_or((item, "1"));
        let samples: u32 = samples
            .parse()
            .map_err(|_| format!("bad sample count in {item}"))?;
        for m in all_ways(&ctx, shader, samples, true)? {
            print_made(shader, samples, &m);
        }
    }
    ctx.destroy();
    Ok(())
}

/// Thread CPU time in nanoseconds: the driver compiles on the calling thread, and CPU time is far
/// less disturbed than wall time by other processes on a shared machine.
fn thread_cpu_ns() -> i64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|t| t.tv_sec() * 1_000_000_000 + t.tv_nsec())
        .unwrap_or(0)
}

/// The measured calls of one pipeline: vkCreateShaderModule + vkCreateGraphicsPipelines.
fn bench_create(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    let frag = ctx.module(code)?;
    let p = main_pipeline(ctx, fx, vert, frag).map_err(vkerr("pipeline"))?;
    Ok((frag, p))
}

/// [`bench_create`] on the device whose instance enables the layer. A separate, never-inlined
/// symbol so that `valgrind --tool=callgrind` gives its inclusive instruction count
/// (scripts/layer-overhead-callgrind.sh); the `black_box` keeps rustc from merging it with
/// [`bench_create_plain`], which would otherwise be the same code.
#[inline(never)]
fn bench_create_layered(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    std::hint::black_box(1u32);
    bench_create(ctx, fx, vert, code)
}

/// [`bench_create`] on the device without the layer (see [`bench_create_layered`]).
#[inline(never)]
fn bench_create_plain(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
) -> Res<(vk::ShaderModule, vk::Pipeline)> {
    std::hint::black_box(2u32);
    bench_create(ctx, fx, vert, code)
}

/// Times vkCreateShaderModule + vkCreateGraphicsPipelines (the calls the layer intercepts) for
/// the corpus shaders on two devices of one process: one whose instance enables
/// VK_LAYER_POPS_interlock, one without, alternating pipeline by pipeline (and which goes first)
/// so that load changes on the machine hit both alike. Prints wall and thread-CPU totals of each.
fn scenario_bench() -> Res<()> {
    // POPS_BENCH_CONTROL=1: an A/A run, neither device has the layer (the method's own bias).
    let control = std::env::var("POPS_BENCH_CONTROL").is_ok_and(|v| v == "1");
    let layers: &[&CStr] = if control {
        &[]
    } else {
        &[c"VK_LAYER_POPS_interlock"]
    };
    // POPS_BENCH_SWAP=1 creates the device without the layer first: the first-created device
    // measures ~2 % slower (A/A runs), so the harness alternates the order between processes.
    let (with, without) = if std::env::var("POPS_BENCH_SWAP").is_ok_and(|v| v == "1") {
        let without = create_ctx(c"pops-scenario-bench")?;
        (
            create_ctx_with_layers(c"pops-scenario-bench", layers)?,
            without,
        )
    } else {
        let with = create_ctx_with_layers(c"pops-scenario-bench", layers)?;
        (with, create_ctx(c"pops-scenario-bench")?)
    };
    let iters = env_u32("POPS_BENCH_ITERS", 5);
    let fx = Fixed::new(1);
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    let verts = [
        with.module(spv("fullscreen.vert")?)?,
        without.module(spv("fullscreen.vert")?)?,
    ];
    let ctxs = [&with, &without];
    let mut wall = [0u128; 2];
    let mut cpu = [0i64; 2];
    let mut n = 0u32;
    for it in 0..iters {
        for (k, item) in list.split(',').enumerate() {
            let shader = item.split(':').next().unwrap_or(item);
            let code = spv(shader)?;
            let order = if (it as usize + k).is_multiple_of(2) {
                [0, 1]
            } else {
                [1, 0]
            };
            for i in order {
                let ctx = ctxs[i];
                let t = std::time::Instant::now();
                let c0 = thread_cpu_ns();
                let (frag, p) = if i == 0 {
                    bench_create_layered(ctx, &fx, verts[i], code)?
                } else {
                    bench_create_plain(ctx, &fx, verts[i], code)?
                };
                cpu[i] += thread_cpu_ns() - c0;
                wall[i] += t.elapsed().as_nanos();
                // SAFETY: objects of this iteration, destroyed once.
                unsafe {
                    ctx.device.destroy_pipeline(p, None);
                    ctx.device.destroy_shader_module(frag, None);
                }
            }
            n += 1;
        }
    }
    // SAFETY: live modules of each context.
    unsafe {
        with.device.destroy_shader_module(verts[0], None);
        without.device.destroy_shader_module(verts[1], None);
    }
    println!(
        "{}",
        serde_json::json!({"pipelines": n,
            "with": {"wall_ns": wall[0] as u64, "cpu_ns": cpu[0]},
            "without": {"wall_ns": wall[1] as u64, "cpu_ns": cpu[1]}})
    );
    with.destroy();
    without.destroy();
    Ok(())
}

/// A pipeline for dynamic rendering without attachments (the draw scenarios): `vert` and
/// `frag` entered at `main` over the fixed state, with `dynamic` states.
fn attachmentless_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
    dynamic: &[vk::DynamicState],
) -> Res<vk::Pipeline> {
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic);
    let mut rendering = vk::PipelineRenderingCreateInfo::default();
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .dynamic_state(&dy)
        .layout(ctx.layout)
        .push_next(&mut rendering);
    // SAFETY: valid create info.
    unsafe {
        ctx.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .map(|p| p[0])
    .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))
}

/// The 64x64 area the draw scenarios render to.
const DRAW_AREA: vk::Rect2D = vk::Rect2D {
    offset: vk::Offset2D { x: 0, y: 0 },
    extent: vk::Extent2D {
        width: 64,
        height: 64,
    },
};

/// Begins `cb` and a render pass instance without attachments over [`DRAW_AREA`], binds
/// `pipeline` and sets its viewport and scissor.
fn begin_attachmentless(ctx: &Ctx, cb: vk::CommandBuffer, pipeline: vk::Pipeline) -> Res<()> {
    let d = &ctx.device;
    // SAFETY: a command buffer of this context in the initial state; a live pipeline.
    unsafe {
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport::default()
                .width(64.0)
                .height(64.0)
                .max_depth(1.0)],
        );
        d.cmd_set_scissor(cb, 0, &[DRAW_AREA]);
    }
    Ok(())
}

/// Records one command buffer: dynamic rendering without attachments, `pipeline` bound, `n`
/// draws. What the draw-recording benchmark measures.
fn record_draws(ctx: &Ctx, cb: vk::CommandBuffer, pipeline: vk::Pipeline, n: u32) -> Res<()> {
    let d = &ctx.device;
    begin_attachmentless(ctx, cb, pipeline)?;
    // SAFETY: `cb` is recording inside the render pass instance begun above.
    unsafe {
        for _ in 0..n {
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))
    }
}

/// [`record_draws`] on the device whose instance enables the layer (a separate never-inlined
/// symbol for callgrind's inclusive count, as [`bench_create_layered`]).
#[inline(never)]
fn record_draws_layered(ctx: &Ctx, cb: vk::CommandBuffer, p: vk::Pipeline, n: u32) -> Res<()> {
    std::hint::black_box(3u32);
    record_draws(ctx, cb, p, n)
}

/// [`record_draws`] on the device without the layer.
#[inline(never)]
fn record_draws_plain(ctx: &Ctx, cb: vk::CommandBuffer, p: vk::Pipeline, n: u32) -> Res<()> {
    std::hint::black_box(4u32);
    record_draws(ctx, cb, p, n)
}

/// The draw-recording benchmark (scripts/layer-draw-overhead-callgrind.sh): on two devices of
/// one process, one whose instance enables the layer and one without, each with an interlocked
/// and a plain pipeline, records a command buffer of POPS_BENCH_DRAWS draws (10,000) with the
/// interlocked pipeline bound (POPS_BENCH_INTERLOCK=1) or the plain one.
fn scenario_bench_draws() -> Res<()> {
    let control = std::env::var("POPS_BENCH_CONTROL").is_ok_and(|v| v == "1");
    let layers: &[&CStr] = if control {
        &[]
    } else {
        &[c"VK_LAYER_POPS_interlock"]
    };
    let with = create_ctx_with_layers(c"pops-scenario-bench-draws", layers)?;
    let without = create_ctx(c"pops-scenario-bench-draws")?;
    require_interlock(&with)?;
    let n = env_u32("POPS_BENCH_DRAWS", 10_000);
    let interlock = std::env::var("POPS_BENCH_INTERLOCK").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for (k, ctx) in [&with, &without].into_iter().enumerate() {
        let fx = Fixed::new(1);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let modules = [
            ctx.module(spv(default_shader(ctx))?)?,
            ctx.module(spv("color.frag")?)?,
        ];
        let mut pipelines = Vec::new();
        for m in modules {
            pipelines.push(attachmentless_pipeline(ctx, &fx, vert, m, &fx.dyn_states)?);
        }
        let bound = pipelines[if interlock { 0 } else { 1 }];
        // SAFETY: objects of this context, created, used and destroyed in order.
        unsafe {
            let pool = ctx.command_pool()?;
            let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
            let t = std::time::Instant::now();
            if k == 0 {
                record_draws_layered(ctx, cb, bound, n)?;
            } else {
                record_draws_plain(ctx, cb, bound, n)?;
            }
            out.push(t.elapsed().as_nanos() as u64);
            ctx.device.destroy_command_pool(pool, None);
            for p in pipelines {
                ctx.device.destroy_pipeline(p, None);
            }
            for m in modules {
                ctx.device.destroy_shader_module(m, None);
            }
            ctx.device.destroy_shader_module(vert, None);
        }
    }
    println!(
        "{}",
        serde_json::json!({"draws": n, "interlock": interlock, "with_ns": out[0], "without_ns": out[1]})
    );
    with.destroy();
    without.destroy();
    Ok(())
}

fn scenario_threads() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-threads")?;
    let threads = env_u32("POPS_SCENARIO_THREADS", 16);
    let per = env_u32("POPS_SCENARIO_PER_THREAD", 4);
    let fx = Fixed::new(1);
    let total = std::sync::atomic::AtomicU32::new(0);
    let shader = default_shader(&ctx);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| -> Res<()> {
                for _ in 0..per {
                    let vert = ctx.module(spv("fullscreen.vert")?)?;
                    let frag = ctx.module(spv(shader)?)?;
                    let p = main_pipeline(&ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
                    total.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    // SAFETY: objects of this iteration, destroyed once.
                    unsafe {
                        ctx.device.destroy_pipeline(p, None);
                        ctx.device.destroy_shader_module(frag, None);
                        ctx.device.destroy_shader_module(vert, None);
                    }
                }
                Ok(())
            });
        }
    });
    println!(
        "{}",
        serde_json::json!({"pipelines": total.load(std::sync::atomic::Ordering::Relaxed), "shader": shader})
    );
    ctx.destroy();
    Ok(())
}

fn scenario_malformed() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-malformed")?;
    let cases: Vec<(&str, Vec<u32>)> = vec![
        ("bad_magic", vec![0xdead_beef, 0x0001_0000, 0, 10, 0]),
        ("truncated", vec![0x0723_0203, 0x0001_0000]),
        (
            "huge_word_count",
            vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0xffff_0011, 1],
        ),
        (
            "zero_word_count",
            vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0x0000_0011, 1],
        ),
    ];
    for (name, w) in cases {
        let ci = vk::ShaderModuleCreateInfo::default().code(&w);
        // SAFETY: a create info with well-formed memory; the SPIR-V content is the test input.
        let r = unsafe { ctx.device.create_shader_module(&ci, None) };
        let result = match r {
            Ok(m) => {
                // SAFETY: live module.
                unsafe { ctx.device.destroy_shader_module(m, None) };
                "created".to_string()
            }
            Err(e) => e.to_string(),
        };
        println!("{}", serde_json::json!({"case": name, "result": result}));
    }
    // Destroying handles the layer never saw must pass through harmlessly.
    // SAFETY: VK_NULL_HANDLE destruction is valid for every destroy command.
    unsafe {
        ctx.device
            .destroy_shader_module(vk::ShaderModule::null(), None);
        ctx.device.destroy_pipeline(vk::Pipeline::null(), None);
    }
    ctx.destroy();
    Ok(())
}

/// One page the process may not touch: any read of it is a SIGSEGV.
fn inaccessible_page() -> Res<*const std::ffi::c_void> {
    use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
    // SAFETY: a fresh anonymous private mapping, never unmapped (the process ends with it).
    let p = unsafe {
        mmap_anonymous(
            None,
            std::num::NonZeroUsize::new(4096).ok_or("page size")?,
            ProtFlags::PROT_NONE,
            MapFlags::MAP_PRIVATE,
        )
    }
    .map_err(|e| format!("mmap: {e}"))?;
    Ok(p.as_ptr() as *const std::ffi::c_void)
}

/// Pipelines whose create infos carry pointers to an inaccessible page in every member the
/// specification says is ignored for them; prints each case's result. With and without the
/// layer the results must be the same, and the process must survive.
fn scenario_poison() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-poison")?;
    let poison = inaccessible_page()?;
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let att = fx.att;
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let base = || {
        vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&fx.vi)
            .input_assembly_state(&fx.ia)
            .viewport_state(&fx.vp)
            .rasterization_state(&fx.rs)
            .multisample_state(&fx.ms)
            .layout(ctx.layout)
    };
    let mut results = Vec::new();
    let mut run = |case: &str, ci: vk::GraphicsPipelineCreateInfo<'_>| {
        // SAFETY: every member the specification makes valid for this pipeline is valid; the
        // others point to an inaccessible page, as an application may leave them.
        let r = unsafe {
            ctx.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
        };
        let result = match r {
            Ok(p) => {
                // SAFETY: live pipeline.
                unsafe { ctx.device.destroy_pipeline(p[0], None) };
                "created".to_string()
            }
            Err((_, e)) => e.to_string(),
        };
        println!("{}", serde_json::json!({"case": case, "result": result}));
        results.push(result);
    };

    // 1. A render pass whose subpass has a colour attachment and no depth/stencil attachment:
    //    pDepthStencilState is ignored.
    let color = [vk::AttachmentDescription::default()
        .format(vk::Format::R8G8B8A8_UNORM)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::DONT_CARE)
        .store_op(vk::AttachmentStoreOp::STORE)
        .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
    let color_ref = [vk::AttachmentReference::default()
        .attachment(0)
        .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
    let subpass = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref)];
    let rpci = vk::RenderPassCreateInfo::default()
        .attachments(&color)
        .subpasses(&subpass);
    // SAFETY: valid create info.
    let rp = unsafe { ctx.device.create_render_pass(&rpci, None) }
        .map_err(vkerr("vkCreateRenderPass"))?;
    let mut ci = base()
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .render_pass(rp);
    ci.p_depth_stencil_state = poison.cast();
    run("render-pass-without-depth: pDepthStencilState", ci);

    // 2. Dynamic rendering with a colour format and no depth/stencil formats.
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
    let mut ci = base()
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .push_next(&mut rendering);
    ci.p_depth_stencil_state = poison.cast();
    run("dynamic-rendering-without-depth: pDepthStencilState", ci);

    // 3. Dynamic rendering with no attachment at all: pColorBlendState is ignored too.
    let mut nothing = vk::PipelineRenderingCreateInfo::default();
    let mut ci = base().dynamic_state(&dy).push_next(&mut nothing);
    ci.p_depth_stencil_state = poison.cast();
    ci.p_color_blend_state = poison.cast();
    run(
        "dynamic-rendering-without-attachments: pDepthStencilState, pColorBlendState",
        ci,
    );

    // 4. Blend enable, equation and write mask dynamic: pAttachments is ignored.
    if ctx.caps.dynamic_blend {
        let dyn_blend = [
            vk::DynamicState::VIEWPORT,
            vk::DynamicState::SCISSOR,
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ];
        let dyb = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_blend);
        let cb_poison = vk::PipelineColorBlendStateCreateInfo {
            attachment_count: 1,
            p_attachments: poison.cast(),
            ..Default::default()
        };
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&fx.formats);
        let ci = base()
            .color_blend_state(&cb_poison)
            .dynamic_state(&dyb)
            .push_next(&mut rendering);
        run("dynamic-blend: pColorBlendState->pAttachments", ci);
    } else {
        println!(
            "{}",
            serde_json::json!({"case": "dynamic-blend: pColorBlendState->pAttachments", "result": "unsupported"})
        );
    }
    // SAFETY: objects of this context, destroyed once.
    unsafe {
        ctx.device.destroy_render_pass(rp, None);
        ctx.device.destroy_shader_module(vert, None);
        ctx.device.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// The rasterization sample counts the `draws` scenario sets before its draws, in order.
const DRAW_SAMPLES: [u32; 4] = [1, 4, 4, 8];

/// One command buffer whose interlocked pipeline takes its rasterization sample count at draw
/// time (VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT), in dynamic rendering without attachments:
/// one draw per entry of DRAW_SAMPLES. Prints the pipeline, the command buffer and the samples.
fn scenario_draws() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_samples || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no dynamic rasterization samples or dynamic rendering",
            ctx.name
        ));
    }
    let shader = default_shader(&ctx);
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let dyn_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::RASTERIZATION_SAMPLES_EXT,
    ];
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &dyn_states)?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_attachmentless(&ctx, cb, pipeline)?;
        // The application's name for the pipeline, given after creation as engines do.
        let du = ash::ext::debug_utils::Device::new(&ctx.instance, d);
        du.set_debug_utils_object_name(
            &vk::DebugUtilsObjectNameInfoEXT::default()
                .object_handle(pipeline)
                .object_name(c"oit colour pass"),
        )
        .map_err(vkerr("vkSetDebugUtilsObjectNameEXT"))?;
        let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, d);
        for n in DRAW_SAMPLES {
            eds3.cmd_set_rasterization_samples(cb, samples_flag(n));
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)), "samples": DRAW_SAMPLES})
        );
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// A 64×64 image of `format` and `samples` with its memory and a view of `aspect`: an
/// attachment to render to.
fn attachment_image(
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

/// The colour attachments of the mixed-format draw: format, and whether it blends "over"
/// (source alpha read).
const MIXED_TARGETS: [(vk::Format, bool); 6] = [
    (vk::Format::R8G8B8A8_UNORM, false),
    (vk::Format::R16G16B16A16_SFLOAT, true),
    (vk::Format::R32_UINT, false),
    (vk::Format::R8_UNORM, false),
    (vk::Format::R16G16B16A16_UNORM, true),
    (vk::Format::R32G32_SFLOAT, false),
];

/// One draw of an interlocked pipeline rendering (dynamic rendering) to six colour attachments
/// of different formats, two of them blending with source alpha: each target's export format
/// follows its format and blending. Prints the pipeline and the command buffer.
fn scenario_draws_formats() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-formats")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv("interlock_mrt.frag")?)?;
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let formats = MIXED_TARGETS.map(|(f, _)| f);
    let blend = MIXED_TARGETS.map(|(_, over)| {
        let a = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA);
        if over {
            a.blend_enable(true)
                .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .color_blend_op(vk::BlendOp::ADD)
                .src_alpha_blend_factor(vk::BlendFactor::ONE)
                .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .alpha_blend_op(vk::BlendOp::ADD)
        } else {
            a
        }
    });
    let cb_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .color_blend_state(&cb_state)
        .dynamic_state(&dy)
        .layout(ctx.layout)
        .push_next(&mut rendering);
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))?[0];
        let mut images = Vec::new();
        for f in formats {
            images.push(attachment_image(
                &ctx,
                f,
                1,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
                vk::ImageAspectFlags::COLOR,
            )?);
        }
        let atts: Vec<_> = images
            .iter()
            .map(|(_, _, v)| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(*v)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::DONT_CARE)
                    .store_op(vk::AttachmentStoreOp::STORE)
            })
            .collect();
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1)
                .color_attachments(&atts),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport::default()
                .width(64.0)
                .height(64.0)
                .max_depth(1.0)],
        );
        d.cmd_set_scissor(cb, 0, &[DRAW_AREA]);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        println!(
            "{}",
            serde_json::json!({
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)),
                "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)),
            })
        );
        d.destroy_command_pool(pool, None);
        for (image, mem, view) in images {
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(mem, None);
        }
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// Draws of a pipeline linked from four graphics pipeline libraries (the fragment shader
/// library with interlock, 4 samples and depth testing; the fragment output library with an
/// RGBA16F colour attachment of 1 sample: VK_AMD_mixed_attachment_samples), rendering to a
/// 1-sample RGBA16F colour view and a 4-sample D32 depth view. Prints the linked pipeline, the
/// fragment library and the command buffer.
fn scenario_draws_libraries() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-libraries")?;
    require_interlock(&ctx)?;
    if !ctx.caps.gpl || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no graphics pipeline libraries or dynamic rendering",
            ctx.name
        ));
    }
    const SAMPLES: u32 = 4;
    let color_format = vk::Format::R16G16B16A16_SFLOAT;
    let depth_format = vk::Format::D32_SFLOAT;
    let mut fx = Fixed::new(SAMPLES);
    fx.formats = [color_format];
    fx.depth_format = depth_format;
    fx.color_samples = Some(vk::SampleCountFlags::TYPE_1);
    fx.ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(true)
        .depth_compare_op(vk::CompareOp::LESS);
    let shader = default_shader(&ctx);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let (fs, linked, libs) = gpl_pipeline(&ctx, &fx, vert, frag)?;
    let (cimage, cmem, cview) = attachment_image(
        &ctx,
        color_format,
        1,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        vk::ImageAspectFlags::COLOR,
    )?;
    let (dimage, dmem, dview) = attachment_image(
        &ctx,
        depth_format,
        SAMPLES,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
    )?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        let color = [vk::RenderingAttachmentInfo::default()
            .image_view(cview)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(dview)
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE);
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(DRAW_AREA)
                .layer_count(1)
                .color_attachments(&color)
                .depth_attachment(&depth),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, linked);
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport::default()
                .width(64.0)
                .height(64.0)
                .max_depth(1.0)],
        );
        d.cmd_set_scissor(cb, 0, &[DRAW_AREA]);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        println!(
            "{}",
            serde_json::json!({
                "shader": shader,
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(linked)),
                "library": format!("0x{:x}", vk::Handle::as_raw(fs)),
                "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb)),
            })
        );
        d.destroy_command_pool(pool, None);
        for (image, mem, view) in [(cimage, cmem, cview), (dimage, dmem, dview)] {
            d.destroy_image_view(view, None);
            d.destroy_image(image, None);
            d.free_memory(mem, None);
        }
        d.destroy_pipeline(linked, None);
        for l in libs {
            d.destroy_pipeline(l, None);
        }
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// What the scenario's debug-utils messenger received: (message id name, id number, first
/// object's handle, its name).
type Message = (String, i32, u64, Option<String>);
static MESSAGES: std::sync::Mutex<Vec<Message>> = std::sync::Mutex::new(Vec::new());

unsafe extern "system" fn collect_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    // SAFETY: the callback data a messenger receives is valid for the call.
    unsafe {
        let d = &*data;
        let s = |p: *const std::ffi::c_char| {
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        let (handle, name) = if d.object_count > 0 && !d.p_objects.is_null() {
            let o = &*d.p_objects;
            (o.object_handle, s(o.p_object_name))
        } else {
            (0, None)
        };
        if let Ok(mut m) = MESSAGES.lock() {
            m.push((
                s(d.p_message_id_name).unwrap_or_default(),
                d.message_id_number,
                handle,
                name,
            ));
        }
    }
    vk::FALSE
}

/// An application with a VK_EXT_debug_utils messenger: an interlocked 4-sample pipeline, named
/// after creation, drawn once. Prints the pipeline and every message the messenger received.
fn scenario_messenger() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-messenger")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    let du = ash::ext::debug_utils::Instance::new(&ctx._entry, &ctx.instance);
    use vk::DebugUtilsMessageSeverityFlagsEXT as S;
    use vk::DebugUtilsMessageTypeFlagsEXT as T;
    // SAFETY: a valid create info; the messenger is destroyed below.
    let messenger = unsafe {
        du.create_debug_utils_messenger(
            &vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(S::INFO | S::WARNING | S::ERROR)
                .message_type(T::GENERAL | T::VALIDATION | T::PERFORMANCE)
                .pfn_user_callback(Some(collect_message)),
            None,
        )
    }
    .map_err(vkerr("vkCreateDebugUtilsMessengerEXT"))?;
    let fx = Fixed::new(4);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &fx.dyn_states)?;
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        ash::ext::debug_utils::Device::new(&ctx.instance, d)
            .set_debug_utils_object_name(
                &vk::DebugUtilsObjectNameInfoEXT::default()
                    .object_handle(pipeline)
                    .object_name(c"oit colour pass"),
            )
            .map_err(vkerr("vkSetDebugUtilsObjectNameEXT"))?;
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_attachmentless(&ctx, cb, pipeline)?;
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
        du.destroy_debug_utils_messenger(messenger, None);
    }
    let messages: Vec<_> = MESSAGES
        .lock()
        .map_err(|_| "messages lock")?
        .iter()
        .map(|(id, n, h, name)| serde_json::json!({"id": id, "number": n, "handle": format!("0x{h:x}"), "name": name}))
        .collect();
    println!(
        "{}",
        serde_json::json!({"pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "messages": messages})
    );
    ctx.destroy();
    Ok(())
}

/// Two instances in one process; the first asks (through VK_EXT_layer_settings, debug builds of
/// the layer only) for a panic inside the layer's work at vkCreateShaderModule. Each creates an
/// interlocked pipeline. Prints both pipelines: the application must not notice anything.
fn scenario_fault_two_instances() -> Res<()> {
    std::env::set_var(
        "POPS_SCENARIO_API_SETTINGS",
        "test_fault=vkCreateShaderModule",
    );
    let faulty = create_ctx(c"pops-scenario-fault-a");
    std::env::remove_var("POPS_SCENARIO_API_SETTINGS");
    let faulty = faulty?;
    let healthy = create_ctx(c"pops-scenario-fault-b")?;
    require_interlock(&faulty)?;
    let mut made = Vec::new();
    for ctx in [&faulty, &healthy] {
        let fx = Fixed::new(4);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let frag = ctx.module(spv(default_shader(ctx))?)?;
        let p = main_pipeline(ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
        made.push(format!("0x{:x}", vk::Handle::as_raw(p)));
        // SAFETY: objects of this context, unused by any command buffer.
        unsafe {
            ctx.device.destroy_pipeline(p, None);
            ctx.device.destroy_shader_module(vert, None);
            ctx.device.destroy_shader_module(frag, None);
        }
    }
    println!(
        "{}",
        serde_json::json!({"faulty": made[0], "healthy": made[1]})
    );
    faulty.destroy();
    healthy.destroy();
    Ok(())
}

/// Many repeated draws in command buffers recorded in alternation (the layer's lock-free draw
/// counting, its table and its slow path): A and B draw with the interlocked pipeline at 4
/// samples, drawing in turn; A also binds a plain pipeline for some draws (not counted) and
/// changes its sample count once; C draws only with the plain pipeline. Prints the handles and
/// the draws each made.
fn scenario_draws_interleaved() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-interleaved")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_samples || !ctx.caps.dynamic_rendering {
        return Err(format!(
            "SKIP {}: no dynamic rasterization samples or dynamic rendering",
            ctx.name
        ));
    }
    let fx = Fixed::new(1);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let plain_frag = ctx.module(spv("color.frag")?)?;
    let dyn_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::RASTERIZATION_SAMPLES_EXT,
    ];
    let interlocked = attachmentless_pipeline(&ctx, &fx, vert, frag, &dyn_states)?;
    let plain = attachmentless_pipeline(&ctx, &fx, vert, plain_frag, &dyn_states)?;
    let d = &ctx.device;
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, d);
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pool = ctx.command_pool()?;
        let [a, b, c] = [(); 3].map(|_| ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY));
        let (a, b, c) = (a?, b?, c?);
        begin_attachmentless(&ctx, a, interlocked)?;
        begin_attachmentless(&ctx, b, interlocked)?;
        begin_attachmentless(&ctx, c, plain)?;
        for cb in [a, b, c] {
            eds3.cmd_set_rasterization_samples(cb, vk::SampleCountFlags::TYPE_4);
        }
        let (mut a4, mut a8, mut b4) = (0u32, 0u32, 0u32);
        for i in 0..300u32 {
            match i {
                100 => d.cmd_bind_pipeline(a, vk::PipelineBindPoint::GRAPHICS, plain),
                150 => d.cmd_bind_pipeline(a, vk::PipelineBindPoint::GRAPHICS, interlocked),
                250 => eds3.cmd_set_rasterization_samples(a, vk::SampleCountFlags::TYPE_8),
                _ => {}
            }
            d.cmd_draw(a, 3, 1, 0, 0);
            if !(100..150).contains(&i) {
                if i < 250 {
                    a4 += 1;
                } else {
                    a8 += 1;
                }
            }
            d.cmd_draw(b, 3, 1, 0, 0);
            b4 += 1;
            d.cmd_draw(c, 3, 1, 0, 0);
        }
        for cb in [a, b, c] {
            d.cmd_end_rendering(cb);
            d.end_command_buffer(cb)
                .map_err(vkerr("vkEndCommandBuffer"))?;
        }
        let h = |cb: vk::CommandBuffer| format!("0x{:x}", vk::Handle::as_raw(cb));
        println!(
            "{}",
            serde_json::json!({
                "pipeline": format!("0x{:x}", vk::Handle::as_raw(interlocked)),
                "a": h(a), "b": h(b), "c": h(c),
                "expected": [[h(a), 4, a4], [h(a), 8, a8], [h(b), 4, b4]],
            })
        );
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(interlocked, None);
        d.destroy_pipeline(plain, None);
        for m in [vert, frag, plain_frag] {
            d.destroy_shader_module(m, None);
        }
    }
    ctx.destroy();
    Ok(())
}

/// Draws rendering to a 4-sample D32_SFLOAT depth attachment with depth testing: one in the
/// primary command buffer, two in a secondary that continues the render pass instance
/// (VkCommandBufferInheritanceRenderingInfo), one more in the primary through a render pass and
/// framebuffer (vkCmdBeginRenderPass2). Prints the pipelines and both command buffers.
fn scenario_draws_depth() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-depth")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    const SAMPLES: u32 = 4;
    let depth_format = vk::Format::D32_SFLOAT;
    let shader = default_shader(&ctx);
    let mut fx = Fixed::new(SAMPLES);
    fx.ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(true)
        .depth_compare_op(vk::CompareOp::LESS);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(shader)?)?;
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&fx.dyn_states);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().depth_attachment_format(depth_format);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&fx.vi)
        .input_assembly_state(&fx.ia)
        .viewport_state(&fx.vp)
        .rasterization_state(&fx.rs)
        .multisample_state(&fx.ms)
        .depth_stencil_state(&fx.ds)
        .dynamic_state(&dy)
        .layout(ctx.layout)
        .push_next(&mut rendering);
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))?[0];
        let (image, mem, view) = attachment_image(
            &ctx,
            depth_format,
            SAMPLES,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageAspectFlags::DEPTH,
        )?;
        let pool = ctx.command_pool()?;
        let primary = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        let secondary = ctx.command_buffer(pool, vk::CommandBufferLevel::SECONDARY)?;
        let area = vk::Rect2D::default().extent(vk::Extent2D {
            width: 64,
            height: 64,
        });
        let viewport = [vk::Viewport::default()
            .width(64.0)
            .height(64.0)
            .max_depth(1.0)];
        // The secondary: continues a render pass instance with the depth attachment.
        let mut inh_rendering = vk::CommandBufferInheritanceRenderingInfo::default()
            .depth_attachment_format(depth_format)
            .rasterization_samples(samples_flag(SAMPLES));
        let inh = vk::CommandBufferInheritanceInfo::default().push_next(&mut inh_rendering);
        d.begin_command_buffer(
            secondary,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
                .inheritance_info(&inh),
        )
        .map_err(vkerr("vkBeginCommandBuffer (secondary)"))?;
        d.cmd_bind_pipeline(secondary, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_set_viewport(secondary, 0, &viewport);
        d.cmd_set_scissor(secondary, 0, &[area]);
        d.cmd_draw(secondary, 3, 1, 0, 0);
        d.cmd_draw(secondary, 3, 1, 0, 0);
        d.end_command_buffer(secondary)
            .map_err(vkerr("vkEndCommandBuffer (secondary)"))?;
        // The primary: one draw of its own, then the secondary in a second render pass
        // instance.
        d.begin_command_buffer(primary, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        let depth = vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE);
        let info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .depth_attachment(&depth);
        d.cmd_begin_rendering(primary, &info);
        d.cmd_bind_pipeline(primary, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_set_viewport(primary, 0, &viewport);
        d.cmd_set_scissor(primary, 0, &[area]);
        d.cmd_draw(primary, 3, 1, 0, 0);
        d.cmd_end_rendering(primary);
        let info2 = info.flags(vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS);
        d.cmd_begin_rendering(primary, &info2);
        d.cmd_execute_commands(primary, &[secondary]);
        d.cmd_end_rendering(primary);
        // The same attachment through a render pass and framebuffer (vkCmdBeginRenderPass2), with
        // a pipeline created against its subpass.
        let att = [vk::AttachmentDescription2::default()
            .format(depth_format)
            .samples(samples_flag(SAMPLES))
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .final_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)];
        let ds_ref = vk::AttachmentReference2::default()
            .attachment(0)
            .layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .aspect_mask(vk::ImageAspectFlags::DEPTH);
        let sub = [vk::SubpassDescription2::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .depth_stencil_attachment(&ds_ref)];
        let rp = d
            .create_render_pass2(
                &vk::RenderPassCreateInfo2::default()
                    .attachments(&att)
                    .subpasses(&sub),
                None,
            )
            .map_err(vkerr("vkCreateRenderPass2"))?;
        let views = [view];
        let fb = d
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(rp)
                    .attachments(&views)
                    .width(64)
                    .height(64)
                    .layers(1),
                None,
            )
            .map_err(vkerr("vkCreateFramebuffer"))?;
        let rp_ci = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&fx.vi)
            .input_assembly_state(&fx.ia)
            .viewport_state(&fx.vp)
            .rasterization_state(&fx.rs)
            .multisample_state(&fx.ms)
            .depth_stencil_state(&fx.ds)
            .dynamic_state(&dy)
            .layout(ctx.layout)
            .render_pass(rp);
        let rp_pipeline = d
            .create_graphics_pipelines(vk::PipelineCache::null(), &[rp_ci], None)
            .map_err(|(_, e)| format!("vkCreateGraphicsPipelines (render pass): {e}"))?[0];
        let clear = [vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 0,
            },
        }];
        d.cmd_begin_render_pass2(
            primary,
            &vk::RenderPassBeginInfo::default()
                .render_pass(rp)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clear),
            &vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE),
        );
        d.cmd_bind_pipeline(primary, vk::PipelineBindPoint::GRAPHICS, rp_pipeline);
        d.cmd_set_viewport(primary, 0, &viewport);
        d.cmd_set_scissor(primary, 0, &[area]);
        d.cmd_draw(primary, 3, 1, 0, 0);
        d.cmd_end_render_pass2(primary, &vk::SubpassEndInfo::default());
        d.end_command_buffer(primary)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "samples": SAMPLES, "pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "render_pass_pipeline": format!("0x{:x}", vk::Handle::as_raw(rp_pipeline)), "primary": format!("0x{:x}", vk::Handle::as_raw(primary)), "secondary": format!("0x{:x}", vk::Handle::as_raw(secondary))})
        );
        d.destroy_pipeline(rp_pipeline, None);
        d.destroy_framebuffer(fb, None);
        d.destroy_render_pass(rp, None);
        d.destroy_command_pool(pool, None);
        d.destroy_image_view(view, None);
        d.destroy_image(image, None);
        d.free_memory(mem, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(vert, None);
        d.destroy_shader_module(frag, None);
    }
    ctx.destroy();
    Ok(())
}

/// Shader objects (every state dynamic): a vertex and an interlocked fragment shader object,
/// dynamic rendering without attachments, the rasterization sample count set between draws
/// (1, then 4 for two draws). Prints the fragment shader object and the command buffer.
fn scenario_draws_shader_objects() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-draws-so")?;
    require_interlock(&ctx)?;
    if !ctx.caps.shader_object || !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no shader objects", ctx.name));
    }
    let shader = default_shader(&ctx);
    let so = ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device);
    let vcode = spv("fullscreen.vert")?;
    let fcode = spv(shader)?;
    let vci = vk::ShaderCreateInfoEXT::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .next_stage(vk::ShaderStageFlags::FRAGMENT)
        .code_type(vk::ShaderCodeTypeEXT::SPIRV)
        .code(vcode)
        .name(c"main")
        .set_layouts(std::slice::from_ref(&ctx.set_layout))
        .push_constant_ranges(&PUSH_CONSTANTS);
    let fci = fragment_shader_object_info(&ctx, fcode, c"main");
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        let shaders = so
            .create_shaders(&[vci, fci], None)
            .map_err(|(_, e)| format!("vkCreateShadersEXT: {e}"))?;
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        let area = vk::Rect2D::default().extent(vk::Extent2D {
            width: 64,
            height: 64,
        });
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1),
        );
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
                shaders[0],
                vk::ShaderEXT::null(),
                vk::ShaderEXT::null(),
                vk::ShaderEXT::null(),
                shaders[1],
            ],
        );
        // Every state a shader-object draw needs.
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
        for n in [1u32, 4, 4] {
            so.cmd_set_rasterization_samples(cb, samples_flag(n));
            so.cmd_set_sample_mask(cb, samples_flag(n), &[u32::MAX]);
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        println!(
            "{}",
            serde_json::json!({"shader": shader, "fragment": format!("0x{:x}", vk::Handle::as_raw(shaders[1])), "command_buffer": format!("0x{:x}", vk::Handle::as_raw(cb))})
        );
        d.destroy_command_pool(pool, None);
        for s in shaders {
            so.destroy_shader(s, None);
        }
    }
    ctx.destroy();
    Ok(())
}

fn scenario_two() -> Res<()> {
    let a = create_ctx(c"pops-scenario-two-a")?;
    let b = create_ctx(c"pops-scenario-two-b")?;
    let shader = default_shader(&a);
    let ma = all_ways(&a, shader, 1, false)?;
    let mb = all_ways(&b, shader, 1, false)?;
    for m in ma.iter().chain(&mb) {
        print_made(shader, 1, m);
    }
    // Destroy in the other order than creation; pipelines are left to device destruction
    // (invalid for the app, but the layer must cope with the handles it tracks going away).
    b.destroy();
    let ma2 = all_ways(&a, shader, 1, true)?;
    println!("{}", serde_json::json!({"after_destroy_b": ma2.len()}));
    a.destroy();
    // No instance left: the loader may unload the layer; a new instance loads it again.
    let c = create_ctx(c"pops-scenario-two-c")?;
    for m in all_ways(&c, shader, 1, true)? {
        print_made(shader, 1, &m);
    }
    c.destroy();
    Ok(())
}

fn scenario_exit_with_live_device() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-exit")?;
    let shader = default_shader(&ctx);
    let made = all_ways(&ctx, shader, 1, false)?;
    for m in &made {
        print_made(shader, 1, m);
    }
    std::mem::forget(ctx);
    std::process::exit(0);
}

/// Renders a 64×64 frame of `color.frag` and writes the bytes to POPS_SCENARIO_OUT.
fn scenario_render() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-render")?;
    let out = std::env::var("POPS_SCENARIO_OUT").map_err(|_| "POPS_SCENARIO_OUT not set")?;
    let bytes = render(&ctx)?;
    std::fs::write(&out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{}",
        serde_json::json!({"device": ctx.name, "bytes": bytes.len()})
    );
    ctx.destroy();
    Ok(())
}

fn render(ctx: &Ctx) -> Res<Vec<u8>> {
    const W: u32 = 64;
    let d = &ctx.device;
    // SAFETY (whole function): objects created and destroyed here in order, with waits before
    // reading back; every create info is well-formed.
    unsafe {
        let mem_props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let find = |bits: u32, flags: vk::MemoryPropertyFlags| -> Res<u32> {
            (0..mem_props.memory_type_count)
                .find(|&i| {
                    bits & (1 << i) != 0
                        && mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(flags)
                })
                .ok_or_else(|| "no memory type".to_string())
        };
        // Memory for `req` of the first type with `flags`.
        let allocate = |req: vk::MemoryRequirements,
                        flags: vk::MemoryPropertyFlags|
         -> Res<vk::DeviceMemory> {
            d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(find(req.memory_type_bits, flags)?),
                None,
            )
            .map_err(vkerr("memory"))
        };
        let img = d
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .extent(vk::Extent3D {
                        width: W,
                        height: W,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(
                        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                    ),
                None,
            )
            .map_err(vkerr("image"))?;
        let req = d.get_image_memory_requirements(img);
        let img_mem = allocate(req, vk::MemoryPropertyFlags::empty())?;
        d.bind_image_memory(img, img_mem, 0)
            .map_err(vkerr("bind"))?;
        let size = (W * W * 4) as u64;
        let buf = d
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(vk::BufferUsageFlags::TRANSFER_DST),
                None,
            )
            .map_err(vkerr("buffer"))?;
        let breq = d.get_buffer_memory_requirements(buf);
        let buf_mem = allocate(
            breq,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        d.bind_buffer_memory(buf, buf_mem, 0)
            .map_err(vkerr("bind"))?;
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(img)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(range),
                None,
            )
            .map_err(vkerr("view"))?;
        let fx = Fixed::new(1);
        let vert = ctx.module(spv("fullscreen.vert")?)?;
        let frag = ctx.module(spv("color.frag")?)?;
        let pipe = main_pipeline(ctx, &fx, vert, frag).map_err(vkerr("pipeline"))?;
        let pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family),
                None,
            )
            .map_err(vkerr("pool"))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .map_err(vkerr("cb"))?[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("begin"))?;
        let barrier = |old, new, src, dst, sa, da| {
            let b = vk::ImageMemoryBarrier::default()
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(sa)
                .dst_access_mask(da)
                .image(img)
                .subresource_range(range)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED);
            (b, src, dst)
        };
        let (b, s, t) = barrier(
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags::empty(),
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        );
        d.cmd_pipeline_barrier(cb, s, t, vk::DependencyFlags::empty(), &[], &[], &[b]);
        let att = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 0.0, 1.0],
                },
            })];
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: W,
                height: W,
            },
        };
        d.cmd_begin_rendering(
            cb,
            &vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1)
                .color_attachments(&att),
        );
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
        d.cmd_set_viewport(
            cb,
            0,
            &[vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: W as f32,
                height: W as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }],
        );
        d.cmd_set_scissor(cb, 0, &[area]);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        let (b, s, t) = barrier(
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::AccessFlags::TRANSFER_READ,
        );
        d.cmd_pipeline_barrier(cb, s, t, vk::DependencyFlags::empty(), &[], &[], &[b]);
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: W,
                height: W,
                depth: 1,
            });
        d.cmd_copy_image_to_buffer(
            cb,
            img,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            buf,
            &[region],
        );
        d.end_command_buffer(cb).map_err(vkerr("end"))?;
        let queue = d.get_device_queue(ctx.queue_family, 0);
        let cbs = [cb];
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .map_err(vkerr("submit"))?;
        d.queue_wait_idle(queue).map_err(vkerr("wait"))?;
        let ptr = d
            .map_memory(buf_mem, 0, size, vk::MemoryMapFlags::empty())
            .map_err(vkerr("map"))?;
        let bytes = std::slice::from_raw_parts(ptr as *const u8, size as usize).to_vec();
        d.unmap_memory(buf_mem);
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline(pipe, None);
        d.destroy_shader_module(frag, None);
        d.destroy_shader_module(vert, None);
        d.destroy_image_view(view, None);
        d.destroy_buffer(buf, None);
        d.free_memory(buf_mem, None);
        d.destroy_image(img, None);
        d.free_memory(img_mem, None);
        Ok(bytes)
    }
}

/// The corpus modules with several entry points and the fragment entry points the `entries`
/// scenario builds pipelines from, by `pName` (`module:entry` items).
pub const DEFAULT_ENTRIES: &str = "multi_entry_linked.link:frag_ordered,multi_entry_linked.link:frag_no_color,divergent_interlock.spvasm:begin_in_selection,divergent_interlock.spvasm:begin_in_loop,divergent_interlock.spvasm:helper_twice,divergent_interlock.spvasm:helper_under_branch,divergent_interlock.spvasm:kill_before_begin,divergent_interlock.spvasm:return_before_begin,divergent_interlock.spvasm:end_in_both_branches,divergent_interlock.spvasm:sample_id_entry,divergent_interlock.spvasm:no_interlock";

/// The vertex stage for a module: its own vertex entry point where it has one (so that the
/// pipeline's two stages name two entry points of the same module), else `fullscreen.vert`.
fn vertex_stage_of(
    ctx: &Ctx,
    module: &str,
    frag: vk::ShaderModule,
) -> Res<(vk::ShaderModule, &'static CStr, bool)> {
    if module == "multi_entry_linked.link" {
        return Ok((frag, c"vs_fullscreen", false));
    }
    Ok((ctx.module(spv("fullscreen.vert")?)?, c"main", true))
}

/// Graphics pipelines (and shader objects) from the multi-entry corpus modules, one per fragment
/// entry point chosen by `pName` (POPS_SCENARIO_ENTRIES, `module:entry` items). One module object
/// per corpus module serves every entry point. Each attempt prints `{"module", "entry", "way",
/// "kind", "handle"}` when created, or `{"module", "entry", "way", "error"}` with the unchanged
/// VkResult when the driver refused it; the scenario goes on either way.
fn scenario_entries() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-entries")?;
    require_interlock(&ctx)?;
    let samples = env_u32("POPS_SCENARIO_SAMPLES", 4);
    let fx = Fixed::new(samples);
    let list = std::env::var("POPS_SCENARIO_ENTRIES").unwrap_or_else(|_| DEFAULT_ENTRIES.into());
    let mut modules: Vec<(String, vk::ShaderModule, vk::ShaderModule, &CStr, bool)> = Vec::new();
    let so = ctx
        .caps
        .shader_object
        .then(|| ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device));
    let print = |module: &str, entry: &str, way: &str, r: Result<(&str, u64), vk::Result>| {
        let v = match r {
            Ok((kind, h)) => serde_json::json!({"module": module, "entry": entry, "way": way,
                "kind": kind, "handle": format!("0x{h:x}"), "samples": samples}),
            Err(e) => serde_json::json!({"module": module, "entry": entry, "way": way,
                "error": format!("{e:?}")}),
        };
        println!("{v}");
    };
    for item in list.split(',') {
        let (module, entry) = item
            .split_once(':')
            .ok_or_else(|| format!("bad entry item {item} (module:entry)"))?;
        let centry = std::ffi::CString::new(entry).map_err(|e| e.to_string())?;
        let code = spv(module)?;
        let (frag, vert, vname) = match modules.iter().find(|m| m.0 == module) {
            Some(m) => (m.1, m.2, m.3),
            None => {
                let frag = ctx.module(code)?;
                let (vert, vname, own) = vertex_stage_of(&ctx, module, frag)?;
                modules.push((module.to_string(), frag, vert, vname, own));
                (frag, vert, vname)
            }
        };
        let destroy = |p: vk::Pipeline| {
            // SAFETY: a pipeline of this loop, destroyed once, nothing uses it.
            unsafe { ctx.device.destroy_pipeline(p, None) };
        };
        // Creates the pipeline with this fragment stage, prints the outcome as `way`, and
        // destroys what was made.
        let attempt = |way: &str, frag_stage: vk::PipelineShaderStageCreateInfo<'_>| {
            let stages = [
                stage_info(vk::ShaderStageFlags::VERTEX, vert, vname),
                frag_stage,
            ];
            let r = match create_complete_pipeline(
                &ctx,
                &fx,
                &stages,
                vk::PipelineCache::null(),
                vk::PipelineCreateFlags::empty(),
            ) {
                Ok(p) => Ok(p[0]),
                Err((p, e)) => {
                    // A driver may return an error with a pipeline anyway; never leak it.
                    for p in p.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                        // SAFETY: a pipeline this call created, destroyed once.
                        unsafe { ctx.device.destroy_pipeline(p, None) };
                    }
                    Err(e)
                }
            };
            print(
                module,
                entry,
                way,
                r.map(|p| ("pipeline", vk::Handle::as_raw(p))),
            );
            if let Ok(p) = r {
                destroy(p);
            }
        };

        attempt(
            "module",
            stage_info(vk::ShaderStageFlags::FRAGMENT, frag, &centry),
        );

        if ctx.caps.gpl {
            let w = words(code)?;
            let mut smci = vk::ShaderModuleCreateInfo::default().code(&w);
            attempt(
                "inline",
                inline_fragment_stage(&centry).push_next(&mut smci),
            );

            // A fragment-shader library linked into the final pipeline: the layer must carry the
            // library's pName into the linked pipeline's record. On a refusal no handle exists.
            match gpl_pipeline_named(&ctx, &fx, (vert, vname), (frag, &centry)) {
                Ok((fs, linked, libs)) => {
                    print(
                        module,
                        entry,
                        "gpl",
                        Ok(("library", vk::Handle::as_raw(fs))),
                    );
                    print(
                        module,
                        entry,
                        "gpl",
                        Ok(("pipeline", vk::Handle::as_raw(linked))),
                    );
                    destroy(linked);
                    libs.into_iter().for_each(destroy);
                }
                Err(e) => println!(
                    "{}",
                    serde_json::json!({"module": module, "entry": entry, "way": "gpl", "error": e})
                ),
            }
        }

        if let Some(so) = &so {
            let ci = fragment_shader_object_info(&ctx, code, &centry);
            // SAFETY: valid create info.
            let r = match unsafe { so.create_shaders(&[ci], None) } {
                Ok(s) => Ok(s[0]),
                Err((s, e)) => {
                    for s in s.into_iter().filter(|s| *s != vk::ShaderEXT::null()) {
                        // SAFETY: a shader object this call created, destroyed once.
                        unsafe { so.destroy_shader(s, None) };
                    }
                    Err(e)
                }
            };
            print(
                module,
                entry,
                "shader_object",
                r.map(|s| ("shader_object", vk::Handle::as_raw(s))),
            );
            if let Ok(s) = r {
                // SAFETY: live shader object, destroyed once.
                unsafe { so.destroy_shader(s, None) };
            }
        }
    }
    for (_, frag, vert, _, own) in modules {
        // SAFETY: modules of this scenario, destroyed once after every pipeline.
        unsafe {
            if own {
                ctx.device.destroy_shader_module(vert, None);
            }
            ctx.device.destroy_shader_module(frag, None);
        }
    }
    ctx.destroy();
    Ok(())
}

fn main() -> ExitCode {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let r = match scenario.as_str() {
        "pipelines" => scenario_pipelines(),
        "entries" => scenario_entries(),
        "threads" => scenario_threads(),
        "malformed" => scenario_malformed(),
        "poison" => scenario_poison(),
        "draws" => scenario_draws(),
        "draws-depth" => scenario_draws_depth(),
        "draws-shader-objects" => scenario_draws_shader_objects(),
        "draws-interleaved" => scenario_draws_interleaved(),
        "draws-formats" => scenario_draws_formats(),
        "draws-libraries" => scenario_draws_libraries(),
        "messenger" => scenario_messenger(),
        "fault-two-instances" => scenario_fault_two_instances(),
        "two" => scenario_two(),
        "exit-live" => scenario_exit_with_live_device(),
        "render" => scenario_render(),
        "bench" => scenario_bench(),
        "bench-draws" => scenario_bench_draws(),
        other => Err(format!("unknown scenario '{other}'")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.starts_with("SKIP") => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("scenario {scenario} failed: {e}");
            ExitCode::FAILURE
        }
    }
}
