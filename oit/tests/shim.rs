//! The whole stack on the amdgpu kernel interface of the test command's shim
//! (`shared/tools/amdgpu-shim`): stock RADV with its own amdgpu winsys (not null hardware) runs
//! `pops-oit --matrix` with `VK_LAYER_POPS_interlock`, every combination submitted through libdrm
//! and the kernel's checks, on every POPS chip of the shim. Shaders do not run there, so pops-oit
//! says so as its own verdict; the layer identifies the chip from the device itself, and the POPS
//! fields of every draw record it writes are the ones RADV really wrote in the IBs it submitted —
//! a second check of the draw records, through the real submission path.

use serde_json::Value;
use std::path::Path;

const RADV: &str = "/usr/share/vulkan/icd.d/radeon_icd.json";

fn skip(reason: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "required in CI but missing: {reason}"
    );
    pops_testkit::skipped(reason);
}

fn check_chip(shim: &Path, manifests: &Path, chip: &str) {
    let dir = pops_tests::temp_dir(&format!("oit-shim-{chip}"));
    let report = dir.join("report.jsonl");
    let out = pops_testkit::shim::command(shim, env!("CARGO_BIN_EXE_pops-oit"), chip, &dir)
        .args([
            "--matrix",
            "--width",
            "160",
            "--height",
            "96",
            "--triangles",
            "40",
        ])
        .env("VK_DRIVER_FILES", RADV)
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("RADV_FORCE_FAMILY")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        // Every IB inline (no chained preamble): the shim records top-level IBs only.
        .env("RADV_DEBUG", "noibs")
        .env("VK_LOADER_LAYERS_DISABLE", "~implicit~")
        .env("VK_ADD_LAYER_PATH", manifests)
        .env("VK_INSTANCE_LAYERS", "VK_LAYER_POPS_interlock")
        .env("VK_POPS_INTERLOCK_REPORT", &report)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // Every combination submitted and completed, none with shader output: pops-oit's own
    // verdict, not sixteen image failures.
    assert_eq!(out.status.code(), Some(3), "{chip}: {text}");
    assert!(
        text.contains("summary: 0 pass, 0 fail, 0 error, 0 unsupported, 0 created only, 16 submitted without shader output"),
        "{chip}: {text}"
    );
    let events = pops_testkit::shim::events(&dir);
    assert!(events.is_empty(), "{chip}: {events:?}");

    let family = pm4::Family::parse(chip).unwrap();
    let records = pops_tests::read_report(&report);
    let draws: Vec<&Value> = records.iter().filter(|r| r["kind"] == "draw").collect();
    assert!(!draws.is_empty(), "{chip}: no draw record");
    for r in &records {
        assert_eq!(r["chip"], family.name(), "{chip}: the layer's chip: {r}");
    }
    // The draws RADV submitted with POPS on, and their register fields.
    let submitted: Vec<_> = pops_tests::submitted::draws(&dir, family.gfx_level())
        .into_iter()
        .filter(|d| d.pops())
        .collect();
    // One submission per combination and frame: every recorded draw ran once.
    let recorded: u64 = draws.iter().map(|r| r["draws"].as_u64().unwrap()).sum();
    assert_eq!(recorded, submitted.len() as u64, "{chip}");
    let mut compared = 0;
    for r in &draws {
        let agreeing = submitted
            .iter()
            .filter_map(|d| pops_tests::submitted::agrees(r, d).ok());
        let n = agreeing.max().unwrap_or_else(|| {
            let why = submitted
                .iter()
                .map(|d| pops_tests::submitted::agrees(r, d).unwrap_err());
            panic!(
                "{chip}: no submitted draw has the record's fields: {:?}\n{r}",
                why.collect::<Vec<_>>()
            )
        });
        compared += n;
    }
    for d in &submitted {
        assert!(
            draws
                .iter()
                .any(|r| pops_tests::submitted::agrees(r, d).is_ok()),
            "{chip}: submission {}'s draw has no record",
            d.submission
        );
    }
    assert!(
        compared > 8 * draws.len(),
        "{chip}: {compared} fields compared"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn radv_on_the_shim_submits_what_the_draw_records_say_on_every_pops_chip() {
    if !Path::new(RADV).is_file() {
        return skip(&format!("RADV ({RADV}) not installed"));
    }
    let Some(shim) = pops_testkit::shim::library_or_skip() else {
        return;
    };
    let manifests = pops_tests::layer_manifest_dir();
    std::thread::scope(|s| {
        for chunk in pops_testkit::shim::CHIPS.chunks(5) {
            let (shim, manifests) = (&shim, &manifests);
            s.spawn(move || {
                for chip in chunk {
                    check_chip(shim, manifests, chip);
                }
            });
        }
    });
}
