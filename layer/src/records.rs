//! Records and findings out of the layer: one record per analysed object or draw group goes to
//! the log (one line, where its level is enabled), the JSONL report ([`crate::report`]) and the
//! application's debug-utils messengers ([`crate::messenger`]); per-device totals at
//! destruction.

use crate::device::Device;
use crate::model::analysis::EntryAnalysis;
use crate::model::capture::CapturedState;
use crate::model::draws::DrawGroup;
use crate::model::findings;
use crate::model::object::{Fragment, IsaVerdict};
use crate::model::record::{build_record, DrawRecord, Record, Subject};
use crate::report;
use crate::stores::stats::Analysed;
use ash::vk;
use pops_report::{Bound, Interlock, Kind, Severity};
use std::sync::{Arc, Once};

pub(crate) fn summary(d: &Device) {
    for line in d.stats.summary(&d.device_name) {
        log::info!("{line}");
    }
}

fn subject<'a>(d: &'a Device, kind: Kind, handle: u64, f: &'a Fragment) -> Subject<'a> {
    Subject {
        stage_hash: f.hash.as_deref(),
        null_device: d.null_device.as_deref(),
        app: &d.app,
        device: &d.device_name,
        driver: d.driver.as_deref(),
        kind,
        handle,
        source: f.source,
        chip: d.chip,
        features: d.features,
    }
}

/// The record of an object at its creation: to the log, the report and the messengers.
/// `(handle, object)`: the object's handle and, for an interlocked object the layer follows,
/// its number on the device (what its draw records name).
pub(crate) fn emit(
    d: &Device,
    kind: Kind,
    (handle, object): (u64, Option<u64>),
    fragment: &Fragment,
    entry: Result<&EntryAnalysis, crate::model::analysis::AnalysisError>,
    draw: &CapturedState,
) {
    let mode = entry.as_ref().ok().and_then(|e| e.interlock);
    let mut rec = build_record(
        &subject(d, kind, handle, fragment),
        &fragment.entry,
        entry,
        draw,
    );
    // Names the application gave before this record: the object's own (rare at creation) and
    // its shader module's.
    rec.name = d.objects.name(handle);
    rec.object = object;
    rec.module_name = fragment.module_name.clone();
    rec.fossilize_module = fragment.fossilize_module.clone();
    rec.experiment = fragment.experiment.clone();
    // The verify_isa setting's findings on the driver's code.
    rec.diagnostics.extend(findings::explained(
        &fragment.isa.diagnostics(),
        d.chip,
        d.driver.as_deref(),
    ));
    // The device runs an experiment the layer could not apply here: say so.
    if let (Some(active), None) = (&d.experiment, &fragment.experiment) {
        let why = if !rec.source.spirv_visible() {
            Some("its SPIR-V is not visible to layers")
        } else if mode.is_some_and(|m| m.granularity == pm4::Granularity::ShadingRate) {
            Some("shading-rate interlock is left alone")
        } else {
            None
        };
        if let Some(why) = why {
            rec.diagnostics.push(findings::experiment_not_applied(
                active.experiment.name(),
                why,
            ));
        }
    }
    let flagged = rec
        .diagnostics
        .iter()
        .any(|x| matches!(x.severity, Severity::Warning | Severity::Error));
    d.stats.analysed(Analysed {
        mode,
        unknown: rec.interlock == Interlock::Unknown,
        flagged,
    });
    if mode.is_some() {
        log_line(&rec, flagged);
    } else if rec.interlock == Interlock::Unknown {
        log::debug!(
            "{} {} ({:?}): interlock unknown",
            kind_name(kind),
            rec.handle,
            rec.source
        );
    }
    // An object the experiment changed is reported even when it has no interlock left.
    if rec.interlock != Interlock::None || d.settings.report_all || rec.experiment.is_some() {
        write_report(d, &rec);
    }
    tell_messengers(d, handle, &rec);
}

/// One `draw` record: the draws of one command buffer with one bound object and draw state,
/// written through the device's outbox (at once, unless it waits for its verdict or for records
/// before it). The record is kept with the command buffer, for the report of a device loss.
pub(crate) fn draw_record(d: &Device, cb: u64, g: &DrawGroup) -> Arc<DrawRecord> {
    let b = &g.bound;
    let entry = crate::model::analysis::fragment_entry(&b.fragment.analysis, &b.fragment.entry);
    let mut rec = build_record(
        &subject(d, Kind::Draw, b.handle, &b.fragment),
        &b.fragment.entry,
        entry,
        &g.draw,
    );
    rec.command_buffer = Some(format!("0x{cb:x}"));
    rec.bound = Some(b.bound);
    // Which object, not only its handle: a new object at a reused address is a new record.
    rec.object = Some(b.seq);
    rec.draws = Some(g.count);
    rec.module_name = b.fragment.module_name.clone();
    rec.fossilize_module = b.fragment.fossilize_module.clone();
    rec.experiment = b.fragment.experiment.clone();
    rec.name = b.name();
    d.stats.draw_record(g.count);
    let drawn = Arc::new(DrawRecord::built(rec));
    // The record carries its object's verify_isa verdict: where the verifier is still reaching
    // it, the record waits in the device's outbox (after its object's record) and is written
    // when the verdict is given.
    let isa = b.fragment.isa.clone();
    let waits_for = match &isa {
        IsaVerdict::Pending(p) if !p.given() => Some(p.clone()),
        _ => None,
    };
    let (handle, cell) = (b.handle, drawn.clone());
    d.outbox.send(d, waits_for, move |d: &Device| {
        let mut rec = cell.as_built().clone();
        rec.diagnostics.extend(findings::explained(
            &isa.diagnostics(),
            d.chip,
            d.driver.as_deref(),
        ));
        // A command buffer recorded again with the same object and state adds to the record
        // already in the report: the draws are that record's, under its id (what a device-lost
        // line names).
        if let Some(id) = write_report(d, &rec) {
            rec.id = id;
        }
        tell_messengers(d, handle, &rec);
        cell.write(rec);
    });
    drawn
}

/// A record's findings, for the application's debug-utils messengers (the `debug_messages`
/// setting). On the verifier's thread the findings are held for the application's next call: the
/// messengers are the application's code, called on its own threads only.
pub(crate) fn tell_messengers(d: &Device, handle: u64, rec: &Record) {
    if !d.settings.debug_messages
        || rec.diagnostics.is_empty()
        || report::EXITING.load(std::sync::atomic::Ordering::Relaxed)
    {
        return;
    }
    if crate::background::on_verifier_thread() {
        d.held_messages.lock().push((handle, Arc::new(rec.clone())));
        return;
    }
    tell_held_messages(d);
    deliver(d, handle, rec);
}

/// Waits (a bounded time) for the verdicts records are waiting for and for the verifier's
/// writing of them, then tells the findings held: before the application's messengers go.
pub(crate) fn settle_messages(d: &Device) {
    if !d.settings.debug_messages || crate::background::on_verifier_thread() {
        return;
    }
    let limit = crate::background::VERDICT_WAIT;
    d.outbox.flush(d, Some(std::time::Instant::now() + limit));
    d.verifier.drain(Some(limit));
    tell_held_messages(d);
}

/// The findings the verifier's thread held, told in the order their records were written (on
/// an application's thread).
pub(crate) fn tell_held_messages(d: &Device) {
    if !d.settings.debug_messages || crate::background::on_verifier_thread() {
        return;
    }
    let held = std::mem::take(&mut *d.held_messages.lock());
    for (handle, rec) in held {
        if !report::EXITING.load(std::sync::atomic::Ordering::Relaxed) {
            deliver(d, handle, &rec);
        }
    }
}

fn deliver(d: &Device, handle: u64, rec: &Record) {
    let object_type = match rec.kind {
        Kind::ShaderObject => vk::ObjectType::SHADER_EXT,
        Kind::Draw if rec.bound == Some(Bound::ShaderObject) => vk::ObjectType::SHADER_EXT,
        _ => vk::ObjectType::PIPELINE,
    };
    // Every record carries the object's name where it has one (emit and the draw records).
    let subject = crate::messenger::Subject {
        object_type,
        handle,
        name: rec.name.as_deref(),
        context: format!(
            "{} {}, stage {}, {} interlock, {} sample(s), chip {}",
            kind_name(rec.kind),
            rec.handle,
            rec.stage_hash.as_deref().unwrap_or("unknown"),
            rec.interlock,
            rec.samples.map_or("dynamic".to_string(), |n| n.to_string()),
            rec.chip.as_deref().unwrap_or("none")
        ),
        samples: rec.samples,
    };
    d.messengers.deliver(&subject, &rec.diagnostics);
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Pipeline => "pipeline",
        Kind::Library => "library",
        Kind::ShaderObject => "shader object",
        Kind::Draw => "draws",
    }
}

fn log_line(rec: &Record, flagged: bool) {
    // The line is built only where it will be logged: at the default level most are not.
    let level = if flagged {
        log::Level::Warn
    } else {
        log::Level::Info
    };
    if !log::log_enabled!(level) {
        return;
    }
    let codes: Vec<&str> = rec.diagnostics.iter().map(|d| d.code.name()).collect();
    let line = format!(
        "{} {} #{} (stage {}) entry '{}': {} interlock, {} sample(s), chip {}{}",
        kind_name(rec.kind),
        rec.handle,
        rec.id,
        rec.stage_hash.as_deref().unwrap_or("unknown"),
        rec.entry_point,
        rec.interlock,
        rec.samples.map_or("dynamic".to_string(), |n| n.to_string()),
        rec.chip.as_deref().unwrap_or("none"),
        if codes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", codes.join(", "))
        }
    );
    if flagged {
        log::warn!("{line}");
    } else {
        log::info!("{line}");
    }
}

/// The device-lost line: to the log as an error, the report at once, and the application's
/// debug-utils messengers as an error on the queue (or the device).
pub(crate) fn device_lost(
    d: &Device,
    line: &pops_report::DeviceLost<crate::model::record::Shared>,
    queue: Option<u64>,
) {
    log::error!("device '{}': {}", d.device_name, line.message);
    if let Some(path) = &d.settings.report {
        // Written at once: the application may well not survive the loss.
        if let Err(e) = report::append_line(path, line, true) {
            log::error!("cannot write report {}: {e}", path.display());
        }
    }
    let (object_type, handle) = match queue {
        Some(q) => (vk::ObjectType::QUEUE, q),
        None => (vk::ObjectType::DEVICE, vk::Handle::as_raw(d.handle)),
    };
    let subject = crate::messenger::Subject {
        object_type,
        handle,
        name: None,
        context: format!(
            "device '{}', chip {}",
            d.device_name,
            line.chip.as_deref().unwrap_or("none")
        ),
        samples: None,
    };
    let finding = findings::device_lost(&line.message);
    d.messengers
        .deliver(&subject, std::slice::from_ref(&finding));
}

/// Writes a record to the report, where there is one: the id it has there.
pub(crate) fn write_report(d: &Device, rec: &Record) -> Option<u64> {
    let path = d.settings.report.as_ref()?;
    match report::append(path, rec) {
        Ok(id) => Some(id),
        Err(e) => {
            static ONCE: Once = Once::new();
            ONCE.call_once(|| log::error!("cannot write report {}: {e}", path.display()));
            None
        }
    }
}

/// Timing lines out: one per completed frame or submission, and at the device's end (`end`:
/// the device's totals and the submissions dropped unread) one per interlocked object and a
/// log line.
pub(crate) fn write_timing(
    d: &Device,
    units: crate::model::timing::Completed,
    end: Option<(&crate::model::timing::Unit, u64)>,
) {
    let Some(t) = &d.timing else { return };
    let describe = crate::model::timing::Describe {
        app: &d.app,
        device: &d.device_name,
        period: t.period,
    };
    let mut lines: Vec<pops_report::Timing> = units
        .iter()
        .map(|(scope, index, u)| describe.line(*scope, Some(*index), u))
        .collect();
    if let Some((total, dropped)) = end {
        let all = describe.line(pops_report::TimingScope::Object, None, total);
        log::info!(
            "device '{}': interlocked draws took {:.3} ms of GPU time in {} timed range(s), {} not timed; {} draw state(s) in command buffers the layer does not time (secondary, protected or without timestamps); {} submission(s) not read (resubmitted before their timestamps were read, or never available)",
            d.device_name,
            all.interlocked_ns as f64 / 1e6,
            all.ranges,
            all.unmeasured,
            t.untimed.load(std::sync::atomic::Ordering::Relaxed),
            dropped
        );
        lines.extend(describe.object_lines(total));
    }
    let Some(path) = &d.settings.report else {
        return;
    };
    for l in &lines {
        if let Err(e) = report::append_line(path, l, false) {
            static ONCE: Once = Once::new();
            ONCE.call_once(|| log::error!("cannot write report {}: {e}", path.display()));
        }
    }
}
