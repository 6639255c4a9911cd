//! A fragment shader compiled by RADV for any chip, without its GPU: stock RADV on a null device
//! (a drm-shim, or `RADV_FORCE_FAMILY` where the driver honours it; `crate::null_device`) builds a graphics pipeline of the module with a full-screen
//! vertex stage and a layout made from the module's own resource interface, and hands back the
//! fragment executable's "Assembly" representation (VK_KHR_pipeline_executable_properties) —
//! the code a real GPU of that chip would run.

use ash::vk;
use pm4::Family;
use shaders::spirv::interface::{interface, DescriptorKind};
use std::ffi::CString;

/// The full-screen vertex stage (`compare/shaders/fullscreen.vert`, compiled by glslang).
const FULLSCREEN_VERT: &[u8] = include_bytes!("../shaders/fullscreen.vert.spv");

/// How the fragment shader is built into its pipeline.
pub struct Options<'a> {
    pub entry: &'a str,
    /// Colour blending dynamic (VK_EXT_extended_dynamic_state3): RADV then puts the exports in a
    /// PS epilog the main part jumps to.
    pub dynamic_blend: bool,
    /// Rasterization samples.
    pub samples: u32,
    /// The null device RADV runs on.
    pub device: &'a crate::null_device::NullDevice,
}

/// RADV's code, and which driver made it.
pub struct Compiled {
    pub assembly: String,
    /// With dynamic blending: the PS epilog RADV compiled for the first draw (colour blending
    /// off, an RGBA8 target), the code the main part jumps into.
    pub epilog: Option<String>,
    /// The driver's name and version as it reports them (`radv`, `Mesa 26.2.6-1`).
    pub driver: String,
}

/// Why the shader could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("not SPIR-V: {0}")]
    Spirv(#[from] shaders::spirv::SpirvError),
    #[error("a driver would reject it: {0}")]
    Invalid(#[from] shaders::spirv::validity::Invalid),
    #[error("the module has no fragment entry point named {0:?} (fragment entry points: {1:?})")]
    Entry(String, Vec<String>),
    #[error("the Vulkan loader could not be loaded ({0}); install libvulkan1")]
    Loader(String),
    #[error("RADV (radeon_icd.json) is not installed; install mesa-vulkan-drivers")]
    NoRadv,
    #[error("RADV offered no device for {chip} on {device}: {why}{hint}")]
    NoDevice {
        chip: &'static str,
        device: String,
        why: String,
        hint: &'static str,
    },
    #[error("the driver does not offer {feature}, which the entry point's {mode} interlock needs: nothing was compiled (a driver handed it anyway may crash)")]
    Unsupported {
        feature: &'static str,
        mode: &'static str,
    },
    #[error("{samples} samples is not a sample count (1, 2, 4, 8 or 16)")]
    Samples { samples: u32 },
    #[error("{what} failed: {result}")]
    Vulkan {
        what: &'static str,
        result: vk::Result,
    },
    #[error("RADV returned no textual assembly of the fragment shader (representations: {0:?})")]
    NoAssembly(Vec<String>),
    #[error("RADV's PS epilog could not be read: {0}")]
    Epilog(#[from] crate::radv_epilog::EpilogError),
}

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> CompileError {
    move |result| CompileError::Vulkan { what, result }
}

/// The environment the Vulkan loader and RADV must see, in this process, before
/// [`fragment_assembly`] creates its instance (RADV reads it there): `VK_DRIVER_FILES` to RADV's
/// manifest unless the user chose a driver (`current` gives the variables set now),
/// `RADV_FORCE_FAMILY` for [`NullDevice::ForceFamily`], and `RADV_DEBUG` with `epilogs` where
/// the blending is dynamic (RADV hands out a PS epilog's code only in its debug dump). Pure: the
/// caller sets them, from a single thread, before any other Vulkan use.
///
/// [`NullDevice::ForceFamily`]: crate::null_device::NullDevice::ForceFamily
pub fn environment(
    chip: Family,
    o: &Options<'_>,
    current: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(&'static str, String)>, CompileError> {
    let mut env = Vec::new();
    // A driver the user chose (their own Mesa build) is kept; otherwise the installed RADV.
    let chosen = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"]
        .iter()
        .any(|v| current(v).is_some_and(|s| !s.is_empty()));
    if !chosen {
        let icd = crate::launch::find_radv_icd().ok_or(CompileError::NoRadv)?;
        env.push(("VK_DRIVER_FILES", icd.to_string_lossy().into_owned()));
    }
    if *o.device == crate::null_device::NullDevice::ForceFamily {
        env.push(("RADV_FORCE_FAMILY", chip.name().to_string()));
    }
    if o.dynamic_blend {
        let debug = current("RADV_DEBUG").unwrap_or_default();
        if !debug.split(',').any(|d| d == "epilogs") {
            let joined = if debug.is_empty() {
                "epilogs".to_string()
            } else {
                format!("{debug},epilogs")
            };
            env.push(("RADV_DEBUG", joined));
        }
    }
    Ok(env)
}

/// RADV's assembly of `fragment` (SPIR-V words) compiled for `chip`, in a process whose
/// environment holds [`environment`]'s variables.
pub fn fragment_assembly(
    chip: Family,
    fragment: &[u32],
    o: &Options<'_>,
) -> Result<Compiled, CompileError> {
    // What RADV would be handed must be a valid fragment stage: a driver may crash on less.
    shaders::spirv::validity::check(fragment)?;
    let info = shaders::spirv::analyze(fragment)?;
    let fragments = || {
        info.entry_points
            .iter()
            .filter(|e| e.execution_model == shaders::spirv::ExecutionModel::Fragment)
            .map(|e| e.name.clone())
            .collect::<Vec<_>>()
    };
    let Some(interlock) = info
        .entry_point(o.entry, shaders::spirv::ExecutionModel::Fragment)
        .map(|e| e.interlock)
    else {
        return Err(CompileError::Entry(o.entry.into(), fragments()));
    };
    let iface = interface(fragment)?;
    let entry_name =
        CString::new(o.entry).map_err(|_| CompileError::Entry(o.entry.into(), fragments()))?;
    let samples = match o.samples {
        1 => vk::SampleCountFlags::TYPE_1,
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        16 => vk::SampleCountFlags::TYPE_16,
        s => return Err(CompileError::Samples { samples: s }),
    };
    // SAFETY: loads the system Vulkan loader; nothing else in this process uses Vulkan.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| CompileError::Loader(e.to_string()))?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    // SAFETY: a valid create info; the instance is destroyed below.
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )
    }
    .map_err(vkerr("vkCreateInstance"))?;
    let job = Job {
        chip,
        fragment,
        iface,
        entry: entry_name,
        samples,
        dynamic_blend: o.dynamic_blend,
        device: o.device,
        interlock,
    };
    let r = with_instance(&instance, &job);
    // SAFETY: every child of the instance was destroyed in with_instance.
    unsafe { instance.destroy_instance(None) };
    r
}

/// What is compiled, checked and converted for Vulkan.
struct Job<'a> {
    chip: Family,
    fragment: &'a [u32],
    iface: shaders::spirv::interface::Interface,
    entry: CString,
    samples: vk::SampleCountFlags,
    dynamic_blend: bool,
    device: &'a crate::null_device::NullDevice,
    /// The entry point's declared interlock, whose feature the driver must offer.
    interlock: Option<pm4::InterlockMode>,
}

fn with_instance(instance: &ash::Instance, job: &Job<'_>) -> Result<Compiled, CompileError> {
    let no_device = |why: String| CompileError::NoDevice {
        chip: job.chip.name(),
        device: job.device.describe(job.chip),
        why,
        hint: match job.device {
            crate::null_device::NullDevice::ForceFamily => {
                " (Mesa 26 has no RADV_FORCE_FAMILY: install Mesa's drm-shim, package \
                 mesa-drm-shim, or name one with --drm-shim)"
            }
            crate::null_device::NullDevice::DrmShim { .. } => "",
        },
    };
    // SAFETY: a live instance.
    let pdev = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| no_device(e.to_string()))?
        .into_iter()
        // SAFETY: p comes from the instance.
        .find(|&p| unsafe { instance.get_physical_device_properties(p) }.vendor_id == pm4::AMD_PCI_VENDOR)
        .ok_or_else(|| no_device("no AMD device".into()))?;
    let exts = [
        ash::ext::fragment_shader_interlock::NAME.as_ptr(),
        ash::khr::pipeline_executable_properties::NAME.as_ptr(),
        ash::ext::extended_dynamic_state3::NAME.as_ptr(),
    ];
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(true)
        .extended_dynamic_state3_color_blend_equation(true)
        .extended_dynamic_state3_color_write_mask(true);
    // Only what the driver offers is enabled, and an interlock it does not offer is refused
    // before anything reaches it.
    let offered = interlock_features(instance, pdev);
    refuse_unoffered(&offered, job.interlock)?;
    let mut interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
        .fragment_shader_pixel_interlock(offered.fragment_shader_pixel_interlock == vk::TRUE)
        .fragment_shader_sample_interlock(offered.fragment_shader_sample_interlock == vk::TRUE)
        .fragment_shader_shading_rate_interlock(
            offered.fragment_shader_shading_rate_interlock == vk::TRUE,
        );
    let mut exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .runtime_descriptor_array(true)
        .vulkan_memory_model(true)
        .vulkan_memory_model_device_scope(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures::default()
        .sample_rate_shading(true)
        .fragment_stores_and_atomics(true)
        .shader_int64(true);
    let dci = vk::DeviceCreateInfo::default()
        .enabled_features(&features)
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut interlock)
        .push_next(&mut exec)
        .push_next(&mut eds3)
        .push_next(&mut v12)
        .push_next(&mut v13);
    // SAFETY: a valid create info whose chained structures outlive the call.
    let device = unsafe { instance.create_device(pdev, &dci, None) }
        .map_err(|e| no_device(format!("vkCreateDevice: {e}")))?;
    let r = with_device(instance, pdev, &device, job);
    // SAFETY: every child of the device was destroyed in with_device.
    unsafe { device.destroy_device(None) };
    let (assembly, epilog) = r?;
    Ok(Compiled {
        assembly,
        epilog,
        driver: driver_of(instance, pdev),
    })
}

/// The interlock features the device offers.
fn interlock_features(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
) -> vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'static> {
    let mut il = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut il);
    // SAFETY: a query on a live physical device with a chained structure that outlives it.
    unsafe { instance.get_physical_device_features2(pdev, &mut f2) };
    vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT {
        p_next: std::ptr::null_mut(),
        ..il
    }
}

/// The named refusal where the entry point's interlock needs a feature the device lacks. Pure.
fn refuse_unoffered(
    offered: &vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'_>,
    mode: Option<pm4::InterlockMode>,
) -> Result<(), CompileError> {
    use pm4::Granularity;
    let Some(mode) = mode else { return Ok(()) };
    let (feature, on) = match mode.granularity {
        Granularity::Pixel => (
            "fragmentShaderPixelInterlock",
            offered.fragment_shader_pixel_interlock,
        ),
        Granularity::Sample => (
            "fragmentShaderSampleInterlock",
            offered.fragment_shader_sample_interlock,
        ),
        Granularity::ShadingRate => (
            "fragmentShaderShadingRateInterlock",
            offered.fragment_shader_shading_rate_interlock,
        ),
    };
    if on == vk::TRUE {
        Ok(())
    } else {
        Err(CompileError::Unsupported {
            feature,
            mode: mode.name(),
        })
    }
}

/// The driver's name and version as it reports them (VkPhysicalDeviceDriverProperties).
fn driver_of(instance: &ash::Instance, pdev: vk::PhysicalDevice) -> String {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: a query on a live physical device with a chained structure that outlives it.
    unsafe { instance.get_physical_device_properties2(pdev, &mut p2) };
    let name = driver
        .driver_name_as_c_str()
        .map(|c| c.to_string_lossy().into_owned());
    let info = driver
        .driver_info_as_c_str()
        .map(|c| c.to_string_lossy().into_owned());
    match (name, info) {
        (Ok(n), Ok(i)) if !i.is_empty() => format!("{n} ({i})"),
        (Ok(n), _) => n,
        _ => "an unnamed driver".to_string(),
    }
}

fn descriptor_type(k: DescriptorKind) -> vk::DescriptorType {
    match k {
        DescriptorKind::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::InputAttachment => vk::DescriptorType::INPUT_ATTACHMENT,
        DescriptorKind::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}

/// Objects of the device destroyed when dropped, whatever the outcome.
struct Owned<'d> {
    device: &'d ash::Device,
    modules: Vec<vk::ShaderModule>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: each handle was created from `device` (or is null) and is used by nothing else.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            for &l in &self.set_layouts {
                self.device.destroy_descriptor_set_layout(l, None);
            }
            for &m in &self.modules {
                self.device.destroy_shader_module(m, None);
            }
        }
    }
}

/// The fragment shader's assembly, and its PS epilog's where the blending is dynamic.
fn with_device(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    device: &ash::Device,
    job: &Job<'_>,
) -> Result<(String, Option<String>), CompileError> {
    let vert = shaders::spirv::module::words_from_bytes(FULLSCREEN_VERT)?;
    let mut own = Owned {
        device,
        modules: Vec::new(),
        set_layouts: Vec::new(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
    };
    for code in [&vert[..], job.fragment] {
        // SAFETY: a valid create info; the module is destroyed with `own`.
        let m = unsafe {
            device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
        }
        .map_err(vkerr("vkCreateShaderModule"))?;
        own.modules.push(m);
    }
    layouts(device, job, &mut own)?;
    own.pipeline = pipeline(device, job, &own)?;
    let ext = ash::khr::pipeline_executable_properties::Device::new(instance, device);
    // SAFETY: a live pipeline created with its representations captured.
    let code = unsafe { assembly(&ext, own.pipeline) }?;
    let epilog = if job.dynamic_blend {
        crate::radv_epilog::epilog(instance, pdev, device, own.pipeline, job.samples)?
    } else {
        None
    };
    Ok((code, epilog))
}

/// The pipeline layout the module's interface asks for (its descriptor sets, and push constants
/// where it has them), into `own`.
fn layouts(device: &ash::Device, job: &Job<'_>, own: &mut Owned<'_>) -> Result<(), CompileError> {
    // One set layout per set up to the highest the module uses (empty ones between).
    let sets = job
        .iface
        .descriptors
        .iter()
        .map(|d| d.set + 1)
        .max()
        .unwrap_or(0);
    for set in 0..sets {
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = job
            .iface
            .descriptors
            .iter()
            .filter(|d| d.set == set)
            .map(|d| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(d.binding)
                    .descriptor_type(descriptor_type(d.kind))
                    .descriptor_count(d.count)
                    .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
            })
            .collect();
        // SAFETY: a valid create info; the layout is destroyed with `own`.
        let l = unsafe {
            device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
        }
        .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
        own.set_layouts.push(l);
    }
    // The push constant block's size is not read: the largest every implementation offers.
    let push = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
        .size(128)];
    // SAFETY: a valid create info; the layout is destroyed with `own`.
    own.layout = unsafe {
        device.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&own.set_layouts)
                .push_constant_ranges(if job.iface.push_constants { &push } else { &[] }),
            None,
        )
    }
    .map_err(vkerr("vkCreatePipelineLayout"))?;
    Ok(())
}

/// The full-screen pipeline of the job's fragment shader, its representations captured; blending
/// dynamic where the job asks (RADV then compiles the exports into a PS epilog).
fn pipeline(
    device: &ash::Device,
    job: &Job<'_>,
    own: &Owned<'_>,
) -> Result<vk::Pipeline, CompileError> {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(own.modules[0])
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(own.modules[1])
            .name(&job.entry),
    ];
    let vi = vk::PipelineVertexInputStateCreateInfo::default();
    let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let vp = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let rs = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .line_width(1.0);
    let ms = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(job.samples);
    let att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let formats = [vk::Format::R8G8B8A8_UNORM];
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let mut dynamic_states = vec![vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    if job.dynamic_blend {
        dynamic_states.extend([
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ]);
    }
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR)
        .stages(&stages)
        .vertex_input_state(&vi)
        .input_assembly_state(&ia)
        .viewport_state(&vp)
        .rasterization_state(&rs)
        .multisample_state(&ms)
        .color_blend_state(&cb)
        .dynamic_state(&dynamic)
        .layout(own.layout)
        .push_next(&mut rendering);
    // SAFETY: a valid create info whose structures outlive the call.
    unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
        .map(|p| p[0])
        .map_err(|(_, e)| CompileError::Vulkan {
            what: "vkCreateGraphicsPipelines",
            result: e,
        })
}

/// The fragment executable's textual "Assembly" (or "Disassembly") representation.
///
/// # Safety
/// `pipeline` is live and was created with CAPTURE_INTERNAL_REPRESENTATIONS.
unsafe fn assembly(
    ext: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
) -> Result<String, CompileError> {
    // SAFETY (whole function): two-call idioms on a live pipeline; every buffer has the size the
    // driver reported.
    unsafe {
        let execs = ext
            .get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipeline))
            .map_err(vkerr("vkGetPipelineExecutablePropertiesKHR"))?;
        let index = execs
            .iter()
            .position(|e| e.stages.contains(vk::ShaderStageFlags::FRAGMENT))
            .ok_or_else(|| CompileError::NoAssembly(Vec::new()))?;
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index as u32);
        let fp = ext.fp();
        let get = fp.get_pipeline_executable_internal_representations_khr;
        let what = "vkGetPipelineExecutableInternalRepresentationsKHR";
        let mut n = 0u32;
        get(ext.device(), &info, &mut n, std::ptr::null_mut())
            .result()
            .map_err(vkerr(what))?;
        let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n as usize];
        get(ext.device(), &info, &mut n, reps.as_mut_ptr())
            .result()
            .map_err(vkerr(what))?;
        let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
        for (r, b) in reps.iter_mut().zip(buffers.iter_mut()) {
            r.p_data = b.as_mut_ptr().cast();
        }
        get(ext.device(), &info, &mut n, reps.as_mut_ptr())
            .result()
            .map_err(vkerr(what))?;
        let mut names = Vec::new();
        for (r, b) in reps.iter().zip(&buffers) {
            let name = r
                .name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            if r.is_text == vk::TRUE && matches!(name.as_str(), "Assembly" | "Disassembly") {
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                return Ok(String::from_utf8_lossy(&b[..end]).into_owned());
            }
            names.push(name);
        }
        Err(CompileError::NoAssembly(names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pm4::{Granularity, InterlockMode, Ordering};

    /// What RADV offers on GFX9–GFX11: pixel and sample interlock, not shading-rate interlock.
    fn radv() -> vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'static> {
        vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
            .fragment_shader_pixel_interlock(true)
            .fragment_shader_sample_interlock(true)
    }

    #[test]
    fn an_interlock_the_driver_lacks_is_refused_by_name() {
        let sr = InterlockMode::new(Granularity::ShadingRate, Ordering::Ordered);
        let e = refuse_unoffered(&radv(), Some(sr)).unwrap_err().to_string();
        assert!(e.contains("fragmentShaderShadingRateInterlock"), "{e}");
        assert!(e.contains("shading-rate-ordered"), "{e}");
        for g in [Granularity::Pixel, Granularity::Sample] {
            assert!(
                refuse_unoffered(&radv(), Some(InterlockMode::new(g, Ordering::Unordered))).is_ok()
            );
        }
        assert!(
            refuse_unoffered(&radv(), None).is_ok(),
            "no interlock needs nothing"
        );
    }
}
