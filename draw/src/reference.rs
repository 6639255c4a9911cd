//! The reference draw: which state libdrm's hardware-tested draw programs on each generation
//! (`reference_state`, generated from `shared/reference/libdrm-draw`), and the
//! register-by-register comparison of a decoded stream with a decoded reference stream.

use crate::differences::{self, Difference};
pub use crate::step::Step;
use pm4::{GfxLevel, Opcode};
use std::collections::BTreeMap;

/// The reference state of `level` (GFX10.3 uses the GFX10 stream, GFX11.5 the GFX11 one);
/// `None` where the reference data holds no hardware-tested draw of the level (GFX12).
pub fn steps(level: GfxLevel) -> Option<&'static [Step]> {
    match level {
        GfxLevel::Gfx9 => Some(crate::reference_state::GFX9),
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => Some(crate::reference_state::GFX10),
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => Some(crate::reference_state::GFX11),
        GfxLevel::Gfx12 => None,
    }
}

/// The families the POPS draw is built for: those whose generation has a reference draw.
pub fn families() -> impl Iterator<Item = pm4::Family> {
    pm4::Family::ALL
        .iter()
        .copied()
        .filter(|f| steps(f.gfx_level()).is_some())
}

/// The level whose register names the reference stream of `level` uses.
pub const fn source_level(level: GfxLevel) -> GfxLevel {
    match level {
        GfxLevel::Gfx9 => GfxLevel::Gfx9,
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => GfxLevel::Gfx10,
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => GfxLevel::Gfx11,
        GfxLevel::Gfx12 => GfxLevel::Gfx12,
    }
}

/// The reference IB file in `shared/reference/libdrm-draw/` for `level`, where there is one.
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
    pub allowed: Option<&'static Difference>,
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
    pub allowed: Option<&'static Difference>,
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
        for w in &p.writes {
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
/// register the reference programs must be programmed, with the reference's value unless
/// [`differences::TABLE`] lists the register for this level with its reason.
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
        for v in values {
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
