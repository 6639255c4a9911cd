//! `pops replay --csv` (one row per interlocked pipeline, fossil-db's conventions) and
//! `--compare BEFORE AFTER` (the pipelines whose verdict changed between two driver builds).

use super::{ReplayError, Replayed};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The CSV's columns, written and read.
pub(super) const CSV_HEADER: &str = "archive,pipeline,executable,chip,driver,verdict,findings";

/// fossil-db's conventions: a header, then one row per pipeline, comma-separated (a field with a
/// comma or quote quoted), finding codes joined by `;`.
pub(super) fn csv_text(all: &[Replayed]) -> String {
    let field = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut o = format!("{CSV_HEADER}\n");
    for row in all.iter().flat_map(|r| &r.rows) {
        let _ = writeln!(
            o,
            "{},{},fragment,{},{},{},{}",
            field(&row.archive),
            field(&row.pipeline),
            field(&row.chip),
            field(&row.driver),
            field(&row.verdict),
            field(&row.codes.join(";"))
        );
    }
    o
}

/// The verdicts a CSV gives: (archive file name, archive pipeline, chip) → the verdict or
/// findings of each row so named (one; several only where a replay could not tell pipelines
/// apart), sorted.
type Verdicts = std::collections::BTreeMap<(String, String, String), Vec<String>>;

/// The fields of one CSV line as [`csv_text`] writes them: comma-separated, a quoted field's
/// doubled quotes one.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().expect("one field at least");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => field.push(c),
        }
    }
    fields
}

/// Reads a `--csv` file.
fn read_csv(path: &Path) -> Result<(Verdicts, Option<String>), ReplayError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReplayError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut out = Verdicts::new();
    let mut driver = None;
    for (k, line) in text.lines().enumerate().skip(1) {
        let f = csv_fields(line);
        let [archive, pipeline, _, chip, drv, verdict, findings] = &f[..] else {
            return Err(ReplayError::Row {
                path: path.to_path_buf(),
                line: k + 1,
            });
        };
        driver.get_or_insert_with(|| drv.clone());
        let name = Path::new(archive)
            .file_name()
            .map_or(archive.clone(), |n| n.to_string_lossy().into_owned());
        let said = if findings.is_empty() {
            verdict.to_string()
        } else {
            findings.replace(';', ", ")
        };
        out.entry((name, pipeline.clone(), chip.clone()))
            .or_default()
            .push(said);
    }
    for v in out.values_mut() {
        v.sort();
    }
    Ok((out, driver))
}

/// `--compare BEFORE AFTER`: the pipelines whose verdicts differ, new findings first.
pub(super) fn compare_csv(before: &Path, after: &Path) -> Result<ExitCode, ReplayError> {
    let (b, bd) = read_csv(before)?;
    let (a, ad) = read_csv(after)?;
    let who = |d: &Option<String>, p: &Path| d.clone().unwrap_or_else(|| p.display().to_string());
    println!(
        "pops replay: {} (before) against {} (after)",
        who(&bd, before),
        who(&ad, after)
    );
    let mut new = Vec::new();
    let mut other = Vec::new();
    let keys: std::collections::BTreeSet<_> = b.keys().chain(a.keys()).collect();
    for key in keys {
        let (was, is) = (b.get(key), a.get(key));
        if was == is {
            continue;
        }
        let show =
            |v: Option<&Vec<String>>| v.map_or("not in this replay".to_string(), |v| v.join(" | "));
        let line = format!(
            "{} {} as {}: {} -> {}",
            key.0,
            key.1,
            key.2,
            show(was),
            show(is)
        );
        let finding = |v: Option<&Vec<String>>| {
            v.is_some_and(|v| v.iter().any(|s| s != "verified" && s != "not verified"))
        };
        if finding(is) && !finding(was) {
            new.push(line);
        } else {
            other.push(line);
        }
    }
    for l in &new {
        println!("NEW FINDING  {l}");
    }
    for l in &other {
        println!("changed      {l}");
    }
    println!(
        "pops replay: {} pipeline(s) (per archive and chip) with a new finding, {} otherwise changed, of {} before and {} after",
        new.len(),
        other.len(),
        b.len(),
        a.len()
    );
    Ok(if new.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::super::CsvRow;
    use super::*;
    use pm4::Family;

    /// What `--csv` writes, `--compare` reads back field for field, quoted fields included.
    #[test]
    fn csv_rows_read_back_as_written() {
        let replayed = Replayed {
            archive: "/tmp/a, b \"c\".foz".into(),
            chip: Some(Family::Navi31),
            verdicts: None,
            failed: None,
            rows: vec![CsvRow {
                archive: "/tmp/a, b \"c\".foz".into(),
                pipeline: "8dd2b5630eb28b22".into(),
                chip: "navi31".into(),
                driver: "radv (Mesa 26.2.6-1)".into(),
                verdict: "finding".into(),
                codes: vec![
                    "isa-model".into(),
                    "isa-ordered-section-open-at-epilog".into(),
                ],
            }],
        };
        let text = csv_text(&[replayed]);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER));
        assert_eq!(
            csv_fields(lines.next().unwrap()),
            [
                "/tmp/a, b \"c\".foz",
                "8dd2b5630eb28b22",
                "fragment",
                "navi31",
                "radv (Mesa 26.2.6-1)",
                "finding",
                "isa-model;isa-ordered-section-open-at-epilog"
            ]
        );
    }
}
