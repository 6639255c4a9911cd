//! GPU time of interlocked work, the bookkeeping (the `timing` setting; the device's queries and
//! the calls down are crate::stores::timing's).
//!
//! Each primary command buffer of a graphics queue family (not of a protected pool) gets a slice
//! of the device's query pools at vkBeginCommandBuffer; the slice is reset (outside any render
//! pass instance, as vkCmdResetQueryPool requires) and a timestamp marks the buffer's start just
//! before its first action or synchronization command or render pass instance
//! ([`Recording::start`]; never between a suspended render pass instance and its resumption). A
//! *range* opens at the first draw with an interlocked fragment stage bound and closes when the
//! bound interlocked object changes, at the end of the render pass instance or subpass, and
//! before the buffer ends; a last timestamp marks the buffer's end. Range boundaries are
//! bottom-of-pipe timestamps: a range measures from the completion of the work before it to the
//! completion of its own draws, so consecutive ranges partition the GPU's timeline instead of
//! overlapping.
//!
//! At each submission the command buffers' recordings are kept with the submission; their
//! results are read without waiting (`VK_QUERY_RESULT_WITH_AVAILABILITY_BIT`) at later
//! submissions and presents, and at vkDestroyDevice, when the application has waited for all
//! of its work. A frame is the submissions between two presents (frame 0: everything up to the
//! first); a device that does not present reports each submission on its own ([`Totals`]).
//! Timing lines (`kind: timing`) go to the report: one per frame or submission, and one per
//! interlocked object at the end.
//!
//! Not timed, and counted as `unmeasured`: draws in multiview render pass instances (a
//! timestamp there writes one query per view), and ranges past a command buffer's queries inside
//! one render pass instance (more are reset before each instance begins). Draws in command
//! buffers that are not timed at all — secondaries (a secondary continuing a render pass may not
//! reset queries), protected ones — are counted apart.
//!
//! Pure: [`Recording`] says which commands to record, [`measure`] turns query values into
//! ticks, [`Totals`] collects units; nothing here calls Vulkan.

use super::object::Interlocked;
use parking_lot::Mutex;
use pops_report::{TimedObject, Timing as Line, TimingKind, TimingScope};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Queries in one command buffer's slice.
pub const SLICE: u32 = 64;
/// Slices in one query pool.
pub const SLICES_PER_POOL: u32 = 16;
/// Queries a render pass instance starts with at least: a new slice is reset before it begins
/// when fewer are left.
const PASS_RESERVE: u32 = 24;

/// A `VkQueryPool` of the layer's, by its handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryPool(pub u64);

/// Where in the pipeline a timestamp is written: before the range's work starts, or once it
/// has finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    TopOfPipe,
    BottomOfPipe,
}

/// One query of the device's pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    pub pool: QueryPool,
    pub index: u32,
}

/// A slice of queries, owned by the recordings that use it; back on the free list when the last
/// goes (after its results are read, or the command buffer is recorded anew or freed).
#[derive(Debug)]
pub struct Slice {
    pub pool: QueryPool,
    pub first: u32,
    free: FreeSlices,
}

/// The free slices of a device's query pools, shared with the slices that go back to it.
pub type FreeSlices = Arc<Mutex<Vec<(QueryPool, u32)>>>;

impl Slice {
    /// A slice of `pool` from query `first`, back on `free` when dropped.
    pub fn new(pool: QueryPool, first: u32, free: FreeSlices) -> Slice {
        Slice { pool, first, free }
    }
}

impl Drop for Slice {
    fn drop(&mut self) {
        self.free.lock().push((self.pool, self.first));
    }
}

/// A command the layer records into the application's command buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Reset {
        pool: QueryPool,
        first: u32,
        count: u32,
    },
    Stamp {
        query: Query,
        stage: Stage,
    },
}

/// One timed range: the interlocked object drawn with and its two timestamps.
#[derive(Clone, Debug)]
pub struct Range {
    pub object: Arc<Interlocked>,
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
    open: Option<(Arc<Interlocked>, Query)>,
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

    fn stamp(&mut self, stage: Stage, out: &mut Vec<Command>) -> Option<Query> {
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
        self.begin = self.stamp(Stage::TopOfPipe, out);
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
    pub fn draw(&mut self, object: &Arc<Interlocked>, out: &mut Vec<Command>) {
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
        if let Some(q) = self.stamp(Stage::BottomOfPipe, out) {
            self.open = Some((object.clone(), q));
        }
    }

    /// Closes the open range, if any.
    pub fn close(&mut self, out: &mut Vec<Command>) {
        if let Some((object, begin)) = self.open.take() {
            match self.stamp(Stage::BottomOfPipe, out) {
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
            self.suspended_at = self.stamp(Stage::BottomOfPipe, out);
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
            self.stamp(Stage::BottomOfPipe, out)
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
    object: Option<Arc<Interlocked>>,
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
        Some(TimedObject {
            object: b.seq,
            handle: format!("0x{:x}", b.handle),
            bound: b.bound,
            name: b.name(),
            module_name: b.fragment.module_name.clone(),
            stage_hash: b.fragment.hash.clone(),
            interlock: b.interlock(),
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
    /// The submission's last batch, (queue, sequence) in crate::in_flight, where its last
    /// command buffer is timed: that buffer's bottom-of-pipe end stamp is written only once every
    /// command before it in submission order has completed, so its result completes the batch
    /// and everything before it on the queue.
    pub through: Option<(u64, u64)>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{CapturedState, Dynamic};
    use crate::object::Fragment;
    use pops_report::{Bound, Source};

    fn object(seq: u64) -> Arc<Interlocked> {
        let mut o = Interlocked::new(
            0x100 + seq,
            Bound::Pipeline,
            Fragment {
                analysis: crate::analysis::unknown("test"),
                entry: "main".into(),
                source: Source::ShaderModule,
                hash: Some(format!("{seq:016x}")),
                module_name: None,
                fossilize_module: None,
                experiment: None,
                isa: Default::default(),
            },
            CapturedState::default(),
            Dynamic::empty(),
        );
        o.seq = seq;
        Arc::new(o)
    }

    fn slice(first: u32) -> Arc<Slice> {
        Arc::new(Slice::new(QueryPool(7), first, Default::default()))
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
        a.name.set(Some("A".to_string()));
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
