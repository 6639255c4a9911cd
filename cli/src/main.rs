//! `pops`: the one command-line tool of the project.
//!
//! Each subcommand lives in its own module (`cmd_*.rs`) with its clap arguments and a `run`
//! function returning the process exit code; this file only dispatches.

mod cmd_chips;
mod cmd_compare;
mod cmd_decode;
mod cmd_defects;
mod cmd_devices;
mod cmd_inspect;
mod cmd_isa;
mod cmd_layer;
mod cmd_lint;
mod cmd_replay;
mod cmd_report;
mod cmd_run;
mod cmd_selftest;
mod cmd_state;
mod cmd_verify_isa;
mod document;
mod launch_args;
mod progress;
mod report_html;
mod selftest_common;
mod selftest_draw;
mod stream_input;
mod summary_text;

use clap::{Parser, Subcommand};
// The driver comparison lives in its own crate; its modules are named here as the commands use
// them.
use compare::{
    launch, null_device, radv_compile, submitted_check, summary, table, timing_stats, verification,
};
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
    /// The POPS driver defects pops knows: which Mesa releases, chips and paths, the finding
    /// that detects each, and a report for Mesa's issue tracker.
    Defects(cmd_defects::Args),
    /// Check a PM4 stream: every write on a real register of the level, every packet complete.
    Lint(cmd_lint::Args),
    /// Install or uninstall the Vulkan layer VK_LAYER_POPS_interlock.
    Layer(cmd_layer::Args),
    /// Derive the registers, PM4, device features and diagnostics of a POPS draw on one chip.
    State(cmd_state::Args),
    /// List the amdgpu GPUs of this machine: render node, family, level, POPS quirks.
    Devices(cmd_devices::Args),
    /// Hardware self-test: fence, then every POPS register state of the chip, on a GPU or captured.
    Selftest(cmd_selftest::Args),
    /// Print the machine code that enters and leaves the POPS ordered section on a chip.
    Isa(cmd_isa::Args),
    /// Check the ordered section of a driver's compiled fragment shader (ACO assembly or program
    /// listing, LLVM disassembly or code words) on every path against the POPS article's rules.
    VerifyIsa(cmd_verify_isa::Args),
    /// Analyse a SPIR-V module: interlock mode, begin/end, per-sample shading, memory, outputs.
    Inspect(cmd_inspect::Args),
    /// Run a program with VK_LAYER_POPS_interlock injected and summarise what it reported.
    Run(cmd_run::Args),
    /// Summarise a report VK_LAYER_POPS_interlock wrote (here or on another machine).
    Report(cmd_report::Args),
    /// Run a program without and with an interlock experiment and compare the GPU time of its
    /// interlocked work, per pipeline and per frame, and its output files.
    Compare(cmd_compare::Args),
    /// Replay Fossilize archives (fossilize-replay) under the layer with verify_isa on each chip:
    /// every interlocked pipeline's code verified, findings by code, known driver defects named.
    Replay(cmd_replay::Args),
}

fn main() -> ExitCode {
    // Like every Unix filter: a closed pipe (`pops state … | head`) ends the program quietly by
    // SIGPIPE instead of a failed write to standard output.
    // SAFETY: setting a signal's disposition to SIG_DFL installs no handler; nothing else in this
    // process has changed SIGPIPE, and no other thread runs yet.
    let _ = unsafe {
        nix::sys::signal::signal(
            nix::sys::signal::Signal::SIGPIPE,
            nix::sys::signal::SigHandler::SigDfl,
        )
    };
    let cli = Cli::parse();
    match cli.command {
        Command::Chips(a) => cmd_chips::run(a),
        Command::Decode(a) => cmd_decode::run(a),
        Command::Defects(a) => cmd_defects::run(a),
        Command::Layer(a) => cmd_layer::run(a),
        Command::Lint(a) => cmd_lint::run(a),
        Command::State(a) => cmd_state::run(a),
        Command::Devices(a) => cmd_devices::run(a),
        Command::Selftest(a) => cmd_selftest::run(a),
        Command::Isa(a) => cmd_isa::run(a),
        Command::VerifyIsa(a) => cmd_verify_isa::run(a),
        Command::Inspect(a) => cmd_inspect::run(a),
        Command::Run(a) => cmd_run::run(a),
        Command::Report(a) => cmd_report::run(a),
        Command::Compare(a) => cmd_compare::run(a),
        Command::Replay(a) => cmd_replay::run(a),
    }
}
