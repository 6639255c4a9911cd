//! What a pipeline create info shows about its fragment stage and draw state, as the layer keeps
//! it: the fragment shader's source, the draw state the pipeline fixes, which of it is dynamic,
//! and which attachments a subpass uses. Read from the application's create infos by the
//! layer's Vulkan edge (`VkLayer_pops_interlock::vk::capture`), only where the specification
//! makes each member valid.

use pm4::pops;
use pops_report::Source;

/// Where a fragment shader's SPIR-V comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FragmentSource {
    /// A `VkShaderModule` created earlier (analysed at vkCreateShaderModule).
    Module { module: u64, entry: String },
    /// A `VkShaderModuleCreateInfo` chained to the stage (module is VK_NULL_HANDLE).
    Inline { words: Vec<u32>, entry: String },
    /// A module identifier (VK_EXT_shader_module_identifier): the SPIR-V is not visible.
    Identifier { entry: String },
    /// Pipeline binaries (VK_KHR_pipeline_binary) replace the stages: no SPIR-V, no entry name.
    Binary,
}

impl FragmentSource {
    pub fn entry(&self) -> &str {
        match self {
            FragmentSource::Module { entry, .. }
            | FragmentSource::Inline { entry, .. }
            | FragmentSource::Identifier { entry } => entry,
            FragmentSource::Binary => "",
        }
    }

    /// The report's `source` field.
    pub fn source(&self) -> Source {
        match self {
            FragmentSource::Module { .. } => Source::ShaderModule,
            FragmentSource::Inline { .. } => Source::InlineCreateInfo,
            FragmentSource::Identifier { .. } => Source::ModuleIdentifier,
            FragmentSource::Binary => Source::PipelineBinary,
        }
    }
}

/// The sample count the pipeline rasterizes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Samples {
    Static(u32),
    /// VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT: only known at draw time.
    Dynamic,
}

/// Depth/stencil state visible at creation or set at draw time. Its `has_stencil` is not
/// known here: the attachment decides it (crate::record).
pub type DepthStencil = pops::DepthStencilState;

/// The depth/stencil state before any is set in a command buffer (shader objects, states a
/// pipeline declares dynamic): tests off, compare `Always`, stencil faces that keep everything
/// and write nothing.
pub const UNSET_DEPTH_STENCIL: DepthStencil = DepthStencil {
    has_stencil: false,
    depth_test: false,
    depth_write: false,
    depth_compare: pops::CompareOp::Always,
    stencil_test: false,
    front: UNSET_FACE,
    back: UNSET_FACE,
};

const UNSET_FACE: pops::StencilOpState = pops::StencilOpState {
    fail: pops::StencilOp::Keep,
    pass: pops::StencilOp::Keep,
    depth_fail: pops::StencilOp::Keep,
    compare: pops::CompareOp::Never,
    write_mask: 0,
};

/// The draw state a pipeline (or one library part of it) fixes at creation. `None`: not part of
/// this pipeline or library; merged from the linked libraries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CapturedState {
    pub samples: Option<Samples>,
    pub sample_shading: Option<bool>,
    pub blend: Option<Vec<pops::BlendTarget>>,
    pub depth_stencil: Option<DepthStencil>,
    pub vrs: Option<bool>,
    pub rasterization_order: Option<pops::RasterizationOrder>,
    /// The bound depth/stencil attachment, known at draw time: its samples (0 = none) and
    /// whether its format has stencil. `None` at creation, where only the tests' enables show.
    pub depth_attachment: Option<DepthAttachment>,
    /// The colour attachments' formats, where known (render pass subpass, the pipeline's
    /// dynamic rendering formats, or the render pass instance at a draw).
    pub color_formats: Option<ColorFormats>,
}

/// Colour attachment formats by location; `None` where the location has no attachment
/// (VK_FORMAT_UNDEFINED, VK_ATTACHMENT_UNUSED, a null image view).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ColorFormats(pub [Option<pm4::pops::ColorFormat>; pm4::pops::MAX_COLOR_TARGETS]);

impl ColorFormats {
    /// From formats by location (beyond the eighth ignored).
    pub fn from_formats(
        formats: impl IntoIterator<Item = Option<pm4::pops::ColorFormat>>,
    ) -> ColorFormats {
        let mut out = ColorFormats::default();
        for (slot, f) in out.0.iter_mut().zip(formats) {
            *slot = f;
        }
        out
    }
}

/// A draw's depth/stencil attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DepthAttachment {
    /// 0: no depth/stencil attachment.
    pub samples: u32,
    pub has_stencil: bool,
}

bitflags::bitflags! {
    /// The dynamic states that feed the POPS derivation: set by vkCmdSet* at draw time instead
    /// of at pipeline creation.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct Dynamic: u32 {
        const RASTERIZATION_SAMPLES = 1 << 0;
        const DEPTH_TEST_ENABLE = 1 << 1;
        const DEPTH_WRITE_ENABLE = 1 << 2;
        const DEPTH_COMPARE_OP = 1 << 3;
        const STENCIL_TEST_ENABLE = 1 << 4;
        const STENCIL_OP = 1 << 5;
        const COLOR_BLEND_ENABLE = 1 << 6;
        const COLOR_BLEND_EQUATION = 1 << 7;
        const COLOR_WRITE_MASK = 1 << 8;
        const FRAGMENT_SHADING_RATE = 1 << 9;
        const RASTERIZER_DISCARD_ENABLE = 1 << 10;
    }
}

impl CapturedState {
    /// Fills what `self` lacks from `other` (a linked library).
    pub fn merge_from(&mut self, other: &CapturedState) {
        self.samples = self.samples.or(other.samples);
        self.sample_shading = self.sample_shading.or(other.sample_shading);
        if self.blend.is_none() {
            self.blend.clone_from(&other.blend);
        }
        self.depth_stencil = self.depth_stencil.or(other.depth_stencil);
        self.vrs = self.vrs.or(other.vrs);
        self.rasterization_order = self.rasterization_order.or(other.rasterization_order);
        self.depth_attachment = self.depth_attachment.or(other.depth_attachment);
    }
}

/// Which attachments the pipeline's subpass (or dynamic rendering's formats) uses: what decides
/// whether `pDepthStencilState` and `pColorBlendState` are valid to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachmentUse {
    pub depth_stencil: bool,
    pub color: bool,
    /// The depth/stencil attachment's samples and stencil aspect (render passes; what a draw
    /// inside the subpass renders to).
    pub depth: DepthAttachment,
    /// How many colour attachments the subpass has.
    pub color_count: u32,
    /// Their formats (render passes).
    pub colors: ColorFormats,
    /// The subpass renders several views (render passes): timestamps there write one query per
    /// view.
    pub multiview: bool,
}

impl AttachmentUse {
    /// Unknown (a render pass the layer did not see created): read neither.
    pub const UNKNOWN: AttachmentUse = AttachmentUse {
        depth_stencil: false,
        color: false,
        depth: DepthAttachment {
            samples: 0,
            has_stencil: false,
        },
        color_count: 0,
        colors: ColorFormats([None; pm4::pops::MAX_COLOR_TARGETS]),
        multiview: false,
    };
}

/// Everything the layer reads from one `VkGraphicsPipelineCreateInfo`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PipelineCapture {
    /// Created with VK_PIPELINE_CREATE_LIBRARY_BIT_KHR.
    pub is_library: bool,
    pub fragment: Option<FragmentSource>,
    pub draw: CapturedState,
    /// Libraries linked in through VkPipelineLibraryCreateInfoKHR.
    pub libraries: Vec<u64>,
    /// The dynamic states among [`Dynamic`]'s.
    pub dynamic: Dynamic,
    /// The fragment stage's specialization constants (part of its stage hash).
    pub fragment_spec: Option<shaders::spirv::Specialization>,
}
