//! Where `pm4::pops` deliberately differs from what Mesa 25.0.7's RADV programs for the same
//! draw, and why. The RADV differential (`pm4/tests/radv_differential.rs`, over every case of
//! `shared/reference/radv`) and the hardware draw's comparison with RADV's streams accept a
//! difference in a field `pm4::pops` decides only when an entry here covers it; anything else
//! is a bug in pops or a new difference to list with its reason.

use super::PopsState;
use crate::chip::GfxLevel;
use crate::regs::{Field, Reg};

/// One deliberate difference.
#[derive(Clone, Copy, Debug)]
pub struct Difference {
    pub register: Reg,
    pub field: Field,
    /// Whether the entry covers this state (the conditions under which pops and RADV differ).
    pub applies: fn(&PopsState) -> bool,
    /// What pops programs and what RADV programs, and why pops is right (or why it does not
    /// matter).
    pub reason: &'static str,
}

fn missed_overlap_by_depth_samples(st: &PopsState) -> bool {
    st.pops_enabled()
        && st.family.quirks().pops_missed_overlap
        && st.draw.rasterization_samples < 8
        && st.draw.depth_stencil_samples >= 8
}

fn gfx11_without_depth(st: &PopsState) -> bool {
    st.level.is_gfx11_plus() && st.draw.depth_stencil_samples == 0
}

fn gfx11_pops_depth_samples_differ(st: &PopsState) -> bool {
    st.level.is_gfx11_plus()
        && st.pops_enabled()
        && st.draw.depth_stencil_samples != 0
        && st.draw.depth_stencil_samples != st.draw.rasterization_samples
}

fn implicit_out_of_order(st: &PopsState) -> bool {
    st.out_of_order.enabled && st.draw.rasterization_order == super::RasterizationOrder::Strict
}

/// The deliberate differences.
pub const TABLE: &[Difference] = &[
    Difference {
        register: Reg::DB_DFSM_CONTROL,
        field: Field::POPS_DRAIN_PS_ON_OVERLAP,
        applies: missed_overlap_by_depth_samples,
        reason: "article over RADV: the VEGA10/RAVEN drain is needed for 8 or more depth/stencil samples too (PAL's waMiscPopsMissedOverlap); RADV sets it for 8 or more rasterization samples only",
    },
    Difference {
        register: Reg::DB_Z_INFO,
        field: Field::NUM_SAMPLES,
        applies: gfx11_without_depth,
        reason: "article over RADV: on GFX11 DB_Z_INFO.NUM_SAMPLES must equal MSAA_EXPOSED_SAMPLES even with no depth attachment; RADV's null depth state writes 3 whatever the sample count (without POPS nothing reads it, and pops writes 0)",
    },
    Difference {
        register: Reg::DB_Z_INFO,
        field: Field::NUM_SAMPLES,
        applies: gfx11_pops_depth_samples_differ,
        reason: "article over RADV: GFX11 POPS takes the coverage sample count from DB_Z_INFO.NUM_SAMPLES, which must equal MSAA_EXPOSED_SAMPLES; with a depth attachment of another sample count both cannot hold, pops programs the article's value and reports the error gfx11-depth-samples-mismatch, RADV keeps the attachment's count",
    },
    Difference {
        register: Reg::PA_SC_MODE_CNTL_1,
        field: Field::OUT_OF_ORDER_PRIMITIVE_ENABLE,
        applies: implicit_out_of_order,
        reason: "pops enables out-of-order rasterization where nothing depends on primitive order (radeonsi's rule, the Mesa review thread), e.g. unordered interlock with no colour target written; RADV enables it only for VK_AMD_rasterization_order's relaxed order",
    },
];

/// The entry covering `reg.field` in `st`, if any.
pub fn find(st: &PopsState, reg: Reg, field: Field) -> Option<&'static Difference> {
    TABLE
        .iter()
        .find(|d| d.register == reg && d.field == field && (d.applies)(st))
}

/// The levels RADV's recorded streams cover.
pub const LEVELS: [GfxLevel; 4] = [
    GfxLevel::Gfx9,
    GfxLevel::Gfx10,
    GfxLevel::Gfx10_3,
    GfxLevel::Gfx11,
];
