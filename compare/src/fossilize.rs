//! What a Fossilize archive's graphics pipelines are made of, as Fossilize's own lister prints
//! it (`fossilize-list --tag 6 --connectivity`): each pipeline's hash, the shader modules it
//! names and the pipeline libraries it links. The layer's records carry the Fossilize hash of the
//! fragment stage's module (`shaders::spirv::fossilize_module_hash`); this says which of the
//! archive's pipelines a record can be, so that `pops replay` names a finding by the archive's
//! own pipeline hash.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Fossilize's resource tags (`fossilize_db.hpp`, `ResourceTag`) that a pipeline's line names.
const TAG_SHADER_MODULE: u32 = 4;
const TAG_GRAPHICS_PIPELINE: u32 = 6;

/// Why an archive's pipelines could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("cannot run {lister}: {reason}")]
    Run { lister: String, reason: String },
    #[error("{lister} failed on {archive}: {stderr}")]
    Failed {
        lister: String,
        archive: String,
        stderr: String,
    },
    #[error(
        "line {line} of the archive's pipeline list is not `HASH : name(tag):HASH, …`: {text:?}"
    )]
    Line { line: usize, text: String },
}

/// One graphics pipeline of an archive: the modules of its own stages and the libraries it links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Parts {
    modules: Vec<String>,
    libraries: Vec<String>,
}

/// An archive's graphics pipelines, by hash (16 hex digits, as the lister prints them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchivePipelines {
    pipelines: BTreeMap<String, Parts>,
}

impl ArchivePipelines {
    /// Reads the lister's `--connectivity` output: `HASH : name(tag):HASH, name(tag):HASH, `.
    pub fn parse(text: &str) -> Result<Self, ListError> {
        let mut pipelines = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = || ListError::Line {
                line: i + 1,
                text: line.to_string(),
            };
            let (hash, rest) = line.split_once(" : ").ok_or_else(bad)?;
            let hash = hex16(hash.trim()).ok_or_else(bad)?;
            let mut parts = Parts::default();
            for item in rest.split(", ").map(str::trim).filter(|s| !s.is_empty()) {
                let (name_tag, h) = item.rsplit_once(':').ok_or_else(bad)?;
                let tag = name_tag
                    .rsplit_once('(')
                    .and_then(|(_, t)| t.strip_suffix(')'))
                    .and_then(|t| t.parse::<u32>().ok())
                    .ok_or_else(bad)?;
                let h = hex16(h).ok_or_else(bad)?;
                match tag {
                    TAG_SHADER_MODULE => parts.modules.push(h),
                    TAG_GRAPHICS_PIPELINE => parts.libraries.push(h),
                    _ => {}
                }
            }
            pipelines.insert(hash, parts);
        }
        Ok(Self { pipelines })
    }

    /// The archive's pipelines whose fragment stage can come from `module`: those with it among
    /// their own stages, and those linking a library that has it (at any depth). Sorted.
    pub fn with_module(&self, module: &str) -> Vec<String> {
        self.pipelines
            .keys()
            .filter(|p| self.holds(p, module, 0))
            .cloned()
            .collect()
    }

    /// Whether another pipeline of the archive links `pipeline` (a library, or the base of a
    /// derivative).
    pub fn is_linked(&self, pipeline: &str) -> bool {
        self.pipelines
            .values()
            .any(|p| p.libraries.iter().any(|l| l == pipeline))
    }

    fn holds(&self, pipeline: &str, module: &str, depth: usize) -> bool {
        // Libraries link libraries a few levels deep at most; a cycle is a broken archive.
        if depth > 8 {
            return false;
        }
        self.pipelines.get(pipeline).is_some_and(|p| {
            p.modules.iter().any(|m| m == module)
                || p.libraries.iter().any(|l| self.holds(l, module, depth + 1))
        })
    }

    pub fn len(&self) -> usize {
        self.pipelines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pipelines.is_empty()
    }
}

/// `archive`'s graphics pipelines, listed by `lister` (Fossilize's `fossilize-list`).
pub fn list(lister: &Path, archive: &Path) -> Result<ArchivePipelines, ListError> {
    let name = lister.display().to_string();
    let out = Command::new(lister)
        .args([
            "--tag",
            &TAG_GRAPHICS_PIPELINE.to_string(),
            "--connectivity",
        ])
        .arg(archive)
        .output()
        .map_err(|e| ListError::Run {
            lister: name.clone(),
            reason: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(ListError::Failed {
            lister: name,
            archive: archive.display().to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    ArchivePipelines::parse(&String::from_utf8_lossy(&out.stdout))
}

/// `s` as 16 lower-case hex digits, where it is a 64-bit hash.
fn hex16(s: &str) -> Option<String> {
    (s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit())).then(|| s.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lister's output for two pipelines of one module, and a pipeline linking a library.
    const LISTED: &str = "\
00d43453456c4f56 : shaderModule(4):496ac40991315bb8, shaderModule(4):9ff8e083cc9352a7, pipelineLayout(3):a9e90fc62e87961c, renderPass(5):0000000000000000, \n\
7016df95b4f7657f : shaderModule(4):496ac40991315bb8, shaderModule(4):9ff8e083cc9352a7, pipelineLayout(3):a9e90fc62e87961c, renderPass(5):0000000000000000, \n\
1111111111111111 : shaderModule(4):3171b66e25ec992d, pipelineLayout(3):a9e90fc62e87961c, \n\
2222222222222222 : graphicsPipeline(6):1111111111111111, pipelineLayout(3):a9e90fc62e87961c, \n";

    #[test]
    fn a_module_names_the_pipelines_with_it_and_those_linking_a_library_with_it() {
        let a = ArchivePipelines::parse(LISTED).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(
            a.with_module("9ff8e083cc9352a7"),
            ["00d43453456c4f56", "7016df95b4f7657f"]
        );
        assert_eq!(
            a.with_module("3171b66e25ec992d"),
            ["1111111111111111", "2222222222222222"]
        );
        assert!(a.with_module("0000000000000001").is_empty());
        assert!(a.is_linked("1111111111111111"));
        assert!(!a.is_linked("2222222222222222"));
    }

    #[test]
    fn a_line_that_is_not_the_listers_is_named() {
        let e = ArchivePipelines::parse("00d43453456c4f56 shaderModule\n").unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        let e = ArchivePipelines::parse("00d4 : shaderModule(4):496ac40991315bb8, \n").unwrap_err();
        assert!(matches!(e, ListError::Line { line: 1, .. }), "{e}");
    }
}
