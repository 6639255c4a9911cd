//! What verifying one new interlocked fragment stage costs: the rules on every path
//! and the ordering model on its entry sequence, for ACO's code of two corpus shaders on GFX9,
//! GFX11 and GFX12, from RADV 25.0.7 and 26.2.6 (`benches/code/`, saved with
//! `pops verify-isa --compile --save-code`). The model runs without the outcomes of earlier
//! programs (`model::run_new`): every iteration is a new entry sequence's cost; the scenes are
//! packed once per process, as in the layer.
//!
//! `cargo bench -p pops-shaders --bench verify`; instruction counts in docs/verify-isa.md.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pm4::Family;
use shaders::isa::Encoding;
use shaders::verify::{self, model};

/// The saved codes: (name, chip, text).
fn codes() -> Vec<(String, Family, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/code");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("benches/code")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .map(|p| {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let chip = ["navi31", "vega10", "gfx1201"]
                .into_iter()
                .find(|c| name.contains(c))
                .and_then(|c| Family::parse_chip_or_level(c).ok())
                .expect("a chip in the file name");
            let text = std::fs::read_to_string(&p).expect("readable");
            (name, chip, text)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn new_stage(c: &mut Criterion) {
    let mut g = c.benchmark_group("verify_new_stage");
    for (name, chip, text) in codes() {
        let level = chip.gfx_level();
        let enc = Encoding::of(level);
        let (_, code) = verify::read(enc, &text).expect("ACO's code reads");
        // The scenes, packed once per process as in the layer.
        let _ = model::run_new(level, &code);
        g.bench_function(format!("rules_and_model/{name}"), |b| {
            b.iter(|| {
                black_box(verify::verify(level, black_box(&code)));
                black_box(model::run_new(level, black_box(&code)).ok());
            })
        });
        g.bench_function(format!("rules/{name}"), |b| {
            b.iter(|| black_box(verify::verify(level, black_box(&code))))
        });
    }
    g.finish();
}

criterion_group!(benches, new_stage);
criterion_main!(benches);
