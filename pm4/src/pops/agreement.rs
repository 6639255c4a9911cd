//! Whether a driver programmed what pops derives: a report's decided fields against the values
//! a driver wrote at one of its draws, with the differences pops makes on purpose ([`TABLE`])
//! and the ways of keeping the shading rate at 1×1 ([`rate_1x1_way`]) accepted and named.

use super::radv::{rate_1x1_way, Rate1x1Way, RATE_1X1_FIELDS, TABLE};
use crate::chip::GfxLevel;

/// How a report's decided fields compare with a recorded draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Fields compared.
    pub compared: usize,
    /// Fields that differ where [`TABLE`] lists a deliberate difference of that field,
    /// as `REGISTER.FIELD`.
    pub listed: Vec<String>,
    /// Where the report keeps the shading rate at 1×1 by sample iteration: the way the driver
    /// did (`Rate1x1Way`), any of which meets the requirement.
    pub rate_1x1: Option<Rate1x1Way>,
    /// Every other difference, `REGISTER.FIELD: report R, driver D`, in the report's order.
    pub differences: Vec<String>,
}

impl Comparison {
    /// The draw holds every decided field, or meets it in a way pops accepts.
    pub fn agrees(&self) -> bool {
        self.differences.is_empty()
    }
}

/// What the comparison needs to know of the draw record beyond its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    pub level: GfxLevel,
    /// The record shades once per sample at more than one sample: PS_ITER_SAMPLE is then the
    /// invocation rate itself, not one way of keeping the shading rate at 1×1.
    pub per_sample_msaa: bool,
}

/// Compares `decided` — (register, field, value) the report decided — with what a driver
/// programmed at a draw (`driver`: a field's value, `None` where the draw's stream never wrote
/// the register): such a register counts as 0, its CLEAR_STATE value; a difference is accepted
/// where [`TABLE`] lists the field, and the sample-iteration fields where the driver keeps the
/// shading rate at 1×1 another way ([`rate_1x1_way`]).
pub fn compare<'a>(
    decided: impl IntoIterator<Item = (&'a str, &'a str, Option<u64>)>,
    driver: &dyn Fn(&str, &str) -> Option<u64>,
    cx: Context,
) -> Comparison {
    let mut c = Comparison::default();
    let mut iteration = Vec::new();
    let mut by_iteration = false;
    for (reg, field, ours) in decided {
        let theirs = driver(reg, field).unwrap_or(0);
        c.compared += 1;
        let rate_field = !cx.per_sample_msaa
            && ours == Some(1)
            && RATE_1X1_FIELDS
                .iter()
                .any(|(r, f)| r.name() == reg && f.name() == field);
        by_iteration |= rate_field;
        if ours == Some(theirs) {
            continue;
        }
        let ours_text = ours.map_or("none".to_string(), |v| v.to_string());
        let line = format!("{reg}.{field}: report {ours_text}, driver {theirs}");
        if listed(reg, field) {
            c.listed.push(format!("{reg}.{field}"));
        } else if rate_field {
            iteration.push(line);
        } else {
            c.differences.push(line);
        }
    }
    if by_iteration {
        c.rate_1x1 = rate_1x1_way(cx.level, &|r, f| driver(r.name(), f.name()));
        if c.rate_1x1.is_none() {
            c.differences.extend(iteration);
        }
    }
    c
}

/// A field [`TABLE`] lists as a deliberate difference (under a condition of its own).
fn listed(reg: &str, field: &str) -> bool {
    TABLE
        .iter()
        .any(|d| d.register.name() == reg && d.field.name() == field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A driver's draw: the fields it wrote, others unwritten.
    fn draw(fields: &[(&str, &str, u64)]) -> impl Fn(&str, &str) -> Option<u64> {
        let f: HashMap<(String, String), u64> = fields
            .iter()
            .map(|(r, n, v)| ((r.to_string(), n.to_string()), *v))
            .collect();
        move |r: &str, n: &str| f.get(&(r.to_string(), n.to_string())).copied()
    }

    #[test]
    fn equal_fields_agree_and_unwritten_registers_read_as_clear_state() {
        let d = draw(&[("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 1)]);
        let c = compare(
            [
                (
                    "DB_SHADER_CONTROL",
                    "PRIMITIVE_ORDERED_PIXEL_SHADER",
                    Some(1),
                ),
                ("DB_DFSM_CONTROL", "PUNCHOUT_MODE", Some(0)),
            ],
            &d,
            CX11,
        );
        assert!(c.agrees());
        assert_eq!(c.compared, 2);
        assert!(c.listed.is_empty());
    }

    #[test]
    fn a_difference_is_named_unless_pm4_lists_it() {
        let d = draw(&[("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 0)]);
        let c = compare(
            [(
                "DB_SHADER_CONTROL",
                "PRIMITIVE_ORDERED_PIXEL_SHADER",
                Some(1),
            )],
            &d,
            CX11,
        );
        assert_eq!(
            c.differences,
            ["DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER: report 1, driver 0"]
        );
        let c = compare(
            [("DB_Z_INFO", "NUM_SAMPLES", Some(0))],
            &draw(&[("DB_Z_INFO", "NUM_SAMPLES", 3)]),
            CX11,
        );
        assert!(c.agrees());
        assert_eq!(c.listed, ["DB_Z_INFO.NUM_SAMPLES"]);
    }

    const CX11: Context = Context {
        level: GfxLevel::Gfx11,
        per_sample_msaa: false,
    };

    /// Article: "On GFX10.3, enabling DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER forces
    /// the shading rate to be 1x1". pops keeps the rate at 1×1 by sample iteration; a driver
    /// that leaves iteration off meets the requirement too (RADV after 25.0.x), and the
    /// comparison says which way it took. Per-sample shading at MSAA is no such choice.
    #[test]
    fn the_1x1_rate_is_accepted_in_each_way_that_meets_it() {
        let ours = [
            (
                "DB_SHADER_CONTROL",
                "PRIMITIVE_ORDERED_PIXEL_SHADER",
                Some(1),
            ),
            ("PA_SC_MODE_CNTL_1", "PS_ITER_SAMPLE", Some(1)),
            ("PA_CL_VRS_CNTL", "SAMPLE_ITER_COMBINER_MODE", Some(1)),
        ];
        let pops_only = draw(&[("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 1)]);
        let cx = |level, per_sample_msaa| Context {
            level,
            per_sample_msaa,
        };
        let c = compare(ours, &pops_only, cx(GfxLevel::Gfx10_3, false));
        assert!(c.agrees(), "{:?}", c.differences);
        assert_eq!(c.rate_1x1, Some(Rate1x1Way::PopsOnGfx10_3));
        // On GFX11 POPS alone does not force 1×1: with no rate source the rate is 1×1 anyway,
        // but a combined-in vertex rate differs, both fields named.
        let c = compare(ours, &pops_only, cx(GfxLevel::Gfx11, false));
        assert_eq!(c.rate_1x1, Some(Rate1x1Way::NoRateSource));
        let vertex_rate = draw(&[
            ("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 1),
            ("PA_CL_VRS_CNTL", "VERTEX_RATE_COMBINER_MODE", 1),
        ]);
        let c = compare(ours, &vertex_rate, cx(GfxLevel::Gfx11, false));
        assert_eq!(c.differences.len(), 2, "{:?}", c.differences);
        // At 4 samples shaded per sample, PS_ITER_SAMPLE is the invocation rate: required.
        let c = compare(ours, &pops_only, cx(GfxLevel::Gfx10_3, true));
        assert_eq!(c.differences.len(), 2, "{:?}", c.differences);
        let same = draw(&[
            ("DB_SHADER_CONTROL", "PRIMITIVE_ORDERED_PIXEL_SHADER", 1),
            ("PA_SC_MODE_CNTL_1", "PS_ITER_SAMPLE", 1),
            ("PA_CL_VRS_CNTL", "SAMPLE_ITER_COMBINER_MODE", 1),
        ]);
        let c = compare(ours, &same, cx(GfxLevel::Gfx11, false));
        assert_eq!(c.rate_1x1, Some(Rate1x1Way::SampleIteration));
    }
}
