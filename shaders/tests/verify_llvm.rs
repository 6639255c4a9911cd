//! The opcodes `shaders::verify` reads that pops never emits, checked against LLVM's AMDGPU
//! disassembler (llvm-mc-19) on each generation: what the verifier calls s_setpc_b64,
//! s_endpgm_ordered_ps_done, s_cbranch_vccz/vccnz, s_setreg_imm32_b32 and the pacing
//! instructions is what LLVM calls them.

mod common;

use shaders::isa::Encoding;
use shaders::verify::opcodes::{self, at};

fn disassemble(mc: &std::path::Path, cpu: &str, words: &[u32]) -> String {
    let bytes: Vec<String> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .map(|b| format!("0x{b:02x}"))
        .collect();
    let out = std::process::Command::new(mc)
        .args(["-arch=amdgcn", &format!("-mcpu={cpu}"), "--disassemble"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(bytes.join(" ").as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(".text"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn verifier_opcodes_are_llvms() {
    let Some(mc) = common::llvm_mc() else {
        return;
    };
    for (enc, cpu) in [
        (Encoding::Gfx9, "gfx900"),
        (Encoding::Gfx10, "gfx1030"),
        (Encoding::Gfx11, "gfx1100"),
        (Encoding::Gfx12, "gfx1201"),
    ] {
        let sop1 = |op: u8| (0x17d << 23) | (u32::from(op) << 8);
        let sopp = |op: u8| (0x17f << 23) | (u32::from(op) << 16);
        let sopk = |op: u8| (0xb << 28) | (u32::from(op) << 23);
        assert!(
            disassemble(&mc, cpu, &[sop1(at(opcodes::SETPC_B64, enc))]).starts_with("s_setpc_b64"),
            "{cpu}"
        );
        assert!(
            disassemble(&mc, cpu, &[sop1(at(opcodes::SWAPPC_B64, enc))])
                .starts_with("s_swappc_b64"),
            "{cpu}"
        );
        assert!(
            disassemble(&mc, cpu, &[sopp(at(opcodes::CBRANCH_VCCZ, enc))])
                .starts_with("s_cbranch_vccz"),
            "{cpu}"
        );
        assert!(
            disassemble(&mc, cpu, &[sopp(at(opcodes::CBRANCH_VCCNZ, enc))])
                .starts_with("s_cbranch_vccnz"),
            "{cpu}"
        );
        assert!(
            disassemble(&mc, cpu, &[sopk(at(opcodes::SETREG_IMM32_B32, enc)) | 1, 0])
                .starts_with("s_setreg_imm32_b32"),
            "{cpu}"
        );
        if let Some(op) = at(opcodes::ENDPGM_ORDERED_PS_DONE, enc) {
            assert_eq!(
                disassemble(&mc, cpu, &[sopp(op)]),
                "s_endpgm_ordered_ps_done",
                "{cpu}"
            );
        }
        for op in at(opcodes::PACING, enc).into_iter().flatten() {
            let m = disassemble(&mc, cpu, &[sopp(op)]);
            assert!(
                opcodes::PACING_NAMES.iter().any(|p| m.starts_with(p)),
                "{cpu} op {op}: {m}"
            );
        }
    }
}

/// `Waitcnt::from_simm16` inverts the encoder's field layout: LLVM prints the counters the
/// decoded value names.
#[test]
fn waitcnt_fields_decode_as_llvm_prints_them() {
    let Some(mc) = common::llvm_mc() else {
        return;
    };
    for (enc, cpu, op) in [
        (Encoding::Gfx9, "gfx900", 12u32),
        (Encoding::Gfx10, "gfx1030", 12),
        (Encoding::Gfx11, "gfx1100", 9),
    ] {
        for simm16 in [0x3f70u16, 0xc07f, 0x0000, 0x03f7, 0xfc07, 0x1234] {
            let text = disassemble(&mc, cpu, &[(0x17f << 23) | (op << 16) | u32::from(simm16)]);
            let w = shaders::isa::Waitcnt::from_simm16(enc, simm16);
            for (name, v) in [("vmcnt", w.vm), ("expcnt", w.exp), ("lgkmcnt", w.lgkm)] {
                match v {
                    Some(n) => assert!(
                        text.contains(&format!("{name}({n})")),
                        "{cpu} {simm16:#x}: {text} vs {w:?}"
                    ),
                    None => assert!(
                        !text.contains(&format!("{name}(")),
                        "{cpu} {simm16:#x}: {text} vs {w:?}"
                    ),
                }
            }
        }
    }
}

/// GFX12's waits, decoded from their encodings: each split counter's instruction (and
/// `s_wait_idle`) is the one LLVM names, and `s_wait_event`'s export-ready bit is bit 1.
#[test]
fn gfx12_waits_decode_as_llvm_names_them() {
    let Some(mc) = common::llvm_mc() else {
        return;
    };
    use shaders::isa::Sopp;
    let enc = Encoding::Gfx12;
    for (op, name) in [
        (Sopp::WaitLoadcnt, "s_wait_loadcnt"),
        (Sopp::WaitStorecnt, "s_wait_storecnt"),
        (Sopp::WaitSamplecnt, "s_wait_samplecnt"),
        (Sopp::WaitBvhcnt, "s_wait_bvhcnt"),
        (Sopp::WaitExpcnt, "s_wait_expcnt"),
        (Sopp::WaitDscnt, "s_wait_dscnt"),
        (Sopp::WaitKmcnt, "s_wait_kmcnt"),
        (Sopp::WaitLoadcntDscnt, "s_wait_loadcnt_dscnt"),
        (Sopp::WaitStorecntDscnt, "s_wait_storecnt_dscnt"),
        (Sopp::WaitEvent, "s_wait_event"),
    ] {
        let code = op.opcode(enc).expect("a GFX12 opcode");
        let text = disassemble(
            &mc,
            "gfx1201",
            &[(0x17f << 23) | (u32::from(code) << 16) | 0x102],
        );
        assert!(text.starts_with(name), "{name}: {text}");
        assert!(text.contains("0x102"), "{name}: {text}");
    }
    assert_eq!(Sopp::Waitcnt.opcode(enc), None, "no s_waitcnt on GFX12");
    assert!(enc.waits_for_export_ready(0x2) && !enc.waits_for_export_ready(0x1));
}

/// An image instruction's length is measured from its encoding on every
/// generation — GFX10's NSA dword count and GFX11's NSA form (always one more dword) included —
/// as LLVM's assembler (llvm-mc-19) encodes it: every MIMG opcode pops knows RADV to emit, in
/// every dimension, with sequential addresses and with two to five non-sequential ones (the
/// forms LLVM refuses for an opcode and dimension are not encoded and so not compared). The
/// raw words of such an instruction then verify like its disassembly.
#[test]
fn image_instructions_are_measured_as_llvm_encodes_them() {
    use shaders::isa::decode::decode;
    let Some(mc) = common::llvm_mc() else { return };
    const OPS: &[(&str, &str, bool)] = &[
        // (mnemonic, data operand, takes a sampler)
        ("image_load", "v[0:3]", false),
        ("image_load_mip", "v[0:3]", false),
        ("image_store", "v[0:3]", false),
        ("image_store_mip", "v[0:3]", false),
        ("image_atomic_add", "v0", false),
        ("image_atomic_cmpswap", "v[0:1]", false),
        ("image_sample", "v[0:3]", true),
        ("image_sample_l", "v[0:3]", true),
        ("image_sample_b", "v[0:3]", true),
        ("image_sample_c", "v[0:3]", true),
        ("image_sample_c_l", "v[0:3]", true),
        ("image_sample_d", "v[0:3]", true),
        ("image_sample_lz", "v[0:3]", true),
        ("image_gather4", "v[0:3]", true),
        ("image_gather4_c", "v[0:3]", true),
        ("image_get_lod", "v[0:1]", true),
    ];
    const DIMS: &[&str] = &[
        "1D",
        "2D",
        "3D",
        "CUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "2D_MSAA",
        "2D_MSAA_ARRAY",
    ];
    for (cpu, enc) in [
        ("gfx1030", Encoding::Gfx10),
        ("gfx1100", Encoding::Gfx11),
        ("gfx1150", Encoding::Gfx11),
    ] {
        let mut lines = String::new();
        for (op, data, sampler) in OPS {
            let dmask = match *data {
                "v0" => "0x1",
                "v[0:1]" => "0x3",
                _ => "0xf",
            };
            for dim in DIMS {
                let tail = format!(
                    "s[0:7]{} dmask:{dmask} dim:SQ_RSRC_IMG_{dim}",
                    if *sampler { ", s[8:11]" } else { "" }
                );
                for n in 1..=6usize {
                    lines += &format!("{op} {data}, v[4:{}], {tail}\n", 3 + n);
                    if n >= 2 {
                        let addrs: Vec<String> =
                            (0..n).map(|k| format!("v{}", 10 + 2 * k)).collect();
                        lines += &format!("{op} {data}, [{}], {tail}\n", addrs.join(", "));
                    }
                }
            }
        }
        let encoded = encodings(&mc, cpu, &lines);
        let (mut measured, mut nsa) = (0, 0);
        for (line, words) in &encoded {
            let d = decode(enc, words).unwrap_or_else(|e| panic!("{cpu}: {line}: {e}"));
            assert_eq!(d.words, words.len(), "{cpu}: {line}");
            measured += 1;
            nsa += usize::from(line.contains(", ["));
        }
        assert!(
            measured > 150 && nsa > 80,
            "{cpu}: {measured} measured, {nsa} NSA"
        );
    }
}

/// GFX11.5's and GFX12's scalar float instructions are measured as LLVM encodes
/// them — `s_fmaak_f32` and `s_fmamk_f32` carry their constant in a literal dword whatever their
/// sources — and named as LLVM names them.
#[test]
fn scalar_float_instructions_are_measured_as_llvm_encodes_them() {
    use shaders::isa::decode::{decode, describe};
    let Some(mc) = common::llvm_mc() else { return };
    let lines = "s_fmaak_f32 s0, s1, s2, 0x40000000\ns_fmamk_f32 s0, s1, 0x40000000, s2\n\
                 s_fmac_f32 s0, s1, s2\ns_add_f32 s0, s1, 0x3f000000\ns_mul_f32 s0, s1, 0.5\n\
                 s_cvt_f32_i32 s0, s1\ns_cvt_f32_u32 s0, 0x12345\ns_floor_f32 s0, s1\n\
                 s_cmp_lt_f32 s0, s1\ns_cvt_pk_rtz_f16_f32 s0, s1, s2\n";
    for (cpu, enc) in [("gfx1150", Encoding::Gfx11), ("gfx1200", Encoding::Gfx12)] {
        let encoded = encodings(&mc, cpu, lines);
        assert_eq!(encoded.len(), 10, "{cpu}: {encoded:?}");
        for (line, words) in &encoded {
            let d = decode(enc, words).unwrap_or_else(|e| panic!("{cpu}: {line}: {e}"));
            assert_eq!(d.words, words.len(), "{cpu}: {line}");
            let mnemonic = line.split_whitespace().next().unwrap();
            assert_eq!(describe(enc, d.class), mnemonic, "{cpu}: {line}");
        }
    }
}

/// LLVM's encoding of each line of `text` for `cpu` that it assembles: the line as it prints it,
/// and the instruction's words (lines it refuses are left out).
fn encodings(mc: &std::path::Path, cpu: &str, text: &str) -> Vec<(String, Vec<u32>)> {
    let src = std::env::temp_dir().join(format!("pops-encode-{}-{cpu}.s", std::process::id()));
    std::fs::write(&src, text).unwrap();
    let out = std::process::Command::new(mc)
        .args(["-arch=amdgcn", &format!("-mcpu={cpu}"), "-show-encoding"])
        .arg(&src)
        .output()
        .unwrap();
    std::fs::remove_file(&src).unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let (_, bytes) = line.rsplit_once("; encoding: [")?;
            let bytes: Vec<u8> = bytes
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
                .collect();
            let words = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            Some((line.trim().to_string(), words))
        })
        .collect()
}
