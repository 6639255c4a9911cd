//! The model has teeth: each mutation of the emitted instruction list that breaks a rule of the
//! article is caught — as an ordering violation, a hang, a deadlock or a double ORDERED_PS_DONE.
//! The mutants are built by editing the very `Vec<Inst>` the emitter returns.

use pm4::{GfxLevel, Granularity};
use shaders::isa::{
    ordered_section, Inst, Msg, Operand, SectionOptions, Sop1, Sop2, Sopc, Sopk, Sopp,
};
use shaders::model::{
    generate_stream, simulate, wave_program, Config, Fragment, ModelError, Primitive, StreamShape,
};

fn program(level: GfxLevel, section: SectionOptions) -> Vec<Inst> {
    wave_program(&ordered_section(level, &section).unwrap())
}

/// The mutant most tests need: the default-section program of `level` with every instruction
/// that `dropped` picks removed.
fn program_without(level: GfxLevel, dropped: impl Fn(&Inst) -> bool) -> Vec<Inst> {
    program(level, SectionOptions::default())
        .into_iter()
        .filter(|i| !dropped(i))
        .collect()
}

/// Runs [`program_without`] over a pile-up of `n` primitives (see [`failures`]).
fn failures_without(level: GfxLevel, n: usize, dropped: impl Fn(&Inst) -> bool) -> Vec<ModelError> {
    let prog = program_without(level, dropped);
    failures(level, SectionOptions::default(), &prog, &pileup(n))
}

/// Every primitive covers the same 2×2 pixels: each wave overlaps the one before it, so the
/// ordering hinges on every wave-ID comparison, wraparounds included.
fn pileup(n: usize) -> Vec<Primitive> {
    (0..n)
        .map(|_| Primitive {
            fragments: (0..4)
                .map(|i| Fragment {
                    x: i & 1,
                    y: i >> 1,
                    coverage: 1,
                })
                .collect(),
        })
        .collect()
}

fn config(level: GfxLevel, section: SectionOptions, seed: u64) -> Config {
    let mut cfg = Config::new(level, section);
    cfg.packers = 1;
    cfg.first_wave_id = 1000;
    cfg.max_in_flight = 16;
    cfg.seed = seed;
    cfg
}

/// Runs `prog` over several seeds and returns the first failure of each.
fn failures(
    level: GfxLevel,
    section: SectionOptions,
    prog: &[Inst],
    prims: &[Primitive],
) -> Vec<ModelError> {
    (1..=4)
        .filter_map(|seed| simulate(&config(level, section, seed), prog, prims).err())
        .collect()
}

fn assert_caught(
    what: &str,
    got: Vec<ModelError>,
    seeds: usize,
    expect: impl Fn(&ModelError) -> bool,
) {
    assert_eq!(
        got.len(),
        seeds,
        "{what}: not caught under every seed: {got:?}"
    );
    for e in &got {
        assert!(expect(e), "{what}: caught, but as {e}");
    }
    eprintln!("{what}: caught as: {}", got[0]);
}

/// The unmutated sequences pass the same scenarios (so the failures below are the mutations').
#[test]
fn unmutated_sequences_pass_the_mutation_scenarios() {
    for level in [
        GfxLevel::Gfx9,
        GfxLevel::Gfx10,
        GfxLevel::Gfx10_3,
        GfxLevel::Gfx11,
    ] {
        let section = SectionOptions::default();
        let prog = program(level, section);
        assert_eq!(
            failures(level, section, &prog, &pileup(3000)),
            vec![],
            "{level}"
        );
    }
}

/// "GFX9 has an off-by-one error in the newest overlapped wave ID ... 1 needs to be added to the
/// newest overlapped wave ID before using it in the comparison."
#[test]
fn dropping_the_gfx9_off_by_one_correction_is_caught() {
    let section = SectionOptions::default();
    let prog = program_without(GfxLevel::Gfx9, |i| {
        matches!(
            i,
            Inst::Sop2 {
                op: Sop2::AndB32,
                src1: Operand::Literal(0x3ff),
                ..
            } | Inst::Sopc {
                op: Sopc::CmpGtU32,
                ..
            } | Inst::Sop2 {
                op: Sop2::AddI32,
                src1: Operand::Scc,
                ..
            }
        )
    });
    assert_eq!(prog.len() + 3, program(GfxLevel::Gfx9, section).len());
    // Only waves right after a wraparound are affected: run through eight of them.
    let got = failures(GfxLevel::Gfx9, section, &prog, &pileup(8200));
    assert_caught("no off-by-one correction", got, 4, |e| {
        matches!(e, ModelError::OutOfOrder { .. })
    });
}

/// "This wraparound needs to be taken into account when comparing the exiting wave ID and the
/// newest overlapped wave ID": without the `~current_id` remap the raw 10-bit IDs are compared.
#[test]
fn comparing_raw_10bit_ids_without_the_remap_is_caught() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10_3] {
        let section = SectionOptions::default();
        let prog: Vec<Inst> = program(level, section)
            .into_iter()
            .map(|i| match i {
                // The remap offset ~current_id becomes 0.
                Inst::Sop2 {
                    op: Sop2::NandB32,
                    dst,
                    ..
                } => Inst::sop1(Sop1::MovB32, dst, Operand::Const(0)),
                other => other,
            })
            .collect();
        assert_ne!(prog, program(level, section));
        let got = failures(level, section, &prog, &pileup(3000));
        assert_caught(&format!("raw IDs on {level}"), got, 4, |e| {
            matches!(
                e,
                ModelError::Deadlock { .. } | ModelError::OutOfOrder { .. }
            )
        });
    }
}

/// "The wait must not be performed if the "did overlap" bit 31 is set to 0, otherwise it will
/// result in a hang."
#[test]
fn waiting_when_bit_31_is_clear_is_caught() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10] {
        let got = failures_without(level, 50, |i| {
            matches!(
                i,
                Inst::Sopp {
                    op: Sopp::CbranchScc0,
                    ..
                }
            )
        });
        assert_caught(&format!("wait without overlap on {level}"), got, 4, |e| {
            matches!(e, ModelError::WaitedWithoutOverlap { wave: 0 })
        });
    }
}

/// "it must still be ensured that ORDERED_PS_DONE is sent by the wave only once".
#[test]
fn sending_ordered_ps_done_twice_is_caught() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10_3] {
        for intrawave in [false, true] {
            let section = SectionOptions {
                intrawave,
                ..SectionOptions::default()
            };
            let mut prog = program(level, section);
            let at = prog
                .iter()
                .position(|i| *i == Inst::sendmsg(Msg::OrderedPsDone))
                .unwrap();
            prog.insert(at, Inst::sendmsg(Msg::OrderedPsDone));
            let got = failures(level, section, &prog, &pileup(200));
            assert_caught(&format!("double done on {level}"), got, 4, |e| {
                matches!(e, ModelError::DoneTwice { .. })
            });
        }
    }
}

/// "Before the message is sent, all counters for memory accesses that need to be
/// primitive-ordered ... must be awaited."
#[test]
fn resuming_overlapping_waves_before_the_waitcnts_is_caught() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10, GfxLevel::Gfx11] {
        let section = SectionOptions::default();
        let full = program(level, section);
        // Dropping either wait (vm/lgkm, or vs on GFX10+) is enough.
        let waits: Vec<usize> = full
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                matches!(
                    i,
                    Inst::Sopp {
                        op: Sopp::Waitcnt,
                        ..
                    } | Inst::Sopk {
                        op: Sopk::WaitcntVscnt,
                        ..
                    }
                )
            })
            .map(|(n, _)| n)
            .collect();
        assert!(!waits.is_empty());
        for drop in waits {
            let mut prog = full.clone();
            prog.remove(drop);
            let got = failures(level, section, &prog, &pileup(100));
            assert_caught(&format!("missing wait on {level}"), got, 4, |e| {
                matches!(e, ModelError::DoneWithOutstandingMemory { .. })
            });
        }
    }
}

/// "If the wave has enabled POPS by setting the packer hardware register, it must not execute
/// s_endpgm without having sent ORDERED_PS_DONE once".
#[test]
fn ending_without_ordered_ps_done_is_caught() {
    let got = failures_without(GfxLevel::Gfx10, 100, |i| {
        *i == Inst::sendmsg(Msg::OrderedPsDone)
    });
    assert_caught("no done", got, 4, |e| {
        matches!(e, ModelError::EndedWithoutDone { .. })
    });
}

/// "The packer ID needs to be passed to the packer hardware register using s_setreg_b32 so the
/// wave can poll pops_exiting_wave_id on that packer."
#[test]
fn polling_without_setting_the_packer_is_caught() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10] {
        let got = failures_without(level, 100, |i| {
            matches!(
                i,
                Inst::Sopk {
                    op: Sopk::SetregB32,
                    ..
                }
            )
        });
        assert_caught(&format!("no packer on {level}"), got, 4, |e| {
            matches!(e, ModelError::PackerNotSet { .. })
        });
    }
}

/// GFX11: without `s_wait_event` nothing waits for "export ready".
#[test]
fn gfx11_without_the_export_ready_wait_is_caught() {
    let got = failures_without(GfxLevel::Gfx11, 300, |i| {
        matches!(
            i,
            Inst::Sopp {
                op: Sopp::WaitEvent,
                ..
            }
        )
    });
    assert_caught("no s_wait_event", got, 4, |e| {
        matches!(e, ModelError::OutOfOrder { .. })
    });
}

/// Intrawave: "the ordered section code for them needs to be executed after running it for all
/// lanes with indices preceding that quad index multiplied by 4" — running the body once for the
/// whole wave (no loop), or skipping the per-layer wait, breaks the order.
#[test]
fn broken_intrawave_loops_are_caught() {
    let level = GfxLevel::Gfx10_3;
    let section = SectionOptions {
        intrawave: true,
        ..SectionOptions::default()
    };
    let full = program(level, section);
    // Dense overlapping stream so that most waves have several layers.
    let prims = generate_stream(
        9,
        StreamShape {
            primitives: 600,
            width: 8,
            height: 8,
            max_side: 4,
            samples: 1,
        },
    );
    let run = |prog: &[Inst]| -> Vec<ModelError> {
        (1..=4)
            .filter_map(|seed| {
                let mut cfg = config(level, section, seed);
                cfg.granularity = Granularity::Pixel;
                simulate(&cfg, prog, &prims).err()
            })
            .collect()
    };
    assert_eq!(run(&full), vec![]);

    // No layering: EXEC stays the whole wave (drop the EXEC write of each layer).
    let no_layers: Vec<Inst> = full
        .iter()
        .copied()
        .filter(|i| {
            !matches!(
                i,
                Inst::Sop2 {
                    dst: Operand::Exec,
                    ..
                }
            )
        })
        .collect();
    assert_caught("single layer", run(&no_layers), 4, |e| {
        matches!(e, ModelError::OutOfOrder { .. } | ModelError::BodyTwice(_))
    });

    // Upper bits of INTRAWAVE_COLLISION not masked out: *not* a bug for this loop. "The rest of
    // the bits in the argument need to be ignored — AMD explicitly masks them out in shader code
    // (although this is not necessary if the shader uses "find first 1" ...)": a garbage
    // boundary only splits a layer into lane-ordered parts. The model agrees.
    let unmasked: Vec<Inst> = full
        .iter()
        .map(|i| match *i {
            Inst::Sop2 {
                op: Sop2::AndB32,
                dst,
                src0,
                src1: Operand::Literal(0xfffe),
            } => Inst::sop1(Sop1::MovB32, dst, src0),
            other => other,
        })
        .collect();
    assert_ne!(unmasked, full);
    assert_eq!(
        run(&unmasked),
        vec![],
        "find-first-1 layering tolerates unmasked bits"
    );

    // No waitcnt between layers: the next layer overlaps accesses still in flight.
    let mut no_layer_wait = full.clone();
    let latch = no_layer_wait
        .iter()
        .position(|i| *i == Inst::Label(shaders::isa::LABEL_NEXT_LAYER))
        .unwrap();
    let wait = no_layer_wait.remove(latch + 1);
    assert!(matches!(
        wait,
        Inst::Sopp {
            op: Sopp::Waitcnt,
            ..
        }
    ));
    // Keep the final wait before ORDERED_PS_DONE so only the per-layer ordering is broken.
    let done = no_layer_wait
        .iter()
        .position(|i| *i == Inst::sendmsg(Msg::OrderedPsDone))
        .unwrap();
    no_layer_wait.insert(done, wait);
    assert_caught(
        "no wait between layers",
        run(&no_layer_wait),
        4,
        |e| matches!(e, ModelError::OutOfOrder { why, .. } if why.contains("outstanding")),
    );
}

/// A wait that can never be satisfied (the newest overlapped ID remapped to the largest value,
/// which only the current wave itself has) is reported as a deadlock, not as a step timeout:
/// the model notices that every live wave is spinning on unchanged state.
#[test]
fn an_unsatisfiable_wait_is_reported_as_a_deadlock() {
    let level = GfxLevel::Gfx10_3;
    let section = SectionOptions::default();
    let full = program(level, section);
    let remap = full
        .iter()
        .position(|i| {
            matches!(
                i,
                Inst::Sop2 {
                    op: Sop2::AddI32,
                    src1: Operand::Sgpr(_),
                    src0: Operand::Sgpr(_),
                    ..
                }
            )
        })
        .unwrap();
    let mut prog = full.clone();
    if let Inst::Sop2 { dst, .. } = full[remap] {
        prog[remap] = Inst::sop1(Sop1::MovB32, dst, Operand::Const(-1));
    }
    let got = failures(level, section, &prog, &pileup(100));
    assert_caught("unsatisfiable wait", got, 4, |e| {
        matches!(e, ModelError::Deadlock { .. })
    });
}
