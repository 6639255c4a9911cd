//! `CaptureWinsys`: a winsys for machines without an AMD GPU. It emulates a chosen family,
//! hands out realistic GPU addresses, checks every submission as the real backend does, and
//! records each IB to a directory instead of running it.
//!
//! Directory layout (deterministic: the same calls give a byte-identical directory):
//! - `submit-NNNN.bin`: the IB of submission N as little-endian dwords, readable by
//!   `pops decode --gfx <level> DIR/submit-NNNN.bin`;
//! - `index.json`: format tag, family, level, IB alignment, every buffer (id, domain, GPU
//!   address, size) and every submission (label, context, sequence number, IB address and size,
//!   the buffer holding the IB, the buffer list, the `.bin` file).

use crate::amdgpu::{check_bounds, MIN_IB_PAD_DWORDS};
use crate::{
    BufferId, ContextId, DeviceInfo, Domain, Fence, Readback, ResetStatus, Submission, Winsys,
    WinsysError,
};
use pm4::{Family, GfxLevel};
use pops_report::selftest::{CaptureBuffer, CaptureIndex, CaptureSubmission};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The format tag of `index.json`.
pub const FORMAT: &str = pops_report::selftest::CAPTURE_FORMAT;
/// The first fake GPU address: amdgpu's general VA range starts above the low 4 GiB reserved
/// for 32-bit allocations, so real buffers live at addresses like this one.
pub const VA_BASE: u64 = 0x8_0000_0000;
/// Fake addresses are aligned like the real backend's (64 KiB).
pub const VA_ALIGNMENT: u64 = 64 * 1024;
const PAGE: u64 = 4096;
/// The kernel's GFX IB start alignment.
const IB_START_ALIGNMENT: u32 = 32;

#[derive(Clone, Debug)]
struct Buffer {
    domain: Domain,
    va: u64,
    size: u64,
    data: Vec<u32>,
    freed: bool,
}

/// One recorded submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedSubmission {
    pub index: usize,
    pub label: String,
    pub context: ContextId,
    pub seq: u64,
    pub ib_va: u64,
    pub ib_buffer: BufferId,
    pub buffers: Vec<BufferId>,
    pub ib: Vec<u32>,
    /// File name of the IB inside the capture directory.
    pub file: String,
}

/// The emulating, recording winsys.
pub struct CaptureWinsys {
    dir: PathBuf,
    info: DeviceInfo,
    buffers: Vec<Buffer>,
    next_va: u64,
    contexts: Vec<u64>,
    submissions: Vec<CapturedSubmission>,
    /// Record IBs that fail [`pm4::validate`] (deliberate experiments only).
    allow_invalid_ibs: bool,
}

fn is_capture_file(name: &str) -> bool {
    name == "index.json"
        || (name.starts_with("submit-")
            && name.ends_with(".bin")
            && name["submit-".len()..name.len() - 4]
                .bytes()
                .all(|b| b.is_ascii_digit()))
}

impl CaptureWinsys {
    /// Records IBs that fail [`pm4::validate`] too, as [`crate::amdgpu::AmdgpuWinsys::allow_invalid_ibs`]
    /// submits them: for deliberate experiments. Off by default, so a capture refuses exactly what
    /// a GPU submission would.
    pub fn allow_invalid_ibs(&mut self, allow: bool) {
        self.allow_invalid_ibs = allow;
    }

    /// Starts a capture of `family` into `dir`, creating it. A directory holding an earlier
    /// capture is emptied of it; one holding anything else is refused.
    pub fn create(dir: &Path, family: Family) -> Result<CaptureWinsys, WinsysError> {
        if dir.exists() {
            let entries = std::fs::read_dir(dir).map_err(|e| WinsysError::io(dir, e))?;
            let mut ours = Vec::new();
            for e in entries {
                let e = e.map_err(|e| WinsysError::io(dir, e))?;
                let name = e.file_name().to_string_lossy().into_owned();
                if !is_capture_file(&name) || !e.path().is_file() {
                    return Err(WinsysError::CaptureDirNotEmpty {
                        path: dir.to_path_buf(),
                        file: name,
                    });
                }
                ours.push(e.path());
            }
            for p in ours {
                std::fs::remove_file(&p).map_err(|e| WinsysError::io(&p, e))?;
            }
        } else {
            std::fs::create_dir_all(dir).map_err(|e| WinsysError::io(dir, e))?;
        }
        let ws = CaptureWinsys {
            dir: dir.to_path_buf(),
            info: capture_info(family),
            buffers: Vec::new(),
            next_va: VA_BASE,
            contexts: Vec::new(),
            allow_invalid_ibs: false,
            submissions: Vec::new(),
        };
        ws.write_index()?;
        Ok(ws)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every submission recorded so far, in order.
    pub fn submissions(&self) -> &[CapturedSubmission] {
        &self.submissions
    }

    fn buffer(&self, id: BufferId) -> Result<&Buffer, WinsysError> {
        self.buffers
            .get(id.0 as usize)
            .filter(|b| !b.freed)
            .ok_or(WinsysError::UnknownBuffer(id))
    }

    fn index(&self) -> CaptureIndex {
        CaptureIndex {
            format: FORMAT.to_string(),
            family: self.info.family.name().to_string(),
            gfx_level: self.info.gfx_level.name().to_string(),
            llvm_processor: self.info.family.llvm_processor().to_string(),
            ib_pad_dwords: self.info.ib_pad_dwords,
            ib_start_alignment: self.info.ib_start_alignment,
            executed: false,
            buffers: self
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| CaptureBuffer {
                    id: i,
                    domain: b.domain.name().to_string(),
                    gpu_address: b.va,
                    gpu_address_hex: format!("{:#x}", b.va),
                    size: b.size,
                    freed: b.freed,
                })
                .collect(),
            submissions: self
                .submissions
                .iter()
                .map(|s| CaptureSubmission {
                    index: s.index,
                    label: s.label.clone(),
                    context: s.context.0,
                    seq: s.seq,
                    ib_file: s.file.clone(),
                    ib_gpu_address: s.ib_va,
                    ib_gpu_address_hex: format!("{:#x}", s.ib_va),
                    ib_dwords: s.ib.len(),
                    ib_buffer: s.ib_buffer.0,
                    buffers: s.buffers.iter().map(|b| b.0).collect(),
                })
                .collect(),
        }
    }

    fn write_index(&self) -> Result<(), WinsysError> {
        let path = self.dir.join("index.json");
        let mut text = serde_json::to_string_pretty(&self.index())
            .map_err(|e| WinsysError::io(&path, std::io::Error::other(e)))?;
        text.push('\n');
        std::fs::write(&path, text).map_err(|e| WinsysError::io(&path, e))
    }
}

/// The device a capture of `family` pretends to be.
pub fn capture_info(family: Family) -> DeviceInfo {
    DeviceInfo {
        family,
        gfx_level: family.gfx_level(),
        asic: "capture".into(),
        marketing_name: None,
        pci_bus: None,
        pci_id: None,
        render_node: None,
        shader_engines: family.shader_engines(),
        me_firmware: None,
        pfp_firmware: None,
        ib_pad_dwords: MIN_IB_PAD_DWORDS,
        ib_start_alignment: IB_START_ALIGNMENT,
        drm_version: None,
        // Nothing executes, so no counter ticks: never invent a frequency.
        gpu_counter_freq_khz: None,
    }
}

impl Winsys for CaptureWinsys {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn executes(&self) -> bool {
        false
    }

    fn create_buffer(&mut self, size: u64, domain: Domain) -> Result<BufferId, WinsysError> {
        if size == 0 {
            return Err(WinsysError::ZeroSize);
        }
        let size = size
            .checked_next_multiple_of(PAGE)
            .filter(|s| *s <= 1 << 32)
            .ok_or(WinsysError::OutOfMemory {
                what: "allocating a capture buffer",
                errno: nix::errno::Errno::ENOMEM,
            })?;
        let va = self.next_va;
        self.next_va = (va + size).next_multiple_of(VA_ALIGNMENT);
        let id = BufferId(self.buffers.len() as u32);
        self.buffers.push(Buffer {
            domain,
            va,
            size,
            data: vec![0; (size / 4) as usize],
            freed: false,
        });
        Ok(id)
    }

    fn gpu_address(&self, buffer: BufferId) -> Result<u64, WinsysError> {
        Ok(self.buffer(buffer)?.va)
    }

    fn buffer_size(&self, buffer: BufferId) -> Result<u64, WinsysError> {
        Ok(self.buffer(buffer)?.size)
    }

    fn write(&mut self, buffer: BufferId, offset: u64, dwords: &[u32]) -> Result<(), WinsysError> {
        let size = self.buffer(buffer)?.size;
        check_bounds(buffer, offset, 4 * dwords.len() as u64, size)?;
        let start = (offset / 4) as usize;
        self.buffers[buffer.0 as usize].data[start..start + dwords.len()].copy_from_slice(dwords);
        Ok(())
    }

    fn read(&self, buffer: BufferId, offset: u64, count: usize) -> Result<Readback, WinsysError> {
        let size = self.buffer(buffer)?.size;
        check_bounds(buffer, offset, 4 * count as u64, size)?;
        Ok(Readback::NotExecuted)
    }

    fn free_buffer(&mut self, buffer: BufferId) -> Result<(), WinsysError> {
        self.buffer(buffer)?;
        let b = &mut self.buffers[buffer.0 as usize];
        b.freed = true;
        b.data = Vec::new();
        self.write_index()
    }

    fn place_buffers_from(&mut self, base: u64) -> Result<(), WinsysError> {
        self.next_va = base.next_multiple_of(VA_ALIGNMENT);
        Ok(())
    }

    fn create_context(&mut self) -> Result<ContextId, WinsysError> {
        self.contexts.push(0);
        Ok(ContextId(self.contexts.len() as u32 - 1))
    }

    fn submit(&mut self, ctx: ContextId, sub: &Submission<'_>) -> Result<Fence, WinsysError> {
        let mut ranges = Vec::with_capacity(sub.buffers.len());
        for id in sub.buffers {
            let b = self.buffer(*id)?;
            ranges.push((*id, b.va, b.size));
        }
        let ib_buffer = crate::check_ib_in_buffers(sub.ib_va, sub.ib_dwords, &ranges)?;
        if !sub
            .ib_va
            .is_multiple_of(u64::from(self.info.ib_start_alignment))
        {
            return Err(WinsysError::IbMisaligned {
                ib_va: sub.ib_va,
                alignment: self.info.ib_start_alignment,
            });
        }
        if !sub.ib_dwords.is_multiple_of(self.info.ib_pad_dwords) {
            return Err(WinsysError::IbNotPadded {
                dwords: sub.ib_dwords,
                pad: self.info.ib_pad_dwords,
            });
        }
        let b = &self.buffers[ib_buffer.0 as usize];
        let start = ((sub.ib_va - b.va) / 4) as usize;
        let ib = b.data[start..start + sub.ib_dwords as usize].to_vec();
        if !self.allow_invalid_ibs {
            crate::check_ib_valid(self.info.gfx_level, sub.label, &ib)?;
        }
        let seq_slot = self
            .contexts
            .get_mut(ctx.0 as usize)
            .ok_or(WinsysError::UnknownContext(ctx.0))?;
        *seq_slot += 1;
        let seq = *seq_slot;

        let index = self.submissions.len();
        let file = format!("submit-{index:04}.bin");
        let path = self.dir.join(&file);
        let bytes: Vec<u8> = ib.iter().flat_map(|d| d.to_le_bytes()).collect();
        std::fs::write(&path, bytes).map_err(|e| WinsysError::io(&path, e))?;
        self.submissions.push(CapturedSubmission {
            index,
            label: sub.label.to_string(),
            context: ctx,
            seq,
            ib_va: sub.ib_va,
            ib_buffer,
            buffers: sub.buffers.to_vec(),
            ib,
            file,
        });
        self.write_index()?;
        Ok(Fence { context: ctx, seq })
    }

    fn wait(&mut self, fence: Fence, _timeout: Duration) -> Result<(), WinsysError> {
        // Recorded work is complete the moment it is recorded; a fence that was never handed out
        // is still an error, as on hardware.
        let last = self
            .contexts
            .get(fence.context.0 as usize)
            .ok_or(WinsysError::UnknownContext(fence.context.0))?;
        if fence.seq == 0 || fence.seq > *last {
            return Err(WinsysError::Kernel {
                what: "waiting for a fence that was never submitted",
                errno: nix::errno::Errno::EINVAL,
            });
        }
        Ok(())
    }

    fn reset_status(&mut self, ctx: ContextId) -> Result<ResetStatus, WinsysError> {
        self.contexts
            .get(ctx.0 as usize)
            .ok_or(WinsysError::UnknownContext(ctx.0))?;
        Ok(ResetStatus::default())
    }
}

/// A capture read back from its directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedCapture {
    pub family: Family,
    pub gfx_level: GfxLevel,
    /// (label, IB dwords) per submission, in order.
    pub submissions: Vec<(String, Vec<u32>)>,
}

/// Reads a capture directory back: `index.json` and every IB file it names.
pub fn load(dir: &Path) -> Result<LoadedCapture, WinsysError> {
    let path = dir.join("index.json");
    let bad = |message: String| WinsysError::CaptureIo {
        path: path.clone(),
        message,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| WinsysError::io(&path, e))?;
    // A missing or mistyped list is a damaged index, not an empty capture: saying "no
    // submissions" would silently lose every recorded IB.
    let v: CaptureIndex = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if v.format != FORMAT {
        return Err(bad(format!("not a {FORMAT} index")));
    }
    let family =
        Family::parse(&v.family).map_err(|_| bad(format!("unknown family {:?}", v.family)))?;
    let mut submissions = Vec::new();
    for (i, s) in v.submissions.into_iter().enumerate() {
        let file = Some(s.ib_file.as_str())
            .filter(|f| is_capture_file(f))
            .ok_or_else(|| bad(format!("submission {i} has no valid ib_file")))?;
        let p = dir.join(file);
        let bytes = std::fs::read(&p).map_err(|e| WinsysError::io(&p, e))?;
        if bytes.len() % 4 != 0 {
            return Err(WinsysError::CaptureIo {
                path: p,
                message: format!("{} bytes is not a whole number of dwords", bytes.len()),
            });
        }
        let ib = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let label = s.label;
        submissions.push((label, ib));
    }
    Ok(LoadedCapture {
        family,
        gfx_level: family.gfx_level(),
        submissions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cs;
    use pm4::fields::WriteDataControl;

    fn tmp(name: &str) -> PathBuf {
        let d = pops_testkit::scratch(&format!("capture-{name}"));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn record(dir: &Path) -> CaptureWinsys {
        let mut ws = CaptureWinsys::create(dir, Family::Navi21).unwrap();
        let data = ws.create_buffer(100, Domain::Gtt).unwrap();
        let ibb = ws.create_buffer(4096, Domain::Gtt).unwrap();
        let mut cb = cs::cmdbuf(ws.info());
        cb.write_data(
            WriteDataControl::memory(),
            ws.gpu_address(data).unwrap(),
            &[42],
        )
        .unwrap();
        let ib = cs::finish(cb, ws.info());
        ws.write(ibb, 0, &ib).unwrap();
        let ctx = ws.create_context().unwrap();
        let f = ws
            .submit(
                ctx,
                &Submission {
                    ib_va: ws.gpu_address(ibb).unwrap(),
                    ib_dwords: ib.len() as u32,
                    buffers: &[data, ibb],
                    label: "fence",
                },
            )
            .unwrap();
        ws.wait(f, Duration::from_secs(1)).unwrap();
        ws
    }

    /// An IB writing PA_SC_VRS_SURFACE_CNTL_1 (kernel-owned, byte 0x2A580) with SET_CONTEXT_REG
    /// on GFX11, padded with NOPs: refused with a typed error before anything is recorded, and
    /// recorded only after the explicit override.
    #[test]
    fn an_ib_that_fails_validation_is_refused_unless_allowed() {
        let dir = tmp("invalid");
        let mut ws = CaptureWinsys::create(&dir, Family::Navi31).unwrap();
        let ibb = ws.create_buffer(4096, Domain::Gtt).unwrap();
        let pad = ws.info().ib_pad_dwords as usize;
        let mut ib = vec![0xc001_6900, (0x2A580 - 0x28000) / 4, 0x80];
        while ib.len() % pad != 0 {
            ib.push(0xffff_1000);
        }
        ws.write(ibb, 0, &ib).unwrap();
        let ctx = ws.create_context().unwrap();
        let sub = Submission {
            ib_va: ws.gpu_address(ibb).unwrap(),
            ib_dwords: ib.len() as u32,
            buffers: &[ibb],
            label: "kernel-owned write",
        };
        match ws.submit(ctx, &sub) {
            Err(WinsysError::InvalidIb {
                label,
                count,
                first,
                ..
            }) => {
                assert_eq!(label, "kernel-owned write");
                assert_eq!(count, 1);
                assert!(first.contains("0x2a580"), "{first}");
            }
            other => panic!("expected InvalidIb, got {other:?}"),
        }
        assert!(ws.submissions().is_empty());
        ws.allow_invalid_ibs(true);
        ws.submit(ctx, &sub).unwrap();
        assert_eq!(ws.submissions().len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn addresses_are_realistic_aligned_and_distinct() {
        let dir = tmp("va");
        let mut ws = CaptureWinsys::create(&dir, Family::Vega10).unwrap();
        let a = ws.create_buffer(1, Domain::Gtt).unwrap();
        let b = ws.create_buffer(70_000, Domain::Vram).unwrap();
        let c = ws.create_buffer(4, Domain::Gtt).unwrap();
        assert_eq!(ws.gpu_address(a).unwrap(), VA_BASE);
        assert_eq!(ws.buffer_size(a).unwrap(), 4096);
        assert_eq!(ws.gpu_address(b).unwrap(), VA_BASE + 0x1_0000);
        assert_eq!(ws.gpu_address(c).unwrap(), VA_BASE + 0x3_0000);
        assert_eq!(ws.create_buffer(0, Domain::Gtt), Err(WinsysError::ZeroSize));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recording_is_deterministic_and_loads_back() {
        let (d1, d2) = (tmp("det1"), tmp("det2"));
        let ws = record(&d1);
        record(&d2);
        for f in ["index.json", "submit-0000.bin"] {
            assert_eq!(
                std::fs::read(d1.join(f)).unwrap(),
                std::fs::read(d2.join(f)).unwrap(),
                "{f}"
            );
        }
        let loaded = load(&d1).unwrap();
        assert_eq!(loaded.family, Family::Navi21);
        assert_eq!(loaded.gfx_level, GfxLevel::Gfx10_3);
        assert_eq!(loaded.submissions.len(), 1);
        assert_eq!(loaded.submissions[0].1, ws.submissions()[0].ib);
        assert_eq!(loaded.submissions[0].0, "fence");
        // Recording again into the same directory replaces the earlier capture.
        drop(ws);
        record(&d1);
        assert_eq!(
            std::fs::read(d1.join("index.json")).unwrap(),
            std::fs::read(d2.join("index.json")).unwrap()
        );
        std::fs::remove_dir_all(&d1).unwrap();
        std::fs::remove_dir_all(&d2).unwrap();
    }

    #[test]
    fn reads_are_never_pretended_to_have_run() {
        let dir = tmp("read");
        let mut ws = record(&dir);
        let data = BufferId(0);
        assert_eq!(ws.read(data, 0, 1), Ok(Readback::NotExecuted));
        assert!(!ws.executes());
        // No counter ticks where nothing runs, so no frequency to convert them with.
        assert_eq!(ws.info().gpu_counter_freq_khz, None);
        ws.free_buffer(data).unwrap();
        assert_eq!(ws.read(data, 0, 1), Err(WinsysError::UnknownBuffer(data)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_ib_outside_the_submitted_buffers_is_refused() {
        let dir = tmp("outside");
        let mut ws = CaptureWinsys::create(&dir, Family::Navi31).unwrap();
        let a = ws.create_buffer(4096, Domain::Gtt).unwrap();
        let b = ws.create_buffer(4096, Domain::Gtt).unwrap();
        let ctx = ws.create_context().unwrap();
        let ib_va = ws.gpu_address(b).unwrap();
        // The IB is in b, but only a is listed.
        let e = ws.submit(
            ctx,
            &Submission {
                ib_va,
                ib_dwords: 8,
                buffers: &[a],
                label: "x",
            },
        );
        assert_eq!(
            e,
            Err(WinsysError::IbOutsideBuffers {
                ib_va,
                ib_bytes: 32
            })
        );
        let e = ws.submit(
            ctx,
            &Submission {
                ib_va,
                ib_dwords: 5,
                buffers: &[b],
                label: "x",
            },
        );
        assert_eq!(e, Err(WinsysError::IbNotPadded { dwords: 5, pad: 8 }));
        let e = ws.submit(
            ctx,
            &Submission {
                ib_va: ib_va + 4,
                ib_dwords: 8,
                buffers: &[b],
                label: "x",
            },
        );
        assert!(matches!(e, Err(WinsysError::IbMisaligned { .. })));
        assert!(ws.submissions().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Damaged captures are refused with the file and the fault named, never a panic and never
    /// an empty capture standing in for lost submissions.
    #[test]
    fn damaged_captures_are_refused_with_a_clear_error() {
        let good = tmp("damaged-src");
        drop(record(&good));
        let index = std::fs::read_to_string(good.join("index.json")).unwrap();
        let ib = std::fs::read(good.join("submit-0000.bin")).unwrap();
        let cases: Vec<(&str, String, Vec<u8>, &str)> = vec![
            (
                "truncated",
                index[..index.len() / 2].to_string(),
                ib.clone(),
                "EOF",
            ),
            ("garbled", "\u{1}garbage".into(), ib.clone(), "expected"),
            (
                "format",
                index.replace("pops-capture", "other"),
                ib.clone(),
                "not a pops-capture/1 index",
            ),
            (
                "family",
                index.replace("navi21", "navi99"),
                ib.clone(),
                "unknown family",
            ),
            (
                "no-list",
                index.replace("\"submissions\"", "\"gone\""),
                ib.clone(),
                "missing field `submissions`",
            ),
            (
                "escape",
                index.replace("submit-0000.bin", "../submit-0000.bin"),
                ib.clone(),
                "submission 0 has no valid ib_file",
            ),
            (
                "label",
                index.replace("\"fence\"", "7"),
                ib.clone(),
                "invalid type: integer `7`, expected a string",
            ),
            (
                "odd-ib",
                index.clone(),
                ib[..ib.len() - 1].to_vec(),
                "dwords",
            ),
        ];
        for (name, text, bytes, want) in cases {
            let dir = tmp(&format!("damaged-{name}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("index.json"), &text).unwrap();
            std::fs::write(dir.join("submit-0000.bin"), &bytes).unwrap();
            match load(&dir) {
                Err(e @ WinsysError::CaptureIo { .. }) => {
                    let msg = e.to_string();
                    assert!(msg.contains(want), "{name}: {msg}");
                }
                other => panic!("{name}: expected a CaptureIo error, got {other:?}"),
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
        let dir = tmp("damaged-missing-ib");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.json"), &index).unwrap();
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.contains("submit-0000.bin"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&good).unwrap();
    }

    #[test]
    fn a_directory_with_foreign_files_is_refused() {
        let dir = tmp("foreign");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
        assert!(matches!(
            CaptureWinsys::create(&dir, Family::Navi10),
            Err(WinsysError::CaptureDirNotEmpty { file, .. }) if file == "notes.txt"
        ));
        assert!(
            dir.join("notes.txt").exists(),
            "nothing of the user's is deleted"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
