//! RADV as the oracle of the sequences: Mesa's ACO compiles an interlocked fragment shader for
//! a forced chip (`RADV_FORCE_FAMILY`, no GPU needed) and prints its disassembly with the encoding
//! of every instruction; each instruction of our ordered section must appear in ACO's output, in
//! the same order, with the same encoding once ACO's register choices are substituted.
//!
//! This file holds a single test: it sets process environment variables for the Vulkan loader.

mod common;

use pm4::Family;
use shaders::isa::{encode, ordered_section, Inst, Operand, SectionOptions, Sopp};

const FRAG: &str = r#"#version 450
#extension GL_ARB_fragment_shader_interlock : require
layout(pixel_interlock_ordered) in;
layout(binding = 0, r32ui) coherent uniform uimage2D img;
layout(location = 0) out vec4 color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    beginInvocationInterlockARB();
    uint v = imageLoad(img, p).x;
    imageStore(img, p, uvec4(v + 1u));
    endInvocationInterlockARB();
    color = vec4(1.0);
}
"#;

const VERT: &str = r#"#version 450
void main() {
    vec2 p = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
"#;

/// One instruction of ACO's disassembly: `\tmnemonic operands ; hex hex`.
#[derive(Debug)]
struct AcoInst {
    text: String,
    words: Vec<u32>,
}

fn parse_aco(text: &str) -> Vec<AcoInst> {
    text.lines()
        .filter_map(|l| {
            let (inst, hex) = l.split_once(';')?;
            let words: Option<Vec<u32>> = hex
                .split_whitespace()
                .map(|h| u32::from_str_radix(h, 16).ok())
                .collect();
            let inst = inst.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(AcoInst {
                text: inst,
                words: words?,
            })
        })
        .filter(|i| !i.words.is_empty())
        .collect()
}

/// The text with every `sN` replaced by `s?`, and the numbers taken out, in order.
fn template(text: &str) -> (String, Vec<u8>) {
    let mut regs = Vec::new();
    let mut out = String::new();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String, regs: &mut Vec<u8>| {
        let is_sgpr = token.len() > 1
            && token.starts_with('s')
            && token[1..].chars().all(|c| c.is_ascii_digit());
        if is_sgpr {
            regs.push(token[1..].parse().unwrap_or(255));
            out.push_str("s?");
        } else {
            out.push_str(token);
        }
        token.clear();
    };
    for c in text.chars() {
        if c == ' ' || c == ',' {
            flush(&mut token, &mut out, &mut regs);
            out.push(c);
        } else {
            token.push(c);
        }
    }
    flush(&mut token, &mut out, &mut regs);
    (out, regs)
}

fn compare(fam: Family, aco_text: &str) -> usize {
    let level = fam.gfx_level();
    let aco = parse_aco(aco_text);
    assert!(
        !aco.is_empty(),
        "no instructions parsed from ACO for {fam}:\n{aco_text}"
    );
    let section = ordered_section(level, &SectionOptions::default()).unwrap();
    let ours: Vec<Inst> = section
        .enter
        .iter()
        .chain(section.exit.iter())
        .copied()
        .filter(|i| match i {
            // Branch offsets depend on the surrounding code and ACO computes exact counters.
            Inst::Sopp { op, .. } => !op.is_branch() && *op != Sopp::Waitcnt,
            Inst::Sopk { op, .. } => *op != shaders::isa::Sopk::WaitcntVscnt,
            Inst::Label(_) | Inst::Marker(_) => false,
            _ => true,
        })
        .collect();
    let mut from = 0;
    for inst in &ours {
        let (want, _) = template(&inst.text(level, None));
        let found = aco[from..]
            .iter()
            .position(|a| template(&a.text).0 == want)
            .map(|p| p + from)
            .unwrap_or_else(|| {
                panic!("{fam}: `{want}` (ours) not found in order in ACO's output:\n{aco_text}")
            });
        let a = &aco[found];
        let (_, regs) = template(&a.text);
        let mut regs = regs.into_iter();
        let substituted = inst.map_operands(|o| match o {
            Operand::Sgpr(_) => Operand::Sgpr(regs.next().unwrap_or(255)),
            other => other,
        });
        let words = encode(level, &[substituted]).unwrap();
        assert_eq!(
            words,
            a.words,
            "{fam}: `{}` encodes as {:08x?}, ACO's `{}` as {:08x?}",
            substituted.text(level, None),
            words,
            a.text,
            a.words
        );
        from = found + 1;
    }
    let sent_done = aco.iter().any(|a| a.text.contains("MSG_ORDERED_PS_DONE"));
    assert_eq!(
        sent_done,
        !level.is_gfx11_plus(),
        "{fam}: ORDERED_PS_DONE is sent exactly on GFX9–10.3"
    );
    ours.len()
}

/// The fixed instructions of RADV's sequence — the packer s_setreg, the s_sleep, the
/// ORDERED_PS_DONE s_sendmsg, s_wait_event, the add of src_pops_exiting_wave_id — and every other
/// non-branch instruction of our entry/exit have ACO's encoding on vega10, raven, navi10, navi21
/// and navi31.
#[test]
fn sequences_match_radv_aco_on_five_chips() {
    let vert = match common::compile_glsl("vert", VERT) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    let frag = match common::compile_glsl("frag", FRAG) {
        Ok(v) => v,
        Err(common::Skip(why)) => return common::skip(&why),
    };
    for fam in [
        Family::Vega10,
        Family::Raven,
        Family::Navi10,
        Family::Navi21,
        Family::Navi31,
    ] {
        let text = match common::vk::aco_fragment_disassembly(fam.name(), &vert, &frag) {
            Ok(t) => t,
            Err(common::Skip(why)) => return common::skip(&why),
        };
        let n = compare(fam, &text);
        eprintln!("{fam}: {n} instructions of our section match ACO's encodings");
        // GFX9: 15 (incl. s_nop and the off-by-one), GFX10.x: 11, GFX11: s_wait_event only.
        let expected = match fam.gfx_level() {
            pm4::GfxLevel::Gfx9 => 15,
            pm4::GfxLevel::Gfx10 | pm4::GfxLevel::Gfx10_3 => 11,
            _ => 1,
        };
        assert_eq!(n, expected, "{fam}");
    }
}
