//! `pops-oit`: a headless order-independent-transparency renderer after nvpro-samples'
//! vk_order_independent_transparency, to run real interlocked pipelines (through the pops layer,
//! say) and check every image against a CPU reference.
//!
//! Modules: [`device`] (instance, device choice), [`resources`] (buffers, images),
//! [`pipelines`] (shaders, layouts, pipelines), [`scene`] (the triangles), [`render`] (one
//! combination's frames), [`mod@reference`] (CPU sorted blending and tolerance), [`image_out`] (PNG),
//! [`matrix`] (combinations and the result table), [`config`] (algorithms and AA modes).

mod config;
mod device;
mod image_out;
mod matrix;
mod pipelines;
mod race;
mod reference;
mod render;
mod resources;
mod scene;
mod submission;

use clap::Parser;
use config::{Aa, Algorithm, Combo};
use device::Gpu;
use matrix::{Outcome, RunOptions};

/// The exit status when combinations were submitted and completed without any shader output.
const NO_SHADER_OUTPUT_EXIT: u8 = 3;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pops-oit",
    version,
    about = "Headless order-independent transparency (interlock A-buffer, linked list), checked against a CPU reference"
)]
struct Args {
    /// Run every algorithm × anti-aliasing combination and print a pass/fail table.
    #[arg(long)]
    matrix: bool,
    /// interlock-pixel-ordered, interlock-pixel-unordered, interlock-sample-ordered,
    /// interlock-sample-unordered or linkedlist [default: the first interlock mode the device
    /// has, else linkedlist].
    #[arg(long)]
    algorithm: Option<String>,
    /// noaa, msaa4, msaa8 (pixel-rate shading with coverage) or ssaa4 (4× sample shading).
    #[arg(long, default_value = "noaa")]
    aa: String,
    /// Viewport width [default: 800; with --race 32].
    #[arg(long)]
    width: Option<u32>,
    /// Viewport height [default: 512; with --race 32].
    #[arg(long)]
    height: Option<u32>,
    /// Transparent triangles in the scene.
    #[arg(long, default_value_t = 600)]
    triangles: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Frames to render per combination; timing statistics cover all of them.
    #[arg(long, default_value_t = 1)]
    frames: u32,
    /// Vulkan device index (see --probe) [default: first with interlock, else first usable].
    #[arg(long)]
    device: Option<usize>,
    /// PNG to write (single run), or folder for one PNG per combination (--matrix); without it
    /// no image is written.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Create every pipeline but submit nothing: for devices that cannot execute, such as
    /// RADV's null hardware (implied when RADV_FORCE_FAMILY or POPS_NULL_DEVICE is set).
    #[arg(long, alias = "no-render")]
    create_only: bool,
    /// List the Vulkan devices and what they support, then exit.
    #[arg(long)]
    probe: bool,
    /// Enable VK_LAYER_KHRONOS_validation.
    #[arg(long)]
    validate: bool,
    /// Set each pipeline's rasterization sample count at draw time
    /// (VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT, VK_EXT_extended_dynamic_state3), as
    /// engines and translation layers do.
    #[arg(long)]
    dynamic: bool,
    /// Set each pipeline's colour blend enable, equation and write mask at draw time
    /// (VK_EXT_extended_dynamic_state3), as engines and translation layers do: RADV then compiles
    /// the fragment shader's exports into a PS epilog.
    #[arg(long)]
    dynamic_blend: bool,
    /// Link each pipeline from graphics pipeline libraries (vertex input, pre-rasterization,
    /// fragment shader, fragment output) without link-time optimisation, as DXVK, vkd3d-proton
    /// and Zink do first: RADV then compiles the fragment shader's exports into a PS epilog.
    #[arg(long, conflicts_with = "shader_objects")]
    libraries: bool,
    /// Draw with shader objects (VK_EXT_shader_object) instead of pipelines, every state set in
    /// the command buffer, rasterization samples included. Sample-rate shading (SSAA) needs a
    /// pipeline's minSampleShading, so those combinations are unsupported here.
    #[arg(long)]
    shader_objects: bool,
    /// The race test instead of OIT: --primitives primitives, each covering the whole
    /// --width x --height viewport, read-modify-write a per-pixel (per-sample) counter and last
    /// primitive in the interlock's critical section; every interlock mode, anti-aliasing mode
    /// and storage (buffer, image), and a control without interlock, in this compile mode.
    #[arg(long, conflicts_with_all = ["matrix", "algorithm"])]
    race: bool,
    /// Primitives per race draw (each covers the whole viewport): the default makes ~10⁸
    /// executions of the critical section per combination at the race's 32x32. The viewport is
    /// small so that one pixel's fragments of successive primitives are in flight together: over
    /// a large one a GPU finishes each pixel's fragment long before the next primitive reaches
    /// it, and even the control shows no race (measured on an H200 at 128x128, docs/race.md).
    #[arg(long, default_value_t = 100_000)]
    primitives: u32,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("pops-oit: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Why pops-oit could not run what it was asked.
#[derive(Debug, thiserror::Error)]
enum OitError {
    #[error(transparent)]
    Device(#[from] device::DeviceError),
    #[error("{option}: device '{device}' lacks {what}")]
    Lacks {
        option: &'static str,
        device: String,
        what: &'static str,
    },
    #[error("--width/--height {width}x{height}: each must be 1..=16384")]
    Size { width: u32, height: u32 },
    #[error("--aa '{0}': expected noaa, msaa4, msaa8 or ssaa4")]
    Aa(String),
    #[error("--algorithm '{given}': expected one of {}", Algorithm::ALL.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "))]
    Algorithm { given: String },
    #[error("{combo}: not applicable: {why}")]
    NotApplicable { combo: String, why: String },
    #[error("cannot create --output folder {}: {reason}", dir.display())]
    Output {
        dir: std::path::PathBuf,
        reason: String,
    },
}

fn probe(validate: bool) -> Result<ExitCode, OitError> {
    let devices = device::list(validate)?;
    for (i, c) in devices.iter().enumerate() {
        println!(
            "{i}: {} [{}; {}] pixel-interlock={} sample-interlock={} shading-rate-interlock={} sample-rate-shading={} samples={:?} usable={}",
            c.name,
            c.device_type,
            c.driver,
            c.pixel_interlock,
            c.sample_interlock,
            c.shading_rate_interlock,
            c.sample_rate_shading,
            [1u32, 2, 4, 8, 16]
                .into_iter()
                .filter(|&n| c.supports_samples(n))
                .collect::<Vec<_>>(),
            c.basic_ok()
        );
    }
    if devices.is_empty() {
        println!("no Vulkan device");
    }
    Ok(ExitCode::SUCCESS)
}

/// The device, with what the options ask of it (dynamic sample counts, shader objects), or why
/// it cannot do that.
fn open_gpu(args: &Args, null_hw: bool) -> Result<Gpu, OitError> {
    let mut gpu = Gpu::open(args.device, args.validate)?;
    gpu.executes = !(args.create_only || null_hw);
    if args.dynamic {
        if !gpu.caps.dynamic_samples {
            return Err(OitError::Lacks {
                option: "--dynamic",
                device: gpu.caps.name.clone(),
                what: "extendedDynamicState3RasterizationSamples",
            });
        }
        gpu.dynamic_samples = true;
    }
    if args.dynamic_blend {
        if !gpu.caps.dynamic_blend {
            return Err(OitError::Lacks {
                option: "--dynamic-blend",
                device: gpu.caps.name.clone(),
                what:
                    "extendedDynamicState3ColorBlendEnable, ColorBlendEquation and ColorWriteMask",
            });
        }
        gpu.dynamic_blend = true;
    }
    if args.libraries {
        if !gpu.caps.libraries {
            return Err(OitError::Lacks {
                option: "--libraries",
                device: gpu.caps.name.clone(),
                what: "VK_EXT_graphics_pipeline_library's graphicsPipelineLibrary",
            });
        }
        gpu.libraries = true;
    }
    if args.shader_objects {
        if !gpu.caps.shader_object {
            return Err(OitError::Lacks {
                option: "--shader-objects",
                device: gpu.caps.name.clone(),
                what: "VK_EXT_shader_object's shaderObject",
            });
        }
        gpu.shader_objects = true;
    }
    Ok(gpu)
}

/// Says which device runs, what it offers for interlock, and whether anything will render.
fn announce(gpu: &Gpu, create_only: bool, null_hw: bool) {
    let c = &gpu.caps;
    println!(
        "device {}: {} ({}; {})",
        gpu.index, c.name, c.device_type, c.driver
    );
    println!(
        "  interlock: pixel={} sample={} shading-rate={}; sampleRateShading={}; standardSampleLocations={}; subPixelPrecisionBits={}",
        c.pixel_interlock,
        c.sample_interlock,
        c.shading_rate_interlock,
        c.sample_rate_shading,
        c.standard_sample_locations,
        c.sub_pixel_precision_bits
    );
    if !c.standard_sample_locations {
        println!(
            "  warning: non-standard sample locations; MSAA edges may differ from the reference"
        );
    }
    if create_only {
        println!(
            "  create-only: pipelines are created and nothing is submitted or rendered{}",
            if null_hw {
                " (a null device: RADV without its GPU cannot execute)"
            } else {
                ""
            }
        );
    }
}

fn run(args: Args) -> Result<ExitCode, OitError> {
    if args.probe {
        return probe(args.validate);
    }
    let (width, height) = if args.race { (32, 32) } else { (800, 512) };
    let (width, height) = (args.width.unwrap_or(width), args.height.unwrap_or(height));
    if width == 0 || height == 0 || width > 16384 || height > 16384 {
        return Err(OitError::Size { width, height });
    }
    let aa = Aa::parse(&args.aa).ok_or_else(|| OitError::Aa(args.aa.clone()))?;
    let algorithm = match &args.algorithm {
        Some(s) => {
            Some(Algorithm::parse(s).ok_or_else(|| OitError::Algorithm { given: s.clone() })?)
        }
        None => None,
    };

    // RADV's null hardware (RADV_FORCE_FAMILY), or a null device `pops run` set up on a
    // drm-shim (POPS_NULL_DEVICE): nothing there executes.
    let null_hw = ["RADV_FORCE_FAMILY", "POPS_NULL_DEVICE"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| !v.is_empty()));
    let gpu = open_gpu(&args, null_hw)?;
    let create_only = args.create_only || null_hw;
    announce(&gpu, create_only, null_hw);
    let c = &gpu.caps;
    if args.race {
        return race_main(&gpu, &args, (width, height), create_only);
    }

    let scene = scene::Scene::generate(width, height, args.triangles, args.seed);
    println!(
        "scene: {} triangles, seed {}, {}x{}, {} layers per unit",
        args.triangles,
        args.seed,
        width,
        height,
        config::OIT_LAYERS
    );
    let layouts = pipelines::Layouts::new(&gpu)?;

    let combos = if args.matrix {
        Combo::matrix()
    } else {
        let algorithm = algorithm.unwrap_or_else(|| {
            Algorithm::ALL
                .into_iter()
                .find(|&a| matrix::unsupported(c, Combo { algorithm: a, aa }).is_none())
                .unwrap_or(Algorithm::LinkedList)
        });
        let combo = Combo { algorithm, aa };
        if let Some(why) = combo.not_applicable() {
            layouts.destroy(&gpu);
            return Err(OitError::NotApplicable {
                combo: combo.name(),
                why: why.to_string(),
            });
        }
        vec![combo]
    };
    let (png, png_is_dir) = match &args.output {
        Some(p) if args.matrix => {
            std::fs::create_dir_all(p).map_err(|e| OitError::Output {
                dir: p.clone(),
                reason: e.to_string(),
            })?;
            (Some(p.clone()), true)
        }
        Some(p) => (Some(p.clone()), false),
        // An image only where asked: nothing is written into the current directory unasked.
        None => (None, false),
    };
    let opts = RunOptions {
        frames: args.frames,
        create_only,
        png,
        png_is_dir,
    };

    let mut rows = Vec::new();
    for combo in combos {
        let row = matrix::run_combo(&gpu, &layouts, &scene, combo, &opts);
        print_row(&row, &opts);
        rows.push(row);
    }
    layouts.destroy(&gpu);

    if args.matrix {
        matrix::print_table(&rows);
    }
    let failed = rows.iter().any(|r| r.failed());
    let single_unsupported = !args.matrix
        && rows
            .iter()
            .any(|r| matches!(r.outcome, Outcome::Unsupported(_)));
    let silent = rows
        .iter()
        .any(|r| matches!(r.outcome, Outcome::NoShaderOutput));
    Ok(if failed || single_unsupported {
        ExitCode::FAILURE
    } else if silent {
        // Nothing to judge: neither a pass nor a failure that was seen (as `pops selftest
        // --draw`'s own verdict).
        ExitCode::from(NO_SHADER_OUTPUT_EXIT)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--race`: every race combination; exit 1 where an interlocked one was not exact or any
/// failed to run, 3 where nothing could be judged (no shader output, or pipelines only).
fn race_main(
    gpu: &Gpu,
    args: &Args,
    (width, height): (u32, u32),
    create_only: bool,
) -> Result<ExitCode, OitError> {
    let layouts = race::layouts(gpu)?;
    let opts = race::RaceOptions {
        width,
        height,
        primitives: args.primitives.max(1),
        frames: args.frames,
        create_only,
    };
    let s = race::run_all(gpu, &layouts, &opts);
    layouts.destroy(gpu);
    Ok(if !s.exact() {
        ExitCode::FAILURE
    } else if s.silent > 0 || (s.interlocked == 0 && !create_only) {
        ExitCode::from(NO_SHADER_OUTPUT_EXIT)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_row(row: &matrix::Row, opts: &RunOptions) {
    let name = row.combo.name();
    match &row.outcome {
        Outcome::Unsupported(why) => println!("{name}: unsupported on this device: {why}"),
        Outcome::Created => println!("{name}: pipelines created (not rendered)"),
        Outcome::Error(e) => println!("{name}: ERROR {e}"),
        Outcome::NoShaderOutput => println!("{name}: {}", matrix::NO_SHADER_OUTPUT),
        Outcome::Pass | Outcome::Fail(_) => {
            let verdict = if let Outcome::Fail(why) = &row.outcome {
                format!("FAIL ({why})")
            } else {
                "PASS".to_string()
            };
            if let Some(c) = &row.comparison {
                println!(
                    "{name}: {verdict}: max |diff| {} levels, mean {:.3}; max depth complexity {}, {} pixels with tail (allowance there: {} + 255 x transmittance after {} layers), image fnv64 {:016x}",
                    c.max_abs,
                    c.mean_abs,
                    row.max_depth_complexity,
                    row.tail_pixels,
                    reference::ROUNDING_LEVELS,
                    config::OIT_LAYERS,
                    row.hash.unwrap_or(0)
                );
            }
            if let Some(s) = row.gpu_ms {
                println!("  gpu: {s}");
            } else {
                println!("  gpu: no timestamps on this queue");
            }
            if let Some(s) = row.cpu_ms {
                println!("  cpu wall (submit to fence): {s}");
            }
            if let (Some(p), false) = (&opts.png, opts.png_is_dir) {
                println!("  wrote {}", p.display());
            }
        }
    }
}
