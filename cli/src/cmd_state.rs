//! `pops state`: the registers, PM4, device features and diagnostics a driver needs for a POPS
//! draw on one chip, from `pm4::pops::derive`.
//!
//! Exit status: 0, or 1 when the input is refused (unknown chip, unsupported sample count,
//! shading-rate interlock) or when the derived state carries an error diagnostic (a state that
//! cannot be programmed correctly); the state is still printed in the latter case.

use clap::builder::TypedValueParser;
use pm4::pops::{
    self, BlendOp, BlendTarget, CompareOp, DrawState, Experiments, InterlockDesc, KernelState,
    PopsState, RasterizationOrder, MAX_COLOR_TARGETS,
};
use pm4::{Family, InterlockMode};
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BlendPreset {
    /// No blending.
    None,
    /// src * As + dst * (1 - As).
    Alpha,
    /// src + dst.
    Add,
    /// min(src, dst).
    Min,
    /// max(src, dst).
    Max,
}

/// `--depth-compare`'s parser: the names of [`CompareOp::ALL`], listed in `--help` and in the
/// error for a wrong one.
fn compare_parser() -> impl TypedValueParser<Value = CompareOp> {
    clap::builder::PossibleValuesParser::new(CompareOp::ALL.map(CompareOp::name))
        .try_map(|name| CompareOp::from_name(&name).ok_or(format!("unknown compare op '{name}'")))
}

/// `--color-formats`' parser: Vulkan format names, refused with the list of known ones.
fn color_format_parser() -> impl TypedValueParser<Value = pops::ColorFormat> {
    clap::builder::StringValueParser::new().try_map(|name| {
        pops::ColorFormat::parse(&name).map_err(|e| {
            let known: Vec<&str> = pops::color::ALL.iter().map(|f| f.name()).collect();
            format!("{e}; known: {}", known.join(", "))
        })
    })
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Chip: family (raven, navi31…), LLVM processor (gfx1030…) or level (gfx9, gfx10.3…).
    #[arg(long)]
    chip: String,
    /// Interlock: none, pixel-ordered, pixel-unordered, sample-ordered, sample-unordered,
    /// shading-rate-ordered, shading-rate-unordered.
    #[arg(long)]
    interlock: String,
    /// Rasterization samples: 1, 2, 4 or 8.
    #[arg(long, default_value_t = 1)]
    samples: u32,
    /// Colour attachment samples when they differ from the rasterization samples
    /// (VK_AMD_mixed_attachment_samples): 1, 2, 4 or 8, at most --samples. Default: --samples.
    #[arg(long, value_name = "N")]
    color_samples: Option<u32>,
    /// Sample-rate shading: sampleShadingEnable with minSampleShading 1.0.
    #[arg(long)]
    sample_shading: bool,
    /// Depth/stencil attachment samples (0 = no attachment).
    #[arg(long, default_value_t = 0)]
    depth_samples: u32,
    /// The shader resolves intrawave collisions (GFX9–10.3).
    #[arg(long)]
    intrawave: bool,
    /// The shader writes no colour output.
    #[arg(long)]
    no_color_output: bool,
    /// The shader does not store to memory (interlock used for reads only).
    #[arg(long)]
    no_memory_writes: bool,
    /// The shader reads its coverage mask (gl_SampleMaskIn): GFX10.3+ keep the rate at 1x1.
    #[arg(long)]
    reads_sample_mask: bool,
    /// Number of colour attachments (0–8), all with the --blend state.
    #[arg(long, default_value_t = 1)]
    targets: usize,
    /// Blend state of the colour attachments.
    #[arg(long, value_enum, default_value_t = BlendPreset::None)]
    blend: BlendPreset,
    /// Colour attachment formats by location, as Vulkan names them (R8G8B8A8_UNORM,
    /// R16G16B16A16_SFLOAT, R32_UINT…), comma-separated; the last one repeats for the remaining
    /// targets. Each target's export format follows its format and blending. Default:
    /// R8G8B8A8_UNORM.
    #[arg(long, value_name = "FORMAT,…", value_delimiter = ',', value_parser = color_format_parser())]
    color_formats: Vec<pops::ColorFormat>,
    /// Enable the depth test (needs --depth-samples).
    #[arg(long)]
    depth_test: bool,
    /// Enable depth writes.
    #[arg(long)]
    depth_write: bool,
    /// Depth compare op.
    #[arg(long, value_parser = compare_parser(), default_value = CompareOp::Less.name())]
    depth_compare: CompareOp,
    /// The depth/stencil format has stencil, and the stencil test is on (ops KEEP).
    #[arg(long)]
    stencil: bool,
    /// Relaxed rasterization order (VK_AMD_rasterization_order).
    #[arg(long)]
    relaxed_order: bool,
    /// A non-1x1 shading rate may be used.
    #[arg(long)]
    vrs: bool,
    /// Treat additive blending as commutative (radeonsi_commutative_blend_add).
    #[arg(long)]
    allow_commutative_add: bool,
    /// Assume no depth fights (radeonsi_assume_no_z_fights).
    #[arg(long)]
    assume_no_z_fights: bool,
    /// Experiment: force DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP (GFX9–10.3).
    #[arg(long)]
    force_drain: bool,
    /// Experiment: DB_SHADER_CONTROL.EXEC_IF_OVERLAPPED (GFX9–10.3).
    #[arg(long)]
    exec_if_overlapped: bool,
    /// Experiment: PA_SC_BINNER_CNTL_0.BIN_MAPPING_MODE = BIN_MAP_MODE_POPS (GFX10+).
    #[arg(long)]
    bin_map_pops: bool,
    /// Assume the kernel sets PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS (GFX11+).
    /// That register is kernel-owned (amdgpu programs it through its golden settings, outside the
    /// context space a userspace IB can write), so no register write changes: what changes is
    /// that POPS then forces 1x1 shading, fragmentShadingRateWithFragmentShaderInterlock becomes
    /// false, and coarse-rate draws get the pops-forces-vrs-1x1 diagnostic.
    #[arg(long)]
    force_vrs_fine_pops: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The input the derivation needs, or why the arguments are refused.
struct Input {
    family: Family,
    mode: Option<InterlockMode>,
    interlock: InterlockDesc,
    draw: DrawState,
    exp: Experiments,
    kernel: KernelState,
}

/// Options that describe no draw.
#[derive(Debug, thiserror::Error)]
enum InputError {
    #[error(transparent)]
    Chip(#[from] pm4::ChipError),
    #[error(transparent)]
    Interlock(#[from] pm4::UnknownInterlockMode),
    #[error("--targets {0}: at most {MAX_COLOR_TARGETS} colour attachments")]
    Targets(usize),
    #[error("--color-formats: {0} formats, at most {MAX_COLOR_TARGETS}")]
    ColorFormats(usize),
    #[error("--depth-test needs a depth/stencil attachment: give its sample count with --depth-samples N")]
    DepthTestWithoutAttachment,
}

fn input(a: &Args) -> Result<Input, InputError> {
    let family = Family::parse_chip_or_level(&a.chip)?;
    let mode = InterlockMode::parse_optional(&a.interlock)?;
    if a.targets > MAX_COLOR_TARGETS {
        return Err(InputError::Targets(a.targets));
    }
    // The depth test needs a depth attachment, as the option's help says.
    if a.depth_test && a.depth_samples == 0 {
        return Err(InputError::DepthTestWithoutAttachment);
    }
    let target = match a.blend {
        BlendPreset::None => BlendTarget::OPAQUE,
        BlendPreset::Alpha => BlendTarget::ALPHA,
        BlendPreset::Add => BlendTarget::one_one(BlendOp::Add),
        BlendPreset::Min => BlendTarget::one_one(BlendOp::Min),
        BlendPreset::Max => BlendTarget::one_one(BlendOp::Max),
    };
    let mut draw = DrawState {
        rasterization_samples: a.samples,
        depth_stencil_samples: a.depth_samples,
        color_samples: a.color_samples.filter(|c| *c != a.samples).unwrap_or(0),
        sample_shading: a.sample_shading,
        color_targets: [None; MAX_COLOR_TARGETS],
        rasterization_order: if a.relaxed_order {
            RasterizationOrder::Relaxed
        } else {
            RasterizationOrder::Strict
        },
        vrs_in_use: a.vrs,
        allow_commutative_additive_blend: a.allow_commutative_add,
        assume_no_z_fights: a.assume_no_z_fights,
        ..DrawState::default()
    };
    for t in draw.color_targets.iter_mut().take(a.targets) {
        *t = Some(target);
    }
    if a.color_formats.len() > MAX_COLOR_TARGETS {
        return Err(InputError::ColorFormats(a.color_formats.len()));
    }
    if let Some(last) = a.color_formats.last() {
        for (i, f) in draw.color_formats.iter_mut().enumerate() {
            *f = *a.color_formats.get(i).unwrap_or(last);
        }
    }
    draw.depth_stencil.depth_test = a.depth_test;
    draw.depth_stencil.depth_write = a.depth_write;
    draw.depth_stencil.depth_compare = a.depth_compare;
    draw.depth_stencil.has_stencil = a.stencil;
    draw.depth_stencil.stencil_test = a.stencil;
    Ok(Input {
        family,
        mode,
        interlock: InterlockDesc {
            mode,
            resolves_intrawave: a.intrawave,
            has_color_output: !a.no_color_output,
            writes_memory: !a.no_memory_writes,
            reads_sample_mask: a.reads_sample_mask,
        },
        draw,
        exp: Experiments {
            force_drain_ps_on_overlap: a.force_drain,
            exec_if_overlapped: a.exec_if_overlapped,
            bin_map_mode_pops: a.bin_map_pops,
        },
        kernel: KernelState {
            force_vrs_rate_fine_pops: a.force_vrs_fine_pops,
        },
    })
}

fn mode_name(mode: Option<InterlockMode>) -> &'static str {
    mode.map_or("none", InterlockMode::name)
}

fn print_text(st: &PopsState, pm4: &[u32]) {
    let samples = st.draw.rasterization_samples;
    println!(
        "{} ({}), interlock {}, {} sample{}",
        st.family,
        st.level,
        mode_name(st.interlock.mode),
        samples,
        if samples == 1 { "" } else { "s" }
    );
    println!();
    for r in &st.registers {
        let space = r.desc.space().map_or("?", |s| s.name());
        println!(
            "{} @ {:#07x} ({space}) = {:#010x}",
            r.desc.name(),
            r.desc.address,
            r.value
        );
        for (f, v) in r.fields() {
            match st.reason(r.reg(), f) {
                Some(why) => println!("    {:<40} {:>3}  <- {why}", f.name(), v),
                None => println!("    {:<40} {:>3}", f.name(), v),
            }
        }
    }
    println!();
    let f = st.features;
    println!("features:");
    println!(
        "    fragmentShaderPixelInterlock                    {}",
        f.fragment_shader_pixel_interlock
    );
    println!(
        "    fragmentShaderSampleInterlock                   {}",
        f.fragment_shader_sample_interlock
    );
    println!(
        "    fragmentShaderShadingRateInterlock              {}",
        f.fragment_shader_shading_rate_interlock
    );
    println!(
        "    fragmentShadingRateWithFragmentShaderInterlock  {}",
        f.fragment_shading_rate_with_fragment_shader_interlock
    );
    if st.kernel.force_vrs_rate_fine_pops {
        println!();
        println!(
            "kernel-owned state assumed (not written by this stream; userspace cannot set it):"
        );
        println!(
            "    PA_SC_VRS_SURFACE_CNTL_1.FORCE_SC_VRS_RATE_FINE_POPS = 1  <- POPS forces 1x1 shading{}",
            if st.level.is_gfx11_plus() {
                ""
            } else {
                " (the register exists on GFX11+ only: ignored here)"
            }
        );
    }
    println!();
    if st.diagnostics.is_empty() {
        println!("diagnostics: none");
    } else {
        println!("diagnostics:");
        for d in &st.diagnostics {
            println!("    {:<7} [{}] {}", d.severity.name(), d.code, d.message);
        }
    }
    println!();
    println!("pm4 ({} dwords):", pm4.len());
    for chunk in pm4.chunks(8) {
        let words: Vec<String> = chunk.iter().map(|w| format!("{w:08x}")).collect();
        println!("    {}", words.join(" "));
    }
}

pub fn run(args: Args) -> ExitCode {
    let inp = match input(&args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("pops state: {e}");
            return ExitCode::FAILURE;
        }
    };
    let st =
        match pops::derive_assuming(inp.family, &inp.interlock, &inp.draw, &inp.exp, &inp.kernel) {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "pops state: {} ({}), interlock {}: {e}",
                    inp.family,
                    inp.family.gfx_level(),
                    mode_name(inp.mode)
                );
                return ExitCode::FAILURE;
            }
        };
    let stream = pops::emit(&st);
    if args.json {
        // The register shape the layer records (pops_report::Register), in pops_report::StateDocument.
        match serde_json::to_string(&pops_report::StateDocument::from_state(&st, stream)) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("pops state: cannot write the JSON document: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print_text(&st, &stream);
    }
    if st.has_errors() {
        for d in st
            .diagnostics
            .iter()
            .filter(|d| d.severity == pops::Severity::Error)
        {
            eprintln!("pops state: error [{}]: {}", d.code, d.message);
        }
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
