//! The layer's pixel-to-sample experiment reaches the driver: the interlock RADV compiles and
//! programs changes, in every way a fragment shader is compiled.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

/// The `pixel-to-sample` experiment: the application's pixel-ordered shader reaches RADV as
/// sample-ordered. Every draw record says so (interlock, `experiment` with its change) and holds
/// the registers of sample interlock at the draw's sample count — and RADV, which compiled the
/// rewritten shader, programs exactly those decided fields; without the setting nothing changes.
#[test]
fn pixel_to_sample_experiment_reaches_the_driver() {
    use pm4::pops;
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi31"] {
        let run = run_on_oracle_with(
            &icd,
            family,
            "draws",
            &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
        );
        assert_eq!(run.made["shader"], "pixel_interlock_ordered.frag");
        assert_eq!(run.draws.len(), 3, "{family}");
        let f = pm4::Family::parse(family).unwrap();
        for (k, samples) in [(0usize, 1u32), (1, 4), (3, 8)] {
            let rec = run
                .draws
                .iter()
                .find(|r| r.samples == Some(samples))
                .unwrap();
            assert_eq!(
                rec.interlock.name(),
                "sample-ordered",
                "{family} {samples}x"
            );
            assert_eq!(experiment_name(rec), Some("pixel-to-sample"));
            assert_eq!(experiment_changes(rec), "pixel-ordered -> sample-ordered");
            let desc = pops::InterlockDesc {
                mode: Some(pm4::InterlockMode::new(
                    pm4::Granularity::Sample,
                    pm4::Ordering::Ordered,
                )),
                resolves_intrawave: false,
                has_color_output: true,
                writes_memory: true,
                reads_sample_mask: false,
            };
            let mut draw = pops::DrawState {
                rasterization_samples: samples,
                ..pops::DrawState::default()
            };
            draw.color_targets = [None; pops::MAX_COLOR_TARGETS];
            let base = pops_state_with(family, "pixel_interlock_ordered.frag", samples, 0);
            let state = pops::derive(
                f,
                &pops::InterlockDesc {
                    writes_memory: base.interlock.writes_memory,
                    has_color_output: base.interlock.has_color_output,
                    ..desc
                },
                &pops::DrawState {
                    sample_shading: base.draw.sample_shading,
                    ..draw
                },
                &pops::Experiments::default(),
            )
            .unwrap();
            assert_eq!(
                rec.registers,
                Some(registers_of(&state)),
                "{family} {samples}x"
            );
            agrees_with_radv(
                &state,
                &run.at[k],
                &format!("{family} draw {k} (experiment)"),
            );
        }
    }
}

/// The `no-interlock` experiment: the pipeline reaches the driver without interlock, and its
/// record says what was removed; and an application that enabled pixel interlock only still
/// gets the `pixel-to-sample` experiment (the layer enables sample interlock for it).
#[test]
fn no_interlock_and_pixel_only_applications_reach_the_driver() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    // no-interlock: the pipeline reaches the driver without interlock, and its record (reported
    // although it no longer uses interlock) says what was removed; POPS is off at every draw.
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "no-interlock")],
    );
    let created: Vec<&Record> = run
        .records
        .iter()
        .filter(|r| r.kind == Kind::Pipeline)
        .collect();
    assert_eq!(created.len(), 1, "{:?}", run.records);
    assert_eq!(created[0].interlock.name(), "none");
    assert_eq!(experiment_changes(created[0]), "pixel-ordered -> none");
    // Its draws are still followed (timed and compared as the application's interlocked
    // work), each record saying what was removed.
    assert_eq!(run.draws.len(), 3, "{:?}", run.draws);
    assert!(run
        .draws
        .iter()
        .all(|r| r.interlock.name() == "none" && experiment_changes(r) == "pixel-ordered -> none"));
    // DB_SHADER_CONTROL (0x2880C on GFX11): PRIMITIVE_ORDERED_PIXEL_SHADER (bit 16) clear.
    assert_eq!(run.at.len(), 4, "RADV recorded the four draws");
    assert!(run
        .at
        .iter()
        .all(|regs| regs.get(&0x2880C).copied().unwrap_or(0) & (1 << 16) == 0));
    // An application that enabled pixel interlock only: the layer enables sample interlock in a
    // copy of its device create info, and the experiment runs (no refusal).
    let run = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[
            ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
            ("POPS_SCENARIO_PIXEL_INTERLOCK_ONLY", "1"),
        ],
    );
    assert!(
        run.draws
            .iter()
            .all(|r| r.interlock.name() == "sample-ordered"),
        "{:?}",
        run.draws
    );
}

/// The experiment limited by targets: the stage hash, or the application's name of the
/// fragment module, selects the shader; another name changes nothing. Without the setting the
/// application's own pixel interlock stays.
#[test]
fn the_experiment_reaches_only_its_targets() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    // Without the setting: the application's own pixel interlock.
    let plain = run_on_oracle(&icd, "navi31", "draws");
    assert!(plain
        .draws
        .iter()
        .all(|r| r.interlock.name() == "pixel-ordered" && r.experiment.is_none()));
    // Limited by targets: the stage hash (in any case), or the application's name of the
    // fragment module ("oit.frag", given after the module's creation and before the
    // pipeline's): RADV then programs at the 8-sample draw the DB_SHADER_CONTROL of the
    // experiment run on every shader, not the application's; another name changes nothing.
    let all = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
    );
    let dsc = |r: &OracleRun| r.at[3].get(&0x2880C).copied().unwrap_or(0);
    assert_ne!(
        dsc(&all),
        dsc(&plain),
        "8 samples: sample and pixel interlock differ"
    );
    let hash = plain.draws[0]
        .stage_hash
        .as_deref()
        .unwrap()
        .to_ascii_uppercase();
    for target in [hash.as_str(), "oit.frag"] {
        let run = run_on_oracle_with(
            &icd,
            "navi31",
            "draws",
            &[
                ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
                ("VK_POPS_INTERLOCK_EXPERIMENT_TARGETS", target),
            ],
        );
        assert!(
            run.draws
                .iter()
                .all(|r| r.interlock.name() == "sample-ordered"
                    && experiment_name(r) == Some("pixel-to-sample")
                    && r.module_name.as_deref() == Some("oit.frag")),
            "{target}: {:?}",
            run.draws
        );
        assert_eq!(dsc(&run), dsc(&all), "{target}");
    }
    let other = run_on_oracle_with(
        &icd,
        "navi31",
        "draws",
        &[
            ("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample"),
            (
                "VK_POPS_INTERLOCK_EXPERIMENT_TARGETS",
                "other.frag,0123456789abcdef",
            ),
        ],
    );
    assert!(other
        .draws
        .iter()
        .all(|r| r.interlock.name() == "pixel-ordered" && r.experiment.is_none()));
    assert_eq!(dsc(&other), dsc(&plain));
}

/// The `pixel-to-sample` experiment on shader objects: the SPIR-V fragment shader object goes
/// down rewritten; its draw records say so, and RADV programs the sample-interlock fields.
#[test]
fn pixel_to_sample_experiment_reaches_the_driver_through_shader_objects() {
    use pm4::pops;
    let Some(icd) = oracle_icd() else {
        return;
    };
    let family = "navi31";
    let run = run_on_oracle_with(
        &icd,
        family,
        "draws-shader-objects",
        &[("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")],
    );
    assert_eq!(run.made["shader"], "pixel_interlock_ordered.frag");
    assert_eq!(run.draws.len(), 2);
    for (k, samples) in [(0usize, 1u32), (1, 4), (2, 4)] {
        let rec = run
            .draws
            .iter()
            .find(|r| r.samples == Some(samples))
            .unwrap();
        assert_eq!(rec.bound.map(|b| b.name()), Some("shader_object"));
        assert_eq!(rec.interlock.name(), "sample-ordered", "{samples}x");
        assert_eq!(experiment_name(rec), Some("pixel-to-sample"));
        let base = pops_state_with(family, "pixel_interlock_ordered.frag", samples, 0);
        let state = pops::derive(
            base.family,
            &pops::InterlockDesc {
                mode: Some(pm4::InterlockMode::new(
                    pm4::Granularity::Sample,
                    pm4::Ordering::Ordered,
                )),
                ..base.interlock
            },
            &base.draw,
            &pops::Experiments::default(),
        )
        .unwrap();
        assert_eq!(rec.registers, Some(registers_of(&state)), "{samples}x");
        agrees_with_radv(
            &state,
            &run.at[k],
            &format!("{family} draw {k} (shader object)"),
        );
    }
}

/// The `pixel-to-sample` experiment on every way of delivering fragment SPIR-V: shader modules,
/// SPIR-V chained inline to the stage, graphics pipeline libraries and shader objects go down
/// as sample interlock and their records say so; a module identifier's SPIR-V is not visible
/// and is left alone.
#[test]
fn pixel_to_sample_experiment_reaches_every_way() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let dir = pops_testkit::scratch("experiment-ways");
    let report_path = dir.join("report.jsonl");
    let out = radv("pipelines", "navi31")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path)
        .env("VK_POPS_INTERLOCK_EXPERIMENT", "pixel-to-sample")
        .env("POPS_SCENARIO_SHADERS", "pixel_interlock_ordered.frag:4")
        .run();
    if !check_ok(&out, "pipelines on RADV navi31 with an experiment") {
        return;
    }
    let made = made(&out);
    let report = records(&report_path);
    let mut seen = std::collections::BTreeSet::new();
    for (m, r) in pair(&made, &report) {
        let way = m["way"].as_str().unwrap();
        if way == "identifier" {
            // Left alone, and the record says why.
            assert!(r.experiment.is_none(), "{m} -> {r:?}");
            assert!(codes(r).contains(&"experiment-not-applied"), "{m} -> {r:?}");
            seen.insert(way.to_string());
            continue;
        }
        assert_eq!(r.interlock.name(), "sample-ordered", "{m} -> {r:?}");
        assert_eq!(experiment_name(r), Some("pixel-to-sample"), "{m} -> {r:?}");
        seen.insert(way.to_string());
    }
    for way in ["module", "inline", "gpl", "shader_object", "identifier"] {
        assert!(seen.contains(way), "{way}: {seen:?}");
    }
}
