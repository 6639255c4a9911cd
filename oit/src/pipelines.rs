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

/// Whether `build.rs` compiled a variant of this name.
#[cfg(test)]
pub(crate) fn has_variant(name: &str) -> bool {
    spirv::SPIRV.iter().any(|(n, _)| *n == name)
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
    /// The push constants of every stage (shader objects declare them themselves).
    pub push_range: vk::PushConstantRange,
    pub sampler: vk::Sampler,
}

impl Layouts {
    /// The OIT passes' layout: four storage buffers (triangles, A-buffer, per-unit data, node
    /// counter) and the tail image to resolve.
    pub fn new(gpu: &Gpu) -> Result<Layouts, DeviceError> {
        use vk::DescriptorType as T;
        Layouts::with(
            gpu,
            &[
                T::STORAGE_BUFFER,
                T::STORAGE_BUFFER,
                T::STORAGE_BUFFER,
                T::STORAGE_BUFFER,
                T::COMBINED_IMAGE_SAMPLER,
            ],
        )
    }

    /// A layout of one set whose binding `i` is one descriptor of `types[i]`, seen by both
    /// stages, and 32 bytes of push constants.
    pub fn with(gpu: &Gpu, types: &[vk::DescriptorType]) -> Result<Layouts, DeviceError> {
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = types
            .iter()
            .enumerate()
            .map(|(b, &ty)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b as u32)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
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
                push_range: ranges[0],
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

/// One pass's shaders and fixed state: a pipeline, or (`--shader-objects`) a vertex and a
/// fragment shader object with the state the command buffer sets for them.
pub enum Pass {
    /// A pipeline, with its colour blend state for `--dynamic-blend`, which sets it at draw time.
    Pipeline {
        pipeline: vk::Pipeline,
        /// `--libraries`: the libraries it was linked from.
        libraries: Vec<vk::Pipeline>,
        blend: bool,
        write_color: bool,
    },
    Shaders {
        vert: vk::ShaderEXT,
        frag: vk::ShaderEXT,
        samples: u32,
        blend: bool,
        write_color: bool,
    },
}

/// The two passes of one combination.
pub struct ComboPipelines {
    pub color: Pass,
    pub resolve: Pass,
}

/// The colour attachment's blend state of a pass: premultiplied "over" where it blends (a later
/// tail fragment covers what is already there).
fn blend_attachment(blend: bool, write_color: bool) -> vk::PipelineColorBlendAttachmentState {
    vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(blend)
        .src_color_blend_factor(vk::BlendFactor::ONE)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD)
        .color_write_mask(if write_color {
            vk::ColorComponentFlags::RGBA
        } else {
            vk::ColorComponentFlags::empty()
        })
}

/// The blend equation of an attachment's blend state, as the command buffer sets it.
fn blend_equation(a: &vk::PipelineColorBlendAttachmentState) -> vk::ColorBlendEquationEXT {
    vk::ColorBlendEquationEXT::default()
        .src_color_blend_factor(a.src_color_blend_factor)
        .dst_color_blend_factor(a.dst_color_blend_factor)
        .color_blend_op(a.color_blend_op)
        .src_alpha_blend_factor(a.src_alpha_blend_factor)
        .dst_alpha_blend_factor(a.dst_alpha_blend_factor)
        .alpha_blend_op(a.alpha_blend_op)
}

/// Binds a pass for drawing to `area`: its pipeline (then its rasterization sample count where
/// it is dynamic), or its shader objects and every state they need.
pub fn bind(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    pass: &Pass,
    viewport: vk::Viewport,
    area: vk::Rect2D,
) {
    let d = &gpu.device;
    match (pass, &gpu.so) {
        (
            Pass::Pipeline {
                pipeline,
                blend,
                write_color,
                ..
            },
            _,
        ) => {
            // SAFETY: a command buffer in the recording state inside a render pass instance.
            unsafe {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, *pipeline);
                d.cmd_set_viewport(cmd, 0, &[viewport]);
                d.cmd_set_scissor(cmd, 0, &[area]);
            }
            if let (true, Some(e)) = (gpu.dynamic_blend, &gpu.eds3) {
                let a = blend_attachment(*blend, *write_color);
                // SAFETY: as above; the bound pipeline has these states dynamic and the device
                // enabled their features.
                unsafe {
                    e.cmd_set_color_blend_enable(cmd, 0, &[a.blend_enable]);
                    e.cmd_set_color_blend_equation(cmd, 0, &[blend_equation(&a)]);
                    e.cmd_set_color_write_mask(cmd, 0, &[a.color_write_mask]);
                }
            }
        }
        (
            Pass::Shaders {
                vert,
                frag,
                samples,
                blend,
                write_color,
            },
            Some(so),
        ) => {
            let a = blend_attachment(*blend, *write_color);
            let samples = vk::SampleCountFlags::from_raw(*samples);
            // SAFETY: as above; the device enabled shaderObject, whose commands these are.
            unsafe {
                so.cmd_bind_shaders(
                    cmd,
                    &[vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT],
                    &[*vert, *frag],
                );
                so.cmd_set_viewport_with_count(cmd, &[viewport]);
                so.cmd_set_scissor_with_count(cmd, &[area]);
                so.cmd_set_vertex_input(cmd, &[], &[]);
                so.cmd_set_primitive_topology(cmd, vk::PrimitiveTopology::TRIANGLE_LIST);
                so.cmd_set_primitive_restart_enable(cmd, false);
                so.cmd_set_rasterizer_discard_enable(cmd, false);
                so.cmd_set_polygon_mode(cmd, vk::PolygonMode::FILL);
                so.cmd_set_cull_mode(cmd, vk::CullModeFlags::NONE);
                so.cmd_set_front_face(cmd, vk::FrontFace::COUNTER_CLOCKWISE);
                so.cmd_set_depth_bias_enable(cmd, false);
                so.cmd_set_depth_test_enable(cmd, false);
                so.cmd_set_depth_write_enable(cmd, false);
                so.cmd_set_depth_bounds_test_enable(cmd, false);
                so.cmd_set_stencil_test_enable(cmd, false);
                so.cmd_set_rasterization_samples(cmd, samples);
                so.cmd_set_sample_mask(cmd, samples, &[u32::MAX]);
                so.cmd_set_alpha_to_coverage_enable(cmd, false);
                so.cmd_set_color_blend_enable(cmd, 0, &[a.blend_enable]);
                so.cmd_set_color_blend_equation(cmd, 0, &[blend_equation(&a)]);
                so.cmd_set_color_write_mask(cmd, 0, &[a.color_write_mask]);
            }
        }
        // Shader objects are only made where the device has the extension.
        (Pass::Shaders { .. }, None) => {}
    }
}

/// `--shader-objects`: the pass's vertex and fragment shader objects (unlinked), with the
/// layouts every pass uses.
fn pass_shaders(gpu: &Gpu, layouts: &Layouts, d: &PipelineDesc) -> Result<Pass, DeviceError> {
    let Some(so) = &gpu.so else {
        return Err(DeviceError::Vk {
            call: "vkCreateShadersEXT",
            result: vk::Result::ERROR_EXTENSION_NOT_PRESENT,
        });
    };
    let bytes = |name: &str| -> Result<Vec<u8>, DeviceError> {
        Ok(spirv_words(name)?
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect())
    };
    let (vs, fs) = (bytes(d.vert)?, bytes(d.frag)?);
    let set_layouts = [layouts.set_layout];
    let ranges = [layouts.push_range];
    let infos = [
        (
            vk::ShaderStageFlags::VERTEX,
            vk::ShaderStageFlags::FRAGMENT,
            &vs,
        ),
        (
            vk::ShaderStageFlags::FRAGMENT,
            vk::ShaderStageFlags::empty(),
            &fs,
        ),
    ]
    .map(|(stage, next, code)| {
        vk::ShaderCreateInfoEXT::default()
            .stage(stage)
            .next_stage(next)
            .code_type(vk::ShaderCodeTypeEXT::SPIRV)
            .code(code)
            .name(c"main")
            .set_layouts(&set_layouts)
            .push_constant_ranges(&ranges)
    });
    // SAFETY: valid create infos whose code and layouts outlive the call.
    match unsafe { so.create_shaders(&infos, None) } {
        Ok(s) => Ok(Pass::Shaders {
            vert: s[0],
            frag: s[1],
            samples: d.samples,
            blend: d.blend,
            write_color: d.write_color,
        }),
        Err((made, result)) => {
            for s in made.into_iter().filter(|s| *s != vk::ShaderEXT::null()) {
                // SAFETY: created above, never used.
                unsafe { so.destroy_shader(s, None) };
            }
            Err(DeviceError::Vk {
                call: "vkCreateShadersEXT",
                result,
            })
        }
    }
}

/// A pass as the device draws it: a pipeline, or shader objects with `--shader-objects`.
pub(crate) fn pass(gpu: &Gpu, layouts: &Layouts, d: PipelineDesc) -> Result<Pass, DeviceError> {
    if gpu.shader_objects {
        pass_shaders(gpu, layouts, &d)
    } else {
        let (blend, write_color) = (d.blend, d.write_color);
        graphics_pipeline(gpu, layouts, d).map(|(pipeline, libraries)| Pass::Pipeline {
            pipeline,
            libraries,
            blend,
            write_color,
        })
    }
}

impl Pass {
    /// Names the pass's pipeline, or its fragment shader object, for tools.
    pub(crate) fn name(&self, gpu: &Gpu, name: &str) {
        match self {
            Pass::Pipeline { pipeline, .. } => gpu.name(*pipeline, name),
            Pass::Shaders { frag, .. } => gpu.name(*frag, name),
        }
    }

    pub(crate) fn destroy(&self, gpu: &Gpu) {
        match (self, &gpu.so) {
            // SAFETY: no command buffer using it is in flight.
            (
                Pass::Pipeline {
                    pipeline,
                    libraries,
                    ..
                },
                _,
            ) => unsafe {
                gpu.device.destroy_pipeline(*pipeline, None);
                for &l in libraries {
                    gpu.device.destroy_pipeline(l, None);
                }
            },
            (Pass::Shaders { vert, frag, .. }, Some(so)) => {
                // SAFETY: as above.
                unsafe {
                    so.destroy_shader(*vert, None);
                    so.destroy_shader(*frag, None);
                }
            }
            (Pass::Shaders { .. }, None) => {}
        }
    }
}

/// What a pass is made of: its shader variants, sample count and shading rate, attachment
/// format and colour blending.
pub(crate) struct PipelineDesc<'a> {
    pub vert: &'a str,
    pub frag: &'a str,
    pub samples: u32,
    pub sample_shading: bool,
    pub format: vk::Format,
    pub blend: bool,
    pub write_color: bool,
}

fn graphics_pipeline(
    gpu: &Gpu,
    layouts: &Layouts,
    d: PipelineDesc,
) -> Result<(vk::Pipeline, Vec<vk::Pipeline>), DeviceError> {
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
    let attachment = [blend_attachment(d.blend, d.write_color)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachment);
    let mut dynamic_states = vec![vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    // `--dynamic`: the sample count is set at draw time (render.rs), not fixed here.
    if gpu.dynamic_samples {
        dynamic_states.push(vk::DynamicState::RASTERIZATION_SAMPLES_EXT);
    }
    // `--dynamic-blend`: the blend state is set at draw time ([`bind`]), and RADV compiles the
    // fragment shader's exports into a PS epilog.
    if gpu.dynamic_blend {
        dynamic_states.extend([
            vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
            vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
            vk::DynamicState::COLOR_WRITE_MASK_EXT,
        ]);
    }
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
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
        .layout(layouts.pipeline_layout);
    let result = if gpu.libraries {
        linked(gpu, &info, &stages, &mut rendering)
    } else {
        let info = info.push_next(&mut rendering);
        // SAFETY: every struct referenced by `info` lives until the call returns; the modules
        // are destroyed after pipeline creation, which Vulkan allows.
        unsafe {
            gpu.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map(|p| (p[0], Vec::new()))
        .map_err(|(_, e)| e)
    };
    // SAFETY: the modules are no longer needed.
    unsafe {
        gpu.device.destroy_shader_module(vs, None);
        gpu.device.destroy_shader_module(fs, None);
    }
    result.map_err(|e| DeviceError::Vk {
        call: "vkCreateGraphicsPipelines",
        result: e,
    })
}

/// `--libraries`: the pipeline `whole` describes, linked without link-time optimisation from
/// four graphics pipeline libraries, each created from the part of `whole` its subset owns (the
/// dynamic states on each: a library ignores those of state it does not own). The libraries
/// are kept with the pipeline and destroyed with it.
fn linked(
    gpu: &Gpu,
    whole: &vk::GraphicsPipelineCreateInfo,
    stages: &[vk::PipelineShaderStageCreateInfo; 2],
    rendering: &mut vk::PipelineRenderingCreateInfo,
) -> Result<(vk::Pipeline, Vec<vk::Pipeline>), vk::Result> {
    use vk::GraphicsPipelineLibraryFlagsEXT as G;
    let base = || {
        vk::GraphicsPipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::LIBRARY_KHR)
            .layout(whole.layout)
            .dynamic_state(
                // SAFETY: `whole` points at its dynamic state, alive for this call.
                unsafe { &*whole.p_dynamic_state },
            )
    };
    // SAFETY: `whole`'s state pointers are valid for the duration of this call.
    let parts: [(G, vk::GraphicsPipelineCreateInfo); 4] = unsafe {
        [
            (
                G::VERTEX_INPUT_INTERFACE,
                base()
                    .vertex_input_state(&*whole.p_vertex_input_state)
                    .input_assembly_state(&*whole.p_input_assembly_state),
            ),
            (
                G::PRE_RASTERIZATION_SHADERS,
                base()
                    .stages(&stages[..1])
                    .viewport_state(&*whole.p_viewport_state)
                    .rasterization_state(&*whole.p_rasterization_state),
            ),
            (
                G::FRAGMENT_SHADER,
                base()
                    .stages(&stages[1..])
                    .multisample_state(&*whole.p_multisample_state),
            ),
            (
                G::FRAGMENT_OUTPUT_INTERFACE,
                base()
                    .multisample_state(&*whole.p_multisample_state)
                    .color_blend_state(&*whole.p_color_blend_state),
            ),
        ]
    };
    let mut libs = Vec::new();
    let destroy = |libs: &[vk::Pipeline]| {
        for &l in libs {
            // SAFETY: a library made here, used by no pipeline.
            unsafe { gpu.device.destroy_pipeline(l, None) };
        }
    };
    for (subset, info) in parts {
        let mut lib = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(subset);
        // The rendering formats are the pipeline's; the library info leads the chain.
        lib.p_next = (rendering as *mut vk::PipelineRenderingCreateInfo).cast();
        let info = info.push_next(&mut lib);
        // SAFETY: every struct the create info references lives until the call returns.
        match unsafe {
            gpu.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        } {
            Ok(p) => libs.push(p[0]),
            Err((_, e)) => {
                destroy(&libs);
                return Err(e);
            }
        }
    }
    let mut link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .layout(whole.layout)
        .push_next(&mut link);
    // SAFETY: the libraries above, complete together; no link-time optimisation asked for.
    match unsafe {
        gpu.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    } {
        Ok(p) => Ok((p[0], libs)),
        Err((_, e)) => {
            destroy(&libs);
            Err(e)
        }
    }
}

impl ComboPipelines {
    pub fn new(gpu: &Gpu, layouts: &Layouts, combo: Combo) -> Result<ComboPipelines, DeviceError> {
        let (color_fs, resolve_fs) = variant_names(combo);
        let interlock = matches!(combo.algorithm, Algorithm::Interlock(_));
        let color = pass(
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
        let resolve = match pass(
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
                color.destroy(gpu);
                return Err(e);
            }
        };
        color.name(gpu, &format!("{}/colour", combo.name()));
        resolve.name(gpu, &format!("{}/resolve", combo.name()));
        Ok(ComboPipelines { color, resolve })
    }

    pub fn destroy(&self, gpu: &Gpu) {
        self.color.destroy(gpu);
        self.resolve.destroy(gpu);
    }
}
