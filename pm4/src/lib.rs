//! `pm4`: what an AMD GFX9–GFX12 driver must write to the GPU, as data.
//!
//! - [`chip`]: families, generations and their quirks.
//! - [`regs`]: the per-generation register model, names as in the AMD register database.
//! - [`interlock`]: the interlock modes a fragment shader can declare.
//! - [`mesa`]: Mesa releases and ranges of them, typed.
//! - [`packet`]: PM4 type-3 headers, opcodes and register-write packets.
//! - [`cmdbuf`]: building indirect buffers packet by packet for one level ([`CmdBuf`]).
//! - [`fields`]: field layouts of packet body dwords (GCR_CNTL, RELEASE_MEM, …).
//! - [`mod@decode`]: dwords back to packets and register writes, with typed errors.
//! - [`validate`]: would a command processor accept a stream, and does every write land on a real
//!   register? An oracle built from the register database and real drivers' streams only.
//! - [`pops`]: the POPS driver state of a draw: register rules, PM4, features, diagnostics.
//!
//! This crate uses nothing else of pops; every other crate builds on it.

pub mod chip;
pub mod interlock;
pub mod mesa;
pub mod regs;

pub use chip::{ChipError, Family, GfxLevel, PciChip, Quirks, AMD_PCI_VENDOR};
pub use interlock::{Granularity, InterlockMode, Ordering, UnknownInterlockMode};
pub use mesa::{MesaRange, MesaVersion, MesaVersionError};
pub use regs::{Field, FieldDesc, Reg, RegDesc, RegError, RegSpace, RegValue};
pub mod packet;
pub mod pops;

pub use packet::{emit_set_regs, pkt3, Header, Opcode};
pub mod cmdbuf;
pub mod decode;
pub mod encode_error;
pub mod fields;
pub mod validate;

pub use cmdbuf::{set_reg_form, CmdBuf, EncodeError, ReleaseMem, ReleaseMemOp};
pub use decode::{
    decode, describe_body, BodyDword, DecodeError, DecodeErrorKind, Decoded, Packet, RegWrite,
};
pub use fields::EventType;
pub use packet::SetRegForm;
