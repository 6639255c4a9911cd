//! The vector memory kinds the decoder and its generated opcode tables share.

/// A vector memory format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VmemFormat {
    Mubuf,
    Mtbuf,
    Mimg,
    Flat,
}

/// What a vector memory opcode does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VmemKind {
    Load,
    Store,
    Atomic,
}
