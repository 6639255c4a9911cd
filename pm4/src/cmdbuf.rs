//! Building indirect buffers: a level-aware dword vector with one method per packet.
//!
//! [`CmdBuf`] knows its [`GfxLevel`], so the packets whose layout changed between generations
//! (RELEASE_MEM, ACQUIRE_MEM, INDIRECT_BUFFER, the SET_*_REG_INDEX forms) come out right for the
//! chip, and a layout meant for another generation is a typed [`EncodeError`], never wrong bits.
//! Packet bodies follow the streams libdrm's amdgpu draw test sends on real hardware
//! (`shared/reference/libdrm-draw`) and Mesa's emitters; `pm4/tests/packets.rs` re-encodes those
//! streams and compares dword for dword.

use crate::chip::GfxLevel;
pub use crate::encode_error::EncodeError;
use crate::fields::{
    ContextControlLoad, ContextControlShadow, EventKind, EventType, EventWriteDw1, GcrCntl,
    IbControl, ReleaseMemOpGfx10, ReleaseMemOpGfx11, ReleaseMemOpGfx9, ReleaseMemSel,
    WriteDataControl,
};
use crate::packet::{
    emit_set_reg_runs, pkt3, Opcode, SetRegForm, MAX_BODY_DWORDS, NOP_ONE_DWORD,
    SET_REG_INDEX_SHIFT,
};
use crate::regs::{Field, Reg, RegSpace, RegValue};

/// How the CP must receive a register on a level when plain SET_*_REG is not enough, as libdrm's
/// draw test (and Mesa) write them on real hardware:
///
/// - VGT_INDEX_TYPE carries index 2 in bits 31:28 of the offset dword; GFX9 sends it in a plain
///   SET_UCONFIG_REG (the form Mesa keeps for GFX9 microcode older than version 26), GFX10+ in
///   SET_UCONFIG_REG_INDEX.
/// - On GFX9 also VGT_PRIMITIVE_TYPE (index 1) and IA_MULTI_VGT_PARAM (index 4), in the same
///   indexed SET_UCONFIG_REG form; GFX10+ write VGT_PRIMITIVE_TYPE plainly.
/// - SPI_SHADER_PGM_RSRC3_* and RSRC4_* (the CU masks) go through SET_SH_REG_INDEX with index 3
///   ("apply the kernel's CU mask") from GFX10 on.
///
/// Such a register is written in a packet of its own.
pub fn set_reg_form(level: GfxLevel, reg: Reg) -> Option<SetRegForm> {
    use Reg::*;
    match reg {
        VGT_INDEX_TYPE if level == GfxLevel::Gfx9 => Some(SetRegForm {
            opcode: Opcode::SET_UCONFIG_REG,
            index: 2,
        }),
        VGT_PRIMITIVE_TYPE if level == GfxLevel::Gfx9 => Some(SetRegForm {
            opcode: Opcode::SET_UCONFIG_REG,
            index: 1,
        }),
        IA_MULTI_VGT_PARAM if level == GfxLevel::Gfx9 => Some(SetRegForm {
            opcode: Opcode::SET_UCONFIG_REG,
            index: 4,
        }),
        VGT_INDEX_TYPE => Some(SetRegForm {
            opcode: Opcode::SET_UCONFIG_REG_INDEX,
            index: 2,
        }),
        SPI_SHADER_PGM_RSRC3_PS
        | SPI_SHADER_PGM_RSRC3_VS
        | SPI_SHADER_PGM_RSRC3_GS
        | SPI_SHADER_PGM_RSRC4_PS
        | SPI_SHADER_PGM_RSRC4_VS
        | SPI_SHADER_PGM_RSRC4_GS
            if level >= GfxLevel::Gfx10 =>
        {
            Some(SetRegForm {
                opcode: Opcode::SET_SH_REG_INDEX,
                index: 3,
            })
        }
        _ => None,
    }
}

/// The RELEASE_MEM event dword in the layout of one generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseMemOp {
    Gfx9(ReleaseMemOpGfx9),
    /// GFX10 and GFX10.3.
    Gfx10(ReleaseMemOpGfx10),
    /// GFX11 and GFX11.5.
    Gfx11(ReleaseMemOpGfx11),
}

impl ReleaseMemOp {
    /// The dword for `event` with its EVENT_INDEX and no cache action, in `level`'s layout.
    pub fn event(level: GfxLevel, event: EventType) -> ReleaseMemOp {
        let (t, i) = (event as u32, event.event_index());
        match level {
            GfxLevel::Gfx9 => ReleaseMemOp::Gfx9(ReleaseMemOpGfx9 {
                event_type: t,
                event_index: i,
                ..Default::default()
            }),
            GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => ReleaseMemOp::Gfx10(ReleaseMemOpGfx10 {
                event_type: t,
                event_index: i,
                ..Default::default()
            }),
            GfxLevel::Gfx11 | GfxLevel::Gfx11_5 | GfxLevel::Gfx12 => {
                ReleaseMemOp::Gfx11(ReleaseMemOpGfx11 {
                    event_type: t,
                    event_index: i,
                    ..Default::default()
                })
            }
        }
    }

    fn encode_for(&self, level: GfxLevel) -> Result<u32, EncodeError> {
        let (fits, name, dw) = match self {
            ReleaseMemOp::Gfx9(o) => (level == GfxLevel::Gfx9, "GFX9", o.encode()?),
            ReleaseMemOp::Gfx10(o) => (
                matches!(level, GfxLevel::Gfx10 | GfxLevel::Gfx10_3),
                "GFX10",
                o.encode()?,
            ),
            ReleaseMemOp::Gfx11(o) => (level.is_gfx11_plus(), "GFX11", o.encode()?),
        };
        if !fits {
            return Err(EncodeError::WrongLayout {
                what: "RELEASE_MEM event dword",
                layout_level: name,
                level,
            });
        }
        Ok(dw)
    }
}

/// A RELEASE_MEM packet: at `event`, do the cache actions in `op` and write `data` (as `sel`
/// says) to `address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseMem {
    pub op: ReleaseMemOp,
    pub sel: ReleaseMemSel,
    pub address: u64,
    pub data: u64,
}

impl ReleaseMem {
    /// A bottom-of-pipe fence: once all prior work is done, write the 32-bit `value` to
    /// `address` (confirmed), as Mesa writes its fences.
    pub fn eop_fence(level: GfxLevel, address: u64, value: u32) -> ReleaseMem {
        ReleaseMem {
            op: ReleaseMemOp::event(level, EventType::BOTTOM_OF_PIPE_TS),
            sel: ReleaseMemSel {
                dst_sel: 0,
                int_sel: ReleaseMemSel::INT_SEL_SEND_DATA_AFTER_WR_CONFIRM,
                data_sel: ReleaseMemSel::DATA_SEL_VALUE_32,
            },
            address,
            data: value as u64,
        }
    }
}

/// A PM4 indirect buffer under construction for one generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmdBuf {
    level: GfxLevel,
    dw: Vec<u32>,
}

type Result<T = (), E = EncodeError> = std::result::Result<T, E>;

impl CmdBuf {
    pub fn new(level: GfxLevel) -> CmdBuf {
        CmdBuf {
            level,
            dw: Vec::new(),
        }
    }

    pub fn with_capacity(level: GfxLevel, dwords: usize) -> CmdBuf {
        CmdBuf {
            level,
            dw: Vec::with_capacity(dwords),
        }
    }

    pub fn level(&self) -> GfxLevel {
        self.level
    }

    pub fn dwords(&self) -> &[u32] {
        &self.dw
    }

    pub fn into_dwords(self) -> Vec<u32> {
        self.dw
    }

    /// Length in dwords.
    pub fn len(&self) -> usize {
        self.dw.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dw.is_empty()
    }

    /// Empties the buffer, keeping its allocation (for re-recording an IB each frame).
    pub fn clear(&mut self) {
        self.dw.clear();
    }

    /// Appends dwords as they are, for packets this type has no method for.
    pub fn raw(&mut self, dwords: &[u32]) -> &mut Self {
        self.dw.extend_from_slice(dwords);
        self
    }

    /// Any type-3 packet: header and `body` (1..=0x3fff dwords).
    pub fn packet(&mut self, opcode: Opcode, body: &[u32]) -> Result<&mut Self> {
        self.packet_pred(opcode, body, false)
    }

    /// Like [`CmdBuf::packet`], with the header's predicate bit.
    pub fn packet_pred(
        &mut self,
        opcode: Opcode,
        body: &[u32],
        predicate: bool,
    ) -> Result<&mut Self> {
        if body.is_empty() || body.len() > MAX_BODY_DWORDS {
            return Err(EncodeError::BodySize {
                opcode,
                dwords: body.len(),
            });
        }
        self.dw.push(pkt3(opcode, body.len(), predicate));
        self.dw.extend_from_slice(body);
        Ok(self)
    }

    fn packet_array<const N: usize>(&mut self, opcode: Opcode, body: [u32; N]) -> &mut Self {
        const { assert!(N >= 1 && N <= MAX_BODY_DWORDS) };
        self.dw.push(pkt3(opcode, N, false));
        self.dw.extend_from_slice(&body);
        self
    }

    /// A NOP carrying `body` (ignored by the CP; tools use it for markers). An empty body gives
    /// the one-dword NOP.
    pub fn nop(&mut self, body: &[u32]) -> Result<&mut Self> {
        if body.is_empty() {
            return Ok(self.nop_one_dword());
        }
        self.packet(Opcode::NOP, body)
    }

    /// The one-dword type-3 NOP 0xffff1000 (count 0x3fff, which the CP treats as no body).
    pub fn nop_one_dword(&mut self) -> &mut Self {
        self.dw.push(NOP_ONE_DWORD);
        self
    }

    fn check_level(&self, w: &RegValue) -> Result {
        if w.level != self.level {
            return Err(EncodeError::LevelMismatch {
                reg: w.reg(),
                level: self.level,
                value_level: w.level,
            });
        }
        Ok(())
    }

    /// Register writes, in the order given: runs of consecutive registers of one space share one
    /// SET_CONTEXT_REG / SET_SH_REG / SET_UCONFIG_REG / SET_CONFIG_REG packet chosen from the
    /// address; registers the level wants written with an index ([`set_reg_form`]) get a packet
    /// of their own. Every value must have been composed for this buffer's level.
    pub fn set_regs(&mut self, writes: &[RegValue]) -> Result<&mut Self> {
        for w in writes {
            self.check_level(w)?;
        }
        let level = self.level;
        emit_set_reg_runs(&mut self.dw, writes, |w| set_reg_form(level, w.reg()));
        Ok(self)
    }

    /// One register write (see [`CmdBuf::set_regs`]).
    pub fn set_reg(&mut self, write: RegValue) -> Result<&mut Self> {
        self.set_regs(std::slice::from_ref(&write))
    }

    /// One register write of a whole value, looked up on this buffer's level.
    pub fn set_reg_value(&mut self, reg: Reg, value: u32) -> Result<&mut Self> {
        let w = RegValue::with_value(self.level, reg, value)?;
        self.set_reg(w)
    }

    /// One register write composed from fields (each checked against the level's layout).
    pub fn set_reg_fields(&mut self, reg: Reg, fields: &[(Field, u32)]) -> Result<&mut Self> {
        let mut w = RegValue::new(self.level, reg)?;
        for &(f, v) in fields {
            w.set(f, v)?;
        }
        self.set_reg(w)
    }

    fn set_indexed(
        &mut self,
        opcode: Opcode,
        space: RegSpace,
        writes: &[RegValue],
        index: u32,
    ) -> Result<&mut Self> {
        if index > 0xf {
            return Err(EncodeError::IndexTooWide { index });
        }
        for w in writes {
            self.check_level(w)?;
            if w.desc.space() != Some(space) {
                return Err(EncodeError::WrongSpace {
                    reg: w.reg(),
                    space: w.desc.space().map_or("no", RegSpace::name),
                    opcode,
                    expected: space.name(),
                });
            }
        }
        // Consecutive runs, each in its own indexed packet.
        let mut i = 0;
        while i < writes.len() {
            let first = writes[i].desc.address;
            let mut n = 1;
            while i + n < writes.len()
                && n < MAX_BODY_DWORDS - 1
                && writes[i + n].desc.address == first + 4 * n as u32
            {
                n += 1;
            }
            self.dw.push(pkt3(opcode, n + 1, false));
            self.dw
                .push(((first - space.start()) / 4) | (index << SET_REG_INDEX_SHIFT));
            self.dw.extend(writes[i..i + n].iter().map(|w| w.value));
            i += n;
        }
        Ok(self)
    }

    /// SET_SH_REG_INDEX with an explicit index (bits 31:28 of the offset dword); [`set_regs`]
    /// already uses it where the level needs it.
    ///
    /// [`set_regs`]: CmdBuf::set_regs
    pub fn set_sh_reg_index(&mut self, writes: &[RegValue], index: u32) -> Result<&mut Self> {
        self.set_indexed(Opcode::SET_SH_REG_INDEX, RegSpace::Sh, writes, index)
    }

    /// SET_UCONFIG_REG_INDEX with an explicit index (e.g. 1 for VGT_PRIMITIVE_TYPE, as Mesa
    /// sends it on GFX9+ microcode that supports it).
    pub fn set_uconfig_reg_index(&mut self, writes: &[RegValue], index: u32) -> Result<&mut Self> {
        self.set_indexed(
            Opcode::SET_UCONFIG_REG_INDEX,
            RegSpace::Uconfig,
            writes,
            index,
        )
    }

    /// CONTEXT_CONTROL: which register state the CP loads and shadows.
    pub fn context_control(
        &mut self,
        load: ContextControlLoad,
        shadow: ContextControlShadow,
    ) -> Result<&mut Self> {
        let body = [load.encode()?, shadow.encode()?];
        Ok(self.packet_array(Opcode::CONTEXT_CONTROL, body))
    }

    /// CLEAR_STATE: reset context registers to the clear-state defaults.
    pub fn clear_state(&mut self) -> &mut Self {
        self.packet_array(Opcode::CLEAR_STATE, [0])
    }

    /// WRITE_DATA: `data` to `address` (a byte address in memory, or a register dword offset
    /// when `control.dst_sel` is 0).
    pub fn write_data(
        &mut self,
        control: WriteDataControl,
        address: u64,
        data: &[u32],
    ) -> Result<&mut Self> {
        if data.is_empty() || data.len() + 3 > MAX_BODY_DWORDS {
            return Err(EncodeError::BodySize {
                opcode: Opcode::WRITE_DATA,
                dwords: data.len() + 3,
            });
        }
        if control.dst_sel == WriteDataControl::DST_SEL_MEMORY && !address.is_multiple_of(4) {
            return Err(EncodeError::Misaligned {
                what: "WRITE_DATA",
                address,
                align: 4,
            });
        }
        let c = control.encode()?;
        self.dw
            .push(pkt3(Opcode::WRITE_DATA, data.len() + 3, false));
        self.dw
            .extend_from_slice(&[c, address as u32, (address >> 32) as u32]);
        self.dw.extend_from_slice(data);
        Ok(self)
    }

    /// EVENT_WRITE of an event that needs no address, with its EVENT_INDEX. End-of-pipe and
    /// end-of-shader events must go through [`CmdBuf::release_mem`], sampling events through
    /// [`CmdBuf::event_write_sample`].
    pub fn event_write(&mut self, event: EventType) -> Result<&mut Self> {
        match event.kind() {
            EventKind::Plain | EventKind::PartialFlush => {}
            EventKind::Sample(_) => return Err(wrong_packet(event, "EVENT_WRITE with an address")),
            EventKind::EndOfPipe | EventKind::EndOfShader => {
                return Err(wrong_packet(event, "RELEASE_MEM"))
            }
        }
        let dw1 = EventWriteDw1 {
            event_type: event as u32,
            event_index: event.event_index(),
        }
        .encode()?;
        Ok(self.packet_array(Opcode::EVENT_WRITE, [dw1]))
    }

    /// EVENT_WRITE of a sampling event (SAMPLE_PIPELINESTAT, SAMPLE_STREAMOUTSTATS,
    /// PIXEL_PIPE_STAT_*) that writes its results at the 8-byte aligned `address`.
    pub fn event_write_sample(&mut self, event: EventType, address: u64) -> Result<&mut Self> {
        if !matches!(event.kind(), EventKind::Sample(_)) {
            return Err(EncodeError::WrongEventPacket {
                event: event.name(),
                packet: "EVENT_WRITE without an address",
                used: "EVENT_WRITE with an address",
            });
        }
        if !address.is_multiple_of(8) {
            return Err(EncodeError::Misaligned {
                what: "EVENT_WRITE",
                address,
                align: 8,
            });
        }
        let dw1 = EventWriteDw1 {
            event_type: event as u32,
            event_index: event.event_index(),
        }
        .encode()?;
        Ok(self.packet_array(
            Opcode::EVENT_WRITE,
            [dw1, address as u32, (address >> 32) as u32],
        ))
    }

    /// RELEASE_MEM (7-dword body on GFX9–GFX11): event, cache actions in the level's layout,
    /// selector, address, data low, data high, and a reserved zero.
    pub fn release_mem(&mut self, rm: &ReleaseMem) -> Result<&mut Self> {
        let op = rm.op.encode_for(self.level)?;
        let sel = rm.sel.encode()?;
        let align = if rm.sel.data_sel == ReleaseMemSel::DATA_SEL_VALUE_32 {
            4
        } else {
            8
        };
        if rm.sel.data_sel != ReleaseMemSel::DATA_SEL_DISCARD && !rm.address.is_multiple_of(align) {
            return Err(EncodeError::Misaligned {
                what: "RELEASE_MEM",
                address: rm.address,
                align,
            });
        }
        Ok(self.packet_array(
            Opcode::RELEASE_MEM,
            [
                op,
                sel,
                rm.address as u32,
                (rm.address >> 32) as u32,
                rm.data as u32,
                (rm.data >> 32) as u32,
                0,
            ],
        ))
    }

    /// ACQUIRE_MEM on GFX10 and later, over the whole address space: CP_COHER_CNTL 0, size
    /// 0xffffffff/0xffffff, base 0, poll interval 10, then `gcr` (as Mesa's gfx10 cache flush).
    pub fn acquire_mem(&mut self, gcr: GcrCntl) -> Result<&mut Self> {
        if self.level == GfxLevel::Gfx9 {
            return Err(EncodeError::WrongLayout {
                what: "ACQUIRE_MEM with GCR_CNTL",
                layout_level: "GFX10+",
                level: self.level,
            });
        }
        let g = gcr.encode()?;
        Ok(self.packet_array(
            Opcode::ACQUIRE_MEM,
            [0, 0xffff_ffff, 0x00ff_ffff, 0, 0, 0x0000_000a, g],
        ))
    }

    /// ACQUIRE_MEM on GFX9, over the whole address space: `coher_cntl` (a CP_COHER_CNTL value
    /// naming the caches), size 0xffffffff/0xffffff, base 0, poll interval 10 (as Mesa's gfx9
    /// cache flush).
    pub fn acquire_mem_gfx9(&mut self, coher_cntl: RegValue) -> Result<&mut Self> {
        if self.level != GfxLevel::Gfx9 {
            return Err(EncodeError::WrongLayout {
                what: "ACQUIRE_MEM with CP_COHER_CNTL",
                layout_level: "GFX9",
                level: self.level,
            });
        }
        self.check_level(&coher_cntl)?;
        if coher_cntl.reg() != Reg::CP_COHER_CNTL {
            return Err(EncodeError::WrongLayout {
                what: "ACQUIRE_MEM dword 1 (must be CP_COHER_CNTL)",
                layout_level: coher_cntl.reg().name(),
                level: self.level,
            });
        }
        Ok(self.packet_array(
            Opcode::ACQUIRE_MEM,
            [
                coher_cntl.value,
                0xffff_ffff,
                0x00ff_ffff,
                0,
                0,
                0x0000_000a,
            ],
        ))
    }

    /// INDIRECT_BUFFER: call the IB of `size_dwords` dwords at the 4-byte aligned `address`
    /// (IB_CONTROL.VALID set from GFX10 on, where the CP requires it).
    pub fn indirect_buffer(&mut self, address: u64, size_dwords: u32) -> Result<&mut Self> {
        self.indirect_buffer_with(
            address,
            IbControl {
                ib_size: size_dwords,
                valid: (self.level >= GfxLevel::Gfx10) as u32,
                ..Default::default()
            },
        )
    }

    /// INDIRECT_BUFFER with an explicit IB_CONTROL (e.g. CHAIN).
    pub fn indirect_buffer_with(&mut self, address: u64, control: IbControl) -> Result<&mut Self> {
        if !address.is_multiple_of(4) {
            return Err(EncodeError::Misaligned {
                what: "INDIRECT_BUFFER",
                address,
                align: 4,
            });
        }
        let c = control.encode()?;
        Ok(self.packet_array(
            Opcode::INDIRECT_BUFFER,
            [address as u32, (address >> 32) as u32, c],
        ))
    }

    /// DRAW_INDEX_AUTO of `index_count` auto-generated indices; VGT_DRAW_INITIATOR
    /// SOURCE_SELECT = DI_SRC_SEL_AUTO_INDEX (2), as libdrm's draw test.
    pub fn draw_index_auto(&mut self, index_count: u32) -> Result<&mut Self> {
        let mut init = RegValue::new(self.level, Reg::VGT_DRAW_INITIATOR)?;
        init.set(Field::SOURCE_SELECT, 2)?;
        self.draw_index_auto_with(index_count, init)
    }

    /// DRAW_INDEX_AUTO with an explicit VGT_DRAW_INITIATOR.
    pub fn draw_index_auto_with(
        &mut self,
        index_count: u32,
        initiator: RegValue,
    ) -> Result<&mut Self> {
        self.check_level(&initiator)?;
        if initiator.reg() != Reg::VGT_DRAW_INITIATOR {
            return Err(EncodeError::WrongLayout {
                what: "DRAW_INDEX_AUTO dword 2 (must be VGT_DRAW_INITIATOR)",
                layout_level: initiator.reg().name(),
                level: self.level,
            });
        }
        Ok(self.packet_array(Opcode::DRAW_INDEX_AUTO, [index_count, initiator.value]))
    }

    /// NUM_INSTANCES (sets VGT_NUM_INSTANCES).
    pub fn num_instances(&mut self, instances: u32) -> &mut Self {
        self.packet_array(Opcode::NUM_INSTANCES, [instances])
    }

    /// INDEX_TYPE packet (sets VGT_DMA_INDEX_TYPE: INDEX_TYPE 0 = 16-bit, 1 = 32-bit, 2 =
    /// 8-bit). On GFX9+ drivers usually write VGT_INDEX_TYPE with [`CmdBuf::set_regs`] instead.
    pub fn index_type(&mut self, index_type: u32) -> Result<&mut Self> {
        let mut v = RegValue::new(self.level, Reg::VGT_DMA_INDEX_TYPE)?;
        v.set(Field::INDEX_TYPE, index_type)?;
        Ok(self.packet_array(Opcode::INDEX_TYPE, [v.value]))
    }

    /// Pads to a multiple of `alignment` dwords with a single NOP: the one-dword NOP when one
    /// dword is missing, else a NOP whose zero body fills the gap. Alignment 0 or 1 pads nothing.
    pub fn pad_to(&mut self, alignment: usize) -> &mut Self {
        if alignment <= 1 {
            return self;
        }
        let mut missing = (alignment - self.dw.len() % alignment) % alignment;
        // One NOP unless the gap exceeds one packet's body (alignments above 16K dwords).
        while missing > MAX_BODY_DWORDS + 1 {
            self.dw.push(pkt3(Opcode::NOP, MAX_BODY_DWORDS, false));
            self.dw.resize(self.dw.len() + MAX_BODY_DWORDS, 0);
            missing -= MAX_BODY_DWORDS + 1;
        }
        match missing {
            0 => {}
            1 => self.dw.push(NOP_ONE_DWORD),
            n => {
                self.dw.push(pkt3(Opcode::NOP, n - 1, false));
                self.dw.resize(self.dw.len() + n - 1, 0);
            }
        }
        self
    }

    /// Pads to the 8-dword multiple the GFX ring fetches in.
    pub fn pad(&mut self) -> &mut Self {
        self.pad_to(8)
    }
}

fn wrong_packet(event: EventType, packet: &'static str) -> EncodeError {
    EncodeError::WrongEventPacket {
        event: event.name(),
        packet,
        used: "EVENT_WRITE",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `set_regs` relies on it: every register of the model is PM4-addressable.
    #[test]
    fn every_register_of_every_level_lies_in_a_pm4_space() {
        for level in GfxLevel::ALL {
            for r in level.registers() {
                assert!(
                    r.space().is_some(),
                    "{level} {} at {:#x}",
                    r.name(),
                    r.address
                );
            }
        }
    }

    #[test]
    fn padding_uses_one_nop_of_the_right_size() {
        for len in 0..40usize {
            for align in [1usize, 2, 4, 8, 16] {
                let mut cb = CmdBuf::new(GfxLevel::Gfx9);
                cb.raw(&vec![0xc000_1000; len]);
                cb.pad_to(align);
                let d = cb.dwords();
                assert_eq!(d.len() % align, 0);
                let added = d.len() - len;
                assert!(added < align.max(1));
                match added {
                    0 => {}
                    1 => assert_eq!(d[len], NOP_ONE_DWORD),
                    n => {
                        assert_eq!(d[len], pkt3(Opcode::NOP, n - 1, false));
                        assert!(d[len + 1..].iter().all(|&x| x == 0));
                    }
                }
            }
        }
    }

    #[test]
    fn release_mem_layout_must_match_the_level() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx11);
        let rm = ReleaseMem::eop_fence(GfxLevel::Gfx10, 0x1000, 1);
        assert!(matches!(
            cb.release_mem(&rm),
            Err(EncodeError::WrongLayout { .. })
        ));
        assert!(cb.is_empty());
        let rm = ReleaseMem::eop_fence(GfxLevel::Gfx11, 0x1000, 7);
        cb.release_mem(&rm).unwrap();
        // BOTTOM_OF_PIPE_TS (40) with EVENT_INDEX 5; INT_SEL 3, DATA_SEL 1.
        assert_eq!(
            cb.dwords(),
            &[
                0xc006_4900,
                40 | 5 << 8,
                3 << 24 | 1 << 29,
                0x1000,
                0,
                7,
                0,
                0
            ]
        );
    }

    /// The amdgpu kernel's GFX9 fence: CACHE_FLUSH_AND_INV_TS_EVENT, index 5, with
    /// TCL1|TC|TC_WB|TC_MD actions (gfx_v9_0_ring_emit_fence).
    #[test]
    fn gfx9_release_mem_matches_the_kernel_fence() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx9);
        let op = ReleaseMemOpGfx9 {
            event_type: EventType::CACHE_FLUSH_AND_INV_TS_EVENT as u32,
            event_index: 5,
            tcl1_action_en: 1,
            tc_action_en: 1,
            tc_wb_action_en: 1,
            tc_md_action_en: 1,
            ..Default::default()
        };
        cb.release_mem(&ReleaseMem {
            op: ReleaseMemOp::Gfx9(op),
            sel: ReleaseMemSel {
                data_sel: 1,
                int_sel: 2,
                dst_sel: 0,
            },
            address: 0x1_0000_0008,
            data: 5,
        })
        .unwrap();
        let expect_op = (1 << 16) | (1 << 17) | (1 << 15) | (1 << 21) | 20 | (5 << 8);
        assert_eq!(cb.dwords()[1], expect_op);
        assert_eq!(cb.dwords()[2], (1 << 29) | (2 << 24));
        assert_eq!(&cb.dwords()[3..5], &[8, 1]);
    }

    #[test]
    fn acquire_mem_layouts() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx9);
        assert!(cb.acquire_mem(GcrCntl::default()).is_err());
        let mut cc = RegValue::new(GfxLevel::Gfx9, Reg::CP_COHER_CNTL).unwrap();
        cc.set(Field::TC_ACTION_ENA, 1).unwrap();
        cb.acquire_mem_gfx9(cc).unwrap();
        assert_eq!(cb.len(), 7);
        assert_eq!(cb.dwords()[0], pkt3(Opcode::ACQUIRE_MEM, 6, false));
        assert_eq!(cb.dwords()[1], 1 << 23);

        let mut cb = CmdBuf::new(GfxLevel::Gfx10_3);
        assert!(cb.acquire_mem_gfx9(cc).is_err());
        let gcr = GcrCntl {
            gl2_inv: 1,
            gl2_wb: 1,
            glv_inv: 1,
            gl1_inv: 1,
            ..Default::default()
        };
        cb.acquire_mem(gcr).unwrap();
        assert_eq!(cb.len(), 8);
        assert_eq!(cb.dwords()[7], (1 << 14) | (1 << 15) | (1 << 8) | (1 << 9));
        assert!(GcrCntl {
            seq: 4,
            ..Default::default()
        }
        .encode()
        .is_err());
    }

    #[test]
    fn event_write_picks_the_index_and_refuses_timestamp_events() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx10);
        cb.event_write(EventType::PS_PARTIAL_FLUSH).unwrap();
        assert_eq!(cb.dwords(), &[0xc000_4600, 16 | 4 << 8]);
        assert!(cb.event_write(EventType::BOTTOM_OF_PIPE_TS).is_err());
        assert!(cb.event_write(EventType::SAMPLE_PIPELINESTAT).is_err());
        cb.event_write_sample(EventType::SAMPLE_PIPELINESTAT, 0x100)
            .unwrap();
        assert_eq!(&cb.dwords()[2..], &[0xc002_4600, 30 | 2 << 8, 0x100, 0]);
    }

    #[test]
    fn indirect_buffer_sets_valid_from_gfx10() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx9);
        cb.indirect_buffer(0x1234_5678_9abc, 64).unwrap();
        assert_eq!(cb.dwords(), &[0xc002_3f00, 0x5678_9abc, 0x1234, 64]);
        let mut cb = CmdBuf::new(GfxLevel::Gfx11);
        cb.indirect_buffer(0x1000, 64).unwrap();
        assert_eq!(cb.dwords()[3], 64 | 1 << 23);
        assert!(cb.indirect_buffer(0x1002, 1).is_err());
        assert!(cb.indirect_buffer(0x1000, 1 << 20).is_err());
    }

    #[test]
    fn values_of_another_level_are_refused() {
        let mut cb = CmdBuf::new(GfxLevel::Gfx10);
        let v = RegValue::new(GfxLevel::Gfx9, Reg::DB_SHADER_CONTROL).unwrap();
        assert!(matches!(
            cb.set_regs(&[v]),
            Err(EncodeError::LevelMismatch { .. })
        ));
        assert!(cb.is_empty());
        // A field GFX11 lacks is a typed error through the convenience setter too.
        let mut cb = CmdBuf::new(GfxLevel::Gfx11);
        assert!(cb
            .set_reg_fields(
                Reg::DB_SHADER_CONTROL,
                &[(Field::POPS_OVERLAP_NUM_SAMPLES, 1)]
            )
            .is_err());
        assert!(cb.set_reg_value(Reg::DB_DFSM_CONTROL, 0).is_err());
    }

    #[test]
    fn indexed_registers_get_their_own_packet() {
        let l = GfxLevel::Gfx11;
        let w = |r, v| RegValue::with_value(l, r, v).unwrap();
        let mut cb = CmdBuf::new(l);
        cb.set_regs(&[
            w(Reg::SPI_SHADER_PGM_RSRC3_PS, 0xffff),
            w(Reg::VGT_INDEX_TYPE, 0),
        ])
        .unwrap();
        // gfx11_draw_ib.decoded.txt: "c0019b00 SET_SH_REG_INDEX: 30000007" and
        // "c0017a00 SET_UCONFIG_REG_INDEX: 20000243".
        assert_eq!(
            cb.dwords(),
            &[
                0xc001_9b00,
                0x3000_0007,
                0xffff,
                0xc001_7a00,
                0x2000_0243,
                0
            ]
        );
        let mut cb = CmdBuf::new(GfxLevel::Gfx9);
        cb.set_reg_value(Reg::VGT_INDEX_TYPE, 0).unwrap();
        // gfx9_draw_ib.decoded.txt: "c0017900 SET_UCONFIG_REG: 20000243".
        assert_eq!(cb.dwords(), &[0xc001_7900, 0x2000_0243, 0]);
        assert!(cb
            .set_sh_reg_index(&[RegValue::new(GfxLevel::Gfx9, Reg::DB_Z_INFO).unwrap()], 3)
            .is_err());
    }
}
