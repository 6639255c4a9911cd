//! Why a packet could not be encoded: shared by the packet builder (crate::cmdbuf) and the
//! packet body layouts (crate::fields), so neither imports the other for it.

use crate::chip::GfxLevel;
use crate::packet::{Opcode, MAX_BODY_DWORDS};
use crate::regs::{Reg, RegError};

/// Why a packet could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{reg} was composed for {value_level}, but this command buffer is for {level}")]
    LevelMismatch {
        reg: Reg,
        level: GfxLevel,
        value_level: GfxLevel,
    },
    #[error("{layout}.{field}: {value:#x} does not fit in {width} bits")]
    FieldTooWide {
        layout: &'static str,
        field: &'static str,
        value: u32,
        width: u32,
    },
    #[error("{opcode:?} needs a body of 1..={max} dwords, got {dwords}", max = MAX_BODY_DWORDS)]
    BodySize { opcode: Opcode, dwords: usize },
    #[error("{what} address {address:#x} is not {align}-byte aligned")]
    Misaligned {
        what: &'static str,
        address: u64,
        align: u64,
    },
    #[error("{what} is the {layout_level} layout, but this command buffer is for {level}")]
    WrongLayout {
        what: &'static str,
        layout_level: &'static str,
        level: GfxLevel,
    },
    #[error("{reg} is in the {space} space; {opcode:?} writes only the {expected} space")]
    WrongSpace {
        reg: Reg,
        space: &'static str,
        opcode: Opcode,
        expected: &'static str,
    },
    #[error("SET_*_REG index {index} does not fit in 4 bits")]
    IndexTooWide { index: u32 },
    #[error("{event} must be sent with {packet}, not {used}")]
    WrongEventPacket {
        event: &'static str,
        packet: &'static str,
        used: &'static str,
    },
    #[error(transparent)]
    Reg(#[from] RegError),
}
