//! The draw stream of one variant, as pure data: the reference draw's state with the changes POPS
//! and the test need (each listed in [`crate::differences`]), the POPS state of `pm4::pops`,
//! N overlapping RECTLIST rectangles drawn one per DRAW_INDEX_AUTO in a known order, GPU
//! timestamps around the draws and a fence. No I/O: submission lives in [`crate::run`].

use crate::reference::{self, Step};
use crate::shader::{Programs, PsOptions};
use crate::variant::{OutOfOrder, Variant};
use pm4::cmdbuf::{ReleaseMem, ReleaseMemOp};
use pm4::fields::{ContextControlLoad, ContextControlShadow, ReleaseMemSel};
use pm4::pops::{self, enums, BlendTarget, DrawState, Experiments, InterlockDesc, PopsState};
use pm4::{CmdBuf, EventType, Family, Field, GfxLevel, Reg, RegSpace, RegValue};
use std::collections::BTreeMap;

/// Why a stream could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error("shader: {0}")]
    Isa(#[from] shaders::isa::IsaError),
    #[error("POPS state: {0}")]
    State(#[from] pops::StateError),
    #[error("register: {0}")]
    Reg(#[from] pm4::RegError),
    #[error("packet: {0}")]
    Encode(#[from] pm4::EncodeError),
    #[error("{variant}: {what}")]
    Unsupported { variant: String, what: String },
}

/// GPU addresses of the draw's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addresses {
    /// Vertex (GFX11: primitive) shader, 256-byte aligned.
    pub vs: u64,
    /// Pixel shader, 256-byte aligned.
    pub ps: u64,
    /// The per-pixel storage buffer.
    pub storage: u64,
    /// The 32x32 colour target, 256-byte aligned.
    pub color: u64,
    /// GFX11+ attribute ring, 64 KiB aligned.
    pub attr_ring: u64,
    /// GFX12 position and primitive rings (NGG exports go through memory there), 64 KiB
    /// aligned, in the same buffer as the attribute ring as [`ring_layout`] places them.
    pub pos_ring: u64,
    pub prim_ring: u64,
    /// Two 64-bit timestamps (before and after the draws), 8-byte aligned.
    pub timestamps: u64,
    /// The fence dword.
    pub fence: u64,
}

/// Where the rings of a level lie in the one ring buffer the draw allocates, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingLayout {
    /// Bytes to allocate (with 64 KiB to spare for aligning the start).
    pub bytes: u64,
    /// Offsets of the position and primitive rings from the attribute ring (GFX12; 0 before).
    pub pos_offset: u64,
    pub prim_offset: u64,
}

/// The ring buffer of `family`. Before GFX12: the attribute ring alone (GFX11; 2 MiB). GFX12:
/// the attribute, position and primitive rings one after the other, sized as RADV sizes them from
/// the per-shader-engine sizes it programs (the reference state's SPI_ATTRIBUTE_RING_SIZE,
/// GE_POS_RING_SIZE and GE_PRIM_RING_SIZE) and the chip's shader engines: the attribute ring
/// per engine, the position and primitive rings per engine squared, each rounded up to 64 KiB.
/// That is where RADV places them on gfx1201 and gfx1200 (its recordings on the shim).
pub fn ring_layout(family: Family) -> RingLayout {
    const KIB64: u64 = 64 << 10;
    let level = family.gfx_level();
    let gfx11 = RingLayout {
        bytes: (2 << 20) + KIB64,
        pos_offset: 0,
        prim_offset: 0,
    };
    if level != GfxLevel::Gfx12 {
        return gfx11;
    }
    let state = reference::state(level).unwrap_or_default();
    let field = |reg: Reg, field: Field| -> Option<u64> {
        let desc = level.register(reg)?;
        Some(desc.field(field)?.extract(*state.get(&desc.address)?) as u64)
    };
    let (Some(attr), Some(pos), Some(prim)) = (
        field(Reg::SPI_ATTRIBUTE_RING_SIZE, Field::MEM_SIZE),
        field(Reg::GE_POS_RING_SIZE, Field::MEM_SIZE),
        field(Reg::GE_PRIM_RING_SIZE, Field::MEM_SIZE),
    ) else {
        return gfx11;
    };
    let se = family.shader_engines() as u64;
    let attr_bytes = (attr + 1) * KIB64 * se;
    let pos_bytes = (pos * 32 * se * se).div_ceil(KIB64) * KIB64;
    let prim_bytes = (prim * 32 * se * se).div_ceil(KIB64) * KIB64;
    RingLayout {
        bytes: attr_bytes + pos_bytes + prim_bytes + KIB64,
        pos_offset: attr_bytes,
        prim_offset: attr_bytes + pos_bytes,
    }
}

/// The value the fence RELEASE_MEM writes once every draw has finished.
pub const FENCE_VALUE: u32 = 0x0d2a_f00d;

/// A rectangle in pixels: `[x0, x1) × [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Rect {
    /// Integer edges, so a pixel (and every sample of it) is covered exactly when
    /// `x0 <= x < x1 && y0 <= y < y1`.
    pub const fn covers(&self, x: u32, y: u32) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }
}

/// Default number of rectangles: as many as a slot records.
pub const DEFAULT_RECTS: u32 = crate::shader::ENTRIES;

/// `n` rectangles of 24x24 pixels, rectangle `i` at `(i, i)`: the centre of the target sees all
/// of them, the corners fewer, so the checker sees several overlap depths.
pub fn rectangles(n: u32) -> Vec<Rect> {
    (0..n)
        .map(|i| Rect {
            x0: i,
            y0: i,
            x1: (i + 24).min(crate::shader::WIDTH),
            y1: (i + 24).min(crate::shader::HEIGHT),
        })
        .collect()
}

/// A built stream and what it was built from.
#[derive(Clone, Debug)]
pub struct DrawStream {
    pub family: Family,
    pub variant: Variant,
    /// The IB (not yet padded to the device's alignment).
    pub dwords: Vec<u32>,
    pub pops: PopsState,
    pub programs: Programs,
    pub rects: Vec<Rect>,
}

/// The state registers of the draw: reference value, POPS fields, and the changes of the
/// differences table. Keyed by byte address; `None` for a register the level does not name.
struct State {
    level: GfxLevel,
    values: BTreeMap<u32, u32>,
}

impl State {
    fn get(&self, reg: Reg) -> Result<RegValue, pm4::RegError> {
        let desc = self.level.require(reg)?;
        let v = self.values.get(&desc.address).copied().unwrap_or(0);
        RegValue::with_value(self.level, reg, v)
    }

    fn put(&mut self, v: RegValue) {
        self.values.insert(v.desc.address, v.value);
    }

    fn set(&mut self, reg: Reg, value: u32) -> Result<(), pm4::RegError> {
        self.put(RegValue::with_value(self.level, reg, value)?);
        Ok(())
    }

    fn fields(&mut self, reg: Reg, fields: &[(Field, u32)]) -> Result<(), pm4::RegError> {
        let mut v = self.get(reg)?;
        for (f, x) in fields {
            v.set(*f, *x)?;
        }
        self.put(v);
        Ok(())
    }

    /// Sets the whole register: `fields`, every other field 0.
    fn replace(&mut self, reg: Reg, fields: &[(Field, u32)]) -> Result<(), pm4::RegError> {
        self.set(reg, 0)?;
        self.fields(reg, fields)
    }

    /// Sets `fields` where the level has them (a field missing on a level is left alone).
    fn fields_where_present(
        &mut self,
        reg: Reg,
        fields: &[(Field, u32)],
    ) -> Result<(), pm4::RegError> {
        let mut v = self.get(reg)?;
        for (f, x) in fields {
            if self.level.field(reg, *f).is_ok() {
                v.set(*f, *x)?;
            }
        }
        self.put(v);
        Ok(())
    }
}

/// The POPS inputs of a variant.
pub fn pops_inputs(v: &Variant) -> (InterlockDesc, DrawState, Experiments) {
    let desc = InterlockDesc {
        mode: v.interlock,
        resolves_intrawave: false,
        has_color_output: v.color_target(),
        writes_memory: true,
        // The hardware draw's pixel shader never reads the coverage mask.
        reads_sample_mask: false,
    };
    let mut draw = DrawState {
        rasterization_samples: v.samples,
        // The sample-interlock variants' pixel shader reads the sample ID: one invocation per
        // sample.
        sample_shading: v.per_sample(),
        ..DrawState::default()
    };
    if !v.color_target() {
        draw.color_targets = [None; pops::MAX_COLOR_TARGETS];
    } else {
        draw.color_targets[0] = Some(BlendTarget::OPAQUE);
    }
    let exp = Experiments {
        force_drain_ps_on_overlap: v.switches.force_drain,
        exec_if_overlapped: v.switches.exec_if_overlapped,
        bin_map_mode_pops: v.switches.bin_map_mode_pops,
    };
    (desc, draw, exp)
}

fn shader_lo_hi(level: GfxLevel) -> (Reg, Reg) {
    if level.is_gfx11_plus() {
        (Reg::SPI_SHADER_PGM_LO_ES, Reg::SPI_SHADER_PGM_HI_ES)
    } else {
        (Reg::SPI_SHADER_PGM_LO_VS, Reg::SPI_SHADER_PGM_HI_VS)
    }
}

/// The vertex stage's first four user-data registers (the rectangle).
fn vs_user_data(level: GfxLevel) -> [Reg; 4] {
    if level.is_gfx11_plus() {
        [
            Reg::SPI_SHADER_USER_DATA_GS_0,
            Reg::SPI_SHADER_USER_DATA_GS_1,
            Reg::SPI_SHADER_USER_DATA_GS_2,
            Reg::SPI_SHADER_USER_DATA_GS_3,
        ]
    } else {
        [
            Reg::SPI_SHADER_USER_DATA_VS_0,
            Reg::SPI_SHADER_USER_DATA_VS_1,
            Reg::SPI_SHADER_USER_DATA_VS_2,
            Reg::SPI_SHADER_USER_DATA_VS_3,
        ]
    }
}

/// Applies every change of the differences table for `v` to the reference state.
fn apply_changes(
    st: &mut State,
    v: &Variant,
    pops_state: &PopsState,
    programs: &Programs,
    a: &Addresses,
) -> Result<(), DrawError> {
    let level = st.level;
    // Addresses.
    let (lo, hi) = shader_lo_hi(level);
    st.set(lo, (a.vs >> 8) as u32)?;
    st.set(hi, (a.vs >> 40) as u32)?;
    st.set(Reg::SPI_SHADER_PGM_LO_PS, (a.ps >> 8) as u32)?;
    st.set(Reg::SPI_SHADER_PGM_HI_PS, (a.ps >> 40) as u32)?;
    st.set(Reg::CB_COLOR0_BASE, (a.color >> 8) as u32)?;
    st.set(Reg::CB_COLOR0_BASE_EXT, (a.color >> 40) as u32)?;
    if level.is_gfx11_plus() {
        st.set(Reg::SPI_ATTRIBUTE_RING_BASE, (a.attr_ring >> 16) as u32)?;
    }
    if level == GfxLevel::Gfx12 {
        gfx12_changes(st, v, a)?;
    } else if level.is_gfx11_plus() {
        st.fields(
            Reg::SPI_VS_OUT_CONFIG,
            &[(Field::VS_EXPORT_COUNT, 0), (Field::NO_PC_EXPORT, 1)],
        )?;
    }
    // Pixel-shader arguments.
    st.set(Reg::SPI_SHADER_USER_DATA_PS_0, a.storage as u32)?;
    st.set(Reg::SPI_SHADER_USER_DATA_PS_1, (a.storage >> 32) as u32)?;
    st.set(Reg::SPI_SHADER_USER_DATA_PS_2, 0)?;
    st.set(Reg::SPI_SHADER_USER_DATA_PS_3, 0)?;
    st.fields(
        Reg::SPI_SHADER_PGM_RSRC2_PS,
        &[(Field::USER_SGPR, crate::shader::PS_USER_SGPRS)],
    )?;
    // Pixel-shader resources: 8 VGPRs (granules of 4, minus one); GFX9 counts SGPRs too.
    let vgprs = programs_vgpr_granules(programs);
    st.fields(Reg::SPI_SHADER_PGM_RSRC1_PS, &[(Field::VGPRS, vgprs)])?;
    if level == GfxLevel::Gfx9 {
        st.fields(Reg::SPI_SHADER_PGM_RSRC1_PS, &[(Field::SGPRS, 2)])?;
    }
    let inputs = [
        (Field::PERSP_CENTER_ENA, 1),
        (Field::POS_X_FLOAT_ENA, 1),
        (Field::POS_Y_FLOAT_ENA, 1),
        (Field::ANCILLARY_ENA, v.per_sample() as u32),
    ];
    // Exactly these inputs: another enabled input would move the VGPRs the shader reads.
    for reg in [Reg::SPI_PS_INPUT_ENA, Reg::SPI_PS_INPUT_ADDR] {
        st.replace(reg, &inputs)?;
    }
    // The shader writes memory: run it even where the DB would consider it a no-op.
    st.fields(
        Reg::DB_SHADER_CONTROL,
        &[(Field::EXEC_ON_HIER_FAIL, 1), (Field::EXEC_ON_NOOP, 1)],
    )?;
    // Samples (DB_EQAA's sample counts are pm4::pops's, merged below).
    st.fields(
        Reg::PA_SC_MODE_CNTL_0,
        &[(Field::MSAA_ENABLE, (v.samples > 1) as u32)],
    )?;
    // The null export: with MSAA no colour target is bound, and pm4::pops's export requirement
    // exports MRT0 as SPI_SHADER_32_R into it.
    if !v.color_target() {
        st.fields(
            Reg::CB_COLOR0_INFO,
            &[(Field::FORMAT, pops::enums::COLOR_INVALID.value)],
        )?;
        st.set(Reg::CB_TARGET_MASK, 0)?;
        st.fields(Reg::CB_SHADER_MASK, &[(Field::OUTPUT0_ENABLE, 1)])?;
        st.set(Reg::CB_SHADER_MASK, 1)?;
        st.fields(
            Reg::CB_COLOR_CONTROL,
            &[(Field::MODE, pops::enums::CB_DISABLE.value)],
        )?;
    }
    // POPS: exactly the fields pm4::pops decided, merged into the register.
    for r in &pops_state.registers {
        let mask = pops_state.decided_mask(r.reg());
        let mut ours = st.get(r.reg())?;
        ours.value = (ours.value & !mask) | (r.value & mask);
        st.put(ours);
    }
    if pops_state.pops_enabled() {
        let col = st.get(Reg::SPI_SHADER_COL_FORMAT)?.value;
        if col == 0 {
            return Err(DrawError::Unsupported {
                variant: v.name(),
                what: "the export requirement: no export space allocated".into(),
            });
        }
    }
    // Out-of-order rasterization experiment.
    match v.switches.out_of_order {
        OutOfOrder::Auto => {}
        OutOfOrder::On => st.fields(
            Reg::PA_SC_MODE_CNTL_1,
            &[
                (Field::OUT_OF_ORDER_PRIMITIVE_ENABLE, 1),
                (
                    Field::OUT_OF_ORDER_WATER_MARK,
                    pops::ooo::OUT_OF_ORDER_WATER_MARK,
                ),
            ],
        )?,
        OutOfOrder::Off => st.fields_where_present(
            Reg::PA_SC_MODE_CNTL_1,
            &[
                (Field::OUT_OF_ORDER_PRIMITIVE_ENABLE, 0),
                (Field::OUT_OF_ORDER_WATER_MARK, 0),
            ],
        )?,
    }
    Ok(())
}

/// GFX12's changes to RADV's state (its reference): the rings of our buffer, the vertex stage's
/// outputs, and the draw's shape where RADV's pipeline differs from libdrm's rectangles.
fn gfx12_changes(st: &mut State, v: &Variant, a: &Addresses) -> Result<(), DrawError> {
    st.set(Reg::GE_POS_RING_BASE, (a.pos_ring >> 16) as u32)?;
    st.set(Reg::GE_PRIM_RING_BASE, (a.prim_ring >> 16) as u32)?;
    // No parameters, as RADV programs for its own vertex shader without outputs.
    st.replace(
        Reg::SPI_SHADER_GS_OUT_CONFIG_PS,
        &[(Field::NO_PC_EXPORT, 1)],
    )?;
    // RECTLIST in, RECT_2D out: what RADV programs for its own RECTLIST draw on gfx1201.
    st.replace(
        Reg::VGT_PRIMITIVE_TYPE,
        &[(Field::PRIM_TYPE, enums::DI_PT_RECTLIST.value)],
    )?;
    st.replace(
        Reg::VGT_GS_OUT_PRIM_TYPE,
        &[(Field::OUTPRIM_TYPE, enums::RECT_2D.value)],
    )?;
    // Corners in screen space, unclipped: libdrm's hardware-tested GFX11 values.
    st.replace(
        Reg::PA_CL_VTE_CNTL,
        &[(Field::VTX_XY_FMT, 1), (Field::VTX_Z_FMT, 1)],
    )?;
    st.replace(
        Reg::PA_CL_CLIP_CNTL,
        &[
            (Field::CLIP_DISABLE, 1),
            (Field::DX_LINEAR_ATTR_CLIP_ENA, 1),
        ],
    )?;
    // No blending (libdrm's draw); RADV's value for a target that does not blend (its MRT1-7).
    st.set(Reg::CB_BLEND0_CONTROL, 0)?;
    let mrt0 = st.level.require(Reg::SX_MRT0_BLEND_OPT)?.address;
    let unblended = st.values.get(&(mrt0 + 4)).copied().unwrap_or(0);
    st.set(Reg::SX_MRT0_BLEND_OPT, unblended)?;
    // Four 32-bit channels, as libdrm's export of the same instruction.
    if v.color_target() {
        st.fields(
            Reg::SPI_SHADER_COL_FORMAT,
            &[(Field::COL0_EXPORT_FORMAT, enums::SPI_SHADER_32_ABGR.value)],
        )?;
    }
    Ok(())
}

/// SPI_SHADER_PGM_RSRC1_PS.VGPRS for the pixel shader: v0–v7 in granules of 4.
fn programs_vgpr_granules(_p: &Programs) -> u32 {
    1
}

/// Builds the stream of `variant` for `family`.
pub fn build(
    family: Family,
    variant: &Variant,
    addrs: &Addresses,
    rects: &[Rect],
) -> Result<DrawStream, DrawError> {
    let level = family.gfx_level();
    let steps = reference::steps(level);
    let (desc, draw, exp) = pops_inputs(variant);
    let pops_state = pops::derive(family, &desc, &draw, &exp)?;
    let programs = Programs::build(
        level,
        &PsOptions {
            pops: variant.interlock.is_some(),
            per_sample: variant.per_sample(),
            samples: variant.samples,
            color_target: variant.color_target(),
        },
    )?;

    // Reference state, by packet, then the changes.
    let mut st = State {
        level,
        values: BTreeMap::new(),
    };
    let mut packets: Vec<Vec<u32>> = Vec::new(); // addresses of each SET packet
    for s in steps {
        let writes = s.writes(level)?;
        packets.push(writes.iter().map(|(a, _)| *a).collect());
        st.values.extend(writes);
    }
    let base: Vec<u32> = st.values.keys().copied().collect();
    apply_changes(&mut st, variant, &pops_state, &programs, addrs)?;
    let extra: Vec<u32> = st
        .values
        .keys()
        .copied()
        .filter(|a| !base.contains(a))
        .collect();

    let mut cb = CmdBuf::new(level);
    cb.context_control(
        ContextControlLoad::update_only(),
        ContextControlShadow::update_only(),
    )?;
    for (s, addrs_of) in steps.iter().zip(&packets) {
        match s {
            Step::NumInstances(n) => {
                cb.num_instances(*n);
            }
            _ => emit_packet(&mut cb, level, &st, addrs_of)?,
        }
    }
    // POPS registers the reference does not program, one packet per register.
    for a in &extra {
        emit_packet(&mut cb, level, &st, &[*a])?;
    }

    // Timestamp, the draws in order, timestamp, fence.
    cb.release_mem(&timestamp(level, addrs.timestamps))?;
    let ud = vs_user_data(level);
    for (i, r) in rects.iter().enumerate() {
        let coords = [r.x0, r.y0, r.x1, r.y1].map(|c| (c as f32).to_bits());
        let writes = ud
            .iter()
            .zip(coords)
            .map(|(reg, v)| RegValue::with_value(level, *reg, v))
            .collect::<Result<Vec<_>, _>>()?;
        cb.set_regs(&writes)?;
        cb.set_reg_value(Reg::SPI_SHADER_USER_DATA_PS_2, i as u32)?;
        cb.draw_index_auto(3)?;
    }
    cb.release_mem(&timestamp(level, addrs.timestamps + 8))?;
    cb.release_mem(&fence(level, addrs.fence))?;
    Ok(DrawStream {
        family,
        variant: *variant,
        dwords: cb.into_dwords(),
        pops: pops_state,
        programs,
        rects: rects.to_vec(),
    })
}

/// A bottom-of-pipe RELEASE_MEM writing the 64-bit GPU clock: the CP writes it once all prior
/// work has finished.
fn timestamp(level: GfxLevel, address: u64) -> ReleaseMem {
    ReleaseMem {
        op: ReleaseMemOp::event(level, EventType::BOTTOM_OF_PIPE_TS),
        sel: ReleaseMemSel {
            dst_sel: 0,
            int_sel: ReleaseMemSel::INT_SEL_NONE,
            data_sel: ReleaseMemSel::DATA_SEL_TIMESTAMP,
        },
        address,
        data: 0,
    }
}

/// The fence: at the end of pipe, write back and invalidate the L2 (so the CPU reads the
/// storage buffer as the shaders left it and the next run's loads miss), then write
/// [`FENCE_VALUE`].
fn fence(level: GfxLevel, address: u64) -> ReleaseMem {
    let mut rm = ReleaseMem::eop_fence(level, address, FENCE_VALUE);
    match &mut rm.op {
        ReleaseMemOp::Gfx9(o) => {
            o.tc_action_en = 1;
            o.tc_wb_action_en = 1;
        }
        ReleaseMemOp::Gfx10(o) => {
            o.gl2_wb = 1;
            o.gl2_inv = 1;
            o.glm_wb = 1;
            o.glm_inv = 1;
        }
        ReleaseMemOp::Gfx11(o) => {
            o.gl2_wb = 1;
            o.gl2_inv = 1;
            // GFX12: the L2 alone, as RADV's GFX12 end-of-pipe flush (no GLM bits).
            if level != GfxLevel::Gfx12 {
                o.glm_wb = 1;
                o.glm_inv = 1;
            }
        }
    }
    rm
}

/// One SET_*_REG packet for the registers at `addrs` (consecutive, one space), with their
/// current values; raw SET_CONTEXT_REG where the level does not name a register.
fn emit_packet(
    cb: &mut CmdBuf,
    level: GfxLevel,
    st: &State,
    addrs: &[u32],
) -> Result<(), DrawError> {
    let Some(first) = addrs.first() else {
        return Ok(());
    };
    let known: Option<Vec<RegValue>> = addrs
        .iter()
        .map(|a| {
            let d = level.register_at(*a)?;
            RegValue::with_value(level, d.reg, st.values.get(a).copied().unwrap_or(0)).ok()
        })
        .collect();
    match known {
        Some(w) => {
            cb.set_regs(&w)?;
        }
        None => {
            let space = RegSpace::of(*first).unwrap_or(RegSpace::Context);
            let mut body = vec![(first - space.start()) / 4];
            body.extend(addrs.iter().map(|a| st.values.get(a).copied().unwrap_or(0)));
            cb.packet(space.set_opcode(), &body)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::standard;
    use pm4::Opcode;

    const A: Addresses = Addresses {
        vs: 0x1_0000_0000,
        ps: 0x1_0000_2000,
        storage: 0x1_0010_0000,
        color: 0x1_0020_0000,
        attr_ring: 0x1_0030_0000,
        pos_ring: 0x1_0088_0000,
        prim_ring: 0x1_00c8_0000,
        timestamps: 0x1_0040_0000,
        fence: 0x1_0040_0040,
    };

    /// GFX12's rings lie as RADV laid out its own on gfx1201 (bases in 64 KiB units: attribute
    /// 0x80000020, position 0x80000078, primitive 0x800000b8) and gfx1200, and the stream points
    /// the three ring registers into the draw's one ring buffer.
    #[test]
    fn gfx12_rings_as_radv_places_them() {
        let l = ring_layout(Family::Gfx1201);
        assert_eq!((l.pos_offset, l.prim_offset), (0x58 << 16, 0x98 << 16));
        // The primitive ring: 0x7fe 32-byte units per shader engine, times 4 x 4, in 64 KiB.
        assert_eq!(l.bytes, (0x98 << 16) + (16 << 16) + (64 << 10));
        // gfx1200's two engines: RADV's bases there are 0x80000020, 0x8000004c, 0x8000005c.
        let l = ring_layout(Family::Gfx1200);
        assert_eq!((l.pos_offset, l.prim_offset), (0x2c << 16, 0x3c << 16));
        assert_eq!(ring_layout(Family::Navi31).pos_offset, 0);
        let s = build(Family::Gfx1201, &standard()[0], &A, &rectangles(2)).unwrap();
        let level = GfxLevel::Gfx12;
        for (reg, at) in [
            (Reg::SPI_ATTRIBUTE_RING_BASE, A.attr_ring),
            (Reg::GE_POS_RING_BASE, A.pos_ring),
            (Reg::GE_PRIM_RING_BASE, A.prim_ring),
        ] {
            assert_eq!(
                last(level, &s.dwords, reg).unwrap().value,
                (at >> 16) as u32
            );
        }
    }

    fn last(level: GfxLevel, dw: &[u32], reg: Reg) -> Option<pm4::RegWrite> {
        let addr = level.register(reg)?.address;
        pm4::decode(level, dw)
            .writes()
            .filter(|w| w.address == addr)
            .last()
            .cloned()
    }

    /// The rectangles are drawn one DRAW_INDEX_AUTO each, in order, each with its primitive
    /// index and corners, between two timestamps and before the fence.
    #[test]
    fn draws_in_order_between_timestamps_then_the_fence() {
        for fam in [
            Family::Raven,
            Family::Navi14,
            Family::Navi23,
            Family::Phoenix,
            Family::Gfx1151,
        ] {
            let level = fam.gfx_level();
            let rects = rectangles(5);
            let s = build(fam, &standard()[0], &A, &rects).unwrap();
            let packets = pm4::decode(level, &s.dwords).into_result().unwrap();
            let ops: Vec<Opcode> = packets.iter().map(|p| p.opcode).collect();
            let draws: Vec<usize> = ops
                .iter()
                .enumerate()
                .filter(|(_, o)| **o == Opcode::DRAW_INDEX_AUTO)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(draws.len(), 5, "{fam}");
            let rm: Vec<usize> = ops
                .iter()
                .enumerate()
                .filter(|(_, o)| **o == Opcode::RELEASE_MEM)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(rm.len(), 3, "{fam}: two timestamps and the fence");
            assert!(rm[0] < draws[0] && rm[1] > draws[4] && rm[2] > rm[1]);
            // Each draw is preceded by its primitive index.
            let ps2 = level
                .register(Reg::SPI_SHADER_USER_DATA_PS_2)
                .unwrap()
                .address;
            let mut seen = Vec::new();
            for p in &packets[draws[0] - 2..] {
                for w in p.writes.iter().filter(|w| w.address == ps2) {
                    seen.push(w.value);
                }
            }
            assert_eq!(seen, [0, 1, 2, 3, 4], "{fam}");
            assert_eq!(
                s.dwords.last(),
                Some(&0),
                "RELEASE_MEM ends with its reserved dword"
            );
        }
    }

    /// "If the shader specifies an ordered interlock execution mode, out-of-order rasterization
    /// likely must not be enabled implicitly" — only the experiment switch turns it on.
    #[test]
    fn out_of_order_only_by_the_experiment() {
        for fam in crate::reference::families() {
            let level = fam.gfx_level();
            for v in standard() {
                let s = build(fam, &v, &A, &rectangles(2)).unwrap();
                let w = last(level, &s.dwords, Reg::PA_SC_MODE_CNTL_1).unwrap();
                let on = w.field(Field::OUT_OF_ORDER_PRIMITIVE_ENABLE).unwrap_or(0);
                let want = match v.switches.out_of_order {
                    OutOfOrder::On => 1,
                    OutOfOrder::Off => 0,
                    OutOfOrder::Auto if v.expects_order() => 0,
                    OutOfOrder::Auto => on,
                };
                assert_eq!(on, want, "{fam} {v}");
            }
        }
    }

    /// Collision arguments only where the level has them, and only with POPS; "the export
    /// requirement": export space is always allocated.
    #[test]
    fn collision_argument_and_export_space() {
        for fam in crate::reference::families() {
            let level = fam.gfx_level();
            for v in standard() {
                let s = build(fam, &v, &A, &rectangles(2)).unwrap();
                let rsrc2 = last(level, &s.dwords, Reg::SPI_SHADER_PGM_RSRC2_PS).unwrap();
                let load = rsrc2.field(Field::LOAD_COLLISION_WAVEID);
                if level.is_gfx11_plus() {
                    assert!(load.is_none() || load == Some(0), "{fam} {v}");
                } else {
                    assert_eq!(load, Some(v.interlock.is_some() as u32), "{fam} {v}");
                }
                let col = last(level, &s.dwords, Reg::SPI_SHADER_COL_FORMAT).unwrap();
                assert_ne!(col.value, 0, "{fam} {v}");
                let dsc = last(level, &s.dwords, Reg::DB_SHADER_CONTROL).unwrap();
                assert_eq!(
                    dsc.field(Field::PRIMITIVE_ORDERED_PIXEL_SHADER),
                    Some(v.interlock.is_some() as u32)
                );
                assert_eq!(dsc.field(Field::EXEC_ON_NOOP), Some(1));
            }
        }
    }

    /// Highest VGPR and SGPR a listing names (`v7`, `s[0:1]` → 1, …).
    fn max_regs(l: &shaders::isa::Listing) -> (u32, u32) {
        let (mut v, mut s) = (0, 0);
        for t in l.instruction_texts() {
            let mut rest = t.as_str();
            while let Some(i) = rest.find(['v', 's']) {
                let kind = rest.as_bytes()[i];
                let tail = &rest[i + 1..];
                let digits: String = tail
                    .trim_start_matches('[')
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let boundary = i == 0
                    || !rest.as_bytes()[i - 1].is_ascii_alphanumeric()
                        && rest.as_bytes()[i - 1] != b'_';
                if boundary && !digits.is_empty() {
                    let mut n: u32 = digits.parse().unwrap();
                    if tail.starts_with('[') {
                        if let Some(hi) = tail.split(':').nth(1) {
                            n = hi
                                .trim_end_matches(|c: char| !c.is_ascii_digit())
                                .split(']')
                                .next()
                                .unwrap()
                                .parse()
                                .unwrap_or(n);
                        }
                    }
                    if kind == b'v' {
                        v = v.max(n);
                    } else {
                        s = s.max(n);
                    }
                }
                rest = &rest[i + 1..];
            }
        }
        (v, s)
    }

    /// The shader registers match the programs: the VGPR (and on GFX9 SGPR) allocation covers
    /// every register the code names, the pixel shader's inputs are the ones it reads, and the
    /// user-SGPR counts are the ones the programs expect.
    #[test]
    fn shader_registers_cover_the_programs() {
        for fam in crate::reference::families() {
            let level = fam.gfx_level();
            for v in standard() {
                let s = build(fam, &v, &A, &rectangles(2)).unwrap();
                let (ps_v, ps_s) = max_regs(&s.programs.ps);
                let (vs_v, _) = max_regs(&s.programs.vs);
                if level == GfxLevel::Gfx9 && v == standard()[0] {
                    assert_eq!(
                        (ps_v, ps_s, vs_v),
                        (7, 10, 5),
                        "the parser reads the listing"
                    );
                }
                let rsrc1 = last(level, &s.dwords, Reg::SPI_SHADER_PGM_RSRC1_PS).unwrap();
                let vgprs = (rsrc1.field(Field::VGPRS).unwrap() + 1) * 4;
                assert!(ps_v < vgprs, "{fam} {v}: v{ps_v} with {vgprs} VGPRs");
                if level == GfxLevel::Gfx9 {
                    // VCC is allocated on top of the named SGPRs.
                    let sgprs = (rsrc1.field(Field::SGPRS).unwrap() + 1) * 8;
                    assert!(
                        ps_s + 1 + 2 <= sgprs,
                        "{fam} {v}: s{ps_s} with {sgprs} SGPRs"
                    );
                }
                let vs_rsrc1 = if level.is_gfx11_plus() {
                    Reg::SPI_SHADER_PGM_RSRC1_GS
                } else {
                    Reg::SPI_SHADER_PGM_RSRC1_VS
                };
                let r = last(level, &s.dwords, vs_rsrc1).unwrap();
                let vs_vgprs = (r.field(Field::VGPRS).unwrap() + 1) * 4;
                assert!(
                    vs_v < vs_vgprs,
                    "{fam} {v}: vertex stage v{vs_v} with {vs_vgprs} VGPRs"
                );
                let ena = last(level, &s.dwords, Reg::SPI_PS_INPUT_ENA).unwrap();
                assert_eq!(ena.field(Field::ANCILLARY_ENA), Some(v.per_sample() as u32));
                assert_eq!(ena.field(Field::POS_X_FLOAT_ENA), Some(1));
                assert_eq!(ena.field(Field::POS_Y_FLOAT_ENA), Some(1));
                let rsrc2 = last(level, &s.dwords, Reg::SPI_SHADER_PGM_RSRC2_PS).unwrap();
                assert_eq!(
                    rsrc2.field(Field::USER_SGPR),
                    Some(crate::shader::PS_USER_SGPRS)
                );
            }
        }
    }
}
