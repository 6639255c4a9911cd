//! `shaders::verify` against the real compiler: stock RADV (Mesa's ACO, `RADV_FORCE_FAMILY`, no
//! GPU) compiles every interlocked fragment shader of the corpus for vega10, raven, navi10,
//! navi21, navi31 and phoenix and prints its assembly with every instruction's encoding. ACO's
//! code must be clean; each instruction's class must agree with the mnemonic LLVM's
//! disassembler printed for it (an oracle that shares no table with the decoder); and
//! size-preserving edits of ACO's code must each give the finding of the rule they break.
//!
//! This file holds a single test: it sets process environment variables for the Vulkan loader.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use shaders::isa::decode::{Class, VmemKind};
use shaders::isa::Encoding;
use shaders::verify::{read, verify, Rule};
use std::collections::BTreeSet;

const VERT: &str = r#"#version 450
void main() {
    vec2 p = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
"#;

/// Discards before the ordered section (a lane's exit before the packer is set) and after it.
const DISCARDS: &str = r#"#version 450
#extension GL_ARB_fragment_shader_interlock : require
layout(pixel_interlock_ordered) in;
layout(binding = 0, r32ui) coherent uniform uimage2D img;
layout(location = 0) out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (p.x == 3) discard;
    beginInvocationInterlockARB();
    uint v = imageLoad(img, p).x;
    imageStore(img, p, uvec4(v + 1u));
    endInvocationInterlockARB();
    if (v == 7u) discard;
    color = vec4(1.0);
}
"#;

/// The vertex stage for pops-oit's colour pass: its flat colour at location 0.
const VERT_COLOUR: &str = r#"#version 450
layout(location = 0) flat out uint vColor;
void main() {
    vec2 p = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
    gl_Position = vec4(p * 2.0 - 1.0, 0.5, 1.0);
    vColor = 0x80ff8040u;
}
"#;

/// Discards inside the ordered section: a lane that leaves between its begin and end.
const DISCARD_INSIDE: &str = r#"#version 450
#extension GL_ARB_fragment_shader_interlock : require
layout(pixel_interlock_ordered) in;
layout(binding = 0, r32ui) coherent uniform uimage2D img;
layout(location = 0) out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    beginInvocationInterlockARB();
    uint v = imageLoad(img, p).x;
    if (v > 100u) discard;
    imageStore(img, p, uvec4(v + 1u));
    endInvocationInterlockARB();
    color = vec4(float(v));
}
"#;

/// pops-oit's colour pass of the interlock algorithm (`oit/shaders/interlock.frag`, after
/// nvpro-samples' oitInterlock) in each of its variants, compiled as pops-oit compiles it.
fn oit_interlock_variants() -> Vec<(String, Vec<u32>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../oit/shaders");
    let mut out = Vec::new();
    for ordered in 0..2 {
        for sample in 0..2 {
            for per_sample in 0..2 {
                let spv = pops_testkit::scratch("verify-oit")
                    .join(format!("oit-{ordered}{sample}{per_sample}.spv"));
                let r = std::process::Command::new("glslangValidator")
                    .args(["-V", "--target-env", "vulkan1.2"])
                    .arg(format!("-DORDERED={ordered}"))
                    .arg(format!("-DSAMPLE_INTERLOCK={sample}"))
                    .arg(format!("-DPER_SAMPLE={per_sample}"))
                    .arg("-o")
                    .arg(&spv)
                    .arg(dir.join("interlock.frag"))
                    .output()
                    .expect("glslangValidator runs");
                assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
                let bytes = std::fs::read(&spv).unwrap();
                let _ = std::fs::remove_file(&spv);
                out.push((
                    format!("oit interlock o{ordered} s{sample} p{per_sample}"),
                    bytes
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                ));
            }
        }
    }
    out
}

const CHIPS: [&str; 6] = ["vega10", "raven", "navi10", "navi21", "navi31", "phoenix"];

fn level(chip: &str) -> pm4::GfxLevel {
    pm4::Family::parse(chip).unwrap().gfx_level()
}

/// The rules broken by `text`.
fn rules(chip: &str, text: &str) -> BTreeSet<Rule> {
    let lvl = level(chip);
    let (_, code) = read(Encoding::of(lvl), text).unwrap_or_else(|e| panic!("{chip}: {e}\n{text}"));
    verify(lvl, &code).findings.iter().map(|f| f.rule).collect()
}

/// The entry sequence of `text` run in the ordering model.
fn model(
    chip: &str,
    text: &str,
) -> Result<shaders::verify::model::ModelRun, shaders::verify::model::ModelFinding> {
    let lvl = level(chip);
    let (_, code) = read(Encoding::of(lvl), text).unwrap();
    shaders::verify::model::run(lvl, &code)
}

/// `text` with the `nth` instruction line whose text starts with `prefix` replaced by s_nop
/// (one per dword: the code keeps its size and its branch offsets).
fn nop_out(chip: &str, text: &str, prefix: &str, nth: usize) -> String {
    let line = text
        .lines()
        .filter(|l| l.trim_start().starts_with(prefix))
        .nth(nth)
        .unwrap_or_else(|| panic!("{chip}: no {prefix} #{nth} in\n{text}"));
    let words = line
        .rsplit_once(';')
        .map_or(0, |(_, w)| w.split_whitespace().count());
    // s_nop 0: the same encoding on GFX9 to GFX11.
    let nops = vec!["\ts_nop 0 ; bf800000"; words].join("\n");
    replace(text, prefix, nth, &nops)
}

/// `text` with the `nth` line starting with `prefix` replaced by `line` (same number of dwords).
fn replace(text: &str, prefix: &str, nth: usize, line: &str) -> String {
    let mut seen = 0;
    let mut hit = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !hit && l.trim_start().starts_with(prefix) {
                if seen == nth {
                    hit = true;
                    return line.to_string();
                }
                seen += 1;
            }
            l.to_string()
        })
        .collect();
    assert!(hit, "no {prefix} #{nth}");
    out.join("\n") + "\n"
}

/// What an instruction is, apart from where it sits: a branch by the index of its target, a
/// wait by the counters it awaits.
#[derive(Debug, PartialEq)]
enum Same {
    Class(Class),
    Branch(u8, usize),
    Waitcnt(shaders::isa::Waitcnt),
}

/// The code without the assembler's NOPs and pacing markers (loop alignment, prefetch and
/// clause markers, which ACO's listing does not show), each instruction as [`Same`].
fn comparable(chip: &str, code: &[shaders::verify::Instr]) -> Vec<Same> {
    use shaders::isa::{Sopp, Waitcnt};
    use shaders::verify::opcodes;
    let enc = Encoding::of(level(chip));
    let kept: Vec<&shaders::verify::Instr> = code
        .iter()
        .filter(|i| {
            !matches!(i.class, Class::Sopp { op, .. }
                if Some(op) == Sopp::Nop.opcode(enc) || opcodes::is_pacing(enc, op))
        })
        .collect();
    let index_of = |addr: i64| {
        kept.iter()
            .position(|i| i64::from(i.addr) >= addr)
            .unwrap_or(kept.len())
    };
    kept.iter()
        .map(|i| match i.class {
            Class::Sopp { op, simm16 }
                if Sopp::ALL
                    .iter()
                    .any(|b| b.is_branch() && b.opcode(enc) == Some(op))
                    || op == opcodes::at(opcodes::CBRANCH_VCCZ, enc)
                    || op == opcodes::at(opcodes::CBRANCH_VCCNZ, enc) =>
            {
                Same::Branch(
                    op,
                    index_of(i64::from(i.addr) + 4 + 4 * i64::from(simm16 as i16)),
                )
            }
            Class::Sopp { op, simm16 } if Some(op) == Sopp::Waitcnt.opcode(enc) => {
                Same::Waitcnt(Waitcnt::from_simm16(enc, simm16))
            }
            c => Same::Class(c),
        })
        .collect()
}

/// The same pipeline on the RADV built without LLVM (the same Mesa 25.0.7 ACO), whose
/// "Assembly" is ACO's program listing without encodings: read as the same code, instruction by
/// instruction, with the same findings and the same model run. Returns the instructions compared.
fn listing_agrees(chip: &str, vs: &[u32], fs: &[u32], dynamic_blend: bool, encoded: &str) -> usize {
    let oracle = match common::vk::oracle_icd() {
        Ok(i) => i,
        Err(common::Skip(why)) => {
            common::skip(&why);
            return 0;
        }
    };
    let listing =
        match common::vk::aco_fragment_disassembly_on(&oracle, chip, vs, fs, dynamic_blend) {
            Ok(t) => t,
            Err(common::Skip(why)) => {
                common::skip(&why);
                return 0;
            }
        };
    let lvl = level(chip);
    let (f, l) =
        read(Encoding::of(lvl), &listing).unwrap_or_else(|e| panic!("{chip}: {e}\n{listing}"));
    assert_eq!(f, shaders::verify::Format::AcoListing, "{chip}\n{listing}");
    let (_, e) = read(Encoding::of(lvl), encoded).unwrap();
    let (a, b) = (comparable(chip, &l), comparable(chip, &e));
    assert_eq!(
        a, b,
        "{chip}: the listing and the encodings differ\n{listing}\n{encoded}"
    );
    let (rl, re) = (verify(lvl, &l), verify(lvl, &e));
    assert_eq!(rl.findings.len(), re.findings.len(), "{chip}\n{listing}");
    assert_eq!(
        rl.exits.iter().map(|x| x.kind).collect::<Vec<_>>(),
        re.exits.iter().map(|x| x.kind).collect::<Vec<_>>(),
        "{chip}\n{listing}"
    );
    assert_eq!(
        shaders::verify::model::run(lvl, &l).map(|m| m.waves).ok(),
        shaders::verify::model::run(lvl, &e).map(|m| m.waves).ok(),
        "{chip}: the model\n{listing}"
    );
    a.len()
}

/// Each instruction's class agrees with the mnemonic LLVM printed for it.
fn classes_agree_with_llvm(chip: &str, text: &str) -> usize {
    let lvl = level(chip);
    let (_, code) = read(Encoding::of(lvl), text).unwrap();
    for i in &code {
        let text = i.text(Encoding::of(lvl));
        let m = text.split_whitespace().next().unwrap_or_default();
        let ok = match i.class {
            Class::Vmem {
                kind: Some(VmemKind::Load),
                ..
            } => {
                [
                    "_load",
                    "image_sample",
                    "image_gather",
                    "image_get",
                    "image_msaa",
                    "image_bvh",
                ]
                .iter()
                .any(|s| m.contains(s))
                    && !m.contains("store")
            }
            Class::Vmem {
                kind: Some(VmemKind::Store),
                ..
            } => m.contains("_store"),
            Class::Vmem {
                kind: Some(VmemKind::Atomic),
                ..
            } => m.contains("atomic"),
            Class::Vmem { kind: None, .. } => false,
            Class::Export { .. } => m == "exp",
            Class::Smem => {
                m.starts_with("s_load")
                    || m.starts_with("s_buffer_load")
                    || m.starts_with("s_store")
                    || m.starts_with("s_dcache")
                    || m.starts_with("s_memtime")
                    || m.starts_with("s_memrealtime")
                    || m.starts_with("s_atc")
            }
            Class::Ds => m.starts_with("ds_"),
            Class::Valu => m.starts_with("v_"),
            Class::Sopp { .. }
            | Class::Sopk { .. }
            | Class::Sopc { .. }
            | Class::Sop1 { .. }
            | Class::Sop2 { .. } => m.starts_with("s_"),
        };
        assert!(
            ok,
            "{chip}: {:?} for '{}' ({:08x?})",
            i.class, text, i.words
        );
    }
    code.len()
}

/// `mutated` breaks exactly the rules `want`.
fn expect_rules(chip: &str, mutated: String, want: &[Rule], what: &str) {
    let got = rules(chip, &mutated);
    assert_eq!(
        got,
        want.iter().copied().collect::<BTreeSet<_>>(),
        "{chip}: {what}\n{mutated}"
    );
}

const DONE: &str = "s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)";

/// With dynamic colour blending RADV jumps into a PS epilog that does the exports: the code
/// keeps every rule, and before the jump the ordered section must be closed (GFX9-10.3 the done
/// message, GFX11 the store awaited: the epilog's export resumes the overlapped waves). The
/// instructions checked against LLVM.
fn epilog_closes_the_section(
    chip: &str,
    vert: &[u32],
    discards: &[u32],
) -> Result<usize, common::Skip> {
    let epilog = common::vk::aco_fragment_disassembly_with(chip, vert, discards, true)?;
    let checked = classes_agree_with_llvm(chip, &epilog);
    let lvl = level(chip);
    let (_, code) = read(Encoding::of(lvl), &epilog).unwrap();
    let report = verify(lvl, &code);
    assert!(
        report.findings.is_empty(),
        "{chip}: epilog {:?}\n{epilog}",
        report.findings
    );
    assert!(
        report
            .exits
            .iter()
            .any(|e| e.kind == shaders::verify::ExitKind::EpilogJump),
        "{chip}: no epilog jump found\n{epilog}"
    );
    model(chip, &epilog).unwrap_or_else(|e| panic!("{chip}: epilog: {e}"));
    // Before the jump the ordered section must be closed: GFX9-10.3 the done message, GFX11
    // the store awaited (the epilog's export resumes the overlapped waves).
    let open = if lvl.is_gfx11_plus() {
        let at = epilog
            .lines()
            .position(|l| l.trim_start().starts_with("s_setpc_b64"))
            .unwrap();
        let nth = epilog
            .lines()
            .take(at)
            .filter(|l| l.trim_start().starts_with("s_waitcnt_vscnt"))
            .count()
            - 1;
        nop_out(chip, &epilog, "s_waitcnt_vscnt", nth)
    } else {
        nop_out(chip, &epilog, "s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)", 0)
    };
    let got = rules(chip, &open);
    assert!(
        got.contains(&Rule::OpenAtEpilogJump),
        "{chip}: {got:?}\n{open}"
    );
    Ok(checked)
}

/// GFX11 and later: each wait and export the article requires, removed, breaks its rule.
fn gfx11_mutations_break_their_rules(chip: &str, text: &str) {
    expect_rules(
        chip,
        nop_out(chip, text, "s_wait_event", 0),
        &[Rule::WaitEventBeforeOrderedAccess],
        "s_wait_event removed",
    );
    expect_rules(
        chip,
        nop_out(chip, text, "s_waitcnt_vscnt", 0),
        &[Rule::CountersBeforeLastExport],
        "the store's wait before the last export removed",
    );
    expect_rules(
        chip,
        nop_out(chip, text, "exp mrt0 off", 0),
        &[Rule::NoExport],
        "the discard exit's export removed",
    );
    // The discard exit taken before any store: removing its waits leaves nothing
    // outstanding there, so the code stays clean only if the other path still waits.
}

/// GFX9-10.3: the driver's wave-ID arithmetic run in the model: clean as compiled; the exit
/// compare reversed, or GFX9's off-by-one correction removed, lets bodies run out of order.
fn the_model_runs_the_drivers_arithmetic(chip: &str, text: &str) {
    let m = model(chip, text).unwrap_or_else(|e| panic!("{chip}: {e}"));
    assert!(m.wraps > 0 && m.overlapped_waves > 0, "{chip}: {m:?}");
    let reversed = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("s_cmp_lt_u32 s1, s0") {
                "\ts_cmp_lt_u32 s0, s1 ; bf0a0100".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        reversed != text,
        "{chip}: no s_cmp_lt_u32 s1, s0 in\n{text}"
    );
    assert!(
        matches!(
            model(chip, &reversed),
            Err(shaders::verify::model::ModelFinding::Breach { .. })
        ),
        "{chip}: the reversed exit compare must break the order"
    );
    if level(chip) == pm4::GfxLevel::Gfx9 {
        // GFX9's off-by-one correction (`s_add_i32 …, src_scc`) removed: out of order past
        // a wraparound.
        assert!(
            matches!(
                model(chip, &nop_out(chip, text, "s_add_i32 s1, s1, src_scc", 0)),
                Err(shaders::verify::model::ModelFinding::Breach { .. })
            ),
            "{chip}: the off-by-one correction removed must break the order"
        );
    }
}

/// GFX9-10.3: the driver's arithmetic in the model, and each instruction the article requires,
/// removed or moved, breaks its rule.
fn mutations_break_their_rules(chip: &str, text: &str) {
    the_model_runs_the_drivers_arithmetic(chip, text);
    // The bit-31 test removed: the wait is no longer under the did-overlap test.
    expect_rules(
        chip,
        nop_out(chip, text, "s_bitcmp1_b32", 0),
        &[Rule::WaitWithoutOverlapTest],
        "bit-31 test removed",
    );
    // The s_sleep of the wait loop replaced.
    expect_rules(
        chip,
        nop_out(chip, text, "s_sleep", 0),
        &[Rule::WaitWithoutSleep],
        "s_sleep removed",
    );
    // The done of the ordered section removed: every exit after the packer setup misses it.
    expect_rules(
        chip,
        nop_out(chip, text, DONE, 0),
        &[Rule::DoneMissing],
        "done removed",
    );
    // The done of the discard exit before the section removed: that exit never set the
    // packer, so it needs none.
    expect_rules(
        chip,
        nop_out(chip, text, DONE, 1),
        &[],
        "done of the early discard removed",
    );
    // A second done after the first (the discard test after the section replaced).
    let second = replace(
        text,
        "v_cmpx_ne_i32_e32",
        0,
        &format!("\t{DONE} ; bf900007"),
    );
    expect_rules(chip, second, &[Rule::DoneTwice], "second done");
    // The done moved into the wait loop (the loop's compare replaced, the original removed):
    // sent before the wait ends, and again at each turn of the loop.
    let moved = replace(
        &nop_out(chip, text, DONE, 0),
        "s_cmp_lt_u32",
        0,
        &format!("\t{DONE} ; bf900007"),
    );
    expect_rules(
        chip,
        moved,
        &[Rule::DoneBeforeWait, Rule::DoneTwice],
        "done moved into the wait loop",
    );
    // The wait for the store before done removed.
    let store_wait = if level(chip) == pm4::GfxLevel::Gfx9 {
        "s_waitcnt vmcnt(0)"
    } else {
        "s_waitcnt_vscnt"
    };
    let nth = if level(chip) == pm4::GfxLevel::Gfx9 {
        1
    } else {
        0
    };
    expect_rules(
        chip,
        nop_out(chip, text, store_wait, nth),
        &[Rule::CountersBeforeDone],
        "the store's wait before done removed",
    );
    // The waits of the early discard exit (the block after the main path's last s_endpgm)
    // removed: nothing is outstanding there.
    let lines: Vec<&str> = text.lines().collect();
    let last_exp = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with("exp null"))
        .unwrap();
    let block = lines[..last_exp]
        .iter()
        .rposition(|l| l.trim_start().starts_with("s_endpgm"))
        .unwrap();
    let early: String = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            if k > block && l.trim_start().starts_with("s_waitcnt") {
                "\ts_nop 0 ; bf800000".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    expect_rules(chip, early, &[], "the early discard's waits removed");
    // The export of the discard exit after the section removed.
    expect_rules(
        chip,
        nop_out(chip, text, "exp null", 0),
        &[Rule::NoExport],
        "export removed",
    );
}

#[test]
fn aco_code_is_clean_and_every_mutation_breaks_its_rule() {
    let vert = match common::compile_glsl("vert", VERT) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    let discards = match common::compile_glsl("frag", DISCARDS) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    let corpus: Vec<&shaders::corpus::CorpusShader> = shaders::corpus::all()
        .iter()
        .filter(|s| {
            s.stage == "frag"
                && s.source.contains("interlock")
                && !s.name.starts_with("shading_rate")
        })
        .collect();
    assert!(corpus.len() >= 8, "{}", corpus.len());
    let inside = match common::compile_glsl("frag", DISCARD_INSIDE) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    let vert_colour = match common::compile_glsl("vert", VERT_COLOUR) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    let mut extra: Vec<(String, Vec<u32>, &Vec<u32>)> = oit_interlock_variants()
        .into_iter()
        .map(|(n, s)| (n, s, &vert_colour))
        .collect();
    extra.push(("discard inside the section".into(), inside, &vert));
    let mut checked = 0;
    let mut listed = 0;
    for chip in CHIPS {
        // pops-oit's interlock shaders and a discard inside the ordered section: clean too.
        for (name, spv, vs) in &extra {
            let text = match common::vk::aco_fragment_disassembly(chip, vs, spv) {
                Ok(t) => t,
                Err(common::Skip(why)) => return common::skip(&why),
            };
            checked += classes_agree_with_llvm(chip, &text);
            listed += listing_agrees(chip, vs, spv, false, &text);
            let found = rules(chip, &text);
            assert!(found.is_empty(), "{chip} {name}: {found:?}\n{text}");
            if let Err(e) = model(chip, &text) {
                panic!("{chip} {name}: {e}\n{text}");
            }
        }
        // Every interlocked shader of the corpus: ACO's code keeps every rule, with static
        // colour blending and with dynamic (the main part jumps into a PS epilog).
        for s in &corpus {
            for dynamic_blend in [false, true] {
                let text = match common::vk::aco_fragment_disassembly_with(
                    chip,
                    &vert,
                    &s.words(),
                    dynamic_blend,
                ) {
                    Ok(t) => t,
                    Err(common::Skip(why)) => return common::skip(&why),
                };
                checked += classes_agree_with_llvm(chip, &text);
                listed += listing_agrees(chip, &vert, &s.words(), dynamic_blend, &text);
                let found = rules(chip, &text);
                let what = if dynamic_blend { "epilog" } else { "" };
                assert!(
                    found.is_empty(),
                    "{chip} {} {what}: {found:?}\n{text}",
                    s.name
                );
                if let Err(e) = model(chip, &text) {
                    panic!("{chip} {} {what}: {e}\n{text}", s.name);
                }
            }
        }
        let text = match common::vk::aco_fragment_disassembly(chip, &vert, &discards) {
            Ok(t) => t,
            Err(common::Skip(why)) => return common::skip(&why),
        };
        checked += classes_agree_with_llvm(chip, &text);
        assert!(rules(chip, &text).is_empty(), "{chip}: discards\n{text}");
        checked += match epilog_closes_the_section(chip, &vert, &discards) {
            Ok(n) => n,
            Err(common::Skip(why)) => return common::skip(&why),
        };
        if level(chip).is_gfx11_plus() {
            gfx11_mutations_break_their_rules(chip, &text);
        } else {
            mutations_break_their_rules(chip, &text);
        }
    }
    // GFX11.5: stock RADV's LLVM 19 cannot disassemble it, so its "Assembly" is ACO's program
    // listing: read as such, clean and run in the model.
    for s in &corpus {
        let text = match common::vk::aco_fragment_disassembly("gfx1150", &vert, &s.words()) {
            Ok(t) => t,
            Err(common::Skip(why)) => return common::skip(&why),
        };
        let (f, code) =
            read(Encoding::Gfx11, &text).unwrap_or_else(|e| panic!("gfx1150: {e}\n{text}"));
        assert_eq!(f, shaders::verify::Format::AcoListing, "gfx1150\n{text}");
        let report = verify(pm4::GfxLevel::Gfx11_5, &code);
        assert!(
            report.findings.is_empty(),
            "gfx1150 {}: {:?}\n{text}",
            s.name,
            report.findings
        );
        shaders::verify::model::run(pm4::GfxLevel::Gfx11_5, &code)
            .unwrap_or_else(|e| panic!("gfx1150 {}: {e}\n{text}", s.name));
        listed += code.len();
    }
    eprintln!("{checked} instructions of ACO's code decoded and checked against LLVM's mnemonics");
    eprintln!("{listed} instructions of ACO's program listing read as the same code");
    assert!(
        listed > checked / 2,
        "the listings compared: {listed} of {checked}"
    );
}
