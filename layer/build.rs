//! Keeps the cdylib's dynamic symbol table to `vkNegotiateLoaderLayerInterfaceVersion`, and writes
//! the development manifest: `target/<profile>/explicit_layer.d/VkLayer_pops_interlock.json`,
//! the manifest of `manifests/` with `library_path` made absolute, for `VK_ADD_LAYER_PATH`, and
//! its implicit twin in `target/<profile>/implicit_layer.d/`.

use std::path::PathBuf;

fn main() {
    let dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let map = dir.join("exports.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    // A shared object in the library directory has a soname (the Debian package installs it
    // there, and Debian's policy asks for one).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libVkLayer_pops_interlock.so");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out; the library lands in target/<profile>.
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let lib = profile_dir.join("libVkLayer_pops_interlock.so");
    for (file, sub) in [
        ("VkLayer_pops_interlock.json", "explicit_layer.d"),
        ("VkLayer_pops_interlock_implicit.json", "implicit_layer.d"),
    ] {
        let manifest = dir.join("../manifests").join(file);
        println!("cargo:rerun-if-changed={}", manifest.display());
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            println!("cargo:warning=manifests/{file} missing: no development manifest");
            continue;
        };
        let text = text.replace(
            "\"library_path\": \"libVkLayer_pops_interlock.so\"",
            &format!("\"library_path\": \"{}\"", lib.display()),
        );
        let dev_dir = profile_dir.join(sub);
        if std::fs::create_dir_all(&dev_dir).is_err() {
            continue;
        }
        let path = dev_dir.join(file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if let Err(e) = std::fs::write(&path, text) {
                println!("cargo:warning=cannot write {}: {e}", path.display());
            }
        }
    }
}
