//! The PM4 encoder and decoder against the reference data: opcodes and header layout against
//! `shared/reference/pm4.json`, packet dword layouts against `registers/pkt3.json`, event types
//! against the register database, and the libdrm draw streams decoded register by register
//! against what Mesa's IB parser printed for them, then re-encoded dword for dword.

mod common;

use pm4::fields::{
    ContextControlLoad, ContextControlShadow, GcrCntl, IbControl, PacketField, ReleaseMemOpGfx10,
    ReleaseMemOpGfx11, WriteDataControl,
};
use pm4::{decode, CmdBuf, EventType, GfxLevel, Header, Opcode, Reg, RegValue};
use serde_json::Value;

fn json(rel: &str, what: &str) -> Option<Value> {
    let path = common::reference(rel, what)?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).expect("reference is JSON"))
}

fn hex(v: &Value) -> u32 {
    let s = v.as_str().expect("hex string");
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

#[test]
fn every_opcode_matches_pm4_json_and_the_table_is_complete() {
    let Some(j) = json("pm4.json", "opcode cross-check") else {
        return;
    };
    let table = j["opcodes"].as_object().expect("opcodes object");
    for op in Opcode::ALL {
        let v = table
            .get(op.name())
            .unwrap_or_else(|| panic!("{} is not in pm4.json", op.name()));
        assert_eq!(*op as u32, hex(v), "{}", op.name());
    }
    for (name, v) in table {
        let op = Opcode::from_u8(hex(v) as u8).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(op.name(), name);
    }
    assert_eq!(Opcode::ALL.len(), table.len());
}

#[test]
fn header_layout_matches_pm4_json() {
    let Some(j) = json("pm4.json", "PM4 header cross-check") else {
        return;
    };
    let h = &j["header"];
    let bits = |k: &str| {
        let a = h[k].as_array().expect(k);
        (a[0].as_u64().unwrap() as u32, a[1].as_u64().unwrap() as u32)
    };
    let bit = |k: &str| h[k].as_u64().expect(k) as u32;
    let (tlo, thi) = bits("type_bits");
    let (clo, chi) = bits("count_bits");
    let (olo, ohi) = bits("opcode_bits");
    let field = |dw: u32, lo: u32, hi: u32| (dw >> lo) & ((1u64 << (hi - lo + 1)) - 1) as u32;
    for op in Opcode::ALL {
        for body in [1usize, 2, 7, 0x3fff] {
            for pred in [false, true] {
                let dw = pm4::pkt3(*op, body, pred);
                assert_eq!(
                    field(dw, tlo, thi),
                    h["type3_value"].as_u64().unwrap() as u32
                );
                assert_eq!(field(dw, clo, chi) as usize, body - 1);
                assert_eq!(field(dw, olo, ohi), *op as u32);
                assert_eq!(
                    field(dw, bit("predicate_bit"), bit("predicate_bit")),
                    pred as u32
                );
                let p = Header::parse(dw);
                assert_eq!(p.packet_type, 3);
                assert_eq!(p.count as usize, body - 1);
                assert_eq!(p.opcode, *op as u8);
                assert_eq!(p.predicate, pred);
            }
        }
    }
    let sh = bit("shader_type_bit");
    assert!(Header::parse(1 << sh).shader_type);
    assert!(Header::parse(1 << bit("reset_filter_cam_bit")).reset_filter_cam);
    assert!(h["type3_nop_no_body"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{:#x}", pm4::packet::NOP_ONE_DWORD)));
}

#[test]
fn packet_dword_layouts_match_pkt3_json() {
    let Some(j) = json("registers/pkt3.json", "packet field cross-check") else {
        return;
    };
    let check = |name: &str, ours: &[PacketField]| {
        let fields = j["register_types"][name]["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} not in pkt3.json"));
        let theirs: Vec<(String, u64, u64)> = fields
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    f["bits"][0].as_u64().unwrap(),
                    f["bits"][1].as_u64().unwrap(),
                )
            })
            .collect();
        let ours: Vec<(String, u64, u64)> = ours
            .iter()
            .map(|f| (f.name.to_string(), f.lo as u64, f.hi as u64))
            .collect();
        assert_eq!(ours, theirs, "{name}");
    };
    check(WriteDataControl::NAME, WriteDataControl::FIELDS);
    check(IbControl::NAME, IbControl::FIELDS);
    check(GcrCntl::NAME, GcrCntl::FIELDS);
    check(ReleaseMemOpGfx10::NAME, ReleaseMemOpGfx10::FIELDS);
    check(ReleaseMemOpGfx11::NAME, ReleaseMemOpGfx11::FIELDS);
    // And which chips use which RELEASE_MEM_OP layout.
    for m in j["register_mappings"].as_array().unwrap() {
        if m["name"] == "RELEASE_MEM_OP" {
            let chips: Vec<&str> = m["chips"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            match m["type_ref"].as_str().unwrap() {
                "RELEASE_MEM_OP" => assert_eq!(chips, ["gfx10", "gfx103"]),
                "RELEASE_MEM_OP_gfx11" => assert!(chips.contains(&"gfx11")),
                other => panic!("unexpected layout {other}"),
            }
        }
    }
}

#[test]
fn event_types_match_every_levels_database() {
    for level in [
        GfxLevel::Gfx9,
        GfxLevel::Gfx10,
        GfxLevel::Gfx10_3,
        GfxLevel::Gfx11,
    ] {
        let rel = format!("registers/{}.json", level.database_name());
        let Some(j) = json(&rel, "event type cross-check") else {
            return;
        };
        let entries = j["enums"]["VGT_EVENT_TYPE"]["entries"]
            .as_array()
            .expect("VGT_EVENT_TYPE");
        for e in EventType::ALL {
            let found = entries
                .iter()
                .find(|x| x["value"].as_u64() == Some(*e as u64))
                .unwrap_or_else(|| panic!("{level}: no event {}", *e as u8));
            assert_eq!(found["name"].as_str(), Some(e.name()), "{level}");
        }
    }
}

/// Register writes Mesa's parser printed: `<value> <NAME> <- ...` lines, without the
/// `INDEX <- n` pseudo-writes of the _INDEX packets. Writes swallowed by a NOP are printed as
/// `(unused)` and so are not listed (libdrm-draw/README.md: the NOP quirk).
fn mesa_writes(text: &str) -> Vec<(String, u32)> {
    text.lines()
        .filter_map(|l| {
            let mut t = l.split_whitespace();
            let (v, name, arrow) = (t.next()?, t.next()?, t.next()?);
            if arrow != "<-" || v.len() != 8 || name == "INDEX" {
                return None;
            }
            let name = match name.strip_prefix("0x") {
                // An address Mesa has no name for ("0x0b1c4"): normalise to "0xb1c4".
                Some(a) => format!("{:#x}", u32::from_str_radix(a, 16).ok()?),
                None => name.to_string(),
            };
            Some((name, u32::from_str_radix(v, 16).ok()?))
        })
        .collect()
}

const STREAMS: [(&str, &str, GfxLevel); 4] = [
    (
        "gfx9_draw_ib.bin",
        "gfx9_draw_ib.decoded.txt",
        GfxLevel::Gfx9,
    ),
    (
        "gfx10_draw_ib.bin",
        "gfx10_draw_ib.decoded.txt",
        GfxLevel::Gfx10,
    ),
    (
        "gfx10_draw_ib.bin",
        "gfx103_draw_ib.decoded.txt",
        GfxLevel::Gfx10_3,
    ),
    (
        "gfx11_draw_ib.bin",
        "gfx11_draw_ib.decoded.txt",
        GfxLevel::Gfx11,
    ),
];

#[test]
fn libdrm_streams_decode_to_the_writes_mesa_printed() {
    for (bin, txt, level) in STREAMS {
        let (Some(bin), Some(txt)) = (
            common::reference(&format!("libdrm-draw/{bin}"), "libdrm oracle"),
            common::reference(&format!("libdrm-draw/{txt}"), "libdrm oracle"),
        ) else {
            return;
        };
        let dwords = common::read_dwords(&bin);
        let d = decode(level, &dwords);
        assert!(d.is_ok(), "{level}: {:?}", d.error);
        assert_eq!(
            d.packets.iter().map(|p| p.dwords).sum::<usize>(),
            dwords.len()
        );
        let ours: Vec<(String, u32)> = d
            .writes()
            .map(|w| {
                // Mesa prints a register it does not know by address, e.g. "0x28064 <- 0".
                let name = w
                    .name()
                    .map_or_else(|| format!("{:#x}", w.address), str::to_string);
                (name, w.value)
            })
            .collect();
        let mesa = mesa_writes(&std::fs::read_to_string(&txt).unwrap());
        for (name, _) in mesa.iter().filter(|(n, _)| !n.starts_with("0x")) {
            let known = Reg::from_name(name).and_then(|r| level.register(r));
            assert!(known.is_some(), "{level}: model lacks {name}");
        }
        assert!(
            mesa.len() > 150,
            "{level}: parsed only {} writes",
            mesa.len()
        );
        assert_eq!(ours.len(), mesa.len(), "{level}: number of writes");
        for (k, (o, m)) in ours.iter().zip(&mesa).enumerate() {
            assert_eq!(o, m, "{level}: write {k}");
        }
    }
}

/// Builds each libdrm packet again with [`CmdBuf`] from what the decoder found, and compares the
/// dwords: the encoder chooses the same packets (SET_* by space, _INDEX forms per level, runs)
/// as a stream known to work on real hardware.
#[test]
fn libdrm_streams_reencode_dword_for_dword() {
    for (bin, _, level) in STREAMS {
        let Some(bin) = common::reference(&format!("libdrm-draw/{bin}"), "libdrm re-encode") else {
            return;
        };
        let dwords = common::read_dwords(&bin);
        let d = decode(level, &dwords);
        let mut checked = 0;
        for p in &d.packets {
            let orig = &dwords[p.index..p.index + p.dwords];
            let mut cb = CmdBuf::new(level);
            match p.opcode {
                Opcode::SET_CONTEXT_REG
                | Opcode::SET_SH_REG
                | Opcode::SET_UCONFIG_REG
                | Opcode::SET_SH_REG_INDEX
                | Opcode::SET_UCONFIG_REG_INDEX => {
                    let w: Option<Vec<RegValue>> = p
                        .writes
                        .iter()
                        .map(|w| RegValue::with_value(level, w.reg()?, w.value).ok())
                        .collect();
                    match w {
                        // libdrm splits some runs; re-encode each packet's writes on their own.
                        Some(w) => cb.set_regs(&w).unwrap(),
                        // A register neither Mesa nor the database names: as raw dwords.
                        None => cb.packet(p.opcode, &orig[1..]).unwrap(),
                    };
                }
                Opcode::CONTEXT_CONTROL => {
                    cb.context_control(
                        ContextControlLoad::update_only(),
                        ContextControlShadow::update_only(),
                    )
                    .unwrap();
                }
                Opcode::NUM_INSTANCES => {
                    cb.num_instances(p.writes[0].value);
                }
                Opcode::DRAW_INDEX_AUTO => {
                    cb.draw_index_auto(p.writes[0].value).unwrap();
                }
                Opcode::NOP if p.dwords == 1 => {
                    cb.nop_one_dword();
                }
                Opcode::NOP => {
                    cb.nop(&orig[1..]).unwrap();
                }
                // No dedicated method: the generic packet.
                Opcode::SET_SH_REG_OFFSET => {
                    cb.packet(p.opcode, &orig[1..]).unwrap();
                }
                _ => continue,
            }
            assert_eq!(cb.dwords(), orig, "{level}: packet at dword {}", p.index);
            checked += 1;
        }
        assert_eq!(checked, d.packets.len(), "{level}: every packet re-encoded");
    }
}
