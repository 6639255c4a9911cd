//! Mesa releases, typed: what pops was checked against, what a driver reports it is, and the range
//! of releases a known driver defect affects ([`MesaVersion`], [`MesaRange`]).
//!
//! A Vulkan driver built from Mesa says which release in `VkPhysicalDeviceDriverProperties`'s
//! `driverInfo` ("Mesa 26.2.6-1", "Mesa 26.1.0-devel (git-0123abc)"); distributions append their
//! revision after a dash. Only the release's three numbers matter to pops.

use std::fmt;

/// One Mesa release: major, minor, patch. Ordered as releases are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MesaVersion {
    pub major: u16,
    pub minor: u16,
    pub patch: u16,
}

impl MesaVersion {
    /// Debian 12's RADV (bookworm-backports): the host's Mesa here, whose records are the
    /// reference data and whose code every check runs on.
    pub const DEBIAN_12: MesaVersion = MesaVersion::new(25, 0, 7);
    /// Today's RADV as last checked (Debian sid's): every check runs on it too.
    pub const LAST_CHECKED: MesaVersion = MesaVersion::new(26, 2, 6);

    pub const fn new(major: u16, minor: u16, patch: u16) -> Self {
        MesaVersion {
            major,
            minor,
            patch,
        }
    }

    /// The release a text names: `26.2.6`, `26.2.6-1`, `26.1.0-devel`, `Mesa 26.2.6-1 (git-…)`, or
    /// a Vulkan driver's "name (Mesa …)" as pops prints it (`radv (Mesa 26.2.6-1)`). The first
    /// `Mesa` word is followed where there is one; a missing patch number is 0 (`26.1`).
    pub fn parse(text: &str) -> Result<Self, MesaVersionError> {
        let after_mesa = text
            .find("Mesa ")
            .map_or(text, |k| &text[k + "Mesa ".len()..]);
        let release = after_mesa
            .trim_start()
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .unwrap_or("");
        let mut numbers = release.split('.').filter(|s| !s.is_empty());
        let mut next = |required: bool| -> Result<u16, MesaVersionError> {
            match numbers.next() {
                Some(n) => n.parse().map_err(|_| MesaVersionError(text.to_string())),
                None if required => Err(MesaVersionError(text.to_string())),
                None => Ok(0),
            }
        };
        Ok(MesaVersion::new(next(true)?, next(true)?, next(false)?))
    }
}

impl fmt::Display for MesaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A text that names no Mesa release.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' names no Mesa release (expected MAJOR.MINOR[.PATCH], as in \"Mesa 26.2.6-1\")")]
pub struct MesaVersionError(pub String);

/// The releases a defect affects: from `first`, up to `fixed` (the first release without it)
/// where it is fixed. `last_seen` is the newest release it was seen on, which says how far the
/// knowledge reaches where it is not fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MesaRange {
    pub first: MesaVersion,
    pub fixed: Option<MesaVersion>,
    pub last_seen: MesaVersion,
}

impl MesaRange {
    /// Whether `v` is in the range: from `first`, before `fixed`.
    pub fn contains(&self, v: MesaVersion) -> bool {
        v >= self.first && self.fixed.is_none_or(|f| v < f)
    }
}

impl fmt::Display for MesaRange {
    /// `Mesa 26.1.0 to at least 26.2.6` (not fixed), `Mesa 24.1.0 to 25.0.x, fixed in 25.1.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fixed {
            None => write!(f, "Mesa {} to at least {}", self.first, self.last_seen),
            Some(fixed) => write!(
                f,
                "Mesa {} to {}, fixed in {fixed}",
                self.first, self.last_seen
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_as_drivers_and_distributions_spell_them() {
        let v = MesaVersion::new(26, 2, 6);
        for text in [
            "26.2.6",
            "26.2.6-1",
            "Mesa 26.2.6-1",
            "Mesa 26.2.6-1 (git-0123abc)",
            "radv (Mesa 26.2.6-1)",
        ] {
            assert_eq!(MesaVersion::parse(text), Ok(v), "{text}");
        }
        assert_eq!(
            MesaVersion::parse("Mesa 26.1.0-devel (git-0123abc)"),
            Ok(MesaVersion::new(26, 1, 0))
        );
        assert_eq!(MesaVersion::parse("26.1"), Ok(MesaVersion::new(26, 1, 0)));
        for bad in ["", "Mesa", "radv", "26", "Mesa x.y", "99999999.1.1"] {
            assert!(MesaVersion::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn releases_order_and_ranges_hold_them() {
        assert!(MesaVersion::new(25, 0, 7) < MesaVersion::new(25, 1, 0));
        assert!(MesaVersion::new(26, 2, 6) < MesaVersion::new(26, 10, 0));
        let open = MesaRange {
            first: MesaVersion::new(26, 1, 0),
            fixed: None,
            last_seen: MesaVersion::new(26, 2, 6),
        };
        assert!(!open.contains(MesaVersion::new(26, 0, 9)));
        assert!(open.contains(MesaVersion::new(26, 1, 0)));
        assert!(open.contains(MesaVersion::new(27, 0, 0)));
        let fixed = MesaRange {
            fixed: Some(MesaVersion::new(26, 3, 0)),
            ..open
        };
        assert!(fixed.contains(MesaVersion::new(26, 2, 9)));
        assert!(!fixed.contains(MesaVersion::new(26, 3, 0)));
        assert_eq!(open.to_string(), "Mesa 26.1.0 to at least 26.2.6");
    }
}
