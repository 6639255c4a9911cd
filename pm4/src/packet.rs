//! PM4 type-3 packet basics: the header, the opcode table, and the register-write packets.
//!
//! Header layout (shared/reference/pm4.json): type in bits 31:30 (3), count in bits 29:16 (body
//! dwords minus one), opcode in bits 15:8, shader type in bit 1, predicate in bit 0.

use crate::regs::{RegSpace, RegValue};

macro_rules! opcodes {
    ($( $variant:ident = $value:literal, )*) => {
        /// PM4 type-3 opcodes, with the values of shared/reference/pm4.json.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Opcode { $( $variant = $value, )* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            pub const fn name(self) -> &'static str {
                match self { $( Opcode::$variant => stringify!($variant), )* }
            }

            pub const fn from_u8(v: u8) -> Option<Opcode> {
                match v { $( $value => Some(Opcode::$variant), )* _ => None }
            }
        }
    };
}

opcodes! {
    NOP = 0x10,
    SET_BASE = 0x11,
    CLEAR_STATE = 0x12,
    INDEX_BUFFER_SIZE = 0x13,
    DISPATCH_DIRECT = 0x15,
    DISPATCH_INDIRECT = 0x16,
    ATOMIC_MEM = 0x1E,
    OCCLUSION_QUERY = 0x1F,
    SET_PREDICATION = 0x20,
    COND_EXEC = 0x22,
    PRED_EXEC = 0x23,
    DRAW_INDIRECT = 0x24,
    DRAW_INDEX_INDIRECT = 0x25,
    INDEX_BASE = 0x26,
    DRAW_INDEX_2 = 0x27,
    CONTEXT_CONTROL = 0x28,
    INDEX_TYPE = 0x2A,
    DRAW_INDIRECT_MULTI = 0x2C,
    DRAW_INDEX_AUTO = 0x2D,
    DRAW_INDEX_IMMD = 0x2E,
    NUM_INSTANCES = 0x2F,
    DRAW_INDEX_MULTI_AUTO = 0x30,
    INDIRECT_BUFFER_SI = 0x32,
    INDIRECT_BUFFER_CONST = 0x33,
    STRMOUT_BUFFER_UPDATE = 0x34,
    DRAW_INDEX_OFFSET_2 = 0x35,
    WRITE_DATA = 0x37,
    DRAW_INDEX_INDIRECT_MULTI = 0x38,
    MEM_SEMAPHORE = 0x39,
    MPEG_INDEX = 0x3A,
    WAIT_REG_MEM = 0x3C,
    MEM_WRITE = 0x3D,
    INDIRECT_BUFFER = 0x3F,
    COPY_DATA = 0x40,
    CP_DMA = 0x41,
    PFP_SYNC_ME = 0x42,
    SURFACE_SYNC = 0x43,
    ME_INITIALIZE = 0x44,
    COND_WRITE = 0x45,
    EVENT_WRITE = 0x46,
    EVENT_WRITE_EOP = 0x47,
    EVENT_WRITE_EOS = 0x48,
    RELEASE_MEM = 0x49,
    DISPATCH_MESH_INDIRECT_MULTI = 0x4C,
    DISPATCH_TASKMESH_GFX = 0x4D,
    DISPATCH_MESH_DIRECT = 0x4E,
    DMA_DATA = 0x50,
    CONTEXT_REG_RMW = 0x51,
    ONE_REG_WRITE = 0x57,
    ACQUIRE_MEM = 0x58,
    REWIND = 0x59,
    PRIME_UTCL2 = 0x5D,
    LOAD_UCONFIG_REG = 0x5E,
    LOAD_SH_REG = 0x5F,
    LOAD_CONTEXT_REG = 0x61,
    LOAD_SH_REG_INDEX = 0x63,
    SET_CONFIG_REG = 0x68,
    SET_CONTEXT_REG = 0x69,
    SET_SH_REG = 0x76,
    SET_SH_REG_OFFSET = 0x77,
    SET_UCONFIG_REG = 0x79,
    SET_UCONFIG_REG_INDEX = 0x7A,
    LOAD_CONST_RAM = 0x80,
    WRITE_CONST_RAM = 0x81,
    DUMP_CONST_RAM = 0x83,
    INCREMENT_CE_COUNTER = 0x84,
    INCREMENT_DE_COUNTER = 0x85,
    WAIT_ON_CE_COUNTER = 0x86,
    HDP_FLUSH = 0x95,
    SET_SH_REG_INDEX = 0x9B,
    LOAD_CONTEXT_REG_INDEX = 0x9F,
    DISPATCH_DIRECT_INTERLEAVED = 0xA7,
    DISPATCH_INDIRECT_INTERLEAVED = 0xA8,
    DISPATCH_TASK_STATE_INIT = 0xA9,
    DISPATCH_TASKMESH_DIRECT_ACE = 0xAA,
    DISPATCH_TASKMESH_INDIRECT_MULTI_ACE = 0xAD,
    EVENT_WRITE_ZPASS = 0xB1,
    SET_CONTEXT_REG_PAIRS = 0xB8,
    SET_CONTEXT_REG_PAIRS_PACKED = 0xB9,
    SET_SH_REG_PAIRS = 0xBA,
    SET_SH_REG_PAIRS_PACKED = 0xBB,
    SET_SH_REG_PAIRS_PACKED_N = 0xBD,
    SET_UCONFIG_REG_PAIRS = 0xBE,
    PROTECTED_FENCE_SIGNAL = 0xD0,
    FENCE_WAIT_MULTI = 0xD1,
}

/// The one-dword type-3 NOP (count 0x3fff) used to pad indirect buffers.
pub const NOP_ONE_DWORD: u32 = 0xffff_1000;

/// Largest body a type-3 packet can carry (count is 14 bits, body = count + 1).
pub const MAX_BODY_DWORDS: usize = 0x3fff;

/// Encodes a type-3 header for a packet whose body has `body_dwords` dwords (at least one).
pub const fn pkt3(op: Opcode, body_dwords: usize, predicate: bool) -> u32 {
    debug_assert!(body_dwords >= 1 && body_dwords <= MAX_BODY_DWORDS);
    (3u32 << 30)
        | (((body_dwords as u32 - 1) & 0x3fff) << 16)
        | ((op as u32) << 8)
        | predicate as u32
}

/// The fields of a type-3 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub packet_type: u32,
    /// Body dwords minus one.
    pub count: u32,
    pub opcode: u8,
    pub shader_type: bool,
    pub reset_filter_cam: bool,
    pub predicate: bool,
}

impl Header {
    pub const fn parse(dw: u32) -> Header {
        Header {
            packet_type: dw >> 30,
            count: (dw >> 16) & 0x3fff,
            opcode: ((dw >> 8) & 0xff) as u8,
            shader_type: dw & 2 != 0,
            reset_filter_cam: dw & 4 != 0,
            predicate: dw & 1 != 0,
        }
    }
}

impl RegSpace {
    /// The SET_*_REG packet that writes this space.
    pub const fn set_opcode(self) -> Opcode {
        match self {
            RegSpace::Config => Opcode::SET_CONFIG_REG,
            RegSpace::Sh => Opcode::SET_SH_REG,
            RegSpace::Context => Opcode::SET_CONTEXT_REG,
            RegSpace::Uconfig => Opcode::SET_UCONFIG_REG,
        }
    }
}

/// Emits register writes as SET_*_REG packets, one packet per run of consecutive registers of one
/// space, in the order given. The packet for each write is chosen from its register's address.
/// This is level-blind: [`crate::CmdBuf::set_regs`] also applies the SET_*_REG_INDEX rules of a
/// level.
pub fn emit_set_regs(out: &mut Vec<u32>, writes: &[RegValue]) {
    emit_set_reg_runs(out, writes, |_| None);
}

/// How one register must be written: by which opcode, and with which index in bits 31:28 of the
/// offset dword (0 when none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetRegForm {
    pub opcode: Opcode,
    /// Written to bits 31:28 of the offset dword.
    pub index: u32,
}

/// Offset dword bits 31:28: the index of SET_*_REG_INDEX (and of GFX9's indexed
/// SET_UCONFIG_REG); the register offset is the bits below.
pub const SET_REG_INDEX_SHIFT: u32 = 28;

/// The run-grouping core of [`emit_set_regs`]. `form` returns `Some` for a register that must be
/// written in a packet of its own with a particular opcode and index.
pub(crate) fn emit_set_reg_runs(
    out: &mut Vec<u32>,
    writes: &[RegValue],
    form: impl Fn(&RegValue) -> Option<SetRegForm>,
) {
    let mut i = 0;
    while i < writes.len() {
        let first = &writes[i];
        let space = first
            .desc
            .space()
            .expect("the register model only holds PM4-addressable registers");
        let offset = (first.desc.address - space.start()) / 4;
        if let Some(f) = form(first) {
            out.push(pkt3(f.opcode, 2, false));
            out.push(offset | (f.index << SET_REG_INDEX_SHIFT));
            out.push(first.value);
            i += 1;
            continue;
        }
        let mut n = 1;
        while i + n < writes.len()
            && n < MAX_BODY_DWORDS - 1
            && writes[i + n].desc.address == first.desc.address + 4 * n as u32
            && writes[i + n].desc.space() == Some(space)
            && form(&writes[i + n]).is_none()
        {
            n += 1;
        }
        out.push(pkt3(space.set_opcode(), n + 1, false));
        out.push(offset);
        out.extend(writes[i..i + n].iter().map(|w| w.value));
        i += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::GfxLevel;
    use crate::regs::Reg;

    #[test]
    fn header_matches_the_reference_streams() {
        // gfx9_draw_ib.decoded.txt: "c0012800 CONTEXT_CONTROL" (2-dword body) and
        // "c0026900 SET_CONTEXT_REG" (3-dword body).
        assert_eq!(pkt3(Opcode::CONTEXT_CONTROL, 2, false), 0xc001_2800);
        assert_eq!(pkt3(Opcode::SET_CONTEXT_REG, 3, false), 0xc002_6900);
        let h = Header::parse(0xc002_6900);
        assert_eq!((h.packet_type, h.count, h.opcode), (3, 2, 0x69));
    }

    #[test]
    fn consecutive_registers_share_one_packet_and_spaces_pick_the_opcode() {
        let l = GfxLevel::Gfx9;
        let w = |r| RegValue::with_value(l, r, 7).unwrap();
        let mut out = Vec::new();
        // PA_SC_WINDOW_SCISSOR_TL/BR are consecutive context registers (0x28204, 0x28208).
        emit_set_regs(
            &mut out,
            &[
                w(Reg::PA_SC_WINDOW_SCISSOR_TL),
                w(Reg::PA_SC_WINDOW_SCISSOR_BR),
                w(Reg::SPI_SHADER_PGM_RSRC2_PS),
            ],
        );
        assert_eq!(
            out,
            vec![
                0xc002_6900,
                0x81,
                7,
                7,
                0xc001_7600,
                (0xB02C - 0xB000) / 4,
                7
            ]
        );
    }
}
