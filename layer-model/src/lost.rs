//! The device-lost line: what [`super::in_flight`] knew when a call first returned
//! VK_ERROR_DEVICE_LOST, as the draw records of the interlocked draws involved, with a sentence
//! that says it — "no interlocked work" included, which is an answer too. Pure.

use super::in_flight::{Loss, Submitted};
use super::record::{DrawRecord, Record, Shared};
use pops_report::{Bound, DeviceFault, DeviceLost, DeviceLostKind, LostDraw, SCHEMA_VERSION};
use std::sync::Arc;

/// The draw records of one command buffer (its executed secondaries' included): what a batch
/// carries per command buffer, shared with the command buffer, never copied per submission.
pub type Recorded = Arc<[Arc<DrawRecord>]>;

/// Where the loss was seen.
pub struct Seen<'a> {
    pub app: &'a str,
    pub device: &'a str,
    pub chip: Option<pm4::Family>,
    /// The command that returned VK_ERROR_DEVICE_LOST.
    pub call: &'a str,
    /// The queue it concerned, where the layer knows one.
    pub queue: Option<u64>,
}

/// The device-lost line.
pub fn line(
    seen: &Seen,
    loss: Loss<Recorded>,
    at_loss: Vec<Submitted<Recorded>>,
    fault: Option<DeviceFault>,
) -> DeviceLost<Shared> {
    let list = |subs: &[Submitted<Recorded>]| -> Vec<LostDraw<Shared>> {
        subs.iter()
            .flat_map(|s| {
                s.draws
                    .iter()
                    .flat_map(move |cb| cb.iter().map(move |r| lost_draw(s, r)))
            })
            .collect()
    };
    let in_flight = list(&loss.in_flight);
    let at_loss = list(&at_loss);
    let recent = list(&loss.recent);
    let message = message(seen, &in_flight, &at_loss, &recent, loss.not_kept);
    DeviceLost {
        schema_version: SCHEMA_VERSION,
        app: seen.app.to_string(),
        device: seen.device.to_string(),
        kind: DeviceLostKind::DeviceLost,
        chip: seen.chip.map(|f| f.name().to_string()),
        call: seen.call.to_string(),
        queue: seen.queue.map(hex),
        message,
        in_flight,
        at_loss,
        recent,
        not_kept: loss.not_kept,
        fault,
    }
}

/// A VkDeviceFaultAddressTypeEXT as the specification names it, without its prefix and
/// suffix; a value it does not name, as the number.
pub fn address_type(raw: i32) -> String {
    const NAMES: [&str; 7] = [
        "NONE",
        "READ_INVALID",
        "WRITE_INVALID",
        "EXECUTE_INVALID",
        "INSTRUCTION_POINTER_UNKNOWN",
        "INSTRUCTION_POINTER_INVALID",
        "INSTRUCTION_POINTER_FAULT",
    ];
    usize::try_from(raw)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| raw.to_string(), |n| n.to_string())
}

fn hex(h: u64) -> String {
    format!("0x{h:x}")
}

/// One draw record in one submission.
fn lost_draw(s: &Submitted<Recorded>, r: &Record) -> LostDraw<Shared> {
    LostDraw {
        record: r.id,
        queue: hex(s.queue),
        submission: s.submission,
        command_buffer: r.command_buffer.clone().unwrap_or_default(),
        handle: r.handle.clone(),
        bound: r.bound.unwrap_or(Bound::Pipeline),
        name: r.name.clone(),
        module_name: r.module_name.clone(),
        stage_hash: r.stage_hash.clone(),
        interlock: r.interlock,
        samples: r.samples,
        chip: r.chip.clone(),
        draws: r.draws.unwrap_or(0),
        // The state line the report already holds (written with the record).
        state: r.registers.id(),
        registers: Shared::null(),
        diagnostics: r.diagnostics.clone(),
    }
}

/// How a draw is named in the sentence: the object's name, else its module's, else its handle.
fn who(d: &LostDraw<Shared>) -> String {
    let object = match (&d.name, &d.module_name) {
        (Some(n), _) => format!("'{n}'"),
        (None, Some(m)) => format!("{} of module '{m}'", d.handle),
        (None, None) => d.handle.clone(),
    };
    format!(
        "{} {object} ({}, {} sample(s))",
        d.bound,
        d.interlock,
        d.samples.map_or("dynamic".into(), |n| n.to_string())
    )
}

fn message(
    seen: &Seen,
    in_flight: &[LostDraw<Shared>],
    at_loss: &[LostDraw<Shared>],
    recent: &[LostDraw<Shared>],
    not_kept: u64,
) -> String {
    let place = match seen.queue {
        Some(q) => format!("{} on queue {}", seen.call, hex(q)),
        None => seen.call.to_string(),
    };
    if in_flight.is_empty() && at_loss.is_empty() && recent.is_empty() && not_kept == 0 {
        return format!(
            "device lost ({place}): no interlocked work in flight, at the loss or just before it"
        );
    }
    let mut parts = vec![
        format!("{} interlocked draw state(s) in flight", in_flight.len()),
        format!("{} at the loss", at_loss.len()),
        format!("{} just before it", recent.len()),
    ];
    if not_kept > 0 {
        parts.push(format!("{not_kept} older submission(s) not kept"));
    }
    // The draws to look at first: at the loss, else in flight, else the last ones completed.
    let first = [at_loss, in_flight, recent]
        .into_iter()
        .find(|l| !l.is_empty())
        .map(|l| {
            let mut names: Vec<String> = Vec::new();
            for d in l {
                let n = who(d);
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            let more = names.len().saturating_sub(3);
            names.truncate(3);
            let mut s = names.join(", ");
            if more > 0 {
                s += &format!(" and {more} more");
            }
            s
        })
        .unwrap_or_default();
    format!("device lost ({place}): {}; {first}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_flight::{Batch, InFlight};
    use pops_report::{Interlock, Kind, Source};

    fn record(id: u64, name: Option<&str>) -> Arc<Record> {
        Arc::new(Record {
            schema_version: SCHEMA_VERSION,
            id,
            app: "app".into(),
            device: "dev".into(),
            kind: Kind::Draw,
            handle: format!("0x{:x}", 0x100 + id),
            entry_point: "main".into(),
            stage_hash: Some("0123456789abcdef".into()),
            interlock: Interlock::Mode("pixel-ordered".parse().unwrap()),
            begin_count: 1,
            end_count: 1,
            per_sample: false,
            samples: Some(4),
            chip: Some("navi31".into()),
            state: None,
            registers: Shared::null(),
            pm4: Arc::new([]),
            diagnostics: Vec::new(),
            source: Source::ShaderModule,
            command_buffer: Some("0xc0".into()),
            bound: Some(Bound::Pipeline),
            draws: Some(12),
            command_buffers: None,
            name: name.map(str::to_string),
            module_name: None,
            fossilize_module: None,
            null_device: None,
            driver: None,
            object: None,
            experiment: None,
        })
    }

    fn cb(records: &[&Arc<Record>]) -> Recorded {
        records
            .iter()
            .map(|r| Arc::new(DrawRecord::written(Record::clone(r))))
            .collect()
    }

    fn seen(queue: Option<u64>) -> Seen<'static> {
        Seen {
            app: "app",
            device: "dev",
            chip: pm4::Family::parse("navi31").ok(),
            call: "vkQueueSubmit",
            queue,
        }
    }

    #[test]
    fn fault_address_types_are_named_as_the_specification_does() {
        use ash::vk::DeviceFaultAddressTypeEXT as T;
        assert_eq!(address_type(T::READ_INVALID.as_raw()), "READ_INVALID");
        assert_eq!(
            address_type(T::INSTRUCTION_POINTER_FAULT.as_raw()),
            "INSTRUCTION_POINTER_FAULT"
        );
        assert_eq!(address_type(99), "99");
    }

    #[test]
    fn no_interlocked_work_is_said() {
        let f: InFlight<Recorded> = InFlight::default();
        let l = line(&seen(Some(0x5)), f.loss(Some(0x5)), Vec::new(), None);
        assert!(l.in_flight.is_empty() && l.at_loss.is_empty() && l.recent.is_empty());
        assert_eq!(
            l.message,
            "device lost (vkQueueSubmit on queue 0x5): no interlocked work in flight, at the loss or just before it"
        );
        assert_eq!(l.queue.as_deref(), Some("0x5"));
    }

    #[test]
    fn the_lists_carry_the_draw_records_and_the_message_names_them() {
        let mut f = InFlight::default();
        let (a, b) = (record(1, Some("oit")), record(2, None));
        f.submit(
            0x5,
            1,
            vec![Batch {
                draws: vec![cb(&[&a])],
                ..Batch::default()
            }],
            Some(9),
        );
        f.fence_signaled(9);
        f.submit(
            0x5,
            2,
            vec![Batch {
                draws: vec![cb(&[&b, &a])],
                ..Batch::default()
            }],
            None,
        );
        let at = vec![Submitted {
            queue: 0x5,
            submission: 3,
            draws: vec![cb(&[&a])],
        }];
        let l = line(&seen(Some(0x5)), f.loss(Some(0x5)), at, None);
        assert_eq!(
            l.in_flight.iter().map(|d| d.record).collect::<Vec<_>>(),
            [2, 1]
        );
        assert_eq!(l.at_loss[0].submission, 3);
        assert_eq!(l.recent[0].record, 1);
        assert_eq!(l.recent[0].draws, 12);
        assert_eq!(l.recent[0].command_buffer, "0xc0");
        assert_eq!(
            l.message,
            "device lost (vkQueueSubmit on queue 0x5): 2 interlocked draw state(s) in flight, 1 at the loss, 1 just before it; pipeline 'oit' (pixel-ordered, 4 sample(s))"
        );
        let json = serde_json::to_value(&l).unwrap();
        assert_eq!(json["kind"], "device_lost");
        assert_eq!(json["in_flight"][0]["handle"], "0x102");
    }
}
