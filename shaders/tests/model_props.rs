//! Property tests of the ordering contract: random primitive streams with thousands of waves and
//! wave-ID wraparounds, both packers, pixel and sample interlock, intrawave collisions — the
//! emitted sequences, interpreted wave by wave in random interleavings, always run overlapping
//! ordered sections in primitive order, never deadlock, and never wait without overlap.

use pm4::{GfxLevel, Granularity};
use proptest::prelude::*;
use shaders::isa::{ordered_section, SectionOptions};
use shaders::model::{generate_stream, simulate, wave_program, Config, Report, StreamShape};

#[allow(clippy::too_many_arguments)]
fn run(
    level: GfxLevel,
    intrawave: bool,
    wave64: bool,
    sample: bool,
    packers: u8,
    seed: u64,
    first_wave_id: u16,
    max_in_flight: usize,
    primitives: usize,
) -> Report {
    let section = SectionOptions {
        intrawave,
        wave64,
        ..SectionOptions::default()
    };
    let program = wave_program(&ordered_section(level, &section).unwrap());
    let mut cfg = Config::new(level, section);
    cfg.granularity = if sample {
        Granularity::Sample
    } else {
        Granularity::Pixel
    };
    cfg.packers = packers;
    cfg.seed = seed;
    cfg.first_wave_id = first_wave_id;
    cfg.max_in_flight = max_in_flight;
    let prims = generate_stream(
        seed,
        StreamShape {
            primitives,
            width: 24,
            height: 16,
            max_side: 5,
            samples: if sample { 4 } else { 1 },
        },
    );
    match simulate(&cfg, &program, &prims) {
        Ok(r) => r,
        Err(e) => panic!("{level} intrawave={intrawave} wave64={wave64} sample={sample} packers={packers} seed={seed}: {e}"),
    }
}

const LEVELS: [GfxLevel; 4] = [
    GfxLevel::Gfx9,
    GfxLevel::Gfx10,
    GfxLevel::Gfx10_3,
    GfxLevel::Gfx11,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// "ordered section ... executed sequentially in rasterization order for different
    /// invocations covering the same pixel position", for every level, wave size, packer count,
    /// granularity and intrawave setting, across wave-ID wraparounds ("consecutive waves are
    /// numbered 1022, 1023, 0, 1…").
    #[test]
    fn overlapping_ordered_sections_run_in_primitive_order(
        level in 0usize..4,
        intrawave in any::<bool>(),
        wave64 in any::<bool>(),
        sample in any::<bool>(),
        packers in 1u8..=4,
        seed in any::<u64>(),
        first_wave_id in 900u16..1024,
        max_in_flight in 1usize..48,
        primitives in 2000usize..3500,
    ) {
        let level = LEVELS[level];
        let gfx11 = level.is_gfx11_plus();
        let wave64 = wave64 || level == GfxLevel::Gfx9;
        let intrawave = intrawave && !gfx11;
        let packers = match level {
            GfxLevel::Gfx9 => packers.min(2),
            _ if gfx11 => 1,
            _ => packers,
        };
        let r = run(level, intrawave, wave64, sample, packers, seed, first_wave_id, max_in_flight, primitives);
        // "The wait must not be performed if the "did overlap" bit 31 is set to 0".
        prop_assert_eq!(r.polls_without_overlap, 0);
        // 2000 or more primitives pack into some 500 waves or more, fewer where intrawave
        // collisions put many quads in one wave (498 seen): enough to wrap from ID 900 or later.
        prop_assert!(r.waves >= 300, "{:?}", r);
        if max_in_flight >= 4 {
            // With one wave in flight nothing can overlap: each wave ends before the next starts.
            prop_assert!(r.overlapped_waves > 0, "{:?}", r);
        }
        if !gfx11 {
            prop_assert!(r.wraps >= 1, "{:?}", r);
            if max_in_flight >= 4 {
                prop_assert!(r.polls > 0, "{:?}", r);
            }
        }
    }
}

/// Thousands of waves and many wraparounds per packer, on every level, with both packers of
/// GFX9 and four on GFX10+.
#[test]
fn thousands_of_waves_through_many_wraparounds() {
    for (level, intrawave, wave64, packers) in [
        (GfxLevel::Gfx9, false, true, 2),
        (GfxLevel::Gfx9, true, true, 2),
        (GfxLevel::Gfx10, false, false, 4),
        (GfxLevel::Gfx10_3, true, false, 2),
        (GfxLevel::Gfx10_3, true, true, 1),
        (GfxLevel::Gfx11, false, true, 1),
    ] {
        let r = run(
            level, intrawave, wave64, false, packers, 42, 1000, 40, 12_000,
        );
        eprintln!("{level} intrawave={intrawave} wave64={wave64} packers={packers}: {r:?}");
        assert!(r.waves >= 3000, "{level}: {r:?}");
        if !level.is_gfx11_plus() {
            assert!(r.wraps >= 2 * packers as usize, "{level}: {r:?}");
        }
        if intrawave {
            assert!(r.intrawave_waves > 100, "{level}: {r:?}");
            assert!(r.bodies > r.waves, "layers ran separately: {r:?}");
        }
        assert_eq!(r.polls_without_overlap, 0);
    }
}

/// "if the bit is 0, it's safe for the wave to skip all of the POPS logic completely": with
/// disjoint primitives nothing overlaps and nothing polls.
#[test]
fn nothing_waits_without_overlap() {
    for level in [GfxLevel::Gfx9, GfxLevel::Gfx10_3] {
        let section = SectionOptions::default();
        let program = wave_program(&ordered_section(level, &section).unwrap());
        let prims: Vec<_> = (0..2000u16)
            .map(|i| shaders::model::Primitive {
                fragments: vec![shaders::model::Fragment {
                    x: (i % 200) * 2,
                    y: (i / 200) * 2,
                    coverage: 1,
                }],
            })
            .collect();
        let r = simulate(&Config::new(level, section), &program, &prims).unwrap();
        assert_eq!(r.overlapped_waves, 0, "{r:?}");
        assert_eq!(r.polls, 0, "{r:?}");
        assert_eq!(r.sleeps, 0, "{r:?}");
    }
}
