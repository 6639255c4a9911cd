//! The race test's lines and its verdict: each combination's lost updates, order violations,
//! executions and time; then whether the control saw races (so the test can see them here) and
//! whether every interlocked combination was exact.

use super::{run, Measured, RaceCombo, RaceOptions, RaceOutcome};
use crate::device::Gpu;
use crate::pipelines::Layouts;

/// What the whole run found.
#[derive(Debug, Default)]
pub struct RaceSummary {
    /// Interlocked combinations measured, and how many of them were exact.
    pub interlocked: usize,
    pub exact: usize,
    pub executions: u64,
    /// The control's totals (`None`: not measured).
    pub control: Option<Measured>,
    /// Combinations that failed to run (errors), or completed without any shader output.
    pub errors: usize,
    pub silent: usize,
}

impl RaceSummary {
    /// Every interlocked combination exact and nothing failed to run.
    pub fn exact(&self) -> bool {
        self.exact == self.interlocked && self.errors == 0
    }
}

/// Whether a measured combination kept the contract of its mode.
fn exact(combo: RaceCombo, m: &Measured) -> bool {
    m.lost == 0 && (!combo.ordered() || m.violations == 0)
}

fn line(combo: RaceCombo, m: &Measured) -> String {
    let verdict = match (combo.interlock, exact(combo, m)) {
        (None, _) if m.lost > 0 => "RACES SEEN (the control: the test sees races here)",
        (None, _) => "NO RACE SEEN (the control: races cannot be seen here at this size)",
        (Some(_), true) => "EXACT",
        (Some(_), false) => "RACE",
    };
    let order = if combo.ordered() || combo.interlock.is_none() {
        format!("{} order violations", m.violations)
    } else {
        format!("{} out-of-order reads (unordered: allowed)", m.violations)
    };
    let time = m.gpu_ms.map(|s| format!("; gpu {s}")).unwrap_or_default();
    format!(
        "race {}: {verdict}: {} lost updates, {order} in {} executions{time}",
        combo.name(),
        m.lost,
        m.executions
    )
}

/// Runs every combination, printing a line for each, and sums them up.
pub fn run_all(gpu: &Gpu, layouts: &Layouts, opts: &RaceOptions) -> RaceSummary {
    println!(
        "race: {} primitives over {}x{} per draw, {} frame(s) per combination",
        opts.primitives,
        opts.width,
        opts.height,
        opts.frames.max(1)
    );
    let mut s = RaceSummary::default();
    for combo in RaceCombo::all() {
        let name = combo.name();
        match run(gpu, layouts, combo, opts) {
            RaceOutcome::Measured(m) => {
                println!("{}", line(combo, &m));
                if combo.interlock.is_none() {
                    s.control = Some(match s.control.take() {
                        Some(c) => Measured {
                            executions: c.executions + m.executions,
                            lost: c.lost + m.lost,
                            violations: c.violations + m.violations,
                            gpu_ms: None,
                        },
                        None => Measured { gpu_ms: None, ..m },
                    });
                } else {
                    s.interlocked += 1;
                    s.exact += exact(combo, &m) as usize;
                    s.executions += m.executions;
                }
            }
            RaceOutcome::NotApplicable(why) => println!("race {name}: not applicable: {why}"),
            RaceOutcome::Unsupported(why) => {
                println!("race {name}: unsupported on this device: {why}")
            }
            RaceOutcome::Created => println!("race {name}: pipeline created (not run)"),
            RaceOutcome::NoShaderOutput => {
                s.silent += 1;
                println!("race {name}: submitted and completed, but no shader wrote anything");
            }
            RaceOutcome::Error(e) => {
                s.errors += 1;
                println!("race {name}: ERROR {e}");
            }
        }
    }
    print_summary(&s);
    s
}

fn print_summary(s: &RaceSummary) {
    match &s.control {
        Some(c) if c.lost > 0 => println!(
            "race: the control (no interlock) lost {} updates and saw {} order violations in {} executions: the test sees races on this device",
            c.lost, c.violations, c.executions
        ),
        Some(c) => println!(
            "race: the control (no interlock) lost no update in {} executions ({} order violations): this device ran the fragments so that no race could be seen, so the interlocked results prove nothing about ordering here",
            c.executions, c.violations
        ),
        None => println!("race: the control was not measured"),
    }
    if s.interlocked > 0 {
        println!(
            "race: {} of {} interlocked combinations exact (0 lost updates, 0 order violations where ordered) over {} executions",
            s.exact, s.interlocked, s.executions
        );
    }
}
