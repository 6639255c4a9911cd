//! The ordered-section sequences of the POPS article ("Shader code"), per level.
//!
//! The sequences are data: [`ordered_section`] returns the instructions, the ordering model in
//! [`crate::model`] interprets exactly these instructions, and the tests disassemble exactly
//! these encodings with LLVM and compare them with RADV's.

use super::encode::{assemble, max_sgpr, Listing};
use super::inst::{Hwreg, HwregId, Inst, Label, Marker, Msg, Operand, Waitcnt};
use super::ops::{Sop1, Sop2, Sopc, Sopp};
use super::IsaError;
use pm4::GfxLevel;

/// Where the wait on GFX9–10.3 ends up: after the wait loop, or directly when bit 31 of
/// COLLISION_WAVEID is clear.
pub const LABEL_ENTERED: Label = Label("pops_entered");
/// Top of the polling loop on `src_pops_exiting_wave_id`.
pub const LABEL_WAIT: Label = Label("pops_wait");
/// Top of the intrawave loop: one iteration per layer of quads.
pub const LABEL_LAYER: Label = Label("pops_layer");
/// The layer's lane mask is known.
pub const LABEL_LAYER_EXEC: Label = Label("pops_layer_exec");
/// After the body of one layer (the first label of the exit sequence with intrawave on).
pub const LABEL_NEXT_LAYER: Label = Label("pops_next_layer");

/// How to build an ordered section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SectionOptions {
    /// Resolve intrawave collisions (GFX9–10.3 only): run the body once per layer of quads given
    /// by the INTRAWAVE_COLLISION argument.
    pub intrawave: bool,
    /// Wave64 (always on GFX9) or wave32 (GFX10+).
    pub wave64: bool,
    /// The SGPR holding the COLLISION_WAVEID argument (read only; unused on GFX11).
    pub collision_sgpr: u8,
    /// The SGPR holding the INTRAWAVE_COLLISION argument (read only; used with `intrawave`).
    pub intrawave_sgpr: u8,
    /// First of [`SectionOptions::scratch_count`] consecutive SGPRs the sequences may clobber.
    /// With `intrawave` some of them carry state from `enter` to `exit`: the body must preserve
    /// them. Even-aligned for wave64 intrawave (they hold 64-bit lane masks).
    pub scratch_sgprs: u8,
}

impl Default for SectionOptions {
    /// An example allocation: COLLISION_WAVEID in s2, INTRAWAVE_COLLISION in s3, scratch from s4.
    fn default() -> Self {
        SectionOptions {
            intrawave: false,
            wave64: true,
            collision_sgpr: 2,
            intrawave_sgpr: 3,
            scratch_sgprs: 4,
        }
    }
}

impl SectionOptions {
    /// How many scratch SGPRs the sequences of `level` use.
    pub fn scratch_count(&self, level: GfxLevel) -> u8 {
        if level.is_gfx11_plus() {
            0
        } else if !self.intrawave {
            3
        } else if self.wave64 {
            8
        } else {
            5
        }
    }

    fn validate(&self, level: GfxLevel) -> Result<(), IsaError> {
        if self.intrawave && level.is_gfx11_plus() {
            return Err(IsaError::IntrawaveUnsupported { level });
        }
        if !self.wave64 && level == GfxLevel::Gfx9 {
            return Err(IsaError::Wave32Unsupported { level });
        }
        if level.is_gfx11_plus() {
            return Ok(());
        }
        let max = max_sgpr(level);
        let count = self.scratch_count(level);
        let first = self.scratch_sgprs;
        let last = first as u16 + count as u16 - 1;
        if last > max as u16 {
            return Err(IsaError::SgprOutOfRange {
                sgpr: last.min(255) as u8,
                max,
                level,
            });
        }
        let mut args = vec![("COLLISION_WAVEID", self.collision_sgpr)];
        if self.intrawave {
            args.push(("INTRAWAVE_COLLISION", self.intrawave_sgpr));
        }
        for (what, s) in &args {
            if *s > max {
                return Err(IsaError::SgprOutOfRange {
                    sgpr: *s,
                    max,
                    level,
                });
            }
            if (first as u16..=last).contains(&(*s as u16)) {
                return Err(IsaError::SgprConflict {
                    sgpr: *s,
                    what,
                    other: "the scratch SGPRs",
                });
            }
        }
        if self.intrawave && self.collision_sgpr == self.intrawave_sgpr {
            return Err(IsaError::SgprConflict {
                sgpr: self.collision_sgpr,
                what: "COLLISION_WAVEID",
                other: "INTRAWAVE_COLLISION",
            });
        }
        if self.intrawave && self.wave64 && !first.is_multiple_of(2) {
            return Err(IsaError::MisalignedPair {
                sgpr: first,
                mnemonic: "s_mov_b64",
            });
        }
        Ok(())
    }
}

/// The entry and exit sequences of one ordered section; the body goes between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderedSection {
    pub level: GfxLevel,
    pub options: SectionOptions,
    pub enter: Vec<Inst>,
    pub exit: Vec<Inst>,
}

/// The encoding of [`OrderedSection::encode`]: `enter` and `exit` dwords as placed around an empty
/// body, and the whole listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedSection {
    pub enter: Vec<u32>,
    pub exit: Vec<u32>,
    pub listing: Listing,
}

impl OrderedSection {
    /// `enter`, `body`, `exit` as one instruction list. Branches of the intrawave loop cross the
    /// body, so encode the whole program, not the parts.
    pub fn program(&self, body: &[Inst]) -> Vec<Inst> {
        let mut p = Vec::with_capacity(self.enter.len() + body.len() + self.exit.len());
        p.extend_from_slice(&self.enter);
        p.extend_from_slice(body);
        p.extend_from_slice(&self.exit);
        p
    }

    /// Encodes the section around an empty body (a [`Marker::OrderedBody`] line in the listing).
    /// With intrawave on, `exit` branches back into `enter`: the dwords are right only with
    /// nothing in between — re-encode [`OrderedSection::program`] with the real body.
    pub fn encode(&self) -> Result<EncodedSection, IsaError> {
        let listing = assemble(
            self.level,
            &self.program(&[Inst::Marker(Marker::OrderedBody)]),
        )?;
        let split = self.enter.len();
        let words = |r: std::ops::Range<usize>| -> Vec<u32> {
            listing.lines[r]
                .iter()
                .flat_map(|l| l.words.iter().copied())
                .collect()
        };
        let enter = words(0..split);
        let exit = words(split + 1..listing.lines.len());
        Ok(EncodedSection {
            enter,
            exit,
            listing,
        })
    }
}

/// Builds the entry and exit sequences for `level`.
///
/// GFX9–10.3 (article, "Entering the ordered section in the wave"): skip everything when bit 31
/// of COLLISION_WAVEID is clear; set the packer hardware register; remap the 10-bit IDs by adding
/// `~current_id` (with GFX9's off-by-one correction of the newest overlapped ID); poll
/// `src_pops_exiting_wave_id` with `s_sleep` until it passes the newest overlapped wave. Exit:
/// `s_waitcnt` for vm, vs (GFX10+) and lgkm, then `s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)`.
///
/// GFX11: enter with `s_wait_event 0x0` (await "export ready"); the overlapping waves resume at
/// the wave's last export with `done`, so `exit` only waits for the memory counters — the export
/// itself belongs to the rest of the shader.
pub fn ordered_section(level: GfxLevel, opts: &SectionOptions) -> Result<OrderedSection, IsaError> {
    opts.validate(level)?;
    let (enter, exit) = if level.is_gfx11_plus() {
        gfx11(level)
    } else {
        gfx9_10(level, opts)
    };
    Ok(OrderedSection {
        level,
        options: *opts,
        enter,
        exit,
    })
}

/// The memory counters the article requires before resuming overlapping waves ("vm, vs, and in
/// some cases lgkm").
fn await_memory(level: GfxLevel) -> Vec<Inst> {
    if level == GfxLevel::Gfx12 {
        // GFX12 splits the counters: vm into loads, samples and BVH queries, lgkm into LDS and
        // scalar memory; stores keep their own (GFX10's vs).
        return [
            Sopp::WaitLoadcnt,
            Sopp::WaitSamplecnt,
            Sopp::WaitBvhcnt,
            Sopp::WaitStorecnt,
            Sopp::WaitDscnt,
            Sopp::WaitKmcnt,
        ]
        .into_iter()
        .map(|op| Inst::sopp(op, 0))
        .collect();
    }
    let mut v = vec![Inst::waitcnt(Waitcnt::VM_LGKM_ZERO)];
    if level != GfxLevel::Gfx9 {
        v.push(Inst::waitcnt_vscnt(0));
    }
    v
}

/// The immediate of `s_wait_event` that awaits "export ready".
const fn export_ready(level: GfxLevel) -> u16 {
    match level {
        // GFX12 waits where bit 1 is set: ACO's wait_event_imm_wait_export_ready_gfx12.
        GfxLevel::Gfx12 => 0x2,
        // "awaited by the s_wait_event instruction, with the bit 0 ("don't wait for
        // export_ready") of the immediate operand set to 0. On GFX11 specifically, AMD passes 0
        // as the whole immediate operand."
        _ => 0,
    }
}

fn gfx11(level: GfxLevel) -> (Vec<Inst>, Vec<Inst>) {
    let enter = vec![Inst::sopp(Sopp::WaitEvent, export_ready(level))];
    (enter, await_memory(level))
}

/// Registers of the GFX9–10.3 sequences, from the scratch block.
struct Regs {
    c: Operand,
    i: Operand,
    x: Operand,
    y: Operand,
    z: Operand,
    saved: Operand,
    pending: Operand,
    upper: Operand,
    q: Operand,
    t: Operand,
}

impl Regs {
    fn new(opts: &SectionOptions) -> Regs {
        let b = opts.scratch_sgprs;
        let s = |i: u8| Operand::Sgpr(b + i);
        let (x, y, z, saved, pending, upper, q, t) = match (opts.intrawave, opts.wave64) {
            (false, _) => (s(0), s(1), s(2), s(0), s(0), s(0), s(0), s(0)),
            // The wait temporaries reuse the slots of `upper`, `q` and `t`, which are only
            // written after the wait.
            (true, true) => (s(4), s(5), s(6), s(0), s(2), s(4), s(6), s(7)),
            (true, false) => (s(2), s(3), s(4), s(0), s(1), s(2), s(3), s(4)),
        };
        Regs {
            c: Operand::Sgpr(opts.collision_sgpr),
            i: Operand::Sgpr(opts.intrawave_sgpr),
            x,
            y,
            z,
            saved,
            pending,
            upper,
            q,
            t,
        }
    }
}

fn gfx9_10(level: GfxLevel, opts: &SectionOptions) -> (Vec<Inst>, Vec<Inst>) {
    let r = Regs::new(opts);
    let gfx9 = level == GfxLevel::Gfx9;
    let lit = Operand::imm;
    let mut e = Vec::new();

    // "The wait must not be performed if the "did overlap" bit 31 is set to 0, otherwise it will
    // result in a hang." Bit 31 clear also means no intrawave collisions: skip the POPS logic.
    e.push(Inst::sopc(Sopc::Bitcmp1B32, r.c, lit(31)));
    e.push(Inst::branch(Sopp::CbranchScc0, LABEL_ENTERED));

    // "The packer ID needs to be passed to the packer hardware register using s_setreg_b32".
    if gfx9 {
        // MODE[25:24]: packer 0 -> 0b01, packer 1 -> 0b10, i.e. packer_id + 1.
        e.push(Inst::sop2(Sop2::BfeU32, r.x, r.c, lit(0x1_001c))); // [28], 1 bit
        e.push(Inst::sop2(Sop2::AddI32, r.x, r.x, lit(1)));
        e.push(Inst::setreg(
            Hwreg {
                id: HwregId::Mode,
                offset: 24,
                size: 2,
            },
            r.x,
        ));
    } else {
        // POPS_PACKER[2:0] = 1 | packer_id << 1.
        e.push(Inst::sop2(Sop2::BfeU32, r.x, r.c, lit(0x2_001c))); // [29:28], 2 bits
        e.push(Inst::sop2(Sop2::Lshl1AddU32, r.x, r.x, lit(1)));
        e.push(Inst::setreg(
            Hwreg {
                id: HwregId::PopsPacker,
                offset: 0,
                size: 3,
            },
            r.x,
        ));
    }

    // Newest overlapped wave ID, [25:16].
    e.push(Inst::sop2(Sop2::BfeU32, r.y, r.c, lit(0xa_0010)));
    if gfx9 {
        // "GFX9 has an off-by-one error in the newest overlapped wave ID: if the 10-bit newest
        // overlapped wave ID is greater than the 10-bit current wave ID ..., 1 needs to be added".
        e.push(Inst::sop2(Sop2::AndB32, r.x, r.c, lit(0x3ff)));
        e.push(Inst::sopc(Sopc::CmpGtU32, r.y, r.x));
        e.push(Inst::sop2(Sop2::AddI32, r.y, r.y, Operand::Scc));
    }
    // "Subtracting current_wave_id + 1 is equivalent to adding ~current_wave_id."
    e.push(Inst::sop2(Sop2::NandB32, r.z, r.c, lit(0x3ff)));
    e.push(Inst::sop2(Sop2::AddI32, r.y, r.y, r.z));
    if gfx9 {
        // RADV (ACO) puts one wait state before the first read of src_pops_exiting_wave_id on
        // GFX9; kept rather than guessed away.
        e.push(Inst::sopp(Sopp::Nop, 0));
    }

    // "read in a loop until its value becomes greater than the newest overlapped wave ID (after
    // remapping both to monotonic)", yielding with s_sleep: 3 on GFX9 (finite), 0xFFFF on GFX10+
    // (exiting the ordered section wakes the waiting waves).
    e.push(Inst::Label(LABEL_WAIT));
    e.push(Inst::sop2(
        Sop2::AddI32,
        r.x,
        Operand::PopsExitingWaveId,
        r.z,
    ));
    e.push(Inst::sopc(Sopc::CmpLtU32, r.y, r.x));
    e.push(Inst::branch(Sopp::CbranchScc1, LABEL_ENTERED));
    e.push(Inst::sleep(if gfx9 { 3 } else { 0xffff }));
    e.push(Inst::branch(Sopp::Branch, LABEL_WAIT));
    e.push(Inst::Label(LABEL_ENTERED));

    let mut x = Vec::new();
    if opts.intrawave {
        intrawave_enter(&mut e, &r, opts.wave64);
        x.push(Inst::Label(LABEL_NEXT_LAYER));
        // Each layer's accesses complete before the next layer, which overlaps it, runs.
        x.extend(await_memory(level));
        let (cmp, mov) = if opts.wave64 {
            (Sopc::CmpLgU64, Sop1::MovB64)
        } else {
            (Sopc::CmpLgU32, Sop1::MovB32)
        };
        x.push(Inst::sopc(cmp, r.pending, lit(0)));
        x.push(Inst::branch(Sopp::CbranchScc1, LABEL_LAYER));
        x.push(Inst::sop1(mov, Operand::Exec, r.saved));
    } else {
        x.extend(await_memory(level));
    }
    // "To exit the ordered section ... the wave needs to send the ORDERED_PS_DONE message (7)
    // using s_sendmsg."
    x.push(Inst::sendmsg(Msg::OrderedPsDone));
    (e, x)
}

/// The intrawave loop header: EXEC becomes the lanes of the current layer of quads.
///
/// Layer boundaries come from the low 8 (wave32) or 16 (wave64) bits of INTRAWAVE_COLLISION, one
/// bit per quad that starts a new layer; the other bits are masked out, and so is bit 0 (quad 0
/// always starts the first layer). Each iteration takes the lowest remaining boundary quad `b`,
/// runs the body for the pending lanes below lane `4 * b`, and keeps the rest pending; with no
/// boundary left, all pending lanes form the last layer.
fn intrawave_enter(e: &mut Vec<Inst>, r: &Regs, wave64: bool) {
    let lit = Operand::imm;
    let (mov, andn2, and, lshl, mask) = if wave64 {
        (
            Sop1::MovB64,
            Sop2::Andn2B64,
            Sop2::AndB64,
            Sop2::LshlB64,
            0xfffe,
        )
    } else {
        (
            Sop1::MovB32,
            Sop2::Andn2B32,
            Sop2::AndB32,
            Sop2::LshlB32,
            0xfe,
        )
    };
    e.push(Inst::sop1(mov, r.saved, Operand::Exec));
    e.push(Inst::sop1(mov, r.pending, Operand::Exec));
    e.push(Inst::sop2(Sop2::AndB32, r.q, r.i, lit(mask)));
    e.push(Inst::Label(LABEL_LAYER));
    e.push(Inst::sop1(mov, r.upper, lit(0)));
    e.push(Inst::sopc(Sopc::CmpLgU32, r.q, lit(0)));
    e.push(Inst::branch(Sopp::CbranchScc0, LABEL_LAYER_EXEC));
    e.push(Inst::sop1(Sop1::Ff1I32B32, r.t, r.q));
    e.push(Inst::sop1(Sop1::Bitset0B32, r.q, r.t));
    e.push(Inst::sop2(Sop2::LshlB32, r.t, r.t, lit(2)));
    e.push(Inst::sop2(lshl, r.upper, lit(-1), r.t));
    e.push(Inst::Label(LABEL_LAYER_EXEC));
    e.push(Inst::sop2(andn2, Operand::Exec, r.pending, r.upper));
    e.push(Inst::sop2(and, r.pending, r.pending, r.upper));
    e.push(Inst::branch(Sopp::CbranchExecz, LABEL_NEXT_LAYER));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(intrawave: bool, wave64: bool) -> SectionOptions {
        SectionOptions {
            intrawave,
            wave64,
            ..SectionOptions::default()
        }
    }

    /// "GFX11 removes this concept entirely, instead overlapping invocations are always placed in
    /// different waves."
    #[test]
    fn intrawave_is_refused_on_gfx11_and_wave32_on_gfx9() {
        for level in [GfxLevel::Gfx11, GfxLevel::Gfx11_5, GfxLevel::Gfx12] {
            assert_eq!(
                ordered_section(level, &opts(true, true)),
                Err(IsaError::IntrawaveUnsupported { level })
            );
        }
        assert_eq!(
            ordered_section(GfxLevel::Gfx9, &opts(false, false)),
            Err(IsaError::Wave32Unsupported {
                level: GfxLevel::Gfx9
            })
        );
    }

    #[test]
    fn sgpr_allocation_is_validated() {
        let mut o = opts(true, true);
        o.scratch_sgprs = 5;
        assert!(matches!(
            ordered_section(GfxLevel::Gfx10, &o),
            Err(IsaError::MisalignedPair { sgpr: 5, .. })
        ));
        o.scratch_sgprs = 2;
        assert!(matches!(
            ordered_section(GfxLevel::Gfx10, &o),
            Err(IsaError::SgprConflict { sgpr: 2, .. })
        ));
        o.scratch_sgprs = 100;
        assert!(matches!(
            ordered_section(GfxLevel::Gfx9, &o),
            Err(IsaError::SgprOutOfRange { .. })
        ));
        let mut o = opts(true, false);
        o.intrawave_sgpr = o.collision_sgpr;
        assert!(matches!(
            ordered_section(GfxLevel::Gfx10_3, &o),
            Err(IsaError::SgprConflict { .. })
        ));
    }

    /// "it must still be ensured that ORDERED_PS_DONE is sent by the wave only once": exactly one
    /// s_sendmsg on GFX9–10.3, none on GFX11; s_sleep 3 on GFX9, 0xffff on GFX10+.
    #[test]
    fn one_done_message_and_the_levels_sleep() {
        for level in GfxLevel::ALL {
            for intrawave in [false, true] {
                let Ok(s) = ordered_section(level, &opts(intrawave, true)) else {
                    continue;
                };
                let prog = s.program(&[]);
                let dones = prog
                    .iter()
                    .filter(|i| **i == Inst::sendmsg(Msg::OrderedPsDone))
                    .count();
                assert_eq!(dones, usize::from(!level.is_gfx11_plus()), "{level}");
                let sleeps: Vec<_> = prog
                    .iter()
                    .filter_map(|i| match i {
                        Inst::Sopp {
                            op: Sopp::Sleep,
                            imm: crate::isa::SoppImm::Simm16(v),
                        } => Some(*v),
                        _ => None,
                    })
                    .collect();
                let want: Vec<u16> = match level {
                    GfxLevel::Gfx9 => vec![3],
                    l if l.is_gfx11_plus() => vec![],
                    _ => vec![0xffff],
                };
                assert_eq!(sleeps, want, "{level}");
            }
        }
    }
}
