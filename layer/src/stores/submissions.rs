//! A device's submissions, for the report of a device loss: the draw records of each command
//! buffer (its own and its executed secondaries'), and the bookkeeping of crate::model::in_flight
//! behind its own lock. Until a command buffer has interlocked draw records and while nothing
//! with them is in flight, a submission costs two atomic loads and a count.

use crate::model::in_flight::{Batch, InFlight, Loss, Submitted};
use crate::model::lost::Recorded;
use crate::model::record::DrawRecord;
use crate::model::FastHash;
use parking_lot::{Mutex, MutexGuard};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

type Draws = Vec<Arc<DrawRecord>>;
type Map<V> = HashMap<u64, V, FastHash>;

#[derive(Default)]
struct Buffers {
    /// Each ended command buffer's interlocked draw records, its secondaries' included.
    own: Map<Recorded>,
    /// The secondaries' records a primary executed while recording.
    executed: Map<Draws>,
}

#[derive(Default)]
pub struct Submissions {
    /// vkQueueSubmit and vkQueueSubmit2 calls on the device.
    count: AtomicU64,
    /// Command buffers with interlocked draw records.
    drawn: AtomicUsize,
    /// Whether anything with interlocked draws may be in flight.
    busy: AtomicBool,
    lost: AtomicBool,
    buffers: Mutex<Buffers>,
    in_flight: Mutex<InFlight<Recorded>>,
    /// Timeline semaphores (their values mean something; a binary semaphore's are ignored).
    timelines: Mutex<HashSet<u64>>,
    any_timeline: AtomicBool,
}

impl Submissions {
    fn buffers(&self) -> MutexGuard<'_, Buffers> {
        self.buffers.lock()
    }

    fn in_flight(&self) -> MutexGuard<'_, InFlight<Recorded>> {
        self.in_flight.lock()
    }

    fn recount(&self, b: &Buffers) {
        self.drawn
            .store(b.own.len() + b.executed.len(), Ordering::Relaxed);
    }

    fn timelines(&self) -> MutexGuard<'_, HashSet<u64>> {
        self.timelines.lock()
    }

    pub fn timeline_created(&self, semaphore: u64) {
        self.timelines().insert(semaphore);
        self.any_timeline.store(true, Ordering::Relaxed);
    }

    pub fn semaphore_destroyed(&self, semaphore: u64) {
        if self.any_timeline.load(Ordering::Relaxed) {
            self.timelines().remove(&semaphore);
        }
    }

    pub fn is_timeline(&self, semaphore: u64) -> bool {
        self.any_timeline.load(Ordering::Relaxed) && self.timelines().contains(&semaphore)
    }

    /// The next submission's number on the device, from 1.
    pub fn number(&self) -> u64 {
        self.count.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether a submission needs its batches read: some command buffer has interlocked draws
    /// or such work may be in flight. Never after the loss.
    pub fn tracking(&self) -> bool {
        !self.lost.load(Ordering::Relaxed)
            && (self.drawn.load(Ordering::Relaxed) > 0 || self.busy.load(Ordering::Relaxed))
    }

    /// Whether interlocked work may be in flight: what the host learns of completion matters.
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// `cb` ended with `records` (its interlocked draw records).
    pub fn ended(&self, cb: u64, records: Draws) {
        if records.is_empty() && self.drawn.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut b = self.buffers();
        let mut all = b.executed.remove(&cb).unwrap_or_default();
        all.extend(records);
        if all.is_empty() {
            b.own.remove(&cb);
        } else {
            b.own.insert(cb, all.into());
        }
        self.recount(&b);
    }

    /// `primary` executed `secondaries` (vkCmdExecuteCommands).
    pub fn executed(&self, primary: u64, secondaries: &[u64]) {
        if self.drawn.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut b = self.buffers();
        let records: Draws = secondaries
            .iter()
            .filter_map(|s| b.own.get(s))
            .flat_map(|r| r.iter().cloned())
            .collect();
        if !records.is_empty() {
            b.executed.entry(primary).or_default().extend(records);
            self.recount(&b);
        }
    }

    /// Command buffers begun again, reset or freed: their records are gone.
    pub fn forget(&self, cbs: &[u64]) {
        if self.drawn.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut b = self.buffers();
        for cb in cbs {
            b.own.remove(cb);
            b.executed.remove(cb);
        }
        self.recount(&b);
    }

    /// The interlocked draw records of command buffers, in order: one shared list per command
    /// buffer that has any.
    pub fn draws_of(&self, cbs: &[u64]) -> Vec<Recorded> {
        if self.drawn.load(Ordering::Relaxed) == 0 {
            return Vec::new();
        }
        let b = self.buffers();
        cbs.iter().filter_map(|cb| b.own.get(cb).cloned()).collect()
    }

    /// A submission the driver accepted; the sequence of its last batch.
    pub fn submitted(
        &self,
        queue: u64,
        submission: u64,
        batches: Vec<Batch<Recorded>>,
        fence: Option<u64>,
    ) -> Option<u64> {
        let mut f = self.in_flight();
        let last = f.submit(queue, submission, batches, fence);
        self.busy.store(!f.idle(), Ordering::Relaxed);
        last
    }

    /// Batches known complete from the timing's results (each with what came before it).
    pub fn batches_done(&self, batches: &[(u64, u64)]) {
        if batches.is_empty() {
            return;
        }
        self.learn(|f| {
            for &(q, s) in batches {
                f.batch_done(q, s);
            }
        });
    }

    /// Learns what completed from `f`, where anything is in flight.
    fn learn(&self, f: impl FnOnce(&mut InFlight<Recorded>)) {
        if !self.busy.load(Ordering::Relaxed) {
            return;
        }
        let mut g = self.in_flight();
        f(&mut g);
        self.busy.store(!g.idle(), Ordering::Relaxed);
    }

    pub fn fences_signaled(&self, fences: impl IntoIterator<Item = u64>) {
        self.learn(|f| {
            for fence in fences {
                f.fence_signaled(fence);
            }
        });
    }

    pub fn semaphores_reached(&self, values: &[(u64, u64)]) {
        self.learn(|f| {
            for &(s, v) in values {
                f.semaphore_reached(s, v);
            }
        });
    }

    pub fn queue_idle(&self, queue: u64) {
        self.learn(|f| f.queue_idle(queue));
    }

    pub fn device_idle(&self) {
        self.learn(InFlight::device_idle);
    }

    /// A fence or semaphore that something other than a submission signals next.
    pub fn signaled_elsewhere(&self, fence: Option<u64>, semaphore: Option<u64>) {
        self.learn(|f| f.signaled_elsewhere(fence, semaphore));
    }

    /// The queue a fence's last submission went to.
    pub fn queue_of_fences(&self, fences: &[u64]) -> Option<u64> {
        let f = self.in_flight();
        fences.iter().find_map(|x| f.queue_of_fence(*x))
    }

    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    /// The loss, the first time it is seen (`queue`: what the call concerned); `None` after.
    pub fn lost(&self, queue: Option<u64>) -> Option<Loss<Recorded>> {
        if self.lost.swap(true, Ordering::SeqCst) {
            return None;
        }
        Some(self.in_flight().loss(queue))
    }

    /// The draws of a call's batches, as the submission whose call returned the loss.
    pub fn at_loss(
        queue: u64,
        submission: u64,
        batches: Vec<Batch<Recorded>>,
    ) -> Vec<Submitted<Recorded>> {
        batches
            .into_iter()
            .filter(|b| !b.draws.is_empty())
            .map(|b| Submitted {
                queue,
                submission,
                draws: b.draws,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::in_flight::Batch;
    use pops_report::{Interlock, Kind, Source, SCHEMA_VERSION};

    fn record(id: u64) -> Arc<DrawRecord> {
        Arc::new(DrawRecord::written(crate::model::record::Record {
            schema_version: SCHEMA_VERSION,
            id,
            app: String::new(),
            device: String::new(),
            kind: Kind::Draw,
            handle: "0x1".into(),
            entry_point: "main".into(),
            stage_hash: None,
            interlock: Interlock::None,
            begin_count: 0,
            end_count: 0,
            per_sample: false,
            samples: Some(1),
            chip: None,
            state: None,
            registers: Default::default(),
            pm4: Arc::from(Vec::<u32>::new()),
            diagnostics: Vec::new(),
            source: Source::ShaderModule,
            command_buffer: None,
            bound: None,
            draws: Some(1),
            command_buffers: None,
            name: None,
            module_name: None,
            fossilize_module: None,
            null_device: None,
            driver: None,
            object: None,
            experiment: None,
        }))
    }

    fn ids(l: &[Submitted<Recorded>]) -> Vec<u64> {
        l.iter()
            .flat_map(|s| s.draws.iter().flat_map(|cb| cb.iter().map(|r| r.id)))
            .collect()
    }

    /// A primary carries the records of the secondaries it executed; records go with a command
    /// buffer's reset.
    #[test]
    fn secondaries_records_go_with_their_primary() {
        let s = Submissions::default();
        assert!(!s.tracking());
        s.ended(0x2, vec![record(1)]);
        s.executed(0x1, &[0x2, 0x3]);
        s.ended(0x1, vec![record(2)]);
        assert!(s.tracking());
        assert_eq!(
            s.draws_of(&[0x1])[0]
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
            [1, 2]
        );
        s.forget(&[0x1, 0x2]);
        assert!(s.draws_of(&[0x1]).is_empty());
        assert!(!s.tracking());
    }

    /// A loss seen first by a wait on another thread still names what the submitting thread
    /// had in flight, and it is reported once.
    #[test]
    fn a_loss_seen_by_a_wait_on_another_thread() {
        let s = Arc::new(Submissions::default());
        s.ended(0xc, vec![record(7)]);
        let submitter = {
            let s = s.clone();
            std::thread::spawn(move || {
                for _ in 0..3 {
                    let n = s.number();
                    let draws = s.draws_of(&[0xc]);
                    s.submitted(
                        0x5,
                        n,
                        vec![Batch {
                            draws,
                            ..Batch::default()
                        }],
                        Some(0xf),
                    );
                }
            })
        };
        submitter.join().unwrap();
        let waiter = {
            let s = s.clone();
            std::thread::spawn(move || {
                let queue = s.queue_of_fences(&[0xf]);
                (queue, s.lost(queue))
            })
        };
        let (queue, loss) = waiter.join().unwrap();
        assert_eq!(queue, Some(0x5));
        let loss = loss.expect("the first loss is reported");
        assert_eq!(ids(&loss.in_flight), [7, 7, 7]);
        assert_eq!(
            loss.in_flight
                .iter()
                .map(|x| x.submission)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert!(s.lost(queue).is_none(), "one report per device");
        assert!(!s.tracking(), "nothing is tracked after the loss");
    }
}
