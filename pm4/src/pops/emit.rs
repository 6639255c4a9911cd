//! PM4 emission of a derived [`PopsState`], kept apart from the decisions.

use super::PopsState;
use crate::packet::emit_set_regs;

/// The register writes of `state` as SET_*_REG packets (one packet per run of consecutive
/// registers of one space, in address order).
pub fn emit(state: &PopsState) -> Vec<u32> {
    let mut out = Vec::with_capacity(3 * state.registers.len());
    emit_into(state, &mut out);
    out
}

/// Like [`emit`], appending to an existing command buffer.
pub fn emit_into(state: &PopsState, out: &mut Vec<u32>) {
    emit_set_regs(out, &state.registers);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Header, Opcode};
    use crate::pops::{derive, DrawState, Experiments, InterlockDesc};
    use crate::{Family, InterlockMode, RegSpace};

    /// Walks the packets and checks they write exactly the state's registers, in order.
    #[test]
    fn packets_write_exactly_the_registers() {
        for f in Family::ALL {
            let st = derive(
                *f,
                &InterlockDesc::with_mode(Some(InterlockMode::ALL[2])),
                &DrawState {
                    rasterization_samples: 8,
                    ..DrawState::default()
                },
                &Experiments::default(),
            )
            .unwrap();
            let words = emit(&st);
            let mut i = 0;
            let mut written = Vec::new();
            while i < words.len() {
                let h = Header::parse(words[i]);
                assert_eq!(h.packet_type, 3);
                let op = Opcode::from_u8(h.opcode).unwrap();
                let space = RegSpace::ALL
                    .into_iter()
                    .find(|s| s.set_opcode() == op)
                    .unwrap();
                let body = h.count as usize + 1;
                let first = space.start() + 4 * words[i + 1];
                for k in 0..body - 1 {
                    written.push((first + 4 * k as u32, words[i + 2 + k]));
                }
                i += 1 + body;
            }
            let want: Vec<_> = st
                .registers
                .iter()
                .map(|r| (r.desc.address, r.value))
                .collect();
            assert_eq!(written, want, "{f}");
        }
    }
}
