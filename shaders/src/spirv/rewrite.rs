//! The interlock experiments as SPIR-V rewrites: what the layer does to a fragment stage before
//! it goes down, so that an engineer can measure the article's trade-offs in their own
//! application (pixel vs sample interlock, ordered vs unordered, interlock vs none).
//!
//! A rewrite changes only the interlock execution modes of fragment entry points, the interlock
//! capabilities they need, and — for [`Experiment::NoInterlock`] — the begin/end instructions and
//! the extension. Everything else is copied word for word. Rewriting an already rewritten module
//! changes nothing (idempotent). Shading-rate interlock is left alone: the module is refused
//! with [`RewriteError::ShadingRate`].

use super::module::{host_order_words, parse_header, Instructions, SpirvError};
use super::table::{Capability, ExecutionMode, ExecutionModel, Op};
use std::fmt;

/// One experiment: how the interlock of the application's fragment shaders is changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Experiment {
    /// Pixel interlock becomes sample interlock (same ordering).
    PixelToSample,
    /// Sample interlock becomes pixel interlock (same ordering).
    SampleToPixel,
    /// Ordered interlock becomes unordered (same granularity).
    OrderedToUnordered,
    /// Unordered interlock becomes ordered (same granularity).
    UnorderedToOrdered,
    /// The interlock is removed: modes, begin/end, capability and extension.
    NoInterlock,
}

impl Experiment {
    pub const ALL: [Experiment; 5] = [
        Experiment::PixelToSample,
        Experiment::SampleToPixel,
        Experiment::OrderedToUnordered,
        Experiment::UnorderedToOrdered,
        Experiment::NoInterlock,
    ];

    /// The setting's spelling: `pixel-to-sample`, `sample-to-pixel`, `ordered-to-unordered`,
    /// `unordered-to-ordered`, `no-interlock`.
    pub const fn name(self) -> &'static str {
        match self {
            Experiment::PixelToSample => "pixel-to-sample",
            Experiment::SampleToPixel => "sample-to-pixel",
            Experiment::OrderedToUnordered => "ordered-to-unordered",
            Experiment::UnorderedToOrdered => "unordered-to-ordered",
            Experiment::NoInterlock => "no-interlock",
        }
    }

    pub fn parse(name: &str) -> Option<Experiment> {
        let n = name.trim().to_ascii_lowercase();
        Experiment::ALL.into_iter().find(|e| e.name() == n)
    }

    /// The mode an interlock mode becomes: `Some(new)`, or `None` when it is removed. Modes the
    /// experiment does not concern map to themselves.
    pub fn map(self, m: ExecutionMode) -> Option<ExecutionMode> {
        use ExecutionMode as M;
        let swap = |pairs: &[(M, M)]| pairs.iter().find(|(a, _)| *a == m).map_or(m, |(_, b)| *b);
        match self {
            Experiment::PixelToSample => Some(swap(&[
                (M::PixelInterlockOrderedEXT, M::SampleInterlockOrderedEXT),
                (
                    M::PixelInterlockUnorderedEXT,
                    M::SampleInterlockUnorderedEXT,
                ),
            ])),
            Experiment::SampleToPixel => Some(swap(&[
                (M::SampleInterlockOrderedEXT, M::PixelInterlockOrderedEXT),
                (
                    M::SampleInterlockUnorderedEXT,
                    M::PixelInterlockUnorderedEXT,
                ),
            ])),
            Experiment::OrderedToUnordered => Some(swap(&[
                (M::PixelInterlockOrderedEXT, M::PixelInterlockUnorderedEXT),
                (M::SampleInterlockOrderedEXT, M::SampleInterlockUnorderedEXT),
            ])),
            Experiment::UnorderedToOrdered => Some(swap(&[
                (M::PixelInterlockUnorderedEXT, M::PixelInterlockOrderedEXT),
                (M::SampleInterlockUnorderedEXT, M::SampleInterlockOrderedEXT),
            ])),
            Experiment::NoInterlock => (!is_interlock(m)).then_some(m),
        }
    }
}

impl fmt::Display for Experiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn is_interlock(m: ExecutionMode) -> bool {
    use ExecutionMode as M;
    matches!(
        m,
        M::PixelInterlockOrderedEXT
            | M::PixelInterlockUnorderedEXT
            | M::SampleInterlockOrderedEXT
            | M::SampleInterlockUnorderedEXT
    )
}

fn is_shading_rate(m: ExecutionMode) -> bool {
    matches!(
        m,
        ExecutionMode::ShadingRateInterlockOrderedEXT
            | ExecutionMode::ShadingRateInterlockUnorderedEXT
    )
}

/// The capability an interlock mode needs.
fn capability_of(m: ExecutionMode) -> Option<Capability> {
    use ExecutionMode as M;
    match m {
        M::PixelInterlockOrderedEXT | M::PixelInterlockUnorderedEXT => {
            Some(Capability::FragmentShaderPixelInterlockEXT)
        }
        M::SampleInterlockOrderedEXT | M::SampleInterlockUnorderedEXT => {
            Some(Capability::FragmentShaderSampleInterlockEXT)
        }
        _ => None,
    }
}

/// Why a module was left alone.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    #[error("the module is not valid SPIR-V: {0}")]
    Spirv(#[from] SpirvError),
    #[error("the module uses shading-rate interlock, which the experiments leave alone")]
    ShadingRate,
}

/// A rewritten module: its words and each mode change as (old, new; `None` = removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    pub words: Vec<u32>,
    pub changes: Vec<(ExecutionMode, Option<ExecutionMode>)>,
}

impl Rewrite {
    /// Whether anything was changed.
    pub fn changed(&self) -> bool {
        !self.changes.is_empty()
    }
}

const EXTENSION: &str = "SPV_EXT_fragment_shader_interlock";

/// Applies `experiment` to the fragment entry points of a module. A module with nothing the
/// experiment concerns comes back unchanged (no changes).
pub fn rewrite(words: &[u32], experiment: Experiment) -> Result<Rewrite, RewriteError> {
    let words = host_order_words(words)?;
    let words = &words[..];
    parse_header(words)?;
    // Pass 1: the fragment entry points and the interlock modes on them.
    let mut fragment = Vec::new();
    let mut modes = Vec::new();
    for ins in Instructions::new(words) {
        let ins = ins?;
        match ins.op {
            Op::EntryPoint if ExecutionModel(ins.operand(1)?) == ExecutionModel::Fragment => {
                fragment.push(ins.operand(2)?);
            }
            Op::ExecutionMode => {
                let m = ExecutionMode(ins.operand(2)?);
                if is_shading_rate(m) {
                    return Err(RewriteError::ShadingRate);
                }
                if is_interlock(m) {
                    modes.push((ins.operand(1)?, m));
                }
            }
            _ => {}
        }
    }
    let changes: Vec<(ExecutionMode, Option<ExecutionMode>)> = modes
        .iter()
        .filter(|(entry, _)| fragment.contains(entry))
        .filter_map(|&(_, m)| {
            let to = experiment.map(m);
            (to != Some(m)).then_some((m, to))
        })
        .collect();
    if changes.is_empty() {
        return Ok(Rewrite {
            words: words.to_vec(),
            changes,
        });
    }
    // The interlock capabilities the modes need afterwards (other entry points' included).
    let mut needed: Vec<Capability> = modes
        .iter()
        .filter_map(|&(entry, m)| {
            if fragment.contains(&entry) {
                experiment.map(m)
            } else {
                Some(m)
            }
        })
        .filter_map(capability_of)
        .collect();
    needed.sort_by_key(|c| c.0);
    needed.dedup();
    let remove_all = experiment == Experiment::NoInterlock && needed.is_empty();
    // Pass 2: copy, changing only what the experiment concerns.
    let mut out = Vec::with_capacity(words.len() + 2);
    out.extend_from_slice(&words[..5]);
    let mut capabilities_placed = false;
    for ins in Instructions::new(words) {
        let ins = ins?;
        match ins.op {
            Op::Capability if capability_of_cap(Capability(ins.operand(1)?)) => {
                if !capabilities_placed {
                    for c in &needed {
                        out.extend_from_slice(&[(2 << 16) | u32::from(Op::Capability.0), c.0]);
                    }
                    capabilities_placed = true;
                }
            }
            Op::Extension if remove_all && ins.string(1)?.0 == EXTENSION => {}
            Op::ExecutionMode => {
                let (entry, m) = (ins.operand(1)?, ExecutionMode(ins.operand(2)?));
                if is_interlock(m) && fragment.contains(&entry) {
                    if let Some(to) = experiment.map(m) {
                        out.extend_from_slice(&[ins.words[0], entry, to.0]);
                    }
                } else {
                    out.extend_from_slice(ins.words);
                }
            }
            Op::BeginInvocationInterlockEXT | Op::EndInvocationInterlockEXT
                if experiment == Experiment::NoInterlock => {}
            _ => out.extend_from_slice(ins.words),
        }
    }
    Ok(Rewrite {
        words: out,
        changes,
    })
}

fn capability_of_cap(c: Capability) -> bool {
    matches!(
        c,
        Capability::FragmentShaderPixelInterlockEXT | Capability::FragmentShaderSampleInterlockEXT
    )
}
