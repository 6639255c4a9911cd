//! Vulkan's raw values as pm4's typed ones: the one place where a `vk::BlendOp`, a
//! `vk::CompareOp` or a `vk::Format` becomes a POPS input. Nothing else in the layer keeps a
//! Vulkan enum as an integer.
//!
//! `TryFrom` is closed to these conversions by the orphan rule (both sides are other crates'
//! types), so [`FromVk`] plays its part: a fallible conversion with a typed error naming the
//! value that has no counterpart.

use ash::vk;
use pm4::pops::{self, BlendFactor, BlendOp, ColorFormat, CompareOp, StencilOp};

/// A Vulkan value that pm4's POPS model has no counterpart for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {raw} has no counterpart in the POPS model")]
pub struct Unsupported {
    pub what: &'static str,
    pub raw: i32,
}

/// A fallible conversion from a Vulkan value.
pub trait FromVk<T>: Sized {
    fn from_vk(v: T) -> Result<Self, Unsupported>;
}

impl FromVk<vk::BlendOp> for BlendOp {
    fn from_vk(v: vk::BlendOp) -> Result<BlendOp, Unsupported> {
        Ok(match v {
            vk::BlendOp::ADD => BlendOp::Add,
            vk::BlendOp::SUBTRACT => BlendOp::Subtract,
            vk::BlendOp::REVERSE_SUBTRACT => BlendOp::ReverseSubtract,
            vk::BlendOp::MIN => BlendOp::Min,
            vk::BlendOp::MAX => BlendOp::Max,
            _ => {
                return Err(Unsupported {
                    what: "VkBlendOp",
                    raw: v.as_raw(),
                })
            }
        })
    }
}

/// A blend op as the derivation needs it: the advanced operations (VK_EXT_blend_operation_advanced)
/// are never commutative, and `Subtract` stands for them.
pub fn blend_op(v: vk::BlendOp) -> BlendOp {
    BlendOp::from_vk(v).unwrap_or(BlendOp::Subtract)
}

impl FromVk<vk::BlendFactor> for BlendFactor {
    fn from_vk(v: vk::BlendFactor) -> Result<BlendFactor, Unsupported> {
        use vk::BlendFactor as V;
        use BlendFactor as F;
        Ok(match v {
            V::ZERO => F::Zero,
            V::ONE => F::One,
            V::SRC_COLOR => F::SrcColor,
            V::ONE_MINUS_SRC_COLOR => F::OneMinusSrcColor,
            V::DST_COLOR => F::DstColor,
            V::ONE_MINUS_DST_COLOR => F::OneMinusDstColor,
            V::SRC_ALPHA => F::SrcAlpha,
            V::ONE_MINUS_SRC_ALPHA => F::OneMinusSrcAlpha,
            V::DST_ALPHA => F::DstAlpha,
            V::ONE_MINUS_DST_ALPHA => F::OneMinusDstAlpha,
            V::CONSTANT_COLOR => F::ConstantColor,
            V::ONE_MINUS_CONSTANT_COLOR => F::OneMinusConstantColor,
            V::CONSTANT_ALPHA => F::ConstantAlpha,
            V::ONE_MINUS_CONSTANT_ALPHA => F::OneMinusConstantAlpha,
            V::SRC_ALPHA_SATURATE => F::SrcAlphaSaturate,
            V::SRC1_COLOR => F::Src1Color,
            V::ONE_MINUS_SRC1_COLOR => F::OneMinusSrc1Color,
            V::SRC1_ALPHA => F::Src1Alpha,
            V::ONE_MINUS_SRC1_ALPHA => F::OneMinusSrc1Alpha,
            _ => {
                return Err(Unsupported {
                    what: "VkBlendFactor",
                    raw: v.as_raw(),
                })
            }
        })
    }
}

/// A blend factor as the derivation needs it: an unknown one (invalid usage) counts as one that
/// reads the source alpha, the case that keeps the most export precision.
pub fn blend_factor(v: vk::BlendFactor) -> BlendFactor {
    BlendFactor::from_vk(v).unwrap_or(BlendFactor::SrcAlpha)
}

impl FromVk<vk::CompareOp> for CompareOp {
    fn from_vk(v: vk::CompareOp) -> Result<CompareOp, Unsupported> {
        usize::try_from(v.as_raw())
            .ok()
            .and_then(|i| CompareOp::ALL.get(i).copied())
            .ok_or(Unsupported {
                what: "VkCompareOp",
                raw: v.as_raw(),
            })
    }
}

/// A compare op; an unknown one (invalid usage) counts as `Always`.
pub fn compare_op(v: vk::CompareOp) -> CompareOp {
    CompareOp::from_vk(v).unwrap_or(CompareOp::Always)
}

impl FromVk<vk::StencilOp> for StencilOp {
    fn from_vk(v: vk::StencilOp) -> Result<StencilOp, Unsupported> {
        usize::try_from(v.as_raw())
            .ok()
            .and_then(|i| StencilOp::ALL.get(i).copied())
            .ok_or(Unsupported {
                what: "VkStencilOp",
                raw: v.as_raw(),
            })
    }
}

/// A stencil op; an unknown one (invalid usage) counts as `Keep`.
pub fn stencil_op(v: vk::StencilOp) -> StencilOp {
    StencilOp::from_vk(v).unwrap_or(StencilOp::Keep)
}

/// One face's stencil state (the reference and compare mask never matter to POPS).
pub fn stencil_face(f: &vk::StencilOpState) -> pops::StencilOpState {
    pops::StencilOpState {
        fail: stencil_op(f.fail_op),
        pass: stencil_op(f.pass_op),
        depth_fail: stencil_op(f.depth_fail_op),
        compare: compare_op(f.compare_op),
        write_mask: f.write_mask,
    }
}

/// A colour write mask (VkColorComponentFlags: R = 1, G = 2, B = 4, A = 8).
pub fn write_mask(m: vk::ColorComponentFlags) -> u8 {
    (m.as_raw() & 0xf) as u8
}

/// A colour attachment's blend state.
pub fn blend_target(a: &vk::PipelineColorBlendAttachmentState) -> pops::BlendTarget {
    pops::BlendTarget {
        enable: a.blend_enable == vk::TRUE,
        color_op: blend_op(a.color_blend_op),
        alpha_op: blend_op(a.alpha_blend_op),
        src_color: blend_factor(a.src_color_blend_factor),
        dst_color: blend_factor(a.dst_color_blend_factor),
        src_alpha: blend_factor(a.src_alpha_blend_factor),
        dst_alpha: blend_factor(a.dst_alpha_blend_factor),
        write_mask: write_mask(a.color_write_mask),
    }
}

/// A sample count flag as a count (at least 1).
pub fn samples(s: vk::SampleCountFlags) -> u32 {
    s.as_raw().max(1)
}

/// Every colour-renderable format pm4::pops knows, by its Vulkan constant: ash names each
/// format as Vulkan does, and so does pm4 (checked by a test).
macro_rules! color_formats {
    ($($f:ident),* $(,)?) => {
        const COLOR_FORMATS: &[vk::Format] = &[$(vk::Format::$f),*];
        const COLOR_FORMAT_NAMES: &[&str] = &[$(stringify!($f)),*];
    };
}

color_formats!(
    R8_UNORM,
    R8_SNORM,
    R8_UINT,
    R8_SINT,
    R8_SRGB,
    R8G8_UNORM,
    R8G8_SNORM,
    R8G8_UINT,
    R8G8_SINT,
    R8G8_SRGB,
    R8G8B8A8_UNORM,
    R8G8B8A8_SNORM,
    R8G8B8A8_UINT,
    R8G8B8A8_SINT,
    R8G8B8A8_SRGB,
    B8G8R8A8_UNORM,
    B8G8R8A8_SNORM,
    B8G8R8A8_UINT,
    B8G8R8A8_SINT,
    B8G8R8A8_SRGB,
    A8B8G8R8_UNORM_PACK32,
    A8B8G8R8_SNORM_PACK32,
    A8B8G8R8_UINT_PACK32,
    A8B8G8R8_SINT_PACK32,
    A8B8G8R8_SRGB_PACK32,
    A2B10G10R10_UNORM_PACK32,
    A2B10G10R10_UINT_PACK32,
    A2R10G10B10_UNORM_PACK32,
    A2R10G10B10_UINT_PACK32,
    B10G11R11_UFLOAT_PACK32,
    R5G6B5_UNORM_PACK16,
    B5G6R5_UNORM_PACK16,
    A1R5G5B5_UNORM_PACK16,
    R5G5B5A1_UNORM_PACK16,
    B5G5R5A1_UNORM_PACK16,
    R4G4B4A4_UNORM_PACK16,
    B4G4R4A4_UNORM_PACK16,
    R16_UNORM,
    R16_SNORM,
    R16_UINT,
    R16_SINT,
    R16_SFLOAT,
    R16G16_UNORM,
    R16G16_SNORM,
    R16G16_UINT,
    R16G16_SINT,
    R16G16_SFLOAT,
    R16G16B16A16_UNORM,
    R16G16B16A16_SNORM,
    R16G16B16A16_UINT,
    R16G16B16A16_SINT,
    R16G16B16A16_SFLOAT,
    R32_UINT,
    R32_SINT,
    R32_SFLOAT,
    R32G32_UINT,
    R32G32_SINT,
    R32G32_SFLOAT,
    R32G32B32A32_UINT,
    R32G32B32A32_SINT,
    R32G32B32A32_SFLOAT,
);

impl FromVk<vk::Format> for ColorFormat {
    fn from_vk(v: vk::Format) -> Result<ColorFormat, Unsupported> {
        COLOR_FORMATS
            .iter()
            .position(|f| *f == v)
            .and_then(|i| ColorFormat::parse(COLOR_FORMAT_NAMES[i]).ok())
            .ok_or(Unsupported {
                what: "VkFormat",
                raw: v.as_raw(),
            })
    }
}

/// A colour attachment's format as pm4::pops knows it: `None` for VK_FORMAT_UNDEFINED (no
/// attachment). A colour-renderable format pm4::pops does not list counts as RGBA8 UNORM.
pub fn color_format(f: vk::Format) -> Option<ColorFormat> {
    (f != vk::Format::UNDEFINED)
        .then(|| ColorFormat::from_vk(f).unwrap_or(ColorFormat::RGBA8_UNORM))
}

/// Colour attachment formats by location (beyond the eighth ignored), as the decision crate
/// keeps them.
pub fn color_formats(
    formats: impl IntoIterator<Item = vk::Format>,
) -> layer_model::capture::ColorFormats {
    layer_model::capture::ColorFormats::from_formats(formats.into_iter().map(color_format))
}

/// Whether a depth/stencil format has a stencil aspect.
pub fn format_has_stencil(f: vk::Format) -> bool {
    matches!(
        f,
        vk::Format::S8_UINT
            | vk::Format::D16_UNORM_S8_UINT
            | vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT_S8_UINT
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every colour format pm4::pops lists is reached from the Vulkan format of that name, and
    /// every listed Vulkan format reaches pm4's of the same name; no attachment is `None`.
    #[test]
    fn colour_formats_map_by_vulkan_name() {
        for c in pm4::pops::color::ALL {
            let v = COLOR_FORMATS
                .iter()
                .find(|v| format!("{v:?}") == c.name())
                .unwrap_or_else(|| panic!("{} has no Vulkan format of that name", c.name()));
            assert_eq!(color_format(*v), Some(*c));
        }
        assert_eq!(COLOR_FORMATS.len(), pm4::pops::color::ALL.len());
        assert_eq!(color_format(vk::Format::UNDEFINED), None);
        assert_eq!(
            color_format(vk::Format::D32_SFLOAT),
            Some(ColorFormat::RGBA8_UNORM),
            "not a colour format pm4 lists"
        );
        assert!(ColorFormat::from_vk(vk::Format::D32_SFLOAT).is_err());
    }

    /// Vulkan's core enums map value for value; values beyond them are refused by name.
    #[test]
    fn enums_map_in_vulkan_order() {
        assert_eq!(
            CompareOp::from_vk(vk::CompareOp::LESS_OR_EQUAL),
            Ok(CompareOp::LessOrEqual)
        );
        assert_eq!(
            StencilOp::from_vk(vk::StencilOp::DECREMENT_AND_WRAP),
            Ok(StencilOp::DecrementAndWrap)
        );
        assert_eq!(
            BlendFactor::from_vk(vk::BlendFactor::ONE_MINUS_SRC1_ALPHA),
            Ok(BlendFactor::OneMinusSrc1Alpha)
        );
        let e = BlendOp::from_vk(vk::BlendOp::MULTIPLY_EXT).unwrap_err();
        assert_eq!(e.what, "VkBlendOp");
        assert_eq!(blend_op(vk::BlendOp::MULTIPLY_EXT), BlendOp::Subtract);
        assert!(CompareOp::from_vk(vk::CompareOp::from_raw(8)).is_err());
        assert_eq!(write_mask(vk::ColorComponentFlags::RGBA), 0xf);
    }
}
