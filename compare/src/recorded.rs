//! What a driver really submitted through the amdgpu kernel interface, as the amdgpu
//! kernel-interface shim records it (`AMDGPU_ORACLE_DIR`: `submissions-PID.jsonl`, one line per
//! CS ioctl, and `ib-PID-N-K.bin`, the dwords of each IB): every draw packet of every accepted
//! submission, with the register fields in force at it.
//!
//! Each submission is read from nothing: a queue's preamble runs CLEAR_STATE, so state a driver
//! relies on across submissions is state it wrote again. A chained IB's dwords are not recorded
//! (the shim records top-level IBs), so a recording with an INDIRECT_BUFFER packet is refused
//! rather than read wrong: run RADV with `RADV_DEBUG=noibs`.

use pm4::GfxLevel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Register name → field name → value.
pub type Fields = BTreeMap<String, BTreeMap<String, u64>>;

/// One draw packet of one accepted submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedDraw {
    /// The submission's number in its recording (the shim's `submission`, from 1).
    pub submission: u64,
    /// The packet's name (`DRAW_INDEX_AUTO`, …).
    pub packet: &'static str,
    /// Every register field written before the packet in the submission, as last written.
    pub fields: Fields,
}

impl RecordedDraw {
    /// Whether POPS is on for the draw (DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER).
    pub fn pops(&self) -> bool {
        self.field("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER") == Some(1)
    }

    /// A field's value at the draw; `None` where the submission never wrote its register.
    pub fn field(&self, register: &str, field: &str) -> Option<u64> {
        self.fields.get(register)?.get(field).copied()
    }
}

/// Why a recording cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordedError {
    #[error("cannot read the shim's recording {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} line {line}: not a submission of the amdgpu shim: {what}")]
    BadLine {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("{path}: {bytes} bytes is not a whole number of dwords")]
    PartialDword { path: PathBuf, bytes: usize },
    #[error("{path}: not a PM4 stream for {level}: {what}")]
    Decode {
        path: PathBuf,
        level: GfxLevel,
        what: String,
    },
    #[error("{path} chains another IB (INDIRECT_BUFFER), whose dwords the shim does not record: run the driver with RADV_DEBUG=noibs,noibchaining (Mesa 25: noibs; Mesa 26: noibchaining)")]
    ChainedIb { path: PathBuf },
    #[error("{dir} holds no submissions-*.jsonl: nothing was submitted through the shim (was it preloaded?)")]
    NothingRecorded { dir: PathBuf },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RecordedError + '_ {
    move |source| RecordedError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Every draw packet of every accepted submission recorded in `dir`, in recording order (files
/// by name, lines in order). A chained IB is an error ([`RecordedError::ChainedIb`]).
pub fn draws(dir: &Path, level: GfxLevel) -> Result<Vec<RecordedDraw>, RecordedError> {
    let r = read(dir, level, false)?;
    Ok(r.draws)
}

/// What a recording holds where some submissions chain IBs the shim did not record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recording {
    /// The draws of every submission that could be read whole, and those of a chained
    /// submission that come before its first chained IB (nothing unrecorded precedes them, so
    /// their state is exact).
    pub draws: Vec<RecordedDraw>,
    /// Submissions that chain another IB (INDIRECT_BUFFER): their draws from the chain on are
    /// not in `draws`, since the chained dwords (and the state and draws they hold) were not
    /// recorded. RADV 26 runs a secondary command buffer so whatever its debug options.
    pub chained: Vec<u64>,
}

/// Like [`draws`], but a submission that chains an IB is named in [`Recording::chained`] and
/// read only up to its first chained IB, rather than failing the whole recording.
pub fn draws_but_chained(dir: &Path, level: GfxLevel) -> Result<Recording, RecordedError> {
    read(dir, level, true)
}

fn read(dir: &Path, level: GfxLevel, allow_chained: bool) -> Result<Recording, RecordedError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("submissions-") && n.ends_with(".jsonl")
            })
        })
        .collect();
    if files.is_empty() {
        return Err(RecordedError::NothingRecorded {
            dir: dir.to_path_buf(),
        });
    }
    files.sort();
    let mut out = Recording::default();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(io(&f))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |what: String| RecordedError::BadLine {
                path: f.clone(),
                line: i + 1,
                what,
            };
            let s: serde_json::Value =
                serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            // A submission the kernel refused never ran.
            if s["result"].as_i64() != Some(0) {
                continue;
            }
            let n = s["submission"]
                .as_u64()
                .ok_or_else(|| bad("no \"submission\" number".into()))?;
            let ibs = s["ibs"]
                .as_array()
                .ok_or_else(|| bad("no \"ibs\" list".into()))?;
            let mut fields = Fields::new();
            let mut these = Vec::new();
            let mut chained = false;
            for ib in ibs {
                let name = ib["file"]
                    .as_str()
                    .ok_or_else(|| bad("an IB without its \"file\"".into()))?;
                let path = dir.join(name);
                match read_ib(&path, level, n, &mut fields, &mut these) {
                    Err(RecordedError::ChainedIb { .. }) if allow_chained => {
                        chained = true;
                        break;
                    }
                    r => r?,
                }
            }
            if chained {
                out.chained.push(n);
            }
            out.draws.extend(these);
        }
    }
    Ok(out)
}

/// Decodes one IB, applying its register writes to `fields` and noting each draw packet.
fn read_ib(
    path: &Path,
    level: GfxLevel,
    submission: u64,
    fields: &mut Fields,
    out: &mut Vec<RecordedDraw>,
) -> Result<(), RecordedError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    if bytes.len() % 4 != 0 {
        return Err(RecordedError::PartialDword {
            path: path.to_path_buf(),
            bytes: bytes.len(),
        });
    }
    let dwords: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let decoded = pm4::decode(level, &dwords);
    if let Some(e) = &decoded.error {
        return Err(RecordedError::Decode {
            path: path.to_path_buf(),
            level,
            what: format!("{e:?}"),
        });
    }
    for p in &decoded.packets {
        let name = p.opcode.name();
        if name == "INDIRECT_BUFFER" {
            return Err(RecordedError::ChainedIb {
                path: path.to_path_buf(),
            });
        }
        for w in &p.writes {
            if let Some(reg) = w.name() {
                let f = w
                    .fields()
                    .map(|(f, v)| (f.name().to_string(), u64::from(v)))
                    .collect();
                fields.insert(reg.to_string(), f);
            }
        }
        if name.starts_with("DRAW_") {
            out.push(RecordedDraw {
                submission,
                packet: name,
                fields: fields.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(fields: &[(&str, &str, u64)]) -> RecordedDraw {
        let mut f = Fields::new();
        for (r, n, v) in fields {
            f.entry(r.to_string())
                .or_default()
                .insert(n.to_string(), *v);
        }
        RecordedDraw {
            submission: 1,
            packet: "DRAW_INDEX_AUTO",
            fields: f,
        }
    }

    /// A draw is a POPS draw where the stream left PRIMITIVE_ORDERED_PIXEL_SHADER set, and an
    /// unwritten field reads as unwritten.
    #[test]
    fn a_pops_draw_is_one_with_pops_on() {
        let on = draw(&[("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 1)]);
        assert!(on.pops());
        assert_eq!(on.field("DB_Z_INFO", "NUM_SAMPLES"), None);
        assert!(!draw(&[("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 0)]).pops());
        assert!(!draw(&[]).pops());
    }

    /// A recording is read from its files: accepted submissions only, draws with the state
    /// written before them; a chained IB (but for the draws before it, where asked) and a
    /// missing recording are typed errors.
    #[test]
    fn reads_a_recording_and_refuses_what_it_cannot_read() {
        let dir = pops_testkit::scratch("recorded");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert!(matches!(
            draws(&dir, GfxLevel::Gfx11),
            Err(RecordedError::NothingRecorded { .. })
        ));
        // POPS on, then a draw.
        let level = GfxLevel::Gfx11;
        let mut cb = pm4::CmdBuf::new(level);
        cb.set_reg_fields(
            pm4::Reg::DB_SHADER_CONTROL,
            &[(pm4::Field::PRIMITIVE_ORDERED_PIXEL_SHADER, 1)],
        )
        .unwrap()
        .draw_index_auto(3)
        .unwrap();
        let ib = cb.into_dwords();
        let bytes: Vec<u8> = ib.iter().flat_map(|d| d.to_le_bytes()).collect();
        std::fs::write(dir.join("ib-1-1-0.bin"), &bytes).unwrap();
        std::fs::write(dir.join("ib-1-2-0.bin"), &bytes).unwrap();
        std::fs::write(
            dir.join("submissions-1.jsonl"),
            "{\"submission\":1,\"result\":0,\"ibs\":[{\"file\":\"ib-1-1-0.bin\"}]}\n\
             {\"submission\":2,\"result\":-22,\"ibs\":[{\"file\":\"ib-1-2-0.bin\"}]}\n",
        )
        .unwrap();
        let d = draws(&dir, level).unwrap();
        assert_eq!(d.len(), 1, "the refused submission never ran");
        assert!(d[0].pops());
        // A draw, a chained IB (a secondary command buffer), a draw: the first is read, the
        // submission is named chained, and only the whole-recording reader refuses it.
        let mut cb = pm4::CmdBuf::new(level);
        cb.set_reg_fields(
            pm4::Reg::DB_SHADER_CONTROL,
            &[(pm4::Field::PRIMITIVE_ORDERED_PIXEL_SHADER, 1)],
        )
        .unwrap()
        .draw_index_auto(3)
        .unwrap()
        .indirect_buffer(0x1000, 8)
        .unwrap()
        .draw_index_auto(3)
        .unwrap();
        let bytes: Vec<u8> = cb
            .into_dwords()
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        std::fs::write(dir.join("ib-1-3-0.bin"), &bytes).unwrap();
        std::fs::write(
            dir.join("submissions-1.jsonl"),
            "{\"submission\":3,\"result\":0,\"ibs\":[{\"file\":\"ib-1-3-0.bin\"}]}\n",
        )
        .unwrap();
        let r = draws_but_chained(&dir, level).unwrap();
        assert_eq!(r.chained, [3]);
        assert_eq!(r.draws.len(), 1, "the draw before the chain only");
        assert!(matches!(
            draws(&dir, level),
            Err(RecordedError::ChainedIb { .. })
        ));
        std::fs::write(dir.join("submissions-1.jsonl"), "not json\n").unwrap();
        assert!(matches!(
            draws(&dir, level),
            Err(RecordedError::BadLine { line: 1, .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
