//! Programs that differ only in which SGPRs they use run alike.
//!
//! Why: drivers allocate registers per shader, so the same ordering code comes with its
//! arguments in `s3` in one shader and in `s6` in the next (RADV's GFX9 code for the corpus: one
//! entry sequence in four register allocations). Renamed to one canonical allocation, they are
//! one program, whose outcome the verification computes once.
//!
//! A run of a renamed program is the run of the original with every register renamed: the
//! interpreter treats registers alike, and the model writes only the collision argument at
//! launch. The one place a register's *number* reaches a run is the garbage a wave starts with
//! (one draw per register, by number), so a program is renamed only where it can read no
//! register at launch but the arguments, whose garbage the arguments overwrite.

use super::effects::sgprs_read_at_launch;
use super::interp::SGPRS;
use crate::isa::{Inst, Operand, SectionOptions};

/// A program with its SGPRs renamed, and the options it runs with, renamed alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renamed {
    pub program: Vec<Inst>,
    pub options: SectionOptions,
}

/// New register names in order of first appearance: the lowest free register for one used
/// alone, the lowest free aligned pair for one a 64-bit operand uses (with its partner), so
/// that such an operand stays a pair.
struct Names {
    /// Registers some 64-bit operand of the program uses.
    paired: [bool; SGPRS],
    map: [Option<u8>; SGPRS],
    taken: [bool; SGPRS],
}

impl Names {
    /// The names for `program`'s registers; `None` where a 64-bit operand starts at an odd
    /// register or reaches past the model's.
    fn for_program(program: &[Inst]) -> Option<Names> {
        let mut paired = [false; SGPRS];
        for inst in program {
            inst.try_map_operands(|op, dwords| {
                if let (Operand::Sgpr(n), 2) = (op, dwords) {
                    let n = usize::from(n);
                    if n % 2 == 1 || n + 1 >= SGPRS {
                        return None;
                    }
                    paired[n] = true;
                    paired[n + 1] = true;
                }
                Some(op)
            })?;
        }
        Some(Names {
            paired,
            map: [None; SGPRS],
            taken: [false; SGPRS],
        })
    }

    /// The new name of register `n`; `None` past the model's registers or where no aligned
    /// pair is left.
    fn rename(&mut self, n: u8) -> Option<u8> {
        let at = usize::from(n);
        if at >= SGPRS {
            return None;
        }
        if let Some(to) = self.map[at] {
            return Some(to);
        }
        if self.paired[at] {
            let base = at & !1;
            let to = (0..SGPRS - 1)
                .step_by(2)
                .find(|&t| !self.taken[t] && !self.taken[t + 1])?;
            for k in 0..2 {
                self.map[base + k] = Some((to + k) as u8);
                self.taken[to + k] = true;
            }
            self.map[at]
        } else {
            let to = (0..SGPRS).find(|&t| !self.taken[t])?;
            self.map[at] = Some(to as u8);
            self.taken[to] = true;
            Some(to as u8)
        }
    }

    fn operand(&mut self, op: Operand) -> Option<Operand> {
        match op {
            Operand::Sgpr(n) => self.rename(n).map(Operand::Sgpr),
            other => Some(other),
        }
    }
}

/// `program` (run with `options`) with its SGPRs renamed canonically: the collision argument
/// (and the intrawave one, where written) first, then in order of appearance, each the lowest
/// free register (aligned pair) then. `None` where a
/// renamed run could differ: the program can read a register at launch other than the
/// arguments (the collision argument, and the intrawave one where written), or uses
/// a register renaming cannot keep whole.
pub fn canonical(program: &[Inst], options: SectionOptions) -> Option<Renamed> {
    let c = options.collision_sgpr;
    let written_at_launch = |r: u8| r == c || (options.intrawave && r == options.intrawave_sgpr);
    if !sgprs_read_at_launch(program)
        .into_iter()
        .all(written_at_launch)
    {
        return None;
    }
    let mut names = Names::for_program(program)?;
    let mut renamed_options = options;
    renamed_options.collision_sgpr = names.rename(c)?;
    renamed_options.intrawave_sgpr = if options.intrawave {
        names.rename(options.intrawave_sgpr)?
    } else {
        // Not written at launch, not read: no part of a run either.
        0
    };
    // pops' own registers are in the program already: the option is no part of a run.
    renamed_options.scratch_sgprs = 0;
    let program = program
        .iter()
        .map(|inst| inst.try_map_operands(|op, _| names.operand(op)))
        .collect::<Option<Vec<Inst>>>()?;
    Some(Renamed {
        program,
        options: renamed_options,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{simulate, wave_program, Config, Report};
    use super::*;
    use crate::isa::{ordered_section, Sop1, Sop2};
    use crate::model::{generate_stream, StreamShape};
    use pm4::{GfxLevel, Granularity};

    /// pops' own section for `level` with its arguments and scratch registers where `opts`
    /// puts them.
    fn section(level: GfxLevel, opts: SectionOptions) -> Vec<Inst> {
        wave_program(&ordered_section(level, &opts).expect("pops' section"))
    }

    fn runs(level: GfxLevel, program: &[Inst], opts: SectionOptions) -> Vec<Report> {
        let shape = StreamShape {
            primitives: 32,
            width: 12,
            height: 10,
            max_side: 5,
            samples: 4,
        };
        let mut out = Vec::new();
        for seed in 1..=3 {
            for (granularity, first) in [(Granularity::Pixel, 0), (Granularity::Sample, 1012)] {
                let mut cfg = Config::new(level, opts);
                cfg.seed = seed;
                cfg.granularity = granularity;
                cfg.first_wave_id = first;
                let prims = generate_stream(seed, shape);
                out.push(simulate(&cfg, program, &prims).expect("pops' section keeps the order"));
            }
        }
        out
    }

    /// The same section in two register allocations (and intrawave layers, whose mask is
    /// written at launch too) is one program renamed, and runs as the original does, run for
    /// run: the same waves, overlaps, polls and steps.
    #[test]
    fn one_section_in_two_allocations_is_one_program_running_alike() {
        for (level, intrawave) in [
            (GfxLevel::Gfx9, false),
            (GfxLevel::Gfx9, true),
            (GfxLevel::Gfx10_3, true),
            (GfxLevel::Gfx11, false),
        ] {
            let a = SectionOptions {
                intrawave,
                wave64: true,
                collision_sgpr: 5,
                intrawave_sgpr: 8,
                scratch_sgprs: 40,
            };
            let b = SectionOptions {
                collision_sgpr: 2,
                intrawave_sgpr: 3,
                scratch_sgprs: 80,
                ..a
            };
            let (pa, pb) = (section(level, a), section(level, b));
            let ca = canonical(&pa, a).expect("renamable");
            let cb = canonical(&pb, b).expect("renamable");
            assert_eq!(ca, cb, "{level} intrawave {intrawave}");
            let original = runs(level, &pa, a);
            assert_eq!(runs(level, &ca.program, ca.options), original, "{level}");
            assert!(original
                .iter()
                .any(|r| r.overlapped_waves > 0 && r.steps > 0));
        }
    }

    /// A program that can read a register's garbage at launch is not renamed (its garbage is
    /// drawn by register number); nor is one with a 64-bit operand at an odd register.
    #[test]
    fn what_renaming_could_change_is_not_renamed() {
        let opts = SectionOptions::default();
        let mut reads_garbage = section(GfxLevel::Gfx9, opts);
        reads_garbage.insert(
            0,
            Inst::sop2(
                Sop2::AddI32,
                Operand::Sgpr(opts.collision_sgpr),
                Operand::Sgpr(opts.collision_sgpr),
                Operand::Sgpr(40),
            ),
        );
        assert_eq!(canonical(&reads_garbage, opts), None);
        let odd_pair = vec![Inst::sop1(
            Sop1::MovB64,
            Operand::Sgpr(7),
            Operand::Const(0),
        )];
        assert_eq!(canonical(&odd_pair, opts), None);
        let past = vec![Inst::sop1(
            Sop1::MovB32,
            Operand::Sgpr(120),
            Operand::Const(0),
        )];
        assert_eq!(canonical(&past, opts), None);
    }
}
