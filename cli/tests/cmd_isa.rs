//! `pops isa` end to end: the text and JSON forms, and the refusals.

use std::process::{Command, Output};

fn pops(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pops"))
        .arg("isa")
        .args(args)
        .output()
        .expect("run pops")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The JSON dwords are exactly the library's encoding of the same section.
#[test]
fn json_gives_chip_level_and_the_encoded_dwords() {
    for (chip, level, intrawave, wave32) in [
        ("vega10", pm4::GfxLevel::Gfx9, false, false),
        ("raven", pm4::GfxLevel::Gfx9, true, false),
        ("navi10", pm4::GfxLevel::Gfx10, true, true),
        ("gfx1030", pm4::GfxLevel::Gfx10_3, false, true),
        ("navi31", pm4::GfxLevel::Gfx11, false, false),
        ("gfx1201", pm4::GfxLevel::Gfx12, false, false),
        ("navi44", pm4::GfxLevel::Gfx12, false, true),
    ] {
        let mut args = vec!["--chip", chip, "--json"];
        if intrawave {
            args.push("--intrawave");
        }
        if wave32 {
            args.push("--wave32");
        }
        let o = pops(&args);
        assert!(o.status.success(), "{chip}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
        assert_eq!(v["gfx_level"], level.name(), "{chip}");
        let opts = shaders::isa::SectionOptions {
            intrawave,
            wave64: !wave32,
            ..Default::default()
        };
        let want = shaders::isa::ordered_section(level, &opts)
            .unwrap()
            .encode()
            .unwrap();
        let dwords = |k: &str| -> Vec<u32> {
            v[k].as_array()
                .expect("array")
                .iter()
                .map(|d| d.as_u64().expect("number") as u32)
                .collect()
        };
        assert_eq!(dwords("enter"), want.enter, "{chip}");
        assert_eq!(dwords("exit"), want.exit, "{chip}");
        assert!(v["chip"].is_string());
    }
}

/// Text form: the article's per-level instructions with their encodings.
#[test]
fn text_shows_each_levels_sequence_with_encodings() {
    let o = pops(&["--chip", "vega10"]);
    assert!(o.status.success());
    let t = stdout(&o);
    assert!(
        t.contains("s_setreg_b32 hwreg(HW_REG_MODE, 24, 2), s4"),
        "{t}"
    );
    assert!(t.contains("s_sleep 3 "), "{t}");
    assert!(
        t.contains("s_add_i32 s4, src_pops_exiting_wave_id, s6"),
        "{t}"
    );
    assert!(t.contains("bf900007"), "ORDERED_PS_DONE encoding: {t}");

    let t = stdout(&pops(&["--chip", "navi21"]));
    assert!(t.contains("hwreg(HW_REG_POPS_PACKER, 0, 3)"), "{t}");
    assert!(t.contains("s_sleep 0xffff"), "{t}");
    assert!(t.contains("s_waitcnt_vscnt null, 0x0"), "{t}");

    let t = stdout(&pops(&["--chip", "gfx11"]));
    assert!(t.contains("s_wait_event 0x0"), "{t}");
    assert!(t.contains("last export"), "{t}");
    assert!(!t.contains("MSG_ORDERED_PS_DONE"), "{t}");

    // GFX12 (RDNA4): export_ready is bit 1 of s_wait_event, and the split waits.
    let t = stdout(&pops(&["--chip", "gfx1201"]));
    assert!(t.contains("s_wait_event 0x2"), "{t}");
    assert!(t.contains("s_wait_storecnt 0x0"), "{t}");
    assert!(!t.contains("s_waitcnt"), "{t}");
    assert!(!t.contains("MSG_ORDERED_PS_DONE"), "{t}");
}

/// "GFX11 removes this concept entirely": --intrawave on GFX11 is a clear error, not a panic.
#[test]
fn refusals_are_messages_with_exit_status_1() {
    for (args, needle) in [
        (vec!["--chip", "navi31", "--intrawave"], "intrawave"),
        (vec!["--chip", "vega10", "--wave32"], "wave32"),
        (vec!["--chip", "mi200"], "compute-only"),
        (vec!["--chip", "navi99"], "unknown chip"),
    ] {
        let o = pops(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}
