//! Modules with several entry points.

use crate::common::*;

/// The vertex stage for a module: its own vertex entry point where it has one (so that the
/// pipeline's two stages name two entry points of the same module), else `fullscreen.vert`.
pub(crate) fn vertex_stage_of(
    ctx: &Ctx,
    module: &str,
    frag: vk::ShaderModule,
) -> Res<(vk::ShaderModule, &'static CStr, bool)> {
    if module == "multi_entry_linked.link" {
        return Ok((frag, c"vs_fullscreen", false));
    }
    Ok((ctx.module(spv("fullscreen.vert")?)?, c"main", true))
}

/// Graphics pipelines (and shader objects) from the multi-entry corpus modules, one per fragment
/// entry point chosen by `pName` (POPS_SCENARIO_ENTRIES, `module:entry` items). One module object
/// per corpus module serves every entry point. Each attempt prints `{"module", "entry", "way",
/// "kind", "handle"}` when created, or `{"module", "entry", "way", "error"}` with the unchanged
/// VkResult when the driver refused it; the scenario goes on either way.
pub(crate) fn scenario_entries() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-entries")?;
    require_interlock(&ctx)?;
    let samples = env_u32("POPS_SCENARIO_SAMPLES", 4);
    let fx = Fixed::new(samples);
    let list = std::env::var("POPS_SCENARIO_ENTRIES").unwrap_or_else(|_| DEFAULT_ENTRIES.into());
    let mut modules: Vec<(String, vk::ShaderModule, vk::ShaderModule, &CStr, bool)> = Vec::new();
    let so = ctx
        .caps
        .shader_object
        .then(|| ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device));
    let print = |module: &str, entry: &str, way: &str, r: Result<(&str, u64), vk::Result>| {
        print_attempt(module, entry, way, samples, r)
    };
    for item in list.split(',') {
        let (module, entry) = item
            .split_once(':')
            .ok_or_else(|| format!("bad entry item {item} (module:entry)"))?;
        let centry = std::ffi::CString::new(entry).map_err(|e| e.to_string())?;
        let code = spv(module)?;
        let (frag, vert, vname) = match modules.iter().find(|m| m.0 == module) {
            Some(m) => (m.1, m.2, m.3),
            None => {
                let frag = ctx.module(code)?;
                let (vert, vname, own) = vertex_stage_of(&ctx, module, frag)?;
                modules.push((module.to_string(), frag, vert, vname, own));
                (frag, vert, vname)
            }
        };
        let destroy = |p: vk::Pipeline| {
            // SAFETY: a pipeline of this loop, destroyed once, nothing uses it.
            unsafe { ctx.device.destroy_pipeline(p, None) };
        };
        // Creates the pipeline with this fragment stage, prints the outcome as `way`, and
        // destroys what was made.
        let attempt = |way: &str, frag_stage: vk::PipelineShaderStageCreateInfo<'_>| {
            let stages = [
                stage_info(vk::ShaderStageFlags::VERTEX, vert, vname),
                frag_stage,
            ];
            let r = one_pipeline(&ctx, &fx, &stages);
            print(
                module,
                entry,
                way,
                r.map(|p| ("pipeline", vk::Handle::as_raw(p))),
            );
            if let Ok(p) = r {
                destroy(p);
            }
        };

        attempt(
            "module",
            stage_info(vk::ShaderStageFlags::FRAGMENT, frag, &centry),
        );

        if ctx.caps.gpl {
            let w = words(code)?;
            let mut smci = vk::ShaderModuleCreateInfo::default().code(&w);
            attempt(
                "inline",
                inline_fragment_stage(&centry).push_next(&mut smci),
            );

            // A fragment-shader library linked into the final pipeline: the layer must carry the
            // library's pName into the linked pipeline's record. On a refusal no handle exists.
            match gpl_pipeline_named(&ctx, &fx, (vert, vname), (frag, &centry)) {
                Ok((fs, linked, libs)) => {
                    print(
                        module,
                        entry,
                        "gpl",
                        Ok(("library", vk::Handle::as_raw(fs))),
                    );
                    print(
                        module,
                        entry,
                        "gpl",
                        Ok(("pipeline", vk::Handle::as_raw(linked))),
                    );
                    destroy(linked);
                    libs.into_iter().for_each(destroy);
                }
                Err(e) => println!(
                    "{}",
                    serde_json::json!({"module": module, "entry": entry, "way": "gpl", "error": e})
                ),
            }
        }

        if let Some(so) = &so {
            let r = one_shader_object(&ctx, so, code, &centry);
            print(
                module,
                entry,
                "shader_object",
                r.map(|s| ("shader_object", vk::Handle::as_raw(s))),
            );
            if let Ok(s) = r {
                // SAFETY: live shader object, destroyed once.
                unsafe { so.destroy_shader(s, None) };
            }
        }
    }
    for (_, frag, vert, _, own) in modules {
        let own_vert = own.then_some(vert);
        // SAFETY: modules of this scenario, destroyed once after every pipeline.
        unsafe {
            own_vert
                .into_iter()
                .chain([frag])
                .for_each(|m| ctx.device.destroy_shader_module(m, None))
        };
    }
    ctx.destroy();
    Ok(())
}

/// The complete pipeline of `stages`, or the driver's refusal (a pipeline a driver returns with
/// an error is destroyed, never leaked).
fn one_pipeline(
    ctx: &Ctx,
    fx: &Fixed,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
) -> Result<vk::Pipeline, vk::Result> {
    match create_complete_pipeline(
        ctx,
        fx,
        stages,
        vk::PipelineCache::null(),
        vk::PipelineCreateFlags::empty(),
    ) {
        Ok(p) => Ok(p[0]),
        Err((p, e)) => {
            for p in p.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                // SAFETY: a pipeline this call created, destroyed once.
                unsafe { ctx.device.destroy_pipeline(p, None) };
            }
            Err(e)
        }
    }
}

/// The fragment shader object of `code`'s entry point `entry`, or the driver's refusal (one a
/// driver returns with an error is destroyed).
fn one_shader_object(
    ctx: &Ctx,
    so: &ash::ext::shader_object::Device,
    code: &[u8],
    entry: &CStr,
) -> Result<vk::ShaderEXT, vk::Result> {
    let ci = fragment_shader_object_info(ctx, code, entry);
    // SAFETY: valid create info.
    match unsafe { so.create_shaders(&[ci], None) } {
        Ok(s) => Ok(s[0]),
        Err((s, e)) => {
            for s in s.into_iter().filter(|s| *s != vk::ShaderEXT::null()) {
                // SAFETY: a shader object this call created, destroyed once.
                unsafe { so.destroy_shader(s, None) };
            }
            Err(e)
        }
    }
}

/// One attempt's line: `{"module", "entry", "way", "kind", "handle", "samples"}` when created,
/// `{"module", "entry", "way", "error"}` with the driver's VkResult otherwise.
fn print_attempt(
    module: &str,
    entry: &str,
    way: &str,
    samples: u32,
    r: Result<(&str, u64), vk::Result>,
) {
    let v = match r {
        Ok((kind, h)) => serde_json::json!({"module": module, "entry": entry, "way": way,
            "kind": kind, "handle": format!("0x{h:x}"), "samples": samples}),
        Err(e) => serde_json::json!({"module": module, "entry": entry, "way": way,
            "error": format!("{e:?}")}),
    };
    println!("{v}");
}
