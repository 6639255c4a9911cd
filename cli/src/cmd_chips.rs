//! `pops chips`: the chip database as a table or JSON.

use pm4::Family;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> ExitCode {
    if args.json {
        let rows: Vec<_> = Family::ALL
            .iter()
            .map(|f| {
                let q = f.quirks();
                pops_report::commands::ChipRow {
                    family: f.name().into(),
                    gfx_level: f.gfx_level().name().into(),
                    llvm_processor: f.llvm_processor().into(),
                    quirks: pops_report::commands::ChipQuirks {
                        pops_missed_overlap: q.pops_missed_overlap,
                        stalled_pops_mode: q.stalled_pops_mode,
                        out_of_order_rast: q.out_of_order_rast,
                    },
                }
            })
            .collect();
        crate::document::print_document(&rows);
        return ExitCode::SUCCESS;
    }
    println!("{:<18} {:<8} {:<8} quirks", "family", "level", "llvm");
    for f in Family::ALL {
        let q = f.quirks();
        let mut quirks = Vec::new();
        if q.pops_missed_overlap {
            quirks.push("pops-missed-overlap (drain at >=8 samples)");
        }
        if q.stalled_pops_mode {
            quirks.push("stalled-pops-mode (PSLC_ON_HANG_ONLY with drain)");
        }
        if q.out_of_order_rast {
            quirks.push("out-of-order-rasterization");
        }
        println!(
            "{:<18} {:<8} {:<8} {}",
            f.name(),
            f.gfx_level().name(),
            f.llvm_processor(),
            if quirks.is_empty() {
                "-".to_string()
            } else {
                quirks.join(", ")
            }
        );
    }
    ExitCode::SUCCESS
}
