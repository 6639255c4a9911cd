//! `pops decode` run as a program on valid and malformed streams.

use pm4::fields::{ContextControlLoad, ContextControlShadow};
use pm4::{CmdBuf, EventType, Field, GfxLevel, Reg, ReleaseMem};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/pops-draw-gfx9.hex");

fn pops(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pops runs");
    {
        let mut i = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            i.write_all(s).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn le(d: &[u32]) -> Vec<u8> {
    d.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn stdout_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("stdout is JSON")
}

/// The shipped sample: the state of an interlocked draw on GFX9 (Vega 10), built with the
/// encoder. Illustrative, not the full POPS rule set (which lives with the state rules).
fn sample_cmdbuf() -> CmdBuf {
    let l = GfxLevel::Gfx9;
    let mut cb = CmdBuf::new(l);
    cb.context_control(
        ContextControlLoad::update_only(),
        ContextControlShadow::update_only(),
    )
    .unwrap()
    .clear_state();
    cb.set_reg_fields(
        Reg::DB_SHADER_CONTROL,
        &[
            (Field::Z_ORDER, 1),
            (Field::PRIMITIVE_ORDERED_PIXEL_SHADER, 1),
        ],
    )
    .unwrap();
    cb.set_reg_fields(Reg::CB_TARGET_MASK, &[(Field::TARGET0_ENABLE, 0xf)])
        .unwrap();
    cb.set_reg_fields(
        Reg::SPI_SHADER_COL_FORMAT,
        &[(Field::COL0_EXPORT_FORMAT, 4)],
    )
    .unwrap();
    cb.set_reg_value(Reg::VGT_PRIMITIVE_TYPE, 0x11).unwrap();
    cb.num_instances(1);
    cb.draw_index_auto(3).unwrap();
    cb.event_write(EventType::PS_PARTIAL_FLUSH).unwrap();
    cb.release_mem(&ReleaseMem::eop_fence(l, 0x1_0000_1000, 1))
        .unwrap();
    cb.pad();
    cb
}

/// Hex text, one packet per line, each under a comment naming it.
fn sample_text() -> String {
    let cb = sample_cmdbuf();
    let d = pm4::decode(cb.level(), cb.dwords());
    assert!(d.is_ok());
    let mut s = String::from(
        "# pops sample: the state and draw of an interlocked (POPS) draw on GFX9, built with\n\
         # pm4::CmdBuf (cli/tests/decode.rs, sample_cmdbuf). Regenerate with\n\
         # POPS_BLESS=1 cargo test -p pops-cli --test decode\n\
         # Decode: pops decode --gfx vega10 cli/samples/pops-draw-gfx9.hex\n",
    );
    for p in &d.packets {
        let regs: Vec<&str> = p.writes.iter().filter_map(|w| w.name()).collect();
        s.push_str(&format!("# {} {}\n", p.opcode.name(), regs.join(" ")).replace(" \n", "\n"));
        let words: Vec<String> = cb.dwords()[p.index..p.index + p.dwords]
            .iter()
            .map(|d| format!("{d:08x}"))
            .collect();
        s.push_str(&words.join(" "));
        s.push('\n');
    }
    s
}

#[test]
fn shipped_sample_is_what_the_encoder_builds() {
    let want = sample_text();
    if std::env::var_os("POPS_BLESS").is_some() {
        std::fs::write(SAMPLE, &want).unwrap();
    }
    let have = std::fs::read_to_string(SAMPLE).expect("sample exists");
    assert_eq!(
        have, want,
        "regenerate with POPS_BLESS=1 cargo test -p pops-cli --test decode"
    );
}

#[test]
fn sample_decodes_as_text_with_names_and_nonzero_fields() {
    let o = pops(&["decode", "--gfx", "vega10", SAMPLE], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("@5 SET_CONTEXT_REG (3 dwords)"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("DB_SHADER_CONTROL"))
        .expect("DB_SHADER_CONTROL line");
    assert!(line.contains("PRIMITIVE_ORDERED_PIXEL_SHADER=1"), "{line}");
    assert!(line.contains("Z_ORDER=1"), "{line}");
    assert!(
        !line.contains("=0 ") && !line.ends_with("=0"),
        "zero fields are omitted: {line}"
    );
    assert!(out.contains("VGT_PRIMITIVE_TYPE"));
    assert!(
        out.contains("index 1"),
        "GFX9 indexed SET_UCONFIG_REG: {out}"
    );
    assert!(out.contains("DRAW_INDEX_AUTO"));
    // Control packets are split into their fields, with event names.
    assert!(
        out.contains("EVENT_CNTL = 0x00000528 EVENT_TYPE=BOTTOM_OF_PIPE_TS EVENT_INDEX=5"),
        "{out}"
    );
    assert!(
        out.contains("SEL = 0x23000000 INT_SEL=3 DATA_SEL=1"),
        "{out}"
    );
}

#[test]
fn binary_file_json_has_the_issue_schema() {
    let cb = sample_cmdbuf();
    let f = tmp("sample.bin", &le(cb.dwords()));
    let o = pops(
        &["decode", "--gfx", "gfx9", "--json", f.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = stdout_json(&o);
    let top: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(top, ["gfx_level", "packets"]);
    assert_eq!(j["gfx_level"], "gfx9");
    let packets = j["packets"].as_array().unwrap();
    let total: u64 = packets.iter().map(|p| p["dwords"].as_u64().unwrap()).sum();
    assert_eq!(total as usize, cb.len());
    for p in packets {
        let mut keys: Vec<&String> = p.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["dwords", "index", "opcode", "writes"]);
    }
    assert_eq!(packets[0]["opcode"], "CONTEXT_CONTROL");
    assert_eq!(packets[0]["writes"], Value::Array(vec![]));
    let w = packets
        .iter()
        .flat_map(|p| p["writes"].as_array().unwrap())
        .find(|w| w["register"] == "DB_SHADER_CONTROL")
        .expect("DB_SHADER_CONTROL written");
    let mut keys: Vec<&String> = w.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["address", "fields", "register", "value"]);
    assert_eq!(w["address"], 0x2880C);
    assert_eq!(w["fields"]["PRIMITIVE_ORDERED_PIXEL_SHADER"], 1);
    assert_eq!(w["fields"]["POPS_OVERLAP_NUM_SAMPLES"], 0);
    assert_eq!(w["value"], (1 << 16) | (1 << 4));
}

#[test]
fn unknown_register_is_null_with_its_address() {
    // Context offset 0x19 (0x28064) is not in the model (Mesa prints it by address too).
    let o = pops(
        &["decode", "--gfx", "gfx9", "--json", "-"],
        Some(b"c0016900 19 5"),
    );
    assert!(o.status.success());
    let j = stdout_json(&o);
    let w = &j["packets"][0]["writes"][0];
    assert_eq!(w["register"], Value::Null);
    assert_eq!(w["address"], 0x28064);
    assert_eq!(w["value"], 5);
    assert_eq!(w["fields"], serde_json::json!({}));
    let o = pops(&["decode", "--gfx", "gfx9", "-"], Some(b"c0016900 19 5"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("0x28064 = 0x00000005"));
}

#[test]
fn stdin_text_and_levels_or_chips() {
    // The same dword reads as DB_Z_INFO on GFX9 and DB_DFSM_CONTROL on GFX10/10.3.
    let s = b"0xc0016900 0x0000000e 0x00000000\n";
    for (gfx, name) in [
        ("gfx9", "DB_Z_INFO"),
        ("raven", "DB_Z_INFO"),
        ("gfx900", "DB_Z_INFO"),
        ("gfx10", "DB_DFSM_CONTROL"),
        ("gfx10.3", "DB_DFSM_CONTROL"),
        ("gfx103", "DB_DFSM_CONTROL"),
        ("NAVI21", "DB_DFSM_CONTROL"),
    ] {
        let o = pops(&["decode", "--gfx", gfx, "--json", "-"], Some(s));
        assert!(o.status.success(), "{gfx}");
        assert_eq!(
            stdout_json(&o)["packets"][0]["writes"][0]["register"],
            name,
            "{gfx}"
        );
    }
    let o = pops(&["decode", "--gfx", "gfx11", "--json", "-"], Some(s));
    assert_eq!(stdout_json(&o)["gfx_level"], "gfx11");
}

#[test]
fn bad_level_is_an_error_not_a_panic() {
    for gfx in ["mi200", "gfx8", "nonsense"] {
        let o = pops(&["decode", "--gfx", gfx, "-"], Some(b""));
        assert_eq!(o.status.code(), Some(1), "{gfx}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("--gfx"), "{e}");
    }
}

fn malformed(stream: &[u32], expect: &[&str]) -> Output {
    // One file per call: tests run in parallel and several streams end in the same dword.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let f = tmp(&format!("bad-{n}.bin"), &le(stream));
    let o = pops(&["decode", "--gfx", "gfx10", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    for x in expect {
        assert!(e.contains(x), "stderr {e:?} lacks {x:?}");
    }
    assert!(!e.contains("panicked"), "{e}");
    o
}

#[test]
fn truncated_packet_names_the_dword_and_keeps_earlier_packets_in_json() {
    let s = [0xc000_2f00, 1, 0xffff_1000, 0xc002_6900, 0x81, 0];
    malformed(&s, &["dword 3", "truncated SET_CONTEXT_REG"]);
    let f = tmp("trunc.bin", &le(&s));
    let o = pops(
        &["decode", "--gfx", "gfx10", "--json", f.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let j = stdout_json(&o);
    let p = j["packets"].as_array().unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0]["writes"][0]["register"], "VGT_NUM_INSTANCES");
    assert_eq!(p[1]["index"], 2);
}

#[test]
fn unknown_opcode_type0_and_out_of_space_are_reported() {
    malformed(
        &[0xffff_1000, 0xc000_0100, 0],
        &["dword 1", "unknown type-3 opcode 0x01"],
    );
    malformed(
        &[0xc000_2f00, 1, 0x0000_1234],
        &["dword 2", "type-0 packet"],
    );
    malformed(&[0x8000_0000], &["dword 0", "type-2 packet"]);
    malformed(
        &[0xc001_7600, 0x400, 7],
        &["dword 0", "outside the sh space"],
    );
}

#[test]
fn bad_input_files() {
    let f = tmp("odd.bin", &[0xc0, 0x01, 0x02, 0x03, 0x04]);
    let o = pops(&["decode", "--gfx", "gfx9", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("5 bytes"));
    let o = pops(&["decode", "--gfx", "gfx9", "-"], Some(b"c0012800 zz\n"));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1: 'zz'"));
    let o = pops(
        &["decode", "--gfx", "gfx9", "/nonexistent/stream.bin"],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/stream.bin"));
}

#[test]
fn libdrm_reference_stream_decodes() {
    let Some(f) = pops_testkit::reference(
        "libdrm-draw/gfx11_draw_ib.bin",
        "libdrm stream through pops decode",
    ) else {
        return;
    };
    let o = pops(
        &["decode", "--gfx", "navi31", "--json", f.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = stdout_json(&o);
    assert_eq!(j["packets"].as_array().unwrap().len(), 130);
}

/// An empty input is refused by decode and lint alike, and a stream malformed from its first
/// packet says so once, with nothing on standard output before it.
#[test]
fn empty_and_malformed_inputs_are_named_before_any_output() {
    for cmd in ["decode", "lint"] {
        let o = pops(&[cmd, "--gfx", "gfx11", "-"], Some(b""));
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("holds no dwords"), "{cmd}: {err}");
        assert!(o.stdout.is_empty(), "{cmd}");
    }
    let o = pops(&["decode", "--gfx", "gfx11", "-"], Some(b"0x80000000\n"));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("malformed PM4").count(), 1, "{err}");
}
