//! The encoding generations of the shader instruction formats, and what differs between them
//! beyond the opcode tables: the scalar operand codes that moved, `s_wait_event`'s meaning.

use pm4::GfxLevel;

/// The encoding generations of the shader instruction formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Gfx9,
    Gfx10,
    Gfx11,
    /// GFX12 (RDNA4): GFX11's scalar and vector ALU opcodes, split wait counters
    /// (`s_wait_loadcnt`, `s_wait_storecnt`, …) instead of `s_waitcnt`, and new memory formats
    /// (VBUFFER, VIMAGE, VSAMPLE, VGLOBAL/VFLAT/VSCRATCH, SMEM).
    Gfx12,
}

impl Encoding {
    pub const fn of(level: GfxLevel) -> Encoding {
        match level {
            GfxLevel::Gfx9 => Encoding::Gfx9,
            GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => Encoding::Gfx10,
            GfxLevel::Gfx11 | GfxLevel::Gfx11_5 => Encoding::Gfx11,
            GfxLevel::Gfx12 => Encoding::Gfx12,
        }
    }

    /// GFX11 and later: "export ready" instead of wave IDs, no packer register, GFX11's scalar
    /// operand numbering (M0 125, null 124).
    pub const fn is_gfx11_plus(self) -> bool {
        matches!(self, Encoding::Gfx11 | Encoding::Gfx12)
    }

    /// Whether `s_wait_event imm` waits for "export ready": on GFX11 with "bit 0 ("don't wait
    /// for export_ready") of the immediate operand set to 0" (the article); GFX12 inverted it,
    /// waiting where bit 1 is set (Mesa's ACO, `wait_event_imm_wait_export_ready_gfx12 = 0x2`).
    pub const fn waits_for_export_ready(self, imm: u16) -> bool {
        match self {
            Encoding::Gfx12 => imm & 2 != 0,
            Encoding::Gfx11 => imm & 1 == 0,
            Encoding::Gfx9 | Encoding::Gfx10 => false,
        }
    }

    /// The scalar operand field's code of M0 (GFX11 swapped M0 and NULL).
    pub const fn m0(self) -> u8 {
        if self.is_gfx11_plus() {
            125
        } else {
            124
        }
    }

    /// The scalar operand field's code of NULL (none on GFX9; GFX11 swapped M0 and NULL).
    pub const fn null(self) -> Option<u8> {
        match self {
            Encoding::Gfx9 => None,
            Encoding::Gfx10 => Some(125),
            Encoding::Gfx11 | Encoding::Gfx12 => Some(124),
        }
    }

    pub const fn index(self) -> usize {
        match self {
            Encoding::Gfx9 => 0,
            Encoding::Gfx10 => 1,
            Encoding::Gfx11 => 2,
            Encoding::Gfx12 => 3,
        }
    }
}
