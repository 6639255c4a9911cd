//! Locating `../shared/reference` for the integration tests.

use std::path::PathBuf;

/// `shared/reference/<rel>`, beside the repository (or under `$POPS_SHARED_DIR`, for checkouts
/// such as git worktrees that do not sit beside `shared/`). `None` (with `SKIPPED: ...` on
/// stderr) when absent, unless POPS_REQUIRE_REFERENCE is set or `CI=true`, which turn absence into a
/// failure.
pub fn reference(rel: &str, what: &str) -> Option<PathBuf> {
    let shared = std::env::var_os("POPS_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")));
    let path = shared.join("reference").join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("POPS_REQUIRE_REFERENCE").is_some()
        || std::env::var("CI").is_ok_and(|v| v == "true")
    {
        panic!(
            "POPS_REQUIRE_REFERENCE or CI=true is set but {} is missing",
            path.display()
        );
    }
    pops_testkit::skipped(format!("{what}: {} is absent", path.display()));
    None
}

// Not every test binary that includes this module reads streams.
#[allow(dead_code)]
pub fn read_dwords(path: &std::path::Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes.len() % 4, 0, "{} is not whole dwords", path.display());
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
