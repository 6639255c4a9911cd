//! GPU time of interlocked work (the `timing` setting), measured with timestamp queries the
//! layer records itself into the application's command buffers.
//!
//! Each primary command buffer of a graphics queue family (not of a protected pool) gets a slice
//! of the device's query pools at vkBeginCommandBuffer; the slice is reset (outside any render
//! pass instance, as vkCmdResetQueryPool requires) and a timestamp marks the buffer's start just
//! before its first action or synchronization command or render pass instance
//! ([`Recording::start`]; never between a suspended render pass instance and its resumption). A *range* opens at the
//! first draw with an interlocked fragment stage bound and closes when the bound interlocked
//! object changes, at the end of the render pass instance or subpass, and before the buffer
//! ends; a last timestamp marks the buffer's end. Range boundaries are bottom-of-pipe
//! timestamps: a range measures from the completion of the work before it to the completion of
//! its own draws, so consecutive ranges partition the GPU's timeline instead of overlapping.
//!
//! At each submission the command buffers' recordings are kept with the submission; their
//! results are read without waiting (`VK_QUERY_RESULT_WITH_AVAILABILITY_BIT`) at later
//! submissions and presents, and at vkDestroyDevice, when the application has waited for all
//! of its work. A frame is the submissions between two presents (frame 0: everything up to the
//! first); a device that does not present reports each submission on its own ([`Totals`]). Timing lines (`kind: timing`) go to the
//! report: one per frame or submission, and one per interlocked object at the end.
//!
//! Not timed, and counted as `unmeasured`: draws in multiview render pass instances (a
//! timestamp there writes one query per view), and ranges past a command buffer's queries inside
//! one render pass instance (more are reset before each instance begins). Draws in command
//! buffers that are not timed at all — secondaries (a secondary continuing a render pass may not
//! reset queries), protected ones — are counted in [`Timing::untimed`].
//!
//! The bookkeeping ([`Recording`], [`measure`], [`Totals`]) is pure; the hooks call down
//! outside the lock with the commands it asks for.

use crate::draws::Bindable;
use crate::report::Kind;
use ash::vk;
use pops_report::{TimedObject, Timing as Line, TimingKind, TimingScope};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// Queries in one command buffer's slice.
pub const SLICE: u32 = 64;
/// Slices in one query pool.
const SLICES_PER_POOL: u32 = 16;
/// Queries a render pass instance starts with at least: a new slice is reset before it begins
/// when fewer are left.
const PASS_RESERVE: u32 = 24;

/// One query of the device's pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    pub pool: vk::QueryPool,
    pub index: u32,
}

/// A slice of queries, owned by the recordings that use it; back on the free list when the last
/// goes (after its results are read, or the command buffer is recorded anew or freed).
#[derive(Debug)]
pub struct Slice {
    pub pool: vk::QueryPool,
    pub first: u32,
    free: Arc<Mutex<Vec<(vk::QueryPool, u32)>>>,
}

impl Drop for Slice {
    fn drop(&mut self) {
        self.free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((self.pool, self.first));
    }
}

/// A command the layer records into the application's command buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Reset {
        pool: vk::QueryPool,
        first: u32,
        count: u32,
    },
    Stamp {
        query: Query,
        stage: vk::PipelineStageFlags,
    },
}

/// One timed range: the interlocked object drawn with and its two timestamps.
#[derive(Clone, Debug)]
pub struct Range {
    pub object: Arc<Bindable>,
    pub begin: Query,
    pub end: Query,
}

/// How a render pass instance begins, as far as timing is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassBegin {
    /// Several views: a timestamp there writes one query per view.
    pub multiview: bool,
    /// VK_RENDERING_RESUMING_BIT: it resumes an instance suspended earlier in submission order.
    pub resuming: bool,
    /// VK_RENDERING_SUSPENDING_BIT: it will be suspended, to be resumed later.
    pub suspending: bool,
}

/// A primary command buffer's timing while it records.
///
/// Nothing is recorded at vkBeginCommandBuffer: the slice is reset and the start timestamp
/// written just before the buffer's first action or synchronization command outside a render
/// pass instance, or its first render pass instance that does not resume one ([`Recording::start`]).
/// "No action or synchronization commands … are allowed between suspending and resuming render
/// pass instances": a buffer that begins by resuming an instance suspended in an earlier buffer
/// gets nothing before that resumption, and the draws of that instance are not timed (its
/// queries could not be reset). A buffer that ends with a suspended instance takes its last
/// timestamp inside that instance, before vkCmdEndRendering.
#[derive(Debug, Default)]
pub struct Recording {
    /// The slices in use and how many queries of each are used.
    slices: Vec<(Arc<Slice>, u32)>,
    started: bool,
    begin: Option<Query>,
    open: Option<(Arc<Bindable>, Query)>,
    ranges: Vec<Range>,
    unmeasured: u64,
    /// Inside a render pass instance, and how it began.
    in_pass: bool,
    pass: PassBegin,
    /// The timestamp written before a suspending vkCmdEndRendering: the buffer's end if nothing
    /// follows.
    suspended_at: Option<Query>,
}

impl Recording {
    /// Free queries left in the last slice.
    fn left(&self) -> u32 {
        self.slices.last().map_or(0, |(_, used)| SLICE - used)
    }

    fn take(&mut self) -> Option<Query> {
        let (s, used) = self.slices.last_mut()?;
        if *used >= SLICE {
            return None;
        }
        *used += 1;
        Some(Query {
            pool: s.pool,
            index: s.first + *used - 1,
        })
    }

    fn stamp(&mut self, stage: vk::PipelineStageFlags, out: &mut Vec<Command>) -> Option<Query> {
        let q = self.take()?;
        out.push(Command::Stamp { query: q, stage });
        Some(q)
    }

    /// The command buffer begins with its first slice; nothing is recorded yet.
    pub fn begin(s: Arc<Slice>) -> Recording {
        Recording {
            slices: vec![(s, 0)],
            ..Recording::default()
        }
    }

    /// Whether [`Recording::start`] would record something now: not started, outside any render
    /// pass instance.
    pub fn wants_start(&self) -> bool {
        !self.started && !self.in_pass
    }

    /// Before the buffer's first action or synchronization command outside a render pass
    /// instance: the slice is reset and the start timestamp written.
    pub fn start(&mut self, out: &mut Vec<Command>) {
        if !self.wants_start() {
            return;
        }
        self.started = true;
        for (s, _) in &self.slices {
            out.push(Command::Reset {
                pool: s.pool,
                first: s.first,
                count: SLICE,
            });
        }
        self.begin = self.stamp(vk::PipelineStageFlags::TOP_OF_PIPE, out);
    }

    /// Whether a render pass instance beginning as `pass` needs a new slice first: it will be
    /// reset before the instance, so only where that is allowed (started, not resuming).
    pub fn needs_slice(&self, pass: PassBegin) -> bool {
        !pass.resuming && self.started && self.left() < PASS_RESERVE
    }

    /// Before a render pass instance begins (after [`Recording::add_pass_slice`] where needed).
    pub fn begin_pass(&mut self, pass: PassBegin, out: &mut Vec<Command>) {
        if !pass.resuming {
            self.start(out);
        }
        self.in_pass = true;
        self.pass = pass;
        self.suspended_at = None;
    }

    /// A new slice, reset before the render pass instance begins.
    pub fn add_pass_slice(&mut self, s: Arc<Slice>, out: &mut Vec<Command>) {
        out.push(Command::Reset {
            pool: s.pool,
            first: s.first,
            count: SLICE,
        });
        self.slices.push((s, 0));
    }

    /// A draw with `object` bound: opens a range unless one is open for it.
    pub fn draw(&mut self, object: &Arc<Bindable>, out: &mut Vec<Command>) {
        if let Some((o, _)) = &self.open {
            if Arc::ptr_eq(o, object) {
                return;
            }
            self.close(out);
        }
        // Two for the range, one kept for the command buffer's end.
        if !self.in_pass || !self.started || self.pass.multiview || self.left() < 3 {
            self.unmeasured += 1;
            return;
        }
        if let Some(q) = self.stamp(vk::PipelineStageFlags::BOTTOM_OF_PIPE, out) {
            self.open = Some((object.clone(), q));
        }
    }

    /// Closes the open range, if any.
    pub fn close(&mut self, out: &mut Vec<Command>) {
        if let Some((object, begin)) = self.open.take() {
            match self.stamp(vk::PipelineStageFlags::BOTTOM_OF_PIPE, out) {
                Some(end) => self.ranges.push(Range { object, begin, end }),
                None => self.unmeasured += 1,
            }
        }
    }

    /// Before the render pass instance (or subpass) ends. A suspending instance leaves its last
    /// timestamp here: nothing may follow it in this buffer until the instance resumes.
    pub fn end_pass(&mut self, out: &mut Vec<Command>) {
        self.close(out);
        if self.pass.suspending && self.started && !self.pass.multiview {
            self.suspended_at = self.stamp(vk::PipelineStageFlags::BOTTOM_OF_PIPE, out);
        }
        self.in_pass = false;
        self.pass = PassBegin::default();
    }

    /// vkCmdNextSubpass: the next subpass of the same instance.
    pub fn next_subpass(&mut self, multiview: bool, out: &mut Vec<Command>) {
        self.close(out);
        self.pass.multiview = multiview;
    }

    /// The command buffer ends: what its submissions will read.
    pub fn end(mut self, out: &mut Vec<Command>) -> Recorded {
        self.close(out);
        let end = if !self.started {
            None
        } else if self.suspended_at.is_some() {
            self.suspended_at
        } else {
            self.stamp(vk::PipelineStageFlags::BOTTOM_OF_PIPE, out)
        };
        Recorded {
            slices: self.slices,
            begin: self.begin,
            end,
            ranges: self.ranges,
            unmeasured: self.unmeasured,
        }
    }
}

/// A recorded command buffer's queries, kept with each submission of it until read.
#[derive(Debug)]
pub struct Recorded {
    pub slices: Vec<(Arc<Slice>, u32)>,
    pub begin: Option<Query>,
    pub end: Option<Query>,
    pub ranges: Vec<Range>,
    pub unmeasured: u64,
}

/// A recorded command buffer's results: ticks from its start to its end, and of each range.
#[derive(Debug, PartialEq, Eq)]
pub struct Measured {
    pub span: Option<u64>,
    pub ranges: Vec<u64>,
}

/// The results of a recording from its queries' values (`None`: not yet available), timestamps
/// of `valid_bits` bits that may wrap. `None` while any query is unavailable. Pure.
pub fn measure(
    r: &Recorded,
    value: impl Fn(Query) -> Option<u64>,
    valid_bits: u32,
) -> Option<Measured> {
    let mask = if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    };
    let diff =
        |a: Query, b: Query| -> Option<u64> { Some(value(b)?.wrapping_sub(value(a)?) & mask) };
    let span = match (r.begin, r.end) {
        (Some(a), Some(b)) => Some(diff(a, b)?),
        _ => None,
    };
    let ranges = r
        .ranges
        .iter()
        .map(|x| diff(x.begin, x.end))
        .collect::<Option<Vec<_>>>()?;
    Some(Measured { span, ranges })
}

/// An interlocked object's share of a unit, in ticks.
#[derive(Clone, Debug, Default)]
struct Share {
    object: Option<Arc<Bindable>>,
    ticks: u64,
    ranges: u64,
}

/// One frame or submission while its submissions are read.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    span: u64,
    interlocked: u64,
    ranges: u64,
    unmeasured: u64,
    objects: BTreeMap<u64, Share>,
}

impl Unit {
    /// Adds a command buffer's results.
    pub fn add(&mut self, r: &Recorded, m: &Measured) {
        if let Some(s) = m.span {
            self.span += s;
        }
        self.unmeasured += r.unmeasured;
        for (range, ticks) in r.ranges.iter().zip(&m.ranges) {
            self.interlocked += ticks;
            self.ranges += 1;
            let e = self.objects.entry(range.object.seq).or_default();
            e.object.get_or_insert_with(|| range.object.clone());
            e.ticks += ticks;
            e.ranges += 1;
        }
    }

    fn merge(&mut self, other: &Unit) {
        self.span += other.span;
        self.interlocked += other.interlocked;
        self.ranges += other.ranges;
        self.unmeasured += other.unmeasured;
        for (k, s) in &other.objects {
            let e = self.objects.entry(*k).or_default();
            if e.object.is_none() {
                e.object = s.object.clone();
            }
            e.ticks += s.ticks;
            e.ranges += s.ranges;
        }
    }
}

/// What the device's timing lines need besides the measurements.
pub struct Describe<'a> {
    pub app: &'a str,
    pub device: &'a str,
    /// Nanoseconds per tick (VkPhysicalDeviceLimits::timestampPeriod).
    pub period: f64,
}

impl Describe<'_> {
    fn ns(&self, ticks: u64) -> u64 {
        (ticks as f64 * self.period).round() as u64
    }

    fn object(&self, s: &Share) -> Option<TimedObject> {
        let b = s.object.as_ref()?;
        let interlock =
            match crate::compute::fragment_entry(&b.fragment.analysis, &b.fragment.entry) {
                Ok(e) => e.interlock.map_or("none".to_string(), |m| m.to_string()),
                Err(_) => "unknown".to_string(),
            };
        Some(TimedObject {
            object: b.seq,
            handle: format!("0x{:x}", b.handle),
            bound: match b.kind {
                Kind::ShaderObject => "shader_object",
                _ => "pipeline",
            }
            .to_string(),
            name: b.name(),
            module_name: b.fragment.module_name.clone(),
            stage_hash: b.fragment.hash.clone(),
            interlock,
            experiment: b.fragment.experiment.clone(),
            ns: self.ns(s.ticks),
            ranges: s.ranges,
        })
    }

    /// The timing line of a unit. Pure.
    pub fn line(&self, scope: TimingScope, index: Option<u64>, u: &Unit) -> Line {
        Line {
            schema_version: pops_report::SCHEMA_VERSION,
            app: self.app.to_string(),
            device: self.device.to_string(),
            kind: TimingKind::Timing,
            scope,
            index,
            gpu_ns: (scope != TimingScope::Object).then(|| self.ns(u.span)),
            interlocked_ns: self.ns(u.interlocked),
            ranges: u.ranges,
            unmeasured: u.unmeasured,
            objects: u.objects.values().filter_map(|s| self.object(s)).collect(),
        }
    }

    /// One line per interlocked object over the device's life.
    pub fn object_lines(&self, total: &Unit) -> Vec<Line> {
        total
            .objects
            .values()
            .filter_map(|s| {
                let o = self.object(s)?;
                Some(Line {
                    schema_version: pops_report::SCHEMA_VERSION,
                    app: self.app.to_string(),
                    device: self.device.to_string(),
                    kind: TimingKind::Timing,
                    scope: TimingScope::Object,
                    index: None,
                    gpu_ns: None,
                    interlocked_ns: o.ns,
                    ranges: o.ranges,
                    unmeasured: 0,
                    objects: vec![o],
                })
            })
            .collect()
    }
}

/// Units whose results are complete: (scope, frame or submission number, measurements).
pub type Completed = Vec<(TimingScope, u64, Unit)>;

/// Which unit a submission's results go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitId {
    Frame(u64),
    Submission(u64),
}

/// A submission whose results are not read yet.
#[derive(Debug)]
pub struct Pending {
    pub unit: UnitId,
    pub buffers: Vec<Arc<Recorded>>,
}

/// Submissions a device makes without presenting before it is taken for one that does not
/// present: from then on its submissions are reported on their own, as they are read.
pub const HEADLESS_AFTER: u64 = 256;

/// The device's units: which are complete, in order. Pure.
///
/// Frame n is the submissions after the n-th present up to the next one; frame 0 is everything
/// up to the first present. Until that present (or until [`HEADLESS_AFTER`] submissions without
/// one) the device's submissions are held as their own units; the first present merges them
/// into frame 0, and a device that never presents reports them one by one.
#[derive(Debug, Default)]
pub struct Totals {
    /// Presents so far: the open frame's number.
    pub frame: u64,
    pub presented: bool,
    /// The device made [`HEADLESS_AFTER`] submissions before presenting.
    pub headless: bool,
    pub submissions: u64,
    /// Units with results, and how many of their submissions are still unread.
    units: BTreeMap<(u8, u64), (Unit, usize)>,
    pub total: Unit,
    /// Submissions dropped unread (resubmitted while still pending, or never available).
    pub dropped: u64,
}

impl Totals {
    fn key(u: UnitId) -> (u8, u64) {
        match u {
            UnitId::Frame(n) => (0, n),
            UnitId::Submission(n) => (1, n),
        }
    }

    /// Where a submission's results go now: a submission made before the first present
    /// belongs to frame 0 once that present came.
    fn resolve(&self, u: UnitId) -> UnitId {
        match u {
            UnitId::Submission(_) if self.presented && !self.headless => UnitId::Frame(0),
            u => u,
        }
    }

    /// A submission is made: the unit it belongs to.
    pub fn submitted(&mut self) -> UnitId {
        let id = if self.presented {
            UnitId::Frame(self.frame)
        } else {
            UnitId::Submission(self.submissions)
        };
        self.submissions += 1;
        if !self.presented && self.submissions >= HEADLESS_AFTER {
            self.headless = true;
        }
        self.units.entry(Self::key(id)).or_default().1 += 1;
        id
    }

    /// A submission's results (`None`: dropped unread).
    pub fn read(&mut self, unit: UnitId, results: Option<&[(Arc<Recorded>, Measured)]>) {
        let key = Self::key(self.resolve(unit));
        let e = self.units.entry(key).or_default();
        e.1 = e.1.saturating_sub(1);
        match results {
            Some(rs) => {
                for (r, m) in rs {
                    e.0.add(r, m);
                }
            }
            None => self.dropped += 1,
        }
    }

    /// A present: the open frame closes (the first one holds every submission before it).
    pub fn present(&mut self) {
        if !self.presented {
            self.presented = true;
            if !self.headless {
                let held: Vec<(u8, u64)> =
                    self.units.keys().filter(|k| k.0 == 1).copied().collect();
                let mut frame0 = self.units.remove(&(0, 0)).unwrap_or_default();
                for k in held {
                    if let Some((u, unread)) = self.units.remove(&k) {
                        frame0.0.merge(&u);
                        frame0.1 += unread;
                    }
                }
                self.units.insert((0, 0), frame0);
            }
        }
        self.frame += 1;
    }

    /// Units complete now (every submission read, and a frame closed by a present), in order;
    /// `all`: every unit (the device is going away).
    pub fn complete(&mut self, all: bool) -> Completed {
        let ready: Vec<(u8, u64)> = self
            .units
            .iter()
            .filter(|((kind, n), (_, unread))| {
                all || (*unread == 0
                    && ((*kind == 1 && self.headless) || (*kind == 0 && *n < self.frame)))
            })
            .map(|(k, _)| *k)
            .collect();
        ready
            .into_iter()
            .filter_map(|k| {
                let (u, _) = self.units.remove(&k)?;
                self.total.merge(&u);
                let scope = if k.0 == 0 {
                    TimingScope::Frame
                } else {
                    TimingScope::Submission
                };
                Some((scope, k.1, u))
            })
            .collect()
    }
}

/// The next layer's functions timing calls (resolved at vkCreateDevice).
pub struct Fns {
    pub create_query_pool: vk::PFN_vkCreateQueryPool,
    pub destroy_query_pool: vk::PFN_vkDestroyQueryPool,
    pub cmd_reset_query_pool: vk::PFN_vkCmdResetQueryPool,
    pub cmd_write_timestamp: vk::PFN_vkCmdWriteTimestamp,
    pub get_query_pool_results: vk::PFN_vkGetQueryPoolResults,
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
}

/// A device's timing.
pub struct Timing {
    device: vk::Device,
    fns: Fns,
    pub period: f64,
    valid_bits: u32,
    /// Queue families whose command buffers are timed (graphics, with timestamps).
    families: Vec<bool>,
    free: Arc<Mutex<Vec<(vk::QueryPool, u32)>>>,
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
        fns: Option<Fns>,
        limits: &vk::PhysicalDeviceLimits,
        families: &[vk::QueueFamilyProperties],
    ) -> Result<Timing, String> {
        let fns = fns.ok_or("the device lacks the query functions")?;
        if limits.timestamp_compute_and_graphics != vk::TRUE || limits.timestamp_period <= 0.0 {
            return Err("the device has no timestamps on its graphics queues".into());
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
            .ok_or("no queue family has graphics and timestamps")?;
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

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A free slice, creating a query pool when none is left (calls down, outside the lock).
    fn slice(&self) -> Option<Arc<Slice>> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
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
            free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            free.extend((0..SLICES_PER_POOL).map(|i| (pool, i * SLICE)));
        }
        let (pool, first) = free.pop()?;
        Some(Arc::new(Slice {
            pool,
            first,
            free: self.free.clone(),
        }))
    }

    /// Records `commands` into `cb` (outside the lock).
    fn run(&self, cb: vk::CommandBuffer, commands: &[Command]) {
        for c in commands {
            match *c {
                // SAFETY: a command buffer in the recording state outside a render pass
                // instance (Recording only resets there); a slice of one of the layer's pools.
                Command::Reset { pool, first, count } => unsafe {
                    (self.fns.cmd_reset_query_pool)(cb, pool, first, count)
                },
                // SAFETY: a query reset earlier in this command buffer, written once.
                Command::Stamp { query, stage } => unsafe {
                    (self.fns.cmd_write_timestamp)(cb, stage, query.pool, query.index)
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
    pub fn draw(&self, cb: vk::CommandBuffer, object: &Arc<Bindable>) {
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
        for p in pending {
            match self.results(&p) {
                Some(rs) => read.push((p.unit, Some(rs))),
                // At the device's end, results that never became available are dropped.
                None if all => read.push((p.unit, None)),
                None => unread.push_back(p),
            }
        }
        let mut st = self.state();
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
                        s.pool,
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

    /// A submission of `buffers` (from [`Timing::before_submit`]) was made.
    pub fn submitted(&self, buffers: Vec<Arc<Recorded>>) {
        if buffers.is_empty() {
            return;
        }
        let mut st = self.state();
        let unit = st.totals.submitted();
        st.pending.push_back(Pending { unit, buffers });
    }

    /// A present closes the frame.
    pub fn present(&self) -> Completed {
        self.state().totals.present();
        self.poll(false)
    }

    /// The device is going away (all its work is complete): every unit, the totals, and the
    /// query pools destroyed.
    pub fn finish(&self) -> (Completed, Unit, u64) {
        let units = self.poll(true);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{DrawState, Dynamic};
    use crate::compute::ModuleAnalysis;
    use crate::dispatch::LibraryFragment;

    fn object(seq: u64) -> Arc<Bindable> {
        Arc::new(Bindable {
            handle: 0x100 + seq,
            seq,
            name: Default::default(),
            kind: Kind::Pipeline,
            fragment: LibraryFragment {
                analysis: Arc::new(ModuleAnalysis::Err("test".into())),
                entry: "main".into(),
                source: "test",
                hash: Some(format!("{seq:016x}")),
                module_name: None,
                experiment: None,
            },
            draw: DrawState::default(),
            dynamic: Dynamic::empty(),
        })
    }

    fn slice(first: u32) -> Arc<Slice> {
        Arc::new(Slice {
            pool: vk::Handle::from_raw(7),
            first,
            free: Default::default(),
        })
    }

    /// A recording started by its first action.
    fn started(out: &mut Vec<Command>) -> Recording {
        let mut r = Recording::begin(slice(0));
        assert!(r.wants_start());
        r.start(out);
        r
    }

    fn stamps(out: &[Command]) -> Vec<u32> {
        out.iter()
            .filter_map(|c| match c {
                Command::Stamp { query, .. } => Some(query.index),
                _ => None,
            })
            .collect()
    }

    /// The slice is reset before any timestamp; one range per bound object, closed by a change
    /// of object and by the end of the render pass instance; the buffer's start and end.
    #[test]
    fn ranges_follow_the_bound_interlocked_object() {
        let (a, b) = (object(1), object(2));
        let mut out = Vec::new();
        let mut r = started(&mut out);
        assert!(matches!(
            out[0],
            Command::Reset {
                first: 0,
                count: SLICE,
                ..
            }
        ));
        r.begin_pass(PassBegin::default(), &mut out);
        r.draw(&a, &mut out);
        r.draw(&a, &mut out); // same object: the range stays open
        r.draw(&b, &mut out); // another: closes a's, opens b's
        r.end_pass(&mut out);
        let done = r.end(&mut out);
        assert_eq!(stamps(&out), [0, 1, 2, 3, 4, 5]);
        assert_eq!(done.begin.unwrap().index, 0);
        assert_eq!(done.end.unwrap().index, 5);
        let spans: Vec<_> = done
            .ranges
            .iter()
            .map(|x| (x.object.seq, x.begin.index, x.end.index))
            .collect();
        assert_eq!(spans, [(1, 1, 2), (2, 3, 4)]);
        assert_eq!(done.unmeasured, 0);
    }

    /// "the sum of query and the number of bits set in the current subpass's view mask must be
    /// less than or equal to the number of queries in queryPool": multiview instances are not
    /// timed, nor are draws once the slice is used up inside an instance.
    #[test]
    fn multiview_and_exhausted_slices_are_counted_unmeasured() {
        let a = object(1);
        let mut out = Vec::new();
        let mut r = started(&mut out);
        r.begin_pass(
            PassBegin {
                multiview: true,
                ..PassBegin::default()
            },
            &mut out,
        );
        r.draw(&a, &mut out);
        r.end_pass(&mut out);
        r.begin_pass(PassBegin::default(), &mut out);
        for i in 0..SLICE {
            let o = object(u64::from(i) + 2);
            r.draw(&o, &mut out);
        }
        r.end_pass(&mut out);
        let done = r.end(&mut out);
        assert!(done.unmeasured > 1);
        assert!(done.end.is_some(), "the buffer's end always has its query");
        assert!(stamps(&out).iter().all(|q| *q < SLICE));
        // A new slice before the next instance: reset outside the instance.
        let mut out = Vec::new();
        let mut r = started(&mut out);
        for _ in 0..SLICE - PASS_RESERVE {
            r.take();
        }
        assert!(r.needs_slice(PassBegin::default()));
        assert!(
            !r.needs_slice(PassBegin {
                resuming: true,
                ..PassBegin::default()
            }),
            "no reset before a resumption"
        );
        r.add_pass_slice(slice(SLICE), &mut out);
        assert!(matches!(
            out.last(),
            Some(Command::Reset { first: SLICE, .. })
        ));
    }

    /// "No action or synchronization commands … are allowed between suspending and resuming
    /// render pass instances": a buffer that begins by resuming gets nothing before the
    /// resumption and its draws there are not timed; it starts after the instance ends. A
    /// buffer that ends suspended takes its end inside the instance, before vkCmdEndRendering.
    #[test]
    fn suspended_and_resumed_instances_get_nothing_in_between() {
        let a = object(1);
        let resume = PassBegin {
            resuming: true,
            ..PassBegin::default()
        };
        let mut out = Vec::new();
        let mut r = Recording::begin(slice(0));
        r.begin_pass(resume, &mut out);
        r.draw(&a, &mut out);
        assert!(
            out.is_empty(),
            "nothing before or inside the resumed instance: {out:?}"
        );
        r.end_pass(&mut out);
        assert!(out.is_empty());
        r.start(&mut out);
        assert!(
            matches!(out[0], Command::Reset { .. }),
            "started after it: {out:?}"
        );
        let done = r.end(&mut out);
        assert_eq!(done.unmeasured, 1);
        assert_eq!((done.begin.unwrap().index, done.end.unwrap().index), (0, 1));

        let mut out = Vec::new();
        let mut r = Recording::begin(slice(0));
        r.begin_pass(
            PassBegin {
                suspending: true,
                ..PassBegin::default()
            },
            &mut out,
        );
        r.draw(&a, &mut out);
        r.end_pass(&mut out);
        let before_end = out.len();
        let done = r.end(&mut out);
        assert_eq!(out.len(), before_end, "nothing after the suspension");
        assert_eq!(stamps(&out), [0, 1, 2, 3]);
        assert_eq!(
            done.end.unwrap().index,
            3,
            "the end is the stamp before the suspension"
        );
        assert_eq!(done.ranges.len(), 1);

        // A buffer that never starts records nothing and has no span.
        let mut out = Vec::new();
        let done = Recording::begin(slice(0)).end(&mut out);
        assert!(out.is_empty() && done.begin.is_none() && done.end.is_none());
    }

    /// Differences of timestamps that wrap at their valid bits; unavailable queries mean no
    /// result yet.
    #[test]
    fn measure_wraps_and_waits_for_availability() {
        let a = object(1);
        let mut out = Vec::new();
        let mut r = started(&mut out);
        r.begin_pass(PassBegin::default(), &mut out);
        r.draw(&a, &mut out);
        r.end_pass(&mut out);
        let done = r.end(&mut out);
        let values = [250u64, 252, 4, 10]; // 8 valid bits: 252 -> 4 wraps
        let m = measure(&done, |q| values.get(q.index as usize).copied(), 8).unwrap();
        assert_eq!(m.span, Some(10u64.wrapping_sub(250) & 0xff));
        assert_eq!(m.ranges, [8]);
        assert!(measure(&done, |q| (q.index != 2).then_some(1), 64).is_none());
    }

    /// Frames close at presents, frame 0 holding every submission before the first present; a
    /// unit is complete only when every submission of it is read and its frame closed.
    #[test]
    fn frames_are_the_submissions_between_presents() {
        let mut t = Totals::default();
        let s0 = t.submitted();
        let s1 = t.submitted();
        assert_eq!((s0, s1), (UnitId::Submission(0), UnitId::Submission(1)));
        t.read(s0, Some(&[]));
        assert!(
            t.complete(false).is_empty(),
            "held until a present or the end"
        );
        t.present();
        let f1 = t.submitted();
        assert_eq!(f1, UnitId::Frame(1));
        assert!(t.complete(false).is_empty(), "s1 of frame 0 is unread");
        t.read(s1, Some(&[]));
        let done: Vec<_> = t
            .complete(false)
            .into_iter()
            .map(|(s, i, _)| (s, i))
            .collect();
        assert_eq!(done, [(TimingScope::Frame, 0)]);
        t.read(f1, Some(&[]));
        assert!(t.complete(false).is_empty(), "frame 1 is still open");
        t.present();
        let done: Vec<_> = t
            .complete(false)
            .into_iter()
            .map(|(s, i, _)| (s, i))
            .collect();
        assert_eq!(done, [(TimingScope::Frame, 1)]);
        let f2 = t.submitted();
        assert_eq!(f2, UnitId::Frame(2));
        assert_eq!(
            t.complete(true).len(),
            1,
            "the device's end completes the rest"
        );
    }

    /// A device that does not present reports each submission on its own once it is taken for
    /// one (HEADLESS_AFTER submissions), as soon as it is read; before that, at its end.
    #[test]
    fn a_device_without_presents_reports_submissions() {
        let mut t = Totals::default();
        let first = t.submitted();
        t.read(first, Some(&[]));
        assert!(t.complete(false).is_empty());
        let ids: Vec<UnitId> = (1..HEADLESS_AFTER).map(|_| t.submitted()).collect();
        assert!(t.headless);
        let done = t.complete(false);
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].0, done[0].1), (TimingScope::Submission, 0));
        t.read(ids[0], Some(&[]));
        let done: Vec<_> = t
            .complete(false)
            .into_iter()
            .map(|(s, i, _)| (s, i))
            .collect();
        assert_eq!(done, [(TimingScope::Submission, 1)]);
        let mut end = Totals::default();
        let s = end.submitted();
        end.read(s, Some(&[]));
        let done = end.complete(true);
        assert_eq!((done[0].0, done[0].1), (TimingScope::Submission, 0));
    }

    /// A unit's line: nanoseconds from ticks and the period, each object's share.
    #[test]
    fn lines_convert_ticks_and_split_by_object() {
        let (a, b) = (object(1), object(2));
        let mut out = Vec::new();
        let mut r = started(&mut out);
        r.begin_pass(PassBegin::default(), &mut out);
        r.draw(&a, &mut out);
        r.draw(&b, &mut out);
        r.draw(&a, &mut out);
        r.end_pass(&mut out);
        let done = r.end(&mut out);
        let values = [0u64, 10, 30, 30, 40, 40, 100, 120];
        let m = measure(&done, |q| values.get(q.index as usize).copied(), 64).unwrap();
        let mut u = Unit::default();
        u.add(&done, &m);
        *a.name.lock().unwrap() = Some("A".to_string());
        let d = Describe {
            app: "app",
            device: "dev",
            period: 2.0,
        };
        let line = d.line(TimingScope::Frame, Some(3), &u);
        assert_eq!(line.gpu_ns, Some(240));
        assert_eq!(line.interlocked_ns, 2 * (20 + 10 + 60));
        assert_eq!(line.ranges, 3);
        let shares: Vec<_> = line
            .objects
            .iter()
            .map(|o| (o.key(), o.ns, o.ranges))
            .collect();
        assert_eq!(
            shares,
            [("A".to_string(), 160, 2), ("object 2".to_string(), 20, 1)]
        );
        let objects = d.object_lines(&u);
        assert_eq!(objects.len(), 2);
        assert!(objects
            .iter()
            .all(|l| l.scope == TimingScope::Object && l.gpu_ns.is_none()));
    }
}
