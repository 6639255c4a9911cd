//! Every finding pops reports, in one code space: the register derivation's ([`Code::Chip`],
//! `pm4::pops`), the layer's reading of the application ([`Code::Layer`]), the verification of
//! the driver's machine code ([`Code::Isa`]: the rules of `shaders::verify` and the ordering
//! model) and what a run saw the driver submit ([`Code::Run`]). A diagnostic carries one of these,
//! the known-defect table names the one that detects each defect, and the report's `code` is its
//! stable kebab-case name: written and read here alone, so that no producer can mint a code that
//! another already uses or a reader does not know.

use pm4::pops::StateCode;
use shaders::verify::Rule;
use std::fmt;
use std::sync::OnceLock;

/// The code of one finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// The register state's: a workaround applied, a switch without effect, a state that cannot
    /// be programmed correctly.
    Chip(StateCode),
    /// The layer's own: what it read from the application and what its experiment could not do.
    Layer(Layer),
    /// The driver's machine code of an interlocked fragment stage.
    Isa(Isa),
    /// What the driver submitted in a run.
    Run(Run),
}

/// The layer's own findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// The fragment stage's interlock cannot be told (SPIR-V not visible or not analysable).
    InterlockUnknown,
    /// `pm4::pops` refused the inputs.
    StateUnavailable,
    DynamicSampleCount,
    InterlockFeatureNotEnabled,
    MultipleInterlockPairs,
    DivergentInterlockBegin,
    InterlockWithoutMemoryAccess,
    NoColorOutput,
    ExperimentNotApplied,
    /// A call on the device returned VK_ERROR_DEVICE_LOST (the device-lost line says more).
    DeviceLost,
}

/// The verdicts on the driver's machine code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Isa {
    /// Every rule kept on every path and the entry sequence ran in primitive order.
    Verified,
    /// The code could not be read, or its entry sequence not run: nothing is claimed.
    NotVerified,
    /// The ordering model saw the entry sequence break the ordering contract.
    Model,
    /// One of the article's rules broken on some path.
    Rule(Rule),
}

/// What a run saw the driver submit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Run {
    /// Draws without POPS ran with the missed-overlap drain an earlier POPS draw left on.
    PopsDrainLeftOn,
}

impl Layer {
    pub const ALL: [Layer; 10] = [
        Layer::InterlockUnknown,
        Layer::StateUnavailable,
        Layer::DynamicSampleCount,
        Layer::InterlockFeatureNotEnabled,
        Layer::MultipleInterlockPairs,
        Layer::DivergentInterlockBegin,
        Layer::InterlockWithoutMemoryAccess,
        Layer::NoColorOutput,
        Layer::ExperimentNotApplied,
        Layer::DeviceLost,
    ];

    const fn name(self) -> &'static str {
        match self {
            Layer::InterlockUnknown => "interlock-unknown",
            Layer::StateUnavailable => "state-unavailable",
            Layer::DynamicSampleCount => "dynamic-sample-count",
            Layer::InterlockFeatureNotEnabled => "interlock-feature-not-enabled",
            Layer::MultipleInterlockPairs => "multiple-interlock-pairs",
            Layer::DivergentInterlockBegin => "divergent-interlock-begin",
            Layer::InterlockWithoutMemoryAccess => "interlock-without-memory-access",
            Layer::NoColorOutput => "no-color-output",
            Layer::ExperimentNotApplied => "experiment-not-applied",
            Layer::DeviceLost => "device-lost",
        }
    }
}

impl Isa {
    /// The verdicts that are not a rule; the rules follow in `Rule::ALL`'s order.
    const VERDICTS: [Isa; 3] = [Isa::Verified, Isa::NotVerified, Isa::Model];

    fn name(self) -> &'static str {
        match self {
            Isa::Verified => "isa-verified",
            Isa::NotVerified => "isa-not-verified",
            Isa::Model => "isa-model",
            Isa::Rule(r) => rule_name(r),
        }
    }
}

/// `isa-` and the rule's own name, made once from `Rule::code` so that the rule is named in
/// one place.
fn rule_name(rule: Rule) -> &'static str {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Rule::ALL
            .iter()
            .map(|r| format!("isa-{}", r.code()))
            .collect()
    });
    let i = Rule::ALL
        .iter()
        .position(|r| *r == rule)
        .unwrap_or_default();
    &names[i]
}

impl Run {
    pub const ALL: [Run; 1] = [Run::PopsDrainLeftOn];

    const fn name(self) -> &'static str {
        match self {
            Run::PopsDrainLeftOn => "pops-drain-left-on",
        }
    }
}

impl Code {
    /// The layer's verdicts on machine code that are not a rule, for `match` and comparisons.
    pub const ISA_VERIFIED: Code = Code::Isa(Isa::Verified);
    pub const ISA_NOT_VERIFIED: Code = Code::Isa(Isa::NotVerified);
    pub const ISA_MODEL: Code = Code::Isa(Isa::Model);

    /// Every code, each producer's in its declaration order.
    pub fn all() -> impl Iterator<Item = Code> {
        StateCode::ALL
            .into_iter()
            .map(Code::Chip)
            .chain(Layer::ALL.into_iter().map(Code::Layer))
            .chain(Isa::VERDICTS.into_iter().map(Code::Isa))
            .chain(Rule::ALL.into_iter().map(|r| Code::Isa(Isa::Rule(r))))
            .chain(Run::ALL.into_iter().map(Code::Run))
    }

    /// The stable kebab-case name (a report's `code`).
    pub fn name(self) -> &'static str {
        match self {
            Code::Chip(c) => c.name(),
            Code::Layer(c) => c.name(),
            Code::Isa(c) => c.name(),
            Code::Run(c) => c.name(),
        }
    }

    /// Whether the finding is about a driver's code or state — a broken rule, the ordering
    /// model's breach, a run's register finding — and so is either a known driver defect or a
    /// new one. The verdicts that found nothing, the derivation's notes and the layer's notes on
    /// the application's use of interlock are not.
    pub const fn is_about_the_driver(self) -> bool {
        matches!(self, Code::Isa(Isa::Model | Isa::Rule(_)) | Code::Run(_))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `code` no producer of pops reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a finding code of this pops (docs/layer.md lists them)")]
pub struct UnknownCode(pub String);

impl std::str::FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Code::all()
            .find(|c| c.name() == s)
            .ok_or_else(|| UnknownCode(s.to_string()))
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Each finding has one producer and one name: no two codes share a name, and every name
    /// reads back as its code.
    #[test]
    fn every_code_has_one_name_that_reads_back() {
        let names: HashSet<&str> = Code::all().map(Code::name).collect();
        assert_eq!(names.len(), Code::all().count(), "names are unique");
        for c in Code::all() {
            assert_eq!(c.name().parse::<Code>(), Ok(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), c);
            assert!(
                c.name().split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{c} is kebab-case, as the report's schema requires"
            );
        }
    }

    /// A name nobody produces is an error that names it, not a finding.
    #[test]
    fn an_unknown_name_is_refused_by_name() {
        let e = "isa-something-else".parse::<Code>().unwrap_err();
        assert!(e.to_string().contains("`isa-something-else`"), "{e}");
        let j = serde_json::from_str::<Code>("\"no-such-code\"").unwrap_err();
        assert!(j.to_string().contains("no-such-code"), "{j}");
    }

    /// The rules' codes are the checker's rule names under `isa-`, as `pops verify-isa` names
    /// them.
    #[test]
    fn rule_codes_are_the_checkers_names() {
        for r in Rule::ALL {
            assert_eq!(Code::Isa(Isa::Rule(r)).name(), format!("isa-{}", r.code()));
        }
        assert_eq!(
            Code::Isa(Isa::Rule(Rule::OpenAtEpilogJump)).name(),
            "isa-ordered-section-open-at-epilog"
        );
    }

    /// docs/layer.md lists every code, and no code pops does not report.
    #[test]
    fn the_layer_document_lists_every_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/layer.md");
        let doc = std::fs::read_to_string(path).expect("docs/layer.md");
        let start = doc
            .find("Every code pops reports")
            .expect("the list of codes");
        let list = &doc[start..];
        let list = &list[..list.find("\n\nThe findings about").expect("the list's end")];
        let named: HashSet<&str> = list
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| {
                w.bytes()
                    .all(|b| b == b'-' || b.is_ascii_lowercase() || b.is_ascii_digit())
            })
            .collect();
        let ours: HashSet<&str> = Code::all().map(Code::name).collect();
        assert_eq!(
            ours.difference(&named).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "codes docs/layer.md does not list"
        );
        assert_eq!(
            named.difference(&ours).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "codes docs/layer.md lists that pops does not report"
        );
    }

    #[test]
    fn driver_findings_are_the_rules_the_model_and_the_runs() {
        assert!(Code::ISA_MODEL.is_about_the_driver());
        assert!(Code::Isa(Isa::Rule(Rule::DoneMissing)).is_about_the_driver());
        assert!(Code::Run(Run::PopsDrainLeftOn).is_about_the_driver());
        assert!(!Code::ISA_VERIFIED.is_about_the_driver());
        assert!(!Code::ISA_NOT_VERIFIED.is_about_the_driver());
        assert!(!Code::Layer(Layer::NoColorOutput).is_about_the_driver());
        assert!(!Code::Chip(StateCode::PopsMissedOverlapWorkaround).is_about_the_driver());
    }
}
