//! Global memory loads and stores (the FLAT encoding with SEG = global and an SGPR base), with
//! the cache-policy bits the POPS article asks for.
//!
//! "accesses must go directly to the global L2 cache, bypassing L0$ via the GLC flag and L1$ via
//! DLC": GLC exists on every level, DLC from GFX10 on (GFX9 has no L1 between L0 and L2).
//! The address is `saddr (64-bit SGPR pair) + vaddr (32-bit VGPR offset) + offset`.

use super::encoding::Encoding;
use super::IsaError;
use pm4::GfxLevel;

/// A global memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalOp {
    LoadDword,
    StoreDword,
}

impl GlobalOp {
    pub const ALL: &'static [GlobalOp] = &[GlobalOp::LoadDword, GlobalOp::StoreDword];

    pub const fn mnemonic(self, enc: Encoding) -> &'static str {
        match (self, enc) {
            (GlobalOp::LoadDword, Encoding::Gfx11 | Encoding::Gfx12) => "global_load_b32",
            (GlobalOp::StoreDword, Encoding::Gfx11 | Encoding::Gfx12) => "global_store_b32",
            (GlobalOp::LoadDword, _) => "global_load_dword",
            (GlobalOp::StoreDword, _) => "global_store_dword",
        }
    }

    /// The FLAT opcode per generation (LLVM's FLATInstructions.td).
    pub const fn opcode(self, enc: Encoding) -> u32 {
        match (self, enc) {
            (GlobalOp::LoadDword, Encoding::Gfx9) => 0x14,
            (GlobalOp::LoadDword, Encoding::Gfx10) => 0x0c,
            (GlobalOp::LoadDword, Encoding::Gfx11 | Encoding::Gfx12) => 0x14,
            (GlobalOp::StoreDword, Encoding::Gfx9) => 0x1c,
            (GlobalOp::StoreDword, Encoding::Gfx10) => 0x1c,
            (GlobalOp::StoreDword, Encoding::Gfx11 | Encoding::Gfx12) => 0x1a,
        }
    }

    pub const fn is_store(self) -> bool {
        matches!(self, GlobalOp::StoreDword)
    }
}

/// Cache policy of one access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CachePolicy {
    /// Globally coherent: bypass (and, for loads, miss in) the per-CU L0/vector cache.
    pub glc: bool,
    /// Device coherent (GFX10+): bypass the shader-array L1 as well.
    pub dlc: bool,
}

impl CachePolicy {
    /// What primitive-ordered accesses need on `level`: GLC everywhere, DLC where L1 exists.
    pub const fn coherent(level: GfxLevel) -> CachePolicy {
        CachePolicy {
            glc: true,
            dlc: !matches!(level, GfxLevel::Gfx9),
        }
    }
}

/// `global_load_dword vdata, vaddr, s[saddr:saddr+1] offset:… glc dlc` or the store form
/// `global_store_dword vaddr, vdata, s[…]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalInst {
    pub op: GlobalOp,
    /// The loaded VGPR, or the stored one.
    pub vdata: u8,
    /// The 32-bit byte offset VGPR.
    pub vaddr: u8,
    /// First SGPR of the 64-bit base address (even).
    pub saddr: u8,
    /// Immediate byte offset.
    pub offset: i16,
    pub cache: CachePolicy,
}

const FLAT_PREFIX: u32 = 0x37 << 26;
const SEG_GLOBAL: u32 = 2;

impl GlobalInst {
    pub const fn load(vdst: u8, vaddr: u8, saddr: u8, offset: i16, cache: CachePolicy) -> Self {
        GlobalInst {
            op: GlobalOp::LoadDword,
            vdata: vdst,
            vaddr,
            saddr,
            offset,
            cache,
        }
    }

    pub const fn store(vaddr: u8, vdata: u8, saddr: u8, offset: i16, cache: CachePolicy) -> Self {
        GlobalInst {
            op: GlobalOp::StoreDword,
            vdata,
            vaddr,
            saddr,
            offset,
            cache,
        }
    }

    /// The signed immediate offset range per generation (13 bits on GFX9 and GFX11, 12 on GFX10;
    /// GFX12's 24 bits hold every `i16`).
    pub const fn offset_range(enc: Encoding) -> (i16, i16) {
        match enc {
            Encoding::Gfx10 => (-2048, 2047),
            Encoding::Gfx9 | Encoding::Gfx11 => (-4096, 4095),
            Encoding::Gfx12 => (i16::MIN, i16::MAX),
        }
    }

    /// GFX12's cache scope for the policy (GFX12 has no GLC/DLC bits): device scope where the
    /// shader-array cache is bypassed, shader-engine scope where only the CU's, CU scope
    /// otherwise; ACO's ordered accesses on GFX12 are `scope:SCOPE_DEV`.
    const fn scope(&self) -> (u32, &'static str) {
        match (self.cache.glc, self.cache.dlc) {
            (_, true) => (2, "SCOPE_DEV"),
            (true, false) => (1, "SCOPE_SE"),
            (false, false) => (0, "SCOPE_CU"),
        }
    }

    pub fn text(&self, level: GfxLevel) -> String {
        let enc = Encoding::of(level);
        let m = self.op.mnemonic(enc);
        let s = format!("s[{}:{}]", self.saddr, self.saddr as u16 + 1);
        let mut t = if self.op.is_store() {
            format!("{m} v{}, v{}, {s}", self.vaddr, self.vdata)
        } else {
            format!("{m} v{}, v{}, {s}", self.vdata, self.vaddr)
        };
        if self.offset != 0 {
            t.push_str(&format!(" offset:{}", self.offset));
        }
        if enc == Encoding::Gfx12 {
            if self.scope().0 != 0 {
                t.push_str(&format!(" scope:{}", self.scope().1));
            }
            return t;
        }
        if self.cache.glc {
            t.push_str(" glc");
        }
        if self.cache.dlc {
            t.push_str(" dlc");
        }
        t
    }

    /// The instruction's dwords: two, or three on GFX12 (VGLOBAL).
    pub fn encode(&self, level: GfxLevel) -> Result<Vec<u32>, IsaError> {
        let enc = Encoding::of(level);
        let m = self.op.mnemonic(enc);
        let max = super::encode::max_sgpr(level);
        if self.saddr >= max {
            return Err(IsaError::SgprOutOfRange {
                sgpr: self.saddr,
                max,
                level,
            });
        }
        if !self.saddr.is_multiple_of(2) {
            return Err(IsaError::MisalignedPair {
                sgpr: self.saddr,
                mnemonic: m,
            });
        }
        let (lo, hi) = GlobalInst::offset_range(enc);
        if self.offset < lo || self.offset > hi {
            return Err(IsaError::FieldOutOfRange {
                field: "offset",
                value: self.offset as u32,
                max: hi as u32,
                level,
            });
        }
        if self.cache.dlc && enc == Encoding::Gfx9 {
            return Err(IsaError::OperandUnsupported {
                operand: "dlc".into(),
                mnemonic: m,
                level,
            });
        }
        let op = self.op.opcode(enc);
        let (glc, dlc) = (self.cache.glc as u32, self.cache.dlc as u32);
        let w0 = match enc {
            Encoding::Gfx9 => {
                FLAT_PREFIX
                    | op << 18
                    | glc << 16
                    | SEG_GLOBAL << 14
                    | (self.offset as u32 & 0x1fff)
            }
            Encoding::Gfx10 => {
                FLAT_PREFIX
                    | op << 18
                    | glc << 16
                    | SEG_GLOBAL << 14
                    | dlc << 12
                    | (self.offset as u32 & 0xfff)
            }
            Encoding::Gfx11 => {
                FLAT_PREFIX
                    | op << 18
                    | SEG_GLOBAL << 16
                    | glc << 14
                    | dlc << 13
                    | (self.offset as u32 & 0x1fff)
            }
            Encoding::Gfx12 => return Ok(self.encode_gfx12(op)),
        };
        let (data, vdst) = if self.op.is_store() {
            (self.vdata as u32, 0)
        } else {
            (0, self.vdata as u32)
        };
        let w1 = self.vaddr as u32 | data << 8 | (self.saddr as u32) << 16 | vdst << 24;
        Ok(vec![w0, w1])
    }

    /// GFX12's VGLOBAL (llvm-mc-19, gfx1200): dword 0 the prefix 0xEE, the opcode [21:14] and
    /// saddr [6:0]; dword 1 vdst [7:0], scope [19:18], th [22:20], the data VGPR [30:23];
    /// dword 2 vaddr [7:0] and the signed 24-bit offset [31:8].
    fn encode_gfx12(&self, op: u32) -> Vec<u32> {
        const VGLOBAL_PREFIX: u32 = 0xee << 24;
        let (data, vdst) = if self.op.is_store() {
            (self.vdata as u32, 0)
        } else {
            (0, self.vdata as u32)
        };
        let w0 = VGLOBAL_PREFIX | op << 14 | self.saddr as u32;
        let w1 = vdst | self.scope().0 << 18 | data << 23;
        let w2 = self.vaddr as u32 | ((self.offset as i32 as u32) & 0xff_ffff) << 8;
        vec![w0, w1, w2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against `llvm-mc -show-encoding` output for each generation.
    #[test]
    fn known_encodings() {
        let ld = |l| GlobalInst::load(5, 2, 0, 0, CachePolicy::coherent(l));
        let st = |l| GlobalInst::store(6, 7, 0, 4, CachePolicy::coherent(l));
        assert_eq!(
            ld(GfxLevel::Gfx9).encode(GfxLevel::Gfx9).unwrap(),
            [0xdc51_8000, 0x0500_0002]
        );
        assert_eq!(
            st(GfxLevel::Gfx9).encode(GfxLevel::Gfx9).unwrap(),
            [0xdc71_8004, 0x0000_0706]
        );
        assert_eq!(
            ld(GfxLevel::Gfx10).encode(GfxLevel::Gfx10).unwrap(),
            [0xdc31_9000, 0x0500_0002]
        );
        assert_eq!(
            st(GfxLevel::Gfx10).encode(GfxLevel::Gfx10).unwrap(),
            [0xdc71_9004, 0x0000_0706]
        );
        assert_eq!(
            ld(GfxLevel::Gfx11).encode(GfxLevel::Gfx11).unwrap(),
            [0xdc52_6000, 0x0500_0002]
        );
        assert_eq!(
            st(GfxLevel::Gfx11).encode(GfxLevel::Gfx11).unwrap(),
            [0xdc6a_6004, 0x0000_0706]
        );
        // llvm-mc-19 -mcpu=gfx1200: `global_load_b32 v5, v2, s[0:1] scope:SCOPE_DEV` and
        // `global_store_b32 v6, v7, s[0:1] offset:4 scope:SCOPE_DEV`.
        let g12 = GfxLevel::Gfx12;
        assert_eq!(
            ld(g12).encode(g12).unwrap(),
            [0xee05_0000, 0x0008_0005, 0x0000_0002]
        );
        assert_eq!(
            st(g12).encode(g12).unwrap(),
            [0xee06_8000, 0x0388_0000, 0x0000_0406]
        );
    }

    #[test]
    fn dlc_does_not_exist_on_gfx9_and_offsets_are_checked() {
        let i = GlobalInst::load(1, 0, 0, 0, CachePolicy::coherent(GfxLevel::Gfx10));
        assert!(matches!(
            i.encode(GfxLevel::Gfx9),
            Err(IsaError::OperandUnsupported { .. })
        ));
        let far = GlobalInst::load(1, 0, 0, 3000, CachePolicy::default());
        assert!(far.encode(GfxLevel::Gfx9).is_ok());
        assert!(matches!(
            far.encode(GfxLevel::Gfx10),
            Err(IsaError::FieldOutOfRange { .. })
        ));
        let odd = GlobalInst::load(1, 0, 3, 0, CachePolicy::default());
        assert!(matches!(
            odd.encode(GfxLevel::Gfx11),
            Err(IsaError::MisalignedPair { .. })
        ));
    }
}
