//! The layer's draw records against what RADV programmed: the command buffers the RADV oracle
//! records on null hardware and the streams RADV submits on the amdgpu shim, with each Mesa, for
//! pipelines, libraries, shader objects, attachment formats, depth and secondaries.
#![allow(clippy::too_many_lines)] // test code: each scenario reads top to bottom as one Vulkan sequence

mod common;

use common::*;

/// Per draw, the layer's `draw` record holds the register state of the draw's real inputs (a
/// dynamic rasterization sample count set in the command buffer), and every field pm4::pops
/// decides agrees with what RADV recorded for that draw, but for pm4::pops::radv's listed
/// differences.
#[test]
fn draw_records_agree_with_radv_command_buffers() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws");
        let shader = run.made["shader"].as_str().unwrap();
        // One record per distinct sample count, in order of first use, with the draw counts.
        let got: Vec<(u64, u64)> = run
            .draws
            .iter()
            .map(|r| (r.samples.map(u64::from).unwrap(), r.draws.unwrap()))
            .collect();
        assert_eq!(got, [(1, 1), (4, 2), (8, 1)], "{family}");
        for r in &run.draws {
            assert_eq!(
                run.made["command_buffer"],
                r.command_buffer.as_deref().unwrap_or_default()
            );
            assert_eq!(run.made["pipeline"], r.handle.as_str());
            assert_eq!(r.bound.map(|b| b.name()), Some("pipeline"));
            // The name the application gave the pipeline with vkSetDebugUtilsObjectNameEXT,
            // and the one it gave the fragment shader module.
            assert_eq!(r.name.as_deref(), Some("oit colour pass"));
            assert_eq!(r.module_name.as_deref(), Some("oit.frag"));
        }
        assert_eq!(run.at.len(), 4, "{family}: RADV recorded 4 draws");
        let mut compared = 0;
        for (k, samples) in [(0usize, 1u32), (1, 4), (3, 8)] {
            // Dynamic rendering without attachments: no colour target.
            let state = pops_state_with(family, shader, samples, 0);
            let rec = run
                .draws
                .iter()
                .find(|r| r.samples == Some(samples))
                .unwrap();
            assert_eq!(
                rec.registers,
                Some(registers_of(&state)),
                "{family} {samples}x"
            );
            compared += agrees_with_radv(&state, &run.at[k], &format!("{family} draw {k}"));
        }
        assert!(compared > 30, "{family}: {compared}");
    }
}

/// Six colour attachments of different formats, two blending with source alpha: the layer's
/// `draw` record gives each target the export format its format and blending call for, and
/// every decided field agrees with the SPI_SHADER_COL_FORMAT (and the rest) RADV recorded for
/// the draw, on chips with and without RB+.
#[test]
fn draw_records_export_each_attachment_format_as_radv_does() {
    use pm4::pops::{self, BlendTarget, ColorFormat};
    let Some(icd) = oracle_icd() else {
        return;
    };
    // What the scenario renders to (its MIXED_TARGETS), and the export format each needs on
    // a chip without RB+ (VEGA10, NAVI10) and with it (NAVI21, NAVI31).
    let targets = [
        (
            "R8G8B8A8_UNORM",
            false,
            "SPI_SHADER_FP16_ABGR",
            "SPI_SHADER_FP16_ABGR",
        ),
        (
            "R16G16B16A16_SFLOAT",
            true,
            "SPI_SHADER_FP16_ABGR",
            "SPI_SHADER_FP16_ABGR",
        ),
        ("R32_UINT", false, "SPI_SHADER_32_R", "SPI_SHADER_32_R"),
        ("R8_UNORM", false, "SPI_SHADER_32_R", "SPI_SHADER_FP16_ABGR"),
        (
            "R16G16B16A16_UNORM",
            true,
            "SPI_SHADER_32_ABGR",
            "SPI_SHADER_32_ABGR",
        ),
        (
            "R32G32_SFLOAT",
            false,
            "SPI_SHADER_32_GR",
            "SPI_SHADER_32_GR",
        ),
    ];
    let db: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/reference/registers/gfx11.json"),
        )
        .expect("the register database in shared/reference"),
    )
    .unwrap();
    let export_formats: std::collections::HashMap<String, u32> = db["enums"]
        ["SPI_SHADER_EX_FORMAT"]["entries"]
        .as_array()
        .expect("SPI_SHADER_EX_FORMAT in the register database")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_u64().unwrap() as u32,
            )
        })
        .collect();
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-formats");
        assert_eq!(run.draws.len(), 1, "{family}: one draw record");
        assert_eq!(run.at.len(), 1, "{family}: RADV recorded one draw");
        let f = pm4::Family::parse(family).unwrap();
        let mut draw = pops::DrawState::default();
        for (i, (format, over, ..)) in targets.iter().enumerate() {
            draw.color_formats[i] = ColorFormat::parse(format).unwrap();
            draw.color_targets[i] = Some(if *over {
                BlendTarget::ALPHA
            } else {
                BlendTarget::OPAQUE
            });
        }
        let desc = pops::InterlockDesc {
            mode: Some(pm4::InterlockMode::new(
                pm4::Granularity::Pixel,
                pm4::Ordering::Ordered,
            )),
            resolves_intrawave: false,
            has_color_output: true,
            writes_memory: false,
            reads_sample_mask: false,
        };
        let state = pops::derive(f, &desc, &draw, &pops::Experiments::default()).unwrap();
        assert_eq!(
            run.draws[0].registers,
            Some(registers_of(&state)),
            "{family}"
        );
        assert!(agrees_with_radv(&state, &run.at[0], family) > 10);
        // RADV's own export formats, read from its command buffer at SPI_SHADER_COL_FORMAT
        // (0x28714, four bits per target) and named by the register database's
        // SPI_SHADER_EX_FORMAT: the expectations above.
        let value = run.at[0].get(&0x28714).copied().unwrap_or(0);
        let rb_plus = matches!(family, "navi21" | "navi31");
        for (i, (format, _, without, with)) in targets.iter().enumerate() {
            let got = (value >> (4 * i)) & 0xf;
            let want = if rb_plus { with } else { without };
            assert_eq!(
                export_formats.get(*want),
                Some(&got),
                "{family} COL{i} ({format}): RADV exports {got}, expected {want}"
            );
        }
    }
}

/// A pipeline linked from graphics pipeline libraries, its fragment output library declaring a
/// 1-sample RGBA16F colour attachment beside 4 rasterization and depth samples
/// (VK_AMD_mixed_attachment_samples): the two draws give one record of the linked pipeline with
/// the libraries' state and the bound attachments, and every decided field agrees with RADV.
#[test]
fn library_draw_records_with_mixed_samples_agree_with_radv() {
    use pm4::pops::{self, BlendTarget, ColorFormat, CompareOp};
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-libraries");
        assert_eq!(run.draws.len(), 1, "{family}: one draw record");
        let rec = &run.draws[0];
        assert_eq!(
            run.made["pipeline"],
            rec.handle.as_str(),
            "{family}: the linked pipeline"
        );
        assert_eq!(
            run.made["command_buffer"],
            rec.command_buffer.as_deref().unwrap_or_default()
        );
        assert_eq!(rec.draws, Some(2));
        assert_eq!(rec.samples, Some(4));
        assert_eq!(run.at.len(), 2, "{family}: RADV recorded two draws");
        let shader = run.made["shader"].as_str().unwrap();
        let mut expected = pops_state_with(family, shader, 4, 1);
        let mut draw = pops::DrawState {
            rasterization_samples: 4,
            depth_stencil_samples: 4,
            ..pops::DrawState::default()
        };
        draw.color_targets = [None; pops::MAX_COLOR_TARGETS];
        draw.color_targets[0] = Some(BlendTarget::OPAQUE);
        draw.color_formats[0] = ColorFormat::parse("R16G16B16A16_SFLOAT").unwrap();
        draw.depth_stencil.depth_test = true;
        draw.depth_stencil.depth_write = true;
        draw.depth_stencil.depth_compare = CompareOp::Less;
        expected = pops::derive(
            expected.family,
            &expected.interlock,
            &draw,
            &pops::Experiments::default(),
        )
        .unwrap();
        assert_eq!(rec.registers, Some(registers_of(&expected)), "{family}");
        for (k, at) in run.at.iter().enumerate() {
            assert!(agrees_with_radv(&expected, at, &format!("{family} draw {k}")) > 10);
        }
    }
}

/// The draw scenarios on each Mesa's stock RADV over the amdgpu kernel-interface shim, every
/// command buffer submitted through libdrm and the kernel's checks: each draw record's decided
/// fields hold what RADV submitted at one of its POPS draws, each POPS draw RADV submitted has
/// its record, and the records count the draws submitted. This is the per-draw check on today's
/// Mesa, whose RADV has no null hardware that records command buffers (the RADV oracle is Mesa
/// 25.0.7); a submission that runs a secondary command buffer through an IB2 (RADV 26 does so
/// even without IB chaining) is not recorded by the shim, and is named, not compared.
#[test]
fn draw_records_agree_with_what_radv_submits_with_each_mesa() {
    if !have_icd(RADV_ICD) {
        return;
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    const SCENARIOS: [&str; 7] = [
        "draws",
        "draws-depth",
        "draws-formats",
        "draws-libraries",
        // A sample count set at draw time for a pipeline linked from libraries
        // that made it dynamic is the draw's.
        "draws-libraries-dynamic",
        "draws-shader-objects",
        "draws-interleaved",
    ];
    for mesa in pops_testkit::mesa::all_or_skip() {
        // GFX12 on today's Mesa only (RADV 25.0.7's GFX12 support is young: the shim's README).
        let gfx12 = pops_testkit::shim::chips_for(&mesa)
            .into_iter()
            .filter(|c| pops_testkit::shim::gfx12_chips().contains(c));
        for chip in ["vega10", "navi10", "navi21", "navi31", "gfx1150"]
            .into_iter()
            .chain(gfx12)
        {
            let level = pm4::Family::parse(chip).unwrap().gfx_level();
            for scenario in SCENARIOS {
                let at = format!("{} {chip} {scenario}", mesa.label());
                let dir = pops_testkit::scratch(&format!("submit-{chip}-{scenario}"));
                let report = dir.join("report.jsonl");
                let cmd = pops_testkit::shim::on(mesa.command(BIN), &shim, chip, &dir);
                let out = Scenario::on(cmd, scenario, RADV_ICD)
                    .with_layers(&[LAYER])
                    .env("RADV_DEBUG", compare::launch::SHIM_RADV_DEBUG)
                    .env("POPS_SCENARIO_SUBMIT", "1")
                    .env("VK_POPS_INTERLOCK_REPORT", &report)
                    .run();
                assert!(check_ok(&out, &at), "{at}");
                let events = pops_testkit::shim::events(&dir);
                assert!(events.is_empty(), "{at}: {events:?}");
                let draws: Vec<Record> = records(&report)
                    .into_iter()
                    .filter(|r| r.kind == Kind::Draw)
                    .collect();
                assert!(!draws.is_empty(), "{at}: no draw record");
                if scenario == "draws-libraries-dynamic" {
                    for r in &draws {
                        assert_eq!(
                            r.samples,
                            Some(4),
                            "{at}: the sample count set at the draw: {r:?}"
                        );
                    }
                }
                let recording = pops_tests::submitted::draws_but_chained(&dir, level);
                let submitted: Vec<_> = recording.draws.iter().filter(|d| d.pops()).collect();
                let chained = !recording.chained.is_empty();
                assert!(
                    !chained || (scenario == "draws-depth" && mesa.major() >= Some(26)),
                    "{at}: only RADV 26's secondary command buffer chains: {:?}",
                    recording.chained
                );
                let recorded: u64 = draws.iter().map(|r| r.draws.unwrap()).sum();
                if !chained {
                    assert_eq!(recorded, submitted.len() as u64, "{at}: draws counted");
                }
                let agree = |r: &Record, d: &pops_tests::submitted::Draw| {
                    pops_tests::submitted::agrees(r, d, level)
                };
                let mut compared = 0;
                for r in &draws {
                    let best = submitted.iter().filter_map(|d| agree(r, d).ok()).max();
                    match best {
                        Some(n) => compared += n,
                        // A record whose draws all ran in the unrecorded secondary (the
                        // primary's own draws, before it, are compared).
                        None if chained => {}
                        None => panic!(
                            "{at}: no submitted draw has the record's fields: {:?}\n{r:?}",
                            submitted
                                .iter()
                                .map(|d| agree(r, d).unwrap_err())
                                .collect::<Vec<_>>()
                        ),
                    }
                }
                for d in &submitted {
                    assert!(
                        draws.iter().any(|r| agree(r, d).is_ok()),
                        "{at}: submission {}'s POPS draw has no record",
                        d.submission
                    );
                }
                assert!(compared > 8, "{at}: {compared} fields compared");
                // `pops lint`'s validator refuses nothing RADV submitted: every IB of the run,
                // checked against the register database's tables of the chip's level.
                let ibs = lint_recorded_ibs(&dir, level, &at);
                assert!(ibs > 0, "{at}: no IB recorded");
                eprintln!(
                    "{at}: {} draw record(s), {} POPS draw(s) submitted, {compared} fields compared{}",
                    draws.len(),
                    submitted.len(),
                    if chained { " (a secondary ran in an unrecorded IB)" } else { "" }
                );
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
}

/// Thousands of repeated draws in three command buffers recorded in alternation, with a plain
/// pipeline bound for some of them: each command buffer's `draw` records count exactly the
/// interlocked draws it made (the layer counts repeated draws without its lock, per command
/// buffer), and the draws RADV recorded are all the draws made.
#[test]
fn draw_counts_survive_interleaved_recording() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    let dir = pops_testkit::scratch("draws-interleaved");
    let report_path = dir.join("report.jsonl");
    let ibs = dir.join("ib");
    std::fs::create_dir_all(&ibs).unwrap();
    let out = Scenario::new(BIN, "draws-interleaved", icd.to_str().unwrap())
        .env("RADV_FORCE_FAMILY", "navi31")
        .env("RADV_DUMP_IB_DIR", &ibs)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .with_layers(&[LAYER])
        .env("VK_POPS_INTERLOCK_REPORT", &report_path)
        .run();
    assert!(check_ok(
        &out,
        "draws-interleaved on the RADV oracle navi31"
    ));
    let made = json_lines(&out.stdout).remove(0);
    // Command buffers recorded with one pipeline and one state add up in one record: the
    // expected draws of each (command buffer, samples) summed per sample count, with the number
    // of command buffers.
    let records = records(&report_path);
    let mut got: Vec<(u64, u64, u64)> = records
        .iter()
        .filter(|r| r.kind == Kind::Draw)
        .map(|r| {
            assert_eq!(made["pipeline"], r.handle.as_str());
            (
                r.samples.map(u64::from).unwrap(),
                r.draws.unwrap(),
                r.command_buffers.unwrap(),
            )
        })
        .collect();
    got.sort();
    let mut expected: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
    for e in made["expected"].as_array().unwrap() {
        let t = expected.entry(e[1].as_u64().unwrap()).or_default();
        t.0 += e[2].as_u64().unwrap();
        t.1 += 1;
    }
    let expected: Vec<(u64, u64, u64)> =
        expected.into_iter().map(|(s, (d, n))| (s, d, n)).collect();
    assert_eq!(got, expected);
    let cbs: Vec<&str> = records
        .iter()
        .filter(|r| r.kind == Kind::Draw)
        .map(|r| r.command_buffer.as_deref().unwrap())
        .collect();
    assert!(
        !cbs.iter().any(|cb| made["c"] == *cb),
        "a command buffer with no interlocked stage bound has no record"
    );
    // RADV recorded every draw of the three command buffers: 900 draw packets.
    let mut packets = 0;
    for e in std::fs::read_dir(&ibs).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("ib-") {
            let d = pm4::decode(pm4::GfxLevel::Gfx11, &pops_tests::read_dwords(&p));
            packets += d
                .packets
                .iter()
                .filter(|p| p.opcode.name().starts_with("DRAW_"))
                .count();
        }
    }
    assert_eq!(packets, 900, "RADV's draw packets in {}", ibs.display());
}

/// A 4-sample depth attachment with depth testing, in the primary command buffer, in a
/// secondary that inherits the render pass instance, and through a render pass and framebuffer:
/// each record has the attachment's samples, and agrees with RADV at each of the four draws.
#[test]
fn draw_records_follow_depth_attachments_and_secondaries() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-depth");
        let shader = run.made["shader"].as_str().unwrap();
        let record = |pipeline: &Value| {
            run.draws
                .iter()
                .find(|r| *pipeline == r.handle.as_str())
                .unwrap_or_else(|| panic!("{family}: no record for {pipeline}"))
        };
        // The primary and the secondary draw with one pipeline and one state: one record adds
        // up both command buffers (named by the first recorded); the render pass pipeline's
        // draw is a record of its own.
        let pipeline = record(&run.made["pipeline"]);
        let render_pass = record(&run.made["render_pass_pipeline"]);
        assert_eq!(run.draws.len(), 2, "{family}");
        assert_eq!(
            [pipeline, render_pass].map(|r| (r.draws, r.command_buffers)),
            [(Some(3), Some(2)), (Some(1), Some(1))]
        );
        assert!(
            [&run.made["primary"], &run.made["secondary"]]
                .iter()
                .any(|cb| **cb == pipeline.command_buffer.as_deref().unwrap_or_default()),
            "{family}: {pipeline:?}"
        );
        assert_eq!(
            run.made["primary"],
            render_pass.command_buffer.as_deref().unwrap_or_default()
        );
        let state = {
            use pm4::pops;
            let sh = shaders::corpus::get(shader).unwrap();
            let info = shaders::spirv::analyze(&sh.words()).unwrap();
            let e = info
                .entry_points
                .iter()
                .find(|e| e.execution_model == shaders::spirv::ExecutionModel::Fragment)
                .unwrap();
            let mut draw = pops::DrawState {
                rasterization_samples: 4,
                depth_stencil_samples: 4,
                sample_shading: e.per_sample,
                color_targets: [None; pops::MAX_COLOR_TARGETS],
                ..pops::DrawState::default()
            };
            draw.depth_stencil.depth_test = true;
            draw.depth_stencil.depth_write = true;
            draw.depth_stencil.depth_compare = pops::CompareOp::Less;
            let desc = pops::InterlockDesc {
                mode: e.interlock,
                resolves_intrawave: false,
                has_color_output: e.has_color_output,
                writes_memory: e.writes_memory,
                reads_sample_mask: e.reads_sample_mask,
            };
            pops::derive(
                pm4::Family::parse(family).unwrap(),
                &desc,
                &draw,
                &Default::default(),
            )
            .unwrap()
        };
        for r in [pipeline, render_pass] {
            assert_eq!(r.registers, Some(registers_of(&state)), "{family}");
        }
        assert_eq!(run.at.len(), 4, "{family}: RADV recorded 4 draws");
        for (k, regs) in run.at.iter().enumerate() {
            agrees_with_radv(&state, regs, &format!("{family} draw {k}"));
        }
    }
}

/// Shader objects, whose whole state is dynamic: one record per sample count set in the command
/// buffer (the defect this tracking fixes: every shader-object record said one sample), equal to
/// pops state for those inputs and to what RADV recorded at each draw.
#[test]
fn shader_object_draw_records_agree_with_radv() {
    let Some(icd) = oracle_icd() else {
        return;
    };
    for family in ["vega10", "navi21", "navi31"] {
        let run = run_on_oracle(&icd, family, "draws-shader-objects");
        let shader = run.made["shader"].as_str().unwrap();
        let got: Vec<(u64, u64)> = run
            .draws
            .iter()
            .map(|r| (r.samples.map(u64::from).unwrap(), r.draws.unwrap()))
            .collect();
        assert_eq!(got, [(1, 1), (4, 2)], "{family}");
        for r in &run.draws {
            assert_eq!(r.bound.map(|b| b.name()), Some("shader_object"));
            assert_eq!(run.made["fragment"], r.handle.as_str());
            assert_eq!(
                run.made["command_buffer"],
                r.command_buffer.as_deref().unwrap_or_default()
            );
        }
        assert_eq!(run.at.len(), 3, "{family}: RADV recorded 3 draws");
        for (k, samples) in [(0usize, 1u32), (1, 4), (2, 4)] {
            let state = pops_state_with(family, shader, samples, 0);
            let rec = run
                .draws
                .iter()
                .find(|r| r.samples == Some(samples))
                .unwrap();
            assert_eq!(
                rec.registers,
                Some(registers_of(&state)),
                "{family} {samples}x"
            );
            agrees_with_radv(&state, &run.at[k], &format!("{family} draw {k}"));
        }
    }
}
