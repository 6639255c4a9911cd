//! The GFX12 POPS draw's reference (`draw/reference/radv-gfx1201`: what stock RADV programmed at
//! a POPS draw on gfx1201) against today's RADV: `pops-oit` runs the reference's draw again on
//! the amdgpu shim as gfx1201 and gfx1200, and the register state at RADV's first POPS draw must
//! be the reference's in everything but the addresses of RADV's own buffers, and RADV's rings lie
//! where the draw's ring layout puts them on that chip. A newer RADV that programs GFX12
//! differently fails here, naming the registers, instead of leaving the draw built on an aged
//! reference.

use pops_testkit::mesa::Mesa;
use std::collections::BTreeMap;

/// Registers holding addresses of RADV's buffers and shaders (the shim places the buffers; the
/// smaller gfx1200 places its rings closer together), and RADV's user SGPR arguments, which
/// point into its buffers.
fn is_address(level: pm4::GfxLevel, address: u32) -> bool {
    use pm4::Reg;
    let named = [
        Reg::SPI_SHADER_PGM_LO_ES,
        Reg::SPI_SHADER_PGM_HI_ES,
        Reg::SPI_SHADER_PGM_LO_PS,
        Reg::SPI_SHADER_PGM_HI_PS,
        Reg::CB_COLOR0_BASE,
        Reg::CB_COLOR0_BASE_EXT,
        Reg::SPI_ATTRIBUTE_RING_BASE,
        Reg::GE_POS_RING_BASE,
        Reg::GE_PRIM_RING_BASE,
    ];
    named
        .iter()
        .any(|r| level.register(*r).map(|d| d.address) == Some(address))
        || level
            .register_at(address)
            .is_some_and(|d| d.name().starts_with("SPI_SHADER_USER_DATA_"))
}

fn recorded_state(mesa: &Mesa, shim: &std::path::Path, chip: &str) -> BTreeMap<u32, u32> {
    let dir = pops_testkit::scratch(&format!("gfx12-reference-{chip}"));
    let out = pops_tests::radv_shim::command(
        mesa,
        shim,
        env!("CARGO_BIN_EXE_pops-oit"),
        chip,
        &dir,
        None,
    )
    // As scripts/record-gfx12-draw-reference.sh records the reference.
    .env("RADV_DEBUG", "noibchaining,nobinning")
    .args([
        "--algorithm",
        "interlock-pixel-ordered",
        "--aa",
        "noaa",
        "--width",
        "32",
        "--height",
        "32",
        "--triangles",
        "2",
    ])
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{chip}: {text}");
    let events = pops_testkit::shim::events(&dir);
    assert!(events.is_empty(), "{chip}: {events:?}");
    let mut ibs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    // ib-PID-1-0.bin (the preamble), ib-PID-1-1.bin (the command buffer): one submission.
    ibs.sort();
    assert_eq!(ibs.len(), 2, "{chip}: {ibs:?}");
    let dwords = ibs
        .iter()
        .flat_map(|p| pops_testkit::read_dwords(p))
        .collect();
    let state = draw::reference::state_at_pops_draw(pm4::GfxLevel::Gfx12, dwords).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    state
}

#[test]
fn todays_radv_programs_the_gfx12_reference_draw_as_recorded() {
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let level = pm4::GfxLevel::Gfx12;
    let reference = draw::reference::state_at_pops_draw(
        level,
        draw::reference::radv_stream(level).unwrap().unwrap(),
    )
    .unwrap();
    for mesa in pops_testkit::mesa::all_or_skip() {
        if mesa.major() < Some(26) {
            continue; // GFX12 runs on today's Mesa only (the shim's README).
        }
        for chip in pops_testkit::shim::gfx12_chips() {
            let now = recorded_state(&mesa, &shim, chip);
            let name = |a: u32| {
                level
                    .register_at(a)
                    .map_or(format!("{a:#x}"), |d| d.name().to_string())
            };
            let moved: Vec<String> = reference
                .keys()
                .chain(now.keys())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter(|a| reference.get(a) != now.get(a) && !is_address(level, **a))
                .map(|a| format!("{}: {:x?} -> {:x?}", name(*a), reference.get(a), now.get(a)))
                .collect();
            assert!(
                moved.is_empty(),
                "{} {chip}: RADV's POPS draw state moved from draw/reference/radv-gfx1201 \
                 (record it again with scripts/record-gfx12-draw-reference.sh and review \
                 draw/src/differences.rs):\n{}",
                mesa.label(),
                moved.join("\n")
            );
            assert!(reference.len() > 250 && now.len() > 250, "{chip}");
            // The draw's ring buffer holds the rings where RADV places them on this chip.
            let base = |r: pm4::Reg| now[&level.register(r).unwrap().address] as u64;
            let attr = base(pm4::Reg::SPI_ATTRIBUTE_RING_BASE);
            let family = pm4::Family::parse(chip).unwrap();
            let ours = draw::stream::ring_layout(family);
            assert_eq!(
                (
                    (base(pm4::Reg::GE_POS_RING_BASE) - attr) << 16,
                    (base(pm4::Reg::GE_PRIM_RING_BASE) - attr) << 16
                ),
                (ours.pos_offset, ours.prim_offset),
                "{} {chip}: RADV's ring placement",
                mesa.label()
            );
        }
    }
}
