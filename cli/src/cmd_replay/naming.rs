//! Which archive pipeline each interlocked record of a replay is. The layer's record carries the
//! Fossilize hash of its fragment stage's module; the archive says which of its pipelines hold
//! that module. Where as many pipelines that no other links (libraries are linked) hold it as
//! there are records, and the records all got the same verdict (which is which then changes
//! nothing), the names are given at once; otherwise each candidate pipeline is replayed alone
//! (`fossilize-replay --pipeline-hash`) and its own record read.

use compare::fossilize::ArchivePipelines;
use std::collections::BTreeMap;

/// An interlocked pipeline record of a replay's report, as the CSV needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Seen {
    /// Fossilize's hash of the fragment stage's module; `None` where the SPIR-V was not visible.
    pub module: Option<String>,
    /// The chip the layer saw (`-` where none: a device that is no AMD chip).
    pub chip: String,
    pub driver: String,
    pub verdict: String,
    /// Finding and not-verified codes, sorted (`isa-verified` left out).
    pub codes: Vec<String>,
}

/// A pipeline name where the archive gives none (the stage's module is not in it, or not seen).
pub(super) const UNNAMED: &str = "-";

/// `seen`, each with the archive pipeline it is. `alone(hash)` replays one pipeline by itself
/// and gives its records, or `None` where that replay failed: those rows are then named by all
/// their candidates, `a|b|c`.
pub(super) fn name(
    seen: Vec<Seen>,
    archive: &ArchivePipelines,
    mut alone: impl FnMut(&str) -> Option<Vec<Seen>>,
) -> Vec<(String, Seen)> {
    let mut groups: BTreeMap<Option<String>, Vec<Seen>> = BTreeMap::new();
    for s in seen {
        groups.entry(s.module.clone()).or_default().push(s);
    }
    let mut out = Vec::new();
    for (module, group) in groups {
        let candidates = module
            .as_deref()
            .map(|m| archive.with_module(m))
            .unwrap_or_default();
        let alike = group
            .iter()
            .all(|s| (&s.verdict, &s.codes) == (&group[0].verdict, &group[0].codes));
        let unlinked: Vec<String> = candidates
            .iter()
            .filter(|c| !archive.is_linked(c))
            .cloned()
            .collect();
        if candidates.is_empty() {
            out.extend(group.into_iter().map(|s| (UNNAMED.to_string(), s)));
        } else if unlinked.len() == group.len() && alike {
            out.extend(unlinked.into_iter().zip(group));
        } else {
            out.extend(one_by_one(
                &candidates,
                module.as_deref(),
                group,
                &mut alone,
            ));
        }
    }
    out
}

/// The records of `candidates` replayed one by one: each candidate's own record of `module`.
/// A candidate without one is a library (its record is the library's) or a pipeline without
/// that stage.
fn one_by_one(
    candidates: &[String],
    module: Option<&str>,
    group: Vec<Seen>,
    alone: &mut impl FnMut(&str) -> Option<Vec<Seen>>,
) -> Vec<(String, Seen)> {
    let mut out = Vec::new();
    for c in candidates {
        let Some(records) = alone(c) else {
            let all = candidates.join("|");
            return group.into_iter().map(|s| (all.clone(), s)).collect();
        };
        out.extend(
            records
                .into_iter()
                .filter(|s| s.module.as_deref() == module)
                .map(|s| (c.clone(), s)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTED: &str = "\
00d43453456c4f56 : shaderModule(4):496ac40991315bb8, shaderModule(4):9ff8e083cc9352a7, \n\
7016df95b4f7657f : shaderModule(4):496ac40991315bb8, shaderModule(4):9ff8e083cc9352a7, \n\
8e8f2df32c68721f : shaderModule(4):496ac40991315bb8, shaderModule(4):3171b66e25ec992d, \n\
1111111111111111 : shaderModule(4):6d6281fe51d00b75, \n\
2222222222222222 : graphicsPipeline(6):1111111111111111, \n";

    fn seen(module: &str, verdict: &str, codes: &[&str]) -> Seen {
        Seen {
            module: Some(module.into()),
            chip: "navi31".into(),
            driver: "radv".into(),
            verdict: verdict.into(),
            codes: codes.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn one_candidate_or_alike_verdicts_are_named_without_a_replay() {
        let a = ArchivePipelines::parse(LISTED).unwrap();
        let seen = vec![
            seen("3171b66e25ec992d", "verified", &[]),
            seen("9ff8e083cc9352a7", "verified", &[]),
            seen("9ff8e083cc9352a7", "verified", &[]),
            // A pipeline linked from a library: the library itself is no candidate.
            seen("6d6281fe51d00b75", "verified", &[]),
        ];
        let named = name(seen, &a, |h| panic!("replayed {h}"));
        let names: Vec<_> = named.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "8e8f2df32c68721f",
                "2222222222222222",
                "00d43453456c4f56",
                "7016df95b4f7657f"
            ]
        );
    }

    #[test]
    fn differing_verdicts_of_one_module_are_told_apart_by_replaying_each_pipeline() {
        let a = ArchivePipelines::parse(LISTED).unwrap();
        let gap = "isa-ordered-section-open-at-epilog";
        let seen = vec![
            seen("9ff8e083cc9352a7", "finding", &[gap]),
            seen("9ff8e083cc9352a7", "verified", &[]),
        ];
        let named = name(seen, &a, |h| {
            Some(vec![if h == "7016df95b4f7657f" {
                self::seen("9ff8e083cc9352a7", "finding", &[gap])
            } else {
                self::seen("9ff8e083cc9352a7", "verified", &[])
            }])
        });
        assert_eq!(named.len(), 2);
        assert_eq!(named[0].0, "00d43453456c4f56");
        assert_eq!(named[0].1.verdict, "verified");
        assert_eq!(named[1].0, "7016df95b4f7657f");
        assert_eq!(named[1].1.codes, [gap]);
    }

    #[test]
    fn a_failed_replay_names_the_rows_by_every_candidate_and_an_unknown_module_by_none() {
        let a = ArchivePipelines::parse(LISTED).unwrap();
        let seen = vec![
            seen("9ff8e083cc9352a7", "finding", &["isa-model"]),
            seen("9ff8e083cc9352a7", "verified", &[]),
            seen("0000000000000001", "verified", &[]),
        ];
        let named = name(seen, &a, |_| None);
        assert_eq!(named[0].0, UNNAMED);
        assert_eq!(named[1].0, "00d43453456c4f56|7016df95b4f7657f");
        assert_eq!(named[2].0, "00d43453456c4f56|7016df95b4f7657f");
    }
}
