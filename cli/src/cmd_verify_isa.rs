//! `pops verify-isa --chip NAME [--json] [--compile] FILE`: the ordered section of machine code a driver
//! compiled (RADV/ACO's "Assembly" representation — with encodings, or ACO's program listing
//! where RADV has no disassembler — LLVM disassembly with encodings, raw code words, or one RADV
//! pipeline binary as `vkGetPipelineBinaryDataKHR` gives it) checked
//! on every path against the POPS article's rules, across the jump into a PS epilog where its
//! code is known. Exit status: 0 clean, 1 on a finding, 2 where the input is not code, 3 where
//! the rules hold but the model could not run the entry sequence (not verified).

use pm4::Family;
use shaders::verify::{self, ExitKind, Report};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

mod batch;

#[derive(clap::Args)]
pub struct Args {
    /// Chip the code was compiled for: a family (vega10, navi21, …), an LLVM processor
    /// (gfx1030, …) or a level (gfx9, gfx10, gfx10.3, gfx11, gfx12).
    #[arg(long)]
    chip: String,
    /// Print JSON: {"chip", "gfx_level", "input", "instructions", "exits", "wait_loops", "model",
    /// "findings"}; for many inputs {"chip", "inputs": [{"file", "status", "verification" |
    /// "not_read"}]}, the throughput on standard error.
    #[arg(long)]
    json: bool,
    /// FILE is a SPIR-V module: compile its fragment shader with the installed RADV for the
    /// chip (null hardware, no GPU needed) and verify the code RADV made of it.
    #[arg(long)]
    compile: bool,
    /// With --compile: the fragment entry point.
    #[arg(long, default_value = "main", requires = "compile")]
    entry: String,
    /// With --compile: colour blending dynamic, so that RADV jumps into a PS epilog for the exports.
    #[arg(long, requires = "compile")]
    dynamic_blend: bool,
    /// With --compile: rasterization samples (1, 2, 4, 8, 16).
    #[arg(long, default_value_t = 1, requires = "compile")]
    samples: u32,
    /// With --compile: the drm-shim library that gives RADV a device of the chip (default:
    /// `POPS_DRM_SHIM`, else Mesa's libamdgpu_noop_drm_shim.so from the mesa-drm-shim package;
    /// without one, RADV_FORCE_FAMILY, which only Mesa up to 25.0 honours).
    #[arg(long, requires = "compile")]
    drm_shim: Option<PathBuf>,
    /// With --compile: save the code RADV compiled in DIR (`fragment.s`, and with
    /// --dynamic-blend the PS epilog's `epilog.s`; for many modules `NAME.fragment.s` and
    /// `NAME.epilog.s`), to verify again as code with --epilog.
    #[arg(long, value_name = "DIR", requires = "compile")]
    save_code: Option<PathBuf>,
    /// The code of the PS epilog the shader jumps into (RADV's, as `--save-code` or
    /// RADV_DEBUG=epilogs give it): every path is then verified across the jump.
    #[arg(long, value_name = "FILE", conflicts_with = "compile")]
    epilog: Option<PathBuf>,
    /// The code — text, or a RADV pipeline binary's data (or with --compile the SPIR-V
    /// module); `-` reads standard input. Several files, or a folder (its files), are verified
    /// in parallel on every core: a row each, the throughput, and a summary table of the
    /// outcomes and the findings, each named as a known driver defect or new (with --compile:
    /// compiled first, one after another in this process, the driver's time said apart).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

impl Args {
    /// The one input of a single verification.
    fn file(&self) -> &PathBuf {
        &self.files[0]
    }
}

pub fn run(a: Args) -> ExitCode {
    let batch = a.files.len() > 1 || a.file().is_dir();
    match if batch {
        batch::verify_batch(&a)
    } else {
        verify_file(&a)
    } {
        Ok(code) => code,
        // The command ran again on a drm-shim: that run said what it found; its status is ours.
        Err(VerifyIsaError::RanAgain(code)) => ExitCode::from(code),
        Err(e) => {
            eprintln!("pops verify-isa: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why nothing was verified (status 2), or that the command ran again on a drm-shim.
#[derive(Debug, thiserror::Error)]
enum VerifyIsaError {
    #[error("--chip: {0}")]
    Chip(pm4::ChipError),
    #[error("cannot read {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {error}", path.display())]
    NotCode { path: PathBuf, error: NotCode },
    #[error("{}: {error}", path.display())]
    NotChipCode { path: PathBuf, error: NotChipCode },
    #[error("cannot read the PS epilog {}: {error}", path.display())]
    ReadEpilog {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("the PS epilog {}: {error}", path.display())]
    EpilogNotCode { path: PathBuf, error: NotCode },
    #[error("{}: {error}", path.display())]
    Compile {
        path: PathBuf,
        error: CompileInputError,
    },
    #[error("cannot save the code in {}: {error}", dir.display())]
    SaveCode { dir: PathBuf, error: std::io::Error },
    #[error(transparent)]
    NullDevice(#[from] crate::null_device::NullDeviceError),
    #[error("nothing was verified: {how} ({} as {chip})", library.display())]
    Crashed {
        how: String,
        library: PathBuf,
        chip: &'static str,
    },
    #[error("the JSON document: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0} verifies one input at a time: give one file")]
    OneInput(&'static str),
    #[error("cannot list {}: {error}", path.display())]
    List {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The command ran again on a drm-shim, which exited with this status.
    #[error("ran again on a drm-shim (status {0})")]
    RanAgain(u8),
}

/// The code to verify: the shader's, its PS epilog's text where known, and who compiled it.
struct Input {
    code: Code,
    epilog: Option<String>,
    compiled_by: Option<String>,
}

/// The shader's code as given.
enum Code {
    Text(String),
    /// The instruction words found in a RADV pipeline binary's data.
    RadvBinary(Vec<u32>),
}

fn verify_file(a: &Args) -> Result<ExitCode, VerifyIsaError> {
    let family = Family::parse_chip_or_level(&a.chip).map_err(VerifyIsaError::Chip)?;
    // Compiling needs RADV on a null device of the chip: a preloaded shim needs a fresh
    // process, so this runs before anything (standard input) is read.
    let device = if a.compile {
        Some(null_device(a, family)?)
    } else {
        None
    };
    let bytes = read_input(a.file())?;
    let input = match &device {
        Some(device) => compiled(family, &bytes, a, device)?,
        None => Input {
            code: given_code(&bytes).map_err(|error| VerifyIsaError::NotCode {
                path: a.file().clone(),
                error,
            })?,
            epilog: a.epilog.as_deref().map(read_epilog).transpose()?,
            compiled_by: None,
        },
    };
    let Verified {
        format,
        report,
        model,
    } = verify_input(family, &input).map_err(|error| VerifyIsaError::NotChipCode {
        path: a.file().clone(),
        error,
    })?;
    let src = Source {
        family,
        format,
        compiled_by: input.compiled_by.as_deref(),
    };
    if a.json {
        let doc = document(&src, &report, &model);
        let s = serde_json::to_string_pretty(&doc)?;
        println!("{s}");
    } else {
        print!("{}", render(&src, &report, &model));
    }
    Ok(ExitCode::from(status(&report, &model)))
}

/// The code of one input verified: how it was given, the rules on every path (across the PS
/// epilog, where its code is known) and the ordering model's run of the entry sequence.
struct Verified {
    format: verify::Format,
    report: Report,
    model: ModelResult,
}

/// Why an input's code is not the chip's.
#[derive(Debug, thiserror::Error)]
enum NotChipCode {
    #[error("not {chip} code: {error}")]
    Shader {
        chip: &'static str,
        error: verify::InputError,
    },
    #[error("the PS epilog is not {chip} code: {error}")]
    Epilog {
        chip: &'static str,
        error: verify::InputError,
    },
}

/// Reads `input`'s code as `family`'s and verifies it: the one verification of one input and of
/// each of many.
fn verify_input(family: Family, input: &Input) -> Result<Verified, NotChipCode> {
    let level = family.gfx_level();
    let chip = family.name();
    let enc = shaders::isa::Encoding::of(level);
    let read = match &input.code {
        Code::Text(text) => verify::read(enc, text),
        Code::RadvBinary(words) => {
            verify::words(enc, words).map(|c| (verify::Format::RadvBinary, c))
        }
    };
    let (format, code) = read.map_err(|error| NotChipCode::Shader { chip, error })?;
    let epilog = match input.epilog.as_deref().map(|t| verify::read(enc, t)) {
        Some(Err(error)) => return Err(NotChipCode::Epilog { chip, error }),
        Some(Ok((_, e))) => Some(e),
        None => None,
    };
    Ok(Verified {
        format,
        report: verify::verify_with_epilog(level, &code, epilog.as_deref()),
        model: verify::model::run(level, &code),
    })
}

/// The file's bytes (`-`: standard input).
fn read_input(file: &std::path::Path) -> Result<Vec<u8>, VerifyIsaError> {
    let bytes = if file.as_os_str() == "-" {
        let mut s = Vec::new();
        std::io::stdin().read_to_end(&mut s).map(|_| s)
    } else {
        std::fs::read(file)
    };
    bytes.map_err(|error| VerifyIsaError::Read {
        path: file.to_path_buf(),
        error,
    })
}

/// `--epilog FILE`'s text.
fn read_epilog(file: &std::path::Path) -> Result<String, VerifyIsaError> {
    let bytes = std::fs::read(file).map_err(|error| VerifyIsaError::ReadEpilog {
        path: file.to_path_buf(),
        error,
    })?;
    code_text(&bytes).map_err(|error| VerifyIsaError::EpilogNotCode {
        path: file.to_path_buf(),
        error,
    })
}

/// The module compiled by RADV, its code saved where `--save-code` asks.
fn compiled(
    family: Family,
    bytes: &[u8],
    a: &Args,
    device: &crate::null_device::NullDevice,
) -> Result<Input, VerifyIsaError> {
    let c = compile(family, bytes, a, device).map_err(|error| VerifyIsaError::Compile {
        path: a.file().clone(),
        error,
    })?;
    eprintln!(
        "pops verify-isa: compiled by {} on {}",
        c.driver,
        device.describe(family)
    );
    if let Some(dir) = &a.save_code {
        save_code(dir, "", &c).map_err(|error| VerifyIsaError::SaveCode {
            dir: dir.clone(),
            error,
        })?;
    }
    Ok(compiled_input(c))
}

/// Keeps the code RADV compiled in `dir`: `{prefix}fragment.s` and, where the shader jumps
/// into one, its PS epilog's `{prefix}epilog.s`, to verify again as code with `--epilog`.
fn save_code(
    dir: &std::path::Path,
    prefix: &str,
    c: &crate::radv_compile::Compiled,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{prefix}fragment.s")), &c.assembly)?;
    if let Some(e) = &c.epilog {
        std::fs::write(dir.join(format!("{prefix}epilog.s")), e)?;
    }
    Ok(())
}

/// The code RADV compiled, as the verifier takes it.
fn compiled_input(c: crate::radv_compile::Compiled) -> Input {
    Input {
        code: Code::Text(c.assembly),
        epilog: c.epilog,
        compiled_by: Some(c.driver),
    }
}

/// The null device this process compiles on: the drm-shim it already runs on, else (after
/// running itself again on a drm-shim, whose exit status is `Err`) `RADV_FORCE_FAMILY`.
fn null_device(a: &Args, family: Family) -> Result<crate::null_device::NullDevice, VerifyIsaError> {
    use crate::null_device::{choose, reexec, NullChoice, NullDevice};
    if let Some(d) = NullDevice::current() {
        return Ok(d);
    }
    let lib = match choose(a.drm_shim.as_deref(), family)? {
        NullChoice::Shim(lib) => lib,
        NullChoice::ForceFamily { shim_lacks } => {
            if let Some(shim) = shim_lacks {
                eprintln!(
                    "pops verify-isa: the drm-shim {} has no {} device: compiling on RADV's null hardware (RADV_FORCE_FAMILY) instead",
                    shim.display(),
                    family.name()
                );
            }
            return Ok(NullDevice::ForceFamily);
        }
    };
    let s = reexec(&lib, family)?;
    // A crash of the compiling process (the driver on the shim) is named, never left as a bare
    // status with no output; as any failure to compile, it is status 2.
    use std::os::unix::process::ExitStatusExt;
    Err(if s.signal().is_some() {
        VerifyIsaError::Crashed {
            how: crate::launch::how_it_ended("the driver compiling on the drm-shim", s)
                .unwrap_or_default(),
            library: lib,
            chip: family.name(),
        }
    } else {
        VerifyIsaError::RanAgain(crate::launch::exit_code_of(s))
    })
}

/// The input as code: text, or the instructions of a RADV pipeline binary's or shader object's
/// data. Other binary
/// data is named as such, never echoed. Pure.
fn given_code(bytes: &[u8]) -> Result<Code, NotCode> {
    let not_text = match code_text(bytes) {
        Ok(text) => return Ok(Code::Text(text)),
        Err(NotCode::Empty) => return Err(NotCode::Empty),
        Err(e) => e,
    };
    // A pipeline binary's data is one serialized shader; a shader object's has a header first.
    let code = verify::radv_binary::machine_code(bytes).or_else(|e| {
        verify::radv_binary::shader_object_shader(bytes)
            .and_then(verify::radv_binary::machine_code)
            .map_err(|_| e)
    });
    match code {
        Ok(c) => Ok(Code::RadvBinary(verify::radv_binary::words(c))),
        Err(b) => Err(match not_text {
            NotCode::Binary(n) => NotCode::NoBinary(n, b),
            e => e,
        }),
    }
}

/// The input as text (assembly, a listing, or hex words): a binary file or an empty one is
/// named as such, never echoed. Pure.
fn code_text(bytes: &[u8]) -> Result<String, NotCode> {
    let text = std::str::from_utf8(bytes).map_err(|_| NotCode::Binary(bytes.len()))?;
    if let Some(c) = text.chars().find(|c| c.is_control() && !c.is_whitespace()) {
        return Err(NotCode::Control(c));
    }
    if text.trim().is_empty() {
        return Err(NotCode::Empty);
    }
    Ok(text.to_string())
}

/// An input that is not code text, named without echoing it.
#[derive(Debug, thiserror::Error)]
enum NotCode {
    #[error("{0} bytes of binary data, not text: give the code as ACO/LLVM assembly or hex words (or a SPIR-V module with --compile)")]
    Binary(usize),
    #[error("not text: it holds the control character {} (give the code as ACO/LLVM assembly or hex words, or a SPIR-V module with --compile)", .0.escape_unicode())]
    Control(char),
    #[error("the input is empty: no code to verify")]
    Empty,
    #[error("{0} bytes of binary data, not text, and not a RADV pipeline binary ({1}): give the code as ACO/LLVM assembly, hex words or a RADV pipeline binary's data (or a SPIR-V module with --compile)")]
    NoBinary(usize, verify::radv_binary::BinaryError),
}

/// RADV's assembly of the SPIR-V module `bytes` for `family`.
fn compile(
    family: Family,
    bytes: &[u8],
    a: &Args,
    device: &crate::null_device::NullDevice,
) -> Result<crate::radv_compile::Compiled, CompileInputError> {
    let words = shaders::spirv::module::words_from_bytes(bytes)?;
    let o = crate::radv_compile::Options {
        entry: &a.entry,
        dynamic_blend: a.dynamic_blend,
        samples: a.samples,
        device,
    };
    // The environment RADV reads at instance creation, set here at the edge: this command is
    // single-threaded and nothing in it used Vulkan before.
    let current = |k: &str| std::env::var(k).ok();
    for (k, v) in crate::radv_compile::environment(family, &o, current)? {
        std::env::set_var(k, v);
    }
    Ok(crate::radv_compile::fragment_assembly(family, &words, &o)?)
}

/// Why `--compile` compiled nothing.
#[derive(Debug, thiserror::Error)]
enum CompileInputError {
    #[error("not SPIR-V: {0}")]
    NotSpirv(#[from] shaders::spirv::SpirvError),
    #[error(transparent)]
    Compile(#[from] crate::radv_compile::CompileError),
}

fn exit_name(k: ExitKind) -> &'static str {
    match k {
        ExitKind::Endpgm => "s_endpgm",
        ExitKind::EndpgmOrderedPsDone => "s_endpgm_ordered_ps_done",
        ExitKind::EpilogJump => "epilog",
    }
}

/// The finding's code for a broken rule, as the layer's records and every report name it.
fn rule_code(rule: verify::Rule) -> pops_report::Code {
    pops_report::Code::Isa(pops_report::finding::Isa::Rule(rule))
}

/// What the known-defect table says of finding `code` on `family` with the driver that compiled
/// the code (`None`: code read from a file).
fn explained(
    family: Family,
    driver: Option<&str>,
    code: pops_report::Code,
) -> pops_report::defects::Explained {
    pops_report::defects::explain(code, pops_report::defects::ChipOf::Family(family), driver)
}

/// What the code was and where it came from, for the outputs.
pub struct Source<'a> {
    pub family: Family,
    pub format: verify::Format,
    /// The driver that compiled it (with `--compile`).
    pub compiled_by: Option<&'a str>,
}

type ModelResult = Result<verify::model::ModelRun, verify::model::ModelFinding>;

/// The model's run as the document states it: a breach is a finding, an instruction the model
/// cannot interpret leaves the ordering not verified.
fn model_document(model: &ModelResult) -> pops_report::IsaModel {
    use verify::model::ModelFinding;
    match model {
        Ok(m) => pops_report::IsaModel {
            runs: m.runs,
            waves: m.waves,
            wraps: m.wraps,
            overlapped_waves: m.overlapped_waves,
            entry_instructions: m.entry_instructions,
            skipped: m
                .skipped
                .iter()
                .map(|(a, t)| format!("0x{a:x}: {t}"))
                .collect(),
            ..Default::default()
        },
        Err(e @ ModelFinding::Breach { .. }) => pops_report::IsaModel {
            finding: Some(e.to_string()),
            ..Default::default()
        },
        Err(e @ ModelFinding::Uninterpreted { .. }) => pops_report::IsaModel {
            not_verified: Some(e.to_string()),
            ..Default::default()
        },
    }
}

fn document(src: &Source<'_>, r: &Report, model: &ModelResult) -> pops_report::VerifyIsaDocument {
    let line = |(addr, text): &(u32, String)| pops_report::IsaLine {
        addr: *addr,
        instruction: text.clone(),
    };
    pops_report::VerifyIsaDocument {
        chip: src.family.name().to_string(),
        gfx_level: r.level.name().to_string(),
        input: src.format.name().to_string(),
        instructions: r.instructions,
        exits: r
            .exits
            .iter()
            .map(|e| pops_report::IsaExit {
                addr: e.addr,
                kind: exit_name(e.kind).to_string(),
            })
            .collect(),
        wait_loops: r.wait_loops.clone(),
        model: model_document(model),
        findings: r
            .findings
            .iter()
            .map(|f| pops_report::IsaFinding {
                rule: f.rule.code().to_string(),
                code: rule_code(f.rule).to_string(),
                known_defect: explained(src.family, src.compiled_by, rule_code(f.rule))
                    .defect()
                    .map(|d| d.id.to_string()),
                sentence: f.rule.sentence().to_string(),
                addr: f.addr,
                instruction: f.text.clone(),
                message: f.message.clone(),
                path: f.path.clone(),
                excerpt: f.excerpt.iter().map(line).collect(),
            })
            .collect(),
        compiled_by: src.compiled_by.map(str::to_string),
        epilog_base: r.epilog_base,
    }
}

/// An address as the text report writes it: the PS epilog's relative to its start.
fn addr(r: &Report, a: u32) -> String {
    match r.epilog_base {
        Some(base) if a >= base => format!("epilog+0x{:x}", a - base),
        _ => format!("0x{a:04x}"),
    }
}

/// The first lines: what was read, and what of it was verified.
fn render_head(src: &Source<'_>, r: &Report, o: &mut String) {
    use std::fmt::Write;
    let count = |k: ExitKind| r.exits.iter().filter(|e| e.kind == k).count();
    let by = src
        .compiled_by
        .map_or_else(String::new, |d| format!(" compiled by {d}"));
    let _ = writeln!(
        o,
        "pops verify-isa: {} ({}), {}{by}: {} instructions, {} wait loop(s), exits: {} s_endpgm, {} s_endpgm_ordered_ps_done, {} jump(s) into a PS epilog",
        src.family.name(),
        r.level.name(),
        src.format.name(),
        r.instructions,
        r.wait_loops.len(),
        count(ExitKind::Endpgm),
        count(ExitKind::EndpgmOrderedPsDone),
        count(ExitKind::EpilogJump),
    );
    if count(ExitKind::EpilogJump) > 0 {
        let _ = match r.epilog_base {
            Some(_) => writeln!(o, "pops verify-isa: the PS epilog RADV compiled for the draw is verified with the shader, every path across the jump (its addresses: epilog+offset)"),
            None => writeln!(o, "pops verify-isa: the exports of paths that jump into the PS epilog are the epilog's, not in this code: they are not checked here"),
        };
    }
}

/// The model's line.
fn render_model(model: &ModelResult, o: &mut String) {
    use std::fmt::Write;
    use verify::model::ModelFinding;
    let _ = match model {
        Ok(m) => writeln!(
            o,
            "pops verify-isa: model: the entry sequence ({} instruction{}{}) ran {} times, {} waves, {} overlapped, {} wave-ID wraparounds: every ordered section in primitive order, no wait without overlap, no deadlock",
            m.entry_instructions,
            if m.entry_instructions == 1 { "" } else { "s" },
            if m.skipped.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} not run: no effect the ordering can observe (vector ALU, scalar memory, pacing, results nothing reads)",
                    m.skipped.len()
                )
            },
            m.runs,
            m.waves,
            m.overlapped_waves,
            m.wraps
        ),
        Err(e @ ModelFinding::Uninterpreted { .. }) => writeln!(
            o,
            "pops verify-isa: model: not verified: {e} (the ordering of the entry sequence is unchecked; the rules below hold on every path)"
        ),
        Err(e) => writeln!(o, "pops verify-isa: model: {e}"),
    };
}

/// The text report. Pure.
pub fn render(src: &Source<'_>, r: &Report, model: &ModelResult) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    render_head(src, r, &mut o);
    render_model(model, &mut o);
    if r.findings.is_empty() {
        if model.is_ok() {
            let _ = writeln!(o, "pops verify-isa: clean: every rule holds on every path");
        }
        return o;
    }
    let _ = writeln!(o, "pops verify-isa: {} finding(s):", r.findings.len());
    for f in &r.findings {
        let path = f
            .path
            .iter()
            .map(|&a| addr(r, a))
            .collect::<Vec<_>>()
            .join(" -> ");
        let code = rule_code(f.rule);
        let _ = writeln!(o, "  {code}: {}", f.message);
        let _ = writeln!(o, "    at {}: {}", addr(r, f.addr), f.text);
        if !path.is_empty() {
            let _ = writeln!(o, "    path: {path}");
        }
        if f.excerpt.len() > 1 {
            let _ = writeln!(
                o,
                "    code (the accesses still outstanding, the jump, the instruction):"
            );
            for (a, text) in &f.excerpt {
                let _ = writeln!(o, "      {:>12}  {}", addr(r, *a), text.trim());
            }
        }
        let _ = writeln!(o, "    rule: {}", f.rule.sentence());
        let _ = writeln!(
            o,
            "    {}",
            explained(src.family, src.compiled_by, code).words()
        );
    }
    o
}

/// The exit status: 0 clean, 1 a finding, 3 clean but the model could not run the entry.
fn status(r: &Report, model: &ModelResult) -> u8 {
    use verify::model::ModelFinding;
    match model {
        _ if !r.findings.is_empty() => 1,
        Err(ModelFinding::Breach { .. }) => 1,
        Err(ModelFinding::Uninterpreted { .. }) => NOT_VERIFIED,
        Ok(_) => 0,
    }
}

/// The exit status where the rules hold but the model could not run the entry sequence.
pub const NOT_VERIFIED: u8 = 3;

/// The exit status where an input is not code of the chip (or, with `--compile`, not compiled).
const NOT_READ: u8 = 2;

#[cfg(test)]
mod tests {
    #[test]
    fn binary_and_empty_inputs_are_named_not_echoed() {
        let e = super::code_text(&[0x03, 0x02, 0x23, 0x07, 0xff, 0xfe])
            .unwrap_err()
            .to_string();
        assert!(e.contains("6 bytes of binary data"), "{e}");
        let e = super::code_text(b"s_endpgm\x01").unwrap_err().to_string();
        assert!(e.contains("\\u{1}"), "{e}");
        assert!(super::code_text(b" \n")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(super::code_text(b"\ts_endpgm\n").is_ok());
    }

    /// A RADV pipeline binary's data is code; other binary data is named, with why it is not
    /// such a binary.
    #[test]
    fn a_radv_pipeline_binary_is_code() {
        let data = include_bytes!("../tests/data/radv-navi21-pixel-interlock.binary");
        assert!(matches!(
            super::given_code(data),
            Ok(super::Code::RadvBinary(w)) if w.len() > 10
        ));
        let e = match super::given_code(&[0x03, 0x02, 0x23, 0x07, 0xff, 0xfe]) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("not code"),
        };
        assert!(e.contains("6 bytes of binary data"), "{e}");
        assert!(e.contains("not a RADV pipeline binary"), "{e}");
    }
}
