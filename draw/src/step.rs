//! One packet of libdrm's hardware-tested draw, as the generated reference state
//! (crate::reference_state) lists it and crate::reference replays it.

/// One packet of the reference state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A SET_*_REG packet (the packet form follows from the register and level).
    Regs(&'static [(pm4::Reg, u32)]),
    /// A SET_CONTEXT_REG packet at a byte address, for registers the register database of some
    /// level does not name.
    Raw {
        address: u32,
        values: &'static [u32],
    },
    /// NUM_INSTANCES.
    NumInstances(u32),
}
