//! A Vulkan application run by the loader-level tests, one scenario per process so that loader
//! environment variables and crashes stay isolated.
//!
//! `pops-vk-scenario <scenario>`; scenarios print one JSON object per line on stdout. Exit code 0:
//! done; 2: the device lacks something the scenario needs (the message says what); 1: failure.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod bench;
mod bench_create_record;
mod bench_draws;
mod bench_submits;
mod capture_code;
mod common;
mod die_after_creating;
mod draws;
mod draws_depth;
mod draws_formats;
mod draws_interleaved;
mod draws_libraries;
mod draws_shader_objects;
mod entries;
mod exit_live;
mod fault_two_instances;
mod lost;
mod malformed;
mod messenger;
mod pipelines;
mod poison;
mod present;
mod render;
mod shader_object_code;
mod suspend;
mod threads;
mod two;

use std::process::ExitCode;

fn main() -> ExitCode {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let r = match scenario.as_str() {
        "pipelines" => pipelines::scenario_pipelines(),
        "entries" => entries::scenario_entries(),
        "threads" => threads::scenario_threads(),
        "malformed" => malformed::scenario_malformed(),
        "poison" => poison::scenario_poison(),
        "draws" => draws::scenario_draws(),
        "draws-depth" => draws_depth::scenario_draws_depth(),
        "draws-shader-objects" => draws_shader_objects::scenario_draws_shader_objects(),
        "draws-interleaved" => draws_interleaved::scenario_draws_interleaved(),
        "draws-formats" => draws_formats::scenario_draws_formats(),
        "draws-libraries" => draws_libraries::scenario_draws_libraries(false),
        "draws-libraries-dynamic" => draws_libraries::scenario_draws_libraries(true),
        "messenger" => messenger::scenario_messenger(),
        "fault-two-instances" => fault_two_instances::scenario_fault_two_instances(),
        "two" => two::scenario_two(),
        "lost" => lost::scenario_lost(),
        "exit-live" => exit_live::scenario_exit_with_live_device(),
        "render" => render::scenario_render(),
        "present" => present::scenario_present(),
        "suspend" => suspend::scenario_suspend(),
        "bench" => bench::scenario_bench(),
        "bench-draws" => bench_draws::scenario_bench_draws(),
        "bench-create-record" => bench_create_record::scenario_bench_create_record(),
        "die-after-creating" => die_after_creating::scenario_die_after_creating(),
        "bench-submits" => bench_submits::scenario_bench_submits(),
        "capture-code" => capture_code::scenario_capture_code(),
        "shader-object-code" => shader_object_code::scenario_shader_object_code(),
        other => Err(format!("unknown scenario '{other}'")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.starts_with("SKIP") => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("scenario {scenario} failed: {e}");
            ExitCode::FAILURE
        }
    }
}
