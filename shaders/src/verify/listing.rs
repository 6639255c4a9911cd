//! ACO's program listing: what RADV returns as its "Assembly" representation where it has no
//! disassembler for the chip (built without LLVM, or GFX11.5 with LLVM 19) — ACO's final
//! program, block by block (`BB3`), one hardware instruction per line with its definitions and
//! operands (`s1: %43:s[0], s1: %42:scc = s_bfe_u32 %31:s[4], 0x2001c`), branches naming their
//! target block (`block:BB8`), and no encodings.
//!
//! Scalar instructions are assembled from the listing — opcodes from LLVM's tables
//! ([`crate::isa::scalar_generated`]), operand fields from ACO's register names, branch offsets
//! from the blocks — and then decoded like any other code, so every rule and the model read the
//! same instructions as from encodings. The rules need nothing of other instructions but their
//! class, which the mnemonic says: vector memory accesses (format, and load, store or atomic),
//! exports (target and done), scalar memory, LDS, vector ALU. Those carry one placeholder word.
//! Addresses count instructions (4 bytes each, literals included), since the listing has none.

use super::code::{InputError, Instr, LineError, Words};
use crate::isa::decode::{decode, Class, VmemFormat, VmemKind};
use crate::isa::scalar_generated::{ScalarFormat, SCALAR_OPS};
use crate::isa::{Encoding, Waitcnt};
use pm4::GfxLevel;

/// Whether `text` is ACO's program listing: blocks `BBn` with ACO's block comments.
pub fn is_listing(text: &str) -> bool {
    text.lines().any(|l| block_number(l).is_some())
        && text
            .lines()
            .any(|l| l.trim_start().starts_with("/* logical preds:"))
}

/// `BB12` → 12.
fn block_number(line: &str) -> Option<usize> {
    line.trim_end()
        .strip_prefix("BB")
        .and_then(|n| n.parse().ok())
}

/// An instruction line of the listing, before its branch target is known.
struct Parsed {
    line: usize,
    text: String,
    what: Line,
}

/// What an instruction line makes.
struct Line {
    words: Vec<u32>,
    /// The class, for an instruction that is not assembled.
    class: Option<Class>,
    /// The target block of a branch.
    target: Option<usize>,
}

/// Reads ACO's program listing `text` as code for `enc`.
pub fn read(enc: Encoding, text: &str) -> Result<Vec<Instr>, InputError> {
    let mut parsed: Vec<Parsed> = Vec::new();
    // Block number → index of its first instruction.
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    for (k, l) in text.lines().enumerate() {
        if let Some(b) = block_number(l) {
            blocks.push((b, parsed.len()));
            continue;
        }
        let t = l.trim();
        if blocks.is_empty() || !l.starts_with('\t') || t.is_empty() || t.starts_with("/*") {
            continue;
        }
        let bad = |what: LineError| InputError::Line { line: k + 1, what };
        parsed.push(Parsed {
            line: k + 1,
            text: t.split_whitespace().collect::<Vec<_>>().join(" "),
            what: instruction(enc, t).map_err(bad)?,
        });
    }
    if parsed.is_empty() {
        return Err(InputError::Empty);
    }
    let mut addrs = Vec::with_capacity(parsed.len());
    let mut end = 0u32;
    for p in &parsed {
        addrs.push(end);
        end += 4 * p.what.words.len() as u32;
    }
    let mut out = Vec::with_capacity(parsed.len());
    for (p, &addr) in parsed.into_iter().zip(&addrs) {
        let mut words = p.what.words;
        if let Some(b) = p.what.target {
            let &(_, first) = blocks
                .iter()
                .find(|(n, _)| *n == b)
                .ok_or(InputError::Line {
                    line: p.line,
                    what: LineError::NoSuchBlock(b),
                })?;
            // A block with no instruction after it starts at the end.
            let to = addrs.get(first).copied().unwrap_or(end);
            let offset = (i64::from(to) - i64::from(addr) - 4) / 4;
            words[0] |= u32::from(offset as i16 as u16);
        }
        let class = match p.what.class {
            Some(c) => c,
            None => {
                let d = decode(enc, &words).map_err(|error| InputError::Decode {
                    addr,
                    text: p.text.clone(),
                    error,
                })?;
                if d.words != words.len() {
                    return Err(InputError::Length {
                        addr,
                        text: p.text,
                        given: words.len(),
                        decoded: d.words,
                    });
                }
                d.class
            }
        };
        let Some(in_place) = Words::new(&words) else {
            return Err(InputError::TooLong {
                addr,
                text: p.text,
                given: words.len(),
            });
        };
        out.push(Instr {
            addr,
            words: in_place,
            listed: Some(p.text),
            class,
        });
    }
    Ok(out)
}

/// An instruction other than a scalar ALU or program-control one — an export, a vector or
/// scalar memory access, LDS, vector ALU — as its class alone (a placeholder word: only the
/// class is read); `None` for a scalar instruction.
fn not_scalar(t: &str, mnemonic: &str, tokens: &[&str]) -> Result<Option<Line>, LineError> {
    let placeholder = |class: Class| {
        Some(Line {
            words: vec![0],
            class: Some(class),
            target: None,
        })
    };
    if mnemonic == "exp" {
        let target = tokens
            .iter()
            .rev()
            .find_map(|t| export_target(t))
            .ok_or_else(|| LineError::ExportWithoutTarget(t.to_string()))?;
        return Ok(placeholder(Class::Export {
            target,
            done: tokens.contains(&"done"),
        }));
    }
    if let Some(format) = vmem_format(mnemonic) {
        return Ok(placeholder(Class::Vmem {
            format,
            kind: vmem_kind(mnemonic),
            glc: tokens.contains(&"glc"),
        }));
    }
    if is_smem(mnemonic) {
        return Ok(placeholder(Class::Smem));
    }
    if mnemonic.starts_with("ds_") {
        return Ok(placeholder(Class::Ds));
    }
    if mnemonic.starts_with("v_") || mnemonic.starts_with("lds_") {
        return Ok(placeholder(Class::Valu));
    }
    Ok(None)
}

/// One instruction line: its definitions (`s1: %4:s[0], s1: %5:scc = `), mnemonic, operands.
fn instruction(enc: Encoding, t: &str) -> Result<Line, LineError> {
    let (defs, body) = match t.split_once(" = ") {
        Some((d, b)) if d.contains('%') => (d, b),
        _ => ("", t),
    };
    let (mnemonic, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let tokens: Vec<&str> = rest
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect();
    if let Some(line) = not_scalar(t, mnemonic, &tokens)? {
        return Ok(line);
    }
    let (format, op) = SCALAR_OPS
        .iter()
        .find(|(e, _, m, _)| *e == enc && *m == mnemonic)
        .map(|&(_, f, _, op)| (f, u32::from(op)))
        .ok_or_else(|| LineError::Unknown {
            mnemonic: mnemonic.to_string(),
            enc,
        })?;
    let defs: Vec<u8> = defs
        .split(',')
        .filter_map(|d| d.split_once('%').map(|(_, r)| r))
        .map(|r| register(enc, r))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|&r| r != SCC)
        .collect();
    let mut literal: Option<u32> = None;
    let mut operands: Vec<u8> = Vec::new();
    let mut imm: Option<i32> = None;
    let mut target = None;
    let mut waits: Vec<(&str, u8)> = Vec::new();
    // A message names itself (`sendmsg(gs_done, cut, 2)`): read from the text, below.
    let message = mnemonic == "s_sendmsg";
    for tok in tokens.iter().filter(|_| !message) {
        if let Some(v) = tok.strip_prefix("imm:") {
            imm = Some(
                v.parse()
                    .map_err(|_| LineError::NotANumber(tok.to_string()))?,
            );
        } else if let Some(b) = tok.strip_prefix("block:BB") {
            target = Some(
                b.parse::<usize>()
                    .map_err(|_| LineError::NotABlock(tok.to_string()))?,
            );
        } else if let Some((name, n)) = tok.strip_suffix(')').and_then(|x| x.split_once('(')) {
            let n = n.parse().map_err(|_| LineError::NoCount(tok.to_string()))?;
            waits.push((name, n));
        } else if *tok == "wait_export_ready" {
            waits.push((tok, 0));
        } else if format == ScalarFormat::Sopp {
            // No register operands: the words of a pacing instruction (`valu_dep_1 next`).
            continue;
        } else {
            let (code, lit) = operand(enc, tok)?;
            if let Some(l) = lit {
                if literal.is_some_and(|x| x != l) {
                    return Err(LineError::TwoLiterals(t.to_string()));
                }
                literal = Some(l);
            }
            operands.push(code);
        }
    }
    let src = |k: usize| operands.get(k).copied().unwrap_or(0);
    let sdst = defs.first().copied();
    let simm16 = |v: Option<i32>| v.unwrap_or(0) as u16 as u32;
    let word = match format {
        ScalarFormat::Sop1 => {
            0xBE80_0000 | u32::from(sdst.unwrap_or(0)) << 16 | op << 8 | u32::from(src(0))
        }
        ScalarFormat::Sop2 => {
            0x8000_0000
                | op << 23
                | u32::from(sdst.unwrap_or(0)) << 16
                | u32::from(src(1)) << 8
                | u32::from(src(0))
        }
        ScalarFormat::Sopc => 0xBF00_0000 | op << 16 | u32::from(src(1)) << 8 | u32::from(src(0)),
        ScalarFormat::Sopk => {
            // The register field is a definition (s_movk_i32, s_getreg_b32) or, where there is
            // none, the first register operand (s_setreg_b32's source, s_waitcnt_vscnt's null).
            let reg = sdst.or_else(|| operands.iter().copied().find(|&o| o != LITERAL));
            0xB000_0000 | op << 23 | u32::from(reg.unwrap_or(0)) << 16 | simm16(imm)
        }
        ScalarFormat::Sopp => {
            0xBF80_0000 | op << 16 | sopp_value(enc, mnemonic, t, rest, &waits, imm)?
        }
    };
    let mut words = vec![word];
    words.extend(literal);
    Ok(Line {
        words,
        class: None,
        target,
    })
}

/// A SOPP instruction's 16-bit field, from its operands as ACO printed them.
fn sopp_value(
    enc: Encoding,
    mnemonic: &str,
    t: &str,
    rest: &str,
    waits: &[(&str, u8)],
    imm: Option<i32>,
) -> Result<u32, LineError> {
    Ok(match mnemonic {
        "s_waitcnt" => u32::from(waitcnt(enc, waits)?),
        "s_sendmsg" => sendmsg(rest)
            .map(u32::from)
            .or_else(|| rest.trim().strip_prefix("imm:")?.parse().ok())
            .ok_or_else(|| LineError::UnknownMessage(t.to_string()))?,
        // ACO prints `wait_export_ready` where the instruction waits on the program's level (its
        // `is_wait_export_ready`): GFX11 with bit 0 clear ("do not wait" is bit 0), GFX12 with
        // bit 1 set.
        "s_wait_event" => {
            let waits = waits.iter().any(|(n, _)| *n == "wait_export_ready");
            match (enc, waits) {
                (Encoding::Gfx12, true) => 2,
                (Encoding::Gfx12, false) => 0,
                (_, true) => 0,
                (_, false) => 1,
            }
        }
        // Pacing instructions: their fields are not read.
        _ if !waits.is_empty() || rest.contains("_dep_") || rest.contains("salu_cycle") => 0,
        _ => imm.unwrap_or(0) as u16 as u32,
    })
}

const SCC: u8 = 253;
const LITERAL: u8 = 255;

/// An operand field (and its literal dword): a register, an inline constant or a literal.
fn operand(enc: Encoding, tok: &str) -> Result<(u8, Option<u32>), LineError> {
    if let Some((_, r)) = tok.split_once('%') {
        return register(enc, r).map(|c| (c, None));
    }
    if let Some(h) = tok.strip_prefix("0x") {
        let v = u32::from_str_radix(h, 16).map_err(|_| LineError::NotALiteral(tok.to_string()))?;
        return Ok((LITERAL, Some(v)));
    }
    let float = [
        "0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "1/(2*PI)",
    ];
    if let Some(k) = float.iter().position(|f| *f == tok) {
        return Ok((240 + k as u8, None));
    }
    if let Ok(v) = tok.parse::<i64>() {
        return Ok(match v {
            0..=64 => (128 + v as u8, None),
            -16..=-1 => (192 + (-v) as u8, None),
            _ => (LITERAL, Some(v as u32)),
        });
    }
    register(enc, tok).map(|c| (c, None))
}

/// ACO's name of a scalar register (`12:s[4]`, `s[2-3]`, `vcc`, `m0`, `null`, `exec`, `scc`)
/// as the operand field's code for `enc` ([`Encoding::m0`], [`Encoding::null`]).
fn register(enc: Encoding, r: &str) -> Result<u8, LineError> {
    let name = r.rsplit_once(':').map_or(r, |(_, n)| n).trim();
    Ok(match name {
        "vcc" | "vcc_lo" => 106,
        "vcc_hi" => 107,
        "m0" => enc.m0(),
        // GFX9 has no NULL operand (ACO never names one there): not a register of it.
        "null" => enc
            .null()
            .ok_or_else(|| LineError::NotAScalarRegister(r.to_string()))?,
        "exec" | "exec_lo" => 126,
        "exec_hi" => 127,
        "scc" => SCC,
        _ => name
            .strip_prefix("s[")
            .and_then(|x| x.split([']', '-']).next())
            .and_then(|x| x.parse::<u8>().ok())
            .ok_or_else(|| LineError::NotAScalarRegister(r.to_string()))?,
    })
}

/// The `s_waitcnt` immediate of the counters the listing names (the others not awaited).
fn waitcnt(enc: Encoding, waits: &[(&str, u8)]) -> Result<u16, LineError> {
    let mut w = Waitcnt::default();
    for &(name, n) in waits {
        match name {
            "vmcnt" => w.vm = Some(n),
            "expcnt" => w.exp = Some(n),
            "lgkmcnt" => w.lgkm = Some(n),
            other => {
                return Err(LineError::UnknownCounter {
                    counter: other.to_string(),
                    enc,
                })
            }
        }
    }
    let level = match enc {
        Encoding::Gfx9 => GfxLevel::Gfx9,
        Encoding::Gfx10 => GfxLevel::Gfx10,
        Encoding::Gfx11 => GfxLevel::Gfx11,
        Encoding::Gfx12 => GfxLevel::Gfx12,
    };
    Ok(crate::isa::encode::waitcnt_simm16(level, w)?)
}

/// The message ID of ACO's `sendmsg(name…)`.
fn sendmsg(rest: &str) -> Option<u16> {
    let name = rest.trim().strip_prefix("sendmsg(")?;
    let name = name.split([',', ')']).next()?.trim();
    Some(match name {
        "MSG_NONE" => 0,
        "hs_tessfactor" | "gs" => 2,
        "dealloc_vgprs" | "gs_done" => 3,
        "save_wave" => 4,
        "stall_wave_gen" => 5,
        "halt_waves" => 6,
        "ordered_ps_done" => 7,
        "early_prim_dealloc" => 8,
        "gs_alloc_req" => 9,
        "get_doorbell" => 10,
        "get_ddid" => 11,
        _ => return None,
    })
}

/// An export target's number: `mrt0`–`mrt7`, `mrtz` 8, `null` 9, `pos0`– 12+, `prim` 20,
/// `param0`– 32+.
fn export_target(t: &str) -> Option<u8> {
    let num = |p: &str| t.strip_prefix(p).and_then(|n| n.parse::<u8>().ok());
    match t {
        "mrtz" => Some(8),
        "null" => Some(9),
        "prim" => Some(20),
        _ => num("mrt")
            .filter(|&n| n < 8)
            .or_else(|| num("pos").map(|n| 12 + n))
            .or_else(|| num("param").map(|n| 32 + n)),
    }
}

fn vmem_format(m: &str) -> Option<VmemFormat> {
    Some(match m {
        _ if m.starts_with("buffer_") => VmemFormat::Mubuf,
        _ if m.starts_with("tbuffer_") => VmemFormat::Mtbuf,
        _ if m.starts_with("image_") => VmemFormat::Mimg,
        _ if ["global_", "flat_", "scratch_"]
            .iter()
            .any(|p| m.starts_with(p)) =>
        {
            VmemFormat::Flat
        }
        _ => return None,
    })
}

/// What an access does, by its name (as `tools/gen-isa-tables.py` classifies LLVM's names);
/// `None` for cache invalidations and the like.
fn vmem_kind(m: &str) -> Option<VmemKind> {
    if m.contains("atomic") {
        Some(VmemKind::Atomic)
    } else if m.contains("_store") {
        Some(VmemKind::Store)
    } else if [
        "_load",
        "image_sample",
        "image_gather",
        "image_get",
        "image_msaa",
        "image_bvh",
    ]
    .iter()
    .any(|x| m.contains(x))
    {
        Some(VmemKind::Load)
    } else {
        None
    }
}

fn is_smem(m: &str) -> bool {
    [
        "s_load_",
        "s_buffer_load_",
        "s_store_",
        "s_buffer_store_",
        "s_scratch_",
        "s_dcache_",
        "s_memtime",
        "s_memrealtime",
        "s_atc_probe",
        "s_atomic_",
        "s_buffer_atomic_",
        "s_gl1_inv",
        "s_get_waveid_in_workgroup",
    ]
    .iter()
    .any(|p| m.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "BB0\n/* logical preds: / linear preds: / kind: uniform, top-level, */\n";

    fn one(enc: Encoding, line: &str) -> Result<Instr, InputError> {
        let text = format!("{HEAD}\t{line}\n\ts_endpgm\n");
        read(enc, &text).map(|mut v| v.remove(0))
    }

    /// Scalar instructions are assembled as LLVM encodes them (the encodings here are llvm-mc's
    /// for the same instructions); GFX11 swapped the m0 and null operand codes.
    #[test]
    fn scalar_instructions_assemble_to_their_encodings() {
        let g10 = Encoding::Gfx10;
        let cases: [(&str, &[u32]); 6] = [
            // s_bfe_u32 s0, s4, 0x2001c
            (
                "s1: %43:s[0],  s1: %42:scc = s_bfe_u32 %31:s[4], 0x2001c",
                &[0x9380ff04, 0x0002001c],
            ),
            // s_bitcmp1_b32 s4, 31
            ("s1: %41:scc = s_bitcmp1_b32 %31:s[4], 31", &[0xbf0d9f04]),
            // s_add_i32 s0, src_pops_exiting_wave_id, s4
            (
                "s1: %53:s[0],  s1: %52:scc = s_add_i32 %0:s[239], %49:s[4]",
                &[0x810004ef],
            ),
            // s_setreg_b32 hwreg(HW_REG_POPS_PACKER, 0, 3), s0
            ("s_setreg_b32 %45:s[0] imm:4121", &[0xb9801019]),
            // s_waitcnt_vscnt null, 0x0
            ("s_waitcnt_vscnt %0:null imm:0", &[0xbbfd0000]),
            // s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)
            ("s_sendmsg sendmsg(ordered_ps_done)", &[0xbf900007]),
        ];
        for (line, words) in cases {
            assert_eq!(*one(g10, line).unwrap().words, *words, "{line}");
        }
        // GFX11: s_waitcnt_vscnt null, 0x0 (null is 124 there).
        assert_eq!(
            *one(Encoding::Gfx11, "s_waitcnt_vscnt %0:null imm:0")
                .unwrap()
                .words,
            [0xbc7c0000]
        );
        // s_waitcnt vmcnt(0) lgkmcnt(0) on GFX10.
        assert_eq!(
            *one(g10, "s_waitcnt vmcnt(0) lgkmcnt(0)").unwrap().words,
            [0xbf8c0070]
        );
    }

    /// ACO prints `wait_export_ready` where `s_wait_event` waits on the program's level (its
    /// `is_wait_export_ready`): on GFX11 the immediate with bit 0 clear (llvm-mc's `s_wait_event
    /// 0x0`), on GFX12 with bit 1 set (ACO's `wait_event_imm_wait_export_ready_gfx12`, 0x2; RADV
    /// 25.0.7 gives GFX12 code only as such a listing); without the word, the other.
    #[test]
    fn wait_export_ready_is_the_waiting_immediate_of_each_level() {
        let imm = |enc, line| one(enc, line).unwrap().words[0] & 0xffff;
        assert_eq!(imm(Encoding::Gfx11, "s_wait_event wait_export_ready"), 0);
        assert_eq!(imm(Encoding::Gfx11, "s_wait_event"), 1);
        assert_eq!(imm(Encoding::Gfx12, "s_wait_event wait_export_ready"), 2);
        assert_eq!(imm(Encoding::Gfx12, "s_wait_event"), 0);
        for enc in [Encoding::Gfx11, Encoding::Gfx12] {
            assert!(enc.waits_for_export_ready(imm(enc, "s_wait_event wait_export_ready") as u16));
            assert!(!enc.waits_for_export_ready(imm(enc, "s_wait_event") as u16));
        }
    }

    /// Branch offsets come from the blocks; other instructions take their class from the name.
    #[test]
    fn branches_reach_their_blocks_and_names_give_classes() {
        let text = format!(
            "{HEAD}\ts_cbranch_scc0 block:BB2\n\t v1: %1:v[0] = v_mov_b32 1\nBB2\n/* logical preds: BB0, / linear preds: BB0, / kind: */\n\timage_store %9:s[0-7], %1:v[0] glc\n\texp %5:v[2], %5:v[2],  v1: undef,  v1: undef compr done vm mrt0\n\ts_endpgm\n"
        );
        let code = read(Encoding::Gfx10, &text).unwrap();
        assert_eq!(code[0].class, Class::Sopp { op: 4, simm16: 1 });
        assert_eq!(code[1].class, Class::Valu);
        assert_eq!(
            code[2].class,
            Class::Vmem {
                format: VmemFormat::Mimg,
                kind: Some(VmemKind::Store),
                glc: true
            }
        );
        assert_eq!(
            code[3].class,
            Class::Export {
                target: 0,
                done: true
            }
        );
    }

    /// What cannot be assembled is a typed error naming the line and what was wrong.
    #[test]
    fn what_cannot_be_read_is_named() {
        let err = |line: &str| one(Encoding::Gfx10, line).unwrap_err().to_string();
        assert!(err("s_frobnicate_b32 %1:s[0]").contains("`s_frobnicate_b32`"));
        assert!(err("s_cbranch_scc0 block:BB9").contains("BB9"));
        assert!(err("s1: %1:s[0] = s_mov_b32 %2:v[3]").contains("not a scalar register"));
        assert!(err("s_sendmsg sendmsg(frobnicate)").contains("message"));
        assert!(err("s_waitcnt samplecnt(0)").contains("samplecnt"));
        assert!(err("p_parallelcopy").contains("line 3"));
        assert!(!is_listing("BB0\n\ts_endpgm\n"));
    }
}
