//! The chip database: graphics generations, families, and the per-family facts POPS depends on.
//!
//! Everything that differs between AMD chips and matters to POPS is a fact of the family, looked up
//! here, never re-derived from a name elsewhere: the register layout follows the [`GfxLevel`], the
//! hardware bug workarounds follow [`Quirks`].

use std::fmt;
use std::str::FromStr;

/// A graphics IP generation. Register layouts, PM4 details and the shader code for the ordered
/// section are all chosen by this value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GfxLevel {
    /// GFX9 (Vega, Raven): POPS packer in `MODE[25:24]`, wave-ID off-by-one.
    Gfx9,
    /// GFX10.1 (Navi 1x): HW_REG_POPS_PACKER; the stalled-POPS hazard lives here.
    Gfx10,
    /// GFX10.3 (Navi 2x, RDNA 2 APUs): POPS forces a 1x1 shading rate.
    Gfx10_3,
    /// GFX11 (Navi 3x, Phoenix): "export ready" replaces wave IDs; no intrawave collisions.
    Gfx11,
    /// GFX11.5 (gfx1150–gfx1153): treated like GFX11 for POPS, with its own register database.
    Gfx11_5,
    /// GFX12 (RDNA4: gfx1200, gfx1201): "export ready" like GFX11; new register addresses, no
    /// DB_DFSM_CONTROL, and new shader encodings (split wait counters). The article stops at
    /// GFX11: each GFX12 rule names its source (`docs/state.md`).
    Gfx12,
}

impl GfxLevel {
    pub const ALL: [GfxLevel; 6] = [
        GfxLevel::Gfx9,
        GfxLevel::Gfx10,
        GfxLevel::Gfx10_3,
        GfxLevel::Gfx11,
        GfxLevel::Gfx11_5,
        GfxLevel::Gfx12,
    ];

    /// The short name used in reports and on the command line (`gfx9`, `gfx10`, `gfx10.3`, …).
    pub const fn name(self) -> &'static str {
        match self {
            GfxLevel::Gfx9 => "gfx9",
            GfxLevel::Gfx10 => "gfx10",
            GfxLevel::Gfx10_3 => "gfx10.3",
            GfxLevel::Gfx11 => "gfx11",
            GfxLevel::Gfx11_5 => "gfx11.5",
            GfxLevel::Gfx12 => "gfx12",
        }
    }

    /// The file stem of this level in the AMD register database (`gfx103.json`, …).
    pub const fn database_name(self) -> &'static str {
        match self {
            GfxLevel::Gfx9 => "gfx9",
            GfxLevel::Gfx10 => "gfx10",
            GfxLevel::Gfx10_3 => "gfx103",
            GfxLevel::Gfx11 => "gfx11",
            GfxLevel::Gfx11_5 => "gfx115",
            GfxLevel::Gfx12 => "gfx12",
        }
    }

    /// GFX11 and later enter the ordered section on "export ready" instead of wave IDs.
    pub const fn is_gfx11_plus(self) -> bool {
        matches!(self, GfxLevel::Gfx11 | GfxLevel::Gfx11_5 | GfxLevel::Gfx12)
    }

    /// A representative family of this level, for when only a level was named.
    pub const fn representative(self) -> Family {
        match self {
            GfxLevel::Gfx9 => Family::Vega10,
            GfxLevel::Gfx10 => Family::Navi10,
            GfxLevel::Gfx10_3 => Family::Navi21,
            GfxLevel::Gfx11 => Family::Navi31,
            GfxLevel::Gfx11_5 => Family::Gfx1150,
            GfxLevel::Gfx12 => Family::Gfx1201,
        }
    }
}

impl fmt::Display for GfxLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Hardware bugs and capabilities of a family that change what a driver must program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quirks {
    /// PAL's waMiscPopsMissedOverlap: early GFX9 revisions (VEGA10, RAVEN) may hang with POPS at 8
    /// or more samples unless DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP is set.
    pub pops_missed_overlap: bool,
    /// PAL's waStalledPopsMode: on GFX10.1 the drain bit together with POPS needs
    /// DB_RENDER_OVERRIDE2.PARTIAL_SQUAD_LAUNCH_CONTROL = PSLC_ON_HANG_ONLY.
    pub stalled_pops_mode: bool,
    /// Out-of-order rasterization hardware exists (GFX8–GFX9 with two or more shader engines,
    /// as Mesa's ac_gpu_info decides it).
    pub out_of_order_rast: bool,
    /// Mesa's has_export_conflict_bug (GFX11 only, not GFX11.5): with blending at one coverage
    /// sample, drivers override the Depth Block intrinsic rate to 2. That override is the same
    /// DB_SHADER_CONTROL field POPS uses for its interlock granularity, so it must never be applied
    /// to a POPS draw.
    pub export_conflict: bool,
}

macro_rules! families {
    ($( $variant:ident = $name:literal, $llvm:literal, $level:ident, $se:literal; )*) => {
        /// A graphics-capable AMD GPU family from GFX9 to GFX12, as Mesa names them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Family { $( $variant, )* }

        impl Family {
            pub const ALL: &'static [Family] = &[ $( Family::$variant, )* ];

            /// Mesa's lower-case family name (`vega10`, `raphael_mendocino`, `navi31`, …).
            pub const fn name(self) -> &'static str {
                match self { $( Family::$variant => $name, )* }
            }

            /// The LLVM processor name (`gfx900`, `gfx1100`, …).
            pub const fn llvm_processor(self) -> &'static str {
                match self { $( Family::$variant => $llvm, )* }
            }

            pub const fn gfx_level(self) -> GfxLevel {
                match self { $( Family::$variant => GfxLevel::$level, )* }
            }

            /// Number of shader engines of the full configuration of the family.
            pub const fn shader_engines(self) -> u32 {
                match self { $( Family::$variant => $se, )* }
            }
        }
    };
}

families! {
    Vega10 = "vega10", "gfx900", Gfx9, 4;
    Vega12 = "vega12", "gfx904", Gfx9, 4;
    Vega20 = "vega20", "gfx906", Gfx9, 4;
    Raven = "raven", "gfx902", Gfx9, 1;
    Raven2 = "raven2", "gfx909", Gfx9, 1;
    Renoir = "renoir", "gfx90c", Gfx9, 1;
    Navi10 = "navi10", "gfx1010", Gfx10, 2;
    Navi12 = "navi12", "gfx1011", Gfx10, 2;
    Navi14 = "navi14", "gfx1012", Gfx10, 1;
    Navi21 = "navi21", "gfx1030", Gfx10_3, 4;
    Navi22 = "navi22", "gfx1031", Gfx10_3, 2;
    Navi23 = "navi23", "gfx1032", Gfx10_3, 2;
    VanGogh = "vangogh", "gfx1033", Gfx10_3, 1;
    Navi24 = "navi24", "gfx1034", Gfx10_3, 1;
    Rembrandt = "rembrandt", "gfx1035", Gfx10_3, 1;
    RaphaelMendocino = "raphael_mendocino", "gfx1036", Gfx10_3, 1;
    Navi31 = "navi31", "gfx1100", Gfx11, 6;
    Navi32 = "navi32", "gfx1101", Gfx11, 3;
    Navi33 = "navi33", "gfx1102", Gfx11, 2;
    Phoenix = "phoenix", "gfx1103", Gfx11, 1;
    Phoenix2 = "phoenix2", "gfx1103", Gfx11, 1;
    Gfx1150 = "gfx1150", "gfx1150", Gfx11_5, 1;
    Gfx1151 = "gfx1151", "gfx1151", Gfx11_5, 2;
    Gfx1152 = "gfx1152", "gfx1152", Gfx11_5, 1;
    Gfx1153 = "gfx1153", "gfx1153", Gfx11_5, 1;
    Gfx1200 = "gfx1200", "gfx1200", Gfx12, 2;
    Gfx1201 = "gfx1201", "gfx1201", Gfx12, 4;
}

/// Other names of families: the code names AMD's RDNA4 chips go by (Mesa and the kernel name
/// them gfx1200 and gfx1201).
const ALIASES: &[(&str, Family)] = &[("navi44", Family::Gfx1200), ("navi48", Family::Gfx1201)];

/// Compute-only chips: named so that asking for one gives a precise refusal, not "unknown".
const COMPUTE_ONLY: &[(&str, &str)] = &[
    ("mi100", "MI100 (arcturus, gfx908)"),
    ("arcturus", "MI100 (arcturus, gfx908)"),
    ("gfx908", "MI100 (arcturus, gfx908)"),
    ("mi200", "MI200 (aldebaran, gfx90a)"),
    ("aldebaran", "MI200 (aldebaran, gfx90a)"),
    ("gfx90a", "MI200 (aldebaran, gfx90a)"),
    ("mi300", "MI300 (gfx940–gfx942)"),
    ("gfx940", "MI300 (gfx940)"),
    ("gfx941", "MI300 (gfx941)"),
    ("gfx942", "MI300 (gfx942)"),
    ("gfx950", "MI350 (gfx950)"),
];

/// What a compute-only chip is, by any of its names (`arcturus`, `gfx90a`, `mi300`, …): for
/// everyone who meets one (a `--chip`, a device the kernel names), one table.
pub fn compute_only(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    COMPUTE_ONLY
        .iter()
        .find(|(n, _)| *n == lower)
        .map(|(_, chip)| *chip)
}

/// Why a chip name was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChipError {
    #[error("{chip} is a compute-only chip: it has no graphics pipeline, so it has no POPS")]
    ComputeOnly { chip: String },
    #[error(
        "unknown chip '{name}': expected a family ({}), an LLVM processor ({}) or a level ({})",
        family_names(),
        llvm_names(),
        level_names()
    )]
    Unknown { name: String },
}

/// Every family name and alias, from the chip database, for messages.
fn family_names() -> String {
    Family::ALL
        .iter()
        .map(|f| f.name())
        .chain(ALIASES.iter().map(|(a, _)| *a))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every LLVM processor name, once each, for messages.
fn llvm_names() -> String {
    let mut v: Vec<&str> = Family::ALL.iter().map(|f| f.llvm_processor()).collect();
    v.dedup();
    v.join(", ")
}

/// Every level name, for messages.
fn level_names() -> String {
    GfxLevel::ALL
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Family {
    /// The names Mesa's drm-shims give this chip (`AMDGPU_GPU_ID`) where they differ from the
    /// family's: Mesa 26's no-op shim calls gfx1150 `strix1` and gfx1151 `strix_halo`; Mesa
    /// 25's calls them by the family's name. Empty: the family's name only.
    pub const fn drm_shim_names(self) -> &'static [&'static str] {
        match self {
            Family::Gfx1150 => &["gfx1150", "strix1"],
            Family::Gfx1151 => &["gfx1151", "strix_halo"],
            _ => &[],
        }
    }
}

impl Family {
    /// Parses a family name or LLVM processor name, case-insensitively. Compute-only chips are
    /// refused with [`ChipError::ComputeOnly`].
    pub fn parse(name: &str) -> Result<Family, ChipError> {
        let lower = name.trim().to_ascii_lowercase();
        let lower = lower.strip_prefix("chip_").unwrap_or(&lower);
        if let Some(f) = Family::ALL.iter().find(|f| f.name() == lower) {
            return Ok(*f);
        }
        if let Some((_, f)) = ALIASES.iter().find(|(a, _)| *a == lower) {
            return Ok(*f);
        }
        // LLVM processors: the first family with that processor (gfx1103 is phoenix).
        if let Some(f) = Family::ALL.iter().find(|f| f.llvm_processor() == lower) {
            return Ok(*f);
        }
        if let Some((_, chip)) = COMPUTE_ONLY.iter().find(|(n, _)| *n == lower) {
            return Err(ChipError::ComputeOnly {
                chip: (*chip).to_string(),
            });
        }
        Err(ChipError::Unknown {
            name: name.to_string(),
        })
    }

    /// Parses a family, an LLVM processor or a bare level (`gfx9`, `gfx10`, `gfx10.3`/`gfx103`,
    /// `gfx11`, `gfx11.5`/`gfx115`); a level gives its [`GfxLevel::representative`] family.
    pub fn parse_chip_or_level(name: &str) -> Result<Family, ChipError> {
        match Family::parse(name) {
            Ok(f) => Ok(f),
            Err(ChipError::Unknown { .. }) => GfxLevel::parse(name)
                .map(GfxLevel::representative)
                .ok_or_else(|| ChipError::Unknown {
                    name: name.to_string(),
                }),
            Err(e) => Err(e),
        }
    }

    /// Whether the colour backend runs with RB+ (Mesa's `rbplus_allowed`): GFX9 has the RB+
    /// registers but only VEGA12, RAVEN, RAVEN2 and RENOIR may enable it; GFX10.3 on always do.
    /// It decides the export format of one-channel 8-bit targets.
    pub const fn rb_plus(self) -> bool {
        matches!(
            self,
            Family::Vega12 | Family::Raven | Family::Raven2 | Family::Renoir
        ) || !matches!(self.gfx_level(), GfxLevel::Gfx9 | GfxLevel::Gfx10)
    }

    pub const fn quirks(self) -> Quirks {
        Quirks {
            pops_missed_overlap: matches!(self, Family::Vega10 | Family::Raven),
            stalled_pops_mode: matches!(self, Family::Navi10 | Family::Navi12 | Family::Navi14),
            out_of_order_rast: matches!(self.gfx_level(), GfxLevel::Gfx9)
                && self.shader_engines() >= 2,
            export_conflict: matches!(self.gfx_level(), GfxLevel::Gfx11),
        }
    }
}

/// AMD's PCI vendor id.
pub const AMD_PCI_VENDOR: u32 = 0x1002;

/// PCI device ids (vendor 0x1002) of each family, in ranges of consecutive ids.
///
/// GFX9 to GFX10.3 up to Navi 24 and Yellow Carp: the amdgpu kernel driver's own table
/// (`pciidlist` in `amdgpu_drv.c`, its `CHIP_*` named as Mesa names the family: SIENNA_CICHLID
/// is navi21, NAVY_FLOUNDER navi22, DIMGREY_CAVEFISH navi23, BEIGE_GOBY navi24, YELLOW_CARP
/// rembrandt). Later chips the kernel finds by IP discovery, not by id: theirs are the ids of
/// the products AMD ships with that chip, checked against what RADV reports on Mesa's drm-shim
/// devices (`pm4/tests/pci_ids.rs`).
const PCI_IDS: &[(u16, u16, Family)] = &[
    (0x6860, 0x6864, Family::Vega10),
    (0x6867, 0x686f, Family::Vega10),
    (0x687f, 0x687f, Family::Vega10),
    (0x69a0, 0x69a3, Family::Vega12),
    (0x69af, 0x69af, Family::Vega12),
    (0x66a0, 0x66a4, Family::Vega20),
    (0x66a7, 0x66a7, Family::Vega20),
    (0x66af, 0x66af, Family::Vega20),
    (0x15dd, 0x15dd, Family::Raven),
    (0x15d8, 0x15d8, Family::Raven),
    (0x15e7, 0x15e7, Family::Renoir),
    (0x1636, 0x1636, Family::Renoir),
    (0x1638, 0x1638, Family::Renoir),
    (0x164c, 0x164c, Family::Renoir),
    (0x7310, 0x7310, Family::Navi10),
    (0x7312, 0x7312, Family::Navi10),
    (0x7318, 0x731b, Family::Navi10),
    (0x731e, 0x731f, Family::Navi10),
    (0x7360, 0x7360, Family::Navi12),
    (0x7362, 0x7362, Family::Navi12),
    (0x7340, 0x7341, Family::Navi14),
    (0x7347, 0x7347, Family::Navi14),
    (0x734f, 0x734f, Family::Navi14),
    (0x73a0, 0x73a3, Family::Navi21),
    (0x73a5, 0x73a5, Family::Navi21),
    (0x73a8, 0x73a9, Family::Navi21),
    (0x73ab, 0x73af, Family::Navi21),
    (0x73bf, 0x73bf, Family::Navi21),
    (0x73c0, 0x73c1, Family::Navi22),
    (0x73c3, 0x73c3, Family::Navi22),
    (0x73da, 0x73df, Family::Navi22),
    (0x73e0, 0x73e3, Family::Navi23),
    (0x73e8, 0x73ed, Family::Navi23),
    (0x73ef, 0x73ef, Family::Navi23),
    (0x73ff, 0x73ff, Family::Navi23),
    (0x163f, 0x163f, Family::VanGogh),
    (0x7420, 0x7423, Family::Navi24),
    (0x743f, 0x743f, Family::Navi24),
    (0x164d, 0x164d, Family::Rembrandt),
    (0x1681, 0x1681, Family::Rembrandt),
    // Found by IP discovery from here on.
    (0x164e, 0x164e, Family::RaphaelMendocino),
    (0x1506, 0x1506, Family::RaphaelMendocino),
    (0x7448, 0x7449, Family::Navi31),
    (0x744c, 0x744c, Family::Navi31),
    (0x745e, 0x745e, Family::Navi31),
    (0x7470, 0x7470, Family::Navi32),
    (0x747e, 0x747e, Family::Navi32),
    (0x7480, 0x7480, Family::Navi33),
    (0x7483, 0x7483, Family::Navi33),
    (0x7489, 0x7489, Family::Navi33),
    (0x15bf, 0x15bf, Family::Phoenix),
    (0x15c8, 0x15c8, Family::Phoenix2),
    (0x150e, 0x150e, Family::Gfx1150),
    (0x1586, 0x1586, Family::Gfx1151),
    (0x1114, 0x1114, Family::Gfx1152),
    // RDNA4: Navi 48 (Radeon RX 9070, 9070 XT, 9070 GRE), Navi 44 (Radeon RX 9060 XT).
    (0x7550, 0x7551, Family::Gfx1201),
    (0x7590, 0x7590, Family::Gfx1200),
];

/// What a PCI id tells of the chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PciChip {
    /// The id names one family.
    Family(Family),
    /// The id is shared by two families told apart by the PCI revision, which was not given:
    /// the first is assumed (its workarounds are the stricter), the second is possible.
    NeedsRevision { assumed: Family, or: Family },
    /// Not an AMD graphics chip pops knows.
    Unknown,
}

/// PCI revisions of device 0x15D8 that are RAVEN2 chips (Dali: DE, DF, E3, E4; Pollock: 94, 95,
/// E9, EA, EB), as the amdgpu kernel driver's display code lists them (`PRID_DALI_*`,
/// `PRID_POLLOCK_*` in `dal_asic_id.h`, compared with the PCI revision id); the other revisions
/// of 0x15D8 (Picasso) and 0x15DD are RAVEN.
const RAVEN2_15D8_REVISIONS: &[u32] = &[0x94, 0x95, 0xde, 0xdf, 0xe3, 0xe4, 0xe9, 0xea, 0xeb];

impl Family {
    /// The family of an AMD device from its PCI vendor and device id and, where known, its PCI
    /// revision: RAVEN and RAVEN2 share device id 0x15D8, told apart by the revision.
    pub fn from_pci(vendor: u32, device: u32, revision: Option<u32>) -> PciChip {
        if vendor != AMD_PCI_VENDOR {
            return PciChip::Unknown;
        }
        let Some(f) = PCI_IDS
            .iter()
            .find(|(lo, hi, _)| (u32::from(*lo)..=u32::from(*hi)).contains(&device))
            .map(|e| e.2)
        else {
            return PciChip::Unknown;
        };
        match (device, revision) {
            (0x15d8, Some(r)) if RAVEN2_15D8_REVISIONS.contains(&r) => {
                PciChip::Family(Family::Raven2)
            }
            (0x15d8, None) => PciChip::NeedsRevision {
                assumed: Family::Raven,
                or: Family::Raven2,
            },
            _ => PciChip::Family(f),
        }
    }
}

impl GfxLevel {
    /// Parses a level name (`gfx9`, `gfx10`, `gfx10.1`, `gfx10.3`, `gfx103`, `gfx11`, `gfx11.5`,
    /// `gfx115`), case-insensitively.
    pub fn parse(name: &str) -> Option<GfxLevel> {
        match name.trim().to_ascii_lowercase().as_str() {
            "gfx9" => Some(GfxLevel::Gfx9),
            "gfx10" | "gfx10.1" | "gfx101" => Some(GfxLevel::Gfx10),
            "gfx10.3" | "gfx103" => Some(GfxLevel::Gfx10_3),
            "gfx11" => Some(GfxLevel::Gfx11),
            "gfx11.5" | "gfx115" => Some(GfxLevel::Gfx11_5),
            "gfx12" => Some(GfxLevel::Gfx12),
            _ => None,
        }
    }
}

impl FromStr for Family {
    type Err = ChipError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::parse(s)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal lists every chip pops accepts, from the chip database itself.
    #[test]
    fn an_unknown_chip_lists_every_accepted_name() {
        let e = Family::parse("navi99").unwrap_err().to_string();
        for f in Family::ALL {
            assert!(
                e.contains(f.name()) && e.contains(f.llvm_processor()),
                "{e}"
            );
        }
        for l in GfxLevel::ALL {
            assert!(e.contains(l.name()), "{e}");
        }
    }

    #[test]
    fn every_family_parses_from_its_name_in_any_case() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Ok(*f));
            assert_eq!(Family::parse(&f.name().to_uppercase()), Ok(*f));
        }
        assert_eq!(Family::parse("CHIP_RAVEN"), Ok(Family::Raven));
    }

    #[test]
    fn llvm_processor_names_map_to_families() {
        let cases = [
            ("gfx900", Family::Vega10),
            ("gfx902", Family::Raven),
            ("gfx904", Family::Vega12),
            ("gfx906", Family::Vega20),
            ("gfx909", Family::Raven2),
            ("GFX90C", Family::Renoir),
            ("gfx1010", Family::Navi10),
            ("gfx1011", Family::Navi12),
            ("gfx1012", Family::Navi14),
            ("gfx1030", Family::Navi21),
            ("gfx1031", Family::Navi22),
            ("gfx1032", Family::Navi23),
            ("gfx1033", Family::VanGogh),
            ("gfx1034", Family::Navi24),
            ("gfx1035", Family::Rembrandt),
            ("gfx1036", Family::RaphaelMendocino),
            ("gfx1100", Family::Navi31),
            ("gfx1101", Family::Navi32),
            ("gfx1102", Family::Navi33),
            ("gfx1103", Family::Phoenix),
        ];
        for (name, fam) in cases {
            assert_eq!(Family::parse(name), Ok(fam), "{name}");
        }
    }

    #[test]
    fn compute_only_chips_are_refused_for_lacking_graphics() {
        for name in ["mi100", "MI200", "gfx940", "gfx90a", "aldebaran"] {
            match Family::parse(name) {
                Err(e @ ChipError::ComputeOnly { .. }) => {
                    assert!(e.to_string().contains("no graphics pipeline"), "{e}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn unknown_names_are_typed_errors() {
        assert!(matches!(
            Family::parse("navi99"),
            Err(ChipError::Unknown { .. })
        ));
        assert!(matches!(Family::parse(""), Err(ChipError::Unknown { .. })));
    }

    #[test]
    fn levels_parse_and_stand_for_a_family() {
        assert_eq!(
            Family::parse_chip_or_level("gfx10.3").map(|f| f.gfx_level()),
            Ok(GfxLevel::Gfx10_3)
        );
        assert_eq!(GfxLevel::parse("GFX103"), Some(GfxLevel::Gfx10_3));
        assert_eq!(
            Family::parse_chip_or_level("gfx9"),
            Ok(Family::Vega10),
            "gfx9 is a level, not gfx900"
        );
        assert_eq!(GfxLevel::parse("gfx12"), Some(GfxLevel::Gfx12));
        assert_eq!(GfxLevel::parse("gfx13"), None);
    }

    /// "Early revisions of GFX9 — CHIP_VEGA10 and CHIP_RAVEN — contain a hardware bug that may
    /// result in a hang, and need a workaround to be enabled."
    #[test]
    fn missed_overlap_bug_only_on_vega10_and_raven() {
        for f in Family::ALL {
            assert_eq!(
                f.quirks().pops_missed_overlap,
                matches!(f, Family::Vega10 | Family::Raven),
                "{f}"
            );
        }
    }

    /// RDNA4 by the names Mesa and the kernel give it, its code names and LLVM processors, and
    /// by the PCI ids of the products AMD ships with each chip.
    #[test]
    fn rdna4_chips_are_known_by_every_name_and_id() {
        for (name, fam) in [
            ("gfx1200", Family::Gfx1200),
            ("navi44", Family::Gfx1200),
            ("GFX1201", Family::Gfx1201),
            ("navi48", Family::Gfx1201),
            ("gfx12", Family::Gfx1201),
        ] {
            assert_eq!(Family::parse_chip_or_level(name), Ok(fam), "{name}");
            assert_eq!(fam.gfx_level(), GfxLevel::Gfx12);
        }
        for (id, fam) in [
            (0x7550, Family::Gfx1201),
            (0x7551, Family::Gfx1201),
            (0x7590, Family::Gfx1200),
        ] {
            assert_eq!(
                Family::from_pci(AMD_PCI_VENDOR, id, None),
                PciChip::Family(fam)
            );
        }
        assert!(GfxLevel::Gfx12.is_gfx11_plus(), "export ready, as GFX11");
        let e = Family::parse("navi99").unwrap_err().to_string();
        assert!(e.contains("navi48") && e.contains("gfx1200"), "{e}");
    }

    /// "if it's enabled for some reason on GFX10.1 (CHIP_NAVI10, CHIP_NAVI12, CHIP_NAVI14) … see
    /// waStalledPopsMode in PAL."
    #[test]
    fn stalled_pops_hazard_on_gfx10_1_only() {
        for f in Family::ALL {
            assert_eq!(
                f.quirks().stalled_pops_mode,
                f.gfx_level() == GfxLevel::Gfx10,
                "{f}"
            );
        }
    }

    #[test]
    fn out_of_order_rasterization_needs_gfx9_and_two_shader_engines() {
        assert!(Family::Vega10.quirks().out_of_order_rast);
        assert!(Family::Vega20.quirks().out_of_order_rast);
        assert!(!Family::Raven.quirks().out_of_order_rast);
        assert!(!Family::Navi21.quirks().out_of_order_rast);
        assert!(!Family::Navi31.quirks().out_of_order_rast);
    }
}
