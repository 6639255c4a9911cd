//! `pops defects`: the POPS driver defects pops knows (`pops_report::defects`, the one table the
//! layer, `pops run` and `pops report` name findings from): a list, the document
//! (`--markdown`, docs/defects.md), or one defect as a report for Mesa's issue tracker
//! (`--issue ID`).

use pops_report::defects::{issue_text, markdown, KNOWN_DEFECTS};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Print the table as docs/defects.md.
    #[arg(long, conflicts_with = "issue")]
    markdown: bool,
    /// Print one defect (by its id) as a report for Mesa's issue tracker.
    #[arg(long, value_name = "ID")]
    issue: Option<String>,
}

pub fn run(args: Args) -> ExitCode {
    if args.markdown {
        print!("{}", markdown());
        return ExitCode::SUCCESS;
    }
    if let Some(id) = &args.issue {
        return match KNOWN_DEFECTS.iter().find(|d| d.id == id) {
            Some(d) => {
                print!("{}", issue_text(d, &[], None));
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "pops defects: --issue {id}: no known defect of that id (known: {})",
                    KNOWN_DEFECTS
                        .iter()
                        .map(|d| d.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                ExitCode::from(2)
            }
        };
    }
    for d in KNOWN_DEFECTS {
        println!("{}: {}", d.id, d.title);
        println!(
            "  {} {}; {}; chips {}",
            d.driver.to_uppercase(),
            d.component,
            d.releases,
            d.chips
        );
        println!("  finding {}; {}", d.finding, d.effect);
    }
    println!("(docs/defects.md has each in full; `pops defects --issue ID` writes one for Mesa's issue tracker)");
    ExitCode::SUCCESS
}
