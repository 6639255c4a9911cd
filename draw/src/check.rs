//! The result checker: a pure function over the read-back storage buffer.
//!
//! Each slot holds `[count, entry 0 .. entry ENTRIES-1, overflow]` (see [`crate::shader`]). The
//! expected content of a slot is the list of primitives covering its pixel, in draw order. A slot
//! is correct when it holds each expected primitive exactly once and nothing else; with ordered
//! interlock it must also hold them in draw order.

use crate::shader::{ENTRIES, HEIGHT, SLOT_DWORDS, WIDTH};
use crate::stream::Rect;
use crate::variant::Variant;

/// What each slot should record: the covering primitives in draw order.
pub fn expected(variant: &Variant, rects: &[Rect]) -> Vec<Vec<u32>> {
    let per_pixel_slots = if variant.per_sample() {
        variant.samples
    } else {
        1
    };
    let mut out = Vec::with_capacity((WIDTH * HEIGHT * per_pixel_slots) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let prims: Vec<u32> = rects
                .iter()
                .enumerate()
                .filter(|(_, r)| r.covers(x, y))
                .map(|(i, _)| i as u32)
                .collect();
            for _ in 0..per_pixel_slots {
                out.push(prims.clone());
            }
        }
    }
    out
}

/// How one slot went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotError {
    /// Every primitive exactly once, in another order.
    Order { got: Vec<u32> },
    /// An expected primitive is absent.
    Missing { primitive: u32 },
    /// A primitive was recorded more than once.
    Duplicate { primitive: u32 },
    /// A primitive that does not cover the slot was recorded.
    Unexpected { primitive: u32 },
    /// More invocations than the slot can record: only the count is known.
    Overflow { count: u32 },
}

/// The verdict over all slots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    pub slots: usize,
    /// Slots holding exactly the expected primitives in draw order.
    pub in_order: usize,
    /// Slots holding every expected primitive once, in another order.
    pub order_violations: usize,
    pub missing: usize,
    pub duplicates: usize,
    pub unexpected: usize,
    pub overflows: usize,
    /// The first few failures, `(slot, x, y, error)`, for the report.
    pub examples: Vec<(usize, u32, u32, SlotError)>,
    /// Whether order was required.
    pub ordered: bool,
}

const EXAMPLES: usize = 8;

impl CheckReport {
    /// Slots that did not see every primitive exactly once.
    pub fn count_errors(&self) -> usize {
        self.missing + self.duplicates + self.unexpected + self.overflows
    }

    /// The run is correct: every slot saw every primitive exactly once, in order when required.
    pub fn passed(&self) -> bool {
        self.count_errors() == 0 && (!self.ordered || self.order_violations == 0)
    }

    /// The check as the draw's JSON document writes it.
    pub fn document(&self) -> pops_report::selftest::DrawCheck {
        pops_report::selftest::DrawCheck {
            slots: self.slots,
            in_order: self.in_order,
            order_violations: self.order_violations,
            missing: self.missing,
            duplicates: self.duplicates,
            unexpected: self.unexpected,
            overflows: self.overflows,
            ordered: self.ordered,
            passed: self.passed(),
            examples: self
                .examples
                .iter()
                .map(|(s, x, y, e)| pops_report::selftest::CheckExample {
                    slot: *s,
                    x: *x,
                    y: *y,
                    error: format!("{e:?}"),
                })
                .collect(),
        }
    }
}

/// Checks `buffer` (the storage buffer's dwords) against `expected` (one list per slot).
/// `ordered`: ordered interlock, so order violations fail the run; otherwise they are counted
/// only. A buffer too short for the slots counts the absent slots as missing everything.
pub fn check(buffer: &[u32], expected: &[Vec<u32>], ordered: bool) -> CheckReport {
    let mut r = CheckReport {
        slots: expected.len(),
        ordered,
        ..CheckReport::default()
    };
    let stride = SLOT_DWORDS as usize;
    for (slot, want) in expected.iter().enumerate() {
        let base = slot * stride;
        let pixel = slot / (expected.len() / (WIDTH * HEIGHT) as usize).max(1);
        let (x, y) = (pixel as u32 % WIDTH, pixel as u32 / WIDTH);
        let note = |r: &mut CheckReport, e: SlotError| {
            if r.examples.len() < EXAMPLES {
                r.examples.push((slot, x, y, e));
            }
        };
        let Some(raw) = buffer.get(base..base + stride) else {
            if let Some(p) = want.first() {
                r.missing += 1;
                note(&mut r, SlotError::Missing { primitive: *p });
            } else {
                r.in_order += 1;
            }
            continue;
        };
        let count = raw[0];
        if count > ENTRIES {
            r.overflows += 1;
            note(&mut r, SlotError::Overflow { count });
            continue;
        }
        let got = &raw[1..1 + count as usize];
        let mut error = None;
        for (i, p) in got.iter().enumerate() {
            if got[..i].contains(p) {
                error = Some(SlotError::Duplicate { primitive: *p });
                r.duplicates += 1;
                break;
            }
            if !want.contains(p) {
                error = Some(SlotError::Unexpected { primitive: *p });
                r.unexpected += 1;
                break;
            }
        }
        if error.is_none() {
            if let Some(p) = want.iter().find(|p| !got.contains(p)) {
                error = Some(SlotError::Missing { primitive: *p });
                r.missing += 1;
            }
        }
        match error {
            Some(e) => note(&mut r, e),
            None if got == want.as_slice() => r.in_order += 1,
            None => {
                r.order_violations += 1;
                note(&mut r, SlotError::Order { got: got.to_vec() });
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::rectangles;
    use pm4::InterlockMode;

    fn fill(expected: &[Vec<u32>]) -> Vec<u32> {
        let mut b = vec![0u32; expected.len() * SLOT_DWORDS as usize];
        for (s, want) in expected.iter().enumerate() {
            let base = s * SLOT_DWORDS as usize;
            b[base] = want.len() as u32;
            for (i, p) in want.iter().enumerate() {
                b[base + 1 + i] = *p;
            }
        }
        b
    }

    fn setup() -> (Vec<Vec<u32>>, usize) {
        let v = Variant::new(Some(InterlockMode::ALL[0]), 1);
        let e = expected(&v, &rectangles(8));
        // The centre pixel (16, 16) is covered by all eight rectangles.
        let centre = (16 * WIDTH + 16) as usize;
        assert_eq!(e[centre], (0..8).collect::<Vec<_>>());
        assert!(e[0] == [0]);
        (e, centre)
    }

    #[test]
    fn a_correct_buffer_passes() {
        let (e, _) = setup();
        let r = check(&fill(&e), &e, true);
        assert!(r.passed(), "{r:?}");
        assert_eq!(r.in_order, e.len());
    }

    #[test]
    fn a_swapped_pair_is_an_order_violation() {
        let (e, c) = setup();
        let mut b = fill(&e);
        let base = c * SLOT_DWORDS as usize;
        b.swap(base + 3, base + 4);
        let r = check(&b, &e, true);
        assert_eq!(r.order_violations, 1);
        assert!(!r.passed());
        assert_eq!(r.examples[0].1, 16);
        // Unordered interlock: still every primitive exactly once.
        let r = check(&b, &e, false);
        assert!(r.passed());
        assert_eq!(r.order_violations, 1);
    }

    #[test]
    fn a_missing_primitive_fails_ordered_and_unordered() {
        let (e, c) = setup();
        let mut b = fill(&e);
        let base = c * SLOT_DWORDS as usize;
        b[base] -= 1; // the last primitive never arrived
        for ordered in [true, false] {
            let r = check(&b, &e, ordered);
            assert_eq!(r.missing, 1);
            assert_eq!(r.examples[0].3, SlotError::Missing { primitive: 7 });
            assert!(!r.passed());
        }
    }

    #[test]
    fn a_duplicate_fails_ordered_and_unordered() {
        let (e, c) = setup();
        let mut b = fill(&e);
        let base = c * SLOT_DWORDS as usize;
        b[base + 2] = 0; // primitive 0 twice, primitive 1 lost
        for ordered in [true, false] {
            let r = check(&b, &e, ordered);
            assert_eq!(r.duplicates, 1);
            assert!(!r.passed());
        }
    }

    #[test]
    fn overflow_unexpected_and_short_buffers_are_reported() {
        let (e, c) = setup();
        let mut b = fill(&e);
        b[c * SLOT_DWORDS as usize] = ENTRIES + 1;
        b[SLOT_DWORDS as usize] = 1; // slot 1 (pixel (1, 0)) covered by rectangle 0 only
        b[SLOT_DWORDS as usize + 1] = 5;
        let r = check(&b, &e, true);
        assert_eq!((r.overflows, r.unexpected), (1, 1));
        let r = check(&[], &e, false);
        assert!(r.missing > 0 && !r.passed());
    }

    #[test]
    fn sample_slots_expect_the_pixel_coverage_per_sample() {
        let v = Variant::new(Some(InterlockMode::ALL[2]), 4);
        let e = expected(&v, &rectangles(3));
        assert_eq!(e.len(), 4096);
        assert_eq!(e[0..4], [vec![0], vec![0], vec![0], vec![0]]);
        let b = fill(&e);
        assert!(check(&b, &e, true).passed());
    }
}
