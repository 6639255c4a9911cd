//! Encode and decode throughput, in dwords per second, on a realistic draw's state stream: the
//! IB libdrm's amdgpu draw test sends on GFX9 and GFX11 (`shared/reference/libdrm-draw`, ~1000
//! dwords of register state, one draw, padding). The encoder rebuilds that IB packet by packet
//! from register values; the decoder turns it back into packets and register writes.
//!
//! Without `../shared` (or `$POPS_SHARED_DIR`) the benchmark says so and uses an equivalent
//! stream built with the encoder: every register of the level's model, in address order.
//!
//! Run: cargo bench -p pops-pm4 -- --warm-up-time 1 --measurement-time 3

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pm4::{decode, CmdBuf, GfxLevel, Opcode, RegValue};
use std::path::PathBuf;

/// What the encoder is asked to do: one entry per packet of the stream.
enum Step {
    Regs(Vec<RegValue>),
    Raw(Opcode, Vec<u32>),
    NumInstances(u32),
    Draw(u32),
    NopOne,
}

fn reference_stream(file: &str) -> Option<Vec<u32>> {
    let shared = std::env::var_os("POPS_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")));
    let path = shared.join("reference/libdrm-draw").join(file);
    let bytes = std::fs::read(path).ok()?;
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

fn steps_of(level: GfxLevel, dwords: &[u32]) -> Vec<Step> {
    let d = decode(level, dwords);
    assert!(d.is_ok(), "{:?}", d.error);
    d.packets
        .iter()
        .map(|p| {
            let body = dwords[p.index + 1..p.index + p.dwords].to_vec();
            let regs: Option<Vec<RegValue>> = p
                .writes
                .iter()
                .map(|w| RegValue::with_value(level, w.reg()?, w.value).ok())
                .collect();
            match (p.opcode, regs) {
                (Opcode::NOP, _) if p.dwords == 1 => Step::NopOne,
                (Opcode::NUM_INSTANCES, _) => Step::NumInstances(body[0]),
                (Opcode::DRAW_INDEX_AUTO, _) => Step::Draw(body[0]),
                (_, Some(r)) if !r.is_empty() => Step::Regs(r),
                (op, _) => Step::Raw(op, body),
            }
        })
        .collect()
}

fn synthetic_steps(level: GfxLevel) -> Vec<Step> {
    let regs: Vec<RegValue> = level
        .registers()
        .iter()
        .map(|r| RegValue::with_value(level, r.reg, 0x1234_5678 ^ r.address).unwrap())
        .collect();
    vec![Step::Regs(regs), Step::NumInstances(1), Step::Draw(3)]
}

fn encode(cb: &mut CmdBuf, steps: &[Step]) {
    cb.clear();
    for s in steps {
        match s {
            Step::Regs(r) => {
                cb.set_regs(r).unwrap();
            }
            Step::Raw(op, b) => {
                cb.packet(*op, b).unwrap();
            }
            Step::NumInstances(n) => {
                cb.num_instances(*n);
            }
            Step::Draw(n) => {
                cb.draw_index_auto(*n).unwrap();
            }
            Step::NopOne => {
                cb.nop_one_dword();
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    for (level, file) in [
        (GfxLevel::Gfx9, "gfx9_draw_ib.bin"),
        (GfxLevel::Gfx11, "gfx11_draw_ib.bin"),
    ] {
        let (steps, what) = match reference_stream(file) {
            Some(d) => (steps_of(level, &d), "libdrm draw IB"),
            None => {
                eprintln!("SKIPPED: {file} is absent; benchmarking a synthetic stream instead");
                (synthetic_steps(level), "synthetic")
            }
        };
        let mut cb = CmdBuf::new(level);
        encode(&mut cb, &steps);
        let dwords = cb.dwords().to_vec();
        let writes = decode(level, &dwords).writes().count();
        eprintln!(
            "{level} {what}: {} dwords, {} packets, {writes} register writes",
            dwords.len(),
            steps.len()
        );
        let mut g = c.benchmark_group(format!("{level}"));
        g.throughput(Throughput::Elements(dwords.len() as u64));
        g.bench_function("encode", |b| {
            b.iter(|| {
                encode(&mut cb, black_box(&steps));
                black_box(cb.len())
            })
        });
        g.bench_function("decode", |b| {
            b.iter(|| black_box(decode(level, black_box(&dwords))))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
