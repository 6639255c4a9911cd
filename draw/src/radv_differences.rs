//! Where the hardware draw's stream departs from what Mesa 25.0.7's RADV programs for the same
//! state, in the POPS-relevant registers RADV's recording tabulates (`shared/reference/radv`),
//! with the reason. Fields `pm4::pops` decides are covered by `pm4::pops::radv::TABLE` instead;
//! this table covers the rest of those registers, which the draw takes from libdrm's
//! hardware-tested reference draw or sets for its own shaders. `draw/tests/radv.rs` fails on any
//! difference listed in neither.

use crate::differences::Levels;
use pm4::{Field, GfxLevel, Reg};

/// One allowed difference: `field` of `register` on `levels`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadvFieldDifference {
    pub register: Reg,
    pub field: Field,
    pub levels: Levels,
    pub why: &'static str,
}

const LIBDRM: &str =
    "the draw keeps libdrm's hardware-tested reference value; RADV programs its own default";

macro_rules! table {
    ($( $reg:ident . $field:ident, $levels:ident, $why:expr; )*) => {
        /// The differences.
        pub const TABLE: &[RadvFieldDifference] = &[ $( RadvFieldDifference {
            register: Reg::$reg,
            field: Field::$field,
            levels: Levels::$levels,
            why: $why,
        }, )* ];
    };
}

table! {
    SPI_SHADER_COL_FORMAT.COL0_EXPORT_FORMAT, All, "MSAA variants bind no colour target and export MRT0 as SPI_SHADER_32_R (the null export of the POPS export requirement); RADV's case has an RGBA8 attachment (SPI_SHADER_FP16_ABGR)";
    SPI_SHADER_PGM_RSRC2_PS.USER_SGPR, All, "the draw's pixel shader takes 4 user SGPRs (storage address, primitive index, padding); RADV's shader takes 3";
    DB_SHADER_CONTROL.Z_ORDER, All, LIBDRM;
    DB_SHADER_CONTROL.DUAL_QUAD_DISABLE, PreGfx11, LIBDRM;
    DB_EQAA.INCOHERENT_EQAA_READS, All, LIBDRM;
    DB_EQAA.STATIC_ANCHOR_ASSOCIATIONS, All, LIBDRM;
    DB_RENDER_OVERRIDE2.CENTROID_COMPUTATION_MODE, All, LIBDRM;
    PA_SC_AA_CONFIG.MAX_SAMPLE_DIST, All, "the draw programs no sample locations (standard pattern, distance 0); RADV programs its sample positions and their maximum distance";
    PA_SC_AA_CONFIG.COVERED_CENTROID_IS_CENTER, All, LIBDRM;
    PA_SC_MODE_CNTL_1.WALK_ALIGN8_PRIM_FITS_ST, All, LIBDRM;
    PA_SC_MODE_CNTL_1.WALK_FENCE_ENABLE, All, LIBDRM;
    PA_SC_MODE_CNTL_1.WALK_FENCE_SIZE, All, LIBDRM;
    PA_SC_MODE_CNTL_1.TILE_WALK_ORDER_ENABLE, All, LIBDRM;
    PA_SC_MODE_CNTL_1.SUPERTILE_WALK_ORDER_ENABLE, All, LIBDRM;
    PA_SC_BINNER_CNTL_0.BINNING_MODE, All, "libdrm's reference draw disables binning (DISABLE_BINNING_USE_LEGACY_SC); RADV bins, with bin sizes from the null device's made-up topology (approximate, shared/reference/radv/README.md)";
    PA_SC_BINNER_CNTL_0.BIN_SIZE_X, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.BIN_SIZE_X_EXTEND, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.BIN_SIZE_Y_EXTEND, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.DISABLE_START_OF_PRIM, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.FLUSH_ON_BINNING_TRANSITION, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.FPOVS_PER_BATCH, All, "binning disabled in the draw (see BINNING_MODE)";
    PA_SC_BINNER_CNTL_0.OPTIMAL_BIN_SELECTION, All, "binning disabled in the draw (see BINNING_MODE)";
}

/// The entry allowing `register.field` to differ on `level`, if any.
pub fn find(level: GfxLevel, register: Reg, field: Field) -> Option<&'static RadvFieldDifference> {
    TABLE
        .iter()
        .find(|d| d.register == register && d.field == field && d.levels.contains(level))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_a_field_of_its_register_and_is_listed_once() {
        for d in TABLE {
            assert!(
                GfxLevel::ALL
                    .iter()
                    .any(|l| d.levels.contains(*l) && l.field(d.register, d.field).is_ok()),
                "{}.{} exists on none of its levels",
                d.register,
                d.field
            );
        }
        for (i, d) in TABLE.iter().enumerate() {
            assert!(
                !TABLE[..i]
                    .iter()
                    .any(|e| e.register == d.register && e.field == d.field),
                "{}.{} listed twice",
                d.register,
                d.field
            );
        }
    }
}
