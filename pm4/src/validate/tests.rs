//! Hand-made streams: every dword written out here, nothing from pops' encoder.

use super::*;

/// A type-3 header: opcode, body length.
fn hdr(opcode: u8, body: u32) -> u32 {
    (3 << 30) | ((body - 1) << 16) | ((opcode as u32) << 8)
}

const SET_CONTEXT_REG: u8 = 0x69;
const SET_SH_REG: u8 = 0x76;
const SET_UCONFIG_REG: u8 = 0x79;
const SET_CONFIG_REG: u8 = 0x68;
const RELEASE_MEM: u8 = 0x49;
const DRAW_INDEX_AUTO: u8 = 0x2D;

/// DB_SHADER_CONTROL is 0x2880C from GFX9 to GFX11.5, 0x2806C on GFX12 (register database).
const DB_SHADER_CONTROL: u32 = 0x2880C;
const DB_SHADER_CONTROL_GFX12: u32 = 0x2806C;

fn db_shader_control(level: GfxLevel) -> u32 {
    if level == GfxLevel::Gfx12 {
        DB_SHADER_CONTROL_GFX12
    } else {
        DB_SHADER_CONTROL
    }
}

fn set_context(address: u32, values: &[u32]) -> Vec<u32> {
    let mut v = vec![
        hdr(SET_CONTEXT_REG, 1 + values.len() as u32),
        (address - 0x28000) / 4,
    ];
    v.extend_from_slice(values);
    v
}

#[test]
fn a_write_to_a_database_register_passes_on_every_level() {
    for level in GfxLevel::ALL {
        let r = validate(level, &set_context(db_shader_control(level), &[0x10]));
        assert!(r.is_ok(), "{level}: {:?}", r.violations);
        assert_eq!((r.packets, r.register_writes), (1, 1));
    }
}

/// The defect the validator exists for: PA_SC_VRS_SURFACE_CNTL_1 (dword 0xA960, byte 0x2A580)
/// written with SET_CONTEXT_REG on GFX11. The kernel owns it, and it lies outside the context
/// registers the database populates on every level.
#[test]
fn set_context_reg_at_0x2a580_is_refused() {
    let ib = set_context(0x2A580, &[1 << 7]);
    for level in [GfxLevel::Gfx11, GfxLevel::Gfx11_5] {
        let r = validate(level, &ib);
        assert_eq!(r.violations.len(), 1, "{level}");
        let v = &r.violations[0];
        assert_eq!((v.index, v.dword, v.packet), (0, 2, "SET_CONTEXT_REG"));
        assert_eq!(v.code(), "kernel-owned");
        assert_eq!(v.address(), Some(0x2A580));
        let text = v.to_string();
        assert!(
            text.contains("0x2a580") && text.contains("PA_SC_VRS_SURFACE_CNTL_1"),
            "{text}"
        );
    }
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10, GfxLevel::Gfx10_3] {
        let r = validate(level, &ib);
        assert_eq!(r.violations.len(), 1, "{level}");
        assert_eq!(r.violations[0].code(), "outside-window", "{level}");
    }
}

#[test]
fn the_context_window_is_what_the_database_populates() {
    for level in GfxLevel::ALL {
        let w = LevelTables::of(level).window(Space::Context).unwrap();
        assert_eq!((w.start, w.end), (0x28000, 0x29000), "{level}");
    }
    // The last dword of the window is inside it, the next is not.
    let r = validate(GfxLevel::Gfx11, &set_context(0x29000, &[0]));
    assert_eq!(r.violations[0].code(), "outside-window");
}

#[test]
fn an_address_in_the_window_with_no_register_is_refused() {
    let t = LevelTables::of(GfxLevel::Gfx11);
    let hole = (0x28000..0x29000)
        .step_by(4)
        .find(|a| t.register_name(*a).is_none() && t.stream_address(*a).is_none())
        .unwrap();
    let r = validate(GfxLevel::Gfx11, &set_context(hole, &[0]));
    assert_eq!(r.violations.len(), 1);
    assert_eq!(r.violations[0].code(), "unknown-register");
    assert_eq!(r.violations[0].address(), Some(hole));
}

#[test]
fn a_truncated_packet_is_refused_and_ends_the_walk() {
    let mut ib = set_context(DB_SHADER_CONTROL, &[0, 0, 0]);
    ib.truncate(3);
    let r = validate(GfxLevel::Gfx10_3, &ib);
    assert_eq!(r.violations.len(), 1);
    assert_eq!(
        r.violations[0].kind,
        ViolationKind::Truncated {
            body: 4,
            available: 2
        }
    );
    assert!(r.violations[0]
        .to_string()
        .starts_with("dword 0 (SET_CONTEXT_REG)"));
}

#[test]
fn bodies_have_the_length_their_opcode_requires() {
    // RELEASE_MEM is 7 body dwords on GFX9+; DRAW_INDEX_AUTO 2.
    let mut ib = vec![hdr(RELEASE_MEM, 6)];
    ib.extend([0; 6]);
    ib.push(hdr(DRAW_INDEX_AUTO, 2));
    ib.extend([3, 2]);
    let r = validate(GfxLevel::Gfx9, &ib);
    assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
    assert_eq!(r.violations[0].code(), "body-length");
    assert_eq!(r.violations[0].packet, "RELEASE_MEM");
    assert!(r.violations[0].to_string().contains("needs 7"));
    // A SET_*_REG packet with no value.
    let r = validate(GfxLevel::Gfx9, &[hdr(SET_SH_REG, 1), 0x0c]);
    assert_eq!(r.violations[0].code(), "body-length");
}

#[test]
fn set_config_reg_is_privileged() {
    let r = validate(GfxLevel::Gfx10, &[hdr(SET_CONFIG_REG, 2), 0x10, 0]);
    assert_eq!(r.violations.len(), 1);
    assert_eq!(r.violations[0].code(), "privileged-packet");
}

#[test]
fn uconfig_and_sh_writes_are_checked_in_their_own_space() {
    // VGT_PRIMITIVE_TYPE: uconfig 0x30908 on GFX9+; SPI_SHADER_PGM_RSRC2_PS: sh 0xB02C.
    let ok = [
        hdr(SET_UCONFIG_REG, 2),
        (0x30908 - 0x30000) / 4,
        4,
        hdr(SET_SH_REG, 2),
        (0xB02C - 0xB000) / 4,
        0,
    ];
    for level in GfxLevel::ALL {
        let r = validate(level, &ok);
        assert!(r.is_ok(), "{level}: {:?}", r.violations);
    }
    // The same offset in the uconfig space past the populated window.
    let r = validate(GfxLevel::Gfx11, &[hdr(SET_UCONFIG_REG, 2), 0x3000, 0]);
    assert_eq!(r.violations[0].code(), "outside-window");
}

#[test]
fn reserved_offset_bits_are_refused() {
    let r = validate(
        GfxLevel::Gfx10_3,
        &[hdr(SET_CONTEXT_REG, 2), 0x0001_0203, 0],
    );
    assert_eq!(r.violations[0].code(), "reserved-offset-bits");
}

#[test]
fn other_packet_types_and_unknown_opcodes_are_refused() {
    let r = validate(GfxLevel::Gfx9, &[0x8000_0000]);
    assert_eq!(r.violations[0].code(), "not-type3");
    let r = validate(GfxLevel::Gfx9, &[hdr(0x01, 1), 0]);
    assert_eq!(r.violations[0].code(), "unknown-opcode");
    // The one-dword NOP pads.
    assert!(validate(GfxLevel::Gfx11, &[0xffff_1000, 0xffff_1000]).is_ok());
}

#[test]
fn a_report_with_violations_is_an_error_naming_the_first() {
    let e = validate(GfxLevel::Gfx11, &set_context(0x2A580, &[0]))
        .into_result()
        .unwrap_err();
    assert_eq!(e.violations.len(), 1);
    assert_eq!(e.first().code(), "kernel-owned");
    assert!(e.to_string().contains("0x2a580"), "{e}");
}

#[test]
fn opcode_names_come_from_pm4_json() {
    assert_eq!(opcode_name(0x69), Some("SET_CONTEXT_REG"));
    assert_eq!(opcode_name(0x49), Some("RELEASE_MEM"));
    assert_eq!(opcode_name(0x00), None);
}

/// Register-pairs packets (RADV on GFX11+ writes most context registers with them): each pair's
/// register is checked like a SET_*_REG write; a body that is not whole pairs is refused.
#[test]
fn register_pairs_are_checked_register_by_register() {
    const PAIRS: u8 = 0xB8;
    const PACKED: u8 = 0xB9;
    let dsc = (DB_SHADER_CONTROL - 0x28000) / 4;
    let vrs = (0x2A580 - 0x28000) / 4;
    let ok = [hdr(PAIRS, 2), dsc, 0x10];
    let r = validate(GfxLevel::Gfx11, &ok);
    assert!(r.is_ok(), "{:?}", r.violations);
    assert_eq!(r.register_writes, 1);
    let packed = [hdr(PACKED, 4), 2, dsc | (vrs << 16), 0x10, 1 << 7];
    let r = validate(GfxLevel::Gfx11, &packed);
    assert_eq!(r.register_writes, 2);
    assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
    assert_eq!(
        (r.violations[0].dword, r.violations[0].code()),
        (4, "kernel-owned")
    );
    for bad in [
        vec![hdr(PAIRS, 3), dsc, 0x10, dsc],
        vec![hdr(PACKED, 4), 4, dsc, 1, 2],
    ] {
        let r = validate(GfxLevel::Gfx11, &bad);
        assert_eq!(r.violations[0].code(), "malformed-pairs", "{bad:x?}");
    }
}
