//! The draw stream of every variant on every family, decoded with `pm4::decode`, against the
//! hardware-tested reference draw of the same generation (libdrm's; RADV's on GFX12): every
//! register the reference programs is programmed, with the reference's value unless
//! `draw::differences::TABLE` lists the register with its reason. An unlisted difference fails.

mod common;

use draw::reference::{compare, radv_stream, reference_file};
use draw::stream::{build, rectangles, Addresses};
use draw::variant::standard;
use pm4::Family;

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

#[test]
fn every_stream_matches_the_reference_draw_but_for_the_listed_differences() {
    let mut compared = 0;
    for fam in draw::reference::families() {
        let level = fam.gfx_level();
        let Some(reference) = reference_stream(level) else {
            return;
        };
        for v in standard() {
            let s =
                build(fam, &v, &ADDRS, &rectangles(8)).unwrap_or_else(|e| panic!("{fam} {v}: {e}"));
            let d = pm4::decode(level, &s.dwords);
            assert!(
                d.is_ok(),
                "{fam} {v}: our stream does not decode: {:?}",
                d.error
            );
            let c = compare(level, &s.dwords, &reference).expect("both decode");
            let unlisted: Vec<String> = c
                .unlisted()
                .map(|m| {
                    format!(
                        "{} ({:#x}): reference {:#x}, ours {:x?}",
                        m.name, m.address, m.reference, m.ours
                    )
                })
                .collect();
            assert!(
                unlisted.is_empty(),
                "{fam} {v}: unlisted differences:\n{}",
                unlisted.join("\n")
            );
            let extra: Vec<String> = c
                .unlisted_additional()
                .map(|a| format!("{} ({:#x})", a.name, a.address))
                .collect();
            assert!(
                extra.is_empty(),
                "{fam} {v}: registers written beyond the reference with no entry (and reason) in draw::differences::TABLE: {}",
                extra.join(", ")
            );
            // Every dword would be accepted by a command processor of the level.
            let r = pm4::validate::validate(level, &s.dwords);
            assert!(r.is_ok(), "{fam} {v}: {:#?}", r.violations);
            assert!(
                c.same > 100,
                "{fam} {v}: only {} registers as the reference",
                c.same
            );
            compared += 1;
        }
    }
    assert_eq!(
        compared,
        draw::reference::families().count() * standard().len()
    );
}

/// The reference stream of `level`: RADV's (GFX12, in the binary) or libdrm's from the shared
/// reference data (`None`, a loud skip, where that is missing).
fn reference_stream(level: pm4::GfxLevel) -> Option<Vec<u32>> {
    if let Some(r) = radv_stream(level) {
        return Some(r.expect("RADV's reference draw decodes"));
    }
    let file = reference_file(level).expect("libdrm has a draw of every other level");
    let path = common::reference(&format!("libdrm-draw/{file}"), "reference draw comparison")?;
    Some(common::read_dwords(&path))
}

/// The POPS rules' fields are in the stream as `pm4::pops` decided them (the draw merges them
/// into the reference's registers): "To enable POPS for the draw,
/// DB_SHADER_CONTROL.PRIMITIVE_ORDERED_PIXEL_SHADER should be set to 1."
#[test]
fn the_pops_fields_reach_the_stream() {
    for fam in draw::reference::families() {
        let level = fam.gfx_level();
        for v in standard() {
            let s = build(fam, &v, &ADDRS, &rectangles(8)).unwrap();
            let writes: Vec<_> = pm4::decode(level, &s.dwords).writes().cloned().collect();
            for r in &s.pops.registers {
                let last = writes
                    .iter()
                    .rev()
                    .find(|w| w.address == r.desc.address)
                    .unwrap_or_else(|| panic!("{fam} {v}: {} not written", r.reg()));
                for (field, want) in s.pops.decided_fields(r.reg()) {
                    let got = last.field(field).unwrap();
                    let overridden = r.reg() == pm4::Reg::PA_SC_MODE_CNTL_1
                        && field != pm4::Field::PS_ITER_SAMPLE
                        && v.switches.out_of_order != draw::variant::OutOfOrder::Auto;
                    if !overridden {
                        assert_eq!(got, want, "{fam} {v}: {}.{}", r.reg(), field);
                    }
                }
            }
        }
    }
}

/// The comparison can fail: a register changed without an entry in the table is reported.
#[test]
fn an_unlisted_difference_is_caught() {
    let fam = Family::Navi21;
    let level = fam.gfx_level();
    let Some(path) = common::reference("libdrm-draw/gfx10_draw_ib.bin", "negative comparison")
    else {
        return;
    };
    let reference = common::read_dwords(&path);
    let v = standard()[0];
    let mut s = build(fam, &v, &ADDRS, &rectangles(8)).unwrap();
    // PA_SU_VTX_CNTL (reference 5) is written once, in the state: change its value.
    let d = pm4::decode(level, &s.dwords);
    let w = d
        .writes()
        .find(|w| w.name() == Some("PA_SU_VTX_CNTL"))
        .expect("PA_SU_VTX_CNTL programmed");
    let at = s.dwords.iter().position(|x| *x == 5).unwrap_or(0);
    assert_eq!(w.value, 5);
    s.dwords[at] = 6;
    let c = compare(level, &s.dwords, &reference).unwrap();
    let unlisted: Vec<_> = c.unlisted().map(|m| m.name.clone()).collect();
    assert_eq!(unlisted, ["PA_SU_VTX_CNTL"]);
    assert!(!c.is_ok());
}

/// Prints the differences each family's streams actually have (for docs/hardware-draw.md).
#[test]
fn list_the_differences_in_use() {
    for fam in [
        Family::Vega10,
        Family::Navi10,
        Family::Navi21,
        Family::Navi31,
    ] {
        let level = fam.gfx_level();
        let file = reference_file(level).expect("GFX9-GFX11 have a reference draw");
        let Some(path) = common::reference(&format!("libdrm-draw/{file}"), "listing") else {
            return;
        };
        let reference = common::read_dwords(&path);
        let mut seen = std::collections::BTreeSet::new();
        let mut extra = std::collections::BTreeSet::new();
        for v in standard() {
            let s = build(fam, &v, &ADDRS, &rectangles(8)).unwrap();
            let c = compare(level, &s.dwords, &reference).unwrap();
            for m in &c.differences {
                seen.insert(m.name.clone());
            }
            extra.extend(c.additional.into_iter().map(|a| a.name));
        }
        eprintln!("{fam}: differ: {seen:?}\n{fam}: additional: {extra:?}");
    }
}

/// docs/hardware-draw.md lists every entry of the differences table.
#[test]
fn the_document_lists_every_difference() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/hardware-draw.md"
    ))
    .expect("docs/hardware-draw.md");
    for d in draw::differences::TABLE {
        let row = format!(
            "| `{}` | {} | {} | {} |",
            d.register,
            d.levels.name(),
            d.reason.name(),
            d.why
        );
        assert!(
            doc.contains(&row),
            "docs/hardware-draw.md lacks the row:\n{row}"
        );
    }
}

/// GFX12's reference is RADV's first POPS draw on gfx1201, cut right after its draw packet: the
/// state in force there has POPS on, and the generated reference state (read from the same IBs
/// by `tools/gen-draw-reference.py` with the PM4 facts and the register database, not with
/// `pm4::decode`) is exactly that state, less RADV's compute registers.
#[test]
fn the_gfx12_reference_is_the_state_at_radvs_pops_draw() {
    let level = pm4::GfxLevel::Gfx12;
    let stream = radv_stream(level).unwrap().unwrap();
    let packets = pm4::decode(level, &stream).into_result().unwrap();
    let last = packets.last().unwrap();
    assert_eq!(last.opcode, pm4::Opcode::DRAW_INDEX_AUTO);
    let mut state = std::collections::BTreeMap::new();
    for w in packets.iter().flat_map(|p| &p.writes) {
        state.insert(w.address, w.value);
    }
    let dsc = level.register(pm4::Reg::DB_SHADER_CONTROL).unwrap();
    let pops = level
        .field(
            pm4::Reg::DB_SHADER_CONTROL,
            pm4::Field::PRIMITIVE_ORDERED_PIXEL_SHADER,
        )
        .unwrap();
    assert_eq!(pops.extract(state[&dsc.address]), 1, "POPS on at the draw");
    // The generated state, rebuilt as a stream by the draw (no changes: the control variant's
    // registers that the draw does not touch), agrees register by register.
    let built = build(Family::Gfx1201, &standard()[0], &ADDRS, &rectangles(1)).unwrap();
    let c = compare(level, &built.dwords, &stream).unwrap();
    assert!(c.same > 250, "{} registers as RADV's", c.same);
    assert!(c.is_ok(), "{:?}", c.unlisted().collect::<Vec<_>>());
}
