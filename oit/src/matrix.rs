//! Running combinations and the result table: each combination passes, fails, is unsupported by
//! the device, or (create-only mode) had its pipelines created without rendering.

use crate::config::{Algorithm, Combo};
use crate::device::{Caps, DeviceError, Gpu};
use crate::image_out;
use crate::pipelines::{ComboPipelines, Layouts};
use crate::reference::{self, Comparison};
use crate::render;
use crate::scene::Scene;
use pm4::Granularity;
use std::path::PathBuf;

/// Why the device cannot run a combination, if it cannot.
pub fn unsupported(caps: &Caps, combo: Combo) -> Option<String> {
    let mut missing = Vec::new();
    match combo.algorithm {
        Algorithm::Interlock(m) => match m.granularity {
            Granularity::Pixel if !caps.pixel_interlock => {
                missing.push("fragmentShaderPixelInterlock")
            }
            Granularity::Sample if !caps.sample_interlock => {
                missing.push("fragmentShaderSampleInterlock")
            }
            _ => {}
        },
        Algorithm::LinkedList => {}
    }
    if combo.aa.per_sample() && !caps.sample_rate_shading {
        missing.push("sampleRateShading");
    }
    let n = combo.aa.samples();
    if !caps.supports_samples(n) {
        return Some(format!("{n}x colour samples not supported"));
    }
    (!missing.is_empty()).then(|| format!("no {}", missing.join(", ")))
}

#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    Fail(String),
    /// Submitted and completed, but the GPU wrote no image: no shader output to judge.
    NoShaderOutput,
    Unsupported(String),
    Created,
    Error(String),
}

pub struct Row {
    pub combo: Combo,
    pub outcome: Outcome,
    pub comparison: Option<Comparison>,
    pub gpu_ms: Option<Stats>,
    pub cpu_ms: Option<Stats>,
    pub hash: Option<u64>,
    pub tail_pixels: u64,
    pub max_depth_complexity: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Stats {
    pub min: f64,
    pub median: f64,
    pub mean: f64,
    pub max: f64,
    pub n: usize,
}

impl Stats {
    pub fn of(v: &[f64]) -> Option<Stats> {
        if v.is_empty() {
            return None;
        }
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        Some(Stats {
            min: s[0],
            median,
            mean: s.iter().sum::<f64>() / n as f64,
            max: s[n - 1],
            n,
        })
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "min {:.3} / median {:.3} / mean {:.3} / max {:.3} ms over {} frames",
            self.min, self.median, self.mean, self.max, self.n
        )
    }
}

pub struct RunOptions {
    pub frames: u32,
    pub create_only: bool,
    /// Where to write `<combo>.png` (single runs pass the file itself).
    pub png: Option<PathBuf>,
    pub png_is_dir: bool,
}

/// Runs one combination end to end.
pub fn run_combo(
    gpu: &Gpu,
    layouts: &Layouts,
    scene: &Scene,
    combo: Combo,
    opts: &RunOptions,
) -> Row {
    let mut row = Row {
        combo,
        outcome: Outcome::Pass,
        comparison: None,
        gpu_ms: None,
        cpu_ms: None,
        hash: None,
        tail_pixels: 0,
        max_depth_complexity: 0,
    };
    if let Some(why) = unsupported(&gpu.caps, combo) {
        row.outcome = Outcome::Unsupported(why);
        return row;
    }
    if gpu.shader_objects && combo.aa.per_sample() {
        row.outcome = Outcome::Unsupported(
            "sample-rate shading needs a pipeline's minSampleShading (--shader-objects)".into(),
        );
        return row;
    }
    let pipelines = match ComboPipelines::new(gpu, layouts, combo) {
        Ok(p) => p,
        Err(e) => {
            row.outcome = Outcome::Error(format!("pipeline creation: {e}"));
            return row;
        }
    };
    if opts.create_only {
        pipelines.destroy(gpu);
        row.outcome = Outcome::Created;
        return row;
    }
    let reference = reference::render(scene, combo.aa);
    row.tail_pixels = reference.tail_pixels;
    row.max_depth_complexity = reference.max_depth_complexity;
    let result = render::render(
        gpu,
        layouts,
        &pipelines,
        scene,
        combo,
        reference.fragments,
        opts.frames,
    );
    pipelines.destroy(gpu);
    let rendered = match result {
        Ok(r) => r,
        Err(e) => {
            row.outcome = Outcome::Error(render_error(e));
            return row;
        }
    };
    row.gpu_ms = Stats::of(&rendered.frames.gpu_ms);
    row.cpu_ms = Stats::of(&rendered.frames.cpu_ms);
    row.hash = Some(image_out::hash(&rendered.rgba));
    if let Some(path) = &opts.png {
        let file = if opts.png_is_dir {
            path.join(format!("{}.png", combo.name()))
        } else {
            path.clone()
        };
        if let Err(e) = image_out::write_png(&file, scene.width, scene.height, &rendered.rgba) {
            row.outcome = Outcome::Error(e.to_string());
            return row;
        }
    }
    if rendered.untouched {
        row.outcome = Outcome::NoShaderOutput;
        return row;
    }
    let cmp = reference::compare(&reference, &rendered.rgba);
    row.outcome = match rendered.nodes_used {
        Some(used) if used > rendered.node_capacity => Outcome::Fail(format!(
            "linked-list pool overflow: {used} nodes for {}",
            rendered.node_capacity
        )),
        _ if cmp.passed() => Outcome::Pass,
        _ => Outcome::Fail(format!(
            "{} pixel(s) beyond tolerance, first at {:?}; mean {:.3} (limit {})",
            cmp.violations,
            cmp.first_violation.unwrap_or((0, 0)),
            cmp.mean_abs,
            reference::MEAN_LEVELS
        )),
    };
    row.comparison = Some(cmp);
    row
}

fn render_error(e: DeviceError) -> String {
    format!("rendering: {e}")
}

/// What a combination whose submissions completed without any shader output says.
pub const NO_SHADER_OUTPUT: &str = "submitted, no shader output";

impl Row {
    pub fn failed(&self) -> bool {
        matches!(self.outcome, Outcome::Fail(_) | Outcome::Error(_))
    }
}

pub fn print_table(rows: &[Row]) {
    println!();
    println!(
        "{:<40} {:<11} {:>7} {:>8} {:>9} {:>10} {:>10} {:<16} detail",
        "combination",
        "result",
        "max|d|",
        "mean|d|",
        "tail px",
        "gpu med",
        "cpu med",
        "image fnv64"
    );
    for r in rows {
        let (result, detail) = match &r.outcome {
            Outcome::Pass => ("PASS", String::new()),
            Outcome::Fail(s) => ("FAIL", s.clone()),
            Outcome::Error(s) => ("ERROR", s.clone()),
            Outcome::Unsupported(s) => ("unsupported", s.clone()),
            Outcome::Created => ("created", "pipelines created, not rendered".to_string()),
            Outcome::NoShaderOutput => ("no output", NO_SHADER_OUTPUT.to_string()),
        };
        let (max, mean) = match &r.comparison {
            Some(c) => (c.max_abs.to_string(), format!("{:.3}", c.mean_abs)),
            None => ("-".into(), "-".into()),
        };
        let ms = |s: &Option<Stats>| {
            s.map(|s| format!("{:.3}ms", s.median))
                .unwrap_or_else(|| "-".into())
        };
        println!(
            "{:<40} {:<11} {:>7} {:>8} {:>9} {:>10} {:>10} {:<16} {}",
            r.combo.name(),
            result,
            max,
            mean,
            if r.comparison.is_some() {
                r.tail_pixels.to_string()
            } else {
                "-".into()
            },
            // Where no shader ran, the GPU's timestamps time nothing.
            if matches!(r.outcome, Outcome::NoShaderOutput) {
                "-".to_string()
            } else {
                ms(&r.gpu_ms)
            },
            ms(&r.cpu_ms),
            r.hash
                .map(|h| format!("{h:016x}"))
                .unwrap_or_else(|| "-".into()),
            detail
        );
    }
    let count = |f: fn(&Outcome) -> bool| rows.iter().filter(|r| f(&r.outcome)).count();
    println!(
        "summary: {} pass, {} fail, {} error, {} unsupported, {} created only, {} submitted without shader output",
        count(|o| matches!(o, Outcome::Pass)),
        count(|o| matches!(o, Outcome::Fail(_))),
        count(|o| matches!(o, Outcome::Error(_))),
        count(|o| matches!(o, Outcome::Unsupported(_))),
        count(|o| matches!(o, Outcome::Created)),
        count(|o| matches!(o, Outcome::NoShaderOutput)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Aa;

    #[test]
    fn stats_median_even_and_odd() {
        let s = Stats::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(Stats::of(&[1.0, 2.0, 3.0, 10.0]).unwrap().median, 2.5);
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn missing_features_make_combinations_unsupported() {
        let caps = Caps {
            color_sample_counts: ash::vk::SampleCountFlags::TYPE_1
                | ash::vk::SampleCountFlags::TYPE_4,
            ..Caps::default()
        };
        let il = Combo {
            algorithm: Algorithm::ALL[0],
            aa: Aa::Single,
        };
        assert!(unsupported(&caps, il).unwrap().contains("PixelInterlock"));
        let ll8 = Combo {
            algorithm: Algorithm::LinkedList,
            aa: Aa::Msaa8,
        };
        assert!(unsupported(&caps, ll8).unwrap().contains("8x"));
        let ll4 = Combo {
            algorithm: Algorithm::LinkedList,
            aa: Aa::Ssaa4,
        };
        assert!(unsupported(&caps, ll4)
            .unwrap()
            .contains("sampleRateShading"));
        let ll = Combo {
            algorithm: Algorithm::LinkedList,
            aa: Aa::Msaa4,
        };
        assert_eq!(unsupported(&caps, ll), None);
    }
}
