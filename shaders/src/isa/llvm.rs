//! LLVM's AMDGPU disassembler (`llvm-mc --disassemble`) as an independent reader of the code we
//! emit.
//!
//! The encoder's tables were written by hand from the ISA manuals; the only way to know a word is
//! what we meant is to have someone else's decoder read it back. This module finds Debian
//! llvm-19's `llvm-mc`, feeds it the words, and brings its text and ours to one spelling
//! ([`normalize`]) so that they can be compared line by line. Whether a missing `llvm-mc` is a
//! skip or a failure is the caller's decision: here it is only a typed error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where Debian's llvm-19 package installs `llvm-mc` (installed in CI by
/// `scripts/install-deps.sh`).
pub const DEFAULT_LLVM_MC: &str = "/usr/lib/llvm-19/bin/llvm-mc";

/// Environment variable naming another `llvm-mc` to use instead of [`DEFAULT_LLVM_MC`].
pub const LLVM_MC_ENV: &str = "POPS_LLVM_MC";

/// Why LLVM could not read the words back.
#[derive(Debug, thiserror::Error)]
pub enum LlvmError {
    #[error("llvm-mc (Debian llvm-19) not installed at {}", .0.display())]
    NotInstalled(PathBuf),
    #[error("cannot run llvm-mc at {}: {source}", .path.display())]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("this llvm-mc does not know the processor {mcpu}:\n{stderr}")]
    UnknownProcessor { mcpu: String, stderr: String },
    #[error("llvm-mc rejected the words for {mcpu}:\n{stderr}")]
    Rejected { mcpu: String, stderr: String },
}

/// The wave size the disassembler assumes. It changes how some operands print (`vcc` or
/// `vcc_lo`), so it must match the code's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveSize {
    /// The processor's default (wave64 on GFX9, wave32 on GFX10+).
    ProcessorDefault,
    /// Wave64 (`-mattr=+wavefrontsize64` on GFX10+, where the size is a choice).
    Wave64,
}

/// `llvm-mc` from [`LLVM_MC_ENV`] or [`DEFAULT_LLVM_MC`], if it exists.
pub fn find_llvm_mc() -> Result<PathBuf, LlvmError> {
    let p = std::env::var_os(LLVM_MC_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LLVM_MC));
    if p.exists() {
        Ok(p)
    } else {
        Err(LlvmError::NotInstalled(p))
    }
}

/// The input `llvm-mc --disassemble` reads: each dword as its four little-endian bytes, one
/// dword a line.
pub fn hex_input(words: &[u32]) -> String {
    let mut text = String::new();
    for w in words {
        for b in w.to_le_bytes() {
            text.push_str(&format!("0x{b:02x} "));
        }
        text.push('\n');
    }
    text
}

/// The instruction texts of `llvm-mc`'s output: comments (the encodings) and directives dropped.
pub fn instruction_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect()
}

/// Disassembles `words` for the LLVM processor `mcpu` (`gfx1030`, …); one text per instruction.
pub fn disassemble(
    mc: &Path,
    mcpu: &str,
    wave: WaveSize,
    words: &[u32],
) -> Result<Vec<String>, LlvmError> {
    let mut cmd = Command::new(mc);
    cmd.args(["-arch=amdgcn", &format!("-mcpu={mcpu}"), "--disassemble"]);
    // GFX9 has no wave-size choice.
    if wave == WaveSize::Wave64 && !mcpu.starts_with("gfx9") {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let spawn_error = |source| LlvmError::Spawn {
        path: mc.to_path_buf(),
        source,
    };
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    // llvm-mc reads all of its input before it writes, so writing first cannot dead-lock.
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(hex_input(words).as_bytes())
            .map_err(spawn_error)?;
    }
    let out = child.wait_with_output().map_err(spawn_error)?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if stderr.contains("not a recognized processor") {
        return Err(LlvmError::UnknownProcessor {
            mcpu: mcpu.to_string(),
            stderr,
        });
    }
    if !out.status.success() || stderr.contains("invalid instruction encoding") {
        return Err(LlvmError::Rejected {
            mcpu: mcpu.to_string(),
            stderr,
        });
    }
    Ok(instruction_lines(&String::from_utf8_lossy(&out.stdout)))
}

/// One spelling for LLVM's text and ours: whitespace collapsed, every hexadecimal number that
/// starts a word written in decimal (`0x3ff` and `1023` are the same immediate; LLVM and our
/// text choose differently for some), and a branch's offset signed (disassemblers print a
/// backward branch's SIMM16 as an unsigned 16-bit value).
pub fn normalize(text: &str) -> String {
    let spaced = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut rest = spaced.as_str();
    while let Some(pos) = rest.find("0x") {
        let (head, tail) = rest.split_at(pos);
        let digits: String = tail[2..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        let boundary = head
            .chars()
            .last()
            .map(|c| !c.is_ascii_alphanumeric())
            .unwrap_or(true);
        let value = u64::from_str_radix(&digits, 16);
        match value {
            Ok(v) if boundary => {
                out.push_str(head);
                out.push_str(&v.to_string());
                rest = &tail[2 + digits.len()..];
            }
            _ => {
                out.push_str(head);
                out.push_str("0x");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    if out.starts_with("s_branch ") || out.starts_with("s_cbranch_") {
        if let Some((m, v)) = out.split_once(' ') {
            if let Ok(n) = v.parse::<i64>() {
                let signed = if n > 0x7fff { n - 0x10000 } else { n };
                return format!("{m} {signed}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_input_is_little_endian_bytes_one_dword_a_line() {
        assert_eq!(
            hex_input(&[0xbf81_0000, 0x0102_0304]),
            "0x00 0x00 0x81 0xbf \n0x04 0x03 0x02 0x01 \n"
        );
    }

    #[test]
    fn comments_and_directives_are_not_instructions() {
        let out = "\t.text\n\ts_endpgm ; encoding: [0x00,0x00,0x81,0xbf]\n\n";
        assert_eq!(instruction_lines(out), vec!["s_endpgm".to_string()]);
    }

    #[test]
    fn hexadecimal_immediates_read_as_decimal_only_at_the_start_of_a_word() {
        assert_eq!(normalize("s_movk_i32  s0,   0x3ff"), "s_movk_i32 s0, 1023");
        assert_eq!(
            normalize("global_load_dword v1, v[2:3], off offset:0x10"),
            "global_load_dword v1, v[2:3], off offset:16"
        );
        assert_eq!(normalize("v_mov_b32 v1, a0x10"), "v_mov_b32 v1, a0x10");
        assert_eq!(normalize("s_nop 0x"), "s_nop 0x");
    }

    #[test]
    fn a_backward_branch_is_signed() {
        assert_eq!(normalize("s_branch 0xfffe"), "s_branch -2");
        assert_eq!(normalize("s_cbranch_scc0 3"), "s_cbranch_scc0 3");
    }
}
