//! `pops layer`: install and uninstall `VK_LAYER_POPS_interlock` where the Vulkan loader looks.
//!
//! - `--user` (default): `$XDG_DATA_HOME/vulkan/explicit_layer.d` (else
//!   `~/.local/share/vulkan/explicit_layer.d`) and the library in `~/.local/lib`.
//! - `--system`: `/usr/local/share/vulkan/explicit_layer.d` and `/usr/local/lib`.
//!
//! The installed manifest is `manifests/VkLayer_pops_interlock.json` with `library_path` made the
//! absolute path of the installed library; `--implicit` installs the implicit variant into
//! `implicit_layer.d` instead (enabled by `VK_POPS_INTERLOCK_ENABLE=1`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const LIBRARY: &str = "libVkLayer_pops_interlock.so";
const EXPLICIT: (&str, &str) = (
    "VkLayer_pops_interlock.json",
    include_str!("../../manifests/VkLayer_pops_interlock.json"),
);
const IMPLICIT: (&str, &str) = (
    "VkLayer_pops_interlock_implicit.json",
    include_str!("../../manifests/VkLayer_pops_interlock_implicit.json"),
);

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Copy the library and write its manifest.
    Install {
        #[command(flatten)]
        scope: ScopeArgs,
        /// Install the implicit manifest (enabled by VK_POPS_INTERLOCK_ENABLE=1) instead of the
        /// explicit one (enabled by VK_INSTANCE_LAYERS=VK_LAYER_POPS_interlock).
        #[arg(long)]
        implicit: bool,
        /// The library to install; default: libVkLayer_pops_interlock.so next to this program
        /// (where `cargo build -p pops-layer` puts it).
        #[arg(long)]
        lib: Option<PathBuf>,
    },
    /// Remove the library and both manifests from the chosen location.
    Uninstall {
        #[command(flatten)]
        scope: ScopeArgs,
    },
    /// Print where the layer would be installed.
    Paths {
        #[command(flatten)]
        scope: ScopeArgs,
    },
}

#[derive(clap::Args)]
#[group(multiple = false)]
struct ScopeArgs {
    /// Per-user locations (the default).
    #[arg(long)]
    user: bool,
    /// System-wide locations under /usr/local (needs write access there).
    #[arg(long)]
    system: bool,
}

/// Where the loader finds the layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locations {
    pub explicit_dir: PathBuf,
    pub implicit_dir: PathBuf,
    pub lib_dir: PathBuf,
}

/// Why an installation step failed.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    #[error("neither XDG_DATA_HOME nor HOME is set: cannot find the per-user locations")]
    NoHome,
    #[error(
        "layer library {0} not found: build it with `cargo build -p pops-layer` or pass --lib"
    )]
    MissingLibrary(PathBuf),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> LayerError + 'a {
    move |source| LayerError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The locations for `--user` (from `env`, so tests can use a temporary HOME) or `--system`.
pub fn locations(
    system: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Locations, LayerError> {
    if system {
        let share = PathBuf::from("/usr/local/share/vulkan");
        return Ok(Locations {
            explicit_dir: share.join("explicit_layer.d"),
            implicit_dir: share.join("implicit_layer.d"),
            lib_dir: PathBuf::from("/usr/local/lib"),
        });
    }
    let home = env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let data = env("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".local/share")))
        .ok_or(LayerError::NoHome)?;
    let home = home.ok_or(LayerError::NoHome)?;
    Ok(Locations {
        explicit_dir: data.join("vulkan/explicit_layer.d"),
        implicit_dir: data.join("vulkan/implicit_layer.d"),
        lib_dir: home.join(".local/lib"),
    })
}

/// The manifest text with `library_path` pointing at `lib`.
pub fn manifest_for(template: &str, lib: &Path) -> String {
    let path = serde_json::to_string(&lib.display().to_string())
        .unwrap_or_else(|_| format!("\"{}\"", lib.display()));
    template.replace(
        &format!("\"library_path\": \"{LIBRARY}\""),
        &format!("\"library_path\": {path}"),
    )
}

/// Copies the library and writes the manifest; returns the files written.
pub fn install(loc: &Locations, lib: &Path, implicit: bool) -> Result<Vec<PathBuf>, LayerError> {
    if !lib.is_file() {
        return Err(LayerError::MissingLibrary(lib.to_path_buf()));
    }
    std::fs::create_dir_all(&loc.lib_dir).map_err(io("create", &loc.lib_dir))?;
    let installed_lib = loc.lib_dir.join(LIBRARY);
    // Copy to a temporary name and rename, so a running application that has the old library
    // mapped keeps a valid file.
    let tmp = loc.lib_dir.join(format!(".{LIBRARY}.tmp"));
    std::fs::copy(lib, &tmp).map_err(io("copy to", &tmp))?;
    std::fs::rename(&tmp, &installed_lib).map_err(io("rename to", &installed_lib))?;
    let (dir, (name, template)) = if implicit {
        (&loc.implicit_dir, IMPLICIT)
    } else {
        (&loc.explicit_dir, EXPLICIT)
    };
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let manifest = dir.join(name);
    std::fs::write(&manifest, manifest_for(template, &installed_lib))
        .map_err(io("write", &manifest))?;
    Ok(vec![installed_lib, manifest])
}

/// Removes the library and both manifests; returns the files removed (absent ones are skipped).
pub fn uninstall(loc: &Locations) -> Result<Vec<PathBuf>, LayerError> {
    let mut removed = Vec::new();
    for path in [
        loc.explicit_dir.join(EXPLICIT.0),
        loc.implicit_dir.join(IMPLICIT.0),
        loc.lib_dir.join(LIBRARY),
    ] {
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("remove", &path)(e)),
        }
    }
    Ok(removed)
}

fn default_lib() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join(LIBRARY)))
        .unwrap_or_else(|| PathBuf::from(LIBRARY))
}

pub fn run(args: Args) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let result = match args.action {
        Action::Install {
            scope,
            implicit,
            lib,
        } => locations(scope.system, &env).and_then(|loc| {
            let lib = lib.unwrap_or_else(default_lib);
            let files = install(&loc, &lib, implicit)?;
            for f in files {
                println!("installed {}", f.display());
            }
            if implicit {
                println!("enable with VK_POPS_INTERLOCK_ENABLE=1 (VK_POPS_INTERLOCK_DISABLE=1 turns it off)");
            } else {
                println!("enable with VK_INSTANCE_LAYERS=VK_LAYER_POPS_interlock");
            }
            Ok(())
        }),
        Action::Uninstall { scope } => locations(scope.system, &env).and_then(|loc| {
            let removed = uninstall(&loc)?;
            if removed.is_empty() {
                println!("nothing installed in {}", loc.explicit_dir.display());
            }
            for f in removed {
                println!("removed {}", f.display());
            }
            Ok(())
        }),
        Action::Paths { scope } => locations(scope.system, &env).map(|loc| {
            println!("explicit manifest: {}", loc.explicit_dir.join(EXPLICIT.0).display());
            println!("implicit manifest: {}", loc.implicit_dir.join(IMPLICIT.0).display());
            println!("library:           {}", loc.lib_dir.join(LIBRARY).display());
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = pops_testkit::scratch(&format!("cmd-layer-{name}"));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn env_of(pairs: Vec<(&'static str, PathBuf)>) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.display().to_string())
        }
    }

    #[test]
    fn user_locations_follow_xdg_then_home() {
        let loc = locations(false, &env_of(vec![("HOME", "/h".into())])).unwrap();
        assert_eq!(
            loc.explicit_dir,
            PathBuf::from("/h/.local/share/vulkan/explicit_layer.d")
        );
        assert_eq!(loc.lib_dir, PathBuf::from("/h/.local/lib"));
        let loc = locations(
            false,
            &env_of(vec![("HOME", "/h".into()), ("XDG_DATA_HOME", "/x".into())]),
        )
        .unwrap();
        assert_eq!(
            loc.implicit_dir,
            PathBuf::from("/x/vulkan/implicit_layer.d")
        );
        assert!(matches!(
            locations(false, &env_of(vec![])),
            Err(LayerError::NoHome)
        ));
        let sys = locations(true, &env_of(vec![])).unwrap();
        assert_eq!(
            sys.explicit_dir,
            PathBuf::from("/usr/local/share/vulkan/explicit_layer.d")
        );
        assert_eq!(sys.lib_dir, PathBuf::from("/usr/local/lib"));
    }

    #[test]
    fn install_and_uninstall_in_a_temporary_home() {
        let home = temp("home");
        let src = home.join("build/libVkLayer_pops_interlock.so");
        std::fs::create_dir_all(src.parent().unwrap()).unwrap();
        std::fs::write(&src, b"\x7fELF fake").unwrap();
        let loc = locations(false, &env_of(vec![("HOME", home.clone())])).unwrap();
        let files = install(&loc, &src, false).unwrap();
        let lib = home.join(".local/lib/libVkLayer_pops_interlock.so");
        let manifest =
            home.join(".local/share/vulkan/explicit_layer.d/VkLayer_pops_interlock.json");
        assert_eq!(files, vec![lib.clone(), manifest.clone()]);
        assert_eq!(std::fs::read(&lib).unwrap(), b"\x7fELF fake");
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        assert_eq!(m["layer"]["library_path"], lib.display().to_string());
        assert_eq!(m["layer"]["name"], "VK_LAYER_POPS_interlock");

        let files = install(&loc, &src, true).unwrap();
        assert!(files[1].ends_with("vulkan/implicit_layer.d/VkLayer_pops_interlock_implicit.json"));

        let removed = uninstall(&loc).unwrap();
        assert_eq!(removed.len(), 3);
        assert!(!lib.exists() && !manifest.exists());
        assert!(
            uninstall(&loc).unwrap().is_empty(),
            "second uninstall is a no-op"
        );
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn missing_library_is_a_typed_error() {
        let home = temp("missing");
        let loc = locations(false, &env_of(vec![("HOME", home.clone())])).unwrap();
        assert!(matches!(
            install(&loc, &home.join("nope.so"), false),
            Err(LayerError::MissingLibrary(_))
        ));
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn manifest_path_is_json_escaped() {
        let m = manifest_for(
            EXPLICIT.1,
            Path::new("/a \"b\"/libVkLayer_pops_interlock.so"),
        );
        let v: serde_json::Value = serde_json::from_str(&m).unwrap();
        assert_eq!(
            v["layer"]["library_path"],
            "/a \"b\"/libVkLayer_pops_interlock.so"
        );
    }
}
