//! The work VK_LAYER_POPS_interlock adds per shader module and per pipeline, without the driver:
//! SPIR-V analysis at vkCreateShaderModule, reading the create info, and building the report
//! record (POPS state, PM4, diagnostics, JSON line) at vkCreateGraphicsPipelines.
//!
//! `cargo bench -p pops-layer --bench per_pipeline`

use ash::vk;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pm4::Family;
use pops_report::{Kind, Source};
use VkLayer_pops_interlock::model::analysis::{self, InterlockFeatures};
use VkLayer_pops_interlock::model::capture::{self, CapturedState, Samples};
use VkLayer_pops_interlock::model::record::{build_record, Subject};

fn bench(c: &mut Criterion) {
    let sh = shaders::corpus::get("oit_interlock.frag").expect("corpus shader");
    let words = sh.words();
    c.bench_function(
        "first fragment use of a module: analyse oit_interlock.frag",
        |b| b.iter(|| analysis::analyze_module(black_box(&words))),
    );

    let stages = [vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::FRAGMENT)
        .module(vk::Handle::from_raw(0x1000))
        .name(c"main")];
    let ms = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_8);
    let att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let ds = vk::PipelineDepthStencilStateCreateInfo::default().depth_test_enable(true);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .multisample_state(&ms)
        .color_blend_state(&cb)
        .depth_stencil_state(&ds)
        .render_pass(vk::Handle::from_raw(0x77));
    // The subpass uses a colour and a depth/stencil attachment, so every state above is read.
    let subpass = |_: vk::RenderPass, _: u32| {
        Some(capture::AttachmentUse {
            depth_stencil: true,
            color: true,
            ..capture::AttachmentUse::UNKNOWN
        })
    };
    c.bench_function("vkCreateGraphicsPipelines: read the create info", |b| {
        // SAFETY: a well-formed create info built above.
        b.iter(|| unsafe {
            VkLayer_pops_interlock::vk::capture::capture(black_box(&info), subpass)
        })
    });

    let analysis = analysis::analyze_module(&words);
    let entry = analysis::fragment_entry(&analysis, "main").expect("entry");
    let draw = CapturedState {
        samples: Some(Samples::Static(8)),
        ..Default::default()
    };
    for family in [Family::Vega10, Family::Navi31] {
        let subject = Subject {
            stage_hash: None,
            null_device: None,
            app: "bench",
            device: "Null hardware (RADV)",
            driver: None,
            kind: Kind::Pipeline,
            handle: 0x1234,
            source: Source::ShaderModule,
            chip: Some(family),
            features: InterlockFeatures {
                pixel: true,
                sample: true,
                shading_rate: false,
            },
        };
        c.bench_function(
            &format!(
                "vkCreateGraphicsPipelines: record + JSON line ({})",
                family.name()
            ),
            |b| {
                b.iter(|| {
                    let r = build_record(&subject, "main", Ok(entry), black_box(&draw));
                    VkLayer_pops_interlock::report::to_line(&r)
                })
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
