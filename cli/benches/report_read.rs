//! `pops report` on long reports: throughput and peak memory, schema version 1 and version 2.
//!
//! The reports are generated from a real one — the layer's report of nvpro's OIT sample on an
//! H100 (docs/oit-nvpro-h100/report-excerpt.jsonl: three interlocked pipelines and their draw
//! records, each line repeating its ~4 KB of register JSON):
//! - version 1, as the layer wrote it before version 2: the draw records repeated as further
//!   frames (one line per pipeline per frame, new ids, command buffers alternating);
//! - version 2, as the layer writes it now: each run's states once, its records once and a
//!   `counts` line a second; runs appended to one report until it is as large.
//!
//! Each size is read by the release `pops report` in a child process; the figures are its wall
//! time and its peak resident memory (getrusage of the one child). Sizes: 1/10 of the target and
//! the target (`POPS_BENCH_REPORT_MB`, default 2048): memory must not grow with the report.
//!
//! Run: `cargo bench -p pops-cli --bench report_read` (builds `pops` in release first).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The excerpt's lines, as the layer's report types (which keep the layer's field order).
fn excerpt() -> Vec<pops_report::Record> {
    let path = root().join("docs/oit-nvpro-h100/report-excerpt.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a report line"))
        .collect()
}

fn line(out: &mut impl Write, v: &impl serde::Serialize, written: &mut u64) {
    let t = serde_json::to_string(v).unwrap();
    *written += t.len() as u64 + 1;
    writeln!(out, "{t}").unwrap();
}

/// Version 1: the creation records once, then the draw records frame after frame.
fn write_v1(path: &Path, bytes: u64) {
    let lines = excerpt();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    let mut id = 1000u64;
    for l in lines.iter().filter(|l| l.kind != pops_report::Kind::Draw) {
        line(&mut out, l, &mut written);
    }
    let draws: Vec<&pops_report::Record> = lines
        .iter()
        .filter(|l| l.kind == pops_report::Kind::Draw)
        .collect();
    let mut frame = 0u64;
    while written < bytes {
        for d in &draws {
            let mut d = (*d).clone();
            id += 1;
            d.schema_version = 1;
            d.id = id;
            d.command_buffer = Some(format!("0x55f1c936f{:03x}", 0x290 + (frame % 3) * 0x10));
            line(&mut out, &d, &mut written);
        }
        frame += 1;
    }
}

/// Version 2: runs of the same application appended, each writing its states once, its records
/// once (naming the states) and a `counts` line a second for a minute.
fn write_v2(path: &Path, bytes: u64) {
    let lines = excerpt();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    while written < bytes {
        let mut seen = std::collections::HashSet::new();
        let mut draw_ids = Vec::new();
        for l in &lines {
            let regs = l
                .registers
                .clone()
                .expect("the excerpt's records have registers");
            let id = format!(
                "{:016x}",
                fnv(serde_json::to_string(&regs).unwrap().as_bytes())
            );
            if seen.insert(id.clone()) {
                let st = pops_report::State {
                    schema_version: 2,
                    kind: pops_report::StateKind::State,
                    state: id.clone(),
                    chip: l.chip.clone(),
                    registers: regs,
                    pm4: l.pm4.clone(),
                };
                line(&mut out, &st, &mut written);
            }
            let mut r = l.clone();
            r.schema_version = 2;
            r.registers = None;
            r.pm4 = std::sync::Arc::from(Vec::new());
            r.state = Some(id);
            if r.kind == pops_report::Kind::Draw {
                r.command_buffers = Some(1);
                draw_ids.push(r.id);
            }
            line(&mut out, &r, &mut written);
        }
        for second in 1..=60u64 {
            let c = pops_report::Counts {
                schema_version: 2,
                app: lines[0].app.clone(),
                kind: pops_report::CountsKind::Counts,
                records: draw_ids
                    .iter()
                    .map(|&record| pops_report::Count {
                        record,
                        draws: 1 + 60 * second,
                        command_buffers: 1 + 60 * second,
                    })
                    .collect(),
            };
            line(&mut out, &c, &mut written);
        }
    }
}

/// FNV-1a, for the generated state ids (any stable hash names a state).
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// In a child of its own: runs `pops report FILE`, prints `wall_s maxrss_kib`.
fn measure(pops: &str, file: &str) {
    let t = Instant::now();
    let out = Command::new(pops)
        .args(["report", file])
        .output()
        .expect("pops runs");
    let wall = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "pops report {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    println!("{wall} {}", usage.max_rss());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--measure" {
        return measure(&args[2], &args[3]);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let ok = Command::new(&cargo)
        .current_dir(root())
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "pops-cli",
            "--bin",
            "pops",
        ])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "building pops failed");
    let pops = root().join("target/release/pops");
    let dir = root().join("target/bench-reports");
    std::fs::create_dir_all(&dir).unwrap();
    let mb: u64 = std::env::var("POPS_BENCH_REPORT_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048);
    println!("pops report on generated reports (nvpro OIT on an H100, repeated):");
    println!(
        "{:<8} {:>10} {:>10} {:>9} {:>10} {:>12}",
        "version", "size MB", "lines", "seconds", "MB/s", "peak RSS MB"
    );
    for (version, write) in [
        (1, write_v1 as fn(&Path, u64)),
        (2, write_v2 as fn(&Path, u64)),
    ] {
        for size in [mb / 10, mb] {
            let path = dir.join(format!("v{version}-{size}MB.jsonl"));
            if std::fs::metadata(&path).map_or(true, |m| m.len() < size << 20) {
                write(&path, size << 20);
            }
            let len = std::fs::metadata(&path).unwrap().len();
            let lines = std::fs::read(&path)
                .map(|b| b.iter().filter(|&&c| c == b'\n').count())
                .unwrap_or(0);
            let out = Command::new(&args[0])
                .args(["--measure", pops.to_str().unwrap(), path.to_str().unwrap()])
                .output()
                .expect("the measuring child runs");
            let text = String::from_utf8_lossy(&out.stdout);
            let mut it = text.split_whitespace();
            let wall: f64 = it.next().and_then(|v| v.parse().ok()).expect("wall time");
            let rss_kib: f64 = it.next().and_then(|v| v.parse().ok()).expect("peak RSS");
            let mbytes = len as f64 / (1 << 20) as f64;
            println!(
                "{:<8} {:>10.0} {:>10} {:>9.2} {:>10.0} {:>12.1}",
                version,
                mbytes,
                lines,
                wall,
                mbytes / wall,
                rss_kib / 1024.0
            );
        }
    }
}
