//! The register rules of the POPS article, one function per register. Each function writes the
//! fields POPS decides, records a one-line reason for every POPS-related value, and adds
//! diagnostics where a switch has no effect or the state cannot be programmed correctly.

use super::enums::{self, EnumValue};
use super::features::has_vrs;
use super::ooo::OUT_OF_ORDER_WATER_MARK;
use super::{
    log2_samples, DrawState, Experiments, PopsState, Reason, Severity, StateCode, StateError,
    StateFinding, MAX_COLOR_TARGETS,
};
use crate::chip::GfxLevel;
use crate::interlock::Granularity;
use crate::regs::{Field, Reg, RegError, RegValue};

/// Composes one register, the mask of the fields it decides, and their reasons.
struct Writer<'s> {
    st: &'s mut PopsState,
    value: RegValue,
    decided: u32,
}

impl<'s> Writer<'s> {
    fn new(st: &'s mut PopsState, reg: Reg) -> Result<Writer<'s>, RegError> {
        let value = RegValue::new(st.level, reg)?;
        Ok(Writer {
            st,
            value,
            decided: 0,
        })
    }

    /// Decides a field without a reason of its own (one reason covers a group of fields).
    fn decide(&mut self, field: Field, v: u32) -> Result<&mut Self, RegError> {
        self.value.set(field, v)?;
        self.decided |= self.value.level.field(self.value.reg(), field)?.mask();
        Ok(self)
    }

    fn set(&mut self, field: Field, v: u32, reason: &'static str) -> Result<&mut Self, RegError> {
        self.decide(field, v)?;
        self.st.reasons.push(Reason {
            reg: self.value.reg(),
            field,
            text: reason.into(),
        });
        Ok(self)
    }

    fn set_enum(
        &mut self,
        field: Field,
        e: EnumValue,
        reason: &'static str,
    ) -> Result<&mut Self, RegError> {
        self.set(field, e.value, reason)
    }

    fn done(self) {
        self.st.registers.push(self.value);
        self.st.decided.push(self.decided);
    }
}

fn diag(st: &mut PopsState, severity: Severity, code: StateCode, message: impl Into<String>) {
    st.diagnostics.push(StateFinding {
        severity,
        code,
        message: message.into(),
    });
}

/// Facts of the draw the rules share.
struct Ctx {
    pops: bool,
    per_sample: bool,
    log2_samples: u32,
    gfx11: bool,
    /// GFX10.3 and GFX12 with POPS: the shading rate is kept at 1x1 (GFX10.3: POPS forces it;
    /// GFX12: AMD's PAL forces it and RADV 26 overrides the rate).
    force_1x1: bool,
    /// GFX10.3+ with a shader that reads the input coverage mask: the shading rate is kept at
    /// 1x1 through the SAMPLE_ITER combiner, interlock or not (RADV's
    /// force_sample_iter_shading_rate for reads_sample_mask_in).
    mask_forces_1x1: bool,
    /// The VEGA10/RAVEN drain condition holds (any interlock).
    missed_overlap_condition: bool,
    drain: bool,
}

pub(crate) fn apply(
    st: &mut PopsState,
    draw: &DrawState,
    exp: &Experiments,
) -> Result<(), StateError> {
    let mode = st.interlock.mode;
    let q = st.family.quirks();
    let missed_overlap_condition = q.pops_missed_overlap
        && (draw.rasterization_samples >= 8 || draw.depth_stencil_samples >= 8);
    let gfx11 = st.level.is_gfx11_plus();
    let pops = mode.is_some();
    let cx = Ctx {
        pops,
        per_sample: matches!(mode, Some(m) if m.granularity == Granularity::Sample),
        log2_samples: log2_samples(draw.rasterization_samples)
            .ok_or(StateError::RasterizationSamples(draw.rasterization_samples))?,
        gfx11,
        force_1x1: pops && matches!(st.level, GfxLevel::Gfx10_3 | GfxLevel::Gfx12),
        mask_forces_1x1: has_vrs(st.level) && st.interlock.reads_sample_mask,
        missed_overlap_condition,
        drain: !gfx11 && pops && (missed_overlap_condition || exp.force_drain_ps_on_overlap),
    };

    db_shader_control(st, &cx, draw, exp)?;
    pa_sc_aa_config(st, &cx, draw)?;
    collision_arguments(st, &cx)?;
    spi_shader_col_format(st, &cx, draw)?;
    db_dfsm_control(st, &cx, exp)?;
    db_render_override2(st, &cx)?;
    pa_sc_mode_cntl_1(st, &cx, draw)?;
    vrs(st, &cx, draw)?;
    db_z_info(st, &cx, draw)?;
    db_eqaa(st, &cx, draw)?;
    pa_sc_binner_cntl_0(st, &cx, exp)?;
    other_diagnostics(st, draw);
    Ok(())
}

/// Does any written render target blend? (The GFX11 export-conflict workaround's condition.)
fn any_blending(draw: &DrawState) -> bool {
    draw.color_targets
        .iter()
        .flatten()
        .any(|t| t.enable && t.writes())
}

fn db_shader_control(
    st: &mut PopsState,
    cx: &Ctx,
    draw: &DrawState,
    exp: &Experiments,
) -> Result<(), RegError> {
    let export_conflict =
        st.family.quirks().export_conflict && draw.rasterization_samples == 1 && any_blending(draw);
    if export_conflict && cx.pops {
        diag(
            st,
            Severity::Info,
            StateCode::Gfx11BlendRateWorkaroundSkipped,
            "the GFX11 export-conflict blending workaround (intrinsic rate 2 at 1 sample) is not applied: with POPS the intrinsic rate override controls only the interlock granularity",
        );
    }
    if exp.exec_if_overlapped && cx.gfx11 {
        diag(
            st,
            Severity::Warning,
            StateCode::ExperimentUnavailable,
            format!(
                "DB_SHADER_CONTROL.EXEC_IF_OVERLAPPED exists on GFX9–10.3 only, not on {}: ignored",
                st.level
            ),
        );
    }
    if cx.pops && cx.per_sample && st.level == GfxLevel::Gfx12 {
        diag(
            st,
            Severity::Warning,
            StateCode::Gfx12SampleRateUnconfirmed,
            "GFX12 sample interlock: the interlock granularity is set to the sample count (OVERRIDE_INTRINSIC_RATE = log2 samples) as on GFX11 and as RADV 26 programs it, but AMD's PAL sets pixel rate only on GFX12; which one the hardware honours is unconfirmed without a GPU (pixel rate is the safe, slower choice)",
        );
    }
    let mut w = Writer::new(st, Reg::DB_SHADER_CONTROL)?;
    w.set(
        Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
        cx.pops as u32,
        if cx.pops {
            "the shader uses fragment shader interlock: POPS is enabled for the draw"
        } else {
            "no interlock: POPS off"
        },
    )?;
    if !cx.gfx11 {
        let (v, why) = match (cx.pops, cx.per_sample) {
            (true, true) => (
                cx.log2_samples,
                "sample interlock: only invocations sharing coverage samples overlap, so PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES",
            ),
            (true, false) => (0, "pixel interlock: must be 0 (1 sample)"),
            (false, _) => (0, "no interlock: POPS off"),
        };
        w.set(Field::POPS_OVERLAP_NUM_SAMPLES, v, why)?;
        if exp.exec_if_overlapped {
            w.set(
                Field::EXEC_IF_OVERLAPPED,
                cx.pops as u32,
                if cx.pops {
                    "experiment: EXEC_IF_OVERLAPPED (unresearched, PAL does not use it)"
                } else {
                    "experiment EXEC_IF_OVERLAPPED has no meaning without POPS"
                },
            )?;
        }
    } else if cx.pops {
        let gfx12 = w.st.level == GfxLevel::Gfx12;
        w.set(
            Field::OVERRIDE_INTRINSIC_RATE_ENABLE,
            1,
            if gfx12 {
                "GFX12: 1 with POPS, the article's GFX11 rule carried over (the field is unchanged in the GFX12 register database, RADV 26 and AMD's PAL set it)"
            } else {
                "GFX11: must be 1 with POPS; the intrinsic rate override sets the interlock granularity"
            },
        )?;
        let (v, why) = match (cx.per_sample, gfx12) {
            (true, false) => (
                cx.log2_samples,
                "GFX11 sample interlock: intrinsic rate = PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES",
            ),
            (true, true) => (
                cx.log2_samples,
                "GFX12 sample interlock: intrinsic rate = PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES, the article's GFX11 rule, as RADV 26 programs it (AMD's PAL programs pixel rate only: finding gfx12-sample-rate-unconfirmed)",
            ),
            (false, false) => (
                0,
                "GFX11 pixel interlock: intrinsic rate 1x (one fine pixel); never the blending workaround's rate",
            ),
            (false, true) => (
                0,
                "GFX12 pixel interlock: intrinsic rate 1x (one fine pixel), as on GFX11; RADV 26 and AMD's PAL program 0",
            ),
        };
        w.set(Field::OVERRIDE_INTRINSIC_RATE, v, why)?;
    } else if export_conflict {
        w.set(
            Field::OVERRIDE_INTRINSIC_RATE_ENABLE,
            1,
            "GFX11 export-conflict workaround (Mesa has_export_conflict_bug): blending at 1 sample, no POPS",
        )?;
        w.set(
            Field::OVERRIDE_INTRINSIC_RATE,
            2,
            "GFX11 export-conflict workaround: intrinsic rate 2 for blending at 1 sample (never on a POPS draw)",
        )?;
    } else {
        w.set(
            Field::OVERRIDE_INTRINSIC_RATE_ENABLE,
            0,
            "no POPS and no blending workaround: no intrinsic rate override",
        )?;
    }
    w.done();
    Ok(())
}

fn pa_sc_aa_config(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    let gfx12 = st.level == GfxLevel::Gfx12;
    let mut w = Writer::new(st, Reg::PA_SC_AA_CONFIG)?;
    if gfx12 {
        // GFX12 moved the samples shaded per pixel here from DB_EQAA (register database).
        w.set(
            Field::PS_ITER_SAMPLES,
            ps_iter_samples(cx, draw),
            "GFX12: the samples shaded per pixel live here (the GFX12 register database moved them from DB_EQAA; RADV 26 programs them here)",
        )?;
    }
    w.set(
        Field::MSAA_NUM_SAMPLES,
        cx.log2_samples,
        "log2 of the rasterization samples",
    )?;
    w.set(
        Field::MSAA_EXPOSED_SAMPLES,
        cx.log2_samples,
        "coverage mask bits passed to the shader; sample interlock granularity and (GFX11) DB_Z_INFO.NUM_SAMPLES follow it",
    )?;
    w.done();
    Ok(())
}

/// COLLISION_WAVEID and INTRAWAVE_COLLISION SGPR arguments (GFX9–10.3).
fn collision_arguments(st: &mut PopsState, cx: &Ctx) -> Result<(), RegError> {
    let intrawave = st.interlock.resolves_intrawave;
    if cx.gfx11 {
        if intrawave {
            diag(
                st,
                Severity::Warning,
                StateCode::IntrawaveUnavailable,
                "GFX11 has no intrawave collisions (overlapping invocations are always in different waves): LOAD_INTRAWAVE_COLLISION is not written",
            );
        }
        return Ok(());
    }
    if intrawave && !cx.pops {
        diag(
            st,
            Severity::Info,
            StateCode::IntrawaveWithoutInterlock,
            "intrawave collision resolution requested without interlock: ignored",
        );
    }
    for reg in [Reg::PA_SC_SHADER_CONTROL, Reg::SPI_SHADER_PGM_RSRC2_PS] {
        let mut w = Writer::new(st, reg)?;
        w.set(
            Field::LOAD_COLLISION_WAVEID,
            cx.pops as u32,
            if cx.pops {
                "COLLISION_WAVEID must be loaded: enabled in both SPI_SHADER_PGM_RSRC2_PS and PA_SC_SHADER_CONTROL"
            } else {
                "no interlock: no collision wave ID"
            },
        )?;
        w.set(
            Field::LOAD_INTRAWAVE_COLLISION,
            (cx.pops && intrawave) as u32,
            match (cx.pops, intrawave) {
                (true, true) => "the shader resolves intrawave collisions: INTRAWAVE_COLLISION enabled in both registers",
                (true, false) => "the shader does not resolve intrawave collisions (optional)",
                (false, _) => "no interlock: no intrawave collision mask",
            },
        )?;
        w.done();
    }
    Ok(())
}

const COL_EXPORT_FIELDS: [Field; MAX_COLOR_TARGETS] = [
    Field::COL0_EXPORT_FORMAT,
    Field::COL1_EXPORT_FORMAT,
    Field::COL2_EXPORT_FORMAT,
    Field::COL3_EXPORT_FORMAT,
    Field::COL4_EXPORT_FORMAT,
    Field::COL5_EXPORT_FORMAT,
    Field::COL6_EXPORT_FORMAT,
    Field::COL7_EXPORT_FORMAT,
];

/// The export requirement: a POPS shader must export, and must have export space allocated.
/// Each written target exports the format its attachment format and blending call for
/// ([`super::color::export_format`]); with dual-source blending on target 0, target 1 exports
/// target 0's format and the other targets are not written.
fn spi_shader_col_format(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    let has_color = st.interlock.has_color_output;
    let family = st.family;
    let dual =
        matches!(&draw.color_targets[0], Some(t) if t.writes() && super::color::dual_source(t));
    let mut w = Writer::new(st, Reg::SPI_SHADER_COL_FORMAT)?;
    let mut written = Vec::new();
    for (i, t) in draw.color_targets.iter().enumerate() {
        let t = match t {
            Some(t) if has_color && t.writes() && (!dual || i == 0) => t,
            _ => {
                w.decide(COL_EXPORT_FIELDS[i], enums::SPI_SHADER_ZERO.value)?;
                continue;
            }
        };
        let e = super::color::export_format(family, draw.color_formats[i], t);
        w.decide(COL_EXPORT_FIELDS[i], e.value)?;
        written.push((i, e));
    }
    if dual {
        if let Some(&(_, e)) = written.first() {
            w.decide(COL_EXPORT_FIELDS[1], e.value)?;
        }
    }
    if written.is_empty() && cx.pops {
        w.set_enum(
            Field::COL0_EXPORT_FORMAT,
            enums::SPI_SHADER_32_R,
            "export requirement: POPS needs an export and export space even without colour (no GFX10 export skipping), so MRT0 = SPI_SHADER_32_R",
        )?;
    } else if !written.is_empty() {
        let formats: Vec<String> = written
            .iter()
            .map(|(i, e)| format!("COL{i} {} → {}", draw.color_formats[*i], e.name))
            .collect();
        let reason = format!(
            "written targets export the format Mesa picks for their attachment format and blending ({}), which also meets the POPS export requirement",
            formats.join(", ")
        );
        w.st.reasons.push(Reason {
            reg: Reg::SPI_SHADER_COL_FORMAT,
            field: Field::COL0_EXPORT_FORMAT,
            text: reason.into(),
        });
    } else {
        w.st.reasons.push(Reason {
            reg: Reg::SPI_SHADER_COL_FORMAT,
            field: Field::COL0_EXPORT_FORMAT,
            text: "no colour export and no POPS: nothing to allocate".into(),
        });
    }
    w.done();
    Ok(())
}

/// DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP (GFX9–10.3): PAL's waMiscPopsMissedOverlap.
fn db_dfsm_control(st: &mut PopsState, cx: &Ctx, exp: &Experiments) -> Result<(), RegError> {
    let quirk = st.family.quirks().pops_missed_overlap;
    if cx.gfx11 {
        if exp.force_drain_ps_on_overlap {
            diag(
                st,
                Severity::Warning,
                StateCode::ExperimentUnavailable,
                format!(
                    "DB_DFSM_CONTROL (POPS_DRAIN_PS_ON_OVERLAP) does not exist on {}: ignored",
                    st.level
                ),
            );
        }
        return Ok(());
    }
    let wa = cx.pops && cx.missed_overlap_condition;
    if wa {
        diag(
            st,
            Severity::Warning,
            StateCode::PopsMissedOverlapWorkaround,
            format!(
                "{}: POPS with 8 or more rasterization or depth/stencil samples may hang; POPS_DRAIN_PS_ON_OVERLAP set (roughly 1.5-2x frame time in such draws)",
                st.family
            ),
        );
    }
    if exp.force_drain_ps_on_overlap && !cx.pops {
        diag(
            st,
            Severity::Info,
            StateCode::ExperimentWithoutInterlock,
            "force-drain requested without interlock: the drain bit only matters with POPS, left clear",
        );
    }
    let why = if wa {
        "VEGA10/RAVEN hang workaround (waMiscPopsMissedOverlap): POPS with 8+ rasterization or depth/stencil samples"
    } else if cx.drain {
        "experiment: drain forced on overlap"
    } else if quirk && cx.pops {
        "VEGA10/RAVEN: fewer than 8 rasterization and depth/stencil samples, so the workaround is explicitly cleared"
    } else if cx.pops {
        "not needed on this chip"
    } else {
        "no interlock: POPS off"
    };
    let mut w = Writer::new(st, Reg::DB_DFSM_CONTROL)?;
    w.set_enum(
        Field::PUNCHOUT_MODE,
        enums::PUNCHOUT_MODE_FORCE_OFF,
        "DFSM punchout off, as Mesa programs the register",
    )?;
    w.set(Field::POPS_DRAIN_PS_ON_OVERLAP, cx.drain as u32, why)?;
    w.done();
    Ok(())
}

/// DB_RENDER_OVERRIDE2.PARTIAL_SQUAD_LAUNCH_CONTROL on NAVI10/12/14 (PAL's waStalledPopsMode).
fn db_render_override2(st: &mut PopsState, cx: &Ctx) -> Result<(), RegError> {
    if !st.family.quirks().stalled_pops_mode {
        return Ok(());
    }
    let hazard = cx.pops && cx.drain;
    if hazard {
        diag(
            st,
            Severity::Info,
            StateCode::StalledPopsWorkaround,
            format!(
                "{}: POPS_DRAIN_PS_ON_OVERLAP with POPS on GFX10.1 needs PARTIAL_SQUAD_LAUNCH_CONTROL = PSLC_ON_HANG_ONLY to avoid a hang",
                st.family
            ),
        );
    }
    let mut w = Writer::new(st, Reg::DB_RENDER_OVERRIDE2)?;
    if hazard {
        w.set_enum(
            Field::PARTIAL_SQUAD_LAUNCH_CONTROL,
            enums::PSLC_ON_HANG_ONLY,
            "GFX10.1 hang workaround (waStalledPopsMode): drain bit set with POPS",
        )?;
    } else {
        w.set_enum(
            Field::PARTIAL_SQUAD_LAUNCH_CONTROL,
            enums::PSLC_AUTO,
            "drain bit clear or no POPS: default partial squad launch",
        )?;
    }
    w.done();
    Ok(())
}

fn pa_sc_mode_cntl_1(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    let ooo = st.out_of_order;
    let gfx10_3_plus = !matches!(st.level, GfxLevel::Gfx9 | GfxLevel::Gfx10);
    let force_1x1 = cx.force_1x1;
    let sample_rate = draw.sample_shading && (draw.rasterization_samples > 1 || gfx10_3_plus);
    let gfx12 = st.level == GfxLevel::Gfx12;
    let mut w = Writer::new(st, Reg::PA_SC_MODE_CNTL_1)?;
    w.set(
        Field::OUT_OF_ORDER_PRIMITIVE_ENABLE,
        ooo.enabled as u32,
        ooo.reason,
    )?;
    let (mark, why) = if gfx12 && !ooo.enabled {
        (
            0,
            "GFX12 without out-of-order rasterization: no water mark, as RADV 26.2.6 programs it on gfx1200 and gfx1201 (its recorded command streams)",
        )
    } else {
        (
            OUT_OF_ORDER_WATER_MARK,
            "Mesa's water mark, programmed whether or not out-of-order rasterization is on",
        )
    };
    w.set(Field::OUT_OF_ORDER_WATER_MARK, mark, why)?;
    let (v, why) = if force_1x1 && gfx12 {
        (
            1,
            "GFX12 POPS at 1x1 (AMD's PAL forces it; RADV 26 overrides the rate): PS_ITER_SAMPLE activates the SAMPLE_ITER combiner even at 1 sample, pops's way of keeping 1x1",
        )
    } else if force_1x1 {
        (
            1,
            "GFX10.3 POPS forces 1x1: PS_ITER_SAMPLE activates the SAMPLE_ITER combiner even at 1 sample (as RADV does)",
        )
    } else if cx.mask_forces_1x1 && !sample_rate {
        (
            1,
            "the shader reads the coverage mask, so the rate stays 1x1: PS_ITER_SAMPLE activates the SAMPLE_ITER combiner (as RADV does)",
        )
    } else if sample_rate {
        (
            1,
            if draw.rasterization_samples > 1 {
                "sample-rate shading: one invocation per covered sample"
            } else {
                "sample-rate shading at 1 sample on GFX10.3+: keeps the SAMPLE_ITER combiner at 1x1 (as RADV does)"
            },
        )
    } else {
        (0, "no sample-rate shading")
    };
    w.set(Field::PS_ITER_SAMPLE, v, why)?;
    w.done();
    Ok(())
}

/// log2 of the samples shaded per pixel: all of them with sample-rate shading, else one.
fn ps_iter_samples(cx: &Ctx, draw: &DrawState) -> u32 {
    if draw.sample_shading {
        cx.log2_samples
    } else {
        0
    }
}

/// DB_EQAA's sample counts: the rasterization samples, and the samples shaded per pixel.
fn db_eqaa(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    // MASK_EXPORT_NUM_SAMPLES and ALPHA_TO_MASK_NUM_SAMPLES: the rasterization samples (the
    // coverage POPS orders is the rasterizer's, whatever the colour attachments' samples).
    let mut w = Writer::new(st, Reg::DB_EQAA)?;
    for f in [
        Field::MASK_EXPORT_NUM_SAMPLES,
        Field::ALPHA_TO_MASK_NUM_SAMPLES,
    ] {
        w.decide(f, cx.log2_samples)?;
    }
    if w.st.level == GfxLevel::Gfx12 {
        // No EQAA anchors on GFX12, and PS_ITER_SAMPLES is PA_SC_AA_CONFIG's there.
        w.done();
        return Ok(());
    }
    // EQAA anchors: the larger of the depth/stencil and rasterization samples, with MSAA only.
    let anchors = if draw.rasterization_samples > 1 {
        log2_samples(draw.rasterization_samples.max(draw.depth_stencil_samples))
            .unwrap_or(cx.log2_samples)
    } else {
        0
    };
    w.set(
        Field::MAX_ANCHOR_SAMPLES,
        anchors,
        "with MSAA, log2 of the larger of the depth/stencil and rasterization samples (as RADV programs EQAA); 0 at 1 sample",
    )?;
    w.set(
        Field::PS_ITER_SAMPLES,
        ps_iter_samples(cx, draw),
        if draw.sample_shading {
            "sample-rate shading: log2 of the samples shaded per pixel"
        } else {
            "no sample-rate shading"
        },
    )?;
    w.done();
    Ok(())
}

/// PA_CL_VRS_CNTL (GFX10.3+). FORCE_SC_VRS_RATE_FINE_POPS (GFX11+) lives in
/// PA_SC_VRS_SURFACE_CNTL_1, which the kernel owns: it is only assumed ([`KernelState`]).
fn vrs(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    let level = st.level;
    let force_fine = st.kernel.force_vrs_rate_fine_pops;
    if force_fine && !level.is_gfx11_plus() {
        diag(
            st,
            Severity::Warning,
            StateCode::KernelStateUnavailable,
            format!("PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS exists on GFX11+ only, not on {level}: the assumption is ignored"),
        );
    }
    if !has_vrs(level) {
        if draw.vrs_in_use {
            diag(
                st,
                Severity::Warning,
                StateCode::VrsUnavailable,
                format!("{level} has no variable-rate shading: VRS ignored"),
            );
        }
        return Ok(());
    }
    let gfx10_3_pops = cx.force_1x1;
    let sample_rate = draw.sample_shading;
    if cx.pops && draw.vrs_in_use {
        if level == GfxLevel::Gfx10_3 {
            diag(
                st,
                Severity::Warning,
                StateCode::PopsForcesVrs1X1,
                "GFX10.3: POPS forces the shading rate to 1x1 (fragmentShadingRateWithFragmentShaderInterlock is false); the requested coarse rate is not used",
            );
        } else if level == GfxLevel::Gfx12 {
            diag(
                st,
                Severity::Warning,
                StateCode::PopsForcesVrs1X1,
                "GFX12: POPS draws run at a 1x1 shading rate (AMD's PAL forces it, RADV 26 overrides the rate): the requested coarse rate is not used",
            );
        } else if force_fine {
            diag(
                st,
                Severity::Warning,
                StateCode::PopsForcesVrs1X1,
                "the kernel is assumed to set PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS: POPS forces 1x1 shading, the requested coarse rate is not used",
            );
        } else if !(sample_rate || cx.mask_forces_1x1) {
            // (Sample-rate shading and coverage-mask reads keep the rate at 1x1 anyway.)
            diag(
                st,
                Severity::Info,
                StateCode::PopsInterlockPerFinePixel,
                "GFX11 POPS works with coarse shading, but interlock is per fine pixel: coarse invocations that share no fine pixel are not ordered",
            );
        }
    }
    let mut w = Writer::new(st, Reg::PA_CL_VRS_CNTL)?;
    if gfx10_3_pops && level == GfxLevel::Gfx12 {
        w.set_enum(
            Field::SAMPLE_ITER_COMBINER_MODE,
            enums::SC_VRS_COMB_MODE_OVERRIDE,
            "GFX12: POPS at 1x1 (AMD's PAL forces it, RADV 26 overrides the rate with PA_SC_VRS_OVERRIDE_CNTL), so the SAMPLE_ITER combiner overrides any coarse rate",
        )?;
    } else if gfx10_3_pops {
        w.set_enum(
            Field::SAMPLE_ITER_COMBINER_MODE,
            enums::SC_VRS_COMB_MODE_OVERRIDE,
            "GFX10.3: POPS forces 1x1, so the SAMPLE_ITER combiner overrides any coarse rate (RADV force_sample_iter_shading_rate)",
        )?;
    } else if sample_rate {
        w.set_enum(
            Field::SAMPLE_ITER_COMBINER_MODE,
            enums::SC_VRS_COMB_MODE_OVERRIDE,
            "sample-rate shading: the SAMPLE_ITER combiner keeps the rate 1x1 (as RADV forces VRS 1x1 for it)",
        )?;
    } else if cx.mask_forces_1x1 {
        w.set_enum(
            Field::SAMPLE_ITER_COMBINER_MODE,
            enums::SC_VRS_COMB_MODE_OVERRIDE,
            "the shader reads the coverage mask, whose 16 bits cannot describe a coarse 2x2 invocation at 8 samples: the SAMPLE_ITER combiner keeps the rate 1x1 (as RADV does)",
        )?;
    } else {
        w.set_enum(
            Field::SAMPLE_ITER_COMBINER_MODE,
            enums::SC_VRS_COMB_MODE_PASSTHRU,
            if cx.pops {
                "GFX11: POPS works with coarse shading rates, no 1x1 override"
            } else {
                "no interlock: no shading-rate override"
            },
        )?;
    }
    w.done();
    Ok(())
}

/// DB_Z_INFO.NUM_SAMPLES on GFX11: POPS takes the coverage sample count from it.
fn db_z_info(st: &mut PopsState, cx: &Ctx, draw: &DrawState) -> Result<(), RegError> {
    if !cx.gfx11 {
        return Ok(());
    }
    let ds = draw.depth_stencil_samples;
    if cx.pops && ds != 0 && ds != draw.rasterization_samples {
        diag(
            st,
            Severity::Error,
            StateCode::Gfx11DepthSamplesMismatch,
            format!(
                "{} POPS needs DB_Z_INFO.NUM_SAMPLES = MSAA_EXPOSED_SAMPLES ({} samples), but the depth/stencil target has {ds}: both cannot hold",
                st.level,
                draw.rasterization_samples
            ),
        );
    }
    let (v, why) = if cx.pops && st.level == GfxLevel::Gfx12 {
        (
            cx.log2_samples,
            "GFX12: the article's GFX11 rule carried over (POPS reads the coverage sample count here, equal to MSAA_EXPOSED_SAMPLES even with no depth/stencil target); RADV 26 does not program it on GFX12 (pm4::pops::radv lists it): unconfirmed without a GPU",
        )
    } else if cx.pops {
        (
            cx.log2_samples,
            "GFX11: POPS reads the coverage sample count here; must equal PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES, even with no depth/stencil target",
        )
    } else if ds != 0 {
        (
            log2_samples(ds).unwrap_or(0),
            "no interlock: the depth/stencil target's sample count",
        )
    } else {
        (0, "no interlock and no depth/stencil target")
    };
    let mut w = Writer::new(st, Reg::DB_Z_INFO)?;
    w.set(Field::NUM_SAMPLES, v, why)?;
    w.done();
    Ok(())
}

/// PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE = BIN_MAP_MODE_POPS (GFX10+), only under the experiment.
fn pa_sc_binner_cntl_0(st: &mut PopsState, cx: &Ctx, exp: &Experiments) -> Result<(), RegError> {
    if !exp.bin_map_mode_pops {
        return Ok(());
    }
    if st.level == GfxLevel::Gfx9 {
        diag(
            st,
            Severity::Warning,
            StateCode::ExperimentUnavailable,
            "PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE exists on GFX10+ only: ignored on gfx9",
        );
        return Ok(());
    }
    let mut w = Writer::new(st, Reg::PA_SC_BINNER_CNTL_0)?;
    if cx.pops {
        w.set_enum(
            Field::BIN_MAPPING_MODE,
            enums::BIN_MAP_MODE_POPS,
            "experiment: BIN_MAP_MODE_POPS (unresearched, PAL does not use it)",
        )?;
    } else {
        w.set_enum(
            Field::BIN_MAPPING_MODE,
            enums::BIN_MAP_MODE_NONE,
            "experiment BIN_MAP_MODE_POPS has no meaning without POPS",
        )?;
    }
    w.done();
    Ok(())
}

fn other_diagnostics(st: &mut PopsState, draw: &DrawState) {
    let ds = &draw.depth_stencil;
    if draw.depth_stencil_samples == 0 && (ds.depth_test || ds.depth_write || ds.stencil_test) {
        diag(
            st,
            Severity::Info,
            StateCode::DepthStateWithoutAttachment,
            "depth/stencil tests are set but no depth/stencil attachment is bound (0 samples): ignored",
        );
    }
    if let Some(mode) = st.interlock.mode {
        let found = super::interlock_findings(mode, draw);
        st.diagnostics.extend(found);
    }
}

#[cfg(test)]
mod tests {
    use crate::chip::{Family, GfxLevel};
    use crate::interlock::InterlockMode;
    use crate::pops::enums;
    use crate::pops::*;
    use crate::regs::{Field, Reg};

    fn mode(s: &str) -> Option<InterlockMode> {
        InterlockMode::parse_optional(s).unwrap()
    }

    fn state(f: Family, m: &str, samples: u32) -> PopsState {
        state_with(f, m, samples, |_, _, _| {})
    }

    fn state_with(
        f: Family,
        m: &str,
        samples: u32,
        tweak: impl FnOnce(&mut InterlockDesc, &mut DrawState, &mut Experiments),
    ) -> PopsState {
        let mut i = InterlockDesc::with_mode(mode(m));
        let mut d = DrawState {
            rasterization_samples: samples,
            ..DrawState::default()
        };
        let mut e = Experiments::default();
        tweak(&mut i, &mut d, &mut e);
        derive(f, &i, &d, &e).unwrap()
    }

    fn levels() -> impl Iterator<Item = Family> {
        GfxLevel::ALL.into_iter().map(|l| l.representative())
    }

    /// "To enable POPS for the draw, DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER should be
    /// set to 1."
    #[test]
    fn primitive_ordered_pixel_shader_enables_pops() {
        for f in Family::ALL {
            for m in [
                "pixel-ordered",
                "pixel-unordered",
                "sample-ordered",
                "sample-unordered",
            ] {
                let s = state(*f, m, 4);
                assert_eq!(
                    s.field(
                        Reg::DB_SHADER_CONTROL,
                        Field::PRIMITIVE_ORDERED_PIXEL_SHADER
                    ),
                    Some(1),
                    "{f} {m}"
                );
                assert!(s
                    .reason(
                        Reg::DB_SHADER_CONTROL,
                        Field::PRIMITIVE_ORDERED_PIXEL_SHADER
                    )
                    .is_some());
            }
            let s = state(*f, "none", 4);
            assert_eq!(
                s.field(
                    Reg::DB_SHADER_CONTROL,
                    Field::PRIMITIVE_ORDERED_PIXEL_SHADER
                ),
                Some(0)
            );
        }
    }

    /// "For pixel interlock, it must be set to 0 (1 sample)." / "If sample interlock is
    /// sufficient ... it may be set to PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES".
    #[test]
    fn pops_overlap_num_samples_pixel_zero_sample_exposed() {
        for f in levels().filter(|f| !f.gfx_level().is_gfx11_plus()) {
            for (samples, log2) in [(1, 0), (2, 1), (4, 2), (8, 3)] {
                for m in ["pixel-ordered", "pixel-unordered"] {
                    let s = state(f, m, samples);
                    assert_eq!(
                        s.field(Reg::DB_SHADER_CONTROL, Field::POPS_OVERLAP_NUM_SAMPLES),
                        Some(0)
                    );
                }
                for m in ["sample-ordered", "sample-unordered"] {
                    let s = state(f, m, samples);
                    let exposed = s
                        .field(Reg::PA_SC_AA_CONFIG, Field::MSAA_EXPOSED_SAMPLES)
                        .unwrap();
                    assert_eq!(exposed, log2);
                    assert_eq!(
                        s.field(Reg::DB_SHADER_CONTROL, Field::POPS_OVERLAP_NUM_SAMPLES),
                        Some(exposed),
                        "{f} {m} {samples}"
                    );
                }
            }
        }
    }

    /// "On GFX11, when POPS is enabled, DB_SHADER_CONTROL.OVERRIDE_INTRINSIC_RATE is used in place
    /// of DB_SHADER_CONTROL.POPS_OVERLAP_NUM_SAMPLES ... and
    /// DB_SHADER_CONTROL.OVERRIDE_INTRINSIC_RATE_ENABLE must be set to 1."
    #[test]
    fn gfx11_override_intrinsic_rate() {
        for f in Family::ALL.iter().filter(|f| f.gfx_level().is_gfx11_plus()) {
            for (samples, log2) in [(1, 0), (2, 1), (4, 2), (8, 3)] {
                for m in [
                    "pixel-ordered",
                    "pixel-unordered",
                    "sample-ordered",
                    "sample-unordered",
                ] {
                    let s = state(*f, m, samples);
                    let dsc = s.register(Reg::DB_SHADER_CONTROL).unwrap();
                    assert_eq!(dsc.get(Field::OVERRIDE_INTRINSIC_RATE_ENABLE), Ok(1));
                    let want = if m.starts_with("sample") { log2 } else { 0 };
                    assert_eq!(dsc.get(Field::OVERRIDE_INTRINSIC_RATE), Ok(want), "{f} {m}");
                    assert!(dsc.get(Field::POPS_OVERLAP_NUM_SAMPLES).is_err());
                }
            }
        }
    }

    /// "The GFX11 blending performance workaround overriding the intrinsic rate must not be
    /// applied if POPS is used in the draw — the intrinsic rate override must be used solely to
    /// control the interlock granularity in this case."
    #[test]
    fn gfx11_blend_rate_workaround_never_on_a_pops_draw() {
        let blend = |_: &mut InterlockDesc, d: &mut DrawState, _: &mut Experiments| {
            d.color_targets[0] = Some(BlendTarget::ALPHA);
        };
        // Without POPS the workaround applies on GFX11 (Mesa's has_export_conflict_bug) ...
        let off = state_with(Family::Navi31, "none", 1, blend);
        assert_eq!(
            off.field(
                Reg::DB_SHADER_CONTROL,
                Field::OVERRIDE_INTRINSIC_RATE_ENABLE
            ),
            Some(1)
        );
        assert_eq!(
            off.field(Reg::DB_SHADER_CONTROL, Field::OVERRIDE_INTRINSIC_RATE),
            Some(2)
        );
        // ... not on GFX11.5, and not without blending.
        let s = state_with(Family::Gfx1150, "none", 1, blend);
        assert_eq!(
            s.field(
                Reg::DB_SHADER_CONTROL,
                Field::OVERRIDE_INTRINSIC_RATE_ENABLE
            ),
            Some(0)
        );
        let s = state(Family::Navi31, "none", 1);
        assert_eq!(
            s.field(Reg::DB_SHADER_CONTROL, Field::OVERRIDE_INTRINSIC_RATE),
            Some(0)
        );
        // With POPS: the rate is the interlock granularity, never 2.
        for m in ["pixel-ordered", "sample-ordered"] {
            let on = state_with(Family::Navi31, m, 1, blend);
            assert_eq!(
                on.field(Reg::DB_SHADER_CONTROL, Field::OVERRIDE_INTRINSIC_RATE),
                Some(0),
                "{m}"
            );
            assert!(on
                .diagnostics
                .iter()
                .any(|d| d.code == StateCode::Gfx11BlendRateWorkaroundSkipped));
        }
    }

    /// "Its loading needs to be enabled in the SPI_SHADER_PGM_RSRC2_PS and PA_SC_SHADER_CONTROL
    /// registers" / "it can be activated by enabling loading of the INTRAWAVE_COLLISION SGPR
    /// argument in SPI_SHADER_PGM_RSRC2_PS and PA_SC_SHADER_CONTROL" / "GFX11 removes this
    /// concept entirely".
    #[test]
    fn collision_arguments_in_both_registers_never_on_gfx11() {
        for f in Family::ALL {
            for intrawave in [false, true] {
                let s = state_with(*f, "pixel-ordered", 1, |i, _, _| {
                    i.resolves_intrawave = intrawave
                });
                for reg in [Reg::PA_SC_SHADER_CONTROL, Reg::SPI_SHADER_PGM_RSRC2_PS] {
                    if f.gfx_level().is_gfx11_plus() {
                        assert!(s.register(reg).is_none(), "{f} {reg}");
                    } else {
                        assert_eq!(s.field(reg, Field::LOAD_COLLISION_WAVEID), Some(1));
                        assert_eq!(
                            s.field(reg, Field::LOAD_INTRAWAVE_COLLISION),
                            Some(intrawave as u32),
                            "{f} {reg}"
                        );
                    }
                }
                if f.gfx_level().is_gfx11_plus() && intrawave {
                    assert!(s
                        .diagnostics
                        .iter()
                        .any(|d| d.code == StateCode::IntrawaveUnavailable));
                }
            }
        }
    }

    /// "Also, on GFX11, POPS uses DB_Z_INFO.NUM_SAMPLES to determine the coverage sample count,
    /// and it must be equal to PA_SC_AA_CONFIG.MSAA_EXPOSED_SAMPLES even if there's no
    /// depth/stencil target."
    #[test]
    fn gfx11_db_z_info_num_samples_equals_exposed_samples() {
        for f in Family::ALL {
            for samples in [1, 2, 4, 8] {
                let s = state(*f, "sample-ordered", samples);
                let z = s.field(Reg::DB_Z_INFO, Field::NUM_SAMPLES);
                if f.gfx_level().is_gfx11_plus() {
                    assert_eq!(
                        z,
                        s.field(Reg::PA_SC_AA_CONFIG, Field::MSAA_EXPOSED_SAMPLES),
                        "{f}"
                    );
                    assert!(!s.has_errors());
                } else {
                    assert_eq!(z, None, "{f}: DB_Z_INFO is not a POPS register there");
                }
            }
        }
        // A depth target with a different sample count cannot satisfy it: an error.
        let s = state_with(Family::Navi31, "pixel-ordered", 4, |_, d, _| {
            d.depth_stencil_samples = 8
        });
        assert_eq!(s.field(Reg::DB_Z_INFO, Field::NUM_SAMPLES), Some(2));
        assert!(s.diagnostics.iter().any(
            |d| d.code == StateCode::Gfx11DepthSamplesMismatch && d.severity == Severity::Error
        ));
        let s = state_with(Family::Navi31, "pixel-ordered", 4, |_, d, _| {
            d.depth_stencil_samples = 4
        });
        assert!(!s.has_errors());
    }

    /// "if POPS is used with 8 or more rasterization samples, or with 8 or more depth/stencil
    /// target samples, DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP must be set to 1 for draws that
    /// satisfy this condition."
    #[test]
    fn vega10_raven_drain_at_8_raster_or_depth_samples() {
        for f in Family::ALL {
            for (raster, depth) in [(1, 0), (4, 4), (8, 0), (8, 8), (1, 8), (4, 8), (2, 1)] {
                let s = state_with(*f, "pixel-ordered", raster, |_, d, _| {
                    d.depth_stencil_samples = depth
                });
                let want = f.quirks().pops_missed_overlap && (raster >= 8 || depth >= 8);
                let got = s.field(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP);
                if f.gfx_level().is_gfx11_plus() {
                    assert_eq!(got, None);
                } else {
                    assert_eq!(got, Some(want as u32), "{f} {raster} {depth}");
                }
            }
            // Only with POPS.
            let s = state(*f, "none", 8);
            if let Some(v) = s.field(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP) {
                assert_eq!(v, 0);
            }
        }
    }

    /// "... must be set to 1 for draws that satisfy this condition": the register is still
    /// written, with 0, once a later draw no longer satisfies it.
    #[test]
    fn drain_is_explicitly_cleared_when_the_condition_no_longer_holds() {
        let at8 = state(Family::Raven, "sample-ordered", 8);
        let at4 = state(Family::Raven, "sample-ordered", 4);
        assert_eq!(
            at8.field(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP),
            Some(1)
        );
        assert_eq!(
            at4.field(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP),
            Some(0)
        );
        assert!(at4
            .reason(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP)
            .unwrap()
            .contains("explicitly cleared"));
        let words = emit(&at4);
        let dfsm = GfxLevel::Gfx9.require(Reg::DB_DFSM_CONTROL).unwrap();
        assert!(
            words.contains(&((dfsm.address - 0x28000) / 4)),
            "the cleared value is emitted"
        );
    }

    /// "if it's enabled for some reason on GFX10.1 (CHIP_NAVI10, CHIP_NAVI12, CHIP_NAVI14), and
    /// the draw uses POPS, DB_RENDER_OVERRIDE2.PARTIAL_SQUAD_LAUNCH_CONTROL must be set to
    /// PSLC_ON_HANG_ONLY to avoid a hang (see waStalledPopsMode in PAL)."
    #[test]
    fn navi1x_pslc_on_hang_only_whenever_drain_is_set() {
        for f in Family::ALL {
            for force in [false, true] {
                for m in ["none", "pixel-ordered"] {
                    let s = state_with(*f, m, 4, |_, _, e| e.force_drain_ps_on_overlap = force);
                    let pslc = s.field(
                        Reg::DB_RENDER_OVERRIDE2,
                        Field::PARTIAL_SQUAD_LAUNCH_CONTROL,
                    );
                    if !f.quirks().stalled_pops_mode {
                        assert_eq!(pslc, None, "{f}");
                        continue;
                    }
                    let drain = s
                        .field(Reg::DB_DFSM_CONTROL, Field::POPS_DRAIN_PS_ON_OVERLAP)
                        .unwrap();
                    assert_eq!(drain, (force && m != "none") as u32);
                    let want = if drain == 1 {
                        enums::PSLC_ON_HANG_ONLY.value
                    } else {
                        enums::PSLC_AUTO.value
                    };
                    assert_eq!(pslc, Some(want), "{f} {m} force={force}");
                }
            }
        }
    }

    /// "even if the shader doesn't need to export any real data ... some space must be allocated
    /// in the export buffer, such as by setting SPI_SHADER_COL_FORMAT for some color output to
    /// SPI_SHADER_32_R."
    #[test]
    fn export_requirement_without_colour_output() {
        for f in Family::ALL {
            let s = state_with(*f, "pixel-ordered", 1, |i, _, _| i.has_color_output = false);
            assert_eq!(
                s.field(Reg::SPI_SHADER_COL_FORMAT, Field::COL0_EXPORT_FORMAT),
                Some(enums::SPI_SHADER_32_R.value),
                "{f}"
            );
            // No colour targets at all: same.
            let s = state_with(*f, "sample-unordered", 1, |_, d, _| {
                d.color_targets = [None; MAX_COLOR_TARGETS]
            });
            assert_ne!(s.register(Reg::SPI_SHADER_COL_FORMAT).unwrap().value, 0);
            // Without POPS nothing needs to be allocated.
            let s = state_with(*f, "none", 1, |i, _, _| i.has_color_output = false);
            assert_eq!(s.register(Reg::SPI_SHADER_COL_FORMAT).unwrap().value, 0);
            // With colour, the real exports already satisfy it.
            let s = state(*f, "pixel-ordered", 1);
            assert_eq!(
                s.field(Reg::SPI_SHADER_COL_FORMAT, Field::COL0_EXPORT_FORMAT),
                Some(enums::SPI_SHADER_FP16_ABGR.value)
            );
        }
    }

    /// "On GFX10.3, enabling DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER forces the shading
    /// rate to be 1x1" — programmed as RADV does: the SAMPLE_ITER combiner overrides, and
    /// PS_ITER_SAMPLE keeps that combiner active.
    #[test]
    fn gfx10_3_forces_1x1_through_pa_cl_vrs_cntl() {
        for f in Family::ALL {
            let s = state_with(*f, "pixel-ordered", 1, |_, d, _| d.vrs_in_use = true);
            let comb = s.field(Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE);
            match f.gfx_level() {
                GfxLevel::Gfx9 | GfxLevel::Gfx10 => {
                    assert_eq!(comb, None);
                    assert!(s
                        .diagnostics
                        .iter()
                        .any(|d| d.code == StateCode::VrsUnavailable));
                }
                GfxLevel::Gfx10_3 => {
                    assert_eq!(comb, Some(enums::SC_VRS_COMB_MODE_OVERRIDE.value));
                    assert_eq!(
                        s.field(Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE),
                        Some(1)
                    );
                    assert!(s
                        .diagnostics
                        .iter()
                        .any(|d| d.code == StateCode::PopsForcesVrs1X1));
                    assert!(
                        !s.features
                            .fragment_shading_rate_with_fragment_shader_interlock
                    );
                    let off = state(*f, "none", 1);
                    assert_eq!(
                        off.field(Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE),
                        Some(enums::SC_VRS_COMB_MODE_PASSTHRU.value)
                    );
                }
                GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => {
                    assert_eq!(comb, Some(enums::SC_VRS_COMB_MODE_PASSTHRU.value));
                    assert!(
                        s.features
                            .fragment_shading_rate_with_fragment_shader_interlock
                    );
                }
                // GFX12: both AMD drivers keep POPS draws at 1x1 (PAL forces it, RADV 26
                // overrides the rate), pops by sample iteration as on GFX10.3.
                GfxLevel::Gfx12 => {
                    assert_eq!(comb, Some(enums::SC_VRS_COMB_MODE_OVERRIDE.value), "{f}");
                    assert_eq!(
                        s.field(Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE),
                        Some(1)
                    );
                    assert!(s.diagnostics.iter().any(
                        |d| d.code == StateCode::PopsForcesVrs1X1 && d.message.contains("PAL")
                    ));
                    let why = s
                        .reason(Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE)
                        .unwrap();
                    assert!(why.contains("PAL") && why.contains("RADV 26"), "{why}");
                }
            }
        }
    }

    /// GFX12 (the article stops at GFX11; each rule names its source): POPS and the intrinsic
    /// rate override as on GFX11 (the GFX12 register database keeps the fields; RADV 26 and
    /// AMD's PAL set them); sample interlock at the sample count as RADV 26 programs it, with a
    /// finding because PAL sets pixel rate only; no DB_DFSM_CONTROL and no collision wave IDs;
    /// DB_Z_INFO.NUM_SAMPLES as the article's GFX11 rule, which RADV 26 does not follow there.
    #[test]
    fn gfx12_rules_name_their_sources() {
        for f in [Family::Gfx1200, Family::Gfx1201] {
            for (m, samples) in [
                ("pixel-ordered", 4),
                ("sample-ordered", 4),
                ("sample-unordered", 8),
            ] {
                let s = state(f, m, samples);
                let dsc = s.register(Reg::DB_SHADER_CONTROL).unwrap();
                assert_eq!(dsc.get(Field::PRIMITIVE_ORDERED_PIXEL_SHADER), Ok(1));
                assert_eq!(dsc.get(Field::OVERRIDE_INTRINSIC_RATE_ENABLE), Ok(1));
                let sample = m.starts_with("sample");
                let log2 = samples.trailing_zeros();
                assert_eq!(
                    dsc.get(Field::OVERRIDE_INTRINSIC_RATE),
                    Ok(if sample { log2 } else { 0 })
                );
                let why = s
                    .reason(Reg::DB_SHADER_CONTROL, Field::OVERRIDE_INTRINSIC_RATE)
                    .unwrap();
                assert!(why.contains("GFX12") && why.contains("RADV 26"), "{why}");
                assert_eq!(
                    s.diagnostics
                        .iter()
                        .any(|d| d.code == StateCode::Gfx12SampleRateUnconfirmed),
                    sample,
                    "{f} {m}"
                );
                assert_eq!(s.register(Reg::DB_DFSM_CONTROL).map(|r| r.value), None);
                assert!(s.register(Reg::PA_SC_SHADER_CONTROL).is_none());
                assert_eq!(s.field(Reg::DB_Z_INFO, Field::NUM_SAMPLES), Some(log2));
                let z = s.reason(Reg::DB_Z_INFO, Field::NUM_SAMPLES).unwrap();
                assert!(
                    z.contains("carried over") && z.contains("unconfirmed"),
                    "{z}"
                );
                assert!(crate::pops::radv::find(&s, Reg::DB_Z_INFO, Field::NUM_SAMPLES).is_some());
                // RADV 26's GFX12 streams program no out-of-order water mark.
                assert_eq!(
                    s.field(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_WATER_MARK),
                    Some(0)
                );
                let why = s
                    .reason(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_WATER_MARK)
                    .unwrap();
                assert!(why.contains("RADV 26.2.6"), "{why}");
            }
        }
    }

    /// Not in the article, but what a driver must program around it: a shader that reads
    /// `gl_SampleMaskIn` keeps the shading rate at 1x1 from GFX10.3 on, with or without
    /// interlock (RADV's force_sample_iter_shading_rate; the coverage mask of a coarse 2x2
    /// invocation at 8 samples would need 32 bits). The GFX11 "interlock per fine pixel" note is
    /// then moot.
    #[test]
    fn reading_the_coverage_mask_keeps_the_rate_1x1() {
        for f in Family::ALL {
            for m in ["none", "pixel-ordered", "sample-unordered"] {
                let s = state_with(*f, m, 1, |i, d, _| {
                    i.reads_sample_mask = true;
                    d.vrs_in_use = true;
                });
                let comb = s.field(Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE);
                let iter = s.field(Reg::PA_SC_MODE_CNTL_1, Field::PS_ITER_SAMPLE);
                if f.gfx_level() < GfxLevel::Gfx10_3 {
                    assert_eq!(comb, None, "{f} {m}");
                    assert_eq!(iter, Some(0), "{f} {m}");
                    continue;
                }
                assert_eq!(
                    comb,
                    Some(enums::SC_VRS_COMB_MODE_OVERRIDE.value),
                    "{f} {m}"
                );
                assert_eq!(iter, Some(1), "{f} {m}");
                assert!(
                    !s.diagnostics
                        .iter()
                        .any(|d| d.code == StateCode::PopsInterlockPerFinePixel),
                    "{f} {m}"
                );
                // Without the read, GFX11 leaves the combiner in passthrough (GFX12 keeps a
                // POPS draw at 1x1 anyway).
                let plain = state(*f, m, 1);
                let gfx12_pops = f.gfx_level() == GfxLevel::Gfx12 && m != "none";
                if f.gfx_level().is_gfx11_plus() && !gfx12_pops {
                    assert_eq!(
                        plain.field(Reg::PA_CL_VRS_CNTL, Field::SAMPLE_ITER_COMBINER_MODE),
                        Some(enums::SC_VRS_COMB_MODE_PASSTHRU.value),
                        "{f} {m}"
                    );
                }
            }
        }
    }

    /// "On GFX11, by default, POPS itself can work with non-1x1 shading rates ... However, if
    /// PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS is set, enabling POPS will force 1x1
    /// shading rate." The kernel owns that register: the derivation assumes it, never writes it.
    #[test]
    fn gfx11_force_sc_vrs_rate_fine_pops_is_an_assumption_never_a_write() {
        let forced = KernelState {
            force_vrs_rate_fine_pops: true,
        };
        for f in levels() {
            let mut draw = DrawState {
                vrs_in_use: true,
                ..DrawState::default()
            };
            draw.rasterization_samples = 1;
            let desc = InterlockDesc::with_mode(Some("pixel-ordered".parse().unwrap()));
            let d = derive(f, &desc, &draw, &Experiments::default()).unwrap();
            let k = derive_assuming(f, &desc, &draw, &Experiments::default(), &forced).unwrap();
            // Exactly the same register writes either way.
            assert_eq!(d.registers, k.registers, "{f}");
            assert_eq!(k.kernel, forced);
            if f.gfx_level().is_gfx11_plus() {
                assert!(
                    d.features
                        .fragment_shading_rate_with_fragment_shader_interlock
                );
                assert!(
                    !k.features
                        .fragment_shading_rate_with_fragment_shader_interlock
                );
                assert!(k
                    .diagnostics
                    .iter()
                    .any(|x| x.code == StateCode::PopsForcesVrs1X1));
                // (GFX12's drivers keep POPS at 1x1 whatever the kernel sets.)
                assert_eq!(
                    d.diagnostics
                        .iter()
                        .any(|x| x.code == StateCode::PopsForcesVrs1X1),
                    f.gfx_level() == GfxLevel::Gfx12,
                    "{f}"
                );
            } else {
                assert!(k
                    .diagnostics
                    .iter()
                    .any(|x| x.code == StateCode::KernelStateUnavailable));
            }
        }
    }

    /// "DB_SHADER_CONTROL.EXEC_IF_OVERLAPPED on GFX9–10.3." /
    /// "PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE = BIN_MAP_MODE_POPS on GFX10+."
    #[test]
    fn experiment_switches() {
        for f in levels() {
            let s = state_with(f, "pixel-ordered", 1, |_, _, e| {
                e.exec_if_overlapped = true;
                e.bin_map_mode_pops = true;
            });
            let exec = s.field(Reg::DB_SHADER_CONTROL, Field::EXEC_IF_OVERLAPPED);
            let bin = s.field(Reg::PA_SC_BINNER_CNTL_0, Field::BIN_MAPPING_MODE);
            let l = f.gfx_level();
            assert_eq!(exec, (!l.is_gfx11_plus()).then_some(1), "{f}");
            assert_eq!(
                bin,
                (l != GfxLevel::Gfx9).then_some(enums::BIN_MAP_MODE_POPS.value),
                "{f}"
            );
            let unavailable = s
                .diagnostics
                .iter()
                .filter(|d| d.code == StateCode::ExperimentUnavailable)
                .count();
            assert_eq!(
                unavailable,
                (l == GfxLevel::Gfx9 || l.is_gfx11_plus()) as usize
            );
            // Off by default: no EXEC_IF_OVERLAPPED, no binner register.
            let s = state(f, "pixel-ordered", 1);
            assert_ne!(
                s.field(Reg::DB_SHADER_CONTROL, Field::EXEC_IF_OVERLAPPED),
                Some(1)
            );
            assert!(s.register(Reg::PA_SC_BINNER_CNTL_0).is_none());
        }
    }

    /// The out-of-order decision lands in PA_SC_MODE_CNTL_1 with its water mark.
    #[test]
    fn out_of_order_fields_follow_the_decision() {
        let relaxed = state_with(Family::Vega10, "pixel-ordered", 1, |_, d, _| {
            d.rasterization_order = RasterizationOrder::Relaxed
        });
        assert_eq!(
            relaxed.field(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_PRIMITIVE_ENABLE),
            Some(1)
        );
        assert_eq!(
            relaxed.field(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_WATER_MARK),
            Some(7)
        );
        let strict = state(Family::Vega10, "pixel-ordered", 1);
        assert_eq!(
            strict.field(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_PRIMITIVE_ENABLE),
            Some(0)
        );
        assert!(strict
            .reason(Reg::PA_SC_MODE_CNTL_1, Field::OUT_OF_ORDER_PRIMITIVE_ENABLE)
            .unwrap()
            .contains("ordered interlock"));
    }
}
