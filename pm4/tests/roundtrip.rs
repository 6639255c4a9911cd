//! Property tests: the decoder never panics on arbitrary dwords, and whatever the encoder builds
//! decodes back to the same packets and register writes.

use pm4::fields::{GcrCntl, WriteDataControl};
use pm4::{decode, CmdBuf, EventType, GfxLevel, Opcode, RegValue, ReleaseMem};
use proptest::prelude::*;

fn level() -> impl Strategy<Value = GfxLevel> {
    prop::sample::select(GfxLevel::ALL.to_vec())
}

/// Dwords biased towards plausible headers so that the decoder's deeper paths are reached.
fn dword() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (
            0u32..8,
            prop::sample::select(Opcode::ALL.to_vec()),
            any::<u8>()
        )
            .prop_map(|(count, op, low)| 0xc000_0000
                | (count << 16)
                | ((op as u32) << 8)
                | (low as u32 & 7)),
        (any::<u32>(), any::<u32>()).prop_map(|(a, b)| (a & 0x3fff) | (b & 0xf000_0000)),
        Just(0xffff_1000u32),
        Just(0x8000_0000u32),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decoding_arbitrary_dwords_never_panics(l in level(), d in prop::collection::vec(dword(), 0..64)) {
        let r = decode(l, &d);
        // Whatever happened, the packets tile a prefix of the input and the error sits right
        // after them.
        let used: usize = r.packets.iter().map(|p| p.dwords).sum();
        let mut at = 0;
        for p in &r.packets {
            prop_assert_eq!(p.index, at);
            at += p.dwords;
        }
        match r.error {
            Some(e) => { prop_assert_eq!(e.index, used); prop_assert!(used < d.len()); }
            None => prop_assert_eq!(used, d.len()),
        }
    }
}

/// One encoder call, with what the decoder should find in it.
#[derive(Clone, Debug)]
enum Op {
    /// Register indices into the level's table, with values.
    Regs(Vec<(usize, u32)>),
    Nop(Vec<u32>),
    NopOne,
    NumInstances(u32),
    Draw(u32),
    Event(EventType),
    ReleaseMem(u64, u32),
    AcquireMem,
    WriteData(u64, Vec<u32>),
    Ib(u64, u32),
    ClearState,
    Pad(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::collection::vec((0usize..1000, any::<u32>()), 1..12).prop_map(Op::Regs),
        1 => prop::collection::vec(any::<u32>(), 1..6).prop_map(Op::Nop),
        1 => Just(Op::NopOne),
        1 => any::<u32>().prop_map(Op::NumInstances),
        1 => any::<u32>().prop_map(Op::Draw),
        1 => prop::sample::select(vec![
            EventType::PS_PARTIAL_FLUSH,
            EventType::CS_PARTIAL_FLUSH,
            EventType::VGT_FLUSH,
            EventType::FLUSH_AND_INV_CB_META,
        ]).prop_map(Op::Event),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(a, v)| Op::ReleaseMem((a as u64) << 2, v)),
        1 => Just(Op::AcquireMem),
        1 => (any::<u32>(), prop::collection::vec(any::<u32>(), 1..5))
            .prop_map(|(a, d)| Op::WriteData((a as u64) << 2, d)),
        1 => (any::<u32>(), 1u32..0x1000).prop_map(|(a, n)| Op::Ib((a as u64) << 2, n)),
        1 => Just(Op::ClearState),
        1 => prop::sample::select(vec![4usize, 8, 16]).prop_map(Op::Pad),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encoded_streams_decode_to_what_was_written(l in level(), ops in prop::collection::vec(op(), 0..20)) {
        let table = l.registers();
        let mut cb = CmdBuf::new(l);
        let mut expect: Vec<(u32, u32)> = Vec::new();
        for o in &ops {
            match o {
                Op::Regs(rs) => {
                    let w: Vec<RegValue> = rs
                        .iter()
                        .map(|&(i, v)| RegValue::with_value(l, table[i % table.len()].reg, v).unwrap())
                        .collect();
                    cb.set_regs(&w).unwrap();
                    expect.extend(w.iter().map(|w| (w.desc.address, w.value)));
                }
                Op::Nop(b) => { cb.nop(b).unwrap(); }
                Op::NopOne => { cb.nop_one_dword(); }
                Op::NumInstances(n) => {
                    cb.num_instances(*n);
                    expect.push((l.register(pm4::Reg::VGT_NUM_INSTANCES).unwrap().address, *n));
                }
                Op::Draw(n) => {
                    cb.draw_index_auto(*n).unwrap();
                    expect.push((l.register(pm4::Reg::VGT_NUM_INDICES).unwrap().address, *n));
                    expect.push((l.register(pm4::Reg::VGT_DRAW_INITIATOR).unwrap().address, 2));
                }
                Op::Event(e) => { cb.event_write(*e).unwrap(); }
                Op::ReleaseMem(a, v) => { cb.release_mem(&ReleaseMem::eop_fence(l, *a, *v)).unwrap(); }
                Op::AcquireMem => {
                    if l == GfxLevel::Gfx9 {
                        let mut c = RegValue::new(l, pm4::Reg::CP_COHER_CNTL).unwrap();
                        c.set(pm4::Field::TC_ACTION_ENA, 1).unwrap();
                        cb.acquire_mem_gfx9(c).unwrap();
                    } else {
                        cb.acquire_mem(GcrCntl { gl2_inv: 1, gl2_wb: 1, ..Default::default() }).unwrap();
                    }
                }
                Op::WriteData(a, d) => { cb.write_data(WriteDataControl::memory(), *a, d).unwrap(); }
                Op::Ib(a, n) => { cb.indirect_buffer(*a, *n).unwrap(); }
                Op::ClearState => { cb.clear_state(); }
                Op::Pad(n) => { cb.pad_to(*n); prop_assert_eq!(cb.len() % n, 0); }
            }
        }
        let d = decode(l, cb.dwords());
        prop_assert!(d.is_ok(), "{:?}", d.error);
        prop_assert_eq!(d.packets.iter().map(|p| p.dwords).sum::<usize>(), cb.len());
        let got: Vec<(u32, u32)> = d.writes().map(|w| (w.address, w.value)).collect();
        prop_assert_eq!(got, expect);
        // Every write names the register it was composed for.
        prop_assert!(d.writes().all(|w| w.desc.is_some()));
    }

    /// Packet dword layouts: encode then decode is the identity on in-range values.
    #[test]
    fn packet_fields_round_trip(v in any::<u32>()) {
        let g = GcrCntl::decode(v);
        prop_assert_eq!(GcrCntl::decode(g.encode().unwrap()), g);
        let mask: u32 = GcrCntl::FIELDS.iter().map(|f| f.mask()).fold(0, |a, b| a | b);
        prop_assert_eq!(g.encode().unwrap(), v & mask);
    }
}
