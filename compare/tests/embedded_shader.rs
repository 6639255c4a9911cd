//! The shader `radv_compile` embeds, held to its committed source.

/// The vertex stage `--compile` embeds is what glslang makes of its committed source.
#[test]
fn the_embedded_vertex_stage_is_its_source_compiled() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let out = pops_testkit::scratch("fullscreen").join("fullscreen.spv");
    let st = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&out)
        .arg(format!("{dir}/shaders/fullscreen.vert"))
        .output();
    let Ok(st) = st else {
        pops_testkit::missing("glslangValidator not installed");
        return;
    };
    assert!(st.status.success(), "{st:?}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(format!("{dir}/shaders/fullscreen.vert.spv")).unwrap(),
        "regenerate compare/shaders/fullscreen.vert.spv (its source says how)"
    );
}
