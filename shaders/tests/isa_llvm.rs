//! LLVM as the oracle of the encoder: every opcode row and every emitted ordered-section sequence
//! is disassembled by `llvm-mc` (Debian llvm-19) for the level's processor and must read back as
//! the instructions we meant.

mod common;

use pm4::{Family, GfxLevel};
use shaders::isa::llvm::{disassemble, normalize, WaveSize};
use shaders::isa::{
    assemble, ordered_section, Encoding, Hwreg, HwregId, Inst, Label, Msg, Operand, SectionOptions,
    Sop1, Sop2, Sopc, Sopk, Sopp, Waitcnt,
};

fn check(mc: &std::path::Path, fam: Family, what: &str, insts: &[Inst]) {
    let level = fam.gfx_level();
    let listing = assemble(level, insts).unwrap_or_else(|e| panic!("{what} on {fam}: {e}"));
    let ours: Vec<String> = listing
        .instruction_texts()
        .iter()
        .map(|t| normalize(t))
        .collect();
    let theirs = disassemble(
        mc,
        fam.llvm_processor(),
        WaveSize::ProcessorDefault,
        &listing.words(),
    )
    .unwrap_or_else(|e| panic!("llvm-mc rejected {what} on {fam}:\n{e}\n{listing}"));
    let theirs: Vec<String> = theirs.iter().map(|t| normalize(t)).collect();
    assert_eq!(
        ours,
        theirs,
        "{what} on {fam} ({}) does not read back as intended:\n{listing}",
        fam.llvm_processor()
    );
}

/// Every section the emitter can produce: all levels × intrawave on/off × wave32/64 where valid.
fn all_sections(level: GfxLevel) -> Vec<(String, SectionOptions)> {
    let mut v = Vec::new();
    for intrawave in [false, true] {
        for wave64 in [true, false] {
            let opts = SectionOptions {
                intrawave,
                wave64,
                ..SectionOptions::default()
            };
            if ordered_section(level, &opts).is_ok() {
                v.push((format!("intrawave={intrawave} wave64={wave64}"), opts));
            }
        }
    }
    v
}

/// "The setup of the ordered section consists of three parts" — every sequence, per level, reads
/// back through LLVM's disassembler exactly as our listing prints it.
#[test]
fn every_ordered_section_disassembles_as_intended() {
    let Some(mc) = common::llvm_mc() else { return };
    let mut checked = 0;
    for &fam in common::ISA_CHIPS {
        let level = fam.gfx_level();
        for (what, opts) in all_sections(level) {
            let section = ordered_section(level, &opts).unwrap();
            let body = [Inst::Marker(shaders::isa::Marker::OrderedBody)];
            check(&mc, fam, &what, &section.program(&body));
            // The split dword arrays the CLI prints are the same bytes.
            let enc = section.encode().unwrap();
            let mut joined = enc.enter.clone();
            joined.extend(&enc.exit);
            assert_eq!(joined, enc.listing.words());
            checked += 1;
        }
    }
    // gfx9 ×2 (wave64, intrawave on/off), gfx10/10.3 ×4 each, gfx11/11.5 and both GFX12 chips
    // ×2 (wave32/64).
    assert_eq!(checked, 2 * 2 + 4 * 2 + 2 * 2 + 2 * 2);
}

fn sample(enc: Encoding, inst: InstKind) -> Vec<Inst> {
    let _ = enc;
    match inst {
        InstKind::Sop1(op) => {
            let w = op.widths();
            let r = |n: u8, d: u8| Operand::Sgpr(if d == 2 { n & !1 } else { n });
            vec![Inst::sop1(op, r(4, w.dst), r(7, w.src0))]
        }
        InstKind::Sop2(op) => {
            let w = op.widths();
            let r = |n: u8, d: u8| Operand::Sgpr(if d == 2 { n & !1 } else { n });
            vec![
                Inst::sop2(op, r(4, w.dst), r(7, w.src0), r(9, w.src1)),
                Inst::sop2(op, r(4, w.dst), Operand::imm(-3), Operand::Literal(0x12345)),
            ]
        }
        InstKind::Sopc(op) => {
            let w = op.widths();
            let r = |n: u8, d: u8| Operand::Sgpr(if d == 2 { n & !1 } else { n });
            vec![Inst::sopc(op, r(7, w.src0), r(9, w.src1))]
        }
        InstKind::Sopk(op) => match op {
            Sopk::SetregB32 | Sopk::GetregB32 => vec![Inst::Sopk {
                op,
                reg: Operand::Sgpr(5),
                imm: shaders::isa::SopkImm::Hwreg(Hwreg {
                    id: HwregId::Mode,
                    offset: 24,
                    size: 2,
                }),
            }],
            Sopk::WaitcntVscnt => vec![Inst::waitcnt_vscnt(3)],
            Sopk::MovkI32 => vec![Inst::Sopk {
                op,
                reg: Operand::Sgpr(5),
                imm: shaders::isa::SopkImm::Simm16(0x1234),
            }],
        },
        InstKind::Sopp(op) => match op {
            _ if op.is_branch() => vec![
                Inst::Label(Label("l")),
                Inst::sopp(Sopp::Nop, 1),
                Inst::branch(op, Label("l")),
            ],
            Sopp::Waitcnt => vec![
                Inst::waitcnt(Waitcnt::VM_LGKM_ZERO),
                Inst::waitcnt(Waitcnt {
                    vm: Some(5),
                    exp: Some(2),
                    lgkm: Some(9),
                }),
            ],
            Sopp::Sendmsg => vec![Inst::sendmsg(Msg::OrderedPsDone)],
            Sopp::Sleep => vec![Inst::sleep(3), Inst::sleep(0xffff)],
            Sopp::Endpgm => vec![Inst::endpgm()],
            // The forms the draw emits: every depctr field but one at its "no wait" value, which
            // LLVM prints in hex (all fields 0 it prints by name).
            Sopp::WaitAlu => vec![Inst::sopp(op, 0xfffe), Inst::sopp(op, 0xfffd)],
            _ => vec![Inst::sopp(op, 0)],
        },
    }
}

#[derive(Clone, Copy, Debug)]
enum InstKind {
    Sop1(Sop1),
    Sop2(Sop2),
    Sopc(Sopc),
    Sopk(Sopk),
    Sopp(Sopp),
}

/// Every row of the opcode tables, on every generation where it exists, is what LLVM decodes.
#[test]
fn every_opcode_row_matches_llvm() {
    let Some(mc) = common::llvm_mc() else { return };
    let mut kinds = Vec::new();
    kinds.extend(Sop1::ALL.iter().map(|&o| InstKind::Sop1(o)));
    kinds.extend(Sop2::ALL.iter().map(|&o| InstKind::Sop2(o)));
    kinds.extend(Sopc::ALL.iter().map(|&o| InstKind::Sopc(o)));
    kinds.extend(Sopk::ALL.iter().map(|&o| InstKind::Sopk(o)));
    kinds.extend(Sopp::ALL.iter().map(|&o| InstKind::Sopp(o)));
    for fam in [
        Family::Vega10,
        Family::Navi10,
        Family::Navi31,
        Family::Gfx1201,
    ] {
        let level = fam.gfx_level();
        let enc = Encoding::of(level);
        let mut batch = Vec::new();
        for &k in &kinds {
            let exists = match k {
                InstKind::Sop1(o) => o.opcode(enc).is_some(),
                InstKind::Sop2(o) => o.opcode(enc).is_some(),
                InstKind::Sopc(o) => o.opcode(enc).is_some(),
                InstKind::Sopk(o) => o.opcode(enc).is_some(),
                InstKind::Sopp(o) => {
                    o.opcode(enc).is_some() && !(o == Sopp::Sendmsg && level.is_gfx11_plus())
                }
            };
            if !exists {
                continue;
            }
            batch.extend(sample(enc, k));
        }
        // Labels must stay unique across the batch: check branch samples one by one.
        let (branches, rest): (Vec<Inst>, Vec<Inst>) = batch.into_iter().partition(|i| {
            matches!(i, Inst::Label(_))
                || matches!(i, Inst::Sopp { op, .. } if op.is_branch())
                || matches!(
                    i,
                    Inst::Sopp {
                        op: Sopp::Nop,
                        imm: shaders::isa::SoppImm::Simm16(1)
                    }
                )
        });
        check(&mc, fam, "opcode table", &rest);
        for chunk in branches.chunks(3) {
            check(&mc, fam, "branch", chunk);
        }
    }
}
