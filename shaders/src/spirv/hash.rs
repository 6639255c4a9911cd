//! The stable content hash of a fragment stage: what names a shader across processes, machines,
//! recycled handles and tools — the layer's report and log lines, `pops run`'s table and
//! `pops inspect` print the same value for the same stage.
//!
//! FNV-1a (64-bit) over the module's words in host order (a byte-swapped module hashes like its
//! native form), the entry point's name, and the specialization constants (each map entry's
//! constant ID, offset and size, then the data), with a separator between the parts. Printed as
//! 16 hex digits.

use std::hash::Hasher;

/// Specialization constants of a stage (VkSpecializationInfo), as raw values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Specialization {
    /// (constantID, offset, size) per map entry.
    pub entries: Vec<(u32, u32, u64)>,
    pub data: Vec<u8>,
}

/// The stage's hash: `words` in host order, the entry point, the specialization if any.
pub fn stage_hash(words: &[u32], entry: &str, spec: Option<&Specialization>) -> String {
    let mut h = fnv::FnvHasher::default();
    for w in words {
        h.write(&w.to_le_bytes());
    }
    h.write(&[0xff]);
    h.write(entry.as_bytes());
    h.write(&[0xff]);
    if let Some(s) = spec {
        for (id, offset, size) in &s.entries {
            h.write(&id.to_le_bytes());
            h.write(&offset.to_le_bytes());
            h.write(&size.to_le_bytes());
        }
        h.write(&[0xfe]);
        h.write(&s.data);
    }
    format!("{:016x}", h.finish())
}

/// Fossilize's hash of a shader module (`Fossilize::Hashing::compute_hash_shader_module`): what
/// names the module in a Fossilize archive (`fossilize-list --tag 4` prints it), so that a
/// stage seen while an archive is replayed names the archive's module and, through it, the
/// archive's pipelines. Over the module's words as the application gave them, then its
/// `VkShaderModuleCreateFlags`: each 32-bit value `v` turns the state `h` (from
/// 0xcbf29ce484222325) into `h * 0x100000001b3 ^ v`. Printed as 16 hex digits.
pub fn fossilize_module_hash(words: &[u32], flags: u32) -> String {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let step = |h: u64, v: u32| h.wrapping_mul(PRIME) ^ u64::from(v);
    let h = words.iter().fold(0xcbf2_9ce4_8422_2325, |h, &w| step(h, w));
    format!("{:016x}", step(h, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_depends_on_words_entry_and_specialization_only() {
        let w = [0x0723_0203u32, 0x0001_0000, 0, 8, 0];
        let a = stage_hash(&w, "main", None);
        assert_eq!(a.len(), 16);
        assert_eq!(a, stage_hash(&w, "main", None), "stable");
        assert_ne!(a, stage_hash(&w, "other", None));
        assert_ne!(a, stage_hash(&w[..4], "main", None));
        let s = Specialization {
            entries: vec![(0, 0, 4)],
            data: vec![1, 0, 0, 0],
        };
        let b = stage_hash(&w, "main", Some(&s));
        assert_ne!(a, b);
        let s2 = Specialization {
            data: vec![2, 0, 0, 0],
            ..s.clone()
        };
        assert_ne!(b, stage_hash(&w, "main", Some(&s2)));
        // An empty specialization is not the same as none: the application passed one.
        assert_ne!(a, stage_hash(&w, "main", Some(&Specialization::default())));
    }

    /// The module hash as Fossilize computes it (its `Hasher`, by hand for this header): the
    /// words, then the flags. That a replayed stage's value is one of the archive's modules is
    /// held by oit/tests/replay.rs against `fossilize-list`.
    #[test]
    fn the_fossilize_module_hash_is_fossilizes() {
        let w = [0x0723_0203u32, 0x0001_0000, 0, 8, 0];
        assert_eq!(fossilize_module_hash(&w, 0), "1c2c72731e23855c");
        assert_ne!(fossilize_module_hash(&w, 0), fossilize_module_hash(&w, 1));
    }
}
