//! Command-stream building, shared by every backend so that each is handed identical bytes.
//!
//! Packets come from `pm4`'s level-aware [`CmdBuf`]; this module adds what a submission needs on
//! top: the IB padded to the device's IB size alignment, and uploading it into a buffer and
//! submitting it with its buffer list.

use crate::{BufferId, ContextId, DeviceInfo, Fence, Submission, Winsys, WinsysError};
use pm4::CmdBuf;

/// An empty command buffer for the device's level.
pub fn cmdbuf(info: &DeviceInfo) -> CmdBuf {
    CmdBuf::new(info.gfx_level)
}

/// The finished IB: `cb` padded with one NOP to the device's IB size alignment. An empty buffer
/// gets a whole pad (the kernel refuses empty IBs).
pub fn finish(mut cb: CmdBuf, info: &DeviceInfo) -> Vec<u32> {
    let pad = info.ib_pad_dwords.max(1) as usize;
    if cb.is_empty() {
        cb.nop_one_dword();
    }
    cb.pad_to(pad);
    cb.into_dwords()
}

/// Writes `ib` at byte offset 0 of `ib_buffer` and submits it on `ctx`, with `ib_buffer` and
/// `buffers` as the buffer list.
pub fn submit_ib(
    ws: &mut dyn Winsys,
    ctx: ContextId,
    ib_buffer: BufferId,
    ib: &[u32],
    buffers: &[BufferId],
    label: &str,
) -> Result<Fence, WinsysError> {
    ws.write(ib_buffer, 0, ib)?;
    let mut list = Vec::with_capacity(buffers.len() + 1);
    list.extend_from_slice(buffers);
    if !list.contains(&ib_buffer) {
        list.push(ib_buffer);
    }
    let ib_dwords = u32::try_from(ib.len()).map_err(|_| WinsysError::OutOfBounds {
        buffer: ib_buffer,
        offset: 0,
        len: 4 * ib.len() as u64,
        size: ws.buffer_size(ib_buffer).unwrap_or(0),
    })?;
    let sub = Submission {
        ib_va: ws.gpu_address(ib_buffer)?,
        ib_dwords,
        buffers: &list,
        label,
    };
    ws.submit(ctx, &sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::capture_info;
    use pm4::packet::{Opcode, NOP_ONE_DWORD};
    use pm4::Family;

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
}
