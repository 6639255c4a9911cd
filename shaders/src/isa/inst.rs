//! The typed instruction model: operands, instruction forms and their disassembly-style text.
//!
//! Text follows LLVM's AMDGPU syntax (`s_setreg_b32 hwreg(HW_REG_MODE, 24, 2), s4`) so that a
//! listing can be compared line by line with `llvm-mc --disassemble` and with ACO's output.

use super::encoding::Encoding;
use super::ops::{Sop1, Sop2, Sopc, Sopk, Sopp};
use pm4::GfxLevel;
use std::fmt;

/// A scalar operand. Its width (one SGPR or an aligned pair) comes from the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `sN`, or `s[N:N+1]` as a 64-bit operand.
    Sgpr(u8),
    /// `vcc_lo` / `vcc`.
    Vcc,
    M0,
    /// The null register (GFX10+): reads 0, writes are dropped.
    Null,
    /// `exec_lo` / `exec`.
    Exec,
    /// An inline integer constant, -16..=64 (no literal dword).
    Const(i8),
    /// A 32-bit literal constant in the dword after the instruction.
    Literal(u32),
    /// `src_scc`: SCC as a 0/1 source operand (GFX9+).
    Scc,
    /// `src_pops_exiting_wave_id` (ALU operand 239, GFX9–10.3): the 10-bit ID of the wave that
    /// will exit the ordered section next on the wave's packer. Volatile.
    PopsExitingWaveId,
}

impl Operand {
    /// An integer source, as an inline constant where one exists, else a literal.
    pub fn imm(v: i64) -> Operand {
        if (-16..=64).contains(&v) {
            Operand::Const(v as i8)
        } else {
            Operand::Literal(v as u32)
        }
    }

    pub(crate) fn text(self, enc: Encoding, dwords: u8) -> String {
        let wide = dwords == 2;
        match self {
            Operand::Sgpr(n) if wide => format!("s[{}:{}]", n, n as u16 + 1),
            Operand::Sgpr(n) => format!("s{n}"),
            Operand::Vcc => (if wide { "vcc" } else { "vcc_lo" }).into(),
            Operand::M0 => "m0".into(),
            Operand::Null => "null".into(),
            Operand::Exec => (if wide { "exec" } else { "exec_lo" }).into(),
            Operand::Const(v) => format!("{v}"),
            Operand::Literal(v) => format!("0x{v:x}"),
            Operand::Scc => "src_scc".into(),
            Operand::PopsExitingWaveId => {
                let _ = enc;
                "src_pops_exiting_wave_id".into()
            }
        }
    }
}

/// A hardware register of `s_setreg_b32`/`s_getreg_b32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HwregId {
    /// HW_REG_MODE (1). On GFX9 bits `[25:24]` pick the POPS packer (bit 24: packer 0, bit 25:
    /// packer 1); both 0 means POPS is off for the wave.
    Mode,
    /// HW_REG_POPS_PACKER (25), GFX10–10.3: `[0]` POPS enabled for the wave, `[2:1]` packer ID.
    PopsPacker,
}

impl HwregId {
    pub const fn code(self) -> u16 {
        match self {
            HwregId::Mode => 1,
            HwregId::PopsPacker => 25,
        }
    }

    /// The register of a hardware-register ID, where pops knows it.
    pub const fn of_code(code: u16) -> Option<HwregId> {
        match code {
            1 => Some(HwregId::Mode),
            25 => Some(HwregId::PopsPacker),
            _ => None,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            HwregId::Mode => "HW_REG_MODE",
            HwregId::PopsPacker => "HW_REG_POPS_PACKER",
        }
    }

    pub const fn exists_on(self, enc: Encoding) -> bool {
        match self {
            HwregId::Mode => true,
            HwregId::PopsPacker => matches!(enc, Encoding::Gfx10),
        }
    }
}

/// `hwreg(ID, offset, size)`: a bit field of a hardware register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hwreg {
    pub id: HwregId,
    pub offset: u8,
    pub size: u8,
}

impl Hwreg {
    /// SIMM16 layout: id `[5:0]`, offset `[10:6]`, size - 1 `[15:11]`.
    pub const fn simm16(self) -> u16 {
        self.id.code()
            | ((self.offset as u16) << 6)
            | (((self.size as u16).wrapping_sub(1) & 31) << 11)
    }

    /// The fields of a SIMM16 in [`Hwreg::simm16`]'s layout: (ID, offset, size), the ID raw
    /// (pops knows few of them: [`HwregId::of_code`]).
    pub const fn fields(simm16: u16) -> (u16, u8, u8) {
        (
            simm16 & 0x3f,
            ((simm16 >> 6) & 0x1f) as u8,
            (((simm16 >> 11) & 0x1f) + 1) as u8,
        )
    }
}

impl fmt::Display for Hwreg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == 0 && self.size == 32 {
            write!(f, "hwreg({})", self.id.name())
        } else {
            write!(
                f,
                "hwreg({}, {}, {})",
                self.id.name(),
                self.offset,
                self.size
            )
        }
    }
}

/// `s_waitcnt` counters to wait for; `None` leaves a counter alone (its maximum).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Waitcnt {
    /// Vector memory loads (and, on GFX9, stores).
    pub vm: Option<u8>,
    pub exp: Option<u8>,
    /// LDS, GDS, constant (SMEM) and message counter.
    pub lgkm: Option<u8>,
}

impl Waitcnt {
    /// Wait for every outstanding vector memory and LDS/GDS/SMEM access.
    pub const VM_LGKM_ZERO: Waitcnt = Waitcnt {
        vm: Some(0),
        exp: None,
        lgkm: Some(0),
    };

    /// The counters an `s_waitcnt` immediate waits for (a field at its maximum waits for
    /// nothing): the inverse of the encoding's field layout.
    pub fn from_simm16(enc: Encoding, simm16: u16) -> Waitcnt {
        let (vm_max, exp_max, lgkm_max) = Waitcnt::limits(enc);
        let (vm, exp, lgkm) = match enc {
            Encoding::Gfx9 => (
                (simm16 & 0xf) | ((simm16 >> 14) << 4),
                (simm16 >> 4) & 7,
                (simm16 >> 8) & 0xf,
            ),
            Encoding::Gfx10 => (
                (simm16 & 0xf) | ((simm16 >> 14) << 4),
                (simm16 >> 4) & 7,
                (simm16 >> 8) & 0x3f,
            ),
            // GFX12 has no s_waitcnt to decode; its layout would be GFX11's.
            Encoding::Gfx11 | Encoding::Gfx12 => {
                ((simm16 >> 10) & 0x3f, simm16 & 7, (simm16 >> 4) & 0x3f)
            }
        };
        let pick = |v: u16, max: u8| if v as u8 >= max { None } else { Some(v as u8) };
        Waitcnt {
            vm: pick(vm, vm_max),
            exp: pick(exp, exp_max),
            lgkm: pick(lgkm, lgkm_max),
        }
    }

    /// Maximum counter values per generation: (vm, exp, lgkm).
    pub const fn limits(enc: Encoding) -> (u8, u8, u8) {
        match enc {
            Encoding::Gfx9 => (63, 7, 15),
            Encoding::Gfx10 | Encoding::Gfx11 | Encoding::Gfx12 => (63, 7, 63),
        }
    }
}

impl fmt::Display for Waitcnt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(v) = self.vm {
            parts.push(format!("vmcnt({v})"));
        }
        if let Some(v) = self.exp {
            parts.push(format!("expcnt({v})"));
        }
        if let Some(v) = self.lgkm {
            parts.push(format!("lgkmcnt({v})"));
        }
        if parts.is_empty() {
            return f.write_str("0xffff");
        }
        f.write_str(&parts.join(" "))
    }
}

/// A message of `s_sendmsg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    /// MSG_ORDERED_PS_DONE (7), GFX9–10.3: the wave has left the POPS ordered section.
    OrderedPsDone,
}

impl Msg {
    pub const fn code(self) -> u16 {
        match self {
            Msg::OrderedPsDone => 7,
        }
    }

    pub const fn exists_on(self, enc: Encoding) -> bool {
        match self {
            Msg::OrderedPsDone => !enc.is_gfx11_plus(),
        }
    }
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::OrderedPsDone => f.write_str("sendmsg(MSG_ORDERED_PS_DONE)"),
        }
    }
}

/// A branch target, placed in the instruction stream with [`Inst::Label`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(pub &'static str);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Points of interest in a sequence that encode to nothing: hooks for the code around it and for
/// the ordering model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// Where the body of the ordered section (the critical section) goes, run with the EXEC mask
    /// of the current layer of quads.
    OrderedBody,
}

/// The 16-bit immediate of a SOPK instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SopkImm {
    Simm16(u16),
    Hwreg(Hwreg),
}

/// The 16-bit immediate of a SOPP instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SoppImm {
    Simm16(u16),
    Waitcnt(Waitcnt),
    Msg(Msg),
    /// A branch target, resolved to a signed dword offset when encoding.
    Target(Label),
}

/// One instruction (or a pseudo-instruction that encodes to nothing). New forms (VALU, VMEM,
/// exports) are added as further variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    Sop1 {
        op: Sop1,
        dst: Operand,
        src0: Operand,
    },
    Sop2 {
        op: Sop2,
        dst: Operand,
        src0: Operand,
        src1: Operand,
    },
    Sopc {
        op: Sopc,
        src0: Operand,
        src1: Operand,
    },
    /// `reg` is the SDST field: a destination for s_movk/s_getreg, the *source* of s_setreg.
    Sopk {
        op: Sopk,
        reg: Operand,
        imm: SopkImm,
    },
    Sopp {
        op: Sopp,
        imm: SoppImm,
    },
    Label(Label),
    Marker(Marker),
}

impl Inst {
    pub const fn sop1(op: Sop1, dst: Operand, src0: Operand) -> Inst {
        Inst::Sop1 { op, dst, src0 }
    }
    pub const fn sop2(op: Sop2, dst: Operand, src0: Operand, src1: Operand) -> Inst {
        Inst::Sop2 {
            op,
            dst,
            src0,
            src1,
        }
    }
    pub const fn sopc(op: Sopc, src0: Operand, src1: Operand) -> Inst {
        Inst::Sopc { op, src0, src1 }
    }
    pub const fn setreg(hwreg: Hwreg, src: Operand) -> Inst {
        Inst::Sopk {
            op: Sopk::SetregB32,
            reg: src,
            imm: SopkImm::Hwreg(hwreg),
        }
    }
    /// `s_waitcnt_vscnt null, count` (GFX10+): vector memory stores.
    pub const fn waitcnt_vscnt(count: u16) -> Inst {
        Inst::Sopk {
            op: Sopk::WaitcntVscnt,
            reg: Operand::Null,
            imm: SopkImm::Simm16(count),
        }
    }
    pub const fn sopp(op: Sopp, imm: u16) -> Inst {
        Inst::Sopp {
            op,
            imm: SoppImm::Simm16(imm),
        }
    }
    pub const fn branch(op: Sopp, target: Label) -> Inst {
        Inst::Sopp {
            op,
            imm: SoppImm::Target(target),
        }
    }
    pub const fn waitcnt(w: Waitcnt) -> Inst {
        Inst::Sopp {
            op: Sopp::Waitcnt,
            imm: SoppImm::Waitcnt(w),
        }
    }
    /// Waits until every vector memory load has returned: `s_waitcnt vmcnt(0)`, or on GFX12,
    /// which counts loads apart, `s_wait_loadcnt 0x0`.
    pub const fn wait_loads(level: pm4::GfxLevel) -> Inst {
        match level {
            pm4::GfxLevel::Gfx12 => Inst::sopp(Sopp::WaitLoadcnt, 0),
            _ => Inst::waitcnt(Waitcnt {
                vm: Some(0),
                exp: None,
                lgkm: None,
            }),
        }
    }
    pub const fn sendmsg(msg: Msg) -> Inst {
        Inst::Sopp {
            op: Sopp::Sendmsg,
            imm: SoppImm::Msg(msg),
        }
    }
    pub const fn sleep(n: u16) -> Inst {
        Inst::sopp(Sopp::Sleep, n)
    }
    pub const fn endpgm() -> Inst {
        Inst::sopp(Sopp::Endpgm, 0)
    }

    /// The LLVM mnemonic on `level`, or `None` for labels and markers.
    pub fn mnemonic(&self, level: GfxLevel) -> Option<&'static str> {
        let enc = Encoding::of(level);
        match *self {
            Inst::Sop1 { op, .. } => Some(op.mnemonic(enc)),
            Inst::Sop2 { op, .. } => Some(op.mnemonic(enc)),
            Inst::Sopc { op, .. } => Some(op.mnemonic(enc)),
            Inst::Sopk { op, .. } => Some(op.mnemonic(enc)),
            Inst::Sopp { op, .. } => Some(op.mnemonic(enc)),
            Inst::Label(_) | Inst::Marker(_) => None,
        }
    }

    /// This instruction with each scalar operand replaced by `f(operand, its width in dwords)`,
    /// sources before the destination; `None` where `f` refuses one.
    pub fn try_map_operands(
        self,
        mut f: impl FnMut(Operand, u8) -> Option<Operand>,
    ) -> Option<Inst> {
        Some(match self {
            Inst::Sop1 { op, dst, src0 } => {
                let w = op.widths();
                let src0 = f(src0, w.src0)?;
                Inst::sop1(op, f(dst, w.dst)?, src0)
            }
            Inst::Sop2 {
                op,
                dst,
                src0,
                src1,
            } => {
                let w = op.widths();
                let (src0, src1) = (f(src0, w.src0)?, f(src1, w.src1)?);
                Inst::sop2(op, f(dst, w.dst)?, src0, src1)
            }
            Inst::Sopc { op, src0, src1 } => {
                let w = op.widths();
                let src0 = f(src0, w.src0)?;
                Inst::sopc(op, src0, f(src1, w.src1)?)
            }
            Inst::Sopk { op, reg, imm } => Inst::Sopk {
                op,
                reg: f(reg, 1)?,
                imm,
            },
            Inst::Sopp { .. } | Inst::Label(_) | Inst::Marker(_) => self,
        })
    }

    /// Disassembly-style text on `level`; a branch prints `resolved` (the encoded dword offset)
    /// when given, else its label.
    pub fn text(&self, level: GfxLevel, resolved: Option<i16>) -> String {
        let enc = Encoding::of(level);
        match *self {
            Inst::Sop1 { op, dst, src0 } => {
                let w = op.widths();
                format!(
                    "{} {}, {}",
                    op.mnemonic(enc),
                    dst.text(enc, w.dst),
                    src0.text(enc, w.src0)
                )
            }
            Inst::Sop2 {
                op,
                dst,
                src0,
                src1,
            } => {
                let w = op.widths();
                format!(
                    "{} {}, {}, {}",
                    op.mnemonic(enc),
                    dst.text(enc, w.dst),
                    src0.text(enc, w.src0),
                    src1.text(enc, w.src1)
                )
            }
            Inst::Sopc { op, src0, src1 } => {
                let w = op.widths();
                format!(
                    "{} {}, {}",
                    op.mnemonic(enc),
                    src0.text(enc, w.src0),
                    src1.text(enc, w.src1)
                )
            }
            Inst::Sopk { op, reg, imm } => {
                let r = reg.text(enc, 1);
                match (op, imm) {
                    (Sopk::SetregB32, SopkImm::Hwreg(h)) => {
                        format!("{} {h}, {r}", op.mnemonic(enc))
                    }
                    (_, SopkImm::Hwreg(h)) => format!("{} {r}, {h}", op.mnemonic(enc)),
                    (_, SopkImm::Simm16(v)) => format!("{} {r}, 0x{v:x}", op.mnemonic(enc)),
                }
            }
            Inst::Sopp { op, imm } => {
                let m = op.mnemonic(enc);
                match imm {
                    SoppImm::Target(l) => match resolved {
                        Some(off) => format!("{m} {off}"),
                        None => format!("{m} {l}"),
                    },
                    SoppImm::Waitcnt(w) => format!("{m} {w}"),
                    SoppImm::Msg(msg) => format!("{m} {msg}"),
                    SoppImm::Simm16(v) => match op {
                        Sopp::Endpgm => m.to_string(),
                        Sopp::Nop => format!("{m} {v}"),
                        // LLVM prints counts and event masks in hex.
                        Sopp::WaitEvent
                        | Sopp::WaitAlu
                        | Sopp::WaitLoadcnt
                        | Sopp::WaitStorecnt
                        | Sopp::WaitSamplecnt
                        | Sopp::WaitBvhcnt
                        | Sopp::WaitExpcnt
                        | Sopp::WaitDscnt
                        | Sopp::WaitKmcnt
                        | Sopp::WaitLoadcntDscnt
                        | Sopp::WaitStorecntDscnt => format!("{m} 0x{v:x}"),
                        _ if v <= 64 => format!("{m} {v}"),
                        _ => format!("{m} 0x{v:x}"),
                    },
                }
            }
            Inst::Label(l) => format!("{l}:"),
            Inst::Marker(Marker::OrderedBody) => "; <ordered section body>".to_string(),
        }
    }

    /// The same instruction with another operand value substituted by `f` (for building variants
    /// with other registers, e.g. to compare with another compiler's register allocation), the
    /// operands visited in text order — destination first — where [`Inst::try_map_operands`]
    /// visits sources first: the comparison with ACO's text fills registers in that order.
    pub fn map_operands(&self, mut f: impl FnMut(Operand) -> Operand) -> Inst {
        match *self {
            Inst::Sop1 { op, dst, src0 } => Inst::Sop1 {
                op,
                dst: f(dst),
                src0: f(src0),
            },
            Inst::Sop2 {
                op,
                dst,
                src0,
                src1,
            } => Inst::Sop2 {
                op,
                dst: f(dst),
                src0: f(src0),
                src1: f(src1),
            },
            Inst::Sopc { op, src0, src1 } => Inst::Sopc {
                op,
                src0: f(src0),
                src1: f(src1),
            },
            Inst::Sopk { op, reg, imm } => Inst::Sopk {
                op,
                reg: f(reg),
                imm,
            },
            other => other,
        }
    }
}

/// Pre-GFX11 mnemonics (GFX9/GFX10 share them); use [`Inst::text`] for a specific level.
impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(GfxLevel::Gfx10_3, None))
    }
}
