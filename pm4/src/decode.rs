//! PM4 decoding: dwords → packets → register writes with field values, for one [`GfxLevel`].
//!
//! The decoder never panics. Malformed input stops decoding with a [`DecodeError`] carrying the
//! dword index of the offending packet header; the packets decoded before it are kept in
//! [`Decoded::packets`], so a tool can still show them.
//!
//! Decisions, following Mesa's IB parser (`ac_parse_ib`) where it has one:
//! - The one-dword NOP (type 3, opcode NOP, count 0x3fff, e.g. 0xffff1000) is one dword.
//! - Only type-3 packets are accepted. Type-0/1 packets (register writes of old rings) and the
//!   type-2 filler 0x80000000 (GFX6-era padding; GFX9+ drivers pad with 0xffff1000) are errors,
//!   so a stream that is not GFX9+ PM4 is not silently half-decoded.
//! - SET_*_REG: the offset dword holds the register offset (dwords from the start of the
//!   packet's space) in bits 27:0 and an index in bits 31:28 (SET_*_REG_INDEX, and GFX9's indexed
//!   SET_UCONFIG_REG). Every written register must fall inside the space, else
//!   [`DecodeErrorKind::RegisterOutOfSpace`].
//! - SET_*_REG_PAIRS (GFX11+; UCONFIG on GFX12): the body is (offset, value) pairs, each offset
//!   like a SET_*_REG offset dword. SET_*_REG_PAIRS_PACKED and SET_SH_REG_PAIRS_PACKED_N: the
//!   first body dword holds the number of registers, then groups of three dwords — two 16-bit
//!   offsets in one dword (the first in bits 15:0), then their two values — as Mesa's IB parser
//!   (`ac_parse_set_reg_pairs_packed_packet`) reads them. A driver pads an odd count by writing
//!   one register twice, so the count may be one less than the pairs' slots. Every register must
//!   lie in the packet's space.
//! - NUM_INSTANCES writes VGT_NUM_INSTANCES, DRAW_INDEX_AUTO writes VGT_NUM_INDICES and
//!   VGT_DRAW_INITIATOR, INDEX_TYPE writes VGT_DMA_INDEX_TYPE (as Mesa's parser prints them).
//! - Other packets (SET_SH_REG_OFFSET, NOP, RELEASE_MEM, …) are delimited by their count and
//!   write no register.

use crate::chip::GfxLevel;
use crate::fields::{
    ContextControlLoad, ContextControlShadow, EventWriteDw1, GcrCntl, IbControl, PacketField,
    ReleaseMemOpGfx10, ReleaseMemOpGfx11, ReleaseMemOpGfx9, ReleaseMemSel, WriteDataControl,
};
use crate::packet::{Header, Opcode, SET_REG_INDEX_SHIFT};
use crate::regs::{Field, Reg, RegDesc, RegSpace};
use std::fmt;

/// One register write found in a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    /// Byte address.
    pub address: u32,
    /// The register at that address on the decoding level, when the model has it.
    pub desc: Option<&'static RegDesc>,
    pub value: u32,
}

impl RegWrite {
    pub fn name(&self) -> Option<&'static str> {
        self.desc.map(|d| d.name())
    }

    pub fn reg(&self) -> Option<Reg> {
        self.desc.map(|d| d.reg)
    }

    /// Every field of the register with its value, in bit order (none for unknown registers).
    pub fn fields(&self) -> impl Iterator<Item = (Field, u32)> + '_ {
        self.desc
            .into_iter()
            .flat_map(|d| d.fields.iter())
            .map(move |f| (f.field, f.extract(self.value)))
    }

    /// One field's value, when the register is known and has the field.
    pub fn field(&self, field: Field) -> Option<u32> {
        self.desc?.field(field).map(|f| f.extract(self.value))
    }
}

/// One decoded packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Dword index of the header in the stream.
    pub index: usize,
    pub opcode: Opcode,
    pub header: Header,
    /// Dwords including the header.
    pub dwords: usize,
    /// For SET_*_REG packets, the index in bits 31:28 of the offset dword.
    pub reg_index: Option<u32>,
    pub writes: Vec<RegWrite>,
}

/// Why decoding stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// A type-0, -1 or -2 packet header.
    PacketType { packet_type: u32, header: u32 },
    /// A type-3 header whose opcode is not in the opcode table.
    UnknownOpcode { opcode: u8, header: u32 },
    /// The header's count runs past the end of the stream.
    Truncated {
        opcode: Opcode,
        body_dwords: usize,
        available: usize,
    },
    /// The body is shorter than the packet's fixed fields.
    BodyTooShort {
        opcode: Opcode,
        body_dwords: usize,
        needed: usize,
    },
    /// A register-pairs packet whose body does not hold whole pairs (or, packed, whose register
    /// count does not match its groups).
    Pairs {
        opcode: Opcode,
        body_dwords: usize,
        /// The packed form's register count (body dword 0).
        registers: Option<u32>,
    },
    /// A SET_*_REG packet whose registers do not all lie in its space.
    RegisterOutOfSpace {
        opcode: Opcode,
        space: RegSpace,
        /// Offset in dwords from the start of the space (bits 27:0 of the offset dword).
        offset: u32,
        count: usize,
    },
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeErrorKind::PacketType {
                packet_type,
                header,
            } => write!(
                f,
                "type-{packet_type} packet (header {header:#010x}); only type-3 packets are \
                 decoded (GFX9+ pads with the type-3 NOP 0xffff1000)"
            ),
            DecodeErrorKind::UnknownOpcode { opcode, header } => write!(
                f,
                "unknown type-3 opcode {opcode:#04x} (header {header:#010x})"
            ),
            DecodeErrorKind::Truncated {
                opcode,
                body_dwords,
                available,
            } => write!(
                f,
                "truncated {} packet: its count says {body_dwords} body dwords but only \
                 {available} remain",
                opcode.name()
            ),
            DecodeErrorKind::BodyTooShort {
                opcode,
                body_dwords,
                needed,
            } => write!(
                f,
                "{} packet has {body_dwords} body dwords, needs at least {needed}",
                opcode.name()
            ),
            DecodeErrorKind::Pairs {
                opcode,
                body_dwords,
                registers: None,
            } => write!(
                f,
                "{} packet has {body_dwords} body dwords: not whole (offset, value) pairs",
                opcode.name()
            ),
            DecodeErrorKind::Pairs {
                opcode,
                body_dwords,
                registers: Some(n),
            } => write!(
                f,
                "{} packet says {n} registers but its {body_dwords} body dwords hold {} \
                 groups of two (count dword, then (offsets, value, value) groups)",
                opcode.name(),
                body_dwords.saturating_sub(1) / 3
            ),
            DecodeErrorKind::RegisterOutOfSpace {
                opcode,
                space,
                offset,
                count,
            } => {
                let (a, b) = space.range();
                write!(
                    f,
                    "{} writes {count} register(s) from offset {offset:#x}, outside the {} \
                     space ({a:#x}..{b:#x})",
                    opcode.name(),
                    space.name()
                )
            }
        }
    }
}

/// A malformed stream: what was wrong and the dword index of the packet's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dword {index}: {kind}")]
pub struct DecodeError {
    pub index: usize,
    pub kind: DecodeErrorKind,
}

/// The result of decoding: every packet decoded before the first error, and that error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub level: GfxLevel,
    pub packets: Vec<Packet>,
    pub error: Option<DecodeError>,
}

impl Decoded {
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// All register writes of the stream, in order.
    pub fn writes(&self) -> impl Iterator<Item = &RegWrite> + '_ {
        self.packets.iter().flat_map(|p| p.writes.iter())
    }

    /// The packets, or the error when the stream was malformed.
    pub fn into_result(self) -> Result<Vec<Packet>, DecodeError> {
        match self.error {
            None => Ok(self.packets),
            Some(e) => Err(e),
        }
    }
}

/// Mask of the register offset in a SET_*_REG offset dword (bits 27:0).
const SET_REG_OFFSET_MASK: u32 = (1 << SET_REG_INDEX_SHIFT) - 1;

fn set_space(op: Opcode) -> Option<RegSpace> {
    Some(match op {
        Opcode::SET_CONTEXT_REG => RegSpace::Context,
        Opcode::SET_SH_REG | Opcode::SET_SH_REG_INDEX => RegSpace::Sh,
        Opcode::SET_UCONFIG_REG | Opcode::SET_UCONFIG_REG_INDEX => RegSpace::Uconfig,
        Opcode::SET_CONFIG_REG => RegSpace::Config,
        _ => return None,
    })
}

/// How a register-pairs packet lays out its body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PairsLayout {
    /// (offset, value), (offset, value), …
    Plain,
    /// Register count, then (offset0 | offset1 << 16, value0, value1) groups.
    Packed,
}

fn pairs_space(op: Opcode) -> Option<(RegSpace, PairsLayout)> {
    Some(match op {
        Opcode::SET_CONTEXT_REG_PAIRS => (RegSpace::Context, PairsLayout::Plain),
        Opcode::SET_SH_REG_PAIRS => (RegSpace::Sh, PairsLayout::Plain),
        Opcode::SET_UCONFIG_REG_PAIRS => (RegSpace::Uconfig, PairsLayout::Plain),
        Opcode::SET_CONTEXT_REG_PAIRS_PACKED => (RegSpace::Context, PairsLayout::Packed),
        Opcode::SET_SH_REG_PAIRS_PACKED | Opcode::SET_SH_REG_PAIRS_PACKED_N => {
            (RegSpace::Sh, PairsLayout::Packed)
        }
        _ => return None,
    })
}

/// The (offset in dwords from the space's start, value) pairs of a register-pairs packet, in
/// the order the command processor applies them.
fn pairs(
    opcode: Opcode,
    layout: PairsLayout,
    body: &[u32],
) -> Result<Vec<(u32, u32)>, DecodeErrorKind> {
    let malformed = |registers| DecodeErrorKind::Pairs {
        opcode,
        body_dwords: body.len(),
        registers,
    };
    match layout {
        PairsLayout::Plain => {
            if body.is_empty() || !body.len().is_multiple_of(2) {
                return Err(malformed(None));
            }
            Ok(body
                .chunks_exact(2)
                .map(|p| (p[0] & SET_REG_OFFSET_MASK, p[1]))
                .collect())
        }
        PairsLayout::Packed => {
            let (&n, groups) = body.split_first().ok_or(malformed(None))?;
            let slots = groups.len() / 3 * 2;
            // Whole groups only; an odd count fills its last slot with a repeated register.
            if groups.is_empty()
                || !groups.len().is_multiple_of(3)
                || !(n as usize == slots || n as usize + 1 == slots)
            {
                return Err(malformed(Some(n)));
            }
            Ok(groups
                .chunks_exact(3)
                .flat_map(|g| [(g[0] & 0xffff, g[1]), (g[0] >> 16, g[2])])
                .collect())
        }
    }
}

/// The register writes of a register-pairs packet, each inside `space`.
fn pair_writes(
    level: GfxLevel,
    opcode: Opcode,
    space: RegSpace,
    layout: PairsLayout,
    body: &[u32],
) -> Result<Vec<RegWrite>, DecodeErrorKind> {
    let (start, end) = space.range();
    pairs(opcode, layout, body)?
        .into_iter()
        .map(|(offset, value)| {
            let address = start as u64 + 4 * offset as u64;
            if address >= end as u64 {
                return Err(DecodeErrorKind::RegisterOutOfSpace {
                    opcode,
                    space,
                    offset,
                    count: 1,
                });
            }
            // In range: address < end < 2^32.
            let address = address as u32;
            Ok(RegWrite {
                address,
                desc: level.register_at(address),
                value,
            })
        })
        .collect()
}

fn write_of(level: GfxLevel, reg: Reg, value: u32) -> Option<RegWrite> {
    level.register(reg).map(|d| RegWrite {
        address: d.address,
        desc: Some(d),
        value,
    })
}

/// Decodes a stream of dwords for `level`.
pub fn decode(level: GfxLevel, dwords: &[u32]) -> Decoded {
    let mut packets = Vec::new();
    let mut i = 0;
    let error = loop {
        if i >= dwords.len() {
            break None;
        }
        match decode_packet(level, dwords, i) {
            Ok(p) => {
                i += p.dwords;
                packets.push(p);
            }
            Err(kind) => break Some(DecodeError { index: i, kind }),
        }
    };
    Decoded {
        level,
        packets,
        error,
    }
}

fn decode_packet(level: GfxLevel, dwords: &[u32], i: usize) -> Result<Packet, DecodeErrorKind> {
    let raw = dwords[i];
    let header = Header::parse(raw);
    if header.packet_type != 3 {
        return Err(DecodeErrorKind::PacketType {
            packet_type: header.packet_type,
            header: raw,
        });
    }
    let opcode = Opcode::from_u8(header.opcode).ok_or(DecodeErrorKind::UnknownOpcode {
        opcode: header.opcode,
        header: raw,
    })?;
    let mut packet = Packet {
        index: i,
        opcode,
        header,
        dwords: 1,
        reg_index: None,
        writes: Vec::new(),
    };
    if opcode == Opcode::NOP && header.count == 0x3fff {
        return Ok(packet);
    }
    let body_dwords = header.count as usize + 1;
    let available = dwords.len() - i - 1;
    if body_dwords > available {
        return Err(DecodeErrorKind::Truncated {
            opcode,
            body_dwords,
            available,
        });
    }
    let body = &dwords[i + 1..i + 1 + body_dwords];
    packet.dwords = 1 + body_dwords;
    let need = |n: usize| {
        if body_dwords < n {
            Err(DecodeErrorKind::BodyTooShort {
                opcode,
                body_dwords,
                needed: n,
            })
        } else {
            Ok(())
        }
    };
    if let Some(space) = set_space(opcode) {
        let offset = body[0] & SET_REG_OFFSET_MASK;
        let count = body_dwords - 1;
        let (start, end) = space.range();
        let first = start as u64 + 4 * offset as u64;
        if first + 4 * count as u64 > end as u64 {
            return Err(DecodeErrorKind::RegisterOutOfSpace {
                opcode,
                space,
                offset,
                count,
            });
        }
        packet.reg_index = Some(body[0] >> SET_REG_INDEX_SHIFT);
        packet.writes = body[1..]
            .iter()
            .enumerate()
            .map(|(k, &value)| {
                // In range: first + 4 * count <= end < 2^32.
                let address = (first + 4 * k as u64) as u32;
                RegWrite {
                    address,
                    desc: level.register_at(address),
                    value,
                }
            })
            .collect();
        return Ok(packet);
    }
    if let Some((space, layout)) = pairs_space(opcode) {
        packet.writes = pair_writes(level, opcode, space, layout, body)?;
        return Ok(packet);
    }
    match opcode {
        Opcode::NUM_INSTANCES => {
            need(1)?;
            packet
                .writes
                .extend(write_of(level, Reg::VGT_NUM_INSTANCES, body[0]));
        }
        Opcode::DRAW_INDEX_AUTO => {
            need(2)?;
            packet
                .writes
                .extend(write_of(level, Reg::VGT_NUM_INDICES, body[0]));
            packet
                .writes
                .extend(write_of(level, Reg::VGT_DRAW_INITIATOR, body[1]));
        }
        Opcode::INDEX_TYPE => {
            need(1)?;
            packet
                .writes
                .extend(write_of(level, Reg::VGT_DMA_INDEX_TYPE, body[0]));
        }
        _ => {}
    }
    Ok(packet)
}

/// One body dword of a non-register packet, split into its named fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyDword {
    /// The dword's name in the packet (`GCR_CNTL`, `ADDRESS_LO`, …).
    pub name: &'static str,
    pub value: u32,
    /// Named fields with their values, in bit order (empty for plain values such as addresses).
    pub fields: Vec<(&'static str, u32)>,
}

fn packet_fields(dw: u32, fields: &'static [PacketField]) -> Vec<(&'static str, u32)> {
    fields.iter().map(|f| (f.name, f.extract(dw))).collect()
}

/// Names the body dwords of the control packets the encoder writes (CONTEXT_CONTROL,
/// EVENT_WRITE, RELEASE_MEM, ACQUIRE_MEM, WRITE_DATA, INDIRECT_BUFFER) and splits them into
/// fields with the layout of `level`; empty for other packets. Dwords past the known layout
/// are named `DATA`.
pub fn describe_body(level: GfxLevel, opcode: Opcode, body: &[u32]) -> Vec<BodyDword> {
    type Layout = (&'static str, Option<&'static [PacketField]>);
    let release_op: &'static [PacketField] = match level {
        GfxLevel::Gfx9 => ReleaseMemOpGfx9::FIELDS,
        GfxLevel::Gfx10 | GfxLevel::Gfx10_3 => ReleaseMemOpGfx10::FIELDS,
        GfxLevel::Gfx11 | GfxLevel::Gfx11_5 | GfxLevel::Gfx12 => ReleaseMemOpGfx11::FIELDS,
    };
    let layout: &[Layout] = match opcode {
        Opcode::CONTEXT_CONTROL => &[
            ("LOAD_CONTROL", Some(ContextControlLoad::FIELDS)),
            ("SHADOW_CONTROL", Some(ContextControlShadow::FIELDS)),
        ],
        Opcode::EVENT_WRITE => &[
            ("EVENT_CNTL", Some(EventWriteDw1::FIELDS)),
            ("ADDRESS_LO", None),
            ("ADDRESS_HI", None),
        ],
        Opcode::RELEASE_MEM => &[
            ("EVENT_CNTL", None),
            ("SEL", Some(ReleaseMemSel::FIELDS)),
            ("ADDRESS_LO", None),
            ("ADDRESS_HI", None),
            ("DATA_LO", None),
            ("DATA_HI", None),
            ("RESERVED", None),
        ],
        Opcode::ACQUIRE_MEM => &[
            ("CP_COHER_CNTL", None),
            ("CP_COHER_SIZE", None),
            ("CP_COHER_SIZE_HI", None),
            ("CP_COHER_BASE", None),
            ("CP_COHER_BASE_HI", None),
            ("POLL_INTERVAL", None),
            ("GCR_CNTL", Some(GcrCntl::FIELDS)),
        ],
        Opcode::WRITE_DATA => &[
            ("CONTROL", Some(WriteDataControl::FIELDS)),
            ("DST_ADDR_LO", None),
            ("DST_ADDR_HI", None),
        ],
        Opcode::INDIRECT_BUFFER => &[
            ("IB_BASE_LO", None),
            ("IB_BASE_HI", None),
            ("IB_CONTROL", Some(IbControl::FIELDS)),
        ],
        _ => return Vec::new(),
    };
    body.iter()
        .enumerate()
        .map(|(k, &value)| {
            let (name, fields) = layout.get(k).copied().unwrap_or(("DATA", None));
            let fields = match (opcode, k, fields) {
                (Opcode::RELEASE_MEM, 0, _) => packet_fields(value, release_op),
                (Opcode::ACQUIRE_MEM, 0, _) => level
                    .register(Reg::CP_COHER_CNTL)
                    .map(|d| {
                        d.fields
                            .iter()
                            .map(|f| (f.field.name(), f.extract(value)))
                            .collect()
                    })
                    .unwrap_or_default(),
                // GFX9's ACQUIRE_MEM ends before GCR_CNTL.
                (Opcode::ACQUIRE_MEM, 6, _) if level == GfxLevel::Gfx9 => Vec::new(),
                (_, _, Some(f)) => packet_fields(value, f),
                (_, _, None) => Vec::new(),
            };
            BodyDword {
                name,
                value,
                fields,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type-3 header: opcode, body dwords (the header's count is one less).
    fn pkt3(opcode: u32, body: usize) -> u32 {
        (3 << 30) | (((body as u32) - 1) << 16) | (opcode << 8)
    }

    #[test]
    fn register_pairs_packets_write_each_pair() {
        // SET_CONTEXT_REG_PAIRS (0xB8): DB_SHADER_CONTROL (0x2880c → offset 0x203) and
        // PA_SC_MODE_CNTL_1 (0x28a4c → 0x293), in Mesa's (offset, value) layout.
        let ib = [pkt3(0xb8, 4), 0x203, 0x10, 0x293, 0x7];
        let d = decode(GfxLevel::Gfx11, &ib);
        assert!(d.is_ok(), "{:?}", d.error);
        let w: Vec<_> = d.writes().map(|w| (w.name().unwrap(), w.value)).collect();
        assert_eq!(w, [("DB_SHADER_CONTROL", 0x10), ("PA_SC_MODE_CNTL_1", 7)]);
    }

    #[test]
    fn packed_register_pairs_read_as_mesa_parses_them() {
        // SET_CONTEXT_REG_PAIRS_PACKED (0xB9): count 4, then two groups of
        // (offset0 | offset1 << 16, value0, value1).
        let ib = [
            pkt3(0xb9, 7),
            4,
            0x203 | (0x293 << 16),
            0x10,
            0x7,
            0x203 | (0x203 << 16),
            0x11,
            0x11,
        ];
        let d = decode(GfxLevel::Gfx11, &ib);
        assert!(d.is_ok(), "{:?}", d.error);
        let w: Vec<_> = d.writes().map(|w| (w.address, w.value)).collect();
        assert_eq!(
            w,
            [
                (0x2880c, 0x10),
                (0x28a4c, 7),
                (0x2880c, 0x11),
                (0x2880c, 0x11)
            ]
        );
        // SET_SH_REG_PAIRS_PACKED (0xBB) and its _N form (0xBD) address the SH space.
        for op in [0xbb, 0xbd] {
            let d = decode(GfxLevel::Gfx11, &[pkt3(op, 4), 2, 0x2 | (0x3 << 16), 5, 6]);
            let w: Vec<_> = d.writes().map(|w| (w.address, w.value)).collect();
            assert_eq!(w, [(0xb008, 5), (0xb00c, 6)]);
        }
    }

    #[test]
    fn malformed_register_pairs_are_named_errors_not_empty_states() {
        let odd = decode(GfxLevel::Gfx11, &[pkt3(0xb8, 3), 0x203, 0x10, 0x293]);
        assert!(matches!(
            odd.error.map(|e| e.kind),
            Some(DecodeErrorKind::Pairs {
                registers: None,
                ..
            })
        ));
        let count = decode(GfxLevel::Gfx11, &[pkt3(0xb9, 4), 6, 0x203, 1, 2]);
        let e = count.error.expect("a count of 6 in one group is malformed");
        assert!(e.to_string().contains("says 6 registers"), "{e}");
        let outside = decode(GfxLevel::Gfx11, &[pkt3(0xb8, 2), 0x2000, 1]);
        assert!(matches!(
            outside.error.map(|e| e.kind),
            Some(DecodeErrorKind::RegisterOutOfSpace { .. })
        ));
    }

    #[test]
    fn draw_packets_write_their_registers_on_every_level() {
        for level in GfxLevel::ALL {
            for r in [
                Reg::VGT_NUM_INSTANCES,
                Reg::VGT_NUM_INDICES,
                Reg::VGT_DRAW_INITIATOR,
                Reg::VGT_DMA_INDEX_TYPE,
            ] {
                assert!(level.register(r).is_some(), "{level} lacks {r}");
            }
            let d = decode(level, &[0xc000_2f00, 1, 0xc001_2d00, 3, 2, 0xc000_2a00, 1]);
            assert!(d.is_ok());
            let names: Vec<_> = d.writes().map(|w| (w.name().unwrap(), w.value)).collect();
            assert_eq!(
                names,
                [
                    ("VGT_NUM_INSTANCES", 1),
                    ("VGT_NUM_INDICES", 3),
                    ("VGT_DRAW_INITIATOR", 2),
                    ("VGT_DMA_INDEX_TYPE", 1)
                ]
            );
        }
    }

    #[test]
    fn control_packet_bodies_are_named_per_level() {
        let mut cb = crate::CmdBuf::new(GfxLevel::Gfx11);
        cb.release_mem(&crate::ReleaseMem::eop_fence(GfxLevel::Gfx11, 0x1000, 9))
            .unwrap();
        let b = describe_body(GfxLevel::Gfx11, Opcode::RELEASE_MEM, &cb.dwords()[1..]);
        assert_eq!(b.len(), 7);
        assert!(b[0].fields.contains(&("EVENT_TYPE", 40)));
        assert!(b[0].fields.contains(&("PWS_ENABLE", 0)), "GFX11 layout");
        assert!(b[1].fields.contains(&("DATA_SEL", 1)));
        assert_eq!((b[4].name, b[4].value), ("DATA_LO", 9));
        let b = describe_body(
            GfxLevel::Gfx9,
            Opcode::ACQUIRE_MEM,
            &[1 << 23, 0, 0, 0, 0, 10],
        );
        assert!(b[0].fields.contains(&("TC_ACTION_ENA", 1)));
        assert!(describe_body(GfxLevel::Gfx9, Opcode::NOP, &[1]).is_empty());
    }

    #[test]
    fn one_dword_nop_is_one_dword() {
        let d = decode(GfxLevel::Gfx9, &[0xffff_1000, 0xffff_1000]);
        assert!(d.is_ok());
        assert_eq!(d.packets.len(), 2);
        assert_eq!(d.packets[1].index, 1);
        assert_eq!(d.packets[1].dwords, 1);
    }

    #[test]
    fn malformed_streams_name_the_dword() {
        let e = |d: &[u32]| decode(GfxLevel::Gfx10, d).error.unwrap();
        assert_eq!(
            e(&[0xffff_1000, 0x0000_0001]),
            DecodeError {
                index: 1,
                kind: DecodeErrorKind::PacketType {
                    packet_type: 0,
                    header: 1
                }
            }
        );
        assert!(matches!(
            e(&[0x8000_0000]).kind,
            DecodeErrorKind::PacketType { packet_type: 2, .. }
        ));
        assert!(matches!(
            e(&[0xc000_0100, 0]).kind,
            DecodeErrorKind::UnknownOpcode { opcode: 1, .. }
        ));
        assert_eq!(
            e(&[0xc002_6900, 0x81, 0]).kind,
            DecodeErrorKind::Truncated {
                opcode: Opcode::SET_CONTEXT_REG,
                body_dwords: 3,
                available: 2
            }
        );
        // SH space is 0x400 dwords: offset 0x3ff with two values runs out of it.
        assert!(matches!(
            e(&[0xc002_7600, 0x3ff, 0, 0]).kind,
            DecodeErrorKind::RegisterOutOfSpace {
                space: RegSpace::Sh,
                offset: 0x3ff,
                count: 2,
                ..
            }
        ));
        assert!(decode(GfxLevel::Gfx10, &[0xc001_7600, 0x3ff, 0]).is_ok());
        assert!(matches!(
            e(&[0xc000_2d00, 3]).kind,
            DecodeErrorKind::BodyTooShort { needed: 2, .. }
        ));
        // Packets before the error are kept.
        let d = decode(GfxLevel::Gfx10, &[0xc000_2f00, 1, 0x4000_0000]);
        assert_eq!(d.packets.len(), 1);
        assert_eq!(d.error.unwrap().index, 2);
        assert_eq!(
            d.error.unwrap().to_string(),
            "dword 2: type-1 packet (header 0x40000000); only type-3 packets are decoded \
             (GFX9+ pads with the type-3 NOP 0xffff1000)"
        );
    }

    #[test]
    fn addresses_are_looked_up_on_the_decoding_level() {
        // Context offset 0xe (byte 0x28038): DB_DFSM_CONTROL on GFX10, DB_Z_INFO on GFX9.
        let s = [0xc001_6900, 0xe, 0];
        assert_eq!(
            decode(GfxLevel::Gfx9, &s).packets[0].writes[0].reg(),
            Some(Reg::DB_Z_INFO)
        );
        assert_eq!(
            decode(GfxLevel::Gfx10, &s).packets[0].writes[0].reg(),
            Some(Reg::DB_DFSM_CONTROL)
        );
    }
}
