//! SPIR-V analysis throughput on the compiled test corpus (goal: at least 1 GB/s).
//!
//! `cargo bench -p pops-shaders --bench spirv`; figures are recorded in docs/perf-spirv.md.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shaders::corpus;
use shaders::spirv::module::Instructions;
use shaders::spirv::{analyze, analyze_bytes};

fn corpus_throughput(c: &mut Criterion) {
    let modules: Vec<Vec<u32>> = corpus::all().iter().map(|s| s.words()).collect();
    let bytes: u64 = modules.iter().map(|m| 4 * m.len() as u64).sum();
    let mut g = c.benchmark_group("spirv_analyze");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("corpus_words", |b| {
        b.iter(|| {
            for m in &modules {
                black_box(analyze(black_box(m)).ok());
            }
        })
    });
    // Baseline: only walking the instruction stream, to show what the analysis adds to it.
    g.bench_function("corpus_scan_only", |b| {
        b.iter(|| {
            for m in &modules {
                let mut n = 0u32;
                for i in Instructions::new(black_box(m)).flatten() {
                    n = n.wrapping_add(u32::from(i.op.0));
                }
                black_box(n);
            }
        })
    });
    let swapped: Vec<Vec<u32>> = modules
        .iter()
        .map(|m| m.iter().map(|w| w.swap_bytes()).collect())
        .collect();
    g.bench_function("corpus_words_byte_swapped", |b| {
        b.iter(|| {
            for m in &swapped {
                black_box(analyze(black_box(m)).ok());
            }
        })
    });
    g.bench_function("corpus_bytes", |b| {
        b.iter(|| {
            for s in corpus::all() {
                black_box(analyze_bytes(black_box(s.spirv)).ok());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, corpus_throughput);
criterion_main!(benches);
