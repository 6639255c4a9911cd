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
    use crate::decode::decode;
    use crate::pops::{derive, DrawState, Experiments, InterlockDesc};
    use crate::{Family, InterlockMode};

    /// The decoder reads back exactly the state's registers, in order, from the packets.
    #[test]
    fn packets_decode_to_exactly_the_registers() {
        for f in Family::ALL {
            for mode in [
                None,
                Some(InterlockMode::ALL[0]),
                Some(InterlockMode::ALL[2]),
            ] {
                let st = derive(
                    *f,
                    &InterlockDesc::with_mode(mode),
                    &DrawState {
                        rasterization_samples: 8,
                        ..DrawState::default()
                    },
                    &Experiments::default(),
                )
                .unwrap();
                let d = decode(st.level, &emit(&st));
                assert!(d.is_ok(), "{f}: {:?}", d.error);
                let written: Vec<_> = d.writes().map(|w| (w.reg(), w.value)).collect();
                let want: Vec<_> = st
                    .registers
                    .iter()
                    .map(|r| (Some(r.reg()), r.value))
                    .collect();
                assert_eq!(written, want, "{f}");
            }
        }
    }

    #[test]
    fn emit_into_appends() {
        let st = derive(
            Family::Navi31,
            &InterlockDesc::default(),
            &DrawState::default(),
            &Experiments::default(),
        )
        .unwrap();
        let mut out = vec![crate::packet::NOP_ONE_DWORD];
        emit_into(&st, &mut out);
        assert_eq!(out[0], crate::packet::NOP_ONE_DWORD);
        assert_eq!(&out[1..], emit(&st).as_slice());
    }

    /// "No explicit flushes/synchronization are needed when changing the pipeline state
    /// variables that may be involved in POPS, such as the rasterization sample count." The
    /// emitted stream for a sample-count change is register writes only: no event, no wait.
    #[test]
    fn sample_count_changes_need_no_flush() {
        for f in Family::ALL {
            let mut stream = Vec::new();
            for samples in [1, 8, 2, 4] {
                let st = derive(
                    *f,
                    &InterlockDesc::with_mode(Some(InterlockMode::ALL[2])),
                    &DrawState {
                        rasterization_samples: samples,
                        ..DrawState::default()
                    },
                    &Experiments::default(),
                )
                .unwrap();
                emit_into(&st, &mut stream);
            }
            let d = decode(f.gfx_level(), &stream);
            assert!(d.is_ok());
            for p in &d.packets {
                assert!(
                    matches!(
                        p.opcode,
                        crate::Opcode::SET_CONTEXT_REG | crate::Opcode::SET_SH_REG
                    ),
                    "{f}: {}",
                    p.opcode.name()
                );
            }
        }
    }
}
