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
