//! JSON views of a [`PopsState`]. `pops state --json` and the layer's report both print these,
//! so the two cannot diverge.

use super::{Features, PopsState};
use serde_json::{json, Map, Value};

impl PopsState {
    /// The whole report, as `pops state --json` prints it and the layer records it:
    /// `{"chip", "gfx_level", "interlock", "samples", "registers", "pm4", "features",
    /// "kernel_assumptions", "diagnostics", "reasons", "out_of_order_rasterization": {"enabled", "reason"}}`, where
    /// `pm4` is [`super::emit`] of this state.
    pub fn report_json(&self) -> Value {
        json!({
            "chip": self.family.name(),
            "gfx_level": self.level.name(),
            "interlock": self.interlock.mode.map_or("none", |m| m.name()),
            "samples": self.draw.rasterization_samples,
            "registers": self.registers_json(),
            "pm4": super::emit(self),
            "features": self.features_json(),
            "kernel_assumptions": {
                "force_vrs_rate_fine_pops": self.kernel.force_vrs_rate_fine_pops,
            },
            "diagnostics": self.diagnostics_json(),
            "reasons": self.reasons_json(),
            "out_of_order_rasterization": {
                "enabled": self.out_of_order.enabled,
                "reason": self.out_of_order.reason,
            },
        })
    }

    /// `{"DB_SHADER_CONTROL": {"address": <byte address>, "value": <u32>, "fields": {"NAME":
    /// <value>, ...every field}, "decided": ["NAME", ...the fields the rules decided]}, ...}`.
    pub fn registers_json(&self) -> Value {
        let mut regs = Map::new();
        for r in &self.registers {
            let mut fields = Map::new();
            for (f, v) in r.fields() {
                fields.insert(f.name().to_string(), json!(v));
            }
            let decided: Vec<&str> = self
                .decided_fields(r.reg())
                .map(|(f, _)| f.name())
                .collect();
            regs.insert(
                r.desc.name().to_string(),
                json!({
                    "address": r.desc.address,
                    "value": r.value,
                    "fields": fields,
                    "decided": decided,
                }),
            );
        }
        Value::Object(regs)
    }

    /// The Vulkan feature names and values.
    pub fn features_json(&self) -> Value {
        features_json(&self.features)
    }

    /// `[{"severity": "error|warning|info", "code": "...", "message": "..."}]`.
    pub fn diagnostics_json(&self) -> Value {
        Value::Array(
            self.diagnostics
                .iter()
                .map(|d| {
                    json!({
                        "severity": d.severity.name(),
                        "code": d.code,
                        "message": d.message,
                    })
                })
                .collect(),
        )
    }

    /// `[{"register": "...", "field": "...", "reason": "..."}]`.
    pub fn reasons_json(&self) -> Value {
        Value::Array(
            self.reasons
                .iter()
                .map(|r| {
                    json!({
                        "register": r.reg.name(),
                        "field": r.field.name(),
                        "reason": r.text,
                    })
                })
                .collect(),
        )
    }
}

/// The features under their Vulkan member names.
pub fn features_json(f: &Features) -> Value {
    json!({
        "fragmentShaderPixelInterlock": f.fragment_shader_pixel_interlock,
        "fragmentShaderSampleInterlock": f.fragment_shader_sample_interlock,
        "fragmentShaderShadingRateInterlock": f.fragment_shader_shading_rate_interlock,
        "fragmentShadingRateWithFragmentShaderInterlock":
            f.fragment_shading_rate_with_fragment_shader_interlock,
    })
}

#[cfg(test)]
mod tests {
    use crate::pops::*;
    use crate::{Family, Reg};

    #[test]
    fn registers_json_lists_every_field_with_address_and_value() {
        let st = derive(
            Family::Raven,
            &InterlockDesc::with_mode(Some("sample-ordered".parse().unwrap())),
            &DrawState {
                rasterization_samples: 8,
                ..DrawState::default()
            },
            &Experiments::default(),
        )
        .unwrap();
        let j = st.registers_json();
        let dsc = &j["DB_SHADER_CONTROL"];
        let desc = st.register(Reg::DB_SHADER_CONTROL).unwrap();
        assert_eq!(dsc["address"], desc.desc.address);
        assert_eq!(dsc["value"], desc.value);
        assert_eq!(dsc["fields"]["PRIMITIVE_ORDERED_PIXEL_SHADER"], 1);
        assert_eq!(dsc["fields"]["POPS_OVERLAP_NUM_SAMPLES"], 3);
        assert_eq!(
            dsc["fields"].as_object().unwrap().len(),
            desc.desc.fields.len()
        );
        assert_eq!(
            j["DB_DFSM_CONTROL"]["fields"]["POPS_DRAIN_PS_ON_OVERLAP"],
            1
        );
        assert_eq!(
            st.features_json()["fragmentShaderShadingRateInterlock"],
            false
        );
        let doc = st.report_json();
        assert_eq!(doc["chip"], "raven");
        assert_eq!(doc["gfx_level"], "gfx9");
        assert_eq!(doc["interlock"], "sample-ordered");
        assert_eq!(doc["samples"], 8);
        assert_eq!(doc["registers"], j);
        assert_eq!(doc["pm4"].as_array().unwrap().len(), emit(&st).len());
        let d = st.diagnostics_json();
        assert!(d
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "pops-missed-overlap-workaround" && d["severity"] == "warning"));
    }
}
