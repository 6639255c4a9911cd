//! One packet of a hardware-tested reference draw (libdrm's; RADV's on GFX12), as the generated
//! reference state (crate::reference_state) lists it and crate::reference replays it, and the
//! level whose register names a reference uses.

/// One packet of the reference state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A SET_*_REG packet (the packet form follows from the register and level).
    Regs(&'static [(pm4::Reg, u32)]),
    /// A SET_CONTEXT_REG packet at a byte address, for registers the register database of some
    /// level does not name.
    Raw {
        address: u32,
        values: &'static [u32],
    },
    /// NUM_INSTANCES.
    NumInstances(u32),
}

/// The level whose register names the reference stream of `level` uses.
pub const fn source_level(level: pm4::GfxLevel) -> pm4::GfxLevel {
    use pm4::GfxLevel;
    match level {
        GfxLevel::Gfx9 => GfxLevel::Gfx9,
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => GfxLevel::Gfx10,
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => GfxLevel::Gfx11,
        GfxLevel::Gfx12 => GfxLevel::Gfx12,
    }
}

impl Step {
    /// The (byte address, value) pairs the packet writes on `level`, in order. A register of the
    /// reference's level that `level` names differently (GFX10.3 and GFX11.5 reuse the GFX10 and
    /// GFX11 streams) keeps its address there.
    pub fn writes(&self, level: pm4::GfxLevel) -> Result<Vec<(u32, u32)>, pm4::RegError> {
        match self {
            Step::Regs(w) => w
                .iter()
                .map(|(reg, value)| {
                    let d = match level.register(*reg) {
                        Some(d) => d,
                        None => source_level(level).require(*reg)?,
                    };
                    Ok((d.address, *value))
                })
                .collect(),
            Step::Raw { address, values } => Ok(values
                .iter()
                .enumerate()
                .map(|(k, v)| (address + 4 * k as u32, *v))
                .collect()),
            Step::NumInstances(_) => Ok(Vec::new()),
        }
    }
}
