//! Field layouts of the PM4 packet body dwords that are not registers: the control dword of
//! WRITE_DATA, IB_CONTROL of INDIRECT_BUFFER, GCR_CNTL of ACQUIRE_MEM, the event dword of
//! RELEASE_MEM on each generation, and so on.
//!
//! Layouts named in `shared/reference/registers/pkt3.json` (CONTROL_cik, IB_CONTROL, GCR_CNTL,
//! RELEASE_MEM_OP, RELEASE_MEM_OP_gfx11) are copied from it and cross-checked against it by
//! `pm4/tests/packets.rs`. The others (the GFX9 RELEASE_MEM action bits, the RELEASE_MEM selector
//! dword, CONTEXT_CONTROL and EVENT_WRITE) come from the kernel's and Mesa's `sid.h`/`soc15d.h`,
//! which the database does not cover; each says so.
//!
//! Each layout is a plain struct of `u32` field values: composing one can only name fields that
//! exist for that layout, and [`encode`](GcrCntl::encode) refuses a value wider than its field.

use crate::encode_error::EncodeError;

/// One field of a packet body dword: bits `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketField {
    pub name: &'static str,
    pub lo: u8,
    pub hi: u8,
}

impl PacketField {
    pub const fn width(&self) -> u32 {
        (self.hi - self.lo + 1) as u32
    }
    pub const fn mask(&self) -> u32 {
        let w = self.width();
        let m = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
        m << self.lo
    }
    pub const fn extract(&self, dword: u32) -> u32 {
        (dword & self.mask()) >> self.lo
    }
    /// The field's value placed at its bits, or why it does not fit.
    pub fn place(&self, layout: &'static str, value: u32) -> Result<u32, EncodeError> {
        if self.width() < 32 && value >> self.width() != 0 {
            return Err(EncodeError::FieldTooWide {
                layout,
                field: self.name,
                value,
                width: self.width(),
            });
        }
        Ok(value << self.lo)
    }
}

macro_rules! packet_dword {
    ($(#[$m:meta])* $ty:ident = $name:literal {
        $( $(#[$fm:meta])* $field:ident : $fname:literal [$lo:literal, $hi:literal], )*
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty { $( $(#[$fm])* pub $field: u32, )* }

        impl $ty {
            /// The layout's name (as in pkt3.json where it comes from there).
            pub const NAME: &'static str = $name;
            /// The fields in bit order.
            pub const FIELDS: &'static [PacketField] =
                &[ $( PacketField { name: $fname, lo: $lo, hi: $hi }, )* ];

            /// The dword, or the first field whose value does not fit.
            pub fn encode(&self) -> Result<u32, EncodeError> {
                let mut dw = 0u32;
                $( dw |= PacketField { name: $fname, lo: $lo, hi: $hi }.place($name, self.$field)?; )*
                Ok(dw)
            }

            /// Splits a dword into the fields (bits outside every field are dropped).
            pub fn decode(dword: u32) -> Self {
                Self { $( $field: PacketField { name: $fname, lo: $lo, hi: $hi }.extract(dword), )* }
            }
        }
    };
}

packet_dword! {
    /// WRITE_DATA dword 1 (pkt3.json `CONTROL_cik`, used by GFX7–GFX12).
    WriteDataControl = "CONTROL_cik" {
        /// 0 register, 1 GRBM-synchronised register, 2 TC/L2, 3 GDS, 5 memory.
        dst_sel: "DST_SEL" [8, 11],
        wr_one_addr: "WR_ONE_ADDR" [16, 16],
        wr_confirm: "WR_CONFIRM" [20, 20],
        /// 0 ME, 1 PFP, 2 CE.
        engine_sel: "ENGINE_SEL" [30, 31],
    }
}

impl WriteDataControl {
    pub const DST_SEL_REGISTER: u32 = 0;
    pub const DST_SEL_MEMORY: u32 = 5;
    pub const ENGINE_ME: u32 = 0;
    pub const ENGINE_PFP: u32 = 1;

    /// A confirmed write to memory by the ME, as Mesa's `ac_emit_write_data`/radv write fences.
    pub const fn memory() -> Self {
        WriteDataControl {
            dst_sel: Self::DST_SEL_MEMORY,
            wr_one_addr: 0,
            wr_confirm: 1,
            engine_sel: Self::ENGINE_ME,
        }
    }
}

packet_dword! {
    /// INDIRECT_BUFFER dword 3 (pkt3.json `IB_CONTROL`).
    IbControl = "IB_CONTROL" {
        /// Size of the called IB in dwords.
        ib_size: "IB_SIZE" [0, 19],
        chain: "CHAIN" [20, 20],
        pre_ena: "PRE_ENA" [21, 21],
        /// Required on GFX10 and later (Mesa sets it from GFX10 on).
        valid: "VALID" [23, 23],
    }
}

packet_dword! {
    /// ACQUIRE_MEM dword 7 on GFX10+ (pkt3.json `GCR_CNTL`): which caches to write back or
    /// invalidate. GFX9 uses CP_COHER_CNTL instead.
    GcrCntl = "GCR_CNTL" {
        gli_inv: "GLI_INV" [0, 1],
        gl1_range: "GL1_RANGE" [2, 3],
        glm_wb: "GLM_WB" [4, 4],
        glm_inv: "GLM_INV" [5, 5],
        glk_wb: "GLK_WB" [6, 6],
        glk_inv: "GLK_INV" [7, 7],
        glv_inv: "GLV_INV" [8, 8],
        gl1_inv: "GL1_INV" [9, 9],
        gl2_us: "GL2_US" [10, 10],
        gl2_range: "GL2_RANGE" [11, 12],
        gl2_discard: "GL2_DISCARD" [13, 13],
        gl2_inv: "GL2_INV" [14, 14],
        gl2_wb: "GL2_WB" [15, 15],
        seq: "SEQ" [16, 17],
        range_is_pa: "RANGE_IS_PA" [18, 18],
    }
}

packet_dword! {
    /// RELEASE_MEM dword 1 on GFX9: event and the cache actions of soc15d.h (EOP_TC_*_ACTION_EN,
    /// EOP_EXEC); pkt3.json has no GFX9 layout. CACHE_POLICY is bits 26:25 as on GFX10+.
    ReleaseMemOpGfx9 = "RELEASE_MEM_OP_gfx9" {
        event_type: "EVENT_TYPE" [0, 5],
        event_index: "EVENT_INDEX" [8, 11],
        tcl1_vol_action_en: "TCL1_VOL_ACTION_EN" [12, 12],
        tc_vol_action_en: "TC_VOL_ACTION_EN" [13, 13],
        tc_wb_action_en: "TC_WB_ACTION_EN" [15, 15],
        tcl1_action_en: "TCL1_ACTION_EN" [16, 16],
        tc_action_en: "TC_ACTION_EN" [17, 17],
        tc_nc_action_en: "TC_NC_ACTION_EN" [19, 19],
        tc_md_action_en: "TC_MD_ACTION_EN" [21, 21],
        cache_policy: "CACHE_POLICY" [25, 26],
        execute: "EXECUTE" [28, 28],
    }
}

packet_dword! {
    /// RELEASE_MEM dword 1 on GFX10 and GFX10.3 (pkt3.json `RELEASE_MEM_OP`).
    ReleaseMemOpGfx10 = "RELEASE_MEM_OP" {
        event_type: "EVENT_TYPE" [0, 5],
        event_index: "EVENT_INDEX" [8, 11],
        glm_wb: "GLM_WB" [12, 12],
        glm_inv: "GLM_INV" [13, 13],
        glv_inv: "GLV_INV" [14, 14],
        gl1_inv: "GL1_INV" [15, 15],
        gl2_us: "GL2_US" [16, 16],
        gl2_range: "GL2_RANGE" [17, 18],
        gl2_discard: "GL2_DISCARD" [19, 19],
        gl2_inv: "GL2_INV" [20, 20],
        gl2_wb: "GL2_WB" [21, 21],
        seq: "SEQ" [22, 23],
    }
}

packet_dword! {
    /// RELEASE_MEM dword 1 on GFX11 (pkt3.json `RELEASE_MEM_OP_gfx11`).
    ReleaseMemOpGfx11 = "RELEASE_MEM_OP_gfx11" {
        event_type: "EVENT_TYPE" [0, 5],
        wait_sync: "WAIT_SYNC" [7, 7],
        event_index: "EVENT_INDEX" [8, 11],
        glm_wb: "GLM_WB" [12, 12],
        glm_inv: "GLM_INV" [13, 13],
        glv_inv: "GLV_INV" [14, 14],
        gl1_inv: "GL1_INV" [15, 15],
        gl2_us: "GL2_US" [16, 16],
        gl2_range: "GL2_RANGE" [17, 18],
        gl2_discard: "GL2_DISCARD" [19, 19],
        gl2_inv: "GL2_INV" [20, 20],
        gl2_wb: "GL2_WB" [21, 21],
        seq: "SEQ" [22, 23],
        glk_wb: "GLK_WB" [24, 24],
        cache_policy: "CACHE_POLICY" [25, 26],
        execute: "EXECUTE" [28, 29],
        glk_inv: "GLK_INV" [30, 30],
        pws_enable: "PWS_ENABLE" [31, 31],
    }
}

packet_dword! {
    /// RELEASE_MEM dword 2 (soc15d.h DST_SEL/INT_SEL/DATA_SEL; the same on GFX9–GFX11).
    ReleaseMemSel = "RELEASE_MEM_SEL" {
        /// 0 memory, 1 TC/L2.
        dst_sel: "DST_SEL" [16, 17],
        /// 0 none, 1 interrupt only, 2 interrupt when the write is confirmed, 3 send data after
        /// the write is confirmed (Mesa's EOP_INT_SEL_SEND_DATA_AFTER_WR_CONFIRM).
        int_sel: "INT_SEL" [24, 26],
        /// 0 discard, 1 low 32 bits of data, 2 64-bit data, 3 64-bit GPU clock, 4 64-bit
        /// system clock.
        data_sel: "DATA_SEL" [29, 31],
    }
}

impl ReleaseMemSel {
    pub const DATA_SEL_DISCARD: u32 = 0;
    pub const DATA_SEL_VALUE_32: u32 = 1;
    pub const DATA_SEL_VALUE_64: u32 = 2;
    pub const DATA_SEL_TIMESTAMP: u32 = 3;
    pub const INT_SEL_NONE: u32 = 0;
    pub const INT_SEL_SEND_DATA_AFTER_WR_CONFIRM: u32 = 3;
}

packet_dword! {
    /// EVENT_WRITE dword 1 (soc15d.h EVENT_TYPE/EVENT_INDEX). EVENT_TYPE is also
    /// VGT_EVENT_INITIATOR.EVENT_TYPE in the register database.
    EventWriteDw1 = "EVENT_WRITE" {
        event_type: "EVENT_TYPE" [0, 5],
        event_index: "EVENT_INDEX" [8, 11],
    }
}

packet_dword! {
    /// CONTEXT_CONTROL dword 1 (Mesa sid.h CC0_*): which state the CP loads from shadow memory.
    ContextControlLoad = "CONTEXT_CONTROL_LOAD" {
        load_global_config: "LOAD_GLOBAL_CONFIG" [0, 0],
        load_per_context_state: "LOAD_PER_CONTEXT_STATE" [1, 1],
        load_global_uconfig: "LOAD_GLOBAL_UCONFIG" [15, 15],
        load_gfx_sh_regs: "LOAD_GFX_SH_REGS" [16, 16],
        load_cs_sh_regs: "LOAD_CS_SH_REGS" [24, 24],
        load_ce_ram: "LOAD_CE_RAM" [28, 28],
        update_load_enables: "UPDATE_LOAD_ENABLES" [31, 31],
    }
}

packet_dword! {
    /// CONTEXT_CONTROL dword 2 (Mesa sid.h CC1_*): which state the CP shadows to memory.
    ContextControlShadow = "CONTEXT_CONTROL_SHADOW" {
        shadow_global_config: "SHADOW_GLOBAL_CONFIG" [0, 0],
        shadow_per_context_state: "SHADOW_PER_CONTEXT_STATE" [1, 1],
        shadow_global_uconfig: "SHADOW_GLOBAL_UCONFIG" [15, 15],
        shadow_gfx_sh_regs: "SHADOW_GFX_SH_REGS" [16, 16],
        shadow_cs_sh_regs: "SHADOW_CS_SH_REGS" [24, 24],
        update_shadow_enables: "UPDATE_SHADOW_ENABLES" [31, 31],
    }
}

impl ContextControlLoad {
    /// What libdrm's draw test and radeonsi without shadowing send: update the enables, load
    /// nothing (0x80000000).
    pub const fn update_only() -> Self {
        ContextControlLoad {
            load_global_config: 0,
            load_per_context_state: 0,
            load_global_uconfig: 0,
            load_gfx_sh_regs: 0,
            load_cs_sh_regs: 0,
            load_ce_ram: 0,
            update_load_enables: 1,
        }
    }
}

impl ContextControlShadow {
    /// Update the enables, shadow nothing (0x80000000).
    pub const fn update_only() -> Self {
        ContextControlShadow {
            shadow_global_config: 0,
            shadow_per_context_state: 0,
            shadow_global_uconfig: 0,
            shadow_gfx_sh_regs: 0,
            shadow_cs_sh_regs: 0,
            update_shadow_enables: 1,
        }
    }
}

macro_rules! event_types {
    ($( $(#[$m:meta])* $v:ident = $n:literal, )*) => {
        /// VGT event types whose value and name are the same on GFX9, GFX10, GFX10.3 and GFX11
        /// (the register database's VGT_EVENT_TYPE enum; `pm4/tests/packets.rs` checks it).
        /// Values that differ between levels (ZPASS_DONE on GFX9–10.3 is WAIT_SYNC on GFX11) are
        /// left out.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum EventType { $( $(#[$m])* $v = $n, )* }

        impl EventType {
            pub const ALL: &'static [EventType] = &[ $( EventType::$v, )* ];
            pub const fn name(self) -> &'static str {
                match self { $( EventType::$v => stringify!($v), )* }
            }
            pub const fn from_u8(v: u8) -> Option<EventType> {
                match v { $( $n => Some(EventType::$v), )* _ => None }
            }
        }
    };
}

event_types! {
    CACHE_FLUSH_TS = 4,
    CONTEXT_DONE = 5,
    CACHE_FLUSH = 6,
    CS_PARTIAL_FLUSH = 7,
    VGT_STREAMOUT_SYNC = 8,
    VGT_STREAMOUT_RESET = 10,
    END_OF_PIPE_INCR_DE = 11,
    END_OF_PIPE_IB_END = 12,
    RST_PIX_CNT = 13,
    BREAK_BATCH = 14,
    VS_PARTIAL_FLUSH = 15,
    PS_PARTIAL_FLUSH = 16,
    FLUSH_HS_OUTPUT = 17,
    FLUSH_DFSM = 18,
    RESET_TO_LOWEST_VGT = 19,
    CACHE_FLUSH_AND_INV_TS_EVENT = 20,
    CACHE_FLUSH_AND_INV_EVENT = 22,
    PERFCOUNTER_START = 23,
    PERFCOUNTER_STOP = 24,
    PIPELINESTAT_START = 25,
    PIPELINESTAT_STOP = 26,
    PERFCOUNTER_SAMPLE = 27,
    SAMPLE_PIPELINESTAT = 30,
    SO_VGTSTREAMOUT_FLUSH = 31,
    SAMPLE_STREAMOUTSTATS = 32,
    RESET_VTX_CNT = 33,
    VGT_FLUSH = 36,
    BOTTOM_OF_PIPE_TS = 40,
    FLUSH_SX_TS = 41,
    DB_CACHE_FLUSH_AND_INV = 42,
    FLUSH_AND_INV_DB_DATA_TS = 43,
    FLUSH_AND_INV_DB_META = 44,
    FLUSH_AND_INV_CB_DATA_TS = 45,
    FLUSH_AND_INV_CB_META = 46,
    CS_DONE = 47,
    PS_DONE = 48,
    FLUSH_AND_INV_CB_PIXEL_DATA = 49,
    THREAD_TRACE_START = 51,
    THREAD_TRACE_STOP = 52,
    THREAD_TRACE_MARKER = 53,
    THREAD_TRACE_FINISH = 55,
    PIXEL_PIPE_STAT_CONTROL = 56,
    PIXEL_PIPE_STAT_DUMP = 57,
    PIXEL_PIPE_STAT_RESET = 58,
    ENABLE_NGG_PIPELINE = 61,
    ENABLE_LEGACY_PIPELINE = 62,
}

/// How the CP must be told about an event, which decides the packet and its EVENT_INDEX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A plain event: EVENT_WRITE, EVENT_INDEX 0.
    Plain,
    /// *_PARTIAL_FLUSH: EVENT_WRITE, EVENT_INDEX 4.
    PartialFlush,
    /// Events that write a sample to memory: EVENT_WRITE with an address; EVENT_INDEX 1
    /// (PIXEL_PIPE_STAT_*), 2 (SAMPLE_PIPELINESTAT) or 3 (SAMPLE_STREAMOUTSTATS).
    Sample(u32),
    /// Timestamp (end-of-pipe) events: RELEASE_MEM, EVENT_INDEX 5.
    EndOfPipe,
    /// CS_DONE / PS_DONE (end-of-shader): RELEASE_MEM, EVENT_INDEX 6.
    EndOfShader,
}

impl EventType {
    /// The EVENT_INDEX rules of soc15d.h ("0 - any non-TS event, 1 - ZPASS_DONE,
    /// PIXEL_PIPE_STAT_*, 2 - SAMPLE_PIPELINESTAT, 3 - SAMPLE_STREAMOUTSTAT*, 4 - *S_PARTIAL_FLUSH")
    /// and Mesa's RELEASE_MEM (5 for end-of-pipe, 6 for CS_DONE/PS_DONE).
    pub const fn kind(self) -> EventKind {
        use EventType::*;
        match self {
            CS_PARTIAL_FLUSH | VS_PARTIAL_FLUSH | PS_PARTIAL_FLUSH => EventKind::PartialFlush,
            PIXEL_PIPE_STAT_CONTROL | PIXEL_PIPE_STAT_DUMP | PIXEL_PIPE_STAT_RESET => {
                EventKind::Sample(1)
            }
            SAMPLE_PIPELINESTAT => EventKind::Sample(2),
            SAMPLE_STREAMOUTSTATS => EventKind::Sample(3),
            CACHE_FLUSH_TS
            | CACHE_FLUSH_AND_INV_TS_EVENT
            | BOTTOM_OF_PIPE_TS
            | FLUSH_SX_TS
            | FLUSH_AND_INV_DB_DATA_TS
            | FLUSH_AND_INV_CB_DATA_TS => EventKind::EndOfPipe,
            CS_DONE | PS_DONE => EventKind::EndOfShader,
            _ => EventKind::Plain,
        }
    }

    /// EVENT_INDEX for this event.
    pub const fn event_index(self) -> u32 {
        match self.kind() {
            EventKind::Plain => 0,
            EventKind::PartialFlush => 4,
            EventKind::Sample(i) => i,
            EventKind::EndOfPipe => 5,
            EventKind::EndOfShader => 6,
        }
    }
}
