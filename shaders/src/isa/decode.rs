//! Decoding machine code a driver compiled: each instruction's length and what the ordered
//! section's rules need of it, read from its encoding (never from a mnemonic). Scalar
//! instructions keep their opcode and fields; vector memory instructions say whether they load,
//! store or are atomics (`vmem_generated`, from LLVM's disassembler); other vector instructions
//! are only measured.

use super::encoding::Encoding;

pub use super::vmem::{VmemFormat, VmemKind};

/// What an instruction is, as far as the ordered section's rules care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Sopp {
        op: u8,
        simm16: u16,
    },
    Sopk {
        op: u8,
        sdst: u8,
        simm16: u16,
    },
    Sopc {
        op: u8,
        src0: u8,
        src1: u8,
    },
    Sop1 {
        op: u8,
        sdst: u8,
        src0: u8,
    },
    Sop2 {
        op: u8,
        sdst: u8,
        src0: u8,
        src1: u8,
    },
    /// Scalar memory (lgkmcnt).
    Smem,
    /// LDS/GDS (lgkmcnt).
    Ds,
    /// A vector memory access; `kind` is `None` for an opcode LLVM does not know.
    Vmem {
        format: VmemFormat,
        kind: Option<VmemKind>,
        glc: bool,
    },
    /// An export: its target (`mrt0` = 0 … `null` = 9, `mrtz` = 8, positions 12+), done bit,
    /// and `vm` (valid mask) bit.
    Export {
        target: u8,
        done: bool,
    },
    /// Any other vector ALU or interpolation instruction.
    Valu,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Its length in dwords.
    pub words: usize,
    pub class: Class,
}

/// Why words are not an instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the code ends inside an instruction (needs {need} dwords, {have} left)")]
    Truncated { need: usize, have: usize },
    #[error("0x{word:08x} is no instruction format of {encoding:?}")]
    UnknownFormat { word: u32, encoding: Encoding },
}

const LITERAL: u8 = 255;

/// The scalar and vector formats, from the top bits of the first dword.
pub fn decode(enc: Encoding, words: &[u32]) -> Result<Decoded, DecodeError> {
    let w = *words
        .first()
        .ok_or(DecodeError::Truncated { need: 1, have: 0 })?;
    let d = decode_first(enc, w, words.get(1).copied())?;
    if d.words > words.len() {
        return Err(DecodeError::Truncated {
            need: d.words,
            have: words.len(),
        });
    }
    Ok(d)
}

/// The entries of `scalar_generated::SCALAR_OPS` for one generation, format and opcode: the
/// generation's own name first, then the other names LLVM's assembler accepts. The generated
/// table is ordered by generation, format and opcode (a test holds it), so this is a binary
/// search: every scalar instruction of every verified shader is named through it.
fn scalar_names(
    enc: Encoding,
    format: super::scalar_generated::ScalarFormat,
    op: u8,
) -> &'static [(
    Encoding,
    super::scalar_generated::ScalarFormat,
    &'static str,
    u8,
)] {
    use super::scalar_generated::SCALAR_OPS;
    let key = (enc as u8, format as u8, op);
    let of = |&(e, f, _, o): &(Encoding, _, &str, u8)| (e as u8, f as u8, o);
    let from = SCALAR_OPS.partition_point(|x| of(x) < key);
    let to = from + SCALAR_OPS[from..].partition_point(|x| of(x) == key);
    &SCALAR_OPS[from..to]
}

/// What a decoded instruction is, for messages about code given without its disassembly (raw
/// words, a driver's binary): the scalar mnemonic from LLVM's table, the kind of a vector
/// memory access, the export's target, else its class.
pub fn describe(enc: Encoding, class: Class) -> String {
    let mut s = String::new();
    describe_into(enc, class, &mut s);
    s
}

/// [`describe`], appended to `out`: every instruction of a driver's binary is named so when it
/// is read, one string each.
pub fn describe_into(enc: Encoding, class: Class, out: &mut String) {
    use super::scalar_generated::ScalarFormat;
    use std::fmt::Write;
    let mut scalar = |format: ScalarFormat, op: u8| match scalar_names(enc, format, op).first() {
        Some((_, _, m, _)) => out.push_str(m),
        None => {
            let _ = write!(out, "{format:?} opcode {op}");
        }
    };
    match class {
        Class::Sopp { op, .. } => scalar(ScalarFormat::Sopp, op),
        Class::Sopk { op, .. } => scalar(ScalarFormat::Sopk, op),
        Class::Sopc { op, .. } => scalar(ScalarFormat::Sopc, op),
        Class::Sop1 { op, .. } => scalar(ScalarFormat::Sop1, op),
        Class::Sop2 { op, .. } => scalar(ScalarFormat::Sop2, op),
        Class::Smem => out.push_str("scalar memory access"),
        Class::Ds => out.push_str("LDS/GDS access"),
        Class::Vmem { format, kind, .. } => {
            out.push_str(match format {
                VmemFormat::Mubuf => "buffer",
                VmemFormat::Mtbuf => "typed buffer",
                VmemFormat::Mimg => "image",
                VmemFormat::Flat => "global/flat",
                VmemFormat::Vsample => "image sample",
            });
            out.push(' ');
            out.push_str(match kind {
                Some(VmemKind::Load) => "load",
                Some(VmemKind::Store) => "store",
                Some(VmemKind::Atomic) => "atomic",
                None => "access",
            });
        }
        Class::Export { target, done } => {
            out.push_str("exp ");
            match target {
                0..=7 => {
                    let _ = write!(out, "mrt{target}");
                }
                8 => out.push_str("mrtz"),
                9 => out.push_str("null"),
                t => {
                    let _ = write!(out, "target {t}");
                }
            }
            if done {
                out.push_str(" done");
            }
        }
        Class::Valu => out.push_str("vector ALU"),
    }
}

fn decode_first(enc: Encoding, w: u32, w1: Option<u32>) -> Result<Decoded, DecodeError> {
    if let Some(d) = decode_scalar(enc, w) {
        return Ok(d);
    }
    if w >> 31 == 0 {
        return Ok(decode_vop_short(enc, w));
    }
    decode_wide(enc, w, w1)
}

/// Whether SOP2 opcode `op` of `enc` is one with a constant operand K in its literal dword
/// (`s_fmaak_f32`, `s_fmamk_f32`), by LLVM's names of the generation's opcodes.
fn takes_constant(enc: Encoding, op: u8) -> bool {
    use super::scalar_generated::ScalarFormat;
    scalar_names(enc, ScalarFormat::Sop2, op)
        .iter()
        .any(|&(_, _, m, _)| matches!(m, "s_fmaak_f32" | "s_fmamk_f32"))
}

/// A scalar ALU or program-control instruction (SOPP, SOPC, SOP1, SOPK, SOP2), or `None`.
fn decode_scalar(enc: Encoding, w: u32) -> Option<Decoded> {
    let field = |lo: u32, width: u32| ((w >> lo) & ((1 << width) - 1)) as u8;
    let top9 = w >> 23;
    let scalar = |class: Class, srcs: &[u8]| Decoded {
        words: 1 + usize::from(srcs.contains(&LITERAL)),
        class,
    };
    if top9 == 0x17f {
        return Some(Decoded {
            words: 1,
            class: Class::Sopp {
                op: field(16, 7),
                simm16: w as u16,
            },
        });
    }
    if top9 == 0x17e {
        let (src0, src1) = (field(0, 8), field(8, 8));
        return Some(scalar(
            Class::Sopc {
                op: field(16, 7),
                src0,
                src1,
            },
            &[src0, src1],
        ));
    }
    if top9 == 0x17d {
        let src0 = field(0, 8);
        return Some(scalar(
            Class::Sop1 {
                op: field(8, 8),
                sdst: field(16, 7),
                src0,
            },
            &[src0],
        ));
    }
    if w >> 28 == 0xb {
        let op = field(23, 5);
        // s_setreg_imm32_b32 carries a 32-bit literal.
        let imm32 = match enc {
            Encoding::Gfx9 => op == 20,
            Encoding::Gfx10 => op == 21,
            Encoding::Gfx11 | Encoding::Gfx12 => op == 19,
        };
        return Some(Decoded {
            words: 1 + usize::from(imm32),
            class: Class::Sopk {
                op,
                sdst: field(16, 7),
                simm16: w as u16,
            },
        });
    }
    if w >> 30 == 0b10 {
        let (op, src0, src1) = (field(23, 7), field(0, 8), field(8, 8));
        let mut d = scalar(
            Class::Sop2 {
                op,
                sdst: field(16, 7),
                src0,
                src1,
            },
            &[src0, src1],
        );
        // GFX11.5's and GFX12's s_fmaak_f32 and s_fmamk_f32 carry their constant K as the
        // literal dword whatever their sources (one literal per instruction).
        d.words = d.words.max(1 + usize::from(takes_constant(enc, op)));
        return Some(d);
    }
    None
}

/// VOP1 / VOP2 / VOPC: one dword, and one more for a literal, SDWA, DPP or DPP8 source, or the
/// constant K of v_madmk/madak/fmamk/fmaak.
fn decode_vop_short(enc: Encoding, w: u32) -> Decoded {
    let src0 = (w & 0x1ff) as u16;
    let vop2_op = ((w >> 25) & 0x3f) as u8;
    let is_vop2 = (w >> 25) & 0x7f != 0x3f && (w >> 25) & 0x7f != 0x3e;
    let k_const = is_vop2 && super::vmem_generated::VOP2_WITH_K[enc.index()].contains(&vop2_op);
    let extra = match src0 {
        _ if k_const => 1,
        0xff | 0xf9 | 0xfa => 1,
        0xe9 | 0xea if enc != Encoding::Gfx9 => 1,
        _ => 0,
    };
    Decoded {
        words: 1 + extra,
        class: Class::Valu,
    }
}

/// A vector memory instruction of `format`: its kind and GLC bit from the generated tables,
/// its length (GFX12's formats are three dwords).
fn vmem_decoded(enc: Encoding, format: VmemFormat, w: u32, w1: Option<u32>) -> Decoded {
    let table = super::vmem_generated::TABLES
        .iter()
        .find(|t| t.encoding == enc && t.format == format);
    let (kind, glc) = match table {
        Some(t) => {
            let dw = [w, w1.unwrap_or(0)];
            let mut op = 0u8;
            for &(dword, bit, width, opbit) in t.pieces {
                let part = (dw[usize::from(dword)] >> bit) & ((1 << width) - 1);
                op |= (part as u8) << opbit;
            }
            let kind = t
                .ops
                .binary_search_by_key(&op, |&(o, _)| o)
                .ok()
                .map(|i| t.ops[i].1);
            let (dword, bit) = t.glc;
            (kind, (dw[usize::from(dword)] >> bit) & 1 == 1)
        }
        None => (None, false),
    };
    Decoded {
        // GFX12's memory formats are three dwords.
        words: if enc == Encoding::Gfx12 { 3 } else { 2 },
        class: Class::Vmem { format, kind, glc },
    }
}

/// The wider formats: VOP3/VOP3P, VOPD, LDS, scalar memory, exports and the vector memory
/// formats, by the top six bits.
fn decode_wide(enc: Encoding, w: u32, w1: Option<u32>) -> Result<Decoded, DecodeError> {
    let top6 = w >> 26;
    let vop3_literal = |w1: Option<u32>| -> usize {
        // GFX10+: a literal follows where any source is 255.
        let Some(w1) = w1 else { return 0 };
        let srcs = [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff];
        usize::from(srcs.contains(&0xff))
    };
    let vmem = |format: VmemFormat| vmem_decoded(enc, format, w, w1);
    let export = |w: u32| Decoded {
        words: 2,
        class: Class::Export {
            target: ((w >> 4) & 0x3f) as u8,
            done: (w >> 11) & 1 == 1,
        },
    };
    let d = match (enc, top6) {
        // GFX12: VBUFFER, VIMAGE, VSAMPLE, VGLOBAL/VFLAT/VSCRATCH (the latter also 0b111011).
        (Encoding::Gfx12, 0b110001) => vmem(VmemFormat::Mubuf),
        (Encoding::Gfx12, 0b110100) => vmem(VmemFormat::Mimg),
        (Encoding::Gfx12, 0b111001) => vmem(VmemFormat::Vsample),
        (Encoding::Gfx12, 0b111011) => vmem(VmemFormat::Flat),
        (Encoding::Gfx9, 0b110000) => Decoded {
            words: 2,
            class: Class::Smem,
        },
        (Encoding::Gfx9, 0b110001) => export(w),
        (Encoding::Gfx9, 0b110100) => Decoded {
            words: 2,
            class: Class::Valu,
        },
        (Encoding::Gfx9, 0b110101) => Decoded {
            words: 1,
            class: Class::Valu,
        },
        (_, 0b111101) if enc != Encoding::Gfx9 => Decoded {
            words: 2,
            class: Class::Smem,
        },
        (_, 0b111110) if enc != Encoding::Gfx9 => export(w),
        (_, 0b110101) | (_, 0b110011) => Decoded {
            // VOP3 / VOP3P (GFX11: also VINTERP 0xCD, LDSDIR 0xCE share 0b1100_11).
            words: match (enc, w >> 24) {
                (Encoding::Gfx11 | Encoding::Gfx12, 0xce) => 1,
                (Encoding::Gfx11 | Encoding::Gfx12, 0xcd) => 2,
                _ => {
                    2 + vop3_literal(w1)
                        + usize::from(
                            enc.is_gfx11_plus()
                                && matches!(w1.map(|x| x & 0x1ff), Some(0xfa | 0xe9 | 0xea)),
                        )
                }
            },
            class: Class::Valu,
        },
        (Encoding::Gfx10, 0b110010) => Decoded {
            words: 1,
            class: Class::Valu,
        },
        (Encoding::Gfx11 | Encoding::Gfx12, 0b110010) => {
            // VOPD: two dwords, and a literal where either X or Y source 0 is 255.
            let srcx0 = w & 0x1ff;
            let srcy0 = w1.map_or(0, |x| x & 0x1ff);
            Decoded {
                words: 2 + usize::from(srcx0 == 0xff || srcy0 == 0xff),
                class: Class::Valu,
            }
        }
        (_, 0b110110) => Decoded {
            words: 2,
            class: Class::Ds,
        },
        (Encoding::Gfx12, _) => {
            return Err(DecodeError::UnknownFormat {
                word: w,
                encoding: enc,
            })
        }
        (_, 0b110111) => vmem(VmemFormat::Flat),
        (_, 0b111000) => vmem(VmemFormat::Mubuf),
        (_, 0b111010) => vmem(VmemFormat::Mtbuf),
        (_, 0b111100) => {
            let nsa = match enc {
                Encoding::Gfx9 => 0,
                Encoding::Gfx10 => ((w >> 1) & 3) as usize,
                // GFX11's NSA form (bit 0) is always one more dword: the addresses after the
                // first, up to four, one byte each (the last may start a register range);
                // LLVM's MIMG_nsa_gfx11 is 96 bits whatever the address count.
                Encoding::Gfx11 | Encoding::Gfx12 => (w & 1) as usize,
            };
            let mut d = vmem(VmemFormat::Mimg);
            d.words += nsa;
            d
        }
        _ => {
            return Err(DecodeError::UnknownFormat {
                word: w,
                encoding: enc,
            })
        }
    };
    Ok(d)
}

/// Whether the instruction `words` (decoded as `class`) may write the scalar register `n`: from
/// the encoding's destination fields (a 64-bit destination's second register, up to sixteen
/// registers of a scalar load), and for vector instructions the opcodes LLVM's disassembler
/// shows writing an SGPR (`vmem_generated`: v_readfirstlane, v_readlane, a compare's mask, a
/// carry-out; an SDWA compare's mask; VCC). Whoever follows a value through an SGPR forgets it
/// at every such instruction.
pub fn may_write_sgpr(enc: Encoding, class: Class, words: &[u32], n: u8) -> bool {
    use super::vmem_generated::{VOP1_SGPR_VDST, VOP3B_SDST, VOP3_SGPR_VDST};
    let pair = |d: u32| d == u32::from(n) || d + 1 == u32::from(n);
    let w = words.first().copied().unwrap_or(0);
    let g = enc.index();
    match class {
        Class::Sop1 { sdst, .. } | Class::Sop2 { sdst, .. } | Class::Sopk { sdst, .. } => {
            pair(u32::from(sdst))
        }
        Class::Sopc { .. } | Class::Sopp { .. } => false,
        Class::Smem => {
            let sdata = ((w >> 6) & 0x7f) as u8;
            n >= sdata && n - sdata < 16
        }
        Class::Ds | Class::Vmem { .. } | Class::Export { .. } => false,
        Class::Valu => {
            const VCC_LO: u32 = 106;
            if pair(VCC_LO) {
                return true;
            }
            if w >> 31 == 0 {
                let vop1 = (w >> 25) & 0x7f == 0x3f
                    && VOP1_SGPR_VDST[g].contains(&(((w >> 9) & 0xff) as u8))
                    && pair((w >> 17) & 0xff);
                // SDWA compare (VOPC with src0 = 0xf9): its mask destination in dword 1.
                let sdwa = (w >> 25) & 0x7f == 0x3e
                    && w & 0x1ff == 0xf9
                    && words.get(1).is_some_and(|w1| pair((w1 >> 8) & 0x7f));
                return vop1 || sdwa;
            }
            let vop3 = match enc {
                Encoding::Gfx9 => w >> 26 == 0b110100,
                Encoding::Gfx10 | Encoding::Gfx11 | Encoding::Gfx12 => w >> 26 == 0b110101,
            };
            if !vop3 {
                return false;
            }
            let op = ((w >> 16) & 0x3ff) as u16;
            (VOP3_SGPR_VDST[g].contains(&op) && pair(w & 0xff))
                || (VOP3B_SDST[g].contains(&op) && pair((w >> 8) & 0x7f))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary search over the generated scalar table finds what a scan finds, in the
    /// table's order, for every generation, format and opcode: the table is ordered as the
    /// search needs.
    #[test]
    fn scalar_names_are_the_tables_entries() {
        use super::super::scalar_generated::{ScalarFormat, SCALAR_OPS};
        let of = |&(e, f, _, o): &(Encoding, ScalarFormat, &str, u8)| (e as u8, f as u8, o);
        assert!(SCALAR_OPS.is_sorted_by_key(of));
        let formats = [
            ScalarFormat::Sop1,
            ScalarFormat::Sop2,
            ScalarFormat::Sopc,
            ScalarFormat::Sopk,
            ScalarFormat::Sopp,
        ];
        for enc in [
            Encoding::Gfx9,
            Encoding::Gfx10,
            Encoding::Gfx11,
            Encoding::Gfx12,
        ] {
            for format in formats {
                for op in 0..=255u8 {
                    let scanned: Vec<_> = SCALAR_OPS
                        .iter()
                        .filter(|&&(e, f, _, o)| e == enc && f == format && o == op)
                        .collect();
                    let found: Vec<_> = scalar_names(enc, format, op).iter().collect();
                    assert_eq!(found, scanned, "{enc:?} {format:?} {op}");
                }
            }
        }
    }

    /// The destinations ACO's code writes SGPRs through, read from real encodings (llvm-mc-19:
    /// `s_load_dwordx4 s[8:11], s[2:3], 0x0`, `v_readfirstlane_b32 s5, v1`,
    /// `v_cmp_gt_f32_e64 s[20:21], 0, v8`, `s_mov_b32 s0, src_scc`, `s_cmp_lg_i32 s0, 0`,
    /// `ds_write_b32 v4, v6`) on GFX10.
    #[test]
    fn the_sgprs_an_instruction_may_write() {
        let g10 = Encoding::Gfx10;
        let may = |words: &[u32], n: u8| {
            let class = decode(g10, words).unwrap().class;
            may_write_sgpr(g10, class, words, n)
        };
        let load = [0xf4080201, 0xfa000000];
        assert!((8..=11).all(|n| may(&load, n)));
        assert!(!may(&load, 0) && !may(&load, 7));
        let readfirstlane = [0x7e0a0501];
        assert!(may(&readfirstlane, 5) && !may(&readfirstlane, 0));
        let cmp_e64 = [0xd4040014, 0x00021080];
        assert!(may(&cmp_e64, 20) && may(&cmp_e64, 21) && !may(&cmp_e64, 0));
        let mov_scc = [0xbe8003fd];
        assert!(may(&mov_scc, 0) && !may(&mov_scc, 2));
        assert!(!may(&[0xbf018000], 0), "s_cmp writes SCC only");
        assert!(!may(&[0xd8340000, 0x00000604], 0), "LDS writes no SGPR");
        // Vector results in v0 and v5 are VGPRs, not s0 or s5.
        assert!(!may(&[0x7e000201], 0), "v_mov_b32_e32 v0, s1");
        assert!(
            !may(&[0xd5850005, 0x08000105], 5),
            "v_cvt_f32_i32_e64 v5, v5 mul:2"
        );
        // v_add_co_u32 v5, s[8:9], v1, v2 (llvm-mc-19, gfx1030 wave64): the carry-out pair.
        let add_co = [0xd70f0805, 0x00020501];
        assert!(may(&add_co, 8) && may(&add_co, 9) && !may(&add_co, 5));
    }

    /// Instructions of ACO's real output (stock RADV, navi21 and vega10) decode to their
    /// lengths and classes.
    #[test]
    fn aco_instructions_decode() {
        let g10 = Encoding::Gfx10;
        assert_eq!(
            decode(g10, &[0xf0003188, 0x40000002]).unwrap().class,
            Class::Vmem {
                format: VmemFormat::Mimg,
                kind: Some(VmemKind::Load),
                glc: true
            }
        );
        assert!(matches!(
            decode(g10, &[0xf0203108, 0x40000102]).unwrap().class,
            Class::Vmem {
                kind: Some(VmemKind::Store),
                ..
            }
        ));
        assert_eq!(
            decode(g10, &[0xf8001c0f, 0x80800202]).unwrap().class,
            Class::Export {
                target: 0,
                done: true
            }
        );
        assert_eq!(
            decode(g10, &[0xf8001890, 0x80808080]).unwrap().class,
            Class::Export {
                target: 9,
                done: true
            }
        );
        assert_eq!(decode(g10, &[0x7e0402ff, 0x3c003c00]).unwrap().words, 2);
        assert_eq!(decode(g10, &[0x9380ff04, 0x0002001c]).unwrap().words, 2);
        assert_eq!(
            decode(g10, &[0xbf900007]).unwrap().class,
            Class::Sopp { op: 16, simm16: 7 }
        );
        let g9 = Encoding::Gfx9;
        assert_eq!(decode(g9, &[0xc00e0001, 0]).unwrap().class, Class::Smem);
        assert_eq!(
            decode(g9, &[0xc4001c0f, 0x80800202]).unwrap().class,
            Class::Export {
                target: 0,
                done: true
            }
        );
        assert!(matches!(
            decode(Encoding::Gfx11, &[0xf0190184, 0x00000102])
                .unwrap()
                .class,
            Class::Vmem {
                kind: Some(VmemKind::Store),
                ..
            }
        ));
        assert!(matches!(
            decode(g10, &[0x7e0402ff]),
            Err(DecodeError::Truncated { need: 2, have: 1 })
        ));
    }
}
