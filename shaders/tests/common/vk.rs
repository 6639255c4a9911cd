//! RADV as an oracle: builds an interlocked graphics pipeline on RADV's "null hardware" device
//! (`RADV_FORCE_FAMILY=<chip>`, no GPU needed) and returns ACO's disassembly of the fragment shader
//! through VK_KHR_pipeline_executable_properties.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

use super::Skip;
use ash::vk;

const RADV_ICD: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";

/// Compiles `vert`/`frag` SPIR-V into a graphics pipeline on RADV forced to `family` and returns
/// the text of the fragment shader executable's "Assembly" (or "Disassembly") representation.
///
/// Sets process environment variables, so call it from a test binary with a single test.
pub fn aco_fragment_disassembly(family: &str, vert: &[u32], frag: &[u32]) -> Result<String, Skip> {
    aco_fragment_disassembly_with(family, vert, frag, false)
}

/// [`aco_fragment_disassembly`], with the colour blend enable, equation and write mask dynamic
/// where `dynamic_blend` (VK_EXT_extended_dynamic_state3): RADV then compiles the exports into a
/// separate PS epilog that the main part jumps to.
#[allow(dead_code)]
pub fn aco_fragment_disassembly_with(
    family: &str,
    vert: &[u32],
    frag: &[u32],
    dynamic_blend: bool,
) -> Result<String, Skip> {
    aco_fragment_disassembly_on(
        std::path::Path::new(RADV_ICD),
        family,
        vert,
        frag,
        dynamic_blend,
    )
}

/// The RADV built without LLVM that records command buffers (`target/radv-oracle`): its
/// "Assembly" is ACO's program listing, without encodings.
#[allow(dead_code)]
pub fn oracle_icd() -> Result<std::path::PathBuf, Skip> {
    let icd = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/radv-oracle/radeon_oracle_icd.json");
    if icd.is_file() {
        Ok(icd)
    } else {
        Err(Skip(format!(
            "{} not built (bash ../shared/tools/radv-oracle/build.sh target/radv-oracle)",
            icd.display()
        )))
    }
}

/// [`aco_fragment_disassembly_with`] on the driver of the ICD manifest `icd`.
pub fn aco_fragment_disassembly_on(
    icd: &std::path::Path,
    family: &str,
    vert: &[u32],
    frag: &[u32],
    dynamic_blend: bool,
) -> Result<String, Skip> {
    if !icd.exists() {
        return Err(Skip(format!(
            "ICD manifest {} not installed",
            icd.display()
        )));
    }
    std::env::set_var("VK_DRIVER_FILES", icd);
    std::env::set_var("VK_ICD_FILENAMES", icd);
    std::env::set_var("RADV_FORCE_FAMILY", family);
    // The loader is loaded once per process and kept: unloading and reloading it (and the
    // LLVM-linked driver behind it) hundreds of times crashes at unload now and then.
    static ENTRY: std::sync::OnceLock<Result<ash::Entry, String>> = std::sync::OnceLock::new();
    // SAFETY: loading the system Vulkan loader; its initialisation has no preconditions.
    let entry = match ENTRY.get_or_init(|| unsafe { ash::Entry::load() }.map_err(|e| e.to_string()))
    {
        Ok(e) => e,
        Err(e) => {
            return Err(Skip(format!(
                "Vulkan loader (libvulkan1) not loadable: {e}"
            )))
        }
    };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let ici = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: valid create info; the instance is destroyed before returning.
    let instance = match unsafe { entry.create_instance(&ici, None) } {
        Ok(i) => i,
        Err(e) => return Err(Skip(format!("vkCreateInstance failed with RADV: {e}"))),
    };
    let result = with_instance(&instance, family, vert, frag, dynamic_blend);
    // SAFETY: every child object was destroyed in with_instance.
    unsafe { instance.destroy_instance(None) };
    result
}

fn with_instance(
    instance: &ash::Instance,
    family: &str,
    vert: &[u32],
    frag: &[u32],
    dynamic_blend: bool,
) -> Result<String, Skip> {
    // SAFETY: the instance is valid.
    let pdevs = unsafe { instance.enumerate_physical_devices() }.map_err(|e| {
        Skip(format!(
            "no physical device with RADV_FORCE_FAMILY={family}: {e}"
        ))
    })?;
    let pdev = pdevs
        .into_iter()
        .find(|&p| {
            // SAFETY: p comes from enumerate_physical_devices.
            let props = unsafe { instance.get_physical_device_properties(p) };
            props.vendor_id == 0x1002
        })
        .ok_or_else(|| Skip(format!("RADV exposed no device for {family}")))?;

    let exts = [
        ash::ext::fragment_shader_interlock::NAME.as_ptr(),
        ash::khr::pipeline_executable_properties::NAME.as_ptr(),
        ash::ext::extended_dynamic_state3::NAME.as_ptr(),
    ];
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(true)
        .extended_dynamic_state3_color_blend_equation(true)
        .extended_dynamic_state3_color_write_mask(true);
    let mut interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
        .fragment_shader_pixel_interlock(true)
        .fragment_shader_sample_interlock(true);
    let mut exec_props = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // Sample shading (gl_SampleID, per-sample interlock variants) needs its feature.
    let features = vk::PhysicalDeviceFeatures::default()
        .sample_rate_shading(true)
        .fragment_stores_and_atomics(true);
    let dci = vk::DeviceCreateInfo::default()
        .enabled_features(&features)
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut interlock)
        .push_next(&mut exec_props)
        .push_next(&mut eds3)
        .push_next(&mut v13);
    // SAFETY: valid create info chain whose structs outlive the call.
    let device = unsafe { instance.create_device(pdev, &dci, None) }
        .map_err(|e| Skip(format!("vkCreateDevice on RADV {family} failed: {e}")))?;
    let result = with_device(instance, &device, vert, frag, dynamic_blend);
    // SAFETY: all children destroyed in with_device.
    unsafe { device.destroy_device(None) };
    result
}

fn with_device(
    instance: &ash::Instance,
    device: &ash::Device,
    vert: &[u32],
    frag: &[u32],
    dynamic_blend: bool,
) -> Result<String, Skip> {
    // SAFETY (whole function): every handle is created from `device` here, used while alive and
    // destroyed before returning; create infos point at locals that outlive the calls.
    unsafe {
        let vs = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(vert), None)
            .expect("vertex shader module");
        let fs = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(frag), None)
            .expect("fragment shader module");
        // The layout the fragment shader declares (set 0, push constants).
        let (bindings, push) = set_0_bindings(frag);
        let dsl = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .expect("descriptor set layout");
        let set_layouts = [dsl];
        let push_ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
            .offset(0)
            .size(128)];
        let layout = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(if push { &push_ranges } else { &[] }),
                None,
            )
            .expect("pipeline layout");

        let main = c"main";
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vs)
                .name(main),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fs)
                .name(main),
        ];
        let vi = vk::PipelineVertexInputStateCreateInfo::default();
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: 64.0,
            height: 64.0,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissors = [vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: 64,
                height: 64,
            },
        }];
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let att = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
        let formats = [vk::Format::R8G8B8A8_UNORM];
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let dynamic_states = [
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default()
            .dynamic_states(if dynamic_blend { &dynamic_states } else { &[] });
        let gpci = vk::GraphicsPipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR)
            .dynamic_state(&dynamic)
            .stages(&stages)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .color_blend_state(&cb)
            .layout(layout)
            .push_next(&mut rendering);
        let pipeline = device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[gpci], None)
            .map_err(|(_, e)| e)
            .expect("RADV compiles the interlocked pipeline")[0];

        let text = fragment_representation(instance, device, pipeline);

        device.destroy_pipeline(pipeline, None);
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_set_layout(dsl, None);
        device.destroy_shader_module(vs, None);
        device.destroy_shader_module(fs, None);
        Ok(text)
    }
}

/// The descriptor bindings of set 0 the fragment shader declares, and whether it has push
/// constants.
fn set_0_bindings(frag: &[u32]) -> (Vec<vk::DescriptorSetLayoutBinding<'static>>, bool) {
    use shaders::spirv::interface::DescriptorKind as K;
    let iface =
        shaders::spirv::interface::interface(frag).expect("the fragment shader's interface");
    let bindings = iface
        .descriptors
        .iter()
        .filter(|d| d.set == 0)
        .map(|d| {
            let t = match d.kind {
                K::Sampler => vk::DescriptorType::SAMPLER,
                K::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                K::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
                K::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
                K::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
                K::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
                K::InputAttachment => vk::DescriptorType::INPUT_ATTACHMENT,
                K::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
            };
            vk::DescriptorSetLayoutBinding::default()
                .binding(d.binding)
                .descriptor_type(t)
                .descriptor_count(d.count)
                .stage_flags(vk::ShaderStageFlags::ALL_GRAPHICS)
        })
        .collect();
    (bindings, iface.push_constants)
}

/// The fragment shader's "Assembly" of `pipeline`, created with
/// CAPTURE_INTERNAL_REPRESENTATIONS.
fn fragment_representation(
    instance: &ash::Instance,
    device: &ash::Device,
    pipeline: vk::Pipeline,
) -> String {
    let ext = ash::khr::pipeline_executable_properties::Device::new(instance, device);
    // SAFETY: `pipeline` is alive on `device`, which has the extension enabled.
    let execs = unsafe {
        ext.get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipeline))
    }
    .expect("pipeline executable properties");
    let index = execs
        .iter()
        .position(|e| e.stages.contains(vk::ShaderStageFlags::FRAGMENT))
        .expect("a fragment shader executable") as u32;
    let info = vk::PipelineExecutableInfoKHR::default()
        .pipeline(pipeline)
        .executable_index(index);
    // SAFETY: as above; `info` names one of the pipeline's executables.
    unsafe { read_representation(&ext, &info) }
}

/// Reads the textual "Assembly"/"Disassembly" representation (the two-call protocol: sizes
/// first, then caller-allocated buffers, which ash's wrapper does not do for pData).
///
/// # Safety
/// `info` names a live pipeline created with CAPTURE_INTERNAL_REPRESENTATIONS.
unsafe fn read_representation(
    ext: &ash::khr::pipeline_executable_properties::Device,
    info: &vk::PipelineExecutableInfoKHR<'_>,
) -> String {
    let fp = ext.fp();
    let mut count = 0u32;
    (fp.get_pipeline_executable_internal_representations_khr)(
        ext.device(),
        info,
        &mut count,
        std::ptr::null_mut(),
    )
    .result()
    .expect("count representations");
    let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
    (fp.get_pipeline_executable_internal_representations_khr)(
        ext.device(),
        info,
        &mut count,
        reps.as_mut_ptr(),
    )
    .result()
    .expect("size representations");
    let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
    for (r, b) in reps.iter_mut().zip(buffers.iter_mut()) {
        r.p_data = b.as_mut_ptr().cast();
    }
    (fp.get_pipeline_executable_internal_representations_khr)(
        ext.device(),
        info,
        &mut count,
        reps.as_mut_ptr(),
    )
    .result()
    .expect("read representations");
    let mut names = Vec::new();
    for (r, b) in reps.iter().zip(buffers.iter()) {
        let name = r
            .name_as_c_str()
            .map(|c| c.to_string_lossy().to_string())
            .unwrap_or_default();
        names.push(name.clone());
        if r.is_text == vk::TRUE && name.to_ascii_lowercase().contains("assembly") {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            return String::from_utf8_lossy(&b[..end]).to_string();
        }
    }
    panic!("RADV returned no assembly representation; got {names:?}");
}
