//! Finding and identifying GPUs: render nodes, what a path really is, and which `pm4::Family`
//! an amdgpu ASIC is. The ASIC identification itself is libdrm_amdgpu_sys's (Mesa's
//! amd_family.h and addrlib tables); this module only maps its answer onto the chip database.

use crate::WinsysError;
use libdrm_amdgpu_sys::AMDGPU::ASIC_NAME;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::{Mode, SFlag};
use pm4::Family;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The directory the kernel puts DRM nodes in.
pub const DEFAULT_DRI_DIR: &str = "/dev/dri";

/// Linux's character-device major number for DRM (include/uapi/drm/drm.h, DRM_MAJOR).
pub const DRM_MAJOR: u64 = 226;

/// What an ASIC is to pops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsicClass {
    /// A graphics family of the chip database.
    Graphics(Family),
    /// A compute-only chip (no GFX ring).
    ComputeOnly(&'static str),
    /// A chip outside GFX9–GFX12, or one libdrm could not name.
    Unsupported(String),
}

/// A compute-only chip by one of the chip database's names for it.
fn compute_only(name: &str) -> AsicClass {
    AsicClass::ComputeOnly(pm4::chip::compute_only(name).unwrap_or("a compute-only chip"))
}

/// Maps libdrm_amdgpu_sys's ASIC identification onto the chip database.
pub fn classify_asic(asic: ASIC_NAME) -> AsicClass {
    use ASIC_NAME::*;
    let family = match asic {
        CHIP_VEGA10 => Family::Vega10,
        CHIP_VEGA12 => Family::Vega12,
        CHIP_VEGA20 => Family::Vega20,
        CHIP_RAVEN => Family::Raven,
        CHIP_RAVEN2 => Family::Raven2,
        CHIP_RENOIR => Family::Renoir,
        CHIP_NAVI10 => Family::Navi10,
        CHIP_NAVI12 => Family::Navi12,
        CHIP_NAVI14 => Family::Navi14,
        CHIP_NAVI21 => Family::Navi21,
        CHIP_NAVI22 => Family::Navi22,
        CHIP_NAVI23 => Family::Navi23,
        CHIP_VANGOGH => Family::VanGogh,
        CHIP_NAVI24 => Family::Navi24,
        CHIP_REMBRANDT => Family::Rembrandt,
        CHIP_GFX1036 => Family::RaphaelMendocino,
        CHIP_GFX1100 => Family::Navi31,
        CHIP_GFX1101 => Family::Navi32,
        CHIP_GFX1102 => Family::Navi33,
        // Hawk Point is a Phoenix refresh with the same graphics IP (Mesa maps it alike).
        CHIP_GFX1103_R1 | CHIP_GFX1103_R1X => Family::Phoenix,
        CHIP_GFX1103_R2 | CHIP_GFX1103_R2X => Family::Phoenix2,
        CHIP_GFX1150 => Family::Gfx1150,
        CHIP_GFX1151 => Family::Gfx1151,
        CHIP_GFX1152 => Family::Gfx1152,
        CHIP_GFX1153 => Family::Gfx1153,
        CHIP_GFX1200 => Family::Gfx1200,
        CHIP_GFX1201 => Family::Gfx1201,
        // Named as the chip database names them.
        CHIP_ARCTURUS => return compute_only("arcturus"),
        CHIP_ALDEBARAN => return compute_only("aldebaran"),
        CHIP_GFX940 => return compute_only("mi300"),
        other => return AsicClass::Unsupported(format!("{other} ({other:?})")),
    };
    AsicClass::Graphics(family)
}

/// Every `renderD*` entry of a DRI directory, sorted by minor number (renderD128 first).
/// A missing directory or one without render nodes is [`WinsysError::NoRenderNode`].
///
/// Listing the directory is all discovery needs; each node is then identified through libdrm
/// (`drmGetVersion`, `amdgpu_device_initialize`), which submission needs anyway. The `drm`
/// crate would be a second way to talk to the same kernel interface for one `read_dir`, and
/// could not replace libdrm_amdgpu, which RADV and the amdgpu shim share with pops.
pub fn render_nodes(dri_dir: &Path) -> Result<Vec<PathBuf>, WinsysError> {
    let entries = match std::fs::read_dir(dri_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(WinsysError::NoRenderNode {
                dir: dri_dir.to_path_buf(),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(WinsysError::PermissionDenied {
                path: dri_dir.to_path_buf(),
            })
        }
        Err(e) => return Err(WinsysError::io(dri_dir, e)),
    };
    let mut nodes: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let minor = name
                .to_str()?
                .strip_prefix("renderD")?
                .parse::<u32>()
                .ok()?;
            Some((minor, e.path()))
        })
        .collect();
    nodes.sort();
    if nodes.is_empty() {
        return Err(WinsysError::NoRenderNode {
            dir: dri_dir.to_path_buf(),
        });
    }
    Ok(nodes.into_iter().map(|(_, p)| p).collect())
}

/// The kernel driver bound to a node of the real `/dev/dri`, read from sysfs
/// (`/sys/class/drm/<node>/device/driver`), which needs no permission on the node. `None` for
/// nodes elsewhere (sysfs only describes the real directory) or when sysfs does not say.
pub fn sysfs_driver(node: &Path) -> Option<String> {
    let parent = std::fs::canonicalize(node.parent()?).ok()?;
    if parent != Path::new(DEFAULT_DRI_DIR) {
        return None;
    }
    let name = node.file_name()?;
    let link = std::fs::read_link(
        Path::new("/sys/class/drm")
            .join(name)
            .join("device")
            .join("driver"),
    )
    .ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

/// What an open file is, from `fstat` on its descriptor: `Ok` for a DRM character device, else
/// [`WinsysError::NotDrmDevice`] naming what it is. Everything about a node is learnt through the
/// descriptor libc opened — the same path libdrm and every driver take, and the one a userspace
/// DRM implementation (Mesa's drm-shim) answers — never through a separate `statx` of the path.
pub fn check_drm_fd(path: &Path, fd: BorrowedFd<'_>) -> Result<(), WinsysError> {
    let st = nix::sys::stat::fstat(fd.as_raw_fd()).map_err(|errno| WinsysError::Open {
        path: path.to_path_buf(),
        errno,
    })?;
    let kind = SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits());
    let what = match kind {
        SFlag::S_IFDIR => "a directory".to_string(),
        SFlag::S_IFREG => "a regular file".to_string(),
        SFlag::S_IFBLK => "a block device".to_string(),
        SFlag::S_IFCHR => {
            let rdev = st.st_rdev;
            let (major, minor) = (nix::sys::stat::major(rdev), nix::sys::stat::minor(rdev));
            if major == DRM_MAJOR {
                return Ok(());
            }
            format!("character device {major}:{minor}, not DRM (major {DRM_MAJOR})")
        }
        _ => "not a device file".to_string(),
    };
    Err(WinsysError::NotDrmDevice {
        path: path.to_path_buf(),
        what,
    })
}

/// Opens a node through libc's `open` (read-write, close-on-exec), with the failures named for
/// the user: a missing path, a permission problem (a node of another driver is named as such,
/// from sysfs, rather than asking the user to join a group for it), a directory.
pub fn open_node(path: &Path) -> Result<OwnedFd, WinsysError> {
    let raw = nix::fcntl::open(path, OFlag::O_RDWR | OFlag::O_CLOEXEC, Mode::empty()).map_err(
        |errno| match errno {
            Errno::EACCES | Errno::EPERM => match sysfs_driver(path) {
                Some(driver) if driver != "amdgpu" => WinsysError::NotAmdgpu {
                    path: path.to_path_buf(),
                    driver,
                },
                _ => WinsysError::PermissionDenied {
                    path: path.to_path_buf(),
                },
            },
            Errno::ENOENT | Errno::ENOTDIR => WinsysError::NotFound {
                path: path.to_path_buf(),
            },
            Errno::EISDIR => WinsysError::NotDrmDevice {
                path: path.to_path_buf(),
                what: "a directory".to_string(),
            },
            errno => WinsysError::Open {
                path: path.to_path_buf(),
                errno,
            },
        },
    )?;
    // SAFETY: open returned a new descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    check_drm_fd(path, fd.as_fd())?;
    Ok(fd)
}

/// Checks that a path is a DRM character device (opened and `fstat`ed; see [`check_drm_fd`]).
pub fn check_drm_node(path: &Path) -> Result<(), WinsysError> {
    open_node(path).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_graphics_asic_maps_to_its_family() {
        use ASIC_NAME::*;
        let cases = [
            (CHIP_VEGA10, Family::Vega10),
            (CHIP_RAVEN, Family::Raven),
            (CHIP_RENOIR, Family::Renoir),
            (CHIP_NAVI14, Family::Navi14),
            (CHIP_NAVI21, Family::Navi21),
            (CHIP_VANGOGH, Family::VanGogh),
            (CHIP_GFX1036, Family::RaphaelMendocino),
            (CHIP_GFX1100, Family::Navi31),
            (CHIP_GFX1102, Family::Navi33),
            (CHIP_GFX1103_R2, Family::Phoenix2),
            (CHIP_GFX1151, Family::Gfx1151),
        ];
        for (asic, fam) in cases {
            assert_eq!(classify_asic(asic), AsicClass::Graphics(fam), "{asic:?}");
        }
        // Every family of the chip database is reachable from some ASIC.
        let all = [
            CHIP_VEGA10,
            CHIP_VEGA12,
            CHIP_VEGA20,
            CHIP_RAVEN,
            CHIP_RAVEN2,
            CHIP_RENOIR,
            CHIP_NAVI10,
            CHIP_NAVI12,
            CHIP_NAVI14,
            CHIP_NAVI21,
            CHIP_NAVI22,
            CHIP_NAVI23,
            CHIP_VANGOGH,
            CHIP_NAVI24,
            CHIP_REMBRANDT,
            CHIP_GFX1036,
            CHIP_GFX1100,
            CHIP_GFX1101,
            CHIP_GFX1102,
            CHIP_GFX1103_R1,
            CHIP_GFX1103_R2,
            CHIP_GFX1150,
            CHIP_GFX1151,
            CHIP_GFX1152,
            CHIP_GFX1153,
            CHIP_GFX1200,
            CHIP_GFX1201,
        ];
        for f in Family::ALL {
            assert!(
                all.iter()
                    .any(|a| classify_asic(*a) == AsicClass::Graphics(*f)),
                "{f}"
            );
        }
    }

    /// The family id + external revision → ASIC step is libdrm_amdgpu_sys's; this checks the
    /// whole path for a few real chips (Mesa amdgpu_asic_addr.h ranges).
    #[test]
    fn family_id_and_revision_identify_through_libdrm_amdgpu_sys() {
        use libdrm_amdgpu_sys::AMDGPU::FAMILY_NAME;
        let id = |fam: FAMILY_NAME, rev| classify_asic(fam.asic_name(rev));
        assert_eq!(
            id(FAMILY_NAME::AI, 0x01),
            AsicClass::Graphics(Family::Vega10)
        );
        assert_eq!(
            id(FAMILY_NAME::RV, 0x91),
            AsicClass::Graphics(Family::Renoir)
        );
        assert_eq!(
            id(FAMILY_NAME::NV, 0x28),
            AsicClass::Graphics(Family::Navi21)
        );
        assert_eq!(
            id(FAMILY_NAME::GC_11_0_0, 0x01),
            AsicClass::Graphics(Family::Navi31)
        );
        assert!(matches!(
            id(FAMILY_NAME::AI, 0x32),
            AsicClass::ComputeOnly(_)
        ));
        assert!(matches!(
            id(FAMILY_NAME::VI, 0x50),
            AsicClass::Unsupported(_)
        ));
    }

    #[test]
    fn compute_only_and_older_chips_are_told_apart() {
        assert!(matches!(
            classify_asic(ASIC_NAME::CHIP_ALDEBARAN),
            AsicClass::ComputeOnly(s) if s.contains("MI200")
        ));
        assert!(matches!(
            classify_asic(ASIC_NAME::CHIP_POLARIS10),
            AsicClass::Unsupported(_)
        ));
        assert_eq!(
            classify_asic(ASIC_NAME::CHIP_GFX1201),
            AsicClass::Graphics(Family::Gfx1201)
        );
    }

    #[test]
    fn an_empty_or_missing_dri_directory_has_no_render_node() {
        let dir = pops_testkit::scratch("dri-empty");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("card0"), b"").unwrap();
        assert_eq!(
            render_nodes(&dir),
            Err(WinsysError::NoRenderNode { dir: dir.clone() })
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(
            render_nodes(&dir),
            Err(WinsysError::NoRenderNode { .. })
        ));
    }

    #[test]
    fn render_nodes_are_ordered_by_minor() {
        let dir = pops_testkit::scratch("dri-order");
        std::fs::create_dir_all(&dir).unwrap();
        for n in [
            "renderD129",
            "renderD128",
            "renderD1000",
            "card1",
            "renderDx",
        ] {
            std::fs::write(dir.join(n), b"").unwrap();
        }
        let got = render_nodes(&dir).unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["renderD128", "renderD129", "renderD1000"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sysfs_describes_only_the_real_dri_directory() {
        let dir = pops_testkit::scratch("dri-sysfs");
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(sysfs_driver(&dir.join("renderD128")), None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(sysfs_driver(Path::new("/nonexistent/renderD128")), None);
    }

    #[test]
    fn paths_that_are_not_drm_devices_are_named_for_what_they_are() {
        let file = pops_testkit::scratch("not-drm").join("not-drm");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            check_drm_node(&file),
            Err(WinsysError::NotDrmDevice { what, .. }) if what == "a regular file"
        ));
        std::fs::remove_file(&file).unwrap();
        assert_eq!(
            check_drm_node(&file),
            Err(WinsysError::NotFound { path: file.clone() })
        );
        assert!(matches!(
            check_drm_node(Path::new("/dev/null")),
            Err(WinsysError::NotDrmDevice { what, .. }) if what.contains("character device 1:3")
        ));
        assert!(matches!(
            check_drm_node(Path::new("/")),
            Err(WinsysError::NotDrmDevice { what, .. }) if what == "a directory"
        ));
    }
}
