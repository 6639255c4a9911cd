//! Shader modules, the one descriptor/pipeline layout all passes share, and the two pipelines of
//! a combination: the colour pass (fragments into the A-buffer or lists, tail into the
//! attachment) and the resolve pass.

use crate::config::{Algorithm, Combo};
use crate::device::{vk_err, DeviceError, Gpu};
use ash::vk;
use pm4::{Granularity, Ordering};

mod spirv {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

/// The tail attachment: floating point, so blending many tail fragments adds no 8-bit rounding.
pub const TAIL_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The resolved image written to the PNG.
pub const OUTPUT_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// `Push` in shaders/common.glsl.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Push {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    pub unit_count: u32,
    pub node_capacity: u32,
    pub pad: [u32; 3],
}

impl Push {
    pub fn bytes(&self) -> [u8; 32] {
        let w = [
            self.width,
            self.height,
            self.samples,
            self.unit_count,
            self.node_capacity,
            0,
            0,
            0,
        ];
        let mut out = [0u8; 32];
        for (i, v) in w.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// The SPIR-V variant names of a combination: (colour fragment shader, resolve fragment shader).
pub fn variant_names(combo: Combo) -> (String, String) {
    let p = combo.aa.per_sample() as u32;
    let ms = (combo.aa.samples() > 1) as u32;
    match combo.algorithm {
        Algorithm::Interlock(m) => (
            format!(
                "interlock_o{}_s{}_p{p}",
                (m.ordering == Ordering::Ordered) as u32,
                (m.granularity == Granularity::Sample) as u32
            ),
            format!("resolve_l0_p{p}_m{ms}"),
        ),
        Algorithm::LinkedList => (format!("linkedlist_p{p}"), format!("resolve_l1_p{p}_m{ms}")),
    }
}

fn spirv_words(name: &str) -> Result<Vec<u32>, DeviceError> {
    let bytes = spirv::SPIRV
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .ok_or(DeviceError::Vk {
            call: "shader variant lookup",
            result: vk::Result::ERROR_INITIALIZATION_FAILED,
        })?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes)).map_err(|_| DeviceError::Vk {
        call: "SPIR-V read",
        result: vk::Result::ERROR_INVALID_SHADER_NV,
    })
}

fn shader_module(gpu: &Gpu, name: &str) -> Result<vk::ShaderModule, DeviceError> {
    let words = spirv_words(name)?;
    let info = vk::ShaderModuleCreateInfo::default().code(&words);
    // SAFETY: valid device; `words` is SPIR-V built by glslangValidator.
    unsafe { gpu.device.create_shader_module(&info, None) }.map_err(vk_err("vkCreateShaderModule"))
}

/// Layouts and sampler shared by every combination.
pub struct Layouts {
    pub set_layout: vk::DescriptorSetLayout,
    pub pipeline_layout: vk::PipelineLayout,
    pub sampler: vk::Sampler,
}

impl Layouts {
    pub fn new(gpu: &Gpu) -> Result<Layouts, DeviceError> {
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let mut bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..4)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
        bindings.push(
            vk::DescriptorSetLayoutBinding::default()
                .binding(4)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT),
        );
        let set_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(stages)
            .offset(0)
            .size(32)];
        // SAFETY: valid device and create infos; destroyed in `destroy`.
        unsafe {
            let set_layout = gpu
                .device
                .create_descriptor_set_layout(&set_info, None)
                .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
            let layouts = [set_layout];
            let pl_info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&layouts)
                .push_constant_ranges(&ranges);
            let pipeline_layout = gpu
                .device
                .create_pipeline_layout(&pl_info, None)
                .map_err(vk_err("vkCreatePipelineLayout"))?;
            let sampler_info = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST);
            let sampler = gpu
                .device
                .create_sampler(&sampler_info, None)
                .map_err(vk_err("vkCreateSampler"))?;
            Ok(Layouts {
                set_layout,
                pipeline_layout,
                sampler,
            })
        }
    }

    pub fn destroy(&self, gpu: &Gpu) {
        // SAFETY: no pipeline or set using these is in flight.
        unsafe {
            gpu.device.destroy_sampler(self.sampler, None);
            gpu.device
                .destroy_pipeline_layout(self.pipeline_layout, None);
            gpu.device
                .destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// The two pipelines of one combination.
pub struct ComboPipelines {
    pub color: vk::Pipeline,
    pub resolve: vk::Pipeline,
}

struct PipelineDesc<'a> {
    vert: &'a str,
    frag: &'a str,
    samples: u32,
    sample_shading: bool,
    format: vk::Format,
    blend: bool,
    write_color: bool,
}

fn graphics_pipeline(
    gpu: &Gpu,
    layouts: &Layouts,
    d: PipelineDesc,
) -> Result<vk::Pipeline, DeviceError> {
    let vs = shader_module(gpu, d.vert)?;
    let fs = match shader_module(gpu, d.frag) {
        Ok(m) => m,
        Err(e) => {
            // SAFETY: the module is unused.
            unsafe { gpu.device.destroy_shader_module(vs, None) };
            return Err(e);
        }
    };
    let entry = c"main";
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(entry),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(entry),
    ];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::from_raw(d.samples))
        .sample_shading_enable(d.sample_shading)
        .min_sample_shading(if d.sample_shading { 1.0 } else { 0.0 });
    let attachment = [vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(d.blend)
        // Premultiplied "over": a later tail fragment covers what is already there.
        .src_color_blend_factor(vk::BlendFactor::ONE)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD)
        .color_write_mask(if d.write_color {
            vk::ColorComponentFlags::RGBA
        } else {
            vk::ColorComponentFlags::empty()
        })];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachment);
    let dynamic_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::RASTERIZATION_SAMPLES_EXT,
    ];
    // `--dynamic`: the sample count is set at draw time (render.rs), not fixed here.
    let n_dynamic = if gpu.dynamic_samples { 3 } else { 2 };
    let dynamic =
        vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states[..n_dynamic]);
    let formats = [d.format];
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layouts.pipeline_layout)
        .push_next(&mut rendering);
    // SAFETY: every struct referenced by `info` lives until the call returns; the modules are
    // destroyed after pipeline creation, which Vulkan allows.
    let result = unsafe {
        gpu.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    };
    // SAFETY: the modules are no longer needed.
    unsafe {
        gpu.device.destroy_shader_module(vs, None);
        gpu.device.destroy_shader_module(fs, None);
    }
    match result {
        Ok(p) => Ok(p[0]),
        Err((_, e)) => Err(DeviceError::Vk {
            call: "vkCreateGraphicsPipelines",
            result: e,
        }),
    }
}

impl ComboPipelines {
    pub fn new(gpu: &Gpu, layouts: &Layouts, combo: Combo) -> Result<ComboPipelines, DeviceError> {
        let (color_fs, resolve_fs) = variant_names(combo);
        let interlock = matches!(combo.algorithm, Algorithm::Interlock(_));
        let color = graphics_pipeline(
            gpu,
            layouts,
            PipelineDesc {
                vert: "scene_vert",
                frag: &color_fs,
                samples: combo.aa.samples(),
                sample_shading: combo.aa.per_sample(),
                format: TAIL_FORMAT,
                blend: interlock,
                write_color: interlock,
            },
        )?;
        let resolve = match graphics_pipeline(
            gpu,
            layouts,
            PipelineDesc {
                vert: "fullscreen_vert",
                frag: &resolve_fs,
                samples: 1,
                sample_shading: false,
                format: OUTPUT_FORMAT,
                blend: false,
                write_color: true,
            },
        ) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: the colour pipeline is unused.
                unsafe { gpu.device.destroy_pipeline(color, None) };
                return Err(e);
            }
        };
        Ok(ComboPipelines { color, resolve })
    }

    pub fn destroy(&self, gpu: &Gpu) {
        // SAFETY: no command buffer using them is in flight.
        unsafe {
            gpu.device.destroy_pipeline(self.color, None);
            gpu.device.destroy_pipeline(self.resolve, None);
        }
    }
}
