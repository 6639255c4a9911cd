//! `pops lint` run as a program: hand-made streams the validator must refuse, with the dword
//! index, packet and address in the message, and real drivers' streams it must accept.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn pops(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pops"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pops runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A GFX11 IB that writes PA_SC_VRS_SURFACE_CNTL_1 (byte 0x2A580, dword 0xA960) with
/// SET_CONTEXT_REG, after a valid DB_SHADER_CONTROL write.
const KERNEL_OWNED_WRITE: &str = "\
c0016900 00000203 00000001   # SET_CONTEXT_REG DB_SHADER_CONTROL = 1
c0016900 00000960 00000080   # SET_CONTEXT_REG 0x2A580 (PA_SC_VRS_SURFACE_CNTL_1) = 0x80
";

#[test]
fn a_set_context_reg_at_0x2a580_is_refused_with_index_packet_and_address() {
    let o = pops(
        &["lint", "--gfx", "navi31", "-"],
        KERNEL_OWNED_WRITE.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("dword 3 (SET_CONTEXT_REG"), "{out}");
    assert!(out.contains("0x2a580"), "{out}");
    assert!(out.contains("1 violation(s)"), "{out}");
    let o = pops(
        &["lint", "--gfx", "gfx11", "--json", "-"],
        KERNEL_OWNED_WRITE.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["violations"][0]["index"], 3);
    assert_eq!(v["violations"][0]["packet"], "SET_CONTEXT_REG");
    assert_eq!(v["violations"][0]["address"], 0x2A580);
    assert_eq!(v["violations"][0]["code"], "kernel-owned");
    // On GFX10.3 the same address is outside the context window the database populates.
    let o = pops(
        &["lint", "--gfx", "navi21", "--json", "-"],
        KERNEL_OWNED_WRITE.as_bytes(),
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["violations"][0]["code"], "outside-window");
}

#[test]
fn a_truncated_packet_is_refused() {
    // SET_CONTEXT_REG announcing 3 body dwords, 2 present.
    let o = pops(
        &["lint", "--gfx", "gfx9", "-"],
        b"c0026900 00000203 00000001\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("dword 0 (SET_CONTEXT_REG): truncated"),
        "{out}"
    );
}

#[test]
fn a_valid_stream_passes_and_bad_arguments_are_clear() {
    let o = pops(
        &["lint", "--gfx", "gfx10.3", "-"],
        b"c0016900 00000203 00000001\n",
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("ok on gfx10.3"));
    let o = pops(&["lint", "--gfx", "gfx42", "-"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--gfx"));
    let o = pops(&["lint", "--gfx", "gfx9", "-"], b"not-hex\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a hex dword"));
}

/// Every stream `pops state` prints passes `pops lint` (the command line end to end).
#[test]
fn pops_state_pm4_passes_pops_lint() {
    for chip in [
        "vega10", "raven", "navi10", "navi21", "navi31", "gfx1150", "gfx1200", "gfx1201",
    ] {
        for mode in ["none", "pixel-ordered", "sample-unordered"] {
            let o = pops(
                &[
                    "state",
                    "--chip",
                    chip,
                    "--interlock",
                    mode,
                    "--samples",
                    "8",
                    "--json",
                ],
                b"",
            );
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            let hex: String = v["pm4"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| format!("{:08x}\n", d.as_u64().unwrap()))
                .collect();
            let o = pops(&["lint", "--gfx", chip, "-"], hex.as_bytes());
            assert_eq!(
                o.status.code(),
                Some(0),
                "{chip} {mode}: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}
