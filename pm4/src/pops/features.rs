//! The Vulkan device features and properties of VK_EXT_fragment_shader_interlock and
//! VK_KHR_fragment_shading_rate that POPS decides, per family.

use super::KernelState;
use crate::chip::{Family, GfxLevel};

/// VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT plus the one shading-rate property that
/// depends on POPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Features {
    pub fragment_shader_pixel_interlock: bool,
    pub fragment_shader_sample_interlock: bool,
    /// Never on AMD: the widest interlock granularity is one fine pixel.
    pub fragment_shader_shading_rate_interlock: bool,
    /// VkPhysicalDeviceFragmentShadingRatePropertiesKHR::fragmentShadingRateWithFragmentShaderInterlock.
    pub fragment_shading_rate_with_fragment_shader_interlock: bool,
}

/// The features a driver exposes on `family` with the default register state
/// (PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS clear).
pub const fn device_features(family: Family) -> Features {
    Features {
        // POPS exists from GFX9 on, with pixel and (via the overlap sample count / intrinsic
        // rate) sample granularity.
        fragment_shader_pixel_interlock: true,
        fragment_shader_sample_interlock: true,
        fragment_shader_shading_rate_interlock: false,
        // GFX9 and GFX10.1 have no VRS at all; GFX10.3 forces 1x1 under POPS; GFX11 keeps
        // coarse rates unless FORCE_SC_VRS_RATE_FINE_POPS is set. GFX12: RADV 26 reports the
        // property (its POPS draws run at 1x1 by the driver's override, which the property
        // allows).
        fragment_shading_rate_with_fragment_shader_interlock: family.gfx_level().is_gfx11_plus(),
    }
}

/// The features under an assumption about the kernel-owned state: FORCE_SC_VRS_RATE_FINE_POPS,
/// when the kernel sets it, takes the shading-rate property away on GFX11.
pub fn state_features(family: Family, kernel: &KernelState) -> Features {
    let mut f = device_features(family);
    if kernel.force_vrs_rate_fine_pops && family.gfx_level().is_gfx11_plus() {
        f.fragment_shading_rate_with_fragment_shader_interlock = false;
    }
    f
}

/// Whether the level has variable-rate shading hardware at all.
pub(crate) const fn has_vrs(level: GfxLevel) -> bool {
    !matches!(level, GfxLevel::Gfx9 | GfxLevel::Gfx10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_and_sample_interlock_on_every_family() {
        for f in Family::ALL {
            let d = device_features(*f);
            assert!(d.fragment_shader_pixel_interlock, "{f}");
            assert!(d.fragment_shader_sample_interlock, "{f}");
        }
    }

    /// "There's no synchronization between coarse fragment shader invocations if they don't cover
    /// common fine pixels, so the fragmentShaderShadingRateInterlock Vulkan device feature is not
    /// available."
    #[test]
    fn shading_rate_interlock_never_available() {
        for f in Family::ALL {
            assert!(!device_features(*f).fragment_shader_shading_rate_interlock);
        }
    }

    /// "On GFX10.3, enabling DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER forces the shading
    /// rate to be 1x1, thus the fragmentShadingRateWithFragmentShaderInterlock Vulkan device
    /// property must be false." / "On GFX11, by default, POPS itself can work with non-1x1
    /// shading rates, and the fragmentShadingRateWithFragmentShaderInterlock property must be
    /// true."
    #[test]
    fn shading_rate_with_interlock_false_on_gfx10_3_true_on_gfx11() {
        for f in Family::ALL {
            let expected = match f.gfx_level() {
                GfxLevel::Gfx9 | GfxLevel::Gfx10 => false, // no VRS hardware
                GfxLevel::Gfx10_3 => false,
                GfxLevel::Gfx11 | GfxLevel::Gfx11_5 | GfxLevel::Gfx12 => true,
            };
            assert_eq!(
                device_features(*f).fragment_shading_rate_with_fragment_shader_interlock,
                expected,
                "{f}"
            );
        }
    }

    /// "However, if PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS is set, enabling POPS
    /// will force 1x1 shading rate."
    #[test]
    fn force_fine_pops_takes_the_property_away_on_gfx11() {
        let kernel = KernelState {
            force_vrs_rate_fine_pops: true,
        };
        assert!(
            !state_features(Family::Navi31, &kernel)
                .fragment_shading_rate_with_fragment_shader_interlock
        );
        assert!(
            state_features(Family::Navi31, &KernelState::default())
                .fragment_shading_rate_with_fragment_shader_interlock
        );
    }

    #[test]
    fn vrs_hardware_from_gfx10_3() {
        assert!(!has_vrs(GfxLevel::Gfx9));
        assert!(!has_vrs(GfxLevel::Gfx10));
        assert!(has_vrs(GfxLevel::Gfx10_3));
        assert!(has_vrs(GfxLevel::Gfx11_5));
    }
}
