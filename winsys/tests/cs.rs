//! The command-stream helpers every backend shares: an IB is padded to the device's IB size
//! alignment with one NOP.

use pm4::packet::{Opcode, NOP_ONE_DWORD};
use pm4::Family;
use winsys::capture::capture_info;
use winsys::cs::{cmdbuf, finish};

#[test]
fn padding_reaches_the_device_alignment_with_one_nop() {
    for pad in [8u32, 16, 64] {
        let mut info = capture_info(Family::Navi21);
        info.ib_pad_dwords = pad;
        for len in 0..20usize {
            let mut cb = cmdbuf(&info);
            cb.raw(&vec![0x1234; len]);
            let out = finish(cb, &info);
            assert_eq!(out.len() % pad as usize, 0, "len {len}");
            assert!(!out.is_empty());
            let start = len.max(1);
            let tail = &out[start..];
            match tail.len() {
                0 => {}
                1 => assert_eq!(tail, &[NOP_ONE_DWORD]),
                n => {
                    let h = pm4::Header::parse(tail[0]);
                    assert_eq!(h.opcode, Opcode::NOP as u8);
                    assert_eq!(h.count as usize + 2, n, "one NOP covers the padding");
                }
            }
        }
    }
}
