//! A device's timing (the `timing` setting): its query pools, the queries it records into the
//! application's command buffers and reads back, around the pure bookkeeping of
//! crate::model::timing. Calls down outside its lock.

use crate::model::object::Interlocked;
use crate::model::timing::{
    measure, Command, Completed, FreeSlices, Measured, PassBegin, Pending, Query, QueryPool,
    Recorded, Recording, Slice, Stage, Totals, Unit, SLICE, SLICES_PER_POOL,
};
use crate::next::Next;
use ash::vk;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// The next layer's functions timing calls, taken from the device's [`Next`].
struct Fns {
    create_query_pool: vk::PFN_vkCreateQueryPool,
    destroy_query_pool: vk::PFN_vkDestroyQueryPool,
    cmd_reset_query_pool: vk::PFN_vkCmdResetQueryPool,
    cmd_write_timestamp: vk::PFN_vkCmdWriteTimestamp,
    get_query_pool_results: vk::PFN_vkGetQueryPoolResults,
}

impl Fns {
    fn of(next: &Next) -> Option<Fns> {
        Some(Fns {
            create_query_pool: next.create_query_pool?,
            destroy_query_pool: next.destroy_query_pool?,
            cmd_reset_query_pool: next.cmd_reset_query_pool?,
            cmd_write_timestamp: next.cmd_write_timestamp?,
            get_query_pool_results: next.get_query_pool_results?,
        })
    }
}

/// The bookkeeping behind one lock.
#[derive(Default)]
struct State {
    pools: Vec<vk::QueryPool>,
    /// Command pools of queue families whose command buffers are timed.
    timed_pools: HashSet<u64>,
    /// Each command buffer's pool.
    buffer_pool: HashMap<u64, u64>,
    recording: HashMap<u64, Recording>,
    recorded: HashMap<u64, Arc<Recorded>>,
    pending: VecDeque<Pending>,
    totals: Totals,
    /// What read results completed, for the in-flight bookkeeping ([`Pending::through`]).
    completed: Vec<(u64, u64)>,
}

/// A device's timing.
pub struct Timing {
    device: vk::Device,
    fns: Fns,
    pub period: f64,
    valid_bits: u32,
    /// Queue families whose command buffers are timed (graphics, with timestamps).
    families: Vec<bool>,
    free: FreeSlices,
    state: Mutex<State>,
    /// Interlocked draw states recorded in command buffers the layer does not time (secondary
    /// command buffers, those of protected pools or of queue families without timestamps).
    pub untimed: std::sync::atomic::AtomicU64,
}

impl Timing {
    /// Timing for a device, or why not: it needs timestamps on every graphics and compute queue
    /// (`timestampComputeAndGraphics`).
    pub fn new(
        device: vk::Device,
        next: &Next,
        limits: &vk::PhysicalDeviceLimits,
        families: &[vk::QueueFamilyProperties],
    ) -> Result<Timing, Untimed> {
        let fns = Fns::of(next).ok_or(Untimed::NoQueryFunctions)?;
        if limits.timestamp_compute_and_graphics != vk::TRUE || limits.timestamp_period <= 0.0 {
            return Err(Untimed::NoTimestamps);
        }
        let timed: Vec<bool> = families
            .iter()
            .map(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS) && f.timestamp_valid_bits > 0)
            .collect();
        let valid_bits = families
            .iter()
            .zip(&timed)
            .filter(|(_, t)| **t)
            .map(|(f, _)| f.timestamp_valid_bits)
            .min()
            .ok_or(Untimed::NoTimedQueueFamily)?;
        Ok(Timing {
            device,
            fns,
            period: f64::from(limits.timestamp_period),
            valid_bits,
            families: timed,
            free: Default::default(),
            state: Default::default(),
            untimed: Default::default(),
        })
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        self.state.lock()
    }

    /// A free slice, creating a query pool when none is left (calls down, outside the lock).
    fn slice(&self) -> Option<Arc<Slice>> {
        let mut free = self.free.lock();
        if free.is_empty() {
            drop(free);
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(SLICE * SLICES_PER_POOL);
            let mut pool = vk::QueryPool::null();
            // SAFETY: a valid create info on the live device.
            let r = unsafe {
                (self.fns.create_query_pool)(self.device, &info, std::ptr::null(), &mut pool)
            };
            if r != vk::Result::SUCCESS {
                log::warn!("timing: vkCreateQueryPool failed ({r}); command buffers go untimed");
                return None;
            }
            self.state().pools.push(pool);
            free = self.free.lock();
            let held = QueryPool(vk::Handle::as_raw(pool));
            free.extend((0..SLICES_PER_POOL).map(|i| (held, i * SLICE)));
        }
        let (pool, first) = free.pop()?;
        Some(Arc::new(Slice::new(pool, first, self.free.clone())))
    }

    /// Records `commands` into `cb` (outside the lock).
    fn run(&self, cb: vk::CommandBuffer, commands: &[Command]) {
        for c in commands {
            match *c {
                // SAFETY: a command buffer in the recording state outside a render pass
                // instance (Recording only resets there); a slice of one of the layer's pools.
                Command::Reset { pool, first, count } => unsafe {
                    (self.fns.cmd_reset_query_pool)(cb, pool_of(pool), first, count)
                },
                // SAFETY: a query reset earlier in this command buffer, written once.
                Command::Stamp { query, stage } => unsafe {
                    (self.fns.cmd_write_timestamp)(
                        cb,
                        stage_of(stage),
                        pool_of(query.pool),
                        query.index,
                    )
                },
            }
        }
    }

    /// vkCreateCommandPool: whether its command buffers are timed.
    pub fn pool_created(&self, pool: u64, family: u32) {
        if self.families.get(family as usize).copied().unwrap_or(false) {
            self.state().timed_pools.insert(pool);
        }
    }

    /// vkDestroyCommandPool: its command buffers are gone.
    pub fn pool_destroyed(&self, pool: u64) {
        let mut st = self.state();
        st.timed_pools.remove(&pool);
        let gone: Vec<u64> = st
            .buffer_pool
            .iter()
            .filter(|(_, p)| **p == pool)
            .map(|(c, _)| *c)
            .collect();
        for c in gone {
            st.buffer_pool.remove(&c);
            st.recording.remove(&c);
            st.recorded.remove(&c);
        }
    }

    /// vkAllocateCommandBuffers of primary command buffers.
    pub fn allocated(&self, pool: u64, cbs: &[u64]) {
        let mut st = self.state();
        if st.timed_pools.contains(&pool) {
            for c in cbs {
                st.buffer_pool.insert(*c, pool);
            }
        }
    }

    /// A command buffer is freed or reset.
    pub fn forget(&self, cb: u64, freed: bool) {
        let mut st = self.state();
        st.recording.remove(&cb);
        st.recorded.remove(&cb);
        if freed {
            st.buffer_pool.remove(&cb);
        }
    }

    /// vkBeginCommandBuffer succeeded on `cb`.
    pub fn begin(&self, cb: vk::CommandBuffer) {
        let raw = vk::Handle::as_raw(cb);
        {
            let mut st = self.state();
            st.recorded.remove(&raw);
            st.recording.remove(&raw);
            if !st.buffer_pool.contains_key(&raw) {
                return;
            }
        }
        let Some(s) = self.slice() else { return };
        self.state().recording.insert(raw, Recording::begin(s));
    }

    /// Before an action or synchronization command outside a render pass instance: the
    /// buffer's start, the first time.
    pub fn before_action(&self, cb: vk::CommandBuffer) {
        self.with(cb, |r, out| r.start(out));
    }

    /// Before a render pass instance begins.
    pub fn before_pass(&self, cb: vk::CommandBuffer, pass: PassBegin) {
        let raw = vk::Handle::as_raw(cb);
        let needs = match self.state().recording.get(&raw) {
            Some(r) => r.needs_slice(pass),
            None => return,
        };
        let mut out = Vec::new();
        let s = if needs { self.slice() } else { None };
        if let Some(r) = self.state().recording.get_mut(&raw) {
            r.begin_pass(pass, &mut out);
            if let Some(s) = s {
                r.add_pass_slice(s, &mut out);
            }
        }
        self.run(cb, &out);
    }

    /// Applies `f` to the command buffer's recording and records what it asks for.
    pub fn with(&self, cb: vk::CommandBuffer, f: impl FnOnce(&mut Recording, &mut Vec<Command>)) {
        let mut out = Vec::new();
        if let Some(r) = self.state().recording.get_mut(&vk::Handle::as_raw(cb)) {
            f(r, &mut out);
        }
        self.run(cb, &out);
    }

    /// A draw with `object` bound, after a change of state: opens a range where none is open
    /// for it; counted apart in a command buffer the layer does not time.
    pub fn draw(&self, cb: vk::CommandBuffer, object: &Arc<Interlocked>) {
        let mut out = Vec::new();
        match self.state().recording.get_mut(&vk::Handle::as_raw(cb)) {
            Some(r) => r.draw(object, &mut out),
            None => {
                self.untimed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        self.run(cb, &out);
    }

    /// Before vkEndCommandBuffer.
    pub fn end(&self, cb: vk::CommandBuffer) {
        let raw = vk::Handle::as_raw(cb);
        let mut out = Vec::new();
        {
            let mut st = self.state();
            if let Some(r) = st.recording.remove(&raw) {
                let done = r.end(&mut out);
                st.recorded.insert(raw, Arc::new(done));
            }
        }
        self.run(cb, &out);
    }

    /// Reads what it can of the pending submissions (calls down outside the lock), and
    /// returns the units now complete.
    pub fn poll(&self, all: bool) -> Completed {
        let pending = std::mem::take(&mut self.state().pending);
        let mut unread = VecDeque::new();
        let mut read = Vec::new();
        let mut through = Vec::new();
        for p in pending {
            match self.results(&p) {
                Some(rs) => {
                    through.extend(p.through);
                    read.push((p.unit, Some(rs)))
                }
                // At the device's end, results that never became available are dropped.
                None if all => read.push((p.unit, None)),
                None => unread.push_back(p),
            }
        }
        let mut st = self.state();
        st.completed.extend(through);
        for (unit, rs) in &read {
            st.totals.read(*unit, rs.as_deref());
        }
        unread.extend(st.pending.drain(..));
        st.pending = unread;
        st.totals.complete(all)
    }

    /// A submission's results, when every query of it is available.
    fn results(&self, p: &Pending) -> Option<Vec<(Arc<Recorded>, Measured)>> {
        let mut values: HashMap<Query, u64> = HashMap::new();
        let mut out = Vec::with_capacity(p.buffers.len());
        for r in &p.buffers {
            for (s, used) in &r.slices {
                if *used == 0 {
                    continue;
                }
                let mut data = vec![[0u64; 2]; *used as usize];
                // SAFETY: `used` queries of a live pool of this device, into a buffer of
                // `used` (value, availability) pairs of 64 bits; no wait.
                let res = unsafe {
                    (self.fns.get_query_pool_results)(
                        self.device,
                        pool_of(s.pool),
                        s.first,
                        *used,
                        std::mem::size_of_val(data.as_slice()),
                        data.as_mut_ptr() as *mut std::ffi::c_void,
                        16,
                        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
                    )
                };
                if res != vk::Result::SUCCESS && res != vk::Result::NOT_READY {
                    return None;
                }
                for (i, [v, avail]) in data.iter().enumerate() {
                    if *avail != 0 {
                        values.insert(
                            Query {
                                pool: s.pool,
                                index: s.first + i as u32,
                            },
                            *v,
                        );
                    }
                }
            }
            out.push((
                r.clone(),
                measure(r, |q| values.get(&q).copied(), self.valid_bits)?,
            ));
        }
        Some(out)
    }

    /// The batches the results read so far completed (each with everything before it on its
    /// queue), once.
    pub fn take_completed(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.state().completed)
    }

    /// Whether `cb`'s recording is timed (it ends with the layer's bottom-of-pipe stamp).
    pub fn timed(&self, cb: u64) -> bool {
        self.state().recorded.contains_key(&cb)
    }

    /// Before a submission of `cbs`: their recordings, and the units now complete. Earlier
    /// submissions of the same recordings still pending are read now or dropped, since this
    /// one rewrites their queries.
    pub fn before_submit(&self, cbs: &[u64]) -> (Vec<Arc<Recorded>>, Completed) {
        let mut done = self.poll(false);
        let mut st = self.state();
        let recs: Vec<Arc<Recorded>> = cbs
            .iter()
            .filter_map(|c| st.recorded.get(c).cloned())
            .collect();
        let mut dropped = Vec::new();
        st.pending.retain(|p| {
            let clash = p
                .buffers
                .iter()
                .any(|b| recs.iter().any(|r| Arc::ptr_eq(b, r)));
            if clash {
                dropped.push(p.unit);
            }
            !clash
        });
        if !dropped.is_empty() {
            for u in dropped {
                st.totals.read(u, None);
            }
            done.extend(st.totals.complete(false));
        }
        (recs, done)
    }

    /// A submission of `buffers` (from [`Timing::before_submit`]) was made; `through`: its
    /// last batch in the in-flight bookkeeping, where its last command buffer is timed.
    pub fn submitted(&self, buffers: Vec<Arc<Recorded>>, through: Option<(u64, u64)>) {
        if buffers.is_empty() {
            return;
        }
        let mut st = self.state();
        let unit = st.totals.submitted();
        st.pending.push_back(Pending {
            unit,
            buffers,
            through,
        });
    }

    /// A present closes the frame.
    pub fn present(&self) -> Completed {
        self.state().totals.present();
        self.poll(false)
    }

    /// The device is going away (all its work is complete): every unit, the totals, and the
    /// query pools destroyed. On a lost device nothing is read (`read` false): what was not
    /// read is dropped.
    pub fn finish(&self, read: bool) -> (Completed, Unit, u64) {
        let units = if read {
            self.poll(true)
        } else {
            let mut st = self.state();
            st.totals.dropped += st.pending.len() as u64;
            st.pending.clear();
            st.totals.complete(true)
        };
        let mut st = self.state();
        st.recording.clear();
        st.recorded.clear();
        let total = std::mem::take(&mut st.totals.total);
        let dropped = st.totals.dropped;
        for p in st.pools.drain(..) {
            // SAFETY: the layer's own pool; the device's work is complete.
            unsafe { (self.fns.destroy_query_pool)(self.device, p, std::ptr::null()) };
        }
        (units, total, dropped)
    }
}

/// A pool of the layer's, as Vulkan takes it.
fn pool_of(p: QueryPool) -> vk::QueryPool {
    vk::Handle::from_raw(p.0)
}

/// A timestamp's stage, as Vulkan takes it.
fn stage_of(s: Stage) -> vk::PipelineStageFlags {
    match s {
        Stage::TopOfPipe => vk::PipelineStageFlags::TOP_OF_PIPE,
        Stage::BottomOfPipe => vk::PipelineStageFlags::BOTTOM_OF_PIPE,
    }
}

/// Why a device's command buffers cannot be timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Untimed {
    #[error("the device lacks the query functions")]
    NoQueryFunctions,
    #[error("the device has no timestamps on its graphics queues")]
    NoTimestamps,
    #[error("no queue family has graphics and timestamps")]
    NoTimedQueueFamily,
}
