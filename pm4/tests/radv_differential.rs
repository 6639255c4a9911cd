//! pm4::pops against a real driver: for every case of `shared/reference/radv` (the command
//! buffers Mesa 25.0.7's RADV recorded for an interlock draw on vega10, vega20, navi10, navi21 and
//! navi31), every field pm4::pops decides must hold RADV's value — the last write in the command
//! buffer, else the device preamble's, else CLEAR_STATE's default — unless
//! `pm4::pops::radv::TABLE` lists the difference with its reason.

mod common;

use pm4::pops::{
    derive, BlendTarget, CompareOp, DrawState, Experiments, InterlockDesc, PopsState,
    MAX_COLOR_TARGETS,
};
use pm4::{Family, InterlockMode};
use serde_json::Value;

/// The draw state a case describes (README of shared/reference/radv).
fn case_state(case: &Value) -> PopsState {
    let chip = case["chip"].as_str().unwrap();
    let family = Family::parse(chip).unwrap();
    let mode = InterlockMode::parse_optional(case["mode"].as_str().unwrap()).unwrap();
    let samples = case["rasterization_samples"].as_u64().unwrap() as u32;
    let color = case["color_samples"].as_u64().unwrap() as u32;
    let depth = case["depth_samples"].as_u64().unwrap() as u32;
    let extra = case["extra"].as_str().unwrap();
    let mut draw = DrawState {
        rasterization_samples: samples,
        depth_stencil_samples: depth,
        color_samples: if color == samples { 0 } else { color },
        sample_shading: extra.contains("sshade"),
        color_targets: [None; MAX_COLOR_TARGETS],
        ..DrawState::default()
    };
    draw.color_targets[0] = Some(BlendTarget::OPAQUE);
    if depth != 0 {
        // D32_SFLOAT, depth test and write on.
        draw.depth_stencil.depth_test = true;
        draw.depth_stencil.depth_write = true;
        draw.depth_stencil.depth_compare = CompareOp::Less;
    }
    let desc = InterlockDesc {
        mode,
        resolves_intrawave: false,
        has_color_output: true,
        writes_memory: true,
        // The reference shaders write a storage image and colour; none reads gl_SampleMaskIn.
        reads_sample_mask: false,
    };
    derive(family, &desc, &draw, &Experiments::default())
        .unwrap_or_else(|e| panic!("{}: {e}", case["ib_file"]))
}

/// RADV's value of a field: last write, else the preamble, else CLEAR_STATE's default (0 for
/// every field pops decides).
fn radv_field(reg: &Value, field: &str) -> Option<u64> {
    if reg["written"] == true {
        return reg["fields"][field].as_u64();
    }
    match &reg["preamble"] {
        Value::Null => Some(0),
        p => p["fields"][field].as_u64(),
    }
}

/// What comparing one case gave: fields compared, unlisted differences, listed ones (with the
/// table's reason).
#[derive(Default)]
struct CaseResult {
    compared: usize,
    failures: Vec<String>,
    listed: Vec<String>,
}

/// Compares every field pm4::pops decides for `case` with RADV's value.
fn compare_case(name: &str, case: &Value) -> CaseResult {
    let st = case_state(case);
    let mut out = CaseResult::default();
    for r in &st.registers {
        let reg = r.reg();
        let radv_reg = &case["registers"][reg.name()];
        if radv_reg.is_null() {
            out.failures
                .push(format!("{name}: RADV's table has no {reg}"));
            continue;
        }
        for (field, ours) in st.decided_fields(reg) {
            let Some(theirs) = radv_field(radv_reg, field.name()) else {
                out.failures
                    .push(format!("{name}: RADV's {reg} has no field {field}"));
                continue;
            };
            out.compared += 1;
            if u64::from(ours) == theirs {
                continue;
            }
            match pm4::pops::radv::find(&st, reg, field) {
                Some(d) => out.listed.push(format!("{reg}.{field}: {}", d.reason)),
                None => out
                    .failures
                    .push(format!("{name}: {reg}.{field}: pops {ours}, RADV {theirs}")),
            }
        }
    }
    out
}

#[test]
fn every_radv_case_agrees_with_pops_state_or_is_listed() {
    let Some(path) = common::reference("radv/radv_pops_registers.json", "the RADV differential")
    else {
        return;
    };
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let cases = doc["cases"].as_object().unwrap();
    let mut compared = 0;
    let mut listed = std::collections::BTreeMap::<String, usize>::new();
    let mut failures = Vec::new();
    for (name, case) in cases {
        let r = compare_case(name, case);
        compared += r.compared;
        failures.extend(r.failures);
        for l in r.listed {
            *listed.entry(l).or_default() += 1;
        }
    }
    for (what, n) in &listed {
        eprintln!("listed difference ({n} cases): {what}");
    }
    assert!(
        failures.is_empty(),
        "{} unlisted difference(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(cases.len(), 330);
    assert!(compared > 330 * 10, "{compared}");
    // Every entry where pops follows the article rather than RADV is exercised by the cases.
    for d in pm4::pops::radv::TABLE.iter().filter(|d| {
        d.reason
            .starts_with("pops follows the article, RADV does not")
    }) {
        assert!(
            listed.keys().any(|k| k.ends_with(d.reason)),
            "{}.{} never applied",
            d.register,
            d.field
        );
    }
}

/// The comparison can fail: a RADV value altered in one case is reported as an unlisted
/// difference naming the field.
#[test]
fn a_changed_field_is_caught() {
    let Some(path) = common::reference("radv/radv_pops_registers.json", "negative RADV check")
    else {
        return;
    };
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let name = "navi21_sample-ordered_4x";
    let mut case = doc["cases"][name].clone();
    assert!(compare_case(name, &case).failures.is_empty());
    let f = &mut case["registers"]["DB_SHADER_CONTROL"]["fields"]["POPS_OVERLAP_NUM_SAMPLES"];
    *f = serde_json::json!(f.as_u64().unwrap() + 1);
    let failures = compare_case(name, &case).failures;
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains("DB_SHADER_CONTROL.POPS_OVERLAP_NUM_SAMPLES"),
        "{failures:?}"
    );
}
