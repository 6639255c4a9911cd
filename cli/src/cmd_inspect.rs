//! `pops inspect`: what each entry point of a SPIR-V module asks of POPS — the interlock mode,
//! the begin/end instructions it reaches and whether they are in divergent control flow,
//! per-sample shading, memory writes, colour outputs, early fragment tests.

use pops_report::commands::{self, InspectDocument, InspectedEntryPoint};
use shaders::spirv::{analyze_bytes, EntryPointInfo, InterlockSite, ModuleInfo};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The SPIR-V module (a .spv file, either byte order).
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> ExitCode {
    let path = args.file.display();
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pops inspect: cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // A module a driver would reject on sight is named as such, not described as if it ran.
    if let Err(e) = shaders::spirv::validity::check_bytes(&bytes) {
        eprintln!("pops inspect: {path}: invalid SPIR-V, a Vulkan driver rejects it: {e}");
        return ExitCode::FAILURE;
    }
    let info = match analyze_bytes(&bytes) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("pops inspect: {path}: malformed SPIR-V: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The words in host order, for the stage hash (analysis succeeded, so both succeed).
    let words = shaders::spirv::module::words_from_bytes(&bytes)
        .and_then(|w| shaders::spirv::module::host_order_words(&w).map(|c| c.into_owned()))
        .unwrap_or_default();
    let hashes: Vec<String> = info
        .entry_points
        .iter()
        .map(|e| shaders::spirv::stage_hash(&words, &e.name, None))
        .collect();
    if args.json {
        match serde_json::to_string_pretty(&document(&info, &hashes)) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("pops inspect: cannot format JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", to_text(&path.to_string(), &info, &hashes));
    }
    ExitCode::SUCCESS
}

fn interlock_name(e: &EntryPointInfo) -> &'static str {
    e.interlock.map_or("none", |m| m.name())
}

fn model_name(e: &EntryPointInfo) -> String {
    e.execution_model.name().map_or_else(
        || format!("ExecutionModel({})", e.execution_model.0),
        str::to_string,
    )
}

/// The JSON report; key names are part of the CLI's interface (tests and scripts read them).
/// `hashes[i]` is entry point i's stage hash (`shaders::spirv::stage_hash`, no specialization):
/// the value the layer reports for a stage made from this module and entry point.
pub fn document(info: &ModuleInfo, hashes: &[String]) -> InspectDocument {
    let site = |s: &InterlockSite| commands::InterlockSite {
        instruction: if s.is_begin { "begin" } else { "end" }.into(),
        function: s.function,
        function_name: s.function_name.clone(),
        divergent: s.divergent,
        paths: s.paths,
        word: s.word,
    };
    let entry_points = info
        .entry_points
        .iter()
        .zip(hashes)
        .map(|(e, hash)| InspectedEntryPoint {
            name: e.name.clone(),
            stage_hash: hash.clone(),
            execution_model: model_name(e),
            function: e.function,
            interlock: interlock_name(e).into(),
            begin_count: e.begin_count,
            end_count: e.end_count,
            begin_in_divergent_control_flow: e.begin_in_divergent_control_flow,
            end_in_divergent_control_flow: e.end_in_divergent_control_flow,
            per_sample: e.per_sample,
            writes_memory: e.writes_memory,
            accesses_memory: e.accesses_memory,
            has_color_output: e.has_color_output,
            early_fragment_tests: e.early_fragment_tests,
            reads_sample_mask: e.reads_sample_mask,
            interlock_sites: e.interlock_sites.iter().map(site).collect(),
        })
        .collect();
    InspectDocument {
        spirv_version: format!("{}.{}", info.version.0, info.version.1),
        bound: info.bound,
        entry_points,
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn to_text(path: &str, info: &ModuleInfo, hashes: &[String]) -> String {
    let mut out = format!(
        "{path}: SPIR-V {}.{}, {} entry point{}\n",
        info.version.0,
        info.version.1,
        info.entry_points.len(),
        if info.entry_points.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    for (e, hash) in info.entry_points.iter().zip(hashes) {
        out += &format!("\n{} \"{}\"\n", model_name(e), e.name);
        out += &format!("  stage hash           {hash}\n");
        out += &format!("  interlock            {}\n", interlock_name(e));
        let flow = |divergent: bool, count: u32| match (count, divergent) {
            (0, _) => "",
            (_, true) => " (in divergent control flow)",
            (_, false) => " (uniform)",
        };
        out += &format!(
            "  begin                {}{}\n",
            e.begin_count,
            flow(e.begin_in_divergent_control_flow, e.begin_count)
        );
        out += &format!(
            "  end                  {}{}\n",
            e.end_count,
            flow(e.end_in_divergent_control_flow, e.end_count)
        );
        for s in &e.interlock_sites {
            let f = s
                .function_name
                .clone()
                .unwrap_or_else(|| format!("%{}", s.function));
            out += &format!(
                "    {:<5} in {f} at word {}{}{}\n",
                if s.is_begin { "begin" } else { "end" },
                s.word,
                if s.divergent { ", divergent" } else { "" },
                if s.paths == 1 {
                    String::new()
                } else {
                    format!(", {} call paths", s.paths)
                }
            );
        }
        out += &format!("  per sample           {}\n", yes(e.per_sample));
        out += &format!("  writes memory        {}\n", yes(e.writes_memory));
        out += &format!("  accesses memory      {}\n", yes(e.accesses_memory));
        out += &format!("  colour output        {}\n", yes(e.has_color_output));
        out += &format!("  early frag tests     {}\n", yes(e.early_fragment_tests));
        out += &format!("  reads coverage mask  {}\n", yes(e.reads_sample_mask));
    }
    out
}
