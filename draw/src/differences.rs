//! Every register where the POPS draw departs from its reference draw (libdrm's on GFX9-GFX11,
//! RADV's on GFX12), with the reason.
//! `reference::compare` accepts a difference only when it is listed here for the level; the
//! capture tests fail on any other. `docs/hardware-draw.md` prints this table.

use pm4::GfxLevel;

/// Why a register differs from the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReferenceReason {
    /// A GPU address of one of our buffers (the reference's addresses are placeholders).
    Address,
    /// The arguments our shaders take in user SGPRs.
    ShaderArguments,
    /// The registers and inputs our shaders use.
    ShaderResources,
    /// A field a POPS rule of `pm4::pops` decides.
    Pops,
    /// Multisampling (4x/8x) or sample-rate shading of the variant.
    Samples,
    /// MSAA variants export to MRT0 with no colour target bound (the article's null export).
    NullExport,
    /// An experiment switch of the variant.
    Experiment,
    /// GFX12, whose reference is RADV's triangles: the draw's screen-space RECTLIST rectangles
    /// without blending, programmed as RADV's own RECTLIST draw or libdrm's GFX11 draw does.
    Rectangles,
}

impl ReferenceReason {
    pub const fn name(self) -> &'static str {
        match self {
            ReferenceReason::Address => "address",
            ReferenceReason::ShaderArguments => "shader arguments",
            ReferenceReason::ShaderResources => "shader resources",
            ReferenceReason::Pops => "POPS",
            ReferenceReason::Samples => "samples",
            ReferenceReason::NullExport => "null export",
            ReferenceReason::Experiment => "experiment",
            ReferenceReason::Rectangles => "rectangles",
        }
    }
}

/// Levels an entry applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Levels {
    All,
    /// GFX9–GFX10.3 (legacy VS, wave IDs).
    PreGfx11,
    /// GFX11, GFX11.5 and GFX12 (NGG, export ready).
    Gfx11Plus,
    /// GFX12 (RADV's draw as the reference).
    Gfx12,
}

impl Levels {
    pub const fn contains(self, level: GfxLevel) -> bool {
        match self {
            Levels::All => true,
            Levels::PreGfx11 => !level.is_gfx11_plus(),
            Levels::Gfx11Plus => level.is_gfx11_plus(),
            Levels::Gfx12 => matches!(level, GfxLevel::Gfx12),
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Levels::All => "all",
            Levels::PreGfx11 => "gfx9–gfx10.3",
            Levels::Gfx11Plus => "gfx11, gfx11.5, gfx12",
            Levels::Gfx12 => "gfx12",
        }
    }
}

/// One allowed difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceDifference {
    pub register: &'static str,
    pub levels: Levels,
    pub reason: ReferenceReason,
    pub why: &'static str,
}

macro_rules! table {
    ($( $reg:ident, $levels:ident, $reason:ident, $why:literal; )*) => {
        /// The differences, by register.
        pub const TABLE: &[ReferenceDifference] = &[ $( ReferenceDifference {
            register: stringify!($reg),
            levels: Levels::$levels,
            reason: ReferenceReason::$reason,
            why: $why,
        }, )* ];
    };
}

table! {
    // GFX12 first: where a register has an entry for all levels too, GFX12's reason is this one.
    SPI_SHADER_COL_FORMAT, Gfx12, NullExport, "SPI_SHADER_32_ABGR for the colour target, as libdrm's export of the same four 32-bit channels (RADV's case: FP16_ABGR); MSAA: SPI_SHADER_32_R for MRT0 with no target (export space POPS requires)";
    GE_POS_RING_BASE, Gfx12, Address, "our position ring, placed in our ring buffer as RADV places it in its own on the chip";
    GE_PRIM_RING_BASE, Gfx12, Address, "our primitive ring, placed in our ring buffer as RADV places it in its own on the chip";
    SPI_SHADER_USER_DATA_GS_0, Gfx12, ShaderArguments, "the rectangle's x0, rewritten before each draw";
    SPI_SHADER_USER_DATA_GS_1, Gfx12, ShaderArguments, "the rectangle's y0, rewritten before each draw";
    SPI_SHADER_USER_DATA_GS_2, Gfx12, ShaderArguments, "the rectangle's x1, rewritten before each draw";
    SPI_SHADER_USER_DATA_GS_3, Gfx12, ShaderArguments, "the rectangle's y1, rewritten before each draw";
    SPI_SHADER_PGM_RSRC2_PS, Gfx12, ShaderArguments, "USER_SGPR = 4, the pixel shader's arguments (RADV's shader takes 5)";
    SPI_SHADER_GS_OUT_CONFIG_PS, Gfx12, ShaderResources, "NO_PC_EXPORT and no interpolants: the primitive shader writes no parameters, as RADV programs for its own vertex shader without outputs";
    VGT_PRIMITIVE_TYPE, Gfx12, Rectangles, "RECTLIST, as RADV programs for its own RECTLIST draw on gfx1201 (RADV's case: triangles)";
    VGT_GS_OUT_PRIM_TYPE, Gfx12, Rectangles, "RECT_2D, as RADV programs with its own RECTLIST draw on gfx1201";
    VGT_NUM_INDICES, Gfx12, Rectangles, "three vertices per RECTLIST rectangle";
    PA_CL_VTE_CNTL, Gfx12, Rectangles, "VTX_XY_FMT and VTX_Z_FMT: the corners are in screen space, no viewport transform (libdrm's GFX11 value)";
    PA_CL_CLIP_CNTL, Gfx12, Rectangles, "CLIP_DISABLE: screen-space corners are not clipped (libdrm's GFX11 value)";
    CB_BLEND0_CONTROL, Gfx12, Rectangles, "no blending (libdrm's draw); RADV's case blends";
    SX_MRT0_BLEND_OPT, Gfx12, Rectangles, "no blending: RADV's value for its targets that do not blend (MRT1-7)";
    SPI_SHADER_PGM_LO_VS, PreGfx11, Address, "our vertex shader";
    SPI_SHADER_PGM_HI_VS, PreGfx11, Address, "our vertex shader";
    SPI_SHADER_PGM_LO_ES, Gfx11Plus, Address, "our NGG primitive shader";
    SPI_SHADER_PGM_HI_ES, Gfx11Plus, Address, "our NGG primitive shader";
    SPI_SHADER_PGM_LO_PS, All, Address, "our pixel shader";
    SPI_SHADER_PGM_HI_PS, All, Address, "our pixel shader";
    CB_COLOR0_BASE, All, Address, "our 32x32 colour target";
    CB_COLOR0_BASE_EXT, All, Address, "our 32x32 colour target";
    SPI_ATTRIBUTE_RING_BASE, Gfx11Plus, Address, "our attribute ring buffer (64 KiB aligned, >> 16)";
    SPI_SHADER_USER_DATA_PS_0, All, ShaderArguments, "storage buffer address, low 32 bits";
    SPI_SHADER_USER_DATA_PS_1, All, ShaderArguments, "storage buffer address, high 32 bits";
    SPI_SHADER_USER_DATA_PS_2, All, ShaderArguments, "the primitive index, rewritten before each draw";
    SPI_SHADER_USER_DATA_PS_3, All, ShaderArguments, "unused, 0";
    SPI_SHADER_PGM_RSRC1_PS, All, ShaderResources, "8 VGPRs (v0-v7); GFX9 also 24 SGPRs (s0-s10 and VCC)";
    SPI_PS_INPUT_ENA, All, ShaderResources, "POS_X_FLOAT/POS_Y_FLOAT for the slot, ANCILLARY for the sample ID (sample interlock)";
    SPI_PS_INPUT_ADDR, All, ShaderResources, "the same inputs as SPI_PS_INPUT_ENA";
    SPI_VS_OUT_CONFIG, Gfx11Plus, ShaderResources, "NO_PC_EXPORT: the primitive shader writes no parameters to the attribute ring (the pixel shader reads none)";
    SPI_SHADER_PGM_RSRC2_PS, PreGfx11, Pops, "LOAD_COLLISION_WAVEID: the COLLISION_WAVEID argument (POPS rule)";
    PA_SC_SHADER_CONTROL, PreGfx11, Pops, "LOAD_COLLISION_WAVEID, needed here as well as in RSRC2 (POPS rule)";
    DB_SHADER_CONTROL, All, Pops, "PRIMITIVE_ORDERED_PIXEL_SHADER, POPS_OVERLAP_NUM_SAMPLES / OVERRIDE_INTRINSIC_RATE(_ENABLE), EXEC_IF_OVERLAPPED (POPS rules); EXEC_ON_HIER_FAIL and EXEC_ON_NOOP because the shader writes memory";
    DB_DFSM_CONTROL, PreGfx11, Pops, "PUNCHOUT_MODE and POPS_DRAIN_PS_ON_OVERLAP (POPS rule, VEGA10/RAVEN workaround, forced-drain experiment)";
    DB_RENDER_OVERRIDE2, PreGfx11, Pops, "PARTIAL_SQUAD_LAUNCH_CONTROL = PSLC_ON_HANG_ONLY with drain on GFX10.1 (POPS rule)";
    DB_Z_INFO, Gfx11Plus, Pops, "NUM_SAMPLES = MSAA_EXPOSED_SAMPLES on GFX11 (POPS rule)";
    PA_CL_VRS_CNTL, All, Pops, "SAMPLE_ITER_COMBINER_MODE for POPS' forced 1x1 rate (POPS rule, GFX10.3+)";
    PA_SC_MODE_CNTL_1, All, Pops, "out-of-order rasterization decision and water mark (POPS rule or experiment), PS_ITER_SAMPLE (sample-rate shading; GFX10.3 POPS 1x1)";
    PA_SC_AA_CONFIG, All, Samples, "MSAA_NUM_SAMPLES and MSAA_EXPOSED_SAMPLES of the variant (POPS rule)";
    PA_SC_MODE_CNTL_0, All, Samples, "MSAA_ENABLE at 4x/8x";
    DB_EQAA, All, Samples, "anchor, mask-export and alpha-to-mask sample counts; PS_ITER_SAMPLES for sample-rate shading";
    SPI_SHADER_COL_FORMAT, All, NullExport, "MSAA: SPI_SHADER_32_R for MRT0 with no target (export space POPS requires)";
    CB_COLOR0_INFO, All, NullExport, "MSAA: no colour target (COLOR_INVALID)";
    CB_TARGET_MASK, All, NullExport, "MSAA: nothing written";
    CB_SHADER_MASK, All, NullExport, "MSAA: the shader exports one channel to MRT0";
    CB_COLOR_CONTROL, All, NullExport, "MSAA: MODE = CB_DISABLE";
    PA_SC_BINNER_CNTL_0, All, Experiment, "BIN_MAPPING_MODE = BIN_MAP_MODE_POPS (GFX10+ experiment)";
}

/// The entry allowing `register` to differ on `level`, if any.
pub fn find(level: GfxLevel, register: &str) -> Option<&'static ReferenceDifference> {
    TABLE
        .iter()
        .find(|d| d.register == register && d.levels.contains(level))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_a_register_of_a_level_it_applies_to() {
        for d in TABLE {
            let reg = pm4::Reg::from_name(d.register)
                .unwrap_or_else(|| panic!("{} is not a register", d.register));
            assert!(
                GfxLevel::ALL
                    .iter()
                    .any(|l| d.levels.contains(*l) && l.register(reg).is_some()),
                "{} exists on none of its levels",
                d.register
            );
        }
        let mut names: Vec<_> = TABLE
            .iter()
            .map(|d| (d.register, d.levels.name()))
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(
            names.len(),
            TABLE.len(),
            "one entry per register and level set"
        );
    }
}
