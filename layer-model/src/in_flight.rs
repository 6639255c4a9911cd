//! What was submitted and is not yet known complete, for the report of a device loss: per queue,
//! the interlocked draws of each batch until something the application learns tells the layer
//! the batch completed — a fence it waited for, a timeline semaphore value it read, an idle
//! queue or device, or the completion of a batch that waited for the batch's semaphore — and
//! then the last few such batches. Pure bookkeeping over opaque handles (`u64`) and draws of any
//! type `T`: the store (crate::stores::Submissions) owns it behind its lock.
//!
//! What completion implies follows the specification's signal operations: a fence or semaphore
//! signal operation of a queue submission includes every command earlier in submission order
//! on that queue, so learning that batch `n` of a queue completed completes every earlier batch
//! of the queue too. A semaphore wait completes only after the signal it waits for, so a
//! completed batch completes the batches whose semaphores it waited on (a binary semaphore's
//! wait pairs with the last signal submitted before it; a timeline wait for value v with every
//! signal of value <= v).
//!
//! Memory is bounded: batches without interlocked draws are never kept (only their number, and
//! their semaphores while earlier interlocked work on their queue is not known complete), at
//! most [`PENDING_PER_QUEUE`] batches per queue wait for completion (older ones are counted as
//! not kept), [`RECENT_PER_QUEUE`] completed ones are remembered.

use crate::FastHash;
use std::collections::{HashMap, VecDeque};

/// Batches with interlocked draws kept per queue while not known complete.
pub const PENDING_PER_QUEUE: usize = 256;
/// Completed batches with interlocked draws remembered per queue: a few frames' worth.
pub const RECENT_PER_QUEUE: usize = 8;
/// Waits kept per queue while the signals they wait for are not known complete.
const WAITS_PER_QUEUE: usize = 256;
/// Signals kept per semaphore while their queue's work is not known complete.
const SIGNALS_PER_SEMAPHORE: usize = 64;

/// A semaphore operation of a batch: the semaphore and its value (0 for a binary semaphore).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SemaphoreOp {
    pub semaphore: u64,
    pub value: u64,
}

/// One batch of a submission (a VkSubmitInfo, VkSubmitInfo2 or VkBindSparseInfo).
#[derive(Clone, Debug)]
pub struct Batch<T> {
    /// The interlocked draws of its command buffers, in order.
    pub draws: Vec<T>,
    pub waits: Vec<SemaphoreOp>,
    pub signals: Vec<SemaphoreOp>,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Batch {
            draws: Vec::new(),
            waits: Vec::new(),
            signals: Vec::new(),
        }
    }
}

/// The interlocked draws of one batch, and where it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted<T> {
    pub queue: u64,
    /// The submission's number on the device, from 1.
    pub submission: u64,
    pub draws: Vec<T>,
}

/// A batch by its position: its queue and its sequence number on the device.
type At = (u64, u64);

/// What a waiting batch's completion completes.
#[derive(Clone, Copy, Debug)]
enum Signaler {
    /// The batch that made the binary semaphore's signal the wait consumed.
    Batch(At),
    /// Every signal of the timeline semaphore up to the value.
    Timeline(SemaphoreOp),
}

#[derive(Debug)]
struct QueueLog<T> {
    /// Batches with interlocked draws not known complete, oldest first, with their sequence.
    pending: VecDeque<(u64, Submitted<T>)>,
    /// The last batches with interlocked draws known complete, oldest first.
    recent: VecDeque<Submitted<T>>,
    /// Batches whose waits name signalers not known complete: (sequence, signalers).
    waits: VecDeque<(u64, Vec<Signaler>)>,
    /// The sequence of the queue's last batch.
    last: u64,
}

impl<T> Default for QueueLog<T> {
    fn default() -> Self {
        QueueLog {
            pending: VecDeque::new(),
            recent: VecDeque::new(),
            waits: VecDeque::new(),
            last: 0,
        }
    }
}

/// A device's submissions, as far as a device loss needs them.
#[derive(Debug)]
pub struct InFlight<T> {
    queues: HashMap<u64, QueueLog<T>, FastHash>,
    /// Each fence's last submission: the batch its signal follows.
    fences: HashMap<u64, At, FastHash>,
    /// Signals of batches not known complete, per semaphore, oldest first: (value, batch).
    signals: HashMap<u64, VecDeque<(u64, At)>, FastHash>,
    /// The last batch sequence handed out (batches of every queue share one count).
    seq: u64,
    /// Pending batches on every queue.
    pending: usize,
    /// Batches with interlocked draws dropped over the bound.
    pub not_kept: u64,
}

impl<T> Default for InFlight<T> {
    fn default() -> Self {
        InFlight {
            queues: HashMap::default(),
            fences: HashMap::default(),
            signals: HashMap::default(),
            seq: 0,
            pending: 0,
            not_kept: 0,
        }
    }
}

/// What the layer knew when the loss was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss<T> {
    /// Batches not known complete on every queue, in submission order.
    pub in_flight: Vec<Submitted<T>>,
    /// The last batches known complete on the queue of the loss (every queue where none).
    pub recent: Vec<Submitted<T>>,
    pub not_kept: u64,
}

impl<T: Clone> InFlight<T> {
    /// Whether nothing with interlocked draws is waiting for completion: submissions without
    /// interlocked draws then need no bookkeeping at all.
    pub fn idle(&self) -> bool {
        self.pending == 0
    }

    /// A submission (number `submission` on the device) of `batches` to `queue`, with `fence`
    /// (a submission of no batch with a fence: the fence follows everything submitted before).
    /// Returns the sequence of its last batch (`None` for a submission of no batch).
    pub fn submit(
        &mut self,
        queue: u64,
        submission: u64,
        batches: Vec<Batch<T>>,
        fence: Option<u64>,
    ) -> Option<u64> {
        let mut last = None;
        for b in batches {
            self.seq += 1;
            let seq = self.seq;
            last = Some(seq);
            let signalers: Vec<Signaler> =
                b.waits.iter().filter_map(|w| self.signaler(w)).collect();
            let log = self.queues.entry(queue).or_default();
            log.last = seq;
            if !signalers.is_empty() {
                log.waits.push_back((seq, signalers));
                if log.waits.len() > WAITS_PER_QUEUE {
                    log.waits.pop_front();
                }
            }
            if !b.draws.is_empty() {
                log.pending.push_back((
                    seq,
                    Submitted {
                        queue,
                        submission,
                        draws: b.draws,
                    },
                ));
                self.pending += 1;
                if log.pending.len() > PENDING_PER_QUEUE {
                    log.pending.pop_front();
                    self.pending -= 1;
                    self.not_kept += 1;
                }
            }
            // A signal matters while work before it on its queue is not known complete.
            if !log.pending.is_empty() || !log.waits.is_empty() {
                for s in b.signals {
                    let list = self.signals.entry(s.semaphore).or_default();
                    list.push_back((s.value, (queue, seq)));
                    if list.len() > SIGNALS_PER_SEMAPHORE {
                        list.pop_front();
                    }
                }
            }
        }
        if let Some(f) = fence {
            match self.queues.get(&queue) {
                Some(log) if log.last > 0 => {
                    self.fences.insert(f, (queue, log.last));
                }
                _ => {
                    self.fences.remove(&f);
                }
            }
        }
        last
    }

    /// A batch is known complete (the timing's end stamp of its last command buffer was read),
    /// with everything before it on its queue.
    pub fn batch_done(&mut self, queue: u64, seq: u64) {
        self.complete_one((queue, seq));
    }

    /// What a wait completes, where that is not known complete yet.
    fn signaler(&self, w: &SemaphoreOp) -> Option<Signaler> {
        let list = self.signals.get(&w.semaphore)?;
        if w.value == 0 {
            list.back().map(|&(_, at)| Signaler::Batch(at))
        } else {
            list.iter()
                .any(|&(v, _)| v <= w.value)
                .then_some(Signaler::Timeline(*w))
        }
    }

    /// The queue a fence's last submission went to, if the layer saw it.
    pub fn queue_of_fence(&self, fence: u64) -> Option<u64> {
        self.fences.get(&fence).map(|&(q, _)| q)
    }

    /// A fence was found signalled (vkWaitForFences, vkGetFenceStatus).
    pub fn fence_signaled(&mut self, fence: u64) {
        if let Some(at) = self.fences.remove(&fence) {
            self.complete_one(at);
        }
    }

    /// A fence or binary semaphore will be signalled by something other than a queue
    /// submission (vkAcquireNextImageKHR): its earlier submissions say nothing of it any more.
    pub fn signaled_elsewhere(&mut self, fence: Option<u64>, semaphore: Option<u64>) {
        if let Some(f) = fence {
            self.fences.remove(&f);
        }
        if let Some(s) = semaphore {
            self.signals.remove(&s);
        }
    }

    /// A timeline semaphore was found at `value` or beyond (vkWaitSemaphores,
    /// vkGetSemaphoreCounterValue).
    pub fn semaphore_reached(&mut self, semaphore: u64, value: u64) {
        self.complete(
            Vec::new(),
            vec![SemaphoreOp {
                semaphore,
                value: value.max(1),
            }],
        );
    }

    /// Everything submitted to `queue` completed (vkQueueWaitIdle).
    pub fn queue_idle(&mut self, queue: u64) {
        let last = self.queues.get(&queue).map_or(0, |l| l.last);
        self.complete_one((queue, last));
    }

    /// Everything submitted to the device completed (vkDeviceWaitIdle).
    pub fn device_idle(&mut self) {
        let all = self.queues.iter().map(|(q, l)| (*q, l.last)).collect();
        self.complete(all, Vec::new());
    }

    /// Completes one batch with everything before it on its queue: without waits or signals
    /// to follow (a frame loop's fence), with no allocation.
    fn complete_one(&mut self, (queue, seq): At) {
        let Some(log) = self.queues.get_mut(&queue) else {
            return;
        };
        if self.signals.is_empty() && log.waits.front().is_none_or(|(s, _)| *s > seq) {
            Self::retire(log, seq, &mut self.pending);
        } else {
            self.complete(vec![(queue, seq)], Vec::new());
        }
    }

    /// Moves a queue's pending batches up to `seq` to its recent ones.
    fn retire(log: &mut QueueLog<T>, seq: u64, pending: &mut usize) {
        while log.pending.front().is_some_and(|(s, _)| *s <= seq) {
            if let Some((_, done)) = log.pending.pop_front() {
                *pending -= 1;
                log.recent.push_back(done);
                if log.recent.len() > RECENT_PER_QUEUE {
                    log.recent.pop_front();
                }
            }
        }
    }

    /// Completes the given batches (with everything before them on their queues) and the
    /// given timeline values, and whatever their waits complete in turn.
    fn complete(&mut self, mut batches: Vec<At>, mut timeline: Vec<SemaphoreOp>) {
        loop {
            if let Some(op) = timeline.pop() {
                if let Some(list) = self.signals.get_mut(&op.semaphore) {
                    list.retain(|&(v, at)| {
                        let reached = v <= op.value;
                        if reached {
                            batches.push(at);
                        }
                        !reached
                    });
                }
                continue;
            }
            let Some((queue, seq)) = batches.pop() else {
                break;
            };
            let Some(log) = self.queues.get_mut(&queue) else {
                continue;
            };
            Self::retire(log, seq, &mut self.pending);
            while log.waits.front().is_some_and(|(s, _)| *s <= seq) {
                if let Some((_, signalers)) = log.waits.pop_front() {
                    for s in signalers {
                        match s {
                            Signaler::Batch(at) => batches.push(at),
                            Signaler::Timeline(op) => timeline.push(op),
                        }
                    }
                }
            }
            // Signals of completed batches no longer complete anything.
            for list in self.signals.values_mut() {
                list.retain(|&(_, (q, s))| q != queue || s > seq);
            }
        }
        self.signals.retain(|_, l| !l.is_empty());
    }

    /// What to report when the loss is seen on `queue` (`None`: a call that concerned no known
    /// queue).
    pub fn loss(&self, queue: Option<u64>) -> Loss<T> {
        let mut in_flight: Vec<(u64, Submitted<T>)> = self
            .queues
            .values()
            .flat_map(|l| l.pending.iter().cloned())
            .collect();
        in_flight.sort_by_key(|(s, _)| *s);
        let mut recent: Vec<Submitted<T>> = match queue {
            Some(q) => self
                .queues
                .get(&q)
                .map(|l| l.recent.iter().cloned().collect())
                .unwrap_or_default(),
            None => self
                .queues
                .values()
                .flat_map(|l| l.recent.iter().cloned())
                .collect(),
        };
        recent.sort_by_key(|s| s.submission);
        Loss {
            in_flight: in_flight.into_iter().map(|(_, s)| s).collect(),
            recent,
            not_kept: self.not_kept,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(draws: &[u32]) -> Batch<u32> {
        Batch {
            draws: draws.to_vec(),
            ..Batch::default()
        }
    }

    fn op(semaphore: u64, value: u64) -> SemaphoreOp {
        SemaphoreOp { semaphore, value }
    }

    fn draws(list: &[Submitted<u32>]) -> Vec<u32> {
        list.iter().flat_map(|s| s.draws.iter().copied()).collect()
    }

    const Q0: u64 = 0x10;
    const Q1: u64 = 0x20;

    /// A fence signal completes its submission and every earlier one on the queue; the
    /// completed ones become the recent ones.
    #[test]
    fn a_fence_completes_its_queue_up_to_its_submission() {
        let mut f = InFlight::default();
        f.submit(Q0, 1, vec![batch(&[1])], None);
        f.submit(Q0, 2, vec![batch(&[2])], Some(7));
        f.submit(Q0, 3, vec![batch(&[3])], None);
        assert_eq!(draws(&f.loss(Some(Q0)).in_flight), [1, 2, 3]);
        f.fence_signaled(7);
        let l = f.loss(Some(Q0));
        assert_eq!(draws(&l.in_flight), [3]);
        assert_eq!(draws(&l.recent), [1, 2]);
        assert_eq!(f.queue_of_fence(7), None);
        // The recent ones are bounded.
        for n in 4..30 {
            f.submit(Q0, n, vec![batch(&[n as u32])], None);
        }
        f.queue_idle(Q0);
        let l = f.loss(Some(Q0));
        assert!(l.in_flight.is_empty());
        assert_eq!(draws(&l.recent), (22..30).collect::<Vec<u32>>());
        assert!(f.idle());
    }

    /// Batches without interlocked draws are numbered, not kept; a fence on one still completes
    /// the interlocked work before it.
    #[test]
    fn plain_batches_are_not_kept_but_their_fences_count() {
        let mut f = InFlight::default();
        f.submit(Q0, 1, vec![batch(&[])], Some(1));
        assert!(f.idle());
        assert!(f.queues[&Q0].pending.is_empty());
        f.submit(Q0, 2, vec![batch(&[5]), batch(&[])], None);
        f.submit(Q0, 3, vec![batch(&[])], Some(2));
        assert!(!f.idle());
        f.fence_signaled(2);
        assert!(f.idle());
        assert_eq!(draws(&f.loss(Some(Q0)).recent), [5]);
    }

    /// Several queues: each completes on its own; the in-flight list spans every queue in
    /// submission order, the recent list is the queue's.
    #[test]
    fn queues_complete_independently() {
        let mut f = InFlight::default();
        f.submit(Q0, 1, vec![batch(&[1])], Some(1));
        f.submit(Q1, 2, vec![batch(&[2])], Some(2));
        f.submit(Q0, 3, vec![batch(&[3])], None);
        f.fence_signaled(2);
        let l = f.loss(Some(Q0));
        assert_eq!(draws(&l.in_flight), [1, 3]);
        assert!(l.recent.is_empty());
        assert_eq!(draws(&f.loss(Some(Q1)).recent), [2]);
        assert_eq!(draws(&f.loss(None).recent), [2]);
        f.device_idle();
        assert!(f.idle());
        assert_eq!(draws(&f.loss(None).recent), [1, 2, 3]);
    }

    /// Timeline semaphores: a value read completes the signals up to it, and what their batches'
    /// queues submitted before.
    #[test]
    fn timeline_values_complete_their_signals() {
        let mut f = InFlight::default();
        let sig = |d: &[u32], v| Batch {
            draws: d.to_vec(),
            signals: vec![op(9, v)],
            waits: vec![],
        };
        f.submit(Q0, 1, vec![sig(&[1], 1)], None);
        f.submit(Q0, 2, vec![sig(&[2], 2)], None);
        f.submit(Q0, 3, vec![sig(&[3], 3)], None);
        f.semaphore_reached(9, 2);
        assert_eq!(draws(&f.loss(Some(Q0)).in_flight), [3]);
        f.semaphore_reached(9, 3);
        assert!(f.idle());
    }

    /// A batch that waited on another queue's semaphore completes that queue's signalling batch
    /// when it completes itself (binary and timeline).
    #[test]
    fn a_completed_wait_completes_its_signaler() {
        let mut f = InFlight::default();
        // Binary semaphore 5: Q0 signals, Q1 waits; the wait pairs with the last signal.
        f.submit(
            Q0,
            1,
            vec![Batch {
                draws: vec![1],
                signals: vec![op(5, 0)],
                waits: vec![],
            }],
            None,
        );
        f.submit(
            Q1,
            2,
            vec![Batch {
                draws: vec![],
                waits: vec![op(5, 0)],
                signals: vec![],
            }],
            Some(3),
        );
        // Timeline semaphore 6: Q0 signals 10, Q1 waits for 10.
        f.submit(
            Q0,
            3,
            vec![Batch {
                draws: vec![2],
                signals: vec![op(6, 10)],
                waits: vec![],
            }],
            None,
        );
        f.submit(
            Q1,
            4,
            vec![Batch {
                draws: vec![],
                waits: vec![op(6, 10)],
                signals: vec![],
            }],
            Some(4),
        );
        f.fence_signaled(3);
        assert_eq!(draws(&f.loss(Some(Q0)).in_flight), [2]);
        assert_eq!(draws(&f.loss(Some(Q0)).recent), [1]);
        f.fence_signaled(4);
        assert!(f.idle());
    }

    /// A command buffer submitted again is in flight once per submission; an acquire's fence
    /// says nothing of an earlier submission with that fence.
    #[test]
    fn resubmissions_and_fences_signalled_elsewhere() {
        let mut f = InFlight::default();
        f.submit(Q0, 1, vec![batch(&[1])], Some(8));
        f.submit(Q0, 2, vec![batch(&[1])], None);
        let l = f.loss(Some(Q0));
        assert_eq!(
            l.in_flight.iter().map(|s| s.submission).collect::<Vec<_>>(),
            [1, 2]
        );
        f.signaled_elsewhere(Some(8), None);
        f.fence_signaled(8);
        assert_eq!(f.loss(Some(Q0)).in_flight.len(), 2);
    }

    /// The timing's end stamp of a submission's last command buffer, once read, completes that
    /// batch and everything before it on the queue, not what came after.
    #[test]
    fn a_read_end_stamp_completes_its_batch_and_what_came_before() {
        let mut f = InFlight::default();
        let first = f.submit(Q0, 1, vec![batch(&[1]), batch(&[2])], None);
        let second = f.submit(Q0, 2, vec![batch(&[3])], None);
        assert_eq!((first, second), (Some(2), Some(3)));
        assert_eq!(f.submit(Q0, 3, Vec::new(), Some(4)), None);
        f.batch_done(Q0, 2);
        let l = f.loss(Some(Q0));
        assert_eq!(draws(&l.recent), [1, 2]);
        assert_eq!(draws(&l.in_flight), [3]);
    }

    /// Memory is bounded: past the bound the oldest batches are dropped and counted.
    #[test]
    fn pending_work_is_bounded() {
        let mut f = InFlight::default();
        let n = PENDING_PER_QUEUE as u64 + 10;
        for i in 1..=n {
            f.submit(Q0, i, vec![batch(&[i as u32])], None);
        }
        let l = f.loss(Some(Q0));
        assert_eq!(l.in_flight.len(), PENDING_PER_QUEUE);
        assert_eq!(l.not_kept, 10);
        assert_eq!(l.in_flight[0].submission, 11);
    }
}
