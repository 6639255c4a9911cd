//! Records and diagnostics out of the layer: one record per analysed object or draw group goes
//! to the log (one line, where its level is enabled), the JSONL report ([`crate::report`]) and
//! the application's debug-utils messengers ([`crate::messenger`]); per-device totals at
//! destruction.

use crate::capture::DrawState;
use crate::compute::{self, Subject};
use crate::dispatch::DeviceData;
use crate::report::{self, Kind, Record, Severity};
use ash::vk;
use std::sync::atomic::Ordering;
use std::sync::Once;

pub(crate) fn summary(d: &DeviceData) {
    let s = &d.stats;
    let by_mode = s.by_mode.lock().unwrap_or_else(|p| p.into_inner());
    let mut modes: Vec<String> = by_mode.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    modes.sort();
    log::info!(
        "device '{}' destroyed: {} fragment stages analysed, {} with interlock ({}), {} flagged, {} unknown",
        d.device_name,
        s.analysed.load(Ordering::Relaxed),
        s.interlocked.load(Ordering::Relaxed),
        if modes.is_empty() { "-".to_string() } else { modes.join(", ") },
        s.flagged.load(Ordering::Relaxed),
        s.unknown.load(Ordering::Relaxed),
    );
    log::info!(
        "device '{}': {} draws with an interlocked fragment stage, in {} draw records (command buffer × bound object × draw state)",
        d.device_name,
        s.draws.load(Ordering::Relaxed),
        s.draw_records.load(Ordering::Relaxed),
    );
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn emit(
    d: &DeviceData,
    kind: Kind,
    handle: u64,
    source: &str,
    stage_hash: Option<&str>,
    entry_name: &str,
    entry: Result<&compute::EntryAnalysis, String>,
    draw: &DrawState,
    module_name: Option<&str>,
    experiment: Option<&pops_report::Experiment>,
) {
    let subject = Subject {
        stage_hash,
        app: &d.app,
        device: &d.device_name,
        kind,
        handle,
        source,
        chip: d.chip,
        features: d.features,
    };
    let mode = entry.as_ref().ok().and_then(|e| e.interlock);
    let mut rec = compute::build_record(&subject, entry_name, entry, draw);
    // Names the application gave before this record: the object's own (rare at creation) and
    // its shader module's.
    rec.name = d
        .names
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&handle)
        .cloned();
    rec.module_name = module_name.map(str::to_string);
    rec.experiment = experiment.cloned();
    // The device runs an experiment the layer could not apply here: say so.
    if let (Some(active), None) = (&d.experiment, experiment) {
        let why = match rec.source.as_str() {
            "module_identifier" | "pipeline_binary" | "shader_object_binary" => {
                Some("its SPIR-V is not visible to layers")
            }
            _ if rec.interlock.starts_with("shading-rate") => {
                Some("shading-rate interlock is left alone")
            }
            _ => None,
        };
        if let Some(why) = why {
            rec.diagnostics.push(report::Diagnostic::new(
                Severity::Info,
                "experiment-not-applied",
                format!(
                    "the {} experiment was not applied: {why}",
                    active.experiment
                ),
            ));
        }
    }
    let s = &d.stats;
    s.analysed.fetch_add(1, Ordering::Relaxed);
    let flagged = rec
        .diagnostics
        .iter()
        .any(|x| matches!(x.severity, Severity::Warning | Severity::Error));
    if rec.interlock == "unknown" {
        s.unknown.fetch_add(1, Ordering::Relaxed);
    }
    if let Some(m) = mode {
        s.interlocked.fetch_add(1, Ordering::Relaxed);
        *s.by_mode
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(m)
            .or_default() += 1;
        if flagged {
            s.flagged.fetch_add(1, Ordering::Relaxed);
        }
        log_line(&rec, flagged);
    } else if rec.interlock == "unknown" {
        log::debug!(
            "{} {} ({}): interlock unknown",
            kind_name(kind),
            rec.handle,
            rec.source
        );
    }
    // An object the experiment changed is reported even when it has no interlock left.
    if rec.interlock != "none" || d.settings.report_all || rec.experiment.is_some() {
        write_report(d, &rec);
    }
    tell_messengers(d, handle, &rec);
}

/// A record's findings, for the application's debug-utils messengers (the `debug_messages`
/// setting).
pub(crate) fn tell_messengers(d: &DeviceData, handle: u64, rec: &Record) {
    if !d.settings.debug_messages || rec.diagnostics.is_empty() {
        return;
    }
    let object_type = match rec.kind {
        Kind::ShaderObject => vk::ObjectType::SHADER_EXT,
        Kind::Draw if rec.bound.as_deref() == Some("shader_object") => vk::ObjectType::SHADER_EXT,
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
    let codes: Vec<&str> = rec.diagnostics.iter().map(|d| d.code.as_str()).collect();
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

pub(crate) fn write_report(d: &DeviceData, rec: &Record) {
    let Some(path) = &d.settings.report else {
        return;
    };
    if let Err(e) = report::append(path, rec) {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| log::error!("cannot write report {}: {e}", path.display()));
    }
}

/// Timing lines out: one per completed frame or submission, and at the device's end (`end`:
/// the device's totals and the submissions dropped unread) one per interlocked object and a
/// log line.
pub(crate) fn write_timing(
    d: &DeviceData,
    units: crate::timing::Completed,
    end: Option<(&crate::timing::Unit, u64)>,
) {
    let Some(t) = &d.timing else { return };
    let describe = crate::timing::Describe {
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
