//! An application with a VK_EXT_debug_utils messenger.

use crate::common::*;

/// What the scenario's debug-utils messenger received: (message id name, id number, first
/// object's handle, its name, whether the call came on the application's own (main) thread).
pub(crate) type Message = (String, i32, u64, Option<String>, bool);
pub(crate) static MESSAGES: std::sync::Mutex<Vec<Message>> = std::sync::Mutex::new(Vec::new());

pub(crate) unsafe extern "system" fn collect_message(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    // SAFETY: the callback data a messenger receives is valid for the call.
    unsafe {
        let d = &*data;
        let s = |p: *const std::ffi::c_char| {
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        let (handle, name) = if d.object_count > 0 && !d.p_objects.is_null() {
            let o = &*d.p_objects;
            (o.object_handle, s(o.p_object_name))
        } else {
            (0, None)
        };
        if let Ok(mut m) = MESSAGES.lock() {
            m.push((
                s(d.p_message_id_name).unwrap_or_default(),
                d.message_id_number,
                handle,
                name,
                std::thread::current().name() == Some("main"),
            ));
        }
    }
    vk::FALSE
}

/// An application with a VK_EXT_debug_utils messenger: an interlocked 4-sample pipeline, named
/// after creation, drawn once. Prints the pipeline and every message the messenger received,
/// and on which thread.
pub(crate) fn scenario_messenger() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-messenger")?;
    require_interlock(&ctx)?;
    if !ctx.caps.dynamic_rendering {
        return Err(format!("SKIP {}: no dynamic rendering", ctx.name));
    }
    let du = ash::ext::debug_utils::Instance::new(&ctx._entry, &ctx.instance);
    use vk::DebugUtilsMessageSeverityFlagsEXT as S;
    use vk::DebugUtilsMessageTypeFlagsEXT as T;
    // SAFETY: a valid create info; the messenger is destroyed below.
    let messenger = unsafe {
        du.create_debug_utils_messenger(
            &vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(S::INFO | S::WARNING | S::ERROR)
                .message_type(T::GENERAL | T::VALIDATION | T::PERFORMANCE)
                .pfn_user_callback(Some(collect_message)),
            None,
        )
    }
    .map_err(vkerr("vkCreateDebugUtilsMessengerEXT"))?;
    let fx = Fixed::new(4);
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let frag = ctx.module(spv(default_shader(&ctx))?)?;
    let pipeline = attachmentless_pipeline(&ctx, &fx, vert, frag, &fx.dyn_states)?;
    // POPS_SCENARIO_PAUSE_MS: an application busy elsewhere a while before its next call,
    // so that what the layer's own thread does meanwhile happens before it.
    std::thread::sleep(std::time::Duration::from_millis(u64::from(env_u32(
        "POPS_SCENARIO_PAUSE_MS",
        0,
    ))));
    let d = &ctx.device;
    // SAFETY: every object below is created, used and destroyed in order on this device.
    unsafe {
        ash::ext::debug_utils::Device::new(&ctx.instance, d)
            .set_debug_utils_object_name(
                &vk::DebugUtilsObjectNameInfoEXT::default()
                    .object_handle(pipeline)
                    .object_name(c"oit colour pass"),
            )
            .map_err(vkerr("vkSetDebugUtilsObjectNameEXT"))?;
        let pool = ctx.command_pool()?;
        let cb = ctx.command_buffer(pool, vk::CommandBufferLevel::PRIMARY)?;
        begin_attachmentless(&ctx, cb, pipeline)?;
        d.cmd_draw(cb, 3, 1, 0, 0);
        d.cmd_end_rendering(cb);
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        destroy_drawn(&ctx, pool, pipeline, (vert, frag));
        du.destroy_debug_utils_messenger(messenger, None);
    }
    let messages: Vec<_> = MESSAGES
        .lock()
        .map_err(|_| "messages lock")?
        .iter()
        .map(|(id, n, h, name, main)| serde_json::json!({"id": id, "number": n, "handle": format!("0x{h:x}"), "name": name, "application_thread": main}))
        .collect();
    println!(
        "{}",
        serde_json::json!({"pipeline": format!("0x{:x}", vk::Handle::as_raw(pipeline)), "messages": messages})
    );
    ctx.destroy();
    Ok(())
}
