//! Command-stream building, shared by every backend so that each is handed identical bytes.
//!
//! This is the one place winsys composes PM4. The packets it needs (CONTEXT_CONTROL, the
//! SET_*_REG packets of a register state, WRITE_DATA, NOP padding) use `pm4`'s headers and
//! opcode table; when `pm4` grows a level-aware builder this module becomes a thin wrapper of it.

use pm4::packet::{pkt3, Opcode, MAX_BODY_DWORDS, NOP_ONE_DWORD};
use pm4::RegValue;

/// CONTEXT_CONTROL's two body dwords as libdrm's GFX draw test and RADV's preamble write them:
/// LOAD_ENABLE and SHADOW_ENABLE (bit 31) each set, so the CP tracks register state normally.
/// (shared/reference/libdrm-draw: "c0012800 CONTEXT_CONTROL: 80000000 80000000".)
const CONTEXT_CONTROL_LOAD_ENABLE: u32 = 1 << 31;
const CONTEXT_CONTROL_SHADOW_ENABLE: u32 = 1 << 31;

/// WRITE_DATA control dword fields (Mesa sid.h, S_370_*): destination select in bits 11:8
/// (5 = memory), write confirm in bit 20, engine select in bits 31:30 (0 = ME).
const WRITE_DATA_DST_SEL_SHIFT: u32 = 8;
const WRITE_DATA_DST_MEM: u32 = 5;
const WRITE_DATA_WR_CONFIRM: u32 = 1 << 20;
const WRITE_DATA_ENGINE_SEL_SHIFT: u32 = 30;
const WRITE_DATA_ENGINE_ME: u32 = 0;

/// A growing IB. Build it, then [`CmdStream::finish`] pads it to the device's IB size alignment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CmdStream {
    dwords: Vec<u32>,
}

impl CmdStream {
    pub fn new() -> CmdStream {
        CmdStream::default()
    }

    pub fn len(&self) -> usize {
        self.dwords.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dwords.is_empty()
    }

    pub fn dwords(&self) -> &[u32] {
        &self.dwords
    }

    /// Appends dwords built elsewhere (e.g. `pm4::pops::emit`).
    pub fn extend(&mut self, dwords: &[u32]) -> &mut Self {
        self.dwords.extend_from_slice(dwords);
        self
    }

    /// CONTEXT_CONTROL, the first packet of a GFX IB that sets state.
    pub fn context_control(&mut self) -> &mut Self {
        self.dwords.extend_from_slice(&[
            pkt3(Opcode::CONTEXT_CONTROL, 2, false),
            CONTEXT_CONTROL_LOAD_ENABLE,
            CONTEXT_CONTROL_SHADOW_ENABLE,
        ]);
        self
    }

    /// SET_*_REG packets writing these registers, in order (one packet per run of consecutive
    /// registers of a space, as `pm4::emit_set_regs` groups them).
    pub fn set_regs(&mut self, writes: &[RegValue]) -> &mut Self {
        pm4::emit_set_regs(&mut self.dwords, writes);
        self
    }

    /// WRITE_DATA of `data` to memory at `va`, by the micro engine, with write confirmation so
    /// the packet completes only once the data is in memory.
    ///
    /// # Panics
    /// Never on input: data longer than one packet can carry is split into several packets.
    pub fn write_data(&mut self, va: u64, data: &[u32]) -> &mut Self {
        // Body: control, address lo, address hi, data.
        for (i, chunk) in data.chunks(MAX_BODY_DWORDS - 3).enumerate() {
            let va = va + 4 * (i * (MAX_BODY_DWORDS - 3)) as u64;
            self.dwords
                .push(pkt3(Opcode::WRITE_DATA, 3 + chunk.len(), false));
            self.dwords.push(
                (WRITE_DATA_DST_MEM << WRITE_DATA_DST_SEL_SHIFT)
                    | WRITE_DATA_WR_CONFIRM
                    | (WRITE_DATA_ENGINE_ME << WRITE_DATA_ENGINE_SEL_SHIFT),
            );
            self.dwords.push(va as u32);
            self.dwords.push((va >> 32) as u32);
            self.dwords.extend_from_slice(chunk);
        }
        self
    }

    /// Pads with one NOP packet to a multiple of `pad_dwords` (a power of two); an empty stream
    /// gets a full pad, since the kernel refuses empty IBs. One dword of padding is the one-dword
    /// NOP 0xffff1000; more is a type-3 NOP whose body is zeros.
    pub fn pad(&mut self, pad_dwords: u32) -> &mut Self {
        let pad = pad_dwords.max(1) as usize;
        let rem = self.dwords.len() % pad;
        let missing = if self.dwords.is_empty() {
            pad
        } else if rem == 0 {
            0
        } else {
            pad - rem
        };
        match missing {
            0 => {}
            1 => self.dwords.push(NOP_ONE_DWORD),
            n => {
                self.dwords.push(pkt3(Opcode::NOP, n - 1, false));
                self.dwords.extend(std::iter::repeat(0).take(n - 1));
            }
        }
        self
    }

    /// The finished IB, padded to `pad_dwords`.
    pub fn finish(mut self, pad_dwords: u32) -> Vec<u32> {
        self.pad(pad_dwords);
        self.dwords
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pm4::{GfxLevel, Reg};

    #[test]
    fn context_control_matches_the_reference_draw() {
        let mut cs = CmdStream::new();
        cs.context_control();
        assert_eq!(cs.dwords(), &[0xc001_2800, 0x8000_0000, 0x8000_0000]);
    }

    #[test]
    fn write_data_targets_memory_with_confirmation() {
        let mut cs = CmdStream::new();
        cs.write_data(0x8_0001_0040, &[0xdead_beef]);
        // Mesa: PKT3(PKT3_WRITE_DATA, 3, 0), S_370_DST_SEL(V_370_MEM) | S_370_WR_CONFIRM(1)
        //       | S_370_ENGINE_SEL(V_370_ME), lo, hi, value.
        assert_eq!(
            cs.dwords(),
            &[0xc003_3700, 0x0010_0500, 0x0001_0040, 0x8, 0xdead_beef]
        );
    }

    #[test]
    fn long_write_data_is_split_and_addresses_advance() {
        let data = vec![7u32; MAX_BODY_DWORDS];
        let mut cs = CmdStream::new();
        cs.write_data(0x1000, &data);
        let first_body = MAX_BODY_DWORDS - 3;
        assert_eq!(cs.len(), 4 + first_body + 4 + 3);
        let second = 4 + first_body;
        assert_eq!(cs.dwords()[second + 2], 0x1000 + 4 * first_body as u32);
    }

    #[test]
    fn padding_uses_one_nop_and_reaches_the_multiple() {
        for len in 0..20usize {
            let mut cs = CmdStream::new();
            cs.extend(&vec![0x1234; len]);
            let out = cs.finish(8);
            assert_eq!(out.len() % 8, 0, "len {len}");
            assert!(!out.is_empty());
            let padded = &out[len..];
            match padded.len() {
                0 => {}
                1 => assert_eq!(padded, &[NOP_ONE_DWORD]),
                n => {
                    let h = pm4::Header::parse(padded[0]);
                    assert_eq!(h.opcode, Opcode::NOP as u8);
                    assert_eq!(h.count as usize + 2, n, "one NOP covers the padding");
                }
            }
        }
    }

    #[test]
    fn set_regs_is_pm4s_emission() {
        let w = RegValue::with_value(GfxLevel::Gfx10_3, Reg::DB_SHADER_CONTROL, 1).unwrap();
        let mut expect = Vec::new();
        pm4::emit_set_regs(&mut expect, &[w]);
        let mut cs = CmdStream::new();
        cs.set_regs(&[w]);
        assert_eq!(cs.dwords(), expect.as_slice());
    }
}
