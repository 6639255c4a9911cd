//! The vector memory kinds the decoder and its generated opcode tables share.

/// A vector memory format. GFX12's VBUFFER, VIMAGE and VGLOBAL/VFLAT/VSCRATCH are read as
/// `Mubuf`, `Mimg` and `Flat`; its sampler format VSAMPLE is `Vsample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VmemFormat {
    Mubuf,
    Mtbuf,
    Mimg,
    Flat,
    Vsample,
}

/// What a vector memory opcode does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VmemKind {
    Load,
    Store,
    Atomic,
}
