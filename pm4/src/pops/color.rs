//! Colour attachment formats and the shader export format a driver programs for each
//! (SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT). A POPS shader must export (the article's export
//! requirement), and what it exports per target follows from the target's format, its blending
//! and whether blending reads the source alpha — the choice Mesa makes
//! (`ac_choose_spi_color_formats`, and RADV's pick among its four answers).

use super::enums::{self, EnumValue};
use super::{BlendFactor, BlendOp, BlendTarget};
use crate::chip::Family;
use std::fmt;

/// How a format's channels are laid out, as far as the export choice goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Layout {
    /// One 8-bit channel (the colour buffer's COLOR_8 with the standard swap: R8).
    R8,
    /// Channels of at most 11 bits: 8-bit two- and four-channel formats and the packed ones
    /// (5_6_5, 1_5_5_5, 4_4_4_4, 2_10_10_10, 10_11_11, 5_9_9_9).
    Small,
    /// 16-bit channels: 1, 2 or 4 of them.
    C16(u8),
    /// 32-bit channels: 1, 2 or 4 of them.
    C32(u8),
}

/// How the channels are read (the colour buffer's NUMBER_TYPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Number {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
    Srgb,
}

/// A colour-renderable Vulkan format, by its name without `VK_FORMAT_`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColorFormat {
    name: &'static str,
    layout: Layout,
    number: Number,
}

impl fmt::Debug for ColorFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl fmt::Display for ColorFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A format name that is not a colour-renderable format pops knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour attachment format {name:?} (expected a Vulkan format name such as R8G8B8A8_UNORM or R16G16B16A16_SFLOAT)")]
pub struct ColorFormatError {
    pub name: String,
}

macro_rules! formats {
    ($( $name:literal => $layout:expr, $number:ident; )*) => {
        /// Every format [`ColorFormat::parse`] knows.
        pub const ALL: &[ColorFormat] = &[
            $( ColorFormat { name: $name, layout: $layout, number: Number::$number }, )*
        ];
    };
}

use Layout::{Small, C16, C32, R8};

formats! {
    "R8_UNORM" => R8, Unorm;
    "R8_SNORM" => R8, Snorm;
    "R8_UINT" => R8, Uint;
    "R8_SINT" => R8, Sint;
    "R8_SRGB" => R8, Srgb;
    "R8G8_UNORM" => Small, Unorm;
    "R8G8_SNORM" => Small, Snorm;
    "R8G8_UINT" => Small, Uint;
    "R8G8_SINT" => Small, Sint;
    "R8G8_SRGB" => Small, Srgb;
    "R8G8B8A8_UNORM" => Small, Unorm;
    "R8G8B8A8_SNORM" => Small, Snorm;
    "R8G8B8A8_UINT" => Small, Uint;
    "R8G8B8A8_SINT" => Small, Sint;
    "R8G8B8A8_SRGB" => Small, Srgb;
    "B8G8R8A8_UNORM" => Small, Unorm;
    "B8G8R8A8_SNORM" => Small, Snorm;
    "B8G8R8A8_UINT" => Small, Uint;
    "B8G8R8A8_SINT" => Small, Sint;
    "B8G8R8A8_SRGB" => Small, Srgb;
    "A8B8G8R8_UNORM_PACK32" => Small, Unorm;
    "A8B8G8R8_SNORM_PACK32" => Small, Snorm;
    "A8B8G8R8_UINT_PACK32" => Small, Uint;
    "A8B8G8R8_SINT_PACK32" => Small, Sint;
    "A8B8G8R8_SRGB_PACK32" => Small, Srgb;
    "A2B10G10R10_UNORM_PACK32" => Small, Unorm;
    "A2B10G10R10_UINT_PACK32" => Small, Uint;
    "A2R10G10B10_UNORM_PACK32" => Small, Unorm;
    "A2R10G10B10_UINT_PACK32" => Small, Uint;
    "B10G11R11_UFLOAT_PACK32" => Small, Float;
    "R5G6B5_UNORM_PACK16" => Small, Unorm;
    "B5G6R5_UNORM_PACK16" => Small, Unorm;
    "A1R5G5B5_UNORM_PACK16" => Small, Unorm;
    "R5G5B5A1_UNORM_PACK16" => Small, Unorm;
    "B5G5R5A1_UNORM_PACK16" => Small, Unorm;
    "R4G4B4A4_UNORM_PACK16" => Small, Unorm;
    "B4G4R4A4_UNORM_PACK16" => Small, Unorm;
    "R16_UNORM" => C16(1), Unorm;
    "R16_SNORM" => C16(1), Snorm;
    "R16_UINT" => C16(1), Uint;
    "R16_SINT" => C16(1), Sint;
    "R16_SFLOAT" => C16(1), Float;
    "R16G16_UNORM" => C16(2), Unorm;
    "R16G16_SNORM" => C16(2), Snorm;
    "R16G16_UINT" => C16(2), Uint;
    "R16G16_SINT" => C16(2), Sint;
    "R16G16_SFLOAT" => C16(2), Float;
    "R16G16B16A16_UNORM" => C16(4), Unorm;
    "R16G16B16A16_SNORM" => C16(4), Snorm;
    "R16G16B16A16_UINT" => C16(4), Uint;
    "R16G16B16A16_SINT" => C16(4), Sint;
    "R16G16B16A16_SFLOAT" => C16(4), Float;
    "R32_UINT" => C32(1), Uint;
    "R32_SINT" => C32(1), Sint;
    "R32_SFLOAT" => C32(1), Float;
    "R32G32_UINT" => C32(2), Uint;
    "R32G32_SINT" => C32(2), Sint;
    "R32G32_SFLOAT" => C32(2), Float;
    "R32G32B32A32_UINT" => C32(4), Uint;
    "R32G32B32A32_SINT" => C32(4), Sint;
    "R32G32B32A32_SFLOAT" => C32(4), Float;
}

impl ColorFormat {
    /// RGBA8 UNORM: what is assumed where the format is not known.
    pub const RGBA8_UNORM: ColorFormat = ALL[10];

    /// A Vulkan format name, with or without `VK_FORMAT_`, any case.
    pub fn parse(name: &str) -> Result<ColorFormat, ColorFormatError> {
        let n = name.trim().to_ascii_uppercase();
        let n = n.strip_prefix("VK_FORMAT_").unwrap_or(&n);
        ALL.iter()
            .find(|f| f.name == n)
            .copied()
            .ok_or_else(|| ColorFormatError {
                name: name.to_string(),
            })
    }

    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The four exports Mesa allows for the format: (normal, alpha, blend, blend with alpha) —
    /// the cheapest; one that keeps alpha; one the blender accepts; one that does both.
    fn exports(self, family: Family) -> [EnumValue; 4] {
        use enums::*;
        let all = |e: EnumValue| [e; 4];
        let by_number = |float: EnumValue| match self.number {
            Number::Uint => SPI_SHADER_UINT16_ABGR,
            Number::Sint => SPI_SHADER_SINT16_ABGR,
            _ => float,
        };
        match self.layout {
            Layout::Small => all(by_number(SPI_SHADER_FP16_ABGR)),
            Layout::R8 => {
                let e = by_number(SPI_SHADER_FP16_ABGR);
                // Without RB+, one UNORM/SNORM 8-bit channel exports as 32_R (no 16-bit
                // packing); with RB+ FP16_ABGR exports twice as fast.
                if !family.rb_plus() && matches!(self.number, Number::Unorm | Number::Snorm) {
                    [SPI_SHADER_32_R, e, SPI_SHADER_32_R, e]
                } else {
                    all(e)
                }
            }
            Layout::C16(n) => match self.number {
                Number::Unorm | Number::Snorm => {
                    let norm = if self.number == Number::Unorm {
                        SPI_SHADER_UNORM16_ABGR
                    } else {
                        SPI_SHADER_SNORM16_ABGR
                    };
                    // 16-bit normalised exports cannot blend: 32 bits per channel to blend.
                    let (blend, blend_alpha) = match n {
                        1 => (SPI_SHADER_32_R, SPI_SHADER_32_AR),
                        2 => (SPI_SHADER_32_GR, SPI_SHADER_32_ABGR),
                        _ => (SPI_SHADER_32_ABGR, SPI_SHADER_32_ABGR),
                    };
                    [norm, norm, blend, blend_alpha]
                }
                _ => all(by_number(SPI_SHADER_FP16_ABGR)),
            },
            Layout::C32(1) => [
                SPI_SHADER_32_R,
                SPI_SHADER_32_AR,
                SPI_SHADER_32_R,
                SPI_SHADER_32_AR,
            ],
            Layout::C32(2) => [
                SPI_SHADER_32_GR,
                SPI_SHADER_32_ABGR,
                SPI_SHADER_32_GR,
                SPI_SHADER_32_ABGR,
            ],
            Layout::C32(_) => all(SPI_SHADER_32_ABGR),
        }
    }
}

/// Whether blending reads the source alpha (RADV's `need_src_alpha`): a colour factor that is
/// SRC_ALPHA, ONE_MINUS_SRC_ALPHA or SRC_ALPHA_SATURATE, with MIN and MAX ignoring factors.
fn blend_reads_src_alpha(t: &BlendTarget) -> bool {
    if !t.enable || matches!(t.color_op, BlendOp::Min | BlendOp::Max) {
        return false;
    }
    [t.src_color, t.dst_color].iter().any(|f| {
        matches!(
            f,
            BlendFactor::SrcAlpha | BlendFactor::OneMinusSrcAlpha | BlendFactor::SrcAlphaSaturate
        )
    })
}

/// Whether the target blends with the second source (dual-source blending).
pub(crate) fn dual_source(t: &BlendTarget) -> bool {
    t.enable
        && [t.src_color, t.dst_color, t.src_alpha, t.dst_alpha]
            .iter()
            .any(|f| {
                matches!(
                    f,
                    BlendFactor::Src1Color
                        | BlendFactor::OneMinusSrc1Color
                        | BlendFactor::Src1Alpha
                        | BlendFactor::OneMinusSrc1Alpha
                )
            })
}

/// The export format of a written target of `format` with blend state `t` on `family`.
pub fn export_format(family: Family, format: ColorFormat, t: &BlendTarget) -> EnumValue {
    let [normal, alpha, blend, blend_alpha] = format.exports(family);
    match (t.enable, blend_reads_src_alpha(t)) {
        (true, true) => blend_alpha,
        (false, true) => alpha,
        (true, false) => blend,
        (false, false) => normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blend(src: BlendFactor, dst: BlendFactor, op: BlendOp) -> BlendTarget {
        BlendTarget {
            enable: true,
            color_op: op,
            src_color: src,
            dst_color: dst,
            ..BlendTarget::OPAQUE
        }
    }

    #[test]
    fn names_parse_with_or_without_prefix_and_unknown_names_are_named() {
        assert_eq!(
            ColorFormat::parse("vk_format_r16g16b16a16_sfloat")
                .unwrap()
                .name(),
            "R16G16B16A16_SFLOAT"
        );
        assert_eq!(ColorFormat::RGBA8_UNORM.name(), "R8G8B8A8_UNORM");
        let e = ColorFormat::parse("D32_SFLOAT").unwrap_err();
        assert!(e.to_string().contains("\"D32_SFLOAT\""), "{e}");
    }

    /// The article: RGBA8 targets export FP16_ABGR whether or not they blend.
    #[test]
    fn rgba8_exports_fp16_abgr() {
        for t in [BlendTarget::OPAQUE, BlendTarget::ALPHA] {
            assert_eq!(
                export_format(Family::Navi31, ColorFormat::RGBA8_UNORM, &t),
                enums::SPI_SHADER_FP16_ABGR
            );
        }
    }

    #[test]
    fn integer_and_32_bit_targets_export_their_own_formats() {
        let f = |n: &str, t: &BlendTarget| {
            export_format(Family::Navi21, ColorFormat::parse(n).unwrap(), t).name
        };
        let o = &BlendTarget::OPAQUE;
        assert_eq!(f("R32_UINT", o), "SPI_SHADER_32_R");
        assert_eq!(f("R32G32_SFLOAT", o), "SPI_SHADER_32_GR");
        assert_eq!(f("R32G32B32A32_SFLOAT", o), "SPI_SHADER_32_ABGR");
        assert_eq!(f("R8G8B8A8_UINT", o), "SPI_SHADER_UINT16_ABGR");
        assert_eq!(f("R16G16_SINT", o), "SPI_SHADER_SINT16_ABGR");
        assert_eq!(f("R16G16B16A16_SFLOAT", o), "SPI_SHADER_FP16_ABGR");
        assert_eq!(f("R16G16B16A16_UNORM", o), "SPI_SHADER_UNORM16_ABGR");
        // Blending a 16-bit normalised target needs 32-bit channels; reading source alpha
        // keeps alpha.
        let over = &BlendTarget::ALPHA;
        assert_eq!(f("R16G16B16A16_UNORM", over), "SPI_SHADER_32_ABGR");
        assert_eq!(
            f(
                "R16_UNORM",
                &blend(BlendFactor::One, BlendFactor::One, BlendOp::Add)
            ),
            "SPI_SHADER_32_R"
        );
        assert_eq!(f("R16_UNORM", over), "SPI_SHADER_32_AR");
        assert_eq!(f("R32_SFLOAT", over), "SPI_SHADER_32_AR");
        // MIN and MAX ignore the factors: no source alpha needed.
        assert_eq!(
            f(
                "R32_SFLOAT",
                &blend(BlendFactor::SrcAlpha, BlendFactor::One, BlendOp::Max)
            ),
            "SPI_SHADER_32_R"
        );
    }

    /// One 8-bit UNORM channel: 32_R without RB+ (VEGA10, NAVI10), FP16_ABGR with it (RAVEN,
    /// GFX10.3 on).
    #[test]
    fn r8_unorm_depends_on_rb_plus() {
        let r8 = ColorFormat::parse("R8_UNORM").unwrap();
        let o = &BlendTarget::OPAQUE;
        assert_eq!(export_format(Family::Vega10, r8, o).name, "SPI_SHADER_32_R");
        assert_eq!(export_format(Family::Navi10, r8, o).name, "SPI_SHADER_32_R");
        assert_eq!(
            export_format(Family::Raven, r8, o).name,
            "SPI_SHADER_FP16_ABGR"
        );
        assert_eq!(
            export_format(Family::Navi21, r8, o).name,
            "SPI_SHADER_FP16_ABGR"
        );
        assert_eq!(
            export_format(Family::Vega10, ColorFormat::parse("R8_SRGB").unwrap(), o).name,
            "SPI_SHADER_FP16_ABGR"
        );
        // Source alpha read: the alpha-keeping export.
        assert_eq!(
            export_format(Family::Vega10, r8, &BlendTarget::ALPHA).name,
            "SPI_SHADER_FP16_ABGR"
        );
    }
}
