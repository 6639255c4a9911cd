//! A device's background verifier (the `verify_isa` setting): the code of a pipeline seen for
//! the first time is verified on a thread of the layer's own, so that the application's
//! vkCreateGraphicsPipelines returns without waiting for it. One thread per device, started at
//! the first job; jobs run in the order given. The records of the objects wait for their
//! verdicts in the device's [`Outbox`], in creation order, and the verifier's thread writes them
//! as soon as it gives the verdict: an application that dies before its next call into the layer
//! still leaves them in the report. A command buffer's draw records carry their object's
//! verdict: they wait in the same outbox, after their object's record, so `vkEndCommandBuffer`
//! does not wait for the verification either. The device's destruction waits for the jobs
//! outstanding and ends the thread; a device loss and process exit wait for them a bounded time.

use crate::model::object::PendingVerdict;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Work for the verifier: it delivers its own result (a verdict kept and given).
pub type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
pub struct Verifier {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// Signalled when a job is queued or the thread is to end.
    work: Condvar,
    /// Signalled when the last outstanding job has run.
    idle: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Jobs queued or running.
    outstanding: usize,
    /// The thread, once started (joined when it ends: the loader may unload the layer's code
    /// after the device is gone).
    thread: Option<std::thread::JoinHandle<()>>,
    /// Set when the thread is to end; no thread is started again after it.
    ending: bool,
}

thread_local! {
    /// Set on a verifier's thread: what it writes must not call the application's code.
    static ON_VERIFIER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this is a verifier's thread: records written here leave the application's
/// debug-utils messengers to the application's own threads.
pub fn on_verifier_thread() -> bool {
    ON_VERIFIER.with(|v| v.get())
}

impl Verifier {
    /// Queues `job`, starting the thread at the first. Where no thread can be started the job
    /// runs here and now: verified late rather than not at all.
    pub fn submit(&self, job: Job) {
        let mut s = self.inner.state.lock();
        if s.ending {
            // The thread has ended (the process is exiting): nothing would run it.
            drop(s);
            return job();
        }
        if s.thread.is_none() {
            let inner = self.inner.clone();
            let spawned = std::thread::Builder::new()
                .name("pops-verify-isa".into())
                .spawn(move || inner.run());
            match spawned {
                Ok(t) => s.thread = Some(t),
                Err(_) => {
                    drop(s);
                    log::warn!("verify_isa: no thread for background verification: verifying on the application's thread");
                    job();
                    return;
                }
            }
        }
        s.queue.push_back(job);
        s.outstanding += 1;
        self.inner.work.notify_one();
    }

    /// Waits until every job given has run, at most `limit` where one is given; whether they
    /// all did.
    pub fn drain(&self, limit: Option<Duration>) -> bool {
        let deadline = limit.map(|l| Instant::now() + l);
        let mut s = self.inner.state.lock();
        while s.outstanding > 0 {
            match deadline {
                Some(d) => {
                    if self.inner.idle.wait_until(&mut s, d).timed_out() {
                        return s.outstanding == 0;
                    }
                }
                None => self.inner.idle.wait(&mut s),
            }
        }
        true
    }

    /// Runs what is outstanding, at most until `limit`, then ends the thread and waits for it
    /// (the device is being destroyed, or the process exits); a thread still running a job
    /// after the limit is left to it.
    pub fn finish(&self, limit: Option<Duration>) {
        if !self.drain(limit) {
            return;
        }
        let thread = {
            let mut s = self.inner.state.lock();
            s.ending = true;
            s.thread.take()
        };
        self.inner.work.notify_all();
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

/// How long the application is kept waiting for verdicts still being reached where it must be
/// (a device loss, the process's exit) before their records are given up.
pub const VERDICT_WAIT: Duration = Duration::from_secs(5);

/// A record to write once the verdict it waits for is given.
struct Entry<C> {
    waits_for: Option<Arc<PendingVerdict>>,
    write: Box<dyn FnOnce(&C) + Send>,
}

/// The device's records in the order their objects were created: a record whose object's code
/// is still being verified holds back the records after it. Records are written by whichever
/// thread finds them ready — the verifier's, right after it gives a verdict, or the
/// application's whenever the layer is called (at each object's creation and each command
/// buffer's end, and, waiting for the verdicts, at a device loss, at the device's destruction,
/// before a debug-utils messenger goes, and at process exit). The verifier's thread runs no application code: the debug-utils messengers of the
/// records it writes are told on the application's next call (`records::tell_messengers`), so
/// it never waits on a lock the application holds; it never waits for the writing lock either.
pub struct Outbox<C> {
    queue: Mutex<VecDeque<Entry<C>>>,
    /// Held while records are written, so that two threads do not write them out of order;
    /// a thread that finds it taken leaves the writing to the one that holds it.
    writing: Mutex<()>,
}

impl<C> Default for Outbox<C> {
    fn default() -> Self {
        Outbox {
            queue: Mutex::new(VecDeque::new()),
            writing: Mutex::new(()),
        }
    }
}

impl<C> Outbox<C> {
    /// Writes `write`'s record now, or after the records held back before it; `waits_for`: the
    /// verdict it holds back for.
    pub fn send(
        &self,
        d: &C,
        waits_for: Option<Arc<PendingVerdict>>,
        write: impl FnOnce(&C) + Send + 'static,
    ) {
        if waits_for.is_none() {
            // Written at once where nothing is held back before it and no other thread is
            // writing (the verifier's thread may be writing the record it just took from the
            // queue: this one comes after it).
            if let Some(writing) = self.writing.try_lock() {
                if self.queue.lock().is_empty() {
                    write(d);
                    drop(writing);
                    // What another thread queued meanwhile, ready, it could not write.
                    return self.write_ready(d);
                }
            }
        }
        self.queue.lock().push_back(Entry {
            waits_for,
            write: Box::new(write),
        });
        self.write_ready(d);
    }

    /// Whether records are held back, or being written by another thread.
    pub fn holding(&self) -> bool {
        !self.queue.lock().is_empty() || self.writing.is_locked()
    }

    /// Writes the records whose verdicts are given, in order, up to the first still awaited.
    pub fn write_ready(&self, d: &C) {
        loop {
            let Some(_writing) = self.writing.try_lock() else {
                return;
            };
            while let Some(e) = self.pop_ready() {
                (e.write)(d);
            }
            drop(_writing);
            // A record another thread queued, ready, while this one was writing (and so could
            // not write it itself): the next pass writes it.
            let ready = matches!(self.queue.lock().front(),
                Some(e) if e.waits_for.as_ref().is_none_or(|p| p.given()));
            if !ready {
                return;
            }
        }
    }

    /// Waits for every verdict held back, at most until `deadline`, and for a thread writing
    /// records, and writes what is ready.
    pub fn flush(&self, d: &C, deadline: Option<Instant>) {
        loop {
            let awaited = self
                .queue
                .lock()
                .iter()
                .find_map(|e| e.waits_for.clone().filter(|p| !p.given()));
            match awaited {
                Some(p) => {
                    if !p.wait_until(deadline) {
                        break;
                    }
                }
                None => break,
            }
        }
        // Whatever another thread (the verifier's) is writing is finished before this returns,
        // so that what the caller writes next (a command buffer's draw records) comes after it.
        let _writing = self.writing.lock();
        while let Some(e) = self.pop_ready() {
            (e.write)(d);
        }
    }

    /// The first record held back, where its verdict is given.
    fn pop_ready(&self) -> Option<Entry<C>> {
        let mut q = self.queue.lock();
        match q.front() {
            Some(e) if e.waits_for.as_ref().is_none_or(|p| p.given()) => q.pop_front(),
            _ => None,
        }
    }
}

impl Inner {
    fn run(&self) {
        ON_VERIFIER.with(|v| v.set(true));
        loop {
            let job = {
                let mut s = self.state.lock();
                loop {
                    if let Some(j) = s.queue.pop_front() {
                        break j;
                    }
                    if s.ending {
                        return;
                    }
                    self.work.wait(&mut s);
                }
            };
            // A job guards its own work; a panic that escapes it still counts the job as run.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            let mut s = self.state.lock();
            s.outstanding -= 1;
            if s.outstanding == 0 {
                self.idle.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Jobs run off the submitting thread, in order, and a drain returns once all have run —
    /// also after one of them panicked.
    #[test]
    fn jobs_run_in_order_and_are_drained() {
        let v = Verifier::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let here = std::thread::current().id();
        for k in 0..20 {
            let seen = seen.clone();
            v.submit(Box::new(move || {
                assert_ne!(std::thread::current().id(), here);
                seen.lock().push(k);
                if k == 7 {
                    panic!("a job that fails");
                }
            }));
        }
        assert!(v.drain(None));
        assert_eq!(*seen.lock(), (0..20).collect::<Vec<_>>());
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        v.submit(Box::new(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }));
        v.finish(None);
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        assert!(v.inner.state.lock().thread.is_none(), "joined");
    }

    /// Records leave the outbox in the order they were sent: one waiting for a verdict holds
    /// back those after it until the verdict is given; a flush waits for it.
    #[test]
    fn records_keep_their_order_behind_a_verdict() {
        let out: Outbox<Mutex<Vec<u32>>> = Outbox::default();
        let written = Mutex::new(Vec::new());
        out.send(&written, None, |w| w.lock().push(1));
        let pending = Arc::new(PendingVerdict::default());
        out.send(&written, Some(pending.clone()), |w| w.lock().push(2));
        out.send(&written, None, |w| w.lock().push(3));
        assert_eq!(*written.lock(), [1]);
        assert!(out.holding());
        let p = pending.clone();
        let giver = std::thread::spawn(move || p.give(Arc::new([])));
        out.flush(&written, None);
        giver.join().unwrap();
        assert_eq!(*written.lock(), [1, 2, 3]);
        assert!(!out.holding());
        // A flush with a deadline gives up on a verdict never given, and holds the record.
        out.send(&written, Some(Arc::new(PendingVerdict::default())), |w| {
            w.lock().push(4)
        });
        out.flush(&written, Some(Instant::now() + Duration::from_millis(10)));
        assert!(out.holding());
        assert_eq!(*written.lock(), [1, 2, 3]);
    }

    /// Records written by the thread that gives the verdicts (as the verifier's does) and by
    /// the sending thread keep the order they were sent in: a record sent while the other
    /// thread is still writing the one it took from the queue comes after it, and a flush
    /// returns only once that writing is done.
    #[test]
    fn records_keep_their_order_when_the_verdicts_thread_writes_them() {
        let out: Arc<Outbox<Mutex<Vec<u32>>>> = Arc::new(Outbox::default());
        let written: Arc<Mutex<Vec<u32>>> = Arc::new(Mutex::new(Vec::new()));
        let mut sent = Vec::new();
        for round in 0..200u32 {
            let pending = Arc::new(PendingVerdict::default());
            // A slow write, so that the giver is often still writing it.
            out.send(&written, Some(pending.clone()), move |w| {
                std::thread::sleep(Duration::from_micros(200));
                w.lock().push(2 * round);
            });
            let (o, w) = (out.clone(), written.clone());
            let giver = std::thread::spawn(move || {
                pending.give(Arc::new([]));
                o.write_ready(&w);
            });
            std::thread::sleep(Duration::from_micros(50 * u64::from(round % 4)));
            out.send(&written, None, move |w| w.lock().push(2 * round + 1));
            sent.extend([2 * round, 2 * round + 1]);
            out.flush(&written, None);
            giver.join().unwrap();
            assert_eq!(*written.lock(), sent, "round {round}");
        }
    }

    /// A bounded drain gives up on a job that does not end in time, and says so.
    #[test]
    fn a_bounded_drain_gives_up() {
        let v = Verifier::default();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let g = gate.clone();
        v.submit(Box::new(move || {
            let mut open = g.0.lock();
            while !*open {
                g.1.wait(&mut open);
            }
        }));
        assert!(!v.drain(Some(Duration::from_millis(20))));
        *gate.0.lock() = true;
        gate.1.notify_all();
        assert!(v.drain(Some(Duration::from_secs(30))));
    }
}
