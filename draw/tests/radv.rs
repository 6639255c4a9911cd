//! The hardware draw's stream against RADV's command buffer for the same state, register by
//! register: for every `selftest --draw` variant without experiment switches on vega10, vega20,
//! navi10, navi21 and navi31, each field of the POPS-relevant registers RADV's recording
//! tabulates (`shared/reference/radv/radv_pops_registers.json`) must hold RADV's value unless
//! `draw::radv_differences::TABLE` lists the difference with its reason.

mod common;

use draw::stream::{build, rectangles, Addresses};
use draw::variant::{standard, OutOfOrder, Variant};
use pm4::{Family, Field, Reg};
use serde_json::Value;

const ADDRS: Addresses = Addresses {
    vs: 0x8_0010_0000,
    ps: 0x8_0010_2000,
    storage: 0x8_0020_0000,
    color: 0x8_0030_0000,
    attr_ring: 0x8_0040_0000,
    pos_ring: 0x8_0098_0000,
    prim_ring: 0x8_00d8_0000,
    timestamps: 0x8_0050_0000,
    fence: 0x8_0050_0040,
};

const CHIPS: [Family; 5] = [
    Family::Vega10,
    Family::Vega20,
    Family::Navi10,
    Family::Navi21,
    Family::Navi31,
];

/// The RADV case recording the same state as a variant: its interlock mode and rasterization
/// samples; the sample-interlock variants' shader reads the sample ID, which is RADV's
/// sample-shading case.
fn radv_case(fam: Family, v: &Variant) -> String {
    let mode = v.interlock.map_or("none", |m| m.name());
    let sshade = if v.per_sample() { "_sshade" } else { "" };
    format!("{}_{mode}_{}x{sshade}", fam.name(), v.samples)
}

fn plain(v: &Variant) -> bool {
    let s = v.switches;
    !s.exec_if_overlapped
        && !s.bin_map_mode_pops
        && !s.force_drain
        && s.out_of_order == OutOfOrder::Auto
}

/// RADV's value: last write, else the preamble's, else CLEAR_STATE's (0).
fn radv_value(reg: &Value) -> Option<u32> {
    let v = if reg["written"] == true {
        &reg["value"]
    } else if reg["preamble"].is_null() {
        return Some(0);
    } else {
        &reg["preamble"]["value"]
    };
    u32::from_str_radix(v.as_str()?.trim_start_matches("0x"), 16).ok()
}

#[test]
fn the_draw_agrees_with_radv_or_the_difference_is_listed() {
    let Some(path) = common::reference("radv/radv_pops_registers.json", "draw vs RADV") else {
        return;
    };
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let regs: Vec<Reg> = doc["registers_of_interest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Reg::from_name(r.as_str().unwrap()).unwrap())
        .collect();
    let mut failures = Vec::new();
    let mut used = std::collections::BTreeMap::new();
    let mut compared = 0;
    let mut cases = 0;
    for fam in CHIPS {
        let level = fam.gfx_level();
        for v in standard().into_iter().filter(plain) {
            let name = radv_case(fam, &v);
            let case = &doc["cases"][&name];
            assert!(case.is_object(), "no RADV case {name}");
            let s = build(fam, &v, &ADDRS, &rectangles(8)).unwrap();
            cases += 1;
            let d = pm4::decode(level, &s.dwords);
            for reg in &regs {
                let Some(desc) = level.register(*reg) else {
                    continue;
                };
                let ours = d
                    .writes()
                    .filter(|w| w.address == desc.address)
                    .last()
                    .map(|w| w.value);
                let Some(ours) = ours else { continue };
                let theirs = radv_value(&case["registers"][reg.name()]).unwrap();
                let decided = s.pops.decided_mask(*reg);
                for f in desc.fields {
                    let (a, b) = (f.extract(ours), f.extract(theirs));
                    compared += 1;
                    if a == b {
                        continue;
                    }
                    // A field pm4::pops decided may differ as pm4::pops::radv lists; any field may
                    // differ where the draw's own inputs differ from RADV's case (no colour
                    // target at MSAA, its shaders), as draw::radv_differences lists.
                    let listed = (f.mask() & decided != 0)
                        .then(|| pm4::pops::radv::find(&s.pops, *reg, f.field).map(|d| d.reason))
                        .flatten()
                        .or_else(|| {
                            draw::radv_differences::find(level, *reg, f.field).map(|d| d.why)
                        });
                    match listed {
                        Some(why) => {
                            used.insert(format!("{reg}.{}", f.field), why);
                        }
                        None => failures.push(format!(
                            "{name} ({}): {reg}.{}: draw {a}, RADV {b}",
                            v.name(),
                            f.field
                        )),
                    }
                }
            }
        }
    }
    for (field, why) in &used {
        eprintln!("listed: {field}: {why}");
    }
    assert!(
        failures.is_empty(),
        "{} unlisted difference(s) ({compared} fields compared):\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every variant without experiment switches, on each of the five chips.
    assert_eq!(cases, 5 * 11);
    // The draw's table holds no entry that no comparison needs.
    for d in draw::radv_differences::TABLE {
        assert!(
            used.contains_key(&format!("{}.{}", d.register, d.field)),
            "{}.{} is listed but never differs",
            d.register,
            d.field
        );
    }
}

/// The comparison can fail: a field changed in the draw's stream is reported.
#[test]
fn a_changed_field_is_caught() {
    let fam = Family::Navi21;
    let v = standard()[0];
    let s = build(fam, &v, &ADDRS, &rectangles(8)).unwrap();
    // The draw's DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER is RADV's (1); a flipped bit
    // would be unlisted in both tables.
    assert_eq!(
        s.pops.field(
            Reg::DB_SHADER_CONTROL,
            Field::PRIMITIVE_ORDERED_PIXEL_SHADER
        ),
        Some(1)
    );
    assert!(pm4::pops::radv::find(
        &s.pops,
        Reg::DB_SHADER_CONTROL,
        Field::PRIMITIVE_ORDERED_PIXEL_SHADER
    )
    .is_none());
    assert!(draw::radv_differences::find(
        fam.gfx_level(),
        Reg::DB_SHADER_CONTROL,
        Field::PRIMITIVE_ORDERED_PIXEL_SHADER
    )
    .is_none());
}
