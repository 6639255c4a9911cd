//! RADV's pipeline binary data (VK_KHR_pipeline_binary's `vkGetPipelineBinaryDataKHR`): where
//! one shader's machine code lies in it, so that the code of a pipeline can be read without
//! asking the driver to print it (VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS, which
//! makes RADV disassemble and print its IRs).
//!
//! RADV serializes each shader of a pipeline as one binary: a header ending in the sizes of what
//! follows it, then the shader's statistics, then its code (instructions, then constant data).
//! The header's front — the shader's configuration and info — is a driver-internal structure
//! whose size changes between Mesa versions, so it is not read. What is read is the tail, whose
//! shape RADV 25.0 and 26.2 share, located by its own consistency:
//!
//! `… total_size [padding] | code_size exec_size ir_size disasm_size stats_size [more zero words] | stats | code`
//!
//! with `total_size` equal to the data's length, `ir_size` and `disasm_size` zero (the driver
//! does not serialize printed IR), `exec_size ≤ code_size`, and the header ending exactly where
//! the statistics and code fill the rest of the data. Exactly one place may fit; anything else —
//! a binary from another driver, RADV's LLVM back end (an ELF), a layout that moved — is a
//! named error, and the caller reads the code another way. The test command holds the result to
//! the driver's own disassembly on both Mesa versions.

/// How many zero words may follow `stats_size` before the statistics (RADV 25.0 has one,
/// `debug_info_size`; room for a few more).
const MAX_TRAILING_ZERO_WORDS: usize = 4;

/// Why no code was found in a binary's data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinaryError {
    #[error("the binary data ({0} bytes) is not RADV's serialized shader: no header tail whose sizes add up to its length")]
    NoHeader(usize),
    #[error("the binary data ({0} bytes) fits RADV's serialized shader at more than one place: ambiguous, not read")]
    Ambiguous(usize),
}

/// The shader's instructions (its first `exec_size` bytes of code, without constant data) in
/// one RADV pipeline binary's data.
pub fn machine_code(data: &[u8]) -> Result<&[u8], BinaryError> {
    let word = |at: usize| -> Option<u32> {
        let b = data.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let len = data.len();
    let mut found = None;
    // `p`: where code_size would be, right after total_size (the binary's size) or four bytes
    // after it: only those places are looked at further, every one of them (to find a second).
    // (A binary past 4 GiB has no size a header word can hold: no place.)
    let size = u32::try_from(len).ok();
    let (words, _) = data.as_chunks::<4>();
    let candidates = words
        .iter()
        .enumerate()
        .filter(|(_, w)| Some(u32::from_le_bytes(**w)) == size)
        .flat_map(|(i, _)| [4 * i + 4, 4 * i + 8]);
    let mut last = 0;
    for p in candidates {
        if p <= last || p + 20 >= len {
            continue;
        }
        last = p;
        let fits = || -> Option<(usize, usize)> {
            if word(p + 8)? != 0 || word(p + 12)? != 0 {
                return None;
            }
            let (code, exec, stats) = (
                word(p)? as usize,
                word(p + 4)? as usize,
                word(p + 16)? as usize,
            );
            if exec == 0 || exec > code || exec % 4 != 0 {
                return None;
            }
            let header = len.checked_sub(code)?.checked_sub(stats)?;
            let extra = header.checked_sub(p + 20)?;
            if extra % 4 != 0 || extra / 4 > MAX_TRAILING_ZERO_WORDS {
                return None;
            }
            (p + 20..header)
                .step_by(4)
                .all(|at| word(at) == Some(0))
                .then_some((header + stats, exec))
        };
        if let Some(at) = fits() {
            if found.replace(at).is_some() {
                return Err(BinaryError::Ambiguous(len));
            }
        }
    }
    let (start, exec) = found.ok_or(BinaryError::NoHeader(len))?;
    Ok(&data[start..start + exec])
}

/// How far into a shader object's data RADV's serialized shader may begin: its header (the
/// device's cache UUID, metadata, a flag, the binary's hash and its size) is 44 bytes in RADV 25.0
/// and 60 in 26.2; room for a larger one.
const MAX_SHADER_OBJECT_HEADER: usize = 256;

/// The serialized shader in one RADV shader object's data (VK_EXT_shader_object's
/// `vkGetShaderBinaryDataEXT`): a header that ends in the shader's size, then the shader itself
/// (read by [`machine_code`]), then at most three bytes of padding. A fragment shader object holds
/// one shader (vertex and geometry shaders add variants after it, which are not read). Found by
/// its own consistency, as the pipeline binary's tail is: exactly one header end whose size word
/// frames a serialized shader must fit, else a named error.
pub fn shader_object_shader(data: &[u8]) -> Result<&[u8], BinaryError> {
    let len = data.len();
    let mut found = None;
    for h in (8..=MAX_SHADER_OBJECT_HEADER.min(len)).step_by(4) {
        let b = &data[h - 4..h];
        let size = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let Some(end) = h.checked_add(size).filter(|&e| e <= len && len - e < 4) else {
            continue;
        };
        let shader = &data[h..end];
        if size > 0 && machine_code(shader).is_ok() && found.replace(shader).is_some() {
            return Err(BinaryError::Ambiguous(len));
        }
    }
    found.ok_or(BinaryError::NoHeader(len))
}

/// Little-endian code bytes as instruction words.
pub fn words(code: &[u8]) -> Vec<u32> {
    code.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary as RADV lays it out: `front` bytes of configuration and info, total_size, the
    /// six size words of RADV 25.0 (the last, debug_info_size, zero), statistics, code.
    fn binary(front: usize, stats: &[u8], code: &[u32], exec_words: usize) -> Vec<u8> {
        let code: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
        let total = front + 4 + 24 + stats.len() + code.len();
        let mut out = vec![0xAAu8; front];
        out[..4].copy_from_slice(&0u32.to_le_bytes());
        for w in [
            total as u32,
            code.len() as u32,
            4 * exec_words as u32,
            0,
            0,
            stats.len() as u32,
            0,
        ] {
            out.extend(w.to_le_bytes());
        }
        out.extend(stats);
        out.extend(&code);
        assert_eq!(out.len(), total);
        out
    }

    /// The code is found whatever the size of the header's front (it changes between Mesa
    /// versions), with and without statistics, and constant data after the instructions is
    /// left out.
    #[test]
    fn the_code_is_found_behind_any_front() {
        let code = [0xbf800000, 0xbf810000, 0x3f800000];
        for front in [8, 100, 1024, 4000] {
            for stats in [&[][..], &[7u8; 44][..]] {
                let data = binary(front, stats, &code, 2);
                let got = machine_code(&data).unwrap();
                assert_eq!(words(got), [0xbf800000, 0xbf810000], "front {front}");
            }
        }
    }

    /// A shader object's data: a header of the Mesa version's size ending in the shader's size,
    /// the serialized shader, and the padding RADV counts but does not write; the code is that of
    /// the shader inside. Data without that frame is a named error.
    #[test]
    fn a_shader_objects_shader_is_found_behind_its_header() {
        let code = [0xbf800000, 0xbf810000, 0x3f800000];
        for (header, stats) in [(44usize, &[][..]), (60, &[1u8; 112][..])] {
            let shader = binary(200, stats, &code, 2);
            for pad in [0usize, 3] {
                let mut data = vec![0x5au8; header - 4];
                data[16..20].copy_from_slice(&1u32.to_le_bytes());
                data.extend((shader.len() as u32).to_le_bytes());
                data.extend(&shader);
                data.extend(std::iter::repeat_n(0u8, pad));
                let got = shader_object_shader(&data).unwrap();
                assert_eq!(got, &shader[..], "header {header} pad {pad}");
                assert_eq!(words(machine_code(got).unwrap()), [0xbf800000, 0xbf810000]);
            }
        }
        assert!(shader_object_shader(&[]).is_err());
        assert!(shader_object_shader(&binary(200, &[], &code, 2)).is_err());
        assert!(shader_object_shader(&[0u8; 300]).is_err());
    }

    /// Data that is not such a binary, or whose sizes do not add up, is a named error.
    #[test]
    fn other_data_is_refused() {
        assert_eq!(machine_code(&[]), Err(BinaryError::NoHeader(0)));
        assert_eq!(
            machine_code(b"\x7fELF\x02\x01\x01\0"),
            Err(BinaryError::NoHeader(8))
        );
        let mut data = binary(64, &[], &[0xbf810000], 1);
        data.push(0);
        assert!(matches!(machine_code(&data), Err(BinaryError::NoHeader(_))));
        // printed IR serialized (ir_size ≠ 0): not the layout read here.
        let mut data = binary(64, &[], &[0xbf810000], 1);
        data[64 + 12..64 + 16].copy_from_slice(&1u32.to_le_bytes());
        assert!(machine_code(&data).is_err());
        // exec_size beyond code_size.
        let data = binary(64, &[], &[0xbf810000], 2);
        assert!(machine_code(&data).is_err());
    }
}
