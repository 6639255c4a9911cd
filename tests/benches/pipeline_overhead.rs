//! Pipeline-creation overhead of VK_LAYER_POPS_interlock on RADV null hardware.
//!
//! Each run of `pops-vk-scenario bench` creates the interlocked shader corpus's pipelines
//! (vkCreateShaderModule + vkCreateGraphicsPipelines) on two devices of one process — one whose
//! instance enables the layer, one without — alternating pipeline by pipeline, and sums wall and
//! thread-CPU time for each. Several such processes give a median ratio.
//!
//! `cargo bench -p pops-tests --bench pipeline_overhead` (env: POPS_BENCH_RUNS, default 10 (even: half the processes create the
//! layered device first, half second);
//! POPS_BENCH_ITERS, default 5; POPS_BENCH_FAMILY, default navi31).
//!
//! Time on a shared machine is noisy (the A/A control moves by ~1–2 %). The load-independent
//! mode of the same workload counts instructions and estimated cycles under callgrind instead:
//! `scripts/layer-overhead-callgrind.sh` (same env variables; see docs/perf-layer.md).

use pops_tests::*;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// (name, the layer's environment).
type Config = (&'static str, Vec<(&'static str, String)>);

fn main() {
    // `cargo test --benches` runs bench targets without --bench: do nothing then.
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
    let env_num = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let runs = env_num("POPS_BENCH_RUNS", 10);
    let iters = env_num("POPS_BENCH_ITERS", 5);
    let family = std::env::var("POPS_BENCH_FAMILY").unwrap_or_else(|_| "navi31".into());
    let manifests = layer_manifest_dir();
    let dir = pops_testkit::scratch("bench");
    let report = dir.join("bench.jsonl");
    let configs: Vec<Config> = vec![
        (
            "control (A/A: neither device has the layer)",
            vec![("POPS_BENCH_CONTROL", "1".into())],
        ),
        (
            "layer logging at warn",
            vec![("VK_POPS_INTERLOCK_LOG", "warn".into())],
        ),
        (
            "layer writing the JSONL report",
            vec![
                ("VK_POPS_INTERLOCK_LOG", "warn".into()),
                ("VK_POPS_INTERLOCK_REPORT", report.display().to_string()),
            ],
        ),
    ];
    println!(
        "pipeline creation on RADV null hardware ({family}, RADV_DEBUG=nocache), {runs} processes x {iters} passes over the corpus, with/without alternating per pipeline"
    );
    for (name, env) in configs {
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        let mut per_pipeline = (0.0, 0.0);
        for run in 0..runs {
            let mut s = Scenario::new(&bin, "bench", RADV_ICD)
                .env("POPS_BENCH_SWAP", if run % 2 == 1 { "1" } else { "0" })
                .env("RADV_FORCE_FAMILY", &family)
                .env("RADV_DEBUG", "nocache")
                .env("POPS_BENCH_ITERS", iters.to_string())
                .env("VK_ADD_LAYER_PATH", &manifests);
            for (k, v) in &env {
                s = s.env(k, v);
            }
            let out = s.run();
            if !out.status.success() {
                eprintln!("bench run failed: {}", String::from_utf8_lossy(&out.stderr));
                return;
            }
            let Some(v) = json_lines(&out.stdout).pop() else {
                eprintln!("bench run printed nothing");
                return;
            };
            let f = |a: &str, b: &str| v[a][b].as_f64().unwrap_or(f64::NAN);
            wall.push(f("with", "wall_ns") / f("without", "wall_ns"));
            cpu.push(f("with", "cpu_ns") / f("without", "cpu_ns"));
            let n = v["pipelines"].as_f64().unwrap_or(1.0);
            per_pipeline = (f("without", "cpu_ns") / n, f("with", "cpu_ns") / n);
        }
        let (w, c) = (median(&mut wall), median(&mut cpu));
        println!(
            "{name}: thread CPU ratio {c:.4} ({:+.2} %), wall ratio {w:.4} ({:+.2} %); last run {:.0} us -> {:.0} us CPU per pipeline; CPU ratios {:?}",
            (c - 1.0) * 100.0,
            (w - 1.0) * 100.0,
            per_pipeline.0 / 1e3,
            per_pipeline.1 / 1e3,
            cpu.iter().map(|r| format!("{r:.3}")).collect::<Vec<_>>()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
