//! Nanoseconds per POPS state derivation for a typical draw, and with PM4 emission.
//! Run: cargo bench -p pops-pm4 --bench state

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pm4::pops::{derive, emit, DrawState, Experiments, InterlockDesc};
use pm4::{Family, InterlockMode};

fn bench(c: &mut Criterion) {
    let interlock = InterlockDesc::with_mode(Some(InterlockMode::ALL[2])); // sample-ordered
    let draw = DrawState {
        rasterization_samples: 4,
        ..DrawState::default()
    };
    let exp = Experiments::default();
    for family in [
        Family::Raven,
        Family::Navi10,
        Family::Navi21,
        Family::Navi31,
    ] {
        c.bench_function(&format!("derive/{family}"), |b| {
            b.iter(|| {
                derive(
                    black_box(family),
                    black_box(&interlock),
                    black_box(&draw),
                    &exp,
                )
            })
        });
        c.bench_function(&format!("derive+emit/{family}"), |b| {
            b.iter(|| {
                let st = derive(
                    black_box(family),
                    black_box(&interlock),
                    black_box(&draw),
                    &exp,
                )
                .expect("a valid draw");
                emit(&st)
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
