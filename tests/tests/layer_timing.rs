//! The layer's `timing` setting: timestamps bracketing the interlocked draws RADV records,
//! secondaries and suspended render passes left alone, frames as the submissions between presents.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

/// A type-3 packet of a raw PM4 stream: its opcode and dwords (header first). Walked from the
/// packet headers alone (type in bits 31:30, dword count − 2 in bits 29:16, opcode in bits
/// 15:8), independently of pm4's decoder.
fn raw_packets(ib: &[u32]) -> Vec<(u32, &[u32])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ib.len() {
        let h = ib[i];
        if h >> 30 == 3 {
            let n = (((h >> 16) & 0x3fff) + 2) as usize;
            out.push(((h >> 8) & 0xff, &ib[i..(i + n).min(ib.len())]));
            i += n;
        } else {
            i += 1;
        }
    }
    out
}

/// The timing-related packets of a recorded command buffer and its draws, in order, read from
/// the packets' own fields (Mesa's sid.h): `Fill(bytes)` — DMA_DATA with SRC_SEL data (the
/// query reset); `Clock(offset)` — COPY_DATA of the GPU clock (SRC_SEL 9); `Bottom(offset)` —
/// RELEASE_MEM at BOTTOM_OF_PIPE_TS (event 0x28) writing the timestamp (DATA_SEL 3); `Draw` —
/// the DRAW_* opcodes of shared/reference/pm4.json. Offsets are from the first 64-query fill's
/// destination (the layer's first slice); RADV's own timestamps into other memory are left out.
#[derive(Debug, PartialEq)]
enum Stamp {
    Fill(u64),
    Clock(u64),
    Bottom(u64),
    Draw,
}

fn stamps(ib: &[u32]) -> Vec<Stamp> {
    let addr = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi & 0xffff) << 32);
    let packets = raw_packets(ib);
    let base = packets.iter().find_map(|(op, w)| {
        (*op == 0x50 && w.len() >= 7 && (w[1] >> 29) & 3 == 2 && w[6] & 0x3ff_ffff == 64 * 8)
            .then(|| addr(w[4], w[5]))
    });
    let slice = |a: u64| {
        base.filter(|b| (*b..*b + 64 * 8).contains(&a))
            .map(|b| a - b)
    };
    let mut out = Vec::new();
    for (op, w) in packets {
        match op {
            0x50 if w.len() >= 7 && (w[1] >> 29) & 3 == 2 => {
                out.push(Stamp::Fill(u64::from(w[6] & 0x3ff_ffff)))
            }
            // COPY_DATA: control, source (2 dwords), destination (2 dwords).
            0x40 if w.len() >= 6 && w[1] & 0xf == 9 => {
                if let Some(o) = slice(addr(w[4], w[5])) {
                    out.push(Stamp::Clock(o))
                }
            }
            0x49 if w.len() >= 5 && w[1] & 0x3f == 0x28 && w[2] >> 29 == 3 => {
                if let Some(o) = slice(addr(w[3], w[4])) {
                    out.push(Stamp::Bottom(o))
                }
            }
            0x24 | 0x25 | 0x27 | 0x2c | 0x2d | 0x2e | 0x30 | 0x35 | 0x38 => out.push(Stamp::Draw),
            _ => {}
        }
    }
    out
}

/// [`stamps`] without the fills that are not the layer's 64-query slices (RADV's own).
fn layer_stamps(ib: &[u32]) -> Vec<Stamp> {
    stamps(ib)
        .into_iter()
        .filter(|s| !matches!(s, Stamp::Fill(n) if *n != 512))
        .collect()
}

/// With the `timing` setting, the layer's timestamps bracket the interlocked draws in the
/// command buffer RADV really records: the 64-query slice is reset (DMA_DATA fill of 512 bytes)
/// before any timestamp; the GPU clock goes into its first query at the buffer's start; the
/// range's bottom-of-pipe timestamps go into the next queries before the first and after the
/// last of the four draws (one range: one pipeline), and the buffer's end into the next.
/// Without the setting none of these packets is there, and the draw records are the same.
#[test]
fn timing_timestamps_bracket_the_interlocked_draws_radv_records() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    for family in ["vega10", "navi31"] {
        let timed = run_on_oracle_with(&icd, family, "draws", &[("VK_POPS_INTERLOCK_TIMING", "1")]);
        let plain = run_on_oracle(&icd, family, "draws");
        assert!(
            !stamps(&plain.ib).contains(&Fill(512)),
            "{family}: no slice without the setting"
        );
        assert_eq!(
            layer_stamps(&timed.ib),
            [
                Fill(512),
                Clock(0),
                Bottom(8),
                Draw,
                Draw,
                Draw,
                Draw,
                Bottom(16),
                Bottom(24)
            ],
            "{family}"
        );
        // The draw records are what they are without timing.
        let fields = |r: &[Record]| -> Vec<_> {
            r.iter()
                .map(|d| (d.draws, d.samples, d.registers.clone()))
                .collect()
        };
        assert_eq!(fields(&timed.draws), fields(&plain.draws), "{family}");
    }
}

/// A primary with its own interlocked draw, a secondary continuing a render pass instance with
/// two (RADV inlines it), then a draw in a render pass: a range around the primary's draw and
/// one around the render pass's, none inside the secondary's draws (secondaries are not timed;
/// the device's closing log line counts their draw state).
#[test]
fn timing_leaves_secondary_command_buffers_alone() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws-depth",
        &[("VK_POPS_INTERLOCK_TIMING", "1")],
    );
    assert_eq!(
        layer_stamps(&run.ib),
        [
            Fill(512),
            Clock(0),
            Bottom(8),
            Draw,
            Bottom(16),
            Draw,
            Draw,
            Bottom(24),
            Draw,
            Bottom(32),
            Bottom(40)
        ]
    );
}

/// "No action or synchronization commands … are allowed between suspending and resuming render
/// pass instances": a dynamic rendering instance suspended in one command buffer and resumed
/// first thing in the next. The first gets its start before the instance, the range around its
/// draw and its last timestamp inside the instance, before vkCmdEndRendering — nothing after
/// the suspension (its end is that last timestamp: no Bottom(32)); the second gets nothing at
/// all (it never leaves the resumed instance before its end, so its queries could not be
/// reset), its draw counted as not timed.
#[test]
fn timing_records_nothing_between_a_suspension_and_its_resumption() {
    use Stamp::*;
    let Some(icd) = oracle_icd() else { return };
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "suspend",
        &[("VK_POPS_INTERLOCK_TIMING", "1")],
    );
    assert_eq!(run.ibs.len(), 2);
    assert_eq!(
        layer_stamps(&run.ibs[0]),
        [Fill(512), Clock(0), Bottom(8), Draw, Bottom(16), Bottom(24)]
    );
    assert_eq!(layer_stamps(&run.ibs[1]), [Draw]);
}

/// The timing's frames on lavapipe, presenting to a headless surface: an upload, then three
/// frames of one submission and a present each. Frame 0 holds every submission before the
/// first present (two command buffers), frames 1 and 2 one each, all with lavapipe's GPU time;
/// without the setting the layer does not see the presents and writes no timing line.
#[test]
fn timing_frames_are_the_submissions_between_presents_on_lavapipe() {
    if !have_icd(LVP_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("present");
    let report = dir.join("report.jsonl");
    let out = Scenario::new(BIN, "present", LVP_ICD)
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .env("VK_POPS_INTERLOCK_TIMING", "1")
        .run();
    if !check_ok(&out, "present on lavapipe") {
        return;
    }
    assert_eq!(json_lines(&out.stdout)[0]["submissions"], 4);
    let lines = timings(&report);
    let frames: Vec<(u64, u64)> = lines
        .iter()
        .map(|l| {
            assert_eq!(l.scope, pops_report::TimingScope::Frame, "{l:?}");
            (l.index.unwrap(), l.gpu_ns.unwrap())
        })
        .collect();
    assert_eq!(
        frames.iter().map(|f| f.0).collect::<Vec<_>>(),
        [0, 1, 2],
        "{lines:?}"
    );
    assert!(frames.iter().all(|f| f.1 > 0), "{frames:?}");
    let plain = dir.join("plain.jsonl");
    let out = Scenario::new(BIN, "present", LVP_ICD)
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &plain)
        .run();
    assert!(check_ok(&out, "present on lavapipe without timing"));
    assert!(timings(&plain).is_empty());
}
