//! What the layer knows of an object whose fragment stage it analysed: the fragment stage
//! ([`Fragment`]), a graphics pipeline library's contribution ([`Library`]), and an interlocked
//! pipeline or shader object that draws can bind ([`Interlocked`]).

use super::analysis::ModuleAnalysis;
use super::capture::{CapturedState, Dynamic};
use parking_lot::Mutex;
use pops_report::{AppliedExperiment, Bound, Source};
use std::sync::Arc;

/// A fragment stage: its analysis and entry point, where its SPIR-V came from.
#[derive(Clone, Debug)]
pub struct Fragment {
    pub analysis: Arc<ModuleAnalysis>,
    pub entry: String,
    pub source: Source,
    /// The stage's content hash (`shaders::spirv::stage_hash`); `None` where the SPIR-V is not
    /// visible (module identifiers, binaries).
    pub hash: Option<String>,
    /// The application's name of the shader module it came from, where it had one.
    pub module_name: Option<String>,
    /// Fossilize's hash of that module (`shaders::spirv::fossilize_module_hash`); `None` for
    /// shader objects and where the SPIR-V is not visible.
    pub fossilize_module: Option<String>,
    /// The interlock experiment applied to it, if any.
    pub experiment: Option<AppliedExperiment>,
    /// The `verify_isa` setting's findings on the driver's code of the pipeline (empty
    /// without the setting).
    pub isa: IsaVerdict,
}

/// The `verify_isa` findings of an object: known when it was created, or being reached by the
/// device's background verifier, so that pipeline creation does not wait for the verification.
#[derive(Clone, Debug)]
pub enum IsaVerdict {
    Ready(Arc<[pops_report::Diagnostic]>),
    Pending(Arc<PendingVerdict>),
}

impl Default for IsaVerdict {
    fn default() -> Self {
        IsaVerdict::Ready(Arc::new([]))
    }
}

impl From<Vec<pops_report::Diagnostic>> for IsaVerdict {
    fn from(v: Vec<pops_report::Diagnostic>) -> Self {
        IsaVerdict::Ready(v.into())
    }
}

impl IsaVerdict {
    /// The findings, waiting for the background verification where it has not finished (a
    /// draw recorded right after its pipeline was created).
    pub fn diagnostics(&self) -> Arc<[pops_report::Diagnostic]> {
        match self {
            IsaVerdict::Ready(d) => d.clone(),
            IsaVerdict::Pending(p) => p.wait(),
        }
    }
}

/// A verdict the background verifier has yet to give.
#[derive(Debug, Default)]
pub struct PendingVerdict {
    value: Mutex<Option<Arc<[pops_report::Diagnostic]>>>,
    given: parking_lot::Condvar,
}

impl PendingVerdict {
    /// Gives the verdict; every wait returns it.
    pub fn give(&self, verdict: Arc<[pops_report::Diagnostic]>) {
        *self.value.lock() = Some(verdict);
        self.given.notify_all();
    }

    /// Whether the verdict has been given.
    pub fn given(&self) -> bool {
        self.value.lock().is_some()
    }

    /// Waits for the verdict until `deadline` (without one, as long as it takes); whether it
    /// was given.
    pub fn wait_until(&self, deadline: Option<std::time::Instant>) -> bool {
        let mut v = self.value.lock();
        while v.is_none() {
            match deadline {
                Some(d) => {
                    if self.given.wait_until(&mut v, d).timed_out() {
                        return v.is_some();
                    }
                }
                None => self.given.wait(&mut v),
            }
        }
        true
    }

    /// The verdict, once given.
    pub fn wait(&self) -> Arc<[pops_report::Diagnostic]> {
        let mut v = self.value.lock();
        loop {
            if let Some(d) = &*v {
                return d.clone();
            }
            self.given.wait(&mut v);
        }
    }
}

/// What a graphics pipeline library contributes to pipelines linked from it.
#[derive(Clone, Debug)]
pub struct Library {
    pub fragment: Option<Fragment>,
    pub draw: CapturedState,
    /// The states the library declared dynamic: a pipeline linked from it takes them at draw
    /// time, whatever the link's own create info says (it provides none of that state).
    pub dynamic: crate::capture::Dynamic,
}

/// The application's name of an object while it lives: kept with the object, so that a
/// measurement read after the object is destroyed and its handle reused keeps its name.
#[derive(Debug, Default)]
pub struct LiveName(Mutex<Option<String>>);

impl LiveName {
    pub fn get(&self) -> Option<String> {
        self.0.lock().clone()
    }

    pub fn set(&self, name: Option<String>) {
        *self.0.lock() = name;
    }
}

/// A pipeline or fragment shader object whose fragment stage uses interlock (or did, before an
/// experiment removed it): what binding it brings to a draw.
#[derive(Debug)]
pub struct Interlocked {
    pub handle: u64,
    /// The device's n-th interlocked object, from 1, in creation order (set when the device
    /// remembers it): what names it across runs of a deterministic application.
    pub seq: u64,
    pub name: LiveName,
    pub bound: Bound,
    pub fragment: Fragment,
    /// The state fixed at creation.
    pub draw: CapturedState,
    /// The states set at draw time instead (all of them for shader objects).
    pub dynamic: Dynamic,
}

impl Interlocked {
    /// An object not yet numbered (the device numbers it when it remembers it).
    pub fn new(
        handle: u64,
        bound: Bound,
        fragment: Fragment,
        draw: CapturedState,
        dynamic: Dynamic,
    ) -> Interlocked {
        Interlocked {
            handle,
            seq: 0,
            name: LiveName::default(),
            bound,
            fragment,
            draw,
            dynamic,
        }
    }

    /// The application's name of the object, as it is now.
    pub fn name(&self) -> Option<String> {
        self.name.get()
    }

    /// The interlock that went down to the driver, as records and timing lines state it.
    pub fn interlock(&self) -> pops_report::Interlock {
        match super::analysis::fragment_entry(&self.fragment.analysis, &self.fragment.entry) {
            Ok(e) => pops_report::Interlock::of(e.interlock),
            Err(_) => pops_report::Interlock::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pending verdict is what a wait on another thread gets, once given.
    #[test]
    fn a_pending_verdict_is_waited_for() {
        let p = Arc::new(PendingVerdict::default());
        let v = IsaVerdict::Pending(p.clone());
        let waiter = std::thread::spawn(move || v.diagnostics());
        let given: Arc<[pops_report::Diagnostic]> = vec![pops_report::Diagnostic::new(
            pops_report::Severity::Info,
            pops_report::Code::ISA_VERIFIED,
            "given",
        )]
        .into();
        p.give(given.clone());
        assert_eq!(waiter.join().unwrap(), given);
        assert!(IsaVerdict::default().diagnostics().is_empty());
    }
}
