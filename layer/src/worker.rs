//! One background thread for the layer's analysis and reporting, so that the application's
//! thread only pays for reading its create infos (issue 5, item 9: pipeline creation overhead).
//!
//! Jobs run in submission order. `drain` waits for all submitted work (vkDestroyDevice, before
//! its summary); `stop` finishes the queue and joins the thread (process exit and library unload,
//! through the report module's `.fini_array` hook), so no layer code runs once the loader unmaps
//! the library. If the thread cannot be spawned, or after `stop`, jobs run inline.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

pub type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    running: bool,
    stopping: bool,
    spawned: bool,
    /// The worker waits on `work`: only then does a submission need a (syscall) wake-up.
    sleeping: bool,
}

#[derive(Default)]
struct Worker {
    queue: Mutex<Queue>,
    work: Condvar,
    idle: Condvar,
    handle: Mutex<Option<JoinHandle<()>>>,
}

fn worker() -> &'static Worker {
    static W: OnceLock<Worker> = OnceLock::new();
    W.get_or_init(Worker::default)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Queues `job` (inline when no worker thread can run it).
pub fn submit(job: Job) {
    let w = worker();
    let mut q = lock(&w.queue);
    if q.stopping {
        drop(q);
        job();
        return;
    }
    if !q.spawned {
        match std::thread::Builder::new()
            .name("pops-layer".into())
            .spawn(run)
        {
            Ok(h) => {
                q.spawned = true;
                *lock(&w.handle) = Some(h);
            }
            Err(_) => {
                drop(q);
                job();
                return;
            }
        }
    }
    q.jobs.push_back(job);
    if q.sleeping {
        w.work.notify_one();
    }
}

fn run() {
    let w = worker();
    loop {
        let job = {
            let mut q = lock(&w.queue);
            loop {
                if let Some(j) = q.jobs.pop_front() {
                    q.running = true;
                    break j;
                }
                if q.stopping {
                    w.idle.notify_all();
                    return;
                }
                q.sleeping = true;
                q = w.work.wait(q).unwrap_or_else(|p| p.into_inner());
                q.sleeping = false;
            }
        };
        // Jobs contain their own panics (dispatch::guarded); this is the last line of defence.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        let mut q = lock(&w.queue);
        q.running = false;
        if q.jobs.is_empty() {
            w.idle.notify_all();
        }
    }
}

/// Waits until every job submitted so far has run.
pub fn drain() {
    let w = worker();
    let mut q = lock(&w.queue);
    while (!q.jobs.is_empty() || q.running) && q.spawned {
        q = w.idle.wait(q).unwrap_or_else(|p| p.into_inner());
    }
}

/// Runs the remaining jobs and joins the thread; later jobs run inline.
pub fn stop() {
    let w = worker();
    {
        let mut q = lock(&w.queue);
        q.stopping = true;
        w.work.notify_all();
    }
    let handle = lock(&w.handle).take();
    if let Some(h) = handle {
        if h.thread().id() != std::thread::current().id() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn jobs_run_in_order_and_drain_waits() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let count = Arc::new(AtomicUsize::new(0));
        for i in 0..100 {
            let seen = seen.clone();
            let count = count.clone();
            submit(Box::new(move || {
                lock(&seen).push(i);
                count.fetch_add(1, Ordering::SeqCst);
            }));
        }
        drain();
        assert_eq!(count.load(Ordering::SeqCst), 100);
        assert_eq!(*lock(&seen), (0..100).collect::<Vec<_>>());
    }
}
