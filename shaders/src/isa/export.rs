//! Exports (EXP): colour, position, parameter and (NGG) primitive exports.
//!
//! The POPS article's export requirements: "the shader must have at least one export, though it
//! can be a null or an off, off, off, off one", and on GFX11 "the overlapping waves are resumed
//! when the wave performs the last export (with the done flag)". GFX9/GFX10 encode a VM (valid
//! mask) bit, which a pixel shader's last export sets; GFX11 removed it.

use super::encoding::Encoding;
use super::IsaError;
use pm4::GfxLevel;

/// Where an export goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpTarget {
    /// Colour target `mrtN` (0..=7).
    Mrt(u8),
    /// The null target (no data; keeps the export handshake), GFX9–GFX10.3.
    Null,
    /// Position `posN` (0..=3).
    Pos(u8),
    /// Parameter `paramN` (0..=31), GFX9–GFX10.3 only (GFX11 writes parameters to memory).
    Param(u8),
    /// The NGG primitive export (GFX10+).
    Prim,
}

impl ExpTarget {
    fn code(self, level: GfxLevel) -> Result<u32, IsaError> {
        let enc = Encoding::of(level);
        let bad = |max: u32, v: u8| IsaError::FieldOutOfRange {
            field: "export target index",
            value: v as u32,
            max,
            level,
        };
        Ok(match self {
            ExpTarget::Mrt(n) if n <= 7 => n as u32,
            ExpTarget::Mrt(n) => return Err(bad(7, n)),
            // GFX11 dropped the null target; a null export there is `exp mrt0 off, off, off, off`.
            ExpTarget::Null if enc.is_gfx11_plus() => {
                return Err(IsaError::Unsupported {
                    mnemonic: "exp null",
                    level,
                })
            }
            ExpTarget::Null => 9,
            ExpTarget::Pos(n) if n <= 3 => 12 + n as u32,
            ExpTarget::Pos(n) => return Err(bad(3, n)),
            ExpTarget::Param(_) if enc.is_gfx11_plus() => {
                return Err(IsaError::Unsupported {
                    mnemonic: "exp param",
                    level,
                })
            }
            ExpTarget::Param(n) if n <= 31 => 32 + n as u32,
            ExpTarget::Param(n) => return Err(bad(31, n)),
            ExpTarget::Prim if enc == Encoding::Gfx9 => {
                return Err(IsaError::Unsupported {
                    mnemonic: "exp prim",
                    level,
                })
            }
            ExpTarget::Prim => 20,
        })
    }

    fn text(self) -> String {
        match self {
            ExpTarget::Mrt(n) => format!("mrt{n}"),
            ExpTarget::Null => "null".into(),
            ExpTarget::Pos(n) => format!("pos{n}"),
            ExpTarget::Param(n) => format!("param{n}"),
            ExpTarget::Prim => "prim".into(),
        }
    }
}

/// `exp target vA, vB, vC, vD [done] [vm]`; a `None` source is `off` (its enable bit clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExportInst {
    pub target: ExpTarget,
    pub src: [Option<u8>; 4],
    /// The wave's last export of its kind (for a pixel shader: the one that ends the handshake).
    pub done: bool,
    /// Valid mask (GFX9–GFX10.3 pixel shaders: set on the last colour export).
    pub vm: bool,
}

const EXP_PREFIX_GFX9: u32 = 0x31 << 26;
const EXP_PREFIX_GFX10: u32 = 0x3e << 26;

impl ExportInst {
    /// The final export of a pixel shader for `level`: `done`, with `vm` where it exists.
    pub const fn ps_last(level: GfxLevel, target: ExpTarget, src: [Option<u8>; 4]) -> Self {
        ExportInst {
            target,
            src,
            done: true,
            vm: !level.is_gfx11_plus(),
        }
    }

    pub fn text(&self, level: GfxLevel) -> String {
        let srcs: Vec<String> = self
            .src
            .iter()
            .map(|s| s.map_or_else(|| "off".to_string(), |v| format!("v{v}")))
            .collect();
        // GFX12 spells the instruction out (llvm-mc-19: `export mrt0 …`).
        let m = if level == GfxLevel::Gfx12 {
            "export"
        } else {
            "exp"
        };
        let mut t = format!("{m} {} {}", self.target.text(), srcs.join(", "));
        if self.done {
            t.push_str(" done");
        }
        if self.vm {
            t.push_str(" vm");
        }
        t
    }

    pub fn encode(&self, level: GfxLevel) -> Result<[u32; 2], IsaError> {
        let enc = Encoding::of(level);
        let tgt = self.target.code(level)?;
        if self.vm && enc.is_gfx11_plus() {
            return Err(IsaError::OperandUnsupported {
                operand: "vm".into(),
                mnemonic: "exp",
                level,
            });
        }
        let mut en = 0u32;
        let mut w1 = 0u32;
        for (i, s) in self.src.iter().enumerate() {
            if let Some(v) = s {
                en |= 1 << i;
                w1 |= (*v as u32) << (8 * i);
            }
        }
        let prefix = match enc {
            Encoding::Gfx9 => EXP_PREFIX_GFX9,
            Encoding::Gfx10 | Encoding::Gfx11 | Encoding::Gfx12 => EXP_PREFIX_GFX10,
        };
        let w0 = prefix | (self.vm as u32) << 12 | (self.done as u32) << 11 | tgt << 4 | en;
        Ok([w0, w1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against `llvm-mc -show-encoding`.
    #[test]
    fn known_encodings() {
        let mrt = |l| ExportInst::ps_last(l, ExpTarget::Mrt(0), [Some(7), None, None, None]);
        assert_eq!(
            mrt(GfxLevel::Gfx9).encode(GfxLevel::Gfx9).unwrap(),
            [0xc400_1801, 7]
        );
        assert_eq!(
            mrt(GfxLevel::Gfx10).encode(GfxLevel::Gfx10).unwrap(),
            [0xf800_1801, 7]
        );
        assert_eq!(
            mrt(GfxLevel::Gfx11).encode(GfxLevel::Gfx11).unwrap(),
            [0xf800_0801, 7]
        );
        let prim = ExportInst {
            target: ExpTarget::Prim,
            src: [Some(0), None, None, None],
            done: true,
            vm: false,
        };
        assert_eq!(prim.encode(GfxLevel::Gfx11).unwrap(), [0xf800_0941, 0]);
        assert!(prim.encode(GfxLevel::Gfx9).is_err());
        let pos = ExportInst {
            target: ExpTarget::Pos(0),
            src: [Some(1), Some(2), Some(3), Some(4)],
            done: true,
            vm: false,
        };
        assert_eq!(
            pos.encode(GfxLevel::Gfx9).unwrap(),
            [0xc400_08cf, 0x0403_0201]
        );
    }

    #[test]
    fn gfx11_has_no_parameter_exports_and_no_valid_mask() {
        let p = ExportInst {
            target: ExpTarget::Param(0),
            src: [Some(3); 4],
            done: false,
            vm: false,
        };
        assert!(p.encode(GfxLevel::Gfx10_3).is_ok());
        assert!(p.encode(GfxLevel::Gfx11).is_err());
        let vm = ExportInst::ps_last(GfxLevel::Gfx9, ExpTarget::Null, [None; 4]);
        assert!(vm.encode(GfxLevel::Gfx11).is_err());
    }
}
