//! The create-and-record benchmark: an application that creates an
//! interlocked pipeline and records a command buffer with it at once, as shader-object engines,
//! Zink and emulators compiling on the fly do. With verify_isa the layer verifies the pipeline's
//! code on its own thread; the draw records, which carry the verdict, wait for it in the layer's
//! outbox and `vkEndCommandBuffer` waits for them. Measured: the wall time of the creation and
//! of the recording (the wait included), and the application thread's own CPU time (what the
//! layer costs that thread, apart from waiting and
//! from the layer's thread competing for the machine's cores).

use crate::common::*;

/// Per device: wall time creating (module + pipeline) and recording (begin, bind, one draw, end:
/// what the layer adds to the recording, a wait for the verdict included, is in the latter),
/// summed over the pipelines.
#[derive(Default)]
struct Spent {
    create_ns: u128,
    record_ns: u128,
    /// The thread's CPU time over the creation and the recording.
    cpu_ns: u128,
    /// Of it, the device's first pipeline's: what a process pays once (a thread of the layer
    /// started, code run for the first time), apart from what each pipeline pays.
    first_cpu_ns: Option<u128>,
    /// Of it, the time in the kernel, and the page faults and context switches meanwhile:
    /// where CPU time that is not the thread's instructions goes.
    sys_ns: u128,
    minor_faults: i64,
    switches: i64,
    preempted: i64,
}

/// This thread's kernel time (ns), minor page faults, voluntary and involuntary context
/// switches so far (getrusage RUSAGE_THREAD; zeros where it fails).
fn thread_usage() -> (u128, i64, i64, i64) {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_THREAD).map_or((0, 0, 0, 0), |u| {
        let t = u.system_time();
        (
            t.tv_sec() as u128 * 1_000_000_000 + t.tv_usec() as u128 * 1_000,
            u.minor_page_faults(),
            u.voluntary_context_switches(),
            u.involuntary_context_switches(),
        )
    })
}

impl Spent {
    /// Adds what this thread spent since `cpu` ([`thread_cpu_ns`]) and `usage`
    /// ([`thread_usage`]) were read.
    fn add_cpu(&mut self, cpu: u128, usage: (u128, i64, i64, i64)) {
        let this = thread_cpu_ns().saturating_sub(cpu);
        self.cpu_ns += this;
        self.first_cpu_ns.get_or_insert(this);
        let now = thread_usage();
        self.sys_ns += now.0.saturating_sub(usage.0);
        self.minor_faults += now.1 - usage.1;
        self.switches += now.2 - usage.2;
        self.preempted += now.3 - usage.3;
    }
}

/// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
fn thread_cpu_ns() -> u128 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(0, |t| {
        t.tv_sec() as u128 * 1_000_000_000 + t.tv_nsec() as u128
    })
}

/// Creates a vertex and `code`'s fragment shader object on `ctx` (unlinked, both compiled, as a
/// pipeline compiles both of its stages) and at once records a command buffer drawing with them.
fn create_and_record_shader_objects(ctx: &Ctx, code: &[u8], spent: &mut Spent) -> Res<()> {
    let so = ash::ext::shader_object::Device::new(&ctx.instance, &ctx.device);
    let vci = vk::ShaderCreateInfoEXT::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .next_stage(vk::ShaderStageFlags::FRAGMENT)
        .code_type(vk::ShaderCodeTypeEXT::SPIRV)
        .code(spv("fullscreen.vert")?)
        .name(c"main")
        .set_layouts(std::slice::from_ref(&ctx.set_layout))
        .push_constant_ranges(&PUSH_CONSTANTS);
    let fci = fragment_shader_object_info(ctx, code, c"main");
    let cpu = thread_cpu_ns();
    let usage = thread_usage();
    let t = std::time::Instant::now();
    // SAFETY: valid create infos of this context's device.
    let shaders = unsafe { so.create_shaders(&[vci, fci], None) }
        .map_err(|(_, e)| format!("vkCreateShadersEXT: {e}"))?;
    spent.create_ns += t.elapsed().as_nanos();
    let d = &ctx.device;
    // SAFETY: objects of this context, created, used and destroyed in order.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        let t = std::time::Instant::now();
        begin_rendering_attachmentless(ctx, cb)?;
        bind_shader_objects(&so, cb, shaders[0], shaders[1]);
        so.cmd_set_rasterization_samples(cb, vk::SampleCountFlags::TYPE_1);
        so.cmd_set_sample_mask(cb, vk::SampleCountFlags::TYPE_1, &[u32::MAX]);
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        spent.record_ns += t.elapsed().as_nanos();
        spent.add_cpu(cpu, usage);
        d.destroy_command_pool(pool, None);
        for s in shaders {
            so.destroy_shader(s, None);
        }
    }
    Ok(())
}

/// Creates the pipeline of `code` on `ctx` and at once records a command buffer drawing with it.
fn create_and_record(
    ctx: &Ctx,
    fx: &Fixed,
    vert: vk::ShaderModule,
    code: &[u8],
    spent: &mut Spent,
) -> Res<()> {
    let cpu = thread_cpu_ns();
    let usage = thread_usage();
    let t = std::time::Instant::now();
    let frag = ctx.module(code)?;
    let p = attachmentless_pipeline(ctx, fx, vert, frag, &fx.dyn_states)?;
    spent.create_ns += t.elapsed().as_nanos();
    // SAFETY: objects of this context, created, used and destroyed in order.
    unsafe {
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        let t = std::time::Instant::now();
        begin_attachmentless(ctx, cb, p)?;
        ctx.device.cmd_draw(cb, 3, 1, 0, 0);
        ctx.device.cmd_end_rendering(cb);
        ctx.device
            .end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        spent.record_ns += t.elapsed().as_nanos();
        spent.add_cpu(cpu, usage);
        ctx.device.destroy_command_pool(pool, None);
        ctx.device.destroy_pipeline(p, None);
        ctx.device.destroy_shader_module(frag, None);
    }
    Ok(())
}

/// On two devices of one process, one whose instance enables the layer (with whatever
/// `VK_POPS_INTERLOCK_*` settings the environment gives) and one without, creates each corpus
/// shader's pipeline (POPS_SCENARIO_SHADERS, POPS_BENCH_ITERS times, alternating device and
/// order) and records a command buffer with it at once. Prints the wall times of each.
pub(crate) fn scenario_bench_create_record() -> Res<()> {
    let (with, without, _) = bench_pair(c"pops-scenario-bench-create-record")?;
    require_interlock(&with)?;
    let fx = Fixed::new(1);
    // POPS_BENCH_SHADER_OBJECTS=1: shader objects instead of pipelines.
    let objects = std::env::var("POPS_BENCH_SHADER_OBJECTS").is_ok_and(|v| v == "1");
    if objects && !(with.caps.shader_object && without.caps.shader_object) {
        return Err(format!("SKIP {}: no shader objects", with.name));
    }
    let make = |ctx: &Ctx, vert: vk::ShaderModule, code: &[u8], spent: &mut Spent| {
        if objects {
            create_and_record_shader_objects(ctx, code, spent)
        } else {
            create_and_record(ctx, &fx, vert, code, spent)
        }
    };
    let iters = env_u32("POPS_BENCH_ITERS", 5);
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    let ctxs = [&with, &without];
    let verts = [
        with.module(spv("fullscreen.vert")?)?,
        without.module(spv("fullscreen.vert")?)?,
    ];
    // One pipeline first on the device without verify_isa, not counted: what the process's
    // first compile pays once, whichever device makes it (RADV detects the CPUs then, pinning
    // the thread to each in turn, where no shader-cache thread of its own did it before — the
    // benchmark disables the cache), is then paid by neither. What the first pipeline with
    // verify_isa pays once of its own (the layer's thread started) stays in the figures.
    if let Some(first) = list.split(',').next() {
        let code = spv(first.split(':').next().unwrap_or(first))?;
        make(&without, verts[1], code, &mut Spent::default())?;
    }
    let mut spent = [Spent::default(), Spent::default()];
    let mut n = 0u32;
    for it in 0..iters {
        for (k, item) in list.split(',').enumerate() {
            let code = spv(item.split(':').next().unwrap_or(item))?;
            let order = if (it as usize + k).is_multiple_of(2) {
                [0, 1]
            } else {
                [1, 0]
            };
            for i in order {
                make(ctxs[i], verts[i], code, &mut spent[i])?;
            }
            n += 1;
        }
    }
    // SAFETY: live modules of each context.
    unsafe {
        with.device.destroy_shader_module(verts[0], None);
        without.device.destroy_shader_module(verts[1], None);
    }
    let json = |s: &Spent| {
        serde_json::json!({"create_ns": s.create_ns as u64, "record_ns": s.record_ns as u64,
            "cpu_ns": s.cpu_ns as u64, "first_cpu_ns": s.first_cpu_ns.unwrap_or(0) as u64, "sys_ns": s.sys_ns as u64, "minor_faults": s.minor_faults,
            "switches": s.switches, "preempted": s.preempted})
    };
    println!(
        "{}",
        serde_json::json!({"pipelines": n, "with": json(&spent[0]), "without": json(&spent[1])})
    );
    with.destroy();
    without.destroy();
    Ok(())
}
