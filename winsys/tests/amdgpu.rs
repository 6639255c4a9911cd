//! The real amdgpu backend: error paths that any machine can exercise, and hardware tests that
//! run on an amdgpu render node: a real one where it exists, else the amdgpu kernel interface of
//! the test command's shim (`shared/tools/amdgpu-shim`, every POPS chip it has: each such test
//! runs again in a child process with the shim preloaded, which must pass and leave no VIOLATION
//! or LEAK line). Set POPS_REQUIRE_AMDGPU=1 (the hardware CI does) to require a real GPU.

use std::path::Path;
use std::time::Duration;
use winsys::amdgpu::AmdgpuWinsys;
use winsys::identify::DEFAULT_DRI_DIR;
use winsys::{selftest, Domain, Readback, Submission, Winsys, WinsysError};

/// Set in the child process a test runs in on the shim (to the chip's name).
const SHIM_CHILD: &str = "POPS_WINSYS_SHIM_CHILD";

/// The hardware under test: the render node of a real GPU, or the shim's inside the child
/// process a test runs in on the shim. `None` once the test has run in those children (on every
/// POPS chip of the shim), or after saying why it is skipped.
fn amdgpu_or_skip(test: &str) -> Option<AmdgpuWinsys> {
    match AmdgpuWinsys::open_first(Path::new(DEFAULT_DRI_DIR)) {
        Ok(ws) => Some(ws),
        Err(e) => {
            if std::env::var_os("POPS_REQUIRE_AMDGPU").is_some() {
                panic!("{test}: POPS_REQUIRE_AMDGPU is set but no usable amdgpu device: {e}");
            }
            if let Some(chip) = std::env::var_os(SHIM_CHILD) {
                panic!("{test}: the shim's {chip:?} render node did not open: {e}");
            }
            eprintln!("{test}: no amdgpu render node ({e}): on the shim instead");
            if let Some(lib) = pops_testkit::shim::library_or_skip() {
                on_every_shim_chip(&lib, test);
            }
            None
        }
    }
}

/// Runs test `test` of this binary again, once per POPS chip of the shim, in a child process
/// that sees the shim's render node; each must pass (exactly one test run) and leave no
/// VIOLATION or LEAK line.
fn on_every_shim_chip(lib: &Path, test: &str) {
    let exe = std::env::current_exe().expect("the test binary");
    for chip in pops_testkit::shim::chips() {
        let dir = pops_testkit::scratch(&format!("shim-{test}-{chip}"));
        let out = pops_testkit::shim::command(lib, &exe, chip, &dir)
            .args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env(SHIM_CHILD, chip)
            .output()
            .expect("the test binary runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{test} on the shim's {chip}:\n{text}");
        assert!(
            text.contains("1 passed"),
            "{test} did not run on the shim's {chip}:\n{text}"
        );
        let events = pops_testkit::shim::events(&dir);
        assert!(events.is_empty(), "{test} on {chip}: {events:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_empty_dri_directory_has_no_render_node() {
    let dir = pops_testkit::scratch("empty");
    assert_eq!(
        AmdgpuWinsys::open_first(&dir).err(),
        Some(WinsysError::NoRenderNode { dir: dir.clone() })
    );
    assert!(matches!(
        AmdgpuWinsys::probe_all(&dir),
        Err(WinsysError::NoRenderNode { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_dri_directory_has_no_render_node() {
    let dir = pops_testkit::scratch("winsys-none");
    assert!(matches!(
        AmdgpuWinsys::open_first(&dir),
        Err(WinsysError::NoRenderNode { .. })
    ));
}

#[test]
fn a_regular_file_is_not_a_drm_device() {
    let dir = pops_testkit::scratch("regular");
    let f = dir.join("renderD128");
    std::fs::write(&f, b"not a device").unwrap();
    match AmdgpuWinsys::open(&f) {
        Err(WinsysError::NotDrmDevice { path, what }) => {
            assert_eq!(path, f);
            assert_eq!(what, "a regular file");
        }
        other => panic!("{:?}", other.err()),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dev_null_is_a_character_device_but_not_drm() {
    let e = AmdgpuWinsys::open(Path::new("/dev/null")).err().unwrap();
    assert!(
        matches!(&e, WinsysError::NotDrmDevice { what, .. } if what.contains("1:3")),
        "{e}"
    );
    assert!(e.to_string().contains("is not a DRM device"), "{e}");
}

#[test]
fn a_missing_path_is_named() {
    let p = Path::new("/nonexistent/dri/renderD128");
    assert_eq!(
        AmdgpuWinsys::open(p).err(),
        Some(WinsysError::NotFound {
            path: p.to_path_buf()
        })
    );
}

/// A render node that is not amdgpu's: a `renderD128` link to /dev/null stands in for another
/// driver's node. Enumeration skips it and says what it skipped.
#[test]
fn non_amdgpu_nodes_are_skipped_and_reported() {
    let dir = pops_testkit::scratch("other");
    std::os::unix::fs::symlink("/dev/null", dir.join("renderD128")).unwrap();
    match AmdgpuWinsys::open_first(&dir) {
        Err(WinsysError::NoAmdgpuNode { others, .. }) => {
            assert!(others.contains("renderD128"), "{others}")
        }
        other => panic!("{:?}", other.err()),
    }
    let probed = AmdgpuWinsys::probe_all(&dir).unwrap();
    assert_eq!(probed.len(), 1);
    assert!(matches!(
        probed[0].outcome,
        Err(WinsysError::NotDrmDevice { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hardware_identifies_a_supported_family() {
    let Some(ws) = amdgpu_or_skip("hardware_identifies_a_supported_family") else {
        return;
    };
    let info = ws.info();
    eprintln!("{info:?}");
    assert_eq!(info.gfx_level, info.family.gfx_level());
    assert!(info.shader_engines >= 1);
    assert!(info.ib_pad_dwords >= 8 && info.ib_pad_dwords.is_power_of_two());
    assert!(info.render_node.is_some());
}

#[test]
fn hardware_buffers_map_write_read_and_free_in_gtt_and_vram() {
    let Some(mut ws) = amdgpu_or_skip("hardware_buffers_map_write_read_and_free_in_gtt_and_vram")
    else {
        return;
    };
    for domain in [Domain::Gtt, Domain::Vram] {
        let b = ws.create_buffer(100, domain).unwrap();
        assert_eq!(ws.buffer_size(b).unwrap(), 4096);
        assert_eq!(ws.gpu_address(b).unwrap() % 65536, 0);
        ws.write(b, 8, &[1, 2, 3]).unwrap();
        assert_eq!(ws.read(b, 8, 3).unwrap(), Readback::Executed(vec![1, 2, 3]));
        assert!(matches!(
            ws.read(b, 4096, 1),
            Err(WinsysError::OutOfBounds { .. })
        ));
        ws.free_buffer(b).unwrap();
        assert_eq!(ws.gpu_address(b), Err(WinsysError::UnknownBuffer(b)));
    }
}

#[test]
fn hardware_refuses_an_ib_outside_its_buffer_list_before_the_kernel_sees_it() {
    let Some(mut ws) =
        amdgpu_or_skip("hardware_refuses_an_ib_outside_its_buffer_list_before_the_kernel_sees_it")
    else {
        return;
    };
    let a = ws.create_buffer(4096, Domain::Gtt).unwrap();
    let b = ws.create_buffer(4096, Domain::Gtt).unwrap();
    let ctx = ws.create_context().unwrap();
    let ib_va = ws.gpu_address(b).unwrap();
    let e = ws.submit(
        ctx,
        &Submission {
            ib_va,
            ib_dwords: 8,
            buffers: &[a],
            label: "outside",
        },
    );
    assert!(matches!(e, Err(WinsysError::IbOutsideBuffers { .. })));
}

#[test]
fn hardware_fence_test_writes_and_reads_back() {
    let Some(mut ws) = amdgpu_or_skip("hardware_fence_test_writes_and_reads_back") else {
        return;
    };
    let report = selftest::run(
        &mut ws,
        &[],
        &selftest::Options {
            timeout: Duration::from_secs(5),
        },
    )
    .unwrap();
    eprintln!("{}", report.to_table());
    assert!(report.executed);
    assert_eq!(
        report.cases[0].readback,
        selftest::ReadbackResult::Value(selftest::FENCE_MAGIC)
    );
    assert!(report.all_ok());
}

/// A DRM character device (major 226) with no GPU behind it: made with mknod where the tests
/// run as root, else skipped. Opening it fails in the kernel (ENXIO), which is reported with the
/// errno, not mistaken for "not DRM" or "not amdgpu".
#[test]
fn a_drm_node_without_a_device_behind_it_fails_to_open_with_the_errno() {
    use nix::sys::stat::{makedev, mknod, Mode, SFlag};
    let dir = pops_testkit::scratch("orphan");
    let node = dir.join("renderD200");
    if let Err(e) = mknod(
        &node,
        SFlag::S_IFCHR,
        Mode::from_bits_truncate(0o666),
        makedev(226, 200),
    ) {
        pops_testkit::skipped(format!("cannot mknod a DRM node here ({e}); needs root"));
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    match AmdgpuWinsys::open(&node) {
        Err(WinsysError::Open { path, errno }) => {
            assert_eq!(path, node);
            assert!(
                matches!(errno, nix::errno::Errno::ENXIO | nix::errno::Errno::ENODEV),
                "{errno}"
            );
        }
        Err(WinsysError::PermissionDenied { .. }) => pops_testkit::skipped(
            "device nodes cannot be opened on this filesystem (nodev mount)".to_string(),
        ),
        other => panic!("{:?}", other.err()),
    }
    // Enumeration reports that node's problem rather than "no amdgpu node".
    assert!(matches!(
        AmdgpuWinsys::open_first(&dir),
        Err(WinsysError::Open { .. } | WinsysError::PermissionDenied { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
