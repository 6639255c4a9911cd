//! Compiles the GLSL under `shaders/` to SPIR-V in OUT_DIR with glslangValidator, one module per
//! variant, and writes `shaders.rs`: a table from variant name to its SPIR-V bytes.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Variant {
    name: String,
    source: &'static str,
    defines: Vec<(&'static str, u32)>,
}

fn variants() -> Vec<Variant> {
    let mut v = vec![
        Variant {
            name: "scene_vert".into(),
            source: "scene.vert",
            defines: vec![],
        },
        Variant {
            name: "fullscreen_vert".into(),
            source: "fullscreen.vert",
            defines: vec![],
        },
    ];
    for ordered in 0..2 {
        for sample in 0..2 {
            for per_sample in 0..2 {
                v.push(Variant {
                    name: format!("interlock_o{ordered}_s{sample}_p{per_sample}"),
                    source: "interlock.frag",
                    defines: vec![
                        ("ORDERED", ordered),
                        ("SAMPLE_INTERLOCK", sample),
                        ("PER_SAMPLE", per_sample),
                    ],
                });
            }
        }
    }
    for per_sample in 0..2 {
        v.push(Variant {
            name: format!("linkedlist_p{per_sample}"),
            source: "linkedlist.frag",
            defines: vec![("PER_SAMPLE", per_sample)],
        });
    }
    for linked in 0..2 {
        for per_sample in 0..2 {
            for ms in 0..2 {
                v.push(Variant {
                    name: format!("resolve_l{linked}_p{per_sample}_m{ms}"),
                    source: "resolve.frag",
                    defines: vec![
                        ("LINKED_LIST", linked),
                        ("PER_SAMPLE", per_sample),
                        ("MS_IMAGE", ms),
                    ],
                });
            }
        }
    }
    v.push(Variant {
        name: "race_vert".into(),
        source: "race.vert",
        defines: vec![],
    });
    // The race test: the control (no interlock), and every interlock mode; per-sample or not;
    // units in a buffer or an image.
    for (interlock, ordered, sample) in [(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1)] {
        for per_sample in 0..2 {
            for image in 0..2 {
                v.push(Variant {
                    name: format!("race_i{interlock}_o{ordered}_s{sample}_p{per_sample}_m{image}"),
                    source: "race.frag",
                    defines: vec![
                        ("INTERLOCK", interlock),
                        ("ORDERED", ordered),
                        ("SAMPLE_INTERLOCK", sample),
                        ("PER_SAMPLE", per_sample),
                        ("IMAGE", image),
                    ],
                });
            }
        }
    }
    v
}

fn main() {
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let shader_dir = manifest.join("shaders");
    println!("cargo:rerun-if-changed=shaders");
    let tool = env::var("GLSLANG_VALIDATOR").unwrap_or_else(|_| "glslangValidator".into());
    println!("cargo:rerun-if-env-changed=GLSLANG_VALIDATOR");

    let mut table = String::from("/// Every compiled shader variant: (name, SPIR-V bytes).\npub static SPIRV: &[(&str, &[u8])] = &[\n");
    for v in variants() {
        let spv = out.join(format!("{}.spv", v.name));
        compile(&tool, &shader_dir.join(v.source), &v.defines, &spv);
        writeln!(
            table,
            "    ({:?}, include_bytes!({:?})),",
            v.name,
            spv.display().to_string()
        )
        .expect("writing to a String cannot fail");
    }
    table.push_str("];\n");
    std::fs::write(out.join("shaders.rs"), table).expect("OUT_DIR is writable");
}

fn compile(tool: &str, source: &Path, defines: &[(&str, u32)], spv: &Path) {
    let mut cmd = Command::new(tool);
    cmd.arg("-V").arg("--target-env").arg("vulkan1.3");
    for (k, val) in defines {
        cmd.arg(format!("-D{k}={val}"));
    }
    cmd.arg("-o").arg(spv).arg(source);
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!(
            "pops-oit needs glslangValidator to compile its GLSL shaders ({tool}: {e}); \
             install it with scripts/install-deps.sh (Debian package glslang-tools) \
             or point GLSLANG_VALIDATOR at it"
        ),
    };
    if !output.status.success() {
        panic!(
            "glslangValidator failed on {} {:?}:\n{}{}",
            source.display(),
            defines,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
