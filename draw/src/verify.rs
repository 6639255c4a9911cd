//! Verification of a capture of `pops selftest --draw`: every recorded IB is read back from the
//! capture directory, decoded with `pm4::decode`, must be the stream the run built, and (when the
//! reference folder is available) must match the reference draw as `reference::compare` states.

use crate::reference::{compare, radv_stream, reference_file};
use crate::run::Report;
use pops_report::selftest::{DrawCaptureChecks, DrawSubmissionCheck};
use std::fmt::Write as _;
use std::path::Path;

/// The verdict on one recorded submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub label: String,
    pub decoded_packets: usize,
    /// Registers programmed as the reference does (`None`: no reference available).
    pub same_as_reference: Option<usize>,
    /// Listed differences found.
    pub listed_differences: usize,
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    pub submissions: Vec<Verified>,
    /// Why there was no reference comparison, if there was none.
    pub reference_note: Option<String>,
}

impl Verification {
    pub fn all_ok(&self) -> bool {
        self.submissions.iter().all(|s| s.problem.is_none())
    }

    /// The verification as the draw's JSON document writes it (`capture`).
    pub fn document(&self) -> DrawCaptureChecks {
        DrawCaptureChecks {
            ok: self.all_ok(),
            reference: self
                .reference_note
                .clone()
                .unwrap_or_else(|| "compared".into()),
            submissions: self
                .submissions
                .iter()
                .map(|s| DrawSubmissionCheck {
                    label: s.label.clone(),
                    decoded_packets: s.decoded_packets,
                    same_as_reference: s.same_as_reference,
                    listed_differences: s.listed_differences,
                    problem: s.problem.clone(),
                })
                .collect(),
        }
    }

    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "capture verification (decoded with pm4::decode, compared with the reference draw):"
        );
        if let Some(n) = &self.reference_note {
            let _ = writeln!(s, "  reference: {n}");
        }
        for v in &self.submissions {
            let _ = writeln!(
                s,
                "  {:<48} {:>4} packets  same {:>4}  listed differences {:>3}  {}",
                v.label,
                v.decoded_packets,
                v.same_as_reference.map_or("-".into(), |x| x.to_string()),
                v.listed_differences,
                v.problem.as_deref().unwrap_or("ok")
            );
        }
        s
    }
}

/// Why a capture could not be verified at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("reading the capture: {0}")]
    Capture(#[from] winsys::WinsysError),
}

/// A file whose length is not a whole number of dwords.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} bytes is not a whole number of dwords")]
pub struct PartialDword(pub usize);

/// A reference IB file's dwords. A partial trailing dword means a damaged file: comparing
/// against it with the tail silently dropped would hide that.
fn dwords_of(bytes: &[u8]) -> Result<Vec<u32>, PartialDword> {
    if !bytes.len().is_multiple_of(4) {
        return Err(PartialDword(bytes.len()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// libdrm's reference stream of `level` from the libdrm-draw folder `dir`, or why there is none.
fn libdrm_reference(
    level: pm4::GfxLevel,
    dir: Option<&Path>,
) -> (Option<Vec<u32>>, Option<String>) {
    match dir.zip(reference_file(level)) {
        Some((d, file)) => {
            let p = d.join(file);
            match std::fs::read(&p)
                .map_err(|e| e.to_string())
                .and_then(|b| dwords_of(&b).map_err(|e| e.to_string()))
            {
                Ok(words) => (Some(words), None),
                Err(e) => (
                    None,
                    Some(format!("{}: {e}; decode-only verification", p.display())),
                ),
            }
        }
        None if reference_file(level).is_none() => (
            None,
            Some(format!(
                "no reference draw of {level} in the reference data; decode-only verification"
            )),
        ),
        None => (
            None,
            Some("no reference folder given; decode-only verification".into()),
        ),
    }
}

/// Verifies the capture in `dir` of the run `report`; `reference_dir` is the libdrm-draw folder.
pub fn verify_capture(
    dir: &Path,
    report: &Report,
    reference_dir: Option<&Path>,
) -> Result<Verification, VerifyError> {
    let cap = winsys::capture::load(dir)?;
    let level = cap.gfx_level;
    let (reference, note) = match radv_stream(level) {
        // GFX12: RADV's recorded draw, carried in the binary.
        Some(Ok(words)) => (Some(words), None),
        Some(Err(e)) => (
            None,
            Some(format!(
                "RADV's reference draw does not decode: {e}; decode-only verification"
            )),
        ),
        None => libdrm_reference(level, reference_dir),
    };
    let built: Vec<&crate::run::VariantResult> =
        report.results.iter().filter(|r| !r.ib.is_empty()).collect();
    let mut out = Vec::new();
    if cap.submissions.len() != built.len() {
        out.push(Verified {
            label: "index.json".into(),
            decoded_packets: 0,
            same_as_reference: None,
            listed_differences: 0,
            problem: Some(format!(
                "{} submissions recorded, {} variants built",
                cap.submissions.len(),
                built.len()
            )),
        });
    }
    for ((label, ib), r) in cap.submissions.iter().zip(built) {
        let decoded = pm4::decode(level, ib);
        let mut v = Verified {
            label: label.clone(),
            decoded_packets: decoded.packets.len(),
            same_as_reference: None,
            listed_differences: 0,
            problem: None,
        };
        if let Some(e) = &decoded.error {
            v.problem = Some(format!("does not decode: {e}"));
        } else if !ib.starts_with(&r.ib) {
            v.problem = Some(format!("is not the stream built for {}", r.variant.name()));
        } else if let Some(reference) = &reference {
            match compare(level, ib, reference) {
                Ok(c) => {
                    v.same_as_reference = Some(c.same);
                    v.listed_differences = c.differences.len();
                    let unlisted: Vec<String> = c.unlisted().map(|m| m.name.clone()).collect();
                    if !unlisted.is_empty() {
                        v.problem = Some(format!(
                            "unlisted differences from the reference: {}",
                            unlisted.join(", ")
                        ));
                    }
                }
                Err(e) => v.problem = Some(format!("reference does not decode: {e}")),
            }
        }
        out.push(v);
    }
    Ok(Verification {
        submissions: out,
        reference_note: note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_with_a_partial_dword_is_refused_not_truncated() {
        assert_eq!(
            dwords_of(&[0x00, 0x28, 0x01, 0xc0, 7, 0, 0, 0]),
            Ok(vec![0xc001_2800, 7])
        );
        let e = dwords_of(&[0x00, 0x28, 0x01, 0xc0, 7])
            .unwrap_err()
            .to_string();
        assert!(e.contains("5 bytes is not a whole number of dwords"), "{e}");
    }
}
