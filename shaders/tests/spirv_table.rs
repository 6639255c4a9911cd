//! The committed `spirv::table` still says what the Khronos grammar says (tools/gen-spirv-table.py
//! generated it from SPIRV-Headers' newest grammar united with Debian's spirv-headers; a hand edit
//! or a newer installed grammar must not drift).

use shaders::spirv::table::{
    BuiltIn, Capability, Decoration, Dim, ExecutionMode, ExecutionModel, Op, StorageClass, OP_SHAPE,
};

const GRAMMAR: &str = "/usr/include/spirv/unified1/spirv.core.grammar.json";

fn grammar() -> Option<serde_json::Value> {
    match std::fs::read_to_string(GRAMMAR) {
        Ok(s) => Some(serde_json::from_str(&s).expect("grammar is JSON")),
        Err(e) => {
            pops_testkit::missing(format!(
                "{GRAMMAR} not readable ({e}); install spirv-headers (scripts/install-deps.sh)"
            ));
            None
        }
    }
}

#[test]
fn opcodes_and_operand_shapes_match_the_grammar() {
    let Some(g) = grammar() else { return };
    let insts = g["instructions"].as_array().unwrap();
    assert!(insts.len() > 600);
    // OpenCL/FPGA kernel instructions whose operands Khronos corrected after Debian 12's grammar
    // (the table has SPIRV-Headers' newest shape); no Vulkan shader has them.
    const CORRECTED: [&str; 3] = [
        "OpAsmTargetINTEL",
        "OpReadPipeBlockingINTEL",
        "OpWritePipeBlockingINTEL",
    ];
    for i in insts {
        let name = i["opname"].as_str().unwrap();
        let op = Op(i["opcode"].as_u64().unwrap() as u16);
        assert!(op.name().is_some(), "{name}");
        if CORRECTED.contains(&name) {
            continue;
        }
        let kinds: Vec<&str> = i["operands"]
            .as_array()
            .map(|a| a.iter().map(|o| o["kind"].as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(
            op.has_result_type(),
            kinds.first() == Some(&"IdResultType"),
            "{name}"
        );
        assert_eq!(
            op.has_result(),
            kinds.iter().take(2).any(|k| *k == "IdResult"),
            "{name}"
        );
        assert!(op.name().is_some(), "{name}");
    }
    assert_eq!(
        Op::BeginInvocationInterlockEXT.name(),
        Some("OpBeginInvocationInterlockEXT")
    );
    // The table may be newer than the installed grammar (it is the union of SPIRV-Headers'
    // newest grammar and Debian's), never older.
    let max = insts
        .iter()
        .map(|i| i["opcode"].as_u64().unwrap())
        .max()
        .unwrap() as usize;
    assert!(OP_SHAPE.len() > max);
}

/// What today's compilers emit is known — Mesa 26's Zink declares
/// `OpCapability FloatControls2` (SPV_KHR_float_controls2), which RADV accepts — while every
/// name of Debian 12's grammar stays (the table is the union of both grammars).
#[test]
fn todays_capabilities_are_known() {
    assert_eq!(Capability(6029).name(), Some("FloatControls2"));
    assert!(shaders::spirv::table::GRAMMAR_VERSION.ends_with("with 1.6 revision 1"));
    assert_eq!(Op::SDotKHR.0, 4450);
}

#[test]
fn enumerants_match_the_grammar() {
    let Some(g) = grammar() else { return };
    let kinds = g["operand_kinds"].as_array().unwrap();
    let lookup = |kind: &str, value: u32| -> Option<&'static str> {
        match kind {
            "ExecutionModel" => ExecutionModel(value).name(),
            "ExecutionMode" => ExecutionMode(value).name(),
            "StorageClass" => StorageClass(value).name(),
            "Dim" => Dim(value).name(),
            "Decoration" => Decoration(value).name(),
            "BuiltIn" => BuiltIn(value).name(),
            "Capability" => Capability(value).name(),
            _ => unreachable!(),
        }
    };
    let mut checked = 0;
    for k in kinds {
        let kind = k["kind"].as_str().unwrap();
        if ![
            "ExecutionModel",
            "ExecutionMode",
            "StorageClass",
            "Dim",
            "Decoration",
            "BuiltIn",
            "Capability",
        ]
        .contains(&kind)
        {
            continue;
        }
        for e in k["enumerants"].as_array().unwrap() {
            let v = &e["value"];
            let value = v
                .as_u64()
                .map(|v| v as u32)
                .or_else(|| {
                    v.as_str()
                        .and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
                })
                .unwrap();
            // Aliases share a value; the table names the first spelling.
            assert!(lookup(kind, value).is_some(), "{kind} {value}");
            checked += 1;
        }
    }
    assert!(checked > 500);
    // The values the analysis depends on, spelled as SPV_EXT_fragment_shader_interlock has them.
    assert_eq!(ExecutionMode::PixelInterlockOrderedEXT.0, 5366);
    assert_eq!(ExecutionMode::ShadingRateInterlockUnorderedEXT.0, 5371);
    assert_eq!(Op::BeginInvocationInterlockEXT.0, 5364);
    assert_eq!(Op::EndInvocationInterlockEXT.0, 5365);
    for m in pm4::InterlockMode::ALL {
        assert!(ExecutionMode(m.spirv_execution_mode())
            .name()
            .is_some_and(|n| n.contains("Interlock")));
    }
}
