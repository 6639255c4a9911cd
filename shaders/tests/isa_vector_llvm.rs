//! LLVM as the oracle of the vector, memory and export forms: every opcode row and every form
//! the assembler emits is disassembled by `llvm-mc` (Debian llvm-19) for each target processor
//! (wave64) and must read back as the text we print.

mod common;

use pm4::GfxLevel;
use shaders::isa::export::{ExpTarget, ExportInst};
use shaders::isa::llvm::{disassemble, normalize, WaveSize};
use shaders::isa::memory::{CachePolicy, GlobalInst, GlobalOp};
use shaders::isa::program::{assemble_program, Asm};
use shaders::isa::vector::{InlineFloat, VInst, VOperand, Vop1, Vop2, Vop3, Vopc};
use shaders::isa::{Encoding, Inst, Label, Operand, Sop2, Sopp};

/// Every form of every table, valid on `level`.
fn all_forms(level: GfxLevel) -> Vec<Asm> {
    let enc = Encoding::of(level);
    let mut p: Vec<Asm> = Vec::new();
    for op in Vop1::ALL {
        if op.opcode(enc).is_none() {
            continue;
        }
        p.push(match op {
            Vop1::ReadfirstlaneB32 => VInst::readfirstlane(6, 3).into(),
            _ => VInst::vop1(*op, 4, VOperand::Vgpr(2)).into(),
        });
    }
    p.push(VInst::mov(1, VOperand::Sgpr(9)).into());
    p.push(VInst::mov(2, VOperand::Float(InlineFloat::One)).into());
    p.push(VInst::mov(2, VOperand::Float(InlineFloat::MinusOne)).into());
    p.push(VInst::mov(3, VOperand::Const(-1)).into());
    p.push(VInst::mov(3, VOperand::Literal(0x1234_5678)).into());
    for op in Vop2::ALL {
        p.push(VInst::vop2(*op, 5, VOperand::Vgpr(6), 7).into());
        p.push(VInst::vop2(*op, 5, VOperand::Const(40), 7).into());
        p.push(VInst::vop2(*op, 5, VOperand::Sgpr(2), 7).into());
    }
    for op in Vopc::ALL {
        p.push(VInst::vopc(*op, VOperand::Const(1), 0).into());
        p.push(VInst::vopc(*op, VOperand::Sgpr(1), 3).into());
    }
    for op in Vop3::ALL {
        p.push(
            VInst::vop3(
                *op,
                2,
                VOperand::Vgpr(3),
                VOperand::Const(32),
                VOperand::Vgpr(2),
            )
            .into(),
        );
        p.push(
            VInst::vop3(
                *op,
                1,
                VOperand::Const(-1),
                VOperand::Sgpr(4),
                VOperand::Const(4),
            )
            .into(),
        );
    }
    for op in GlobalOp::ALL {
        for cache in [CachePolicy::default(), CachePolicy::coherent(level)] {
            for offset in [0i16, 4, -8] {
                let i = if op.is_store() {
                    GlobalInst::store(6, 7, 0, offset, cache)
                } else {
                    GlobalInst::load(5, 2, 0, offset, cache)
                };
                p.push(i.into());
            }
        }
        let glc_only = CachePolicy {
            glc: true,
            dlc: false,
        };
        p.push(GlobalInst::load(9, 8, 4, 0, glc_only).into());
    }
    let mut targets = vec![ExpTarget::Mrt(0), ExpTarget::Mrt(7), ExpTarget::Pos(0)];
    if !level.is_gfx11_plus() {
        targets.push(ExpTarget::Null);
        targets.push(ExpTarget::Param(0));
        targets.push(ExpTarget::Param(1));
    }
    if level != GfxLevel::Gfx9 {
        targets.push(ExpTarget::Prim);
    }
    for t in targets {
        for (src, done) in [
            ([Some(1), Some(2), Some(3), Some(4)], false),
            ([Some(7), None, None, None], true),
            ([None, None, None, None], true),
        ] {
            p.push(
                ExportInst {
                    target: t,
                    src,
                    done,
                    vm: false,
                }
                .into(),
            );
        }
    }
    if !level.is_gfx11_plus() {
        p.push(
            ExportInst::ps_last(
                level,
                ExpTarget::Mrt(0),
                [Some(7), Some(5), Some(2), Some(7)],
            )
            .into(),
        );
    } else {
        p.push(ExportInst::ps_last(level, ExpTarget::Mrt(0), [Some(7), None, None, None]).into());
    }
    // Scalar forms the draw programs add around them, and a branch across vector code.
    let l = Label("end");
    p.insert(0, Inst::branch(Sopp::CbranchExecz, l).into());
    p.push(Inst::sop2(Sop2::AndB64, Operand::Exec, Operand::Exec, Operand::Vcc).into());
    p.push(Inst::Label(l).into());
    p.push(Inst::endpgm().into());
    p
}

#[test]
fn every_vector_memory_and_export_form_disassembles_as_intended() {
    let Some(mc) = common::llvm_mc() else { return };
    for &fam in common::ISA_CHIPS {
        let level = fam.gfx_level();
        let prog = all_forms(level);
        let listing = assemble_program(level, &prog).unwrap_or_else(|e| panic!("{fam}: {e}"));
        let ours: Vec<String> = listing
            .instruction_texts()
            .iter()
            .map(|t| normalize(t))
            .collect();
        let theirs = disassemble(
            &mc,
            fam.llvm_processor(),
            WaveSize::Wave64,
            &listing.words(),
        )
        .unwrap_or_else(|e| panic!("llvm-mc rejected the forms on {fam}:\n{e}\n{listing}"));
        let theirs: Vec<String> = theirs.iter().map(|t| normalize(t)).collect();
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{fam}: instruction count\n{listing}"
        );
        for (o, t) in ours.iter().zip(&theirs) {
            assert_eq!(o, t, "{fam} ({}):\n{listing}", fam.llvm_processor());
        }
    }
}
