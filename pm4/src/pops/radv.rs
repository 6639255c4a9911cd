//! Where `pm4::pops` deliberately differs from what Mesa 25.0.7's RADV programs for the same
//! draw, and why. The RADV differential (`pm4/tests/radv_differential.rs`, over every case of
//! `shared/reference/radv`) and the hardware draw's comparison with RADV's streams accept a
//! difference in a field `pm4::pops` decides only when an entry here covers it; anything else
//! is a bug in pops or a new difference to list with its reason.

use super::PopsState;
use crate::chip::GfxLevel;
use crate::mesa::MesaVersion;
use crate::regs::{Field, Reg};

/// One deliberate difference.
#[derive(Clone, Copy, Debug)]
pub struct RadvDifference {
    pub register: Reg,
    pub field: Field,
    /// The levels the entry is about: a table of a run names only these levels' entries.
    pub levels: &'static [GfxLevel],
    /// Whether the entry covers this state at one of its levels (the conditions under which
    /// pops and RADV differ).
    pub applies: fn(&PopsState) -> bool,
    /// What pops programs and what RADV programs, and why pops is right (or why it does not
    /// matter).
    pub reason: &'static str,
    /// The RADV releases, of those pops is checked against, that differ so (RADV changed
    /// between them).
    pub mesa: &'static [MesaVersion],
}

fn missed_overlap_by_depth_samples(st: &PopsState) -> bool {
    st.pops_enabled()
        && st.family.quirks().pops_missed_overlap
        && st.draw.rasterization_samples < 8
        && st.draw.depth_stencil_samples >= 8
}

fn without_depth_or_pops_depth_samples_differ(st: &PopsState) -> bool {
    let depth = st.draw.depth_stencil_samples;
    depth == 0 || (st.pops_enabled() && depth != st.draw.rasterization_samples)
}

fn pops(st: &PopsState) -> bool {
    st.pops_enabled()
}

const ALL: &[GfxLevel] = &GfxLevel::ALL;
const BOTH: &[MesaVersion] = &[MesaVersion::DEBIAN_12, MesaVersion::LAST_CHECKED];
const GFX9: &[GfxLevel] = &[GfxLevel::Gfx9];
const GFX11: &[GfxLevel] = &[GfxLevel::Gfx11, GfxLevel::Gfx11_5];
const GFX12: &[GfxLevel] = &[GfxLevel::Gfx12];

fn implicit_out_of_order(st: &PopsState) -> bool {
    st.out_of_order.enabled && st.draw.rasterization_order == super::RasterizationOrder::Strict
}

/// The deliberate differences.
pub const TABLE: &[RadvDifference] = &[
    RadvDifference {
        register: Reg::DB_DFSM_CONTROL,
        field: Field::POPS_DRAIN_PS_ON_OVERLAP,
        levels: GFX9,
        applies: missed_overlap_by_depth_samples,
        mesa: BOTH,
        reason: "pops follows the article, RADV does not: the VEGA10/RAVEN drain is needed for 8 or more depth/stencil samples too (PAL's waMiscPopsMissedOverlap); RADV sets it for 8 or more rasterization samples only",
    },
    RadvDifference {
        register: Reg::DB_Z_INFO,
        field: Field::NUM_SAMPLES,
        levels: GFX11,
        applies: without_depth_or_pops_depth_samples_differ,
        mesa: &[MesaVersion::DEBIAN_12],
        reason: "pops follows the article, RADV 25 does not (26 writes the article's value): GFX11 POPS takes the coverage sample count from DB_Z_INFO.NUM_SAMPLES, which must equal MSAA_EXPOSED_SAMPLES. Without a depth attachment RADV's null depth state writes 3 whatever the sample count (without POPS nothing reads it, and pops writes 0); with a depth attachment of another sample count both cannot hold: pops programs the article's value and reports the error gfx11-depth-samples-mismatch, RADV keeps the attachment's count",
    },
    RadvDifference {
        register: Reg::DB_Z_INFO,
        field: Field::NUM_SAMPLES,
        levels: GFX12,
        applies: pops,
        mesa: &[MesaVersion::LAST_CHECKED],
        reason: "unconfirmed on GFX12 (RADV has GFX12 interlock since 26): pops carries over the article's GFX11 rule (POPS takes the coverage sample count from DB_Z_INFO.NUM_SAMPLES, equal to MSAA_EXPOSED_SAMPLES even with no depth attachment); RADV 26 programs the depth attachment's count, 0 without one, on GFX12. Without a GPU neither is confirmed; pops's value is the one that cannot be wrong if GFX12 reads it as GFX11 does",
    },
    RadvDifference {
        register: Reg::PA_SC_MODE_CNTL_1,
        field: Field::OUT_OF_ORDER_PRIMITIVE_ENABLE,
        levels: ALL,
        applies: implicit_out_of_order,
        mesa: BOTH,
        reason: "pops enables out-of-order rasterization where nothing depends on primitive order (radeonsi's rule, the Mesa review thread), e.g. unordered interlock with no colour target written; RADV enables it only for VK_AMD_rasterization_order's relaxed order",
    },
];

/// The entry covering `reg.field` in `st`, if any.
pub fn find(st: &PopsState, reg: Reg, field: Field) -> Option<&'static RadvDifference> {
    TABLE.iter().find(|d| {
        d.register == reg && d.field == field && d.levels.contains(&st.level) && (d.applies)(st)
    })
}

/// How a driver keeps the shading rate at 1×1 where pops programs the sample-iteration way
/// (PA_SC_MODE_CNTL_1.PS_ITER_SAMPLE with PA_CL_VRS_CNTL.SAMPLE_ITER_COMBINER_MODE = OVERRIDE,
/// as RADV did up to Mesa 25.0.x). Each way meets the requirement; which one a driver used is
/// reported, not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate1x1Way {
    /// PS_ITER_SAMPLE = 1 and the SAMPLE_ITER combiner overriding: pops's way, RADV's up to
    /// Mesa 25.0.x.
    SampleIteration,
    /// A VRS override of rate 1×1 (GFX10.3: DB_VRS_OVERRIDE_CNTL, combiner OVERRIDE or MIN,
    /// rate X and Y 0; GFX11: PA_SC_VRS_OVERRIDE_CNTL, combiner OVERRIDE or MIN, VRS_RATE 0;
    /// RADV 26.2.6 on GFX11 uses MIN): RADV after Mesa
    /// 25.0.x where a shading rate is in use ("radv: don't use PS_ITER_SAMPLE to force VRS 1x1").
    VrsOverride,
    /// No shading-rate source is combined in: PA_CL_VRS_CNTL's vertex, primitive and HTILE
    /// combiners pass through and no override is set, so the rate is the pipeline's fragment
    /// size, 1×1 unless the application set another (state the register check does not see):
    /// RADV after Mesa 25.0.x where no shading rate is in use.
    NoRateSource,
    /// GFX10.3 with POPS on: the hardware itself forces 1×1 (article: "On GFX10.3, enabling
    /// DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER forces the shading rate to be 1x1"), so
    /// nothing else need be programmed: RADV after Mesa 25.0.x where no shading rate is in use.
    PopsOnGfx10_3,
}

impl Rate1x1Way {
    pub const fn describe(self) -> &'static str {
        match self {
            Rate1x1Way::SampleIteration => "1x1 rate by sample iteration (PS_ITER_SAMPLE, SAMPLE_ITER combiner)",
            Rate1x1Way::VrsOverride => "1x1 rate by a VRS override",
            Rate1x1Way::NoRateSource => "1x1 rate with no shading-rate source combined in (the pipeline's fragment size is not checked)",
            Rate1x1Way::PopsOnGfx10_3 => "1x1 rate forced by POPS itself on GFX10.3",
        }
    }
}

/// The fields pops programs for the sample-iteration way of keeping the rate at 1×1.
pub const RATE_1X1_FIELDS: [(Reg, Field); 2] = [
    (Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE),
    (Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE),
];

/// PA_CL_VRS_CNTL / DB_VRS_OVERRIDE_CNTL / PA_SC_VRS_OVERRIDE_CNTL's combiner modes
/// (VRSCombinerModeSC in the register database): OVERRIDE takes the override's rate, MIN the
/// finer of it and the incoming rate — both give 1×1 when the override's rate is 1×1.
const COMBINER_OVERRIDE: u64 = 1;
const COMBINER_MIN: u64 = 2;

/// How the draw whose fields `theirs` gives keeps the shading rate at 1×1 on `level`, if it
/// does by one of the [`Rate1x1Way`]s. A field the driver never wrote reads as `None`.
pub fn rate_1x1_way(
    level: GfxLevel,
    theirs: &dyn Fn(Reg, Field) -> Option<u64>,
) -> Option<Rate1x1Way> {
    let is = |r, f, v| theirs(r, f) == Some(v);
    let zero = |r, f| theirs(r, f).unwrap_or(0) == 0;
    if is(Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE, 1)
        && is(
            Reg::PA_CL_VRS_CNTL,
            Field::SAMPLE_ITER_COMBINER_MODE,
            COMBINER_OVERRIDE,
        )
    {
        return Some(Rate1x1Way::SampleIteration);
    }
    let forces = |r, f| matches!(theirs(r, f), Some(COMBINER_OVERRIDE | COMBINER_MIN));
    let db = forces(
        Reg::DB_VRS_OVERRIDE_CNTL,
        Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
    ) && zero(Reg::DB_VRS_OVERRIDE_CNTL, Field::VRS_OVERRIDE_RATE_X)
        && zero(Reg::DB_VRS_OVERRIDE_CNTL, Field::VRS_OVERRIDE_RATE_Y);
    let sc = forces(
        Reg::PA_SC_VRS_OVERRIDE_CNTL,
        Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
    ) && zero(Reg::PA_SC_VRS_OVERRIDE_CNTL, Field::VRS_RATE);
    if (level == GfxLevel::Gfx10_3 && db) || (level.is_gfx11_plus() && sc) {
        return Some(Rate1x1Way::VrsOverride);
    }
    if level == GfxLevel::Gfx10_3
        && is(
            Reg::DB_SHADER_CONTROL,
            Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
            1,
        )
    {
        return Some(Rate1x1Way::PopsOnGfx10_3);
    }
    let passthrough = [
        Field::VERTEX_RATE_COMBINER_MODE,
        Field::PRIMITIVE_RATE_COMBINER_MODE,
        Field::HTILE_RATE_COMBINER_MODE,
        Field::SAMPLE_ITER_COMBINER_MODE,
    ]
    .into_iter()
    .all(|f| zero(Reg::PA_CL_VRS_CNTL, f));
    let no_override = zero(
        Reg::DB_VRS_OVERRIDE_CNTL,
        Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
    ) && zero(
        Reg::PA_SC_VRS_OVERRIDE_CNTL,
        Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
    );
    let has_vrs = matches!(level, GfxLevel::Gfx10_3) || level.is_gfx11_plus();
    (has_vrs && passthrough && no_override).then_some(Rate1x1Way::NoRateSource)
}

/// The levels RADV's recorded streams cover.
pub const LEVELS: [GfxLevel; 4] = [
    GfxLevel::Gfx9,
    GfxLevel::Gfx10,
    GfxLevel::Gfx10_3,
    GfxLevel::Gfx11,
];

#[cfg(test)]
mod rate_tests {
    use super::*;

    fn fields(v: &[(Reg, Field, u64)]) -> impl Fn(Reg, Field) -> Option<u64> + '_ {
        move |r, f| v.iter().find(|e| e.0 == r && e.1 == f).map(|e| e.2)
    }

    /// Article: "On GFX10.3, enabling DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER forces
    /// the shading rate to be 1x1" — so a GFX10.3 POPS draw meets the 1×1 requirement with no
    /// override at all, as RADV after 25.0.x programs it.
    #[test]
    fn gfx10_3_pops_is_1x1_by_itself() {
        let pops = [(
            Reg::DB_SHADER_CONTROL,
            Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
            1,
        )];
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx10_3, &fields(&pops)),
            Some(Rate1x1Way::PopsOnGfx10_3)
        );
        // GFX11 POPS works with coarse rates (article): POPS alone is no 1×1, only the absence
        // of any rate source is.
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx11, &fields(&pops)),
            Some(Rate1x1Way::NoRateSource)
        );
        let vertex_rate = [
            (
                Reg::DB_SHADER_CONTROL,
                Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
                1,
            ),
            (Reg::PA_CL_VRS_CNTL, Field::VERTEX_RATE_COMBINER_MODE, 1),
        ];
        assert_eq!(rate_1x1_way(GfxLevel::Gfx11, &fields(&vertex_rate)), None);
    }

    #[test]
    fn each_way_is_told_apart() {
        let iter = [
            (Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE, 1),
            (Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE, 1),
        ];
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx11, &fields(&iter)),
            Some(Rate1x1Way::SampleIteration)
        );
        let sc = [(
            Reg::PA_SC_VRS_OVERRIDE_CNTL,
            Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
            1,
        )];
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx11, &fields(&sc)),
            Some(Rate1x1Way::VrsOverride)
        );
        let min = [(
            Reg::PA_SC_VRS_OVERRIDE_CNTL,
            Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
            2,
        )];
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx11, &fields(&min)),
            Some(Rate1x1Way::VrsOverride),
            "MIN with 1x1 is 1x1 (RADV 26.2.6)"
        );
        let max = [(
            Reg::PA_SC_VRS_OVERRIDE_CNTL,
            Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
            3,
        )];
        assert_eq!(rate_1x1_way(GfxLevel::Gfx11, &fields(&max)), None);
        let coarse = [
            (
                Reg::PA_SC_VRS_OVERRIDE_CNTL,
                Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
                1,
            ),
            (Reg::PA_SC_VRS_OVERRIDE_CNTL, Field::VRS_RATE, 5),
        ];
        assert_eq!(rate_1x1_way(GfxLevel::Gfx11, &fields(&coarse)), None);
        let db = [(
            Reg::DB_VRS_OVERRIDE_CNTL,
            Field::VRS_OVERRIDE_RATE_COMBINER_MODE,
            1,
        )];
        assert_eq!(
            rate_1x1_way(GfxLevel::Gfx10_3, &fields(&db)),
            Some(Rate1x1Way::VrsOverride)
        );
        let htile = [(Reg::PA_CL_VRS_CNTL, Field::HTILE_RATE_COMBINER_MODE, 2)];
        assert_eq!(rate_1x1_way(GfxLevel::Gfx10_3, &fields(&htile)), None);
        assert_eq!(rate_1x1_way(GfxLevel::Gfx9, &fields(&[])), None);
    }
}
