//! Enum constants of the AMD register database that the POPS rules (and the hardware draw) write,
//! named as the database names them. The test below reads `shared/reference/registers/<level>.json` → `enums` and checks
//! every constant on every level that uses it, so a value typed here cannot drift.

use crate::chip::GfxLevel;

/// One entry of a register-database enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// The database enum (`enums.<name>`).
    pub enum_name: &'static str,
    /// The entry name.
    pub name: &'static str,
    pub value: u32,
    /// The levels whose database has this entry with this value.
    pub levels: &'static [GfxLevel],
}

const GFX9_ON: &[GfxLevel] = &GfxLevel::ALL;
const GFX9_TO_10_3: &[GfxLevel] = &[GfxLevel::Gfx9, GfxLevel::Gfx10, GfxLevel::Gfx10_3];
const GFX10_ON: &[GfxLevel] = &[
    GfxLevel::Gfx10,
    GfxLevel::Gfx10_3,
    GfxLevel::Gfx11,
    GfxLevel::Gfx11_5,
    GfxLevel::Gfx12,
];
const GFX10_3_ON: &[GfxLevel] = &[
    GfxLevel::Gfx10_3,
    GfxLevel::Gfx11,
    GfxLevel::Gfx11_5,
    GfxLevel::Gfx12,
];

/// DB_RENDER_OVERRIDE2.PARTIAL_SQUAD_LAUNCH_CONTROL default.
pub const PSLC_AUTO: EnumValue = EnumValue {
    enum_name: "DbPSLControl",
    name: "PSLC_AUTO",
    value: 0,
    levels: GFX9_ON,
};
/// DB_RENDER_OVERRIDE2.PARTIAL_SQUAD_LAUNCH_CONTROL for PAL's waStalledPopsMode.
pub const PSLC_ON_HANG_ONLY: EnumValue = EnumValue {
    enum_name: "DbPSLControl",
    name: "PSLC_ON_HANG_ONLY",
    value: 1,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: no export.
pub const SPI_SHADER_ZERO: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_ZERO",
    value: 0,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: the smallest real export, for the POPS export
/// requirement when the shader writes no colour.
pub const SPI_SHADER_32_R: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_32_R",
    value: 1,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT Mesa picks for 8-bit UNORM targets (RGBA8).
pub const SPI_SHADER_FP16_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_FP16_ABGR",
    value: 4,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: two 32-bit channels, red and green.
pub const SPI_SHADER_32_GR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_32_GR",
    value: 2,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: two 32-bit channels, red and alpha.
pub const SPI_SHADER_32_AR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_32_AR",
    value: 3,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: four 16-bit unsigned normalised channels.
pub const SPI_SHADER_UNORM16_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_UNORM16_ABGR",
    value: 5,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: four 16-bit signed normalised channels.
pub const SPI_SHADER_SNORM16_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_SNORM16_ABGR",
    value: 6,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: four 16-bit unsigned integer channels.
pub const SPI_SHADER_UINT16_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_UINT16_ABGR",
    value: 7,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: four 16-bit signed integer channels.
pub const SPI_SHADER_SINT16_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_SINT16_ABGR",
    value: 8,
    levels: GFX9_ON,
};
/// SPI_SHADER_COL_FORMAT.COLn_EXPORT_FORMAT: four 32-bit channels.
pub const SPI_SHADER_32_ABGR: EnumValue = EnumValue {
    enum_name: "SPI_SHADER_EX_FORMAT",
    name: "SPI_SHADER_32_ABGR",
    value: 9,
    levels: GFX9_ON,
};
/// DB_DFSM_CONTROL.PUNCHOUT_MODE as Mesa programs it (DFSM off).
pub const PUNCHOUT_MODE_FORCE_OFF: EnumValue = EnumValue {
    enum_name: "DB_DFSM_CONTROL__PUNCHOUT_MODE",
    name: "FORCE_OFF",
    value: 2,
    levels: GFX9_TO_10_3,
};
/// PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE default.
pub const BIN_MAP_MODE_NONE: EnumValue = EnumValue {
    enum_name: "BinMapMode",
    name: "BIN_MAP_MODE_NONE",
    value: 0,
    levels: GFX10_ON,
};
/// PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE the article lists as an unresearched POPS option.
pub const BIN_MAP_MODE_POPS: EnumValue = EnumValue {
    enum_name: "BinMapMode",
    name: "BIN_MAP_MODE_POPS",
    value: 2,
    levels: GFX10_ON,
};
/// PA_CL_VRS_CNTL combiner: pass the previous rate through.
pub const SC_VRS_COMB_MODE_PASSTHRU: EnumValue = EnumValue {
    enum_name: "VRSCombinerModeSC",
    name: "SC_VRS_COMB_MODE_PASSTHRU",
    value: 0,
    levels: GFX10_3_ON,
};
/// PA_CL_VRS_CNTL combiner: override with this stage's rate (the sample-iteration rate, 1x1).
pub const SC_VRS_COMB_MODE_OVERRIDE: EnumValue = EnumValue {
    enum_name: "VRSCombinerModeSC",
    name: "SC_VRS_COMB_MODE_OVERRIDE",
    value: 1,
    levels: GFX10_3_ON,
};

/// CB_COLOR_CONTROL.MODE with no colour target bound: the export the POPS export requirement
/// makes (MRT0 as SPI_SHADER_32_R) goes nowhere (the article's null export).
pub const CB_DISABLE: EnumValue = EnumValue {
    enum_name: "CBMode",
    name: "CB_DISABLE",
    value: 0,
    levels: GFX9_ON,
};
/// CB_COLORn_INFO.FORMAT of an unbound colour target (the null export).
pub const COLOR_INVALID: EnumValue = EnumValue {
    enum_name: "ColorFormat",
    name: "COLOR_INVALID",
    value: 0,
    levels: GFX9_ON,
};

/// VGT_PRIMITIVE_TYPE.PRIM_TYPE: rectangles of three corners (the hardware draw).
pub const DI_PT_RECTLIST: EnumValue = EnumValue {
    enum_name: "VGT_DI_PRIM_TYPE",
    name: "DI_PT_RECTLIST",
    value: 0x11,
    levels: GFX9_ON,
};
/// VGT_GS_OUT_PRIM_TYPE.OUTPRIM_TYPE that RADV programs with a RECTLIST draw on GFX12 (the
/// hardware draw's GFX12 reference); GFX9–GFX10.3 call the value RECTLIST.
pub const RECT_2D: EnumValue = EnumValue {
    enum_name: "VGT_GS_OUTPRIM_TYPE",
    name: "RECT_2D",
    value: 3,
    levels: &[GfxLevel::Gfx11, GfxLevel::Gfx11_5, GfxLevel::Gfx12],
};

/// Every constant above, for the database cross-check.
pub const ALL: &[EnumValue] = &[
    PSLC_AUTO,
    PSLC_ON_HANG_ONLY,
    SPI_SHADER_ZERO,
    SPI_SHADER_32_R,
    SPI_SHADER_FP16_ABGR,
    SPI_SHADER_32_GR,
    SPI_SHADER_32_AR,
    SPI_SHADER_UNORM16_ABGR,
    SPI_SHADER_SNORM16_ABGR,
    SPI_SHADER_UINT16_ABGR,
    SPI_SHADER_SINT16_ABGR,
    SPI_SHADER_32_ABGR,
    PUNCHOUT_MODE_FORCE_OFF,
    BIN_MAP_MODE_NONE,
    BIN_MAP_MODE_POPS,
    SC_VRS_COMB_MODE_PASSTHRU,
    SC_VRS_COMB_MODE_OVERRIDE,
    CB_DISABLE,
    COLOR_INVALID,
    DI_PT_RECTLIST,
    RECT_2D,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_dir() -> Option<std::path::PathBuf> {
        pops_testkit::reference("registers", "the register database cross-check")
    }

    #[test]
    fn every_enum_constant_matches_the_register_database() {
        let Some(dir) = reference_dir() else { return };
        for level in GfxLevel::ALL {
            let path = dir.join(format!("{}.json", level.database_name()));
            let text = std::fs::read_to_string(&path).unwrap();
            let db: serde_json::Value = serde_json::from_str(&text).unwrap();
            for c in ALL {
                let entries = db["enums"][c.enum_name]["entries"].as_array();
                let found = entries.and_then(|es| {
                    es.iter()
                        .find(|e| e["name"] == c.name)
                        .and_then(|e| e["value"].as_u64())
                });
                if c.levels.contains(&level) {
                    assert_eq!(
                        found,
                        Some(c.value as u64),
                        "{}.{} on {level}",
                        c.enum_name,
                        c.name
                    );
                }
            }
        }
    }

    /// The constants are used on fields whose database enum is the one named here.
    #[test]
    fn constants_belong_to_the_fields_that_use_them() {
        let Some(dir) = reference_dir() else { return };
        let uses = [
            (
                "DB_RENDER_OVERRIDE2",
                "PARTIAL_SQUAD_LAUNCH_CONTROL",
                "DbPSLControl",
            ),
            (
                "SPI_SHADER_COL_FORMAT",
                "COL0_EXPORT_FORMAT",
                "SPI_SHADER_EX_FORMAT",
            ),
            (
                "DB_DFSM_CONTROL",
                "PUNCHOUT_MODE",
                "DB_DFSM_CONTROL__PUNCHOUT_MODE",
            ),
            ("PA_SC_BINNER_CNTL_0", "BIN_MAPPING_MODE", "BinMapMode"),
            (
                "PA_CL_VRS_CNTL",
                "SAMPLE_ITER_COMBINER_MODE",
                "VRSCombinerModeSC",
            ),
        ];
        for level in GfxLevel::ALL {
            let path = dir.join(format!("{}.json", level.database_name()));
            let db: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let maps = db["register_mappings"].as_array().unwrap();
            for (reg, field, en) in uses {
                let Some(m) = maps.iter().find(|m| m["name"] == reg) else {
                    continue;
                };
                let ty = m["type_ref"].as_str().unwrap_or(reg);
                let fields = db["register_types"][ty]["fields"].as_array().unwrap();
                // BIN_MAPPING_MODE is GFX10+; the constants' `levels` say where they apply.
                let Some(f) = fields.iter().find(|f| f["name"] == field) else {
                    assert!(
                        !ALL.iter()
                            .any(|c| c.enum_name == en && c.levels.contains(&level)),
                        "{reg}.{field} missing on {level}"
                    );
                    continue;
                };
                assert_eq!(f["enum_ref"], en, "{reg}.{field} on {level}");
            }
        }
    }
}
