//! Keeps the cdylib's dynamic symbol table to `vkNegotiateLoaderLayerInterfaceVersion`, and writes
//! the development manifest: `target/<profile>/explicit_layer.d/VkLayer_pops_interlock.json`,
//! the manifest of `manifests/` with `library_path` made absolute, for `VK_ADD_LAYER_PATH`, and
//! its implicit twin in `target/<profile>/implicit_layer.d/`. Names the build of the code that
//! decides a verdict of the `verify_isa` setting (`POPS_VERIFIER_BUILD`), so that verdicts kept
//! between runs are never taken from another build's rules.

use std::path::PathBuf;

/// The sources a verdict of `verify_isa` is a function of (besides the driver's code): the
/// verifier (with the reader of RADV's binaries), the ISA and chip tables, the layer's
/// diagnostics, the report's types, and which of a pipeline's binaries the layer reads.
const VERIFIER_SOURCES: &[&str] = &[
    "../shaders/src",
    "../pm4/src",
    "../pm4/data",
    "../layer-model/src",
    "../report/src",
    "src/hooks/pipeline_code.rs",
];

/// Every folder and file under `dir` (or the file `dir`), sorted, into `h` (names and bytes:
/// where the checkout lies does not change the build's name).
fn hash_tree(dir: &std::path::Path, h: &mut impl std::hash::Hasher) {
    if dir.is_file() {
        h.write(dir.file_name().unwrap_or_default().as_encoded_bytes());
        if let Ok(bytes) = std::fs::read(dir) {
            h.write(&bytes);
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        h.write(p.file_name().unwrap_or_default().as_encoded_bytes());
        if p.is_dir() {
            hash_tree(&p, h);
        } else if let Ok(bytes) = std::fs::read(&p) {
            h.write(&bytes);
        }
    }
}

fn main() {
    let dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut h = std::hash::DefaultHasher::new();
    for src in VERIFIER_SOURCES {
        println!("cargo:rerun-if-changed={src}");
        hash_tree(&dir.join(src), &mut h);
    }
    println!(
        "cargo:rustc-env=POPS_VERIFIER_BUILD={:016x}",
        std::hash::Hasher::finish(&h)
    );
    let map = dir.join("exports.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    // A shared object in the library directory has a soname (the Debian package installs it
    // there, and Debian's policy asks for one).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libVkLayer_pops_interlock.so");
    // Never unmapped (DF_1_NODELETE): the layer runs threads of its own (the verifier, the
    // report's writer), and an application that unloads the Vulkan loader while one of them is
    // starting — Zink does, at its exit — had that thread run code no longer mapped (SIGSEGV in
    // the thread's start-up). Mapped until the process ends, a late thread finishes harmlessly.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");

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
