//! The draw's two programs, written with the project's own assembler (`shaders::isa`).
//!
//! - The vertex stage places one RECTLIST rectangle from four user SGPRs (x0, y0, x1, y1 as
//!   floats, the layout of libdrm's `vs_RectPosTexFast`): a legacy VS on GFX9/GFX10.x, an NGG
//!   primitive shader in passthrough mode on GFX11 (as the reference draws do) and on GFX12 (in
//!   the shape of RADV's own GFX12 NGG passthrough code).
//! - The pixel shader computes its pixel's (or sample's) slot in the storage buffer, enters the
//!   ordered section with the emitter's sequence for the level, appends the primitive index (a
//!   counter and a small array), leaves the ordered section as its generation requires, and
//!   exports for real (the article's export requirements).
//!
//! Storage layout: one slot of [`SLOT_DWORDS`] dwords per pixel (pixel interlock) or per sample
//! (sample interlock): `[count, entry 0 .. entry ENTRIES-1, overflow]`. The entry index is
//! `min(count, ENTRIES)`, so more than [`ENTRIES`] primitives overwrite only the overflow dword
//! and the count still tells the truth.

use pm4::GfxLevel;
use shaders::isa::export::{ExpTarget, ExportInst};
use shaders::isa::memory::{CachePolicy, GlobalInst};
use shaders::isa::program::{assemble_program, Asm};
use shaders::isa::vector::{InlineFloat, VInst, VOperand, Vop1, Vop2, Vop3, Vopc};
use shaders::isa::{
    ordered_section, Inst, IsaError, Label, Listing, Operand, SectionOptions, Sop1, Sop2, Sopp,
};

/// Render area in pixels (the reference draw's 32x32 target).
pub const WIDTH: u32 = 32;
pub const HEIGHT: u32 = 32;
/// Primitive indices recorded per slot.
pub const ENTRIES: u32 = 8;
/// Dwords per slot: the count, the entries, the overflow dword.
pub const SLOT_DWORDS: u32 = ENTRIES + 2;

/// Pixel-shader user SGPRs: `s[0:1]` the storage buffer address, s2 the primitive index.
pub const PS_USER_SGPRS: u32 = 4;
const PS_BUFFER_SGPR: u8 = 0;
const PS_PRIM_SGPR: u8 = 2;
/// PRIM_MASK follows the user SGPRs, then COLLISION_WAVEID when loaded (RADV's argument order).
const PS_COLLISION_SGPR: u8 = PS_USER_SGPRS as u8 + 1;
/// First scratch SGPR of the ordered-section sequences.
const PS_SCRATCH_SGPR: u8 = 8;

/// Vertex-stage user SGPRs: the reference's twelve (four used: the rectangle).
pub const VS_USER_SGPRS: u32 = 12;

/// What the pixel shader must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PsOptions {
    /// Enter and leave the ordered section (false: the POPS-disabled control run).
    pub pops: bool,
    /// One slot per sample, indexed by the ancillary sample ID (sample-rate shading).
    pub per_sample: bool,
    /// Rasterization samples (slot stride of per-sample shading).
    pub samples: u32,
    /// Export four channels to the 32x32 colour target; otherwise one channel to MRT0 with no
    /// target bound (the "null" export the article allows, with SPI_SHADER_32_R space).
    pub color_target: bool,
}

/// VGPRs of the pixel shader's inputs, as SPI_PS_INPUT_ENA loads them (PERSP_CENTER i/j,
/// POS_X_FLOAT, POS_Y_FLOAT, then ANCILLARY when enabled).
const V_POS_X: u8 = 2;
const V_POS_Y: u8 = 3;
const V_ANCILLARY: u8 = 4;

/// The pixel shader's instructions for `level`.
pub fn pixel_shader(level: GfxLevel, o: &PsOptions) -> Result<Vec<Asm>, IsaError> {
    let v = VOperand::Vgpr;
    let cache = CachePolicy::coherent(level);
    let mut p: Vec<Asm> = Vec::new();
    // Slot byte offset in v2: ((y * WIDTH + x) [* samples + sample]) * SLOT_DWORDS * 4.
    p.push(VInst::vop1(Vop1::CvtU32F32, V_POS_X, v(V_POS_X)).into());
    p.push(VInst::vop1(Vop1::CvtU32F32, V_POS_Y, v(V_POS_Y)).into());
    p.push(
        VInst::vop3(
            Vop3::MadU32U24,
            2,
            v(V_POS_Y),
            VOperand::Const(WIDTH as i8),
            v(V_POS_X),
        )
        .into(),
    );
    if o.per_sample {
        // Ancillary [11:8]: the sample ID of a sample-rate invocation.
        p.push(
            VInst::vop3(
                Vop3::BfeU32,
                V_ANCILLARY,
                v(V_ANCILLARY),
                VOperand::Const(8),
                VOperand::Const(4),
            )
            .into(),
        );
        p.push(
            VInst::vop3(
                Vop3::MadU32U24,
                2,
                v(2),
                VOperand::Const(o.samples as i8),
                v(V_ANCILLARY),
            )
            .into(),
        );
    }
    p.push(
        VInst::vop2(
            Vop2::MulU32U24,
            2,
            VOperand::Const((SLOT_DWORDS * 4) as i8),
            2,
        )
        .into(),
    );
    p.push(VInst::mov(7, VOperand::Sgpr(PS_PRIM_SGPR)).into());

    let section = if o.pops {
        Some(ordered_section(
            level,
            &SectionOptions {
                intrawave: false,
                wave64: true,
                collision_sgpr: PS_COLLISION_SGPR,
                intrawave_sgpr: PS_COLLISION_SGPR + 1,
                scratch_sgprs: PS_SCRATCH_SGPR,
            },
        )?)
    } else {
        None
    };
    if let Some(s) = &section {
        p.extend(s.enter.iter().copied().map(Asm::S));
    }
    // The ordered body: "just the first read and the last write" need GLC/DLC; all are here.
    p.push(GlobalInst::load(5, 2, PS_BUFFER_SGPR, 0, cache).into());
    p.push(Inst::wait_loads(level).into());
    p.push(VInst::vop2(Vop2::MinU32, 6, VOperand::Const(ENTRIES as i8), 5).into());
    p.push(VInst::vop2(Vop2::LshlrevB32, 6, VOperand::Const(2), 6).into());
    p.push(VInst::vop2(Vop2::AddU32, 6, v(2), 6).into());
    p.push(GlobalInst::store(6, 7, PS_BUFFER_SGPR, 4, cache).into());
    p.push(VInst::vop2(Vop2::AddU32, 5, VOperand::Const(1), 5).into());
    p.push(GlobalInst::store(2, 5, PS_BUFFER_SGPR, 0, cache).into());
    if let Some(s) = &section {
        // GFX9–10.3: the counters, then ORDERED_PS_DONE; GFX11: the counters, and the export
        // with `done` below resumes the overlapping waves.
        p.extend(s.exit.iter().copied().map(Asm::S));
    }
    let src = if o.color_target {
        [Some(7), Some(5), Some(2), Some(7)]
    } else {
        [Some(7), None, None, None]
    };
    p.push(ExportInst::ps_last(level, ExpTarget::Mrt(0), src).into());
    p.push(Inst::endpgm().into());
    Ok(p)
}

/// The vertex stage for `level`: a legacy VS before GFX11, an NGG passthrough primitive shader
/// on GFX11, GFX11.5 and GFX12.
pub fn vertex_shader(level: GfxLevel) -> Vec<Asm> {
    match level {
        GfxLevel::Gfx12 => ngg_shader_gfx12(),
        _ if level.is_gfx11_plus() => ngg_shader(),
        _ => legacy_vs(),
    }
}

/// RECTLIST corner from the vertex ID in `vid`: vertex 0 = (x0, y0), 1 = (x1, y0), 2 = (x0, y1);
/// the rectangle's user SGPRs start at `s`. Writes x, y, z, w to `out..out+3`, uses `out+4`.
/// `vcc_wait`, where the level needs one, goes before each `v_cndmask` that reads the VCC the
/// comparison before it wrote.
fn corner(p: &mut Vec<Asm>, vid: u8, s: u8, out: u8, vcc_wait: Option<Inst>) {
    let (x, y, z, w, t) = (out, out + 1, out + 2, out + 3, out + 4);
    for (vertex, coord, near, far) in [(1, x, s, s + 2), (2, y, s + 1, s + 3)] {
        p.push(VInst::vopc(Vopc::CmpEqU32, VOperand::Const(vertex), vid).into());
        p.push(VInst::mov(coord, VOperand::Sgpr(near)).into());
        p.push(VInst::mov(t, VOperand::Sgpr(far)).into());
        if let Some(wait) = vcc_wait {
            p.push(wait.into());
        }
        p.push(VInst::vop2(Vop2::CndmaskB32, coord, VOperand::Vgpr(coord), t).into());
    }
    p.push(VInst::mov(z, VOperand::Const(0)).into());
    p.push(VInst::mov(w, VOperand::Float(InlineFloat::One)).into());
}

/// Legacy VS: v0 = vertex ID, s0..s3 = rectangle. Exports the position and the two parameters
/// SPI_VS_OUT_CONFIG declares (zeros; the pixel shader interpolates nothing).
fn legacy_vs() -> Vec<Asm> {
    let mut p = Vec::new();
    corner(&mut p, 0, 0, 1, None);
    p.push(
        ExportInst {
            target: ExpTarget::Pos(0),
            src: [Some(1), Some(2), Some(3), Some(4)],
            done: true,
            vm: false,
        }
        .into(),
    );
    for n in 0..2 {
        p.push(
            ExportInst {
                target: ExpTarget::Param(n),
                src: [Some(3); 4],
                done: false,
                vm: false,
            }
            .into(),
        );
    }
    p.push(Inst::endpgm().into());
    p
}

const NGG_SKIP_PRIM: Label = Label("ngg_skip_prim");
/// The NGG shaders' last position export: the corner in v6–v9.
const NGG_POSITION: ExportInst = ExportInst {
    target: ExpTarget::Pos(0),
    src: [Some(6), Some(7), Some(8), Some(9)],
    done: true,
    vm: false,
};
/// The NGG shaders' primitive export: the passthrough primitive data in v0.
const NGG_PRIMITIVE: ExportInst = ExportInst {
    target: ExpTarget::Prim,
    src: [Some(0), None, None, None],
    done: true,
    vm: false,
};
const NGG_END: Label = Label("ngg_end");

/// NGG passthrough (VGT_SHADER_STAGES_EN.PRIMGEN_PASSTHRU_EN and _NO_MSG, as the GFX11
/// reference): s2 = GS_TG_INFO (vertices [20:12], primitives [30:22]), s3 = merged wave info
/// (wave index in the subgroup [27:24]), user SGPRs from s8, v0 = the primitive's export data,
/// v5 = vertex ID. Lanes below the primitive count export the primitive, lanes below the vertex
/// count the position; no parameters (SPI_VS_OUT_CONFIG.NO_PC_EXPORT).
#[allow(clippy::vec_init_then_push)]
fn ngg_shader() -> Vec<Asm> {
    let s = Operand::Sgpr;
    let mut p: Vec<Asm> = Vec::new();
    p.push(Inst::sop1(Sop1::MovB64, Operand::Exec, Operand::Const(-1)).into());
    p.push(
        VInst::vop3(
            Vop3::MbcntLoU32B32,
            1,
            VOperand::Const(-1),
            VOperand::Const(0),
            VOperand::Const(0),
        )
        .into(),
    );
    p.push(
        VInst::vop3(
            Vop3::MbcntHiU32B32,
            1,
            VOperand::Const(-1),
            VOperand::Vgpr(1),
            VOperand::Const(0),
        )
        .into(),
    );
    p.push(Inst::sop2(Sop2::BfeU32, s(0), s(3), Operand::Literal(0x4_0018)).into());
    p.push(
        VInst::vop3(
            Vop3::MadU32U24,
            1,
            VOperand::Sgpr(0),
            VOperand::Const(64),
            VOperand::Vgpr(1),
        )
        .into(),
    );
    // Primitives.
    p.push(Inst::sop2(Sop2::BfeU32, s(1), s(2), Operand::Literal(0x9_0016)).into());
    p.push(VInst::vopc(Vopc::CmpGtU32, VOperand::Sgpr(1), 1).into());
    p.push(Inst::sop2(Sop2::AndB64, Operand::Exec, Operand::Exec, Operand::Vcc).into());
    p.push(Inst::branch(Sopp::CbranchExecz, NGG_SKIP_PRIM).into());
    p.push(NGG_PRIMITIVE.into());
    p.push(Inst::Label(NGG_SKIP_PRIM).into());
    // Vertices.
    p.push(Inst::sop1(Sop1::MovB64, Operand::Exec, Operand::Const(-1)).into());
    p.push(Inst::sop2(Sop2::BfeU32, s(1), s(2), Operand::Literal(0x9_000c)).into());
    p.push(VInst::vopc(Vopc::CmpGtU32, VOperand::Sgpr(1), 1).into());
    p.push(Inst::sop2(Sop2::AndB64, Operand::Exec, Operand::Exec, Operand::Vcc).into());
    p.push(Inst::branch(Sopp::CbranchExecz, NGG_END).into());
    corner(&mut p, 5, 8, 6, None);
    p.push(NGG_POSITION.into());
    p.push(Inst::Label(NGG_END).into());
    p.push(Inst::endpgm().into());
    p
}

const NGG12_SKIP_VERTS: Label = Label("ngg_skip_verts");

/// `s_wait_alu` fields (GFX12's s_waitcnt_depctr): all ones but the counter waited for.
/// SA_SDST: an SALU's SGPR result; VA_VCC: a VALU's VCC result.
const WAIT_SA_SDST: u16 = 0xfffe;
const WAIT_VA_VCC: u16 = 0xfffd;

/// GFX12 NGG passthrough, in the shape of the NGG code RADV 26.2's compiler emits for gfx1201
/// (the draw's reference recording): s3 = merged wave info (this wave's vertices [7:0] and
/// primitives [15:8]), user SGPRs from s8, v0 = the primitive's export data, v3 = vertex ID. The
/// first vertices' lanes export the position, then, once the exports have left
/// (`s_wait_expcnt 0`), the first primitives' lanes export the primitive. The waits for ALU
/// results (`s_wait_alu`) before exec and VCC are read are where RADV's code has them or more.
fn ngg_shader_gfx12() -> Vec<Asm> {
    let s = Operand::Sgpr;
    // exec = the first `count` lanes, count = s3[bits]: s_bfe_u64 exec, -1, (count << 16).
    let lanes = |p: &mut Vec<Asm>, shift: Inst| {
        p.push(shift.into());
        p.push(Inst::sopp(Sopp::WaitAlu, WAIT_SA_SDST).into());
        p.push(Inst::sop2(Sop2::BfeU64, Operand::Exec, Operand::Const(-1), s(0)).into());
    };
    let mut p: Vec<Asm> = Vec::new();
    lanes(
        &mut p,
        Inst::sop2(Sop2::PackLlB32B16, s(0), Operand::Const(0), s(3)),
    );
    p.push(Inst::branch(Sopp::CbranchExecz, NGG12_SKIP_VERTS).into());
    corner(
        &mut p,
        3,
        8,
        6,
        Some(Inst::sopp(Sopp::WaitAlu, WAIT_VA_VCC)),
    );
    p.push(NGG_POSITION.into());
    p.push(Inst::Label(NGG12_SKIP_VERTS).into());
    p.push(Inst::sopp(Sopp::WaitExpcnt, 0).into());
    lanes(
        &mut p,
        Inst::sop2(Sop2::LshlB32, s(0), s(3), Operand::Const(8)),
    );
    p.push(Inst::branch(Sopp::CbranchExecz, NGG_END).into());
    p.push(NGG_PRIMITIVE.into());
    p.push(Inst::Label(NGG_END).into());
    p.push(Inst::endpgm().into());
    p
}

/// Both programs assembled for one level and variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Programs {
    pub vs: Listing,
    pub ps: Listing,
}

impl Programs {
    pub fn build(level: GfxLevel, ps: &PsOptions) -> Result<Programs, IsaError> {
        Ok(Programs {
            vs: assemble_program(level, &vertex_shader(level))?,
            ps: assemble_program(level, &pixel_shader(level, ps)?)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pops: bool, per_sample: bool) -> PsOptions {
        PsOptions {
            pops,
            per_sample,
            samples: if per_sample { 8 } else { 1 },
            color_target: !per_sample,
        }
    }

    #[test]
    fn every_level_assembles_every_pixel_shader_shape() {
        for level in GfxLevel::ALL {
            for pops in [false, true] {
                for per_sample in [false, true] {
                    Programs::build(level, &opts(pops, per_sample))
                        .unwrap_or_else(|e| panic!("{level}: {e}"));
                }
            }
        }
    }

    /// "If the wave has enabled POPS by setting the packer hardware register, it must not execute
    /// s_endpgm without having sent ORDERED_PS_DONE once" (GFX9–10.3), and on GFX11 "the
    /// overlapping waves are resumed when the wave performs the last export (with the done flag)".
    #[test]
    fn the_ordered_section_is_left_before_the_last_export() {
        for level in GfxLevel::ALL {
            let ps = Programs::build(level, &opts(true, false)).unwrap().ps;
            let texts = ps.instruction_texts();
            let exp = texts
                .iter()
                .position(|t| t.starts_with("exp ") || t.starts_with("export "))
                .unwrap();
            assert!(texts[exp].contains("done"), "{level}");
            assert_eq!(texts.last().map(String::as_str), Some("s_endpgm"));
            let msg = texts.iter().position(|t| t.contains("MSG_ORDERED_PS_DONE"));
            if level.is_gfx11_plus() {
                assert!(msg.is_none());
                assert!(texts.iter().any(|t| t.starts_with("s_wait_event")));
            } else {
                assert!(
                    msg.unwrap() < exp,
                    "{level}: ORDERED_PS_DONE before the export"
                );
            }
            // The last global store completes before the section is left.
            let last_store = texts
                .iter()
                .rposition(|t| t.starts_with("global_store"))
                .unwrap();
            // (GFX10+ count stores apart: vscnt; GFX12 calls it storecnt.)
            let store_wait = match level {
                GfxLevel::Gfx9 => "s_waitcnt vmcnt(0)",
                GfxLevel::Gfx12 => "s_wait_storecnt 0x0",
                _ => "s_waitcnt_vscnt null, 0x0",
            };
            let wait = texts
                .iter()
                .skip(last_store)
                .position(|t| t.starts_with(store_wait));
            assert!(wait.is_some(), "{level}: {texts:?}");
        }
    }

    /// "bypassing L0$ via the GLC flag and L1$ via DLC"; GFX12 has neither bit, its accesses
    /// are device-scope (`scope:SCOPE_DEV`, as ACO's ordered accesses on GFX12).
    #[test]
    fn primitive_ordered_accesses_are_glc_and_dlc() {
        for level in GfxLevel::ALL {
            let ps = Programs::build(level, &opts(true, true)).unwrap().ps;
            for t in ps
                .instruction_texts()
                .iter()
                .filter(|t| t.starts_with("global_"))
            {
                if level == GfxLevel::Gfx12 {
                    assert!(t.ends_with(" scope:SCOPE_DEV"), "{level}: {t}");
                    continue;
                }
                assert!(t.contains(" glc"), "{level}: {t}");
                assert_eq!(t.contains(" dlc"), level != GfxLevel::Gfx9, "{level}: {t}");
            }
        }
    }

    /// GFX12's NGG code in the shape RADV's compiler gives it on gfx1201: the position export
    /// first (vertex ID in v3), the exports waited for before exec changes, the primitive export
    /// last, each exec taken from merged wave info with an SALU wait before it is read.
    #[test]
    fn the_gfx12_primitive_shader_exports_as_radvs_does() {
        let vs = Programs::build(GfxLevel::Gfx12, &opts(true, false))
            .unwrap()
            .vs;
        let t = vs.instruction_texts();
        let at = |p: &str| t.iter().position(|x| x.starts_with(p)).unwrap();
        let pos = at("export pos0");
        let prim = at("export prim v0");
        let wait = at("s_wait_expcnt 0x0");
        assert!(pos < wait && wait < prim, "{t:?}");
        assert!(
            t[pos].ends_with(" done") && t[prim].contains(" done"),
            "{t:?}"
        );
        assert_eq!(
            t.first().map(String::as_str),
            Some("s_pack_ll_b32_b16 s0, 0, s3")
        );
        for (i, x) in t.iter().enumerate() {
            if x.starts_with("s_bfe_u64 exec") {
                assert_eq!(t[i - 1], "s_wait_alu 0xfffe", "{t:?}");
            }
            if x.starts_with("v_cndmask_b32") {
                assert_eq!(t[i - 1], "s_wait_alu 0xfffd", "{t:?}");
            }
        }
        assert!(
            t.iter()
                .any(|x| x.starts_with("v_cmp_eq_u32_e32 vcc, 1, v3")),
            "{t:?}"
        );
        assert_eq!(t.last().map(String::as_str), Some("s_endpgm"));
    }

    #[test]
    fn the_control_shader_has_no_ordered_section() {
        for level in GfxLevel::ALL {
            let ps = Programs::build(level, &opts(false, false)).unwrap().ps;
            for t in ps.instruction_texts() {
                assert!(
                    !t.contains("ORDERED_PS_DONE")
                        && !t.contains("pops")
                        && !t.contains("wait_event"),
                    "{level}: {t}"
                );
            }
        }
    }
}
