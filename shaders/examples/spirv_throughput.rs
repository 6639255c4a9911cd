//! Throughput of the SPIR-V analysis over the compiled corpus, by wall clock and by the thread's
//! own CPU time (`/proc/thread-self/schedstat`), which stays meaningful on a machine shared with
//! other builds. The criterion bench (`benches/spirv.rs`) is the reference; this is its
//! load-independent companion.
//!
//! `cargo run --release -p pops-shaders --example spirv_throughput [SECONDS]`

use shaders::corpus;
use shaders::spirv::analyze;
use std::hint::black_box;
use std::time::Instant;

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let modules: Vec<Vec<u32>> = corpus::all().iter().map(|s| s.words()).collect();
    let bytes: usize = modules.iter().map(|m| 4 * m.len()).sum();
    // Warm up.
    for m in &modules {
        black_box(analyze(m).ok());
    }
    let (wall0, cpu0) = (Instant::now(), cpu_ns());
    let mut rounds = 0u64;
    while wall0.elapsed().as_secs_f64() < seconds {
        for _ in 0..100 {
            for m in &modules {
                black_box(analyze(black_box(m)).ok());
            }
        }
        rounds += 100;
    }
    let wall = wall0.elapsed().as_secs_f64();
    let total = rounds as f64 * bytes as f64;
    println!(
        "corpus: {} modules, {bytes} bytes; {rounds} rounds",
        modules.len()
    );
    println!("wall: {:.3} GB/s", total / wall / 1e9);
    match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) if b > a => {
            println!("cpu:  {:.3} GB/s", total / ((b - a) as f64 / 1e9) / 1e9)
        }
        _ => println!("cpu:  unavailable (/proc/thread-self/schedstat)"),
    }
}
