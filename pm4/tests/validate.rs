//! The IB validator against material nobody here wrote, and every state `pm4::pops` can emit
//! against the validator.

mod common;

use pm4::chip::{Family, GfxLevel};
use pm4::pops::{
    derive_assuming, emit, DrawState, Experiments, InterlockDesc, KernelState, MAX_COLOR_TARGETS,
};
use pm4::validate::{validate, LevelTables};
use pm4::InterlockMode;
use std::path::Path;
use std::process::Command;

/// The level a reference stream file speaks for.
fn level_of(file: &str) -> Option<GfxLevel> {
    let chip = file.split('_').next()?;
    if chip == "gfx10" || chip == "gfx103" {
        // libdrm's GFX10 stream serves 10.1 and 10.3.
        return Some(GfxLevel::Gfx10);
    }
    Family::parse_chip_or_level(chip)
        .ok()
        .map(|f| f.gfx_level())
}

fn streams(dir: &Path) -> Vec<(String, GfxLevel, Vec<u32>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".bin") {
            continue;
        }
        let level = level_of(&name).unwrap_or_else(|| panic!("{name}: which level?"));
        out.push((name, level, common::read_dwords(&p)));
    }
    out.sort();
    out
}

/// Every command buffer and preamble RADV recorded, and every libdrm draw stream, passes: the
/// validator refuses nothing a real driver submits.
#[test]
fn every_reference_stream_passes() {
    let mut n = 0;
    for (rel, what) in [
        ("radv/ib", "RADV's recorded command buffers"),
        ("libdrm-draw", "libdrm's draw streams"),
    ] {
        let Some(dir) = common::reference(rel, what) else {
            return;
        };
        for (name, level, dw) in streams(&dir) {
            let r = validate(level, &dw);
            assert!(r.is_ok(), "{name} on {level}: {:#?}", r.violations);
            assert!(r.register_writes > 0, "{name}");
            n += 1;
        }
    }
    // 5 chips × 66 cases + 5 preambles, and 3 libdrm streams (gfx10 serves 10.1 and 10.3).
    assert!(n >= 335, "{n} streams");
    // libdrm's GFX10 stream also passes as GFX10.3, where it is used too.
    let dir = common::reference("libdrm-draw", "libdrm's draw streams").unwrap();
    let dw = common::read_dwords(&dir.join("gfx10_draw_ib.bin"));
    assert!(validate(GfxLevel::Gfx10_3, &dw).is_ok());
}

/// The committed tables are what the generator makes from the reference today.
#[test]
fn tables_match_the_reference() {
    let Some(reference) = common::reference("", "the AMD register database and streams") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = pops_testkit::scratch("validate-tables").join("validate-tables.rs");
    let st = Command::new("python3")
        .arg(root.join("tools/gen-validation-tables.py"))
        .arg("--out")
        .arg(&out)
        .arg(&reference)
        .status()
        .expect("python3");
    assert!(st.success());
    let st = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .arg(&out)
        .status()
        .expect("rustfmt");
    assert!(st.success());
    let fresh = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let committed =
        std::fs::read_to_string(root.join("pm4/src/validate/tables.rs")).expect("tables.rs");
    assert!(
        fresh == committed,
        "pm4/src/validate/tables.rs is stale: run python3 tools/gen-validation-tables.py && cargo fmt"
    );
}

/// `pops state` for every family × interlock mode × sample count × experiment switch × kernel
/// assumption × depth samples × colour targets: every dword the validator accepts.
#[test]
fn every_pops_state_passes() {
    let modes: Vec<Option<InterlockMode>> = std::iter::once(None)
        .chain(
            InterlockMode::ALL
                .into_iter()
                .filter(|m| m.granularity != pm4::Granularity::ShadingRate)
                .map(Some),
        )
        .collect();
    let mut n = 0;
    for f in Family::ALL {
        let level = f.gfx_level();
        for mode in &modes {
            for samples in [1, 2, 4, 8] {
                for depth in [0, samples] {
                    for targets in [0, 1, MAX_COLOR_TARGETS] {
                        for bits in 0..16u32 {
                            let exp = Experiments {
                                force_drain_ps_on_overlap: bits & 1 != 0,
                                exec_if_overlapped: bits & 2 != 0,
                                bin_map_mode_pops: bits & 4 != 0,
                            };
                            let kernel = KernelState {
                                force_vrs_rate_fine_pops: bits & 8 != 0,
                            };
                            let mut draw = DrawState {
                                rasterization_samples: samples,
                                depth_stencil_samples: depth,
                                vrs_in_use: bits & 8 != 0,
                                ..DrawState::default()
                            };
                            let t = draw.color_targets[0];
                            draw.color_targets = [None; MAX_COLOR_TARGETS];
                            for c in draw.color_targets.iter_mut().take(targets) {
                                *c = t;
                            }
                            let st = derive_assuming(
                                *f,
                                &InterlockDesc::with_mode(*mode),
                                &draw,
                                &exp,
                                &kernel,
                            )
                            .unwrap();
                            let r = validate(level, &emit(&st));
                            assert!(r.is_ok(), "{f} {mode:?} {samples}x: {:#?}", r.violations);
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(n > 10_000, "{n}");
}

#[test]
fn every_level_has_tables_from_the_database() {
    for level in GfxLevel::ALL {
        let t = LevelTables::of(level);
        assert!(t.registers.len() > 1500, "{level}");
        assert!(t.database.ends_with(".json"));
    }
}
