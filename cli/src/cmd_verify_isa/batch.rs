//! `pops verify-isa` over many inputs in one process: files, or a folder's files, or SPIR-V
//! modules compiled one after another by RADV, verified in parallel on every core, one row each
//! in the order given and a summary table — as a driver developer runs it over everything a
//! driver build compiles. What each finding is (a known driver defect, or new) is said once, in
//! the summary, in the words every other place of pops uses.

use super::{Args, Input, Source, Verified, VerifyIsaError, NOT_READ, NOT_VERIFIED};
use crate::table::{render, Align};
use pm4::Family;
use pops_report::finding::Isa;
use pops_report::Code as Finding;
use shaders::verify;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why one input was not verified at all: named in its row (status 2); the others go on.
#[derive(Debug, thiserror::Error)]
enum NotRead {
    #[error("cannot read it: {0}")]
    Read(std::io::Error),
    #[error(transparent)]
    NotCode(super::NotCode),
    #[error(transparent)]
    Compile(super::CompileInputError),
    #[error("cannot save the code in {}: {error}", dir.display())]
    SaveCode { dir: PathBuf, error: std::io::Error },
    #[error(transparent)]
    NotChipCode(super::NotChipCode),
}

/// What the verification of one input concluded.
enum Outcome {
    NotRead(NotRead),
    Verified(Verified),
}

impl Outcome {
    /// The input's status: 2 not read, else as one input's (1 a finding, 3 not verified, 0).
    fn status(&self) -> u8 {
        match self {
            Outcome::NotRead(_) => NOT_READ,
            Outcome::Verified(v) => super::status(&v.report, &v.model),
        }
    }

    /// The findings on the driver's code (broken rules, the model's breach), each once, in the
    /// order first found.
    fn findings(&self) -> Vec<Finding> {
        let Outcome::Verified(v) = self else {
            return Vec::new();
        };
        let mut out: Vec<Finding> = Vec::new();
        let rules = v
            .report
            .findings
            .iter()
            .map(|f| Finding::Isa(Isa::Rule(f.rule)));
        let breach = matches!(v.model, Err(verify::model::ModelFinding::Breach { .. }))
            .then_some(Finding::ISA_MODEL);
        for f in rules.chain(breach) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// The row's verdict: `clean`, the findings' codes, `isa-not-verified (why)`, or why the
    /// input was not read or compiled.
    fn verdict(&self) -> String {
        let v = match self {
            Outcome::NotRead(why @ NotRead::Compile(_)) => return format!("not compiled: {why}"),
            Outcome::NotRead(why) => return format!("not read: {why}"),
            Outcome::Verified(v) => v,
        };
        let mut said: Vec<String> = self.findings().iter().map(|f| f.to_string()).collect();
        if let Err(e @ verify::model::ModelFinding::Uninterpreted { .. }) = &v.model {
            said.push(format!("{} ({e})", Finding::ISA_NOT_VERIFIED));
        }
        if said.is_empty() {
            "clean".into()
        } else {
            said.join(", ")
        }
    }
}

/// One input verified: what was concluded, and the driver that compiled the code where known.
struct Row {
    outcome: Outcome,
    driver: Option<String>,
}

/// The inputs of a batch: the files given, a folder's files (sorted).
fn batch_inputs(files: &[PathBuf]) -> Result<Vec<PathBuf>, VerifyIsaError> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let list = |error| VerifyIsaError::List {
                path: f.clone(),
                error,
            };
            // An entry the folder cannot list is an error, never an input left out unsaid.
            let mut inside: Vec<PathBuf> = std::fs::read_dir(f)
                .map_err(list)?
                .map(|e| e.map(|e| e.path()).map_err(list))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .filter(|p| p.is_file())
                .collect();
            inside.sort();
            out.extend(inside);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

/// One input of a batch as the verifier gets it: the file's code, or RADV's compilation of
/// the module (with the PS epilog the code jumps into, where it does); else why there is none.
type BatchInput = Result<Input, NotRead>;

/// The code in the file `path` (no epilog).
fn batch_file(path: &Path) -> BatchInput {
    let bytes = std::fs::read(path).map_err(NotRead::Read)?;
    Ok(Input {
        code: super::given_code(&bytes).map_err(NotRead::NotCode)?,
        epilog: None,
        compiled_by: None,
    })
}

/// RADV's compilation of the SPIR-V module `path`, saved in `--save-code DIR` as
/// `<name>.fragment.s` (and `<name>.epilog.s`) where asked. Compiled one after another: the
/// driver's debug output is read from this process's standard error.
fn batch_compiled(
    family: Family,
    path: &Path,
    a: &Args,
    device: &crate::null_device::NullDevice,
) -> BatchInput {
    let bytes = std::fs::read(path).map_err(NotRead::Read)?;
    let c = super::compile(family, &bytes, a, device).map_err(NotRead::Compile)?;
    if let Some(dir) = &a.save_code {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        super::save_code(dir, &format!("{stem}."), &c).map_err(|error| NotRead::SaveCode {
            dir: dir.clone(),
            error,
        })?;
    }
    Ok(super::compiled_input(c))
}

/// Verifies one input of a batch: the rules on every path (across the PS epilog where there is
/// one) and the model.
fn verify_one(family: Family, input: &Input) -> Row {
    Row {
        outcome: match super::verify_input(family, input) {
            Ok(v) => Outcome::Verified(v),
            Err(e) => Outcome::NotRead(NotRead::NotChipCode(e)),
        },
        driver: input.compiled_by.clone(),
    }
}

/// The inputs verified, with how long the verification took and on how many threads.
struct Batch<'a> {
    family: Family,
    /// The inputs were SPIR-V modules, compiled by the driver.
    compiled: bool,
    paths: &'a [PathBuf],
    rows: &'a [Row],
    seconds: f64,
    threads: usize,
}

impl Batch<'_> {
    fn count(&self, status: u8) -> usize {
        self.rows
            .iter()
            .filter(|r| r.outcome.status() == status)
            .count()
    }

    /// The worst status: 2 unreadable, 1 a finding, 3 not verified, else 0.
    fn status(&self) -> u8 {
        [NOT_READ, 1, NOT_VERIFIED]
            .into_iter()
            .find(|&st| self.count(st) > 0)
            .unwrap_or(0)
    }
}

/// The line that says how many inputs were verified, how fast, on how many threads.
fn throughput(b: &Batch<'_>) -> String {
    let read = b.rows.len() - b.count(NOT_READ);
    format!(
        "pops verify-isa: {} input(s) as {}; {read} verified in {:.3} s on {} thread(s): {:.1} per second per thread",
        b.rows.len(),
        b.family.name(),
        b.seconds,
        b.threads,
        read as f64 / b.seconds.max(1e-9) / b.threads.max(1) as f64,
    )
}

/// The JSON document: each input's verification (the document of one input) or why it was not
/// read or compiled, with its status. Pure.
fn batch_document(b: &Batch<'_>) -> pops_report::VerifyIsaBatchDocument {
    let input = |(p, r): (&PathBuf, &Row)| pops_report::VerifyIsaBatchInput {
        file: p.display().to_string(),
        status: r.outcome.status(),
        verification: match &r.outcome {
            Outcome::Verified(v) => Some(super::document(
                &Source {
                    family: b.family,
                    format: v.format,
                    compiled_by: r.driver.as_deref(),
                },
                &v.report,
                &v.model,
            )),
            Outcome::NotRead(_) => None,
        },
        not_read: match &r.outcome {
            Outcome::NotRead(why) => Some(why.to_string()),
            Outcome::Verified(_) => None,
        },
    };
    pops_report::VerifyIsaBatchDocument {
        chip: b.family.name().to_string(),
        inputs: b.paths.iter().zip(b.rows).map(input).collect(),
    }
}

/// The text: a row per input in the order given, the throughput, a table of outcomes and one of
/// findings — each finding with the inputs that have it and what it is. Pure.
fn render_batch(b: &Batch<'_>) -> String {
    let text = |s: &str| s.to_string();
    let mut rows = vec![vec![text("input"), text("instructions"), text("verdict")]];
    for (p, r) in b.paths.iter().zip(b.rows) {
        let instructions = match &r.outcome {
            Outcome::Verified(v) => v.report.instructions.to_string(),
            Outcome::NotRead(_) => text("-"),
        };
        rows.push(vec![
            p.display().to_string(),
            instructions,
            r.outcome.verdict(),
        ]);
    }
    let mut o = render(&rows, &[Align::Left, Align::Right, Align::Left], 2);
    let _ = writeln!(o, "\n{}", throughput(b));
    let mut outcomes = vec![vec![text("outcome"), text("inputs")]];
    for (what, status) in [
        ("clean", 0),
        ("with findings", 1),
        ("not verified", NOT_VERIFIED),
        (
            if b.compiled {
                "not compiled"
            } else {
                "not read"
            },
            NOT_READ,
        ),
    ] {
        outcomes.push(vec![text(what), b.count(status).to_string()]);
    }
    o.push_str(&render(&outcomes, &[Align::Left, Align::Right], 2));
    let mut seen: BTreeMap<(Finding, Option<&str>), usize> = BTreeMap::new();
    for r in b.rows {
        for f in r.outcome.findings() {
            *seen.entry((f, r.driver.as_deref())).or_default() += 1;
        }
    }
    if !seen.is_empty() {
        let mut table = vec![vec![text("finding"), text("inputs"), text("what it is")]];
        for ((f, driver), n) in &seen {
            let what = super::explained(b.family, *driver, *f).words();
            table.push(vec![f.to_string(), n.to_string(), what]);
        }
        o.push('\n');
        o.push_str(&render(
            &table,
            &[Align::Left, Align::Right, Align::Left],
            2,
        ));
    }
    o
}

/// Verifies the readable `inputs` on every core, each once, and gives every input's row in the
/// order given (an unreadable one's says why) with the seconds taken and the threads used;
/// `None` where a verifying thread failed.
fn verify_parallel(family: Family, inputs: Vec<BatchInput>) -> Option<(Vec<Row>, f64, usize)> {
    let readable: Vec<(usize, &Input)> = inputs
        .iter()
        .enumerate()
        .filter_map(|(k, i)| Some((k, i.as_ref().ok()?)))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(readable.len().max(1));
    let start = std::time::Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<(usize, Row)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((k, input)) = readable.get(n) else {
                            break;
                        };
                        mine.push((*k, verify_one(family, input)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut slots: Vec<Option<Row>> = inputs.iter().map(|_| None).collect();
    for (k, row) in done {
        slots[k] = Some(row);
    }
    let rows = inputs
        .into_iter()
        .zip(slots)
        .map(|(input, slot)| match input {
            Err(why) => Some(Row {
                outcome: Outcome::NotRead(why),
                driver: None,
            }),
            Ok(_) => slot,
        })
        .collect::<Option<Vec<Row>>>()?;
    Some((rows, seconds, threads))
}

/// Several inputs verified in parallel on every core: a row each, in the order given, and the
/// summary. The status is the worst: 2 unreadable, 1 a finding, 3 not verified, else 0.
pub(super) fn verify_batch(a: &Args) -> Result<ExitCode, VerifyIsaError> {
    let family = Family::parse_chip_or_level(&a.chip).map_err(VerifyIsaError::Chip)?;
    if a.epilog.is_some() {
        return Err(VerifyIsaError::OneInput("--epilog"));
    }
    // Compiling needs RADV on a null device of the chip: a preloaded shim needs a fresh
    // process, so this runs before anything is read.
    let device = if a.compile {
        Some(super::null_device(a, family)?)
    } else {
        None
    };
    let paths = batch_inputs(&a.files)?;
    let compiling = std::time::Instant::now();
    let inputs: Vec<BatchInput> = match &device {
        Some(d) => paths
            .iter()
            .map(|p| batch_compiled(family, p, a, d))
            .collect(),
        None => paths.iter().map(|p| batch_file(p)).collect(),
    };
    if let Some(d) = &device {
        let driver = inputs.iter().flatten().find_map(|i| i.compiled_by.clone());
        eprintln!(
            "pops verify-isa: {} of {} module(s) compiled by {} on {} in {:.3} s, one after another (the driver's time, apart from the verification below)",
            inputs.iter().flatten().count(),
            paths.len(),
            driver.as_deref().unwrap_or("the driver"),
            d.describe(family),
            compiling.elapsed().as_secs_f64()
        );
    }
    let Some((rows, seconds, threads)) = verify_parallel(family, inputs) else {
        eprintln!("pops verify-isa: a verifying thread failed: not every input was verified");
        return Ok(ExitCode::from(NOT_READ));
    };
    let batch = Batch {
        family,
        compiled: a.compile,
        paths: &paths,
        rows: &rows,
        seconds,
        threads,
    };
    if a.json {
        let s = serde_json::to_string_pretty(&batch_document(&batch))?;
        println!("{s}");
        eprintln!("{}", throughput(&batch));
    } else {
        print!("{}", render_batch(&batch));
    }
    Ok(ExitCode::from(batch.status()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shaders::verify::Rule;

    /// A row of code verified: breaking `rules` (each once), and not run in the model where
    /// `uninterpreted`.
    fn verified(rules: &[Rule], uninterpreted: bool, driver: Option<&str>) -> Row {
        let finding = |&rule: &Rule| verify::Finding {
            rule,
            addr: 0x1d0,
            text: "s_setpc_b64 s[4:5]".into(),
            message: "jumps to the PS epilog with stores outstanding".into(),
            path: vec![0],
            excerpt: Vec::new(),
        };
        let model = if uninterpreted {
            Err(verify::model::ModelFinding::Uninterpreted {
                addr: 0x10,
                text: "s_foo".into(),
                why: verify::model::Unmodelled::Operand(3),
            })
        } else {
            Ok(verify::model::ModelRun {
                entry_instructions: 3,
                skipped: Vec::new(),
                runs: 16,
                waves: 362,
                wraps: 8,
                overlapped_waves: 336,
                polls: 0,
                steps: 2878,
            })
        };
        Row {
            outcome: Outcome::Verified(Verified {
                format: verify::Format::RadvBinary,
                report: verify::Report {
                    level: pm4::GfxLevel::Gfx11,
                    instructions: 40,
                    exits: Vec::new(),
                    wait_loops: Vec::new(),
                    findings: rules.iter().map(finding).collect(),
                    epilog_base: None,
                },
                model,
            }),
            driver: driver.map(str::to_string),
        }
    }

    fn text(rows: &[Row]) -> String {
        let paths: Vec<PathBuf> = (0..rows.len())
            .map(|k| PathBuf::from(format!("shader-{k}.s")))
            .collect();
        render_batch(&Batch {
            family: Family::Navi31,
            compiled: true,
            paths: &paths,
            rows,
            seconds: 0.5,
            threads: 2,
        })
    }

    /// A row of a file that could not be read.
    fn unreadable() -> Row {
        Row {
            outcome: Outcome::NotRead(NotRead::Read(std::io::ErrorKind::NotFound.into())),
            driver: None,
        }
    }

    /// Two rows, of `a.s` and `b.s`, as navi31 code.
    fn two(rows: &[Row]) -> Batch<'_> {
        static PATHS: std::sync::OnceLock<[PathBuf; 2]> = std::sync::OnceLock::new();
        Batch {
            family: Family::Navi31,
            compiled: false,
            paths: PATHS.get_or_init(|| ["a.s", "b.s"].map(PathBuf::from)),
            rows,
            seconds: 0.0,
            threads: 1,
        }
    }

    const GAP: &str = "isa-ordered-section-open-at-epilog";
    const OPEN: Rule = Rule::OpenAtEpilogJump;

    /// A finding is said once under the table with the inputs that have it and what it is, in
    /// the words every place of pops uses: the known defect on the releases it is known on, new
    /// on a release where nothing explains it.
    #[test]
    fn each_finding_is_counted_once_and_named_by_the_known_defect_table() {
        let today = Some("radv (Mesa 26.2.6-1)");
        let rows = [
            verified(&[OPEN, OPEN], false, today),
            verified(&[], false, today),
            verified(&[OPEN], false, today),
            verified(&[OPEN], false, Some("radv (Mesa 25.0.7-2)")),
        ];
        let out = text(&rows);
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[1].starts_with("shader-0.s") && lines[1].ends_with(GAP),
            "{out}"
        );
        assert!(lines[2].ends_with("  40  clean"), "{out}");
        assert!(
            lines[6].ends_with("4 input(s) as navi31; 4 verified in 0.500 s on 2 thread(s): 4.0 per second per thread"),
            "{out}"
        );
        let gap: Vec<&&str> = lines.iter().filter(|l| l.starts_with(GAP)).collect();
        assert_eq!(gap.len(), 2, "{out}");
        assert!(
            gap.iter()
                .any(|l| l.contains(" 2  known defect aco-epilog-store-gap")),
            "{out}"
        );
        assert!(
            gap.iter()
                .any(|l| l.contains(" 1  NEW: no known driver defect explains this finding")),
            "{out}"
        );
        assert_eq!(rows.iter().map(|r| r.outcome.status()).max(), Some(1));
    }

    /// Not verified is a status of its own (3), below a finding (1) and an unreadable input
    /// (2); its row says why in the finding vocabulary's word, and a run without findings has no
    /// findings table.
    #[test]
    fn the_worst_status_wins_and_a_row_says_why_it_was_not_verified() {
        let why = "the model cannot interpret s_foo at 0x10: operand 3 is not modelled";
        let rows = [verified(&[], true, None), verified(&[], false, None)];
        let b = two(&rows);
        assert_eq!(b.status(), NOT_VERIFIED);
        let out = render_batch(&b);
        assert!(out.contains(&format!("isa-not-verified ({why})")), "{out}");
        assert!(!out.contains("what it is"), "{out}");
        let rows = [verified(&[OPEN], false, None), unreadable()];
        let b = Batch { rows: &rows, ..b };
        assert_eq!(b.status(), 2);
        let out = render_batch(&b);
        assert!(out.contains("  -  not read: cannot read it: "), "{out}");
        assert!(out.contains("; 1 verified in "), "{out}");
    }

    /// The JSON document holds each input's verification as one input's document — its
    /// findings with the report's code and the known defect that explains them on that driver —
    /// or why it was not read, each with its status.
    #[test]
    fn the_json_document_holds_each_inputs_verification_or_why_not() {
        let rows = [
            verified(&[OPEN], false, Some("radv (Mesa 26.2.6-1)")),
            unreadable(),
        ];
        let doc = batch_document(&two(&rows));
        assert_eq!(doc.chip, "navi31");
        let [a, b] = &doc.inputs[..] else {
            panic!("{doc:?}")
        };
        assert_eq!((a.file.as_str(), a.status), ("a.s", 1));
        let f = &a.verification.as_ref().expect("verified").findings[0];
        assert_eq!(f.code, GAP);
        assert_eq!(f.known_defect.as_deref(), Some("aco-epilog-store-gap"));
        assert_eq!((b.file.as_str(), b.status), ("b.s", 2));
        assert!(b.verification.is_none());
        assert!(b
            .not_read
            .as_deref()
            .is_some_and(|w| w.starts_with("cannot read it: ")));
    }
}
