//! `pops verify-isa --chip NAME [--json] [--compile] FILE`: the ordered section of machine code a driver
//! compiled (RADV/ACO's "Assembly" representation — with encodings, or ACO's program listing
//! where RADV has no disassembler — LLVM disassembly with encodings, or raw code words) checked on every path against the POPS article's rules. Exit status: 0 clean, 1 on a
//! finding, 2 where the input is not code.

use pm4::Family;
use shaders::verify::{self, ExitKind, Report};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Chip the code was compiled for: a family (vega10, navi21, …), an LLVM processor
    /// (gfx1030, …) or a level (gfx9, gfx10, gfx10.3, gfx11).
    #[arg(long)]
    chip: String,
    /// Print JSON: {"chip", "gfx_level", "input", "instructions", "exits", "wait_loops", "findings"}.
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
    /// The code (or with --compile the SPIR-V module); `-` reads standard input.
    file: PathBuf,
}

pub fn run(a: Args) -> ExitCode {
    let family = match Family::parse_chip_or_level(&a.chip) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("pops verify-isa: --chip: {e}");
            return ExitCode::from(2);
        }
    };
    // Compiling needs RADV on a null device of the chip: a preloaded shim needs a fresh
    // process, so this runs before anything (standard input) is read.
    let device = if a.compile {
        match null_device(&a, family) {
            Ok(d) => Some(d),
            Err(code) => return code,
        }
    } else {
        None
    };
    let bytes = if a.file.as_os_str() == "-" {
        let mut s = Vec::new();
        std::io::stdin().read_to_end(&mut s).map(|_| s)
    } else {
        std::fs::read(&a.file)
    };
    let bytes = match bytes {
        Ok(t) => t,
        Err(e) => {
            eprintln!("pops verify-isa: cannot read {}: {e}", a.file.display());
            return ExitCode::from(2);
        }
    };
    let text = if let Some(device) = &device {
        match compile(family, &bytes, &a, device) {
            Ok(c) => {
                eprintln!(
                    "pops verify-isa: compiled by {} on {}",
                    c.driver,
                    device.describe(family)
                );
                c.assembly
            }
            Err(e) => {
                eprintln!("pops verify-isa: {}: {e}", a.file.display());
                return ExitCode::from(2);
            }
        }
    } else {
        match code_text(&bytes) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("pops verify-isa: {}: {e}", a.file.display());
                return ExitCode::from(2);
            }
        }
    };
    let level = family.gfx_level();
    let (format, code) = match verify::read(shaders::isa::Encoding::of(level), &text) {
        Ok(x) => x,
        Err(e) => {
            eprintln!(
                "pops verify-isa: {}: not {} code: {e}",
                a.file.display(),
                family.name()
            );
            return ExitCode::from(2);
        }
    };
    let report = verify::verify(level, &code);
    let model = verify::model::run(level, &code);
    if a.json {
        let doc = document(family, format, &report, &model);
        match serde_json::to_string_pretty(&doc) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("pops verify-isa: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        print!("{}", render(family, format, &report, &model));
    }
    if report.findings.is_empty() && model.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The null device this process compiles on: the drm-shim it already runs on, else (after
/// running itself again on a drm-shim, whose exit status is `Err`) `RADV_FORCE_FAMILY`.
fn null_device(a: &Args, family: Family) -> Result<crate::null_device::NullDevice, ExitCode> {
    use crate::null_device::{find_drm_shim, reexec, NullDevice};
    if let Some(d) = NullDevice::current() {
        return Ok(d);
    }
    let Some(lib) = find_drm_shim(a.drm_shim.as_deref()) else {
        return Ok(NullDevice::ForceFamily);
    };
    Err(match reexec(&lib, family) {
        Ok(s) => ExitCode::from(crate::cmd_run::exit_code_of(s)),
        Err(e) => {
            eprintln!("pops verify-isa: {e}");
            ExitCode::from(2)
        }
    })
}

/// The input as text (assembly, a listing, or hex words): a binary file or an empty one is
/// named as such, never echoed. Pure.
fn code_text(bytes: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        format!(
            "{} bytes of binary data, not text: give the code as ACO/LLVM assembly or hex words \
             (or a SPIR-V module with --compile)",
            bytes.len()
        )
    })?;
    if let Some(c) = text.chars().find(|c| c.is_control() && !c.is_whitespace()) {
        return Err(format!(
            "not text: it holds the control character {} (give the code as ACO/LLVM assembly or \
             hex words, or a SPIR-V module with --compile)",
            c.escape_unicode()
        ));
    }
    if text.trim().is_empty() {
        return Err("the input is empty: no code to verify".into());
    }
    Ok(text.to_string())
}

/// RADV's assembly of the SPIR-V module `bytes` for `family`.
fn compile(
    family: Family,
    bytes: &[u8],
    a: &Args,
    device: &crate::null_device::NullDevice,
) -> Result<crate::radv_compile::Compiled, String> {
    let words =
        shaders::spirv::module::words_from_bytes(bytes).map_err(|e| format!("not SPIR-V: {e}"))?;
    let o = crate::radv_compile::Options {
        entry: &a.entry,
        dynamic_blend: a.dynamic_blend,
        samples: a.samples,
        device,
    };
    crate::radv_compile::fragment_assembly(family, &words, &o).map_err(|e| e.to_string())
}

fn exit_name(k: ExitKind) -> &'static str {
    match k {
        ExitKind::Endpgm => "s_endpgm",
        ExitKind::EndpgmOrderedPsDone => "s_endpgm_ordered_ps_done",
        ExitKind::EpilogJump => "epilog",
    }
}

fn document(
    family: Family,
    format: verify::Format,
    r: &Report,
    model: &Result<verify::model::ModelRun, verify::model::ModelFinding>,
) -> pops_report::VerifyIsaDocument {
    pops_report::VerifyIsaDocument {
        chip: family.name().to_string(),
        gfx_level: r.level.name().to_string(),
        input: format.name().to_string(),
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
        model: match model {
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
                finding: None,
            },
            Err(e) => pops_report::IsaModel {
                finding: Some(e.to_string()),
                ..Default::default()
            },
        },
        findings: r
            .findings
            .iter()
            .map(|f| pops_report::IsaFinding {
                rule: f.rule.code().to_string(),
                sentence: f.rule.sentence().to_string(),
                addr: f.addr,
                instruction: f.text.clone(),
                message: f.message.clone(),
                path: f.path.clone(),
            })
            .collect(),
    }
}

/// The text report. Pure.
pub fn render(
    family: Family,
    format: verify::Format,
    r: &Report,
    model: &Result<verify::model::ModelRun, verify::model::ModelFinding>,
) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let count = |k: ExitKind| r.exits.iter().filter(|e| e.kind == k).count();
    let _ = writeln!(
        o,
        "pops verify-isa: {} ({}), {}: {} instructions, {} wait loop(s), exits: {} s_endpgm, {} s_endpgm_ordered_ps_done, {} jump(s) into a PS epilog",
        family.name(),
        r.level.name(),
        format.name(),
        r.instructions,
        r.wait_loops.len(),
        count(ExitKind::Endpgm),
        count(ExitKind::EndpgmOrderedPsDone),
        count(ExitKind::EpilogJump),
    );
    if count(ExitKind::EpilogJump) > 0 {
        let _ = writeln!(
            o,
            "pops verify-isa: the exports of paths that jump into the PS epilog are the epilog's, not in this code: they are not checked here"
        );
    }
    match model {
        Ok(m) => {
            let _ = writeln!(
                o,
                "pops verify-isa: model: the entry sequence ({} instructions{}) ran {} times, {} waves, {} overlapped, {} wave-ID wraparounds: every ordered section in primitive order, no wait without overlap, no deadlock",
                m.entry_instructions,
                if m.skipped.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {} without scalar effect not run: vector ALU, scalar memory, pacing",
                        m.skipped.len()
                    )
                },
                m.runs,
                m.waves,
                m.overlapped_waves,
                m.wraps
            );
        }
        Err(e) => {
            let _ = writeln!(o, "pops verify-isa: model: {e}");
        }
    }
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
            .map(|a| format!("0x{a:x}"))
            .collect::<Vec<_>>()
            .join(" -> ");
        let _ = writeln!(o, "  {}: {}", f.rule.code(), f.message);
        let _ = writeln!(o, "    at 0x{:04x}: {}", f.addr, f.text);
        if !path.is_empty() {
            let _ = writeln!(o, "    path: {path}");
        }
        let _ = writeln!(o, "    rule: {}", f.rule.sentence());
    }
    o
}

#[cfg(test)]
mod tests {
    #[test]
    fn binary_and_empty_inputs_are_named_not_echoed() {
        let e = super::code_text(&[0x03, 0x02, 0x23, 0x07, 0xff, 0xfe]).unwrap_err();
        assert!(e.contains("6 bytes of binary data"), "{e}");
        let e = super::code_text(b"s_endpgm\x01").unwrap_err();
        assert!(e.contains("\\u{1}"), "{e}");
        assert!(super::code_text(b" \n").unwrap_err().contains("empty"));
        assert!(super::code_text(b"\ts_endpgm\n").is_ok());
    }
}
