//! Pipeline-creation overhead of VK_LAYER_POPS_interlock on RADV null hardware (issue 5, item 9).
//!
//! Runs `pops-vk-scenario bench` (vkCreateShaderModule + vkCreateGraphicsPipelines over the
//! interlocked shader corpus) in child processes, alternating without and with the layer round by
//! round so that machine noise hits both alike, and prints the ratio of the medians.
//!
//! `cargo bench -p pops-tests --bench pipeline_overhead` (env: POPS_BENCH_ROUNDS, default 15;
//! POPS_BENCH_ITERS, default 3; POPS_BENCH_FAMILY, default navi31).

use pops_tests::*;

/// (name, let RADV cache, the layer's environment).
type Config = (&'static str, bool, Vec<(&'static str, String)>);

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// (wall ns, thread CPU ns) per pipeline.
fn run(
    bin: &str,
    family: &str,
    cache: bool,
    layer: Option<&[(&str, String)]>,
) -> Option<(f64, f64)> {
    let mut s = Scenario::new(bin, "bench", RADV_ICD)
        .env("RADV_FORCE_FAMILY", family)
        .env(
            "POPS_BENCH_ITERS",
            std::env::var("POPS_BENCH_ITERS").unwrap_or_else(|_| "3".into()),
        );
    if !cache {
        // Every pipeline compiles: no in-memory or disk cache in RADV.
        s = s.env("RADV_DEBUG", "nocache");
    }
    if let Some(env) = layer {
        s = s.with_layers(&["VK_LAYER_POPS_interlock"]);
        for (k, v) in env {
            s = s.env(k, v);
        }
    }
    let out = s.run();
    if !out.status.success() {
        eprintln!("bench run failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let v = json_lines(&out.stdout).pop()?;
    let n = v["pipelines"].as_f64()?;
    Some((v["ns"].as_f64()? / n, v["cpu_ns"].as_f64()? / n))
}

fn main() {
    // `cargo test --benches` runs bench targets with --bench absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    if !std::path::Path::new(RADV_ICD).is_file() {
        eprintln!("SKIPPED: {RADV_ICD} not installed");
        return;
    }
    let bin = profile_dir().join("pops-vk-scenario");
    let bin = bin.to_str().expect("utf-8 path").to_string();
    if !std::path::Path::new(&bin).is_file() {
        eprintln!("SKIPPED: {bin} not built (cargo build --release -p pops-tests)");
        return;
    }
    let rounds: usize = std::env::var("POPS_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let family = std::env::var("POPS_BENCH_FAMILY").unwrap_or_else(|_| "navi31".into());
    let dir = temp_dir("bench");
    let report = dir.join("bench.jsonl");
    let configs: Vec<Config> = vec![
        (
            "compile (RADV_DEBUG=nocache), layer logging at warn",
            false,
            vec![("VK_POPS_INTERLOCK_LOG", "warn".into())],
        ),
        (
            "compile (RADV_DEBUG=nocache), layer writing the JSONL report",
            false,
            vec![
                ("VK_POPS_INTERLOCK_LOG", "warn".into()),
                ("VK_POPS_INTERLOCK_REPORT", report.display().to_string()),
            ],
        ),
    ];
    println!("pipeline creation on RADV null hardware ({family}), {rounds} interleaved rounds");
    for (name, cache, env) in configs {
        let (mut without, mut with) = (Vec::new(), Vec::new());
        let (mut without_cpu, mut with_cpu) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            // Alternate which goes first.
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for layered in order {
                let t = if layered {
                    run(&bin, &family, cache, Some(&env))
                } else {
                    run(&bin, &family, cache, None)
                };
                match (t, layered) {
                    (Some((w, c)), true) => {
                        with.push(w);
                        with_cpu.push(c);
                    }
                    (Some((w, c)), false) => {
                        without.push(w);
                        without_cpu.push(c);
                    }
                    (None, _) => return,
                }
            }
        }
        for (what, a, b) in [
            ("wall", median(&mut without), median(&mut with)),
            (
                "thread CPU",
                median(&mut without_cpu),
                median(&mut with_cpu),
            ),
        ] {
            println!(
                "{name}, {what} time: without {:.1} us/pipeline, with {:.1} us/pipeline, ratio {:.4} ({:+.2} %)",
                a / 1e3,
                b / 1e3,
                b / a,
                (b / a - 1.0) * 100.0
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
