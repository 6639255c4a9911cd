//! What the layer's `verify_isa` concluded over a report, per chip and driver: interlocked
//! pipelines, libraries and shader objects verified, with each finding, not verified and why —
//! and each finding of a driver's code or state named as the known driver defect it is, or as
//! new (`pops_report::defects`). `pops run` ends with it, `pops report` and its page show it.
//! Pure: records in, counts and words out.

use pops_report::defects::{explain, ChipOf, Explained};
use pops_report::finding::{Code, Isa, Run};
use pops_report::read::Resolved;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One chip and driver's verdicts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChipVerdicts {
    pub chip: String,
    /// `radv (Mesa 26.2.6-1)`, where the records name it.
    pub driver: Option<String>,
    /// Interlocked objects (pipelines, libraries, shader objects) with a verify_isa verdict.
    pub objects: usize,
    pub verified: usize,
    /// Objects with each finding of the driver's code.
    pub findings: BTreeMap<Code, usize>,
    /// Objects not verified, by the reason given.
    pub not_verified: BTreeMap<String, usize>,
}

/// Every chip's verdicts, and the driver findings seen in the report (draw records too).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verification {
    pub chips: Vec<ChipVerdicts>,
    /// Each driver finding once per (code, chip, driver): how many records carry it.
    pub defects: Vec<Seen>,
}

/// A finding of a driver's code or state, with what the known-defect table says of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub code: Code,
    pub chip: Option<String>,
    pub driver: Option<String>,
    pub records: usize,
    pub explained: Explained,
}

impl Seen {
    pub fn known(&self) -> bool {
        self.explained.defect().is_some()
    }
}

/// The reason an `isa-not-verified` message gives: what its parentheses hold, else the message.
fn reason(message: &str) -> String {
    match (message.find('('), message.rfind(')')) {
        (Some(a), Some(b)) if a < b => message[a + 1..b].to_string(),
        _ => message.to_string(),
    }
}

impl Verification {
    /// Counts one record (an interlocked one: the caller leaves out records without interlock).
    pub fn add(&mut self, r: &Resolved) {
        for d in r
            .diagnostics
            .iter()
            .filter(|d| d.code.is_about_the_driver())
        {
            self.seen(d.code, r.chip.as_deref(), r.driver.as_deref());
        }
        if r.kind == pops_report::Kind::Draw {
            return;
        }
        let isa: Vec<_> = r
            .diagnostics
            .iter()
            .filter(|d| matches!(d.code, Code::Isa(_)))
            .collect();
        if isa.is_empty() {
            return;
        }
        let chip = r.chip.clone().unwrap_or_else(|| "-".to_string());
        let k = match self
            .chips
            .iter()
            .position(|c| c.chip == chip && c.driver == r.driver)
        {
            Some(k) => k,
            None => {
                self.chips.push(ChipVerdicts {
                    chip,
                    driver: r.driver.clone(),
                    ..Default::default()
                });
                self.chips.len() - 1
            }
        };
        let c = &mut self.chips[k];
        c.objects += 1;
        for d in isa {
            match d.code {
                Code::Isa(Isa::Verified) => c.verified += 1,
                Code::Isa(Isa::NotVerified) => {
                    *c.not_verified.entry(reason(&d.message)).or_default() += 1
                }
                code => *c.findings.entry(code).or_default() += 1,
            }
        }
    }

    /// A driver finding (the layer's, or one `pops run` made of what RADV submitted).
    pub fn seen(&mut self, code: Code, chip: Option<&str>, driver: Option<&str>) {
        match self
            .defects
            .iter_mut()
            .find(|s| s.code == code && s.chip.as_deref() == chip && s.driver.as_deref() == driver)
        {
            Some(s) => s.records += 1,
            None => self.defects.push(Seen {
                code,
                chip: chip.map(str::to_string),
                driver: driver.map(str::to_string),
                records: 1,
                explained: explain(code, ChipOf::parse(chip), driver),
            }),
        }
    }

    /// What the submitted-draw check found: `draws` draws without POPS that ran with the
    /// missed-overlap drain an earlier POPS draw left on, a finding of the run where any did.
    pub fn drain_left_on(&mut self, draws: usize, chip: &str, driver: Option<&str>) {
        if draws > 0 {
            self.seen(Code::Run(Run::PopsDrainLeftOn), Some(chip), driver);
        }
    }

    /// Whether a finding stands that no known defect explains.
    pub fn any_new(&self) -> bool {
        self.defects.iter().any(|s| !s.known())
    }
}

/// The lines `pops run` and `pops report` end with: one per chip and driver with what was
/// verified, then each driver finding, known or new. Empty where nothing was verified and nothing
/// found.
pub fn render(v: &Verification, who: &str) -> String {
    let mut o = String::new();
    for c in &v.chips {
        let mut parts = vec![format!("{} verified clean", c.verified)];
        parts.extend(
            c.findings
                .iter()
                .map(|(code, n)| format!("{n} with {code}")),
        );
        parts.extend(
            c.not_verified
                .iter()
                .map(|(why, n)| format!("{n} not verified ({why})")),
        );
        let _ = writeln!(
            o,
            "{who}: verify_isa on {}{}: {} interlocked pipeline(s), librar(ies) and shader object(s): {}",
            c.chip,
            c.driver.as_deref().map_or(String::new(), |d| format!(" with {d}")),
            c.objects,
            parts.join(", ")
        );
    }
    for s in &v.defects {
        let _ = writeln!(
            o,
            "{who}: finding {} on {}{} ({} record(s)): {}",
            s.code,
            s.chip.as_deref().unwrap_or("an unknown chip"),
            s.driver
                .as_deref()
                .map_or(String::new(), |d| format!(" with {d}")),
            s.records,
            s.explained.words()
        );
    }
    if v.any_new() {
        let _ = writeln!(
            o,
            "{who}: a finding above is NEW: no known driver defect explains it (docs/defects.md lists the known ones)"
        );
    }
    o
}

/// One line for everything the report found, each known defect once with the chips and driver
/// releases it was seen on, then each new finding: what `pops report` (and the main job) ends
/// with. Empty where nothing was verified or found.
pub fn render_found(v: &Verification, who: &str) -> String {
    use pops_report::defects::{driver_release, KNOWN_DEFECTS};
    if v.defects.is_empty() {
        return if v.chips.is_empty() {
            String::new()
        } else {
            format!("{who}: driver defects found: none in the code and state checked\n")
        };
    }
    let mut parts = Vec::new();
    for d in KNOWN_DEFECTS {
        let seen: Vec<&Seen> = v
            .defects
            .iter()
            .filter(|s| s.explained.defect().is_some_and(|k| k.id == d.id))
            .collect();
        if seen.is_empty() {
            continue;
        }
        let mut chips: Vec<&str> = Vec::new();
        for c in seen.iter().filter_map(|s| s.chip.as_deref()) {
            if !chips.contains(&c) {
                chips.push(c);
            }
        }
        let mut releases: Vec<String> = seen
            .iter()
            .filter_map(|s| s.driver.as_deref().and_then(driver_release))
            .map(|r| format!("Mesa {r}"))
            .collect();
        releases.sort();
        releases.dedup();
        parts.push(format!(
            "{} ({} {}, known in {}) on {}{}",
            d.id,
            d.driver.to_uppercase(),
            d.component.split(" (").next().unwrap_or(d.component),
            d.releases,
            chips.join(", "),
            if releases.is_empty() {
                String::new()
            } else {
                format!(" with {}", releases.join(", "))
            }
        ));
    }
    for s in v.defects.iter().filter(|s| !s.known()) {
        parts.push(format!(
            "NEW {} on {}{}",
            s.code,
            s.chip.as_deref().unwrap_or("an unknown chip"),
            s.driver
                .as_deref()
                .map_or(String::new(), |d| format!(" with {d}"))
        ));
    }
    format!("{who}: driver defects found: {}\n", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pops_report::{Diagnostic, Severity};

    fn record(
        kind: pops_report::Kind,
        chip: &str,
        driver: &str,
        codes: &[(&str, &str)],
    ) -> Resolved {
        let line = serde_json::json!({
            "schema_version": 2, "id": 1, "app": "a", "device": "d", "kind": kind.name(),
            "handle": "0x1", "entry_point": "main", "interlock": "pixel-ordered",
            "begin_count": 1, "end_count": 1, "per_sample": false, "samples": 1,
            "chip": chip, "driver": driver, "source": "shader_module",
            "diagnostics": codes.iter().map(|(c, m)| Diagnostic::new(
                if *c == "isa-verified" || *c == "isa-not-verified" { Severity::Info } else { Severity::Error },
                c.parse().expect("a finding code"), *m)).collect::<Vec<_>>(),
        });
        serde_json::from_value(line).expect("a record")
    }

    /// GFX11: "The same requirements for awaiting the memory access counters as on GFX9–10.3
    /// still apply": a run on navi31 with today's RADV shows what was verified and names the
    /// epilog gap as the known defect; the same finding with Mesa 25.0.7 is new.
    #[test]
    fn counts_per_chip_and_findings_known_or_new() {
        use pops_report::Kind::{Draw, Pipeline, ShaderObject};
        let mut v = Verification::default();
        let d26 = "radv (Mesa 26.2.6-1)";
        v.add(&record(Pipeline, "navi31", d26, &[("isa-verified", "ok")]));
        v.add(&record(
            ShaderObject,
            "navi31",
            d26,
            &[("isa-ordered-section-open-at-epilog", "gap")],
        ));
        v.add(&record(
            Draw,
            "navi31",
            d26,
            &[("isa-ordered-section-open-at-epilog", "gap")],
        ));
        v.add(&record(
            Pipeline,
            "navi31",
            d26,
            &[(
                "isa-not-verified",
                "could not be read (an NSA image instruction): not verified",
            )],
        ));
        assert_eq!(v.chips.len(), 1);
        let c = &v.chips[0];
        assert_eq!((c.objects, c.verified), (3, 1));
        assert_eq!(
            c.findings
                .get(&"isa-ordered-section-open-at-epilog".parse().unwrap()),
            Some(&1)
        );
        assert_eq!(c.not_verified.get("an NSA image instruction"), Some(&1));
        assert_eq!(v.defects.len(), 1);
        assert_eq!(v.defects[0].records, 2);
        assert!(!v.any_new());
        let text = render(&v, "pops run");
        assert!(
            text.contains("verify_isa on navi31 with radv (Mesa 26.2.6-1): 3 interlocked"),
            "{text}"
        );
        assert!(
            text.contains("1 not verified (an NSA image instruction)"),
            "{text}"
        );
        assert!(text.contains("known defect aco-epilog-store-gap"), "{text}");

        v.add(&record(
            Pipeline,
            "navi31",
            "radv (Mesa 25.0.7)",
            &[("isa-ordered-section-open-at-epilog", "gap")],
        ));
        assert!(v.any_new());
        assert!(render(&v, "pops run").contains("NEW: no known driver defect"));
    }
}
