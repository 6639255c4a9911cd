//! `pops`: the one command-line tool of the project.
//!
//! Each subcommand lives in its own module (`cmd_*.rs`) with its clap arguments and a `run`
//! function returning the process exit code; this file only dispatches.

mod cmd_chips;
mod cmd_inspect;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pops",
    version,
    about = "AMD Primitive Ordered Pixel Shading toolkit"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the chip database: families, levels, LLVM processors and POPS quirks.
    Chips(cmd_chips::Args),
    /// Analyse a SPIR-V module: interlock mode, begin/end, per-sample shading, memory, outputs.
    Inspect(cmd_inspect::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Chips(a) => cmd_chips::run(a),
        Command::Inspect(a) => cmd_inspect::run(a),
    }
}
