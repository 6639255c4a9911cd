//! The POPS driver defects pops knows, as data: what each breaks in the article's terms, which
//! driver component and Mesa releases have it, on which chips and compilation paths, who meets it,
//! the finding that detects it, what a user sees, how to reproduce it and where a fix lies.
//!
//! Everything that names a defect reads this one table: the layer's diagnostics, `pops run`'s and
//! `pops report`'s summaries and page, `pops defects` and `docs/defects.md` (written from it, and a
//! test fails when the document and the table disagree). A finding whose code and chip an entry
//! covers, on a driver release the entry affects, is that known defect; any other finding is new
//! and says so ([`explain`]).

use crate::finding::{Code, Isa, Run};
use pm4::{Family, GfxLevel, MesaRange, MesaVersion};
use shaders::verify::Rule;
use std::fmt::Write as _;

/// How the driver compiled the fragment shader whose code or state shows the defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompilePath {
    /// A complete pipeline with static colour blending: the exports are in the fragment shader.
    Monolithic,
    /// Colour blend state set at draw time (VK_EXT_extended_dynamic_state3): RADV compiles the
    /// exports into a PS epilog.
    DynamicBlend,
    /// A pipeline fast-linked from graphics pipeline libraries: a PS epilog.
    Libraries,
    /// A VK_EXT_shader_object fragment shader: always a PS epilog.
    ShaderObjects,
}

impl CompilePath {
    pub const ALL: [CompilePath; 4] = [
        CompilePath::Monolithic,
        CompilePath::DynamicBlend,
        CompilePath::Libraries,
        CompilePath::ShaderObjects,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            CompilePath::Monolithic => "monolithic pipelines",
            CompilePath::DynamicBlend => "dynamic colour blending",
            CompilePath::Libraries => "pipelines linked from libraries",
            CompilePath::ShaderObjects => "shader objects",
        }
    }
}

/// The chips a defect is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chips {
    /// Every chip of these levels.
    Levels(&'static [GfxLevel]),
    /// These families only (a workaround for early revisions of one level).
    Families(&'static [Family]),
}

impl Chips {
    pub fn contains(self, chip: Family) -> bool {
        match self {
            Chips::Levels(l) => l.contains(&chip.gfx_level()),
            Chips::Families(f) => f.contains(&chip),
        }
    }

    /// Whether a chip of `level` can be one of these.
    pub fn meets_level(self, level: GfxLevel) -> bool {
        match self {
            Chips::Levels(l) => l.contains(&level),
            Chips::Families(f) => f.iter().any(|c| c.gfx_level() == level),
        }
    }
}

impl std::fmt::Display for Chips {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = match self {
            Chips::Levels(l) => l.iter().map(|l| l.name()).collect(),
            Chips::Families(c) => c.iter().map(|c| c.name()).collect(),
        };
        f.write_str(&names.join(", "))
    }
}

/// A change in Mesa's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The commit's title, as Mesa's log has it.
    pub title: &'static str,
    /// The commit (abbreviated), where it is known.
    pub commit: Option<&'static str>,
    /// The first release that has it.
    pub release: MesaVersion,
}

/// One known driver defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownDefect {
    /// Stable kebab-case identifier (the anchor in docs/defects.md).
    pub id: &'static str,
    /// One line.
    pub title: &'static str,
    /// The driver (as Vulkan names it in `driverName`) and its component.
    pub driver: &'static str,
    pub component: &'static str,
    /// What is wrong, in the article's terms.
    pub wrong: &'static str,
    /// The article's sentence (or, past the article, the source) the defect breaks.
    pub sentence: &'static str,
    /// The Mesa releases affected.
    pub releases: MesaRange,
    /// The change that brought it, and the one that fixed it, where known.
    pub introduced: Option<Change>,
    pub fixed_by: Option<Change>,
    /// How the releases were established: which sources say what, and what was run.
    pub history: &'static str,
    pub chips: Chips,
    /// How the fragment shader is compiled where it shows.
    pub paths: &'static [CompilePath],
    /// Who meets it: which applications and translation layers take those paths (measured).
    pub who_meets: &'static str,
    /// The finding that detects it (a layer diagnostic's or `pops run`'s).
    pub finding: Code,
    /// What a user sees: a race, a hang, a cost.
    pub effect: &'static str,
    /// The commands that show it, on any machine.
    pub reproduce: &'static [&'static str],
    /// What a driver without the defect does, and what this one does (code or state).
    pub expected: &'static str,
    pub actual: &'static str,
    /// Where the fix lies.
    pub fix: &'static str,
}

const GFX11_PLUS: &[GfxLevel] = &[GfxLevel::Gfx11, GfxLevel::Gfx11_5, GfxLevel::Gfx12];

/// The POPS driver defects pops knows.
pub const KNOWN_DEFECTS: &[KnownDefect] = &[
    KnownDefect {
        id: "aco-epilog-store-gap",
        title: "ACO leaves the ordered section's stores in flight when the fragment shader jumps into its PS epilog",
        driver: "radv",
        component: "ACO (src/amd/compiler)",
        wrong: "On GFX11 and later the overlapped waves resume at the wave's last export with done, which is the PS epilog's when RADV compiles one. Before that export every primitive-ordered store must have completed; ACO waits for none of them before `s_setpc_b64` into the epilog (GFX11: no `s_waitcnt_vscnt null, 0x0`; GFX12: no `s_wait_storecnt 0x0`), and the epilog waits for nothing, so overlapped waves may enter their ordered section while this wave's stores are still in flight.",
        sentence: "GFX11: \u{201c}The overlapping waves are resumed when the wave performs the last export (with the done flag). The same requirements for awaiting the memory access counters as on GFX9\u{2013}10.3 still apply.\u{201d} (GFX12: RDNA4 resumes at the last export as GFX11 does; LLVM's AMDGPU backend and AMD's LLPC wait for the store counter at the end of the interlock there.)",
        releases: MesaRange {
            first: MesaVersion::new(26, 1, 0),
            fixed: None,
            last_seen: MesaVersion::LAST_CHECKED,
        },
        introduced: Some(Change {
            title: "aco/insert_waitcnt: improve s_setpc_b64/s_swappc_b64/end_with_regs a bit",
            commit: None,
            release: MesaVersion::new(26, 1, 0),
        }),
        fixed_by: None,
        history: "Mesa 26.1.0's release notes list the change (Rhys Perry); those of 26.0.0 to 26.0.8 do not. Before it ACO waited for every counter at s_setpc_b64 (25.0.7's aco_insert_waitcnt.cpp); after it, only for counters that registers depend on, and no store has one (26.2.0-rc1's). Since 25.3 (\"aco: remove waitcnt code for POPS\") the ordered section's release is flushed at ORDERED_PS_DONE, the end marker, or on GFX11 and later an export in the same program, which a PS epilog is not. pops sees the finding on RADV 26.2.6 on GFX11, GFX11.5 and GFX12 and not on 25.0.7.",
        chips: Chips::Levels(GFX11_PLUS),
        paths: &[
            CompilePath::DynamicBlend,
            CompilePath::Libraries,
            CompilePath::ShaderObjects,
        ],
        who_meets: "Every interlocked fragment shader that stores in its ordered section and is compiled with a PS epilog: colour blending set at draw time, pipelines fast-linked from libraries (vkd3d-proton where it fast-links a pipeline for a depth format it did not know), and every shader object. Zink (OpenGL on Vulkan) meets it always: its default shader objects and its libraries both compile the epilog. vkd3d-proton's ROV pipelines are otherwise monolithic, and ROV shaders that write no colour end in their own s_endpgm, so they do not meet it.",
        finding: Code::Isa(Isa::Rule(Rule::OpenAtEpilogJump)),
        effect: "An ordering race: an overlapped fragment can read a pixel's data before this fragment's write lands (lost or reordered updates: flicker or wrong colours in order-independent transparency, wrong results in ROV emulation). No hang.",
        reproduce: &[
            "glslangValidator -V --target-env vulkan1.2 -o pio.spv shaders/glsl/pixel_interlock_ordered.frag",
            "pops verify-isa --chip navi31 --compile --dynamic-blend pio.spv   # Mesa 26.1 or later: exit 1 with the finding",
            "pops verify-isa --chip gfx1201 --compile --dynamic-blend pio.spv",
            "pops run --verify-isa --amdgpu-shim target/amdgpu-shim/libamdgpu_oracle_drm_shim.so --chip navi31 -- pops-oit --matrix --shader-objects   # the layer: every interlocked shader object carries the finding",
        ],
        expected: "Mesa 25.0.7, navi31, the end of the fragment shader's main part:\n    image_store v[4:7], v2, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16\n    s_waitcnt_vscnt null, 0x0\n    s_setpc_b64 s[0:1]",
        actual: "Mesa 26.2.6, navi31 (gfx1201: no s_wait_storecnt 0x0 either):\n    image_store v[4:7], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16\n    s_waitcnt_depctr 0xfff\n    s_setpc_b64 s[0:1]\n  then the PS epilog: v_cvt_pk_rtz_f16_f32 …; exp mrt0 v0, v2, off, off done; s_endpgm",
        fix: "In ACO, at `s_setpc_b64` (and `s_swappc_b64`) into a PS epilog of a fragment shader that waited for overlapped waves on GFX11 and later, wait for the store counter (vscnt, GFX12 storecnt) and the vector memory counter of the ordered section's accesses, as Mesa 26.0 did and LLPC does; or make the release barrier of the ordered section flush at the jump, not only at an export.",
    },
    KnownDefect {
        id: "radv-pops-drain-left-on",
        title: "RADV leaves the VEGA10/RAVEN missed-overlap drain on for draws without POPS",
        driver: "radv",
        component: "command buffer state (src/amd/vulkan)",
        wrong: "DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP is the VEGA10/RAVEN workaround for POPS draws at 8 or more samples; after such a draw RADV keeps the bit set for the following draws that do not use POPS, which then drain on overlap for nothing.",
        sentence: "Specifically, if POPS is used with 8 or more rasterization samples, or with 8 or more depth/stencil target samples, DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP must be set to 1 for draws that satisfy this condition.",
        releases: MesaRange {
            first: MesaVersion::new(23, 2, 1),
            fixed: Some(MesaVersion::new(25, 1, 0)),
            last_seen: MesaVersion::DEBIAN_12,
        },
        introduced: None,
        fixed_by: Some(Change {
            title: "radv: restore DB_DFSM_CONTROL properly when POPS isn't used",
            commit: Some("4bc6335e3ce2"),
            release: MesaVersion::new(25, 1, 0),
        }),
        history: "RADV has had interlock since Mesa 23.2.1 (its release notes); the releases before 25.0.7 were not run here. 25.0.7's radv_emit_db_shader_control writes DB_DFSM_CONTROL on VEGA10 and RAVEN for POPS draws only, so the bit stays until the next submission's preamble. The fix (Samuel Pitoiset) is in 25.1.0's release notes and was not picked for 25.0 (25.0.7's .pick_status.json: not needed). pops sees the finding with RADV 25.0.7 and not with 26.2.6.",
        chips: Chips::Families(&[Family::Vega10, Family::Raven]),
        paths: &CompilePath::ALL,
        who_meets: "Applications that draw with interlock at 8 or more samples on VEGA10 or RAVEN, then draw without it in the same command buffer.",
        finding: Code::Run(Run::PopsDrainLeftOn),
        effect: "A cost: draws without POPS drain the pixel shader on every overlap after a POPS draw at 8 or more samples. No race, no hang.",
        reproduce: &["pops run --amdgpu-shim target/amdgpu-shim/libamdgpu_oracle_drm_shim.so --chip vega10 -- pops-oit --matrix"],
        expected: "A draw without POPS after a POPS draw at 8 samples on VEGA10: DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP=0",
        actual: "Mesa 25.0.7: DB_DFSM_CONTROL.POPS_DRAIN_PS_ON_OVERLAP=1 still, from the POPS draw before it",
        fix: "Fixed in Mesa 25.1: RADV clears the bit for draws without POPS. Update Mesa.",
    },
];

/// What the table says of one finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explained {
    /// A known defect of this driver release (or of the driver, where its release is not known).
    Known {
        defect: &'static KnownDefect,
        release: Option<MesaVersion>,
    },
    /// No entry explains it. `near` is an entry of the same finding and chips whose releases
    /// do not hold this driver's (a regression, or the defect on a release not expected).
    New {
        near: Option<&'static KnownDefect>,
        release: Option<MesaVersion>,
    },
}

/// The driver a finding was made on: its `driverName` and release, as a record names it
/// (`radv (Mesa 26.2.6-1)`). `None` where no driver was seen (code read from a file).
pub fn driver_release(driver: &str) -> Option<MesaVersion> {
    MesaVersion::parse(driver).ok()
}

fn driver_name(driver: &str) -> &str {
    driver.split([' ', '(']).next().unwrap_or("")
}

/// The entry that explains finding `code` on `chip` (a family, or only a level where the family
/// is not known) with `driver`: the driver as a record names it, `None` where the code was not
/// had from a driver.
pub fn explain(code: Code, chip: ChipOf, driver: Option<&str>) -> Explained {
    let release = driver.and_then(driver_release);
    let on_chip = |d: &&KnownDefect| match chip {
        ChipOf::Family(f) => d.chips.contains(f),
        ChipOf::Level(l) => d.chips.meets_level(l),
        ChipOf::Unknown => true,
    };
    let candidates = || {
        KNOWN_DEFECTS
            .iter()
            .filter(|d| d.finding == code)
            .filter(on_chip)
    };
    let same_driver = |d: &&KnownDefect| driver.is_none_or(|n| driver_name(n) == d.driver);
    let in_release = |d: &&KnownDefect| release.is_none_or(|r| d.releases.contains(r));
    match candidates().find(|d| same_driver(d) && in_release(d)) {
        Some(defect) => Explained::Known { defect, release },
        None => Explained::New {
            near: candidates().next(),
            release,
        },
    }
}

/// The chip a finding was made for, as far as it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChipOf {
    Family(Family),
    Level(GfxLevel),
    Unknown,
}

impl ChipOf {
    /// From a record's chip name (`navi31`), or a level's (`gfx11`).
    pub fn parse(name: Option<&str>) -> ChipOf {
        match name {
            Some(n) => match (Family::parse(n), GfxLevel::parse(n)) {
                (Ok(f), _) => ChipOf::Family(f),
                (Err(_), Some(l)) => ChipOf::Level(l),
                _ => ChipOf::Unknown,
            },
            None => ChipOf::Unknown,
        }
    }
}

impl Explained {
    /// The words every place that shows a finding adds to it.
    pub fn words(&self) -> String {
        match self {
            Explained::Known { defect, .. } => format!(
                "known defect {} of {} {}, {}: see docs/defects.md#{}",
                defect.id,
                defect.driver.to_uppercase(),
                defect
                    .component
                    .split(" (")
                    .next()
                    .unwrap_or(defect.component),
                defect.releases,
                defect.id
            ),
            Explained::New { near, release } => {
                let mut s = "NEW: no known driver defect explains this finding".to_string();
                if let Some(d) = near {
                    let _ = write!(
                        s,
                        " (known defect {} has the same finding on {}, but in {}{})",
                        d.id,
                        d.chips,
                        d.releases,
                        release.map_or(String::new(), |r| format!("; this driver is Mesa {r}"))
                    );
                }
                s
            }
        }
    }

    pub fn defect(&self) -> Option<&'static KnownDefect> {
        match self {
            Explained::Known { defect, .. } => Some(defect),
            Explained::New { .. } => None,
        }
    }
}

/// A report for Mesa's issue tracker, in the form it asks for: summary, affected versions and
/// hardware, steps to reproduce, expected and actual behaviour, the requirement, the regression and
/// a suggested fix. `seen`: where the report was made (`navi31 with radv (Mesa 26.2.6-1)`), and one
/// finding's message as pops wrote it.
pub fn issue_text(d: &KnownDefect, seen: &[String], finding: Option<&str>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "### {} ({}): {}\n",
        d.driver.to_uppercase(),
        d.component.split(" (").next().unwrap_or(d.component),
        d.title
    );
    let _ = writeln!(o, "#### System information\n");
    let _ = writeln!(o, "- Affected: {} ({}).", d.releases, d.component);
    let _ = writeln!(o, "- Hardware: {} (every chip of these), with fragment shader interlock (VK_EXT_fragment_shader_interlock; D3D12 ROVs through vkd3d-proton).", d.chips);
    let _ = writeln!(o, "- Compiled through: {}.", paths(d));
    for s in seen {
        let _ = writeln!(o, "- Seen by pops on: {s}.");
    }
    let _ = writeln!(o, "\n#### Describe the issue\n\n{}\n", d.wrong);
    let _ = writeln!(o, "The requirement (the POPS article): {}\n", d.sentence);
    let _ = writeln!(o, "Who meets it: {}\n\nEffect: {}\n", d.who_meets, d.effect);
    let _ = writeln!(
        o,
        "#### Regression\n\n{}.\n",
        match d.introduced {
            Some(c) if c.release.minor > 0 => format!(
                "Yes: introduced by {}; Mesa {}.{}.x and earlier are not affected",
                change(&d.introduced),
                c.release.major,
                c.release.minor - 1
            ),
            Some(_) => format!("Introduced by {}", change(&d.introduced)),
            None => "Not pinned to one change".to_string(),
        }
    );
    let _ = writeln!(o, "#### Steps to reproduce (any machine, no AMD GPU needed: pops compiles with RADV on a drm-shim device)\n\n```sh");
    for c in d.reproduce {
        let _ = writeln!(o, "{c}");
    }
    let _ = writeln!(o, "```\n\nThe finding: `{}`.\n", d.finding);
    let _ = writeln!(o, "#### Expected behaviour\n\n```\n{}\n```\n", d.expected);
    let _ = writeln!(o, "#### Actual behaviour\n\n```\n{}\n```\n", d.actual);
    if let Some(f) = finding {
        let _ = writeln!(o, "pops's finding, as it reported it:\n\n```\n{f}\n```\n");
    }
    let _ = writeln!(o, "#### Suggested fix\n\n{}", d.fix);
    o
}

/// docs/defects.md: the table as a document.
pub fn markdown() -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Known POPS driver defects\n");
    let _ = writeln!(
        o,
        "The defects pops knows, written from its table (`report/src/defects.rs`; `pops defects \
         --markdown` prints this page). A finding that matches an entry — its code, a chip and a \
         driver release the entry covers — is shown as that known defect wherever it appears \
         (the layer's diagnostics, `pops run`, `pops report` and its page); any other finding of a \
         driver's code or state is shown as new.\n"
    );
    let _ = writeln!(
        o,
        "| defect | driver | releases | chips | paths | finding |"
    );
    let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- |");
    for d in KNOWN_DEFECTS {
        let _ = writeln!(
            o,
            "| [{}](#{}) | {} {} | {} | {} | {} | `{}` |",
            d.id,
            d.id,
            d.driver.to_uppercase(),
            d.component.split(" (").next().unwrap_or(d.component),
            d.releases,
            d.chips,
            paths(d),
            d.finding
        );
    }
    for d in KNOWN_DEFECTS {
        entry_markdown(&mut o, d);
    }
    o
}

fn paths(d: &KnownDefect) -> String {
    if d.paths == CompilePath::ALL {
        return "all".to_string();
    }
    d.paths
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn change(c: &Option<Change>) -> String {
    match c {
        Some(c) => format!(
            "\"{}\"{}, first in Mesa {}",
            c.title,
            c.commit.map_or(String::new(), |h| format!(" ({h})")),
            c.release
        ),
        None => "not pinned to one change".to_string(),
    }
}

fn entry_markdown(o: &mut String, d: &KnownDefect) {
    let _ = writeln!(o, "\n## {}\n\n**{}.**\n", d.id, d.title);
    let _ = writeln!(o, "- **What is wrong.** {}", d.wrong);
    let _ = writeln!(o, "- **The article.** {}", d.sentence);
    let _ = writeln!(
        o,
        "- **Driver.** {}, {}; {}.",
        d.driver.to_uppercase(),
        d.component,
        d.releases
    );
    let _ = writeln!(o, "- **Introduced by.** {}.", change(&d.introduced));
    let _ = writeln!(
        o,
        "- **Fixed by.** {}.",
        match (&d.fixed_by, d.releases.fixed) {
            (Some(_), _) => change(&d.fixed_by),
            (None, Some(r)) => format!("fixed in Mesa {r} (the change is not pinned here)"),
            (None, None) => format!("not fixed as of Mesa {}", d.releases.last_seen),
        }
    );
    let _ = writeln!(o, "- **How this is known.** {}", d.history);
    let _ = writeln!(o, "- **Chips.** {}; **paths:** {}.", d.chips, paths(d));
    let _ = writeln!(o, "- **Who meets it.** {}", d.who_meets);
    let _ = writeln!(o, "- **Finding.** `{}`.", d.finding);
    let _ = writeln!(o, "- **Effect.** {}", d.effect);
    let _ = writeln!(o, "- **Fix.** {}", d.fix);
    let _ = writeln!(o, "\nReproduce:\n\n```sh");
    for c in d.reproduce {
        let _ = writeln!(o, "{c}");
    }
    let _ = writeln!(o, "```");
}

#[cfg(test)]
mod tests {
    use super::*;

    const RADV_26: &str = "radv (Mesa 26.2.6-1)";
    const RADV_25: &str = "radv (Mesa 25.0.7-2~bpo12+1)";
    const EPILOG: Code = Code::Isa(Isa::Rule(Rule::OpenAtEpilogJump));

    /// The epilog store gap is known on GFX11, GFX11.5 and GFX12 with Mesa 26.1 and later, and
    /// new anywhere else: GFX11's "The same requirements for awaiting the memory access counters
    /// as on GFX9–10.3 still apply."
    #[test]
    fn the_epilog_gap_is_known_where_the_table_says_and_new_elsewhere() {
        for chip in [Family::Navi31, Family::Gfx1150, Family::Gfx1201] {
            let e = explain(EPILOG, ChipOf::Family(chip), Some(RADV_26));
            assert_eq!(
                e.defect().map(|d| d.id),
                Some("aco-epilog-store-gap"),
                "{chip:?}"
            );
            assert!(
                e.words().starts_with("known defect aco-epilog-store-gap"),
                "{}",
                e.words()
            );
        }
        let old = explain(EPILOG, ChipOf::Family(Family::Navi31), Some(RADV_25));
        assert!(old.defect().is_none());
        assert!(old.words().contains("NEW") && old.words().contains("Mesa 25.0.7"));
        let gfx10 = explain(EPILOG, ChipOf::Family(Family::Navi21), Some(RADV_26));
        assert!(matches!(gfx10, Explained::New { near: None, .. }));
        let other = explain(
            EPILOG,
            ChipOf::Family(Family::Navi31),
            Some("AMD open-source driver 2025.Q2.1"),
        );
        assert!(other.defect().is_none(), "another driver's finding is new");
        let unknown = explain(EPILOG, ChipOf::Level(GfxLevel::Gfx12), None);
        assert!(
            unknown.defect().is_some(),
            "code read from a file: the driver is not known"
        );
    }

    /// "… must be set to 1 for draws that satisfy this condition": the drain for other draws is a
    /// cost, known on VEGA10 and RAVEN up to Mesa 25.0.x.
    #[test]
    fn the_drain_left_on_is_known_up_to_25_0_on_vega10_and_raven() {
        let d = Code::Run(Run::PopsDrainLeftOn);
        assert!(explain(d, ChipOf::Family(Family::Vega10), Some(RADV_25))
            .defect()
            .is_some());
        assert!(explain(d, ChipOf::Family(Family::Raven), Some(RADV_25))
            .defect()
            .is_some());
        assert!(explain(d, ChipOf::Family(Family::Vega10), Some(RADV_26))
            .defect()
            .is_none());
        assert!(explain(d, ChipOf::Family(Family::Vega20), Some(RADV_25))
            .defect()
            .is_none());
    }

    #[test]
    fn every_entry_is_whole_and_named_once() {
        let mut ids: Vec<_> = KNOWN_DEFECTS.iter().map(|d| d.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), KNOWN_DEFECTS.len());
        for d in KNOWN_DEFECTS {
            assert!(d
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
            assert!(d.finding.is_about_the_driver(), "{}", d.id);
            assert!(!d.paths.is_empty() && !d.reproduce.is_empty(), "{}", d.id);
            assert!(d.releases.contains(d.releases.first), "{}", d.id);
            assert!(d.releases.contains(d.releases.last_seen), "{}", d.id);
            if let Some(c) = d.introduced {
                assert_eq!(c.release, d.releases.first, "{}", d.id);
            }
            if let Some(c) = d.fixed_by {
                assert_eq!(Some(c.release), d.releases.fixed, "{}", d.id);
            }
        }
    }

    /// docs/defects.md is the table: `pops defects --markdown > docs/defects.md` writes it again.
    #[test]
    fn docs_defects_md_is_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/defects.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            doc == markdown(),
            "docs/defects.md is not the table: run `cargo run -p pops-cli -- defects --markdown > docs/defects.md`"
        );
    }
}
