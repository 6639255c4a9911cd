//! `pops`: the one command-line tool of the project.
//!
//! Each subcommand lives in its own module (`cmd_*.rs`) with its clap arguments and a `run`
//! function returning the process exit code; this file only dispatches.

mod cmd_chips;
mod cmd_decode;
mod cmd_run;

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
    /// Decode a PM4 stream (binary or hex text) into packets and register writes.
    Decode(cmd_decode::Args),
    /// Run a program with VK_LAYER_POPS_interlock injected and summarise what it reported.
    Run(cmd_run::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Chips(a) => cmd_chips::run(a),
        Command::Decode(a) => cmd_decode::run(a),
        Command::Run(a) => cmd_run::run(a),
    }
}
