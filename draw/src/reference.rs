//! The reference draw: which state libdrm's hardware-tested draw programs on each generation
//! (`reference_state`, generated from `shared/reference/libdrm-draw`), and the
//! register-by-register comparison of a decoded stream with a decoded reference stream.

use crate::differences::{self, ReferenceDifference};
pub use crate::step::{source_level, Step};
use pm4::{GfxLevel, Opcode};
use std::collections::BTreeMap;

/// The reference state of `level` (GFX10.3 uses the GFX10 stream, GFX11.5 the GFX11 one;
/// GFX12, which libdrm has no draw test of, the state RADV programmed at its POPS draw on
/// gfx1201, `draw/reference/radv-gfx1201`).
pub fn steps(level: GfxLevel) -> &'static [Step] {
    match level {
        GfxLevel::Gfx9 => crate::reference_state::GFX9,
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => crate::reference_state::GFX10,
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => crate::reference_state::GFX11,
        GfxLevel::Gfx12 => crate::reference_state::GFX12,
    }
}

/// The reference state of `level`, register by register (byte address → value in force at the
/// reference's draw).
pub fn state(level: GfxLevel) -> Result<BTreeMap<u32, u32>, pm4::RegError> {
    let mut state = BTreeMap::new();
    for s in steps(level) {
        state.extend(s.writes(level)?);
    }
    Ok(state)
}

/// The IBs stock RADV submitted for its first POPS draw on gfx1201 (preamble, command buffer),
/// recorded on the amdgpu shim by `scripts/record-gfx12-draw-reference.sh`.
const RADV_GFX1201_IBS: [&[u8]; 2] = [
    include_bytes!("../reference/radv-gfx1201/ib-0.bin"),
    include_bytes!("../reference/radv-gfx1201/ib-1.bin"),
];

/// The reference stream of a level whose reference is RADV's (GFX12): its IBs up to and with
/// the first draw packet that has DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER set, so the
/// comparison sees the state in force at that draw. `None` for the levels libdrm's draws serve.
pub fn radv_stream(level: GfxLevel) -> Option<Result<Vec<u32>, pm4::DecodeError>> {
    if level != GfxLevel::Gfx12 {
        return None;
    }
    let dwords: Vec<u32> = RADV_GFX1201_IBS
        .iter()
        .flat_map(|ib| ib.chunks_exact(4))
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Some(cut_at_pops_draw(level, dwords))
}

/// The register state in force at the first POPS draw of a driver's IBs (`dwords`, the IBs of
/// one submission in order), less compute registers and the draw packets' implied writes; the
/// whole stream's state where no draw has POPS on.
pub fn state_at_pops_draw(
    level: GfxLevel,
    dwords: Vec<u32>,
) -> Result<BTreeMap<u32, u32>, pm4::DecodeError> {
    let cut = cut_at_pops_draw(level, dwords)?;
    let implied = [
        pm4::Reg::VGT_NUM_INDICES,
        pm4::Reg::VGT_DRAW_INITIATOR,
        pm4::Reg::VGT_NUM_INSTANCES,
    ]
    .map(|r| level.register(r).map(|d| d.address));
    Ok(writes_by_address(level, &cut)?
        .into_iter()
        .filter(|(a, _)| !implied.contains(&Some(*a)))
        .filter_map(|(a, v)| Some((a, *v.last()?)))
        .collect())
}

fn cut_at_pops_draw(level: GfxLevel, dwords: Vec<u32>) -> Result<Vec<u32>, pm4::DecodeError> {
    let packets = pm4::decode(level, &dwords).into_result()?;
    let pops = level.field(
        pm4::Reg::DB_SHADER_CONTROL,
        pm4::Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
    );
    let dsc = level
        .register(pm4::Reg::DB_SHADER_CONTROL)
        .map(|d| d.address);
    let mut on = false;
    for p in &packets {
        for w in &p.writes {
            if Some(w.address) == dsc {
                on = pops.as_ref().is_ok_and(|f| f.extract(w.value) == 1);
            }
        }
        if on && p.opcode.name().starts_with("DRAW_") {
            return Ok(dwords[..p.index + p.dwords].to_vec());
        }
    }
    Ok(dwords)
}

/// The families the POPS draw is built for: every family of the chip database (each level has a
/// reference draw).
pub fn families() -> impl Iterator<Item = pm4::Family> {
    pm4::Family::ALL.iter().copied()
}

/// The reference IB file in `shared/reference/libdrm-draw/` for `level`, where there is one
/// (GFX12's reference is RADV's, [`radv_stream`]).
pub const fn reference_file(level: GfxLevel) -> Option<&'static str> {
    match level {
        GfxLevel::Gfx9 => Some("gfx9_draw_ib.bin"),
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => Some("gfx10_draw_ib.bin"),
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => Some("gfx11_draw_ib.bin"),
        GfxLevel::Gfx12 => None,
    }
}

/// A register the reference programs that our stream does not program as the reference does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub address: u32,
    pub name: String,
    pub reference: u32,
    /// Every value our stream writes there (empty: not programmed at all).
    pub ours: Vec<u32>,
    /// The listed reason, when the difference is allowed.
    pub allowed: Option<&'static ReferenceDifference>,
}

/// The comparison of one stream with the reference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Reference registers programmed with the reference's value.
    pub same: usize,
    /// Differences, listed or not.
    pub differences: Vec<Mismatch>,
    /// Registers we program that the reference does not (POPS state, …), each with the entry of
    /// the differences table that allows it, if any.
    pub additional: Vec<Additional>,
}

/// A register the draw writes that the reference draw does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Additional {
    pub address: u32,
    pub name: String,
    pub allowed: Option<&'static ReferenceDifference>,
}

impl Comparison {
    /// The differences no entry of the table allows.
    pub fn unlisted(&self) -> impl Iterator<Item = &Mismatch> {
        self.differences.iter().filter(|m| m.allowed.is_none())
    }

    /// The additional registers no entry of the table allows.
    pub fn unlisted_additional(&self) -> impl Iterator<Item = &Additional> {
        self.additional.iter().filter(|a| a.allowed.is_none())
    }

    pub fn is_ok(&self) -> bool {
        self.unlisted().next().is_none() && self.unlisted_additional().next().is_none()
    }
}

/// Compute shader registers (COMPUTE_*): a dispatch's state, not a draw's. RADV's recording
/// holds its clears' dispatches; the draw programs none of them.
const COMPUTE_SH: std::ops::Range<u32> = 0xb800..0xc000;

/// Every value written to each graphics register, in order (a reference's last value is the one
/// in force at its draw).
fn writes_by_address(
    level: GfxLevel,
    dwords: &[u32],
) -> Result<BTreeMap<u32, Vec<u32>>, pm4::DecodeError> {
    let packets = pm4::decode(level, dwords).into_result()?;
    let mut map: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in &packets {
        // The draw packets' implied writes (VGT_NUM_INDICES, VGT_DRAW_INITIATOR) are compared
        // like registers; NOP bodies carry none.
        if p.opcode == Opcode::NOP {
            continue;
        }
        for w in p.writes.iter().filter(|w| !COMPUTE_SH.contains(&w.address)) {
            map.entry(w.address).or_default().push(w.value);
        }
    }
    Ok(map)
}

fn name_at(level: GfxLevel, address: u32) -> String {
    level
        .register_at(address)
        .map_or_else(|| format!("{address:#x}"), |d| d.name().to_string())
}

/// Compares our stream with the reference stream of the same level, register by register: every
/// register the reference programs must be programmed, with the value in force at the
/// reference's draw (the last it writes) unless [`differences::TABLE`] lists the register for
/// this level with its reason.
pub fn compare(
    level: GfxLevel,
    ours: &[u32],
    reference: &[u32],
) -> Result<Comparison, pm4::DecodeError> {
    let ours = writes_by_address(level, ours)?;
    let theirs = writes_by_address(level, reference)?;
    let mut c = Comparison::default();
    for (addr, values) in &theirs {
        let name = name_at(level, *addr);
        let got = ours.get(addr).cloned().unwrap_or_default();
        if let Some(v) = values.last() {
            if got.contains(v) {
                c.same += 1;
                continue;
            }
            let allowed = differences::find(level, &name);
            c.differences.push(Mismatch {
                address: *addr,
                name: name.clone(),
                reference: *v,
                ours: got.clone(),
                allowed,
            });
        }
    }
    for addr in ours.keys() {
        if !theirs.contains_key(addr) {
            let name = name_at(level, *addr);
            c.additional.push(Additional {
                address: *addr,
                allowed: differences::find(level, &name),
                name,
            });
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two readings of RADV's IBs agree: the generated GFX12 state (the generator reads the
    /// dwords with the PM4 facts and the register database) is, register for register, the state
    /// `pm4::decode` finds in force at RADV's POPS draw, less its compute registers.
    #[test]
    fn the_generated_gfx12_state_is_the_state_at_radvs_pops_draw() {
        let level = GfxLevel::Gfx12;
        let stream = radv_stream(level).unwrap().unwrap();
        let instances = writes_by_address(level, &stream).unwrap()
            [&level.register(pm4::Reg::VGT_NUM_INSTANCES).unwrap().address]
            .last()
            .copied();
        let decoded = state_at_pops_draw(level, stream).unwrap();
        for s in steps(level) {
            if let Step::NumInstances(n) = s {
                assert_eq!(Some(*n), instances);
            }
        }
        let generated = state(level).unwrap();
        assert_eq!(generated, decoded);
        assert!(generated.len() > 250, "{}", generated.len());
    }
}
