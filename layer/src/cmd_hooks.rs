//! The command-buffer recording hooks: bindings, the dynamic states that feed the POPS
//! derivation, render pass instances, draws, and the command buffer's life. Each calls down
//! first, exactly once with the application's arguments, then updates the command buffer's
//! [`CmdState`]. Until the device has an interlocked pipeline or shader object, nothing is
//! tracked: the hooks only call down.

use crate::capture::{self, DepthAttachment};
use crate::compute::{self, Subject};
use crate::dispatch::{self, guarded, DeviceData};
use crate::draws::{BlendEquation, CmdState, Rendering};
use crate::ffi::dispatch_key;
use crate::report::Kind;
use ash::vk;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Remembers the application's name of a pipeline or shader object (the only objects records
/// name); an empty or NULL name removes it.
fn remember_name(d: &DeviceData, object: u64, name: *const std::ffi::c_char) {
    let _ = guarded(&d.health, "object name", || {
        let mut m = d.names.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: NULL or a valid NUL-terminated name, per valid usage.
        let name = (!name.is_null())
            .then(|| {
                unsafe { std::ffi::CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| !n.is_empty());
        match &name {
            Some(n) => m.insert(object, n.clone()),
            None => m.remove(&object),
        };
        drop(m);
        if let Some(b) = d.bindable(object) {
            *b.name.lock().unwrap_or_else(|p| p.into_inner()) = name;
        }
    });
}

pub(crate) unsafe extern "system" fn set_debug_utils_object_name_ext(
    device: vk::Device,
    info: *const vk::DebugUtilsObjectNameInfoEXT,
) -> vk::Result {
    crate::dispatch::ffi_boundary(
        "set_debug_utils_object_name_ext",
        vk::Result::ERROR_UNKNOWN,
        || {
            let Some(d) = device_of(device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(next) = d.next.set_debug_utils_object_name_ext else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the application's arguments, unchanged.
            let r = unsafe { next(device, info) };
            if r == vk::Result::SUCCESS && !info.is_null() {
                // SAFETY: a valid name info.
                let i = unsafe { &*info };
                if matches!(
                    i.object_type,
                    vk::ObjectType::PIPELINE
                        | vk::ObjectType::SHADER_EXT
                        | vk::ObjectType::SHADER_MODULE
                ) {
                    remember_name(&d, i.object_handle, i.p_object_name);
                }
            }
            r
        },
    )
}

pub(crate) unsafe extern "system" fn debug_marker_set_object_name_ext(
    device: vk::Device,
    info: *const vk::DebugMarkerObjectNameInfoEXT,
) -> vk::Result {
    crate::dispatch::ffi_boundary(
        "debug_marker_set_object_name_ext",
        vk::Result::ERROR_UNKNOWN,
        || {
            let Some(d) = device_of(device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(next) = d.next.debug_marker_set_object_name_ext else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the application's arguments, unchanged.
            let r = unsafe { next(device, info) };
            if r == vk::Result::SUCCESS && !info.is_null() {
                // SAFETY: a valid name info.
                let i = unsafe { &*info };
                if matches!(
                    i.object_type,
                    vk::DebugReportObjectTypeEXT::PIPELINE
                        | vk::DebugReportObjectTypeEXT::SHADER_MODULE
                ) {
                    remember_name(&d, i.object, i.p_object_name);
                }
            }
            r
        },
    )
}

/// The device a command buffer (or the device itself) belongs to.
fn device_of<T: vk::Handle + Copy>(h: T) -> Option<Arc<DeviceData>> {
    if h.as_raw() == 0 {
        return None;
    }
    // SAFETY: hooks are only reachable for objects of devices created through this layer; a
    // command buffer shares its device's dispatch key.
    dispatch::device(unsafe { dispatch_key(h) })
}

/// Runs `f` on the command buffer's state, creating it if the buffer began before tracking
/// did. Only once the device has an interlocked pipeline or shader object. Keeps the device's
/// count of armed command buffers (those with an interlocked fragment stage bound) and clears
/// the state's last-draw shortcut, since `f` may change what a draw depends on.
fn with_state(d: &DeviceData, cb: vk::CommandBuffer, what: &str, f: impl FnOnce(&mut CmdState)) {
    if !d.tracking.load(Ordering::Relaxed) {
        return;
    }
    let _ = guarded(&d.health, what, || {
        let changed = {
            let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
            let st = m.entry(vk::Handle::as_raw(cb)).or_default();
            let was = st.active().map(Arc::as_ptr);
            f(st);
            st.changed();
            let is = st.active().map(Arc::as_ptr);
            rearm(d, was.is_some(), is.is_some());
            was.is_some() && was != is
        };
        // The interlocked object drawn with changes: its timed range ends here.
        if changed {
            if let Some(t) = &d.timing {
                t.with(cb, |r, out| r.close(out));
            }
        }
    });
}

/// Before a render pass instance begins (outside it): the timing's queries for it.
fn timing_before_pass(d: &DeviceData, cb: vk::CommandBuffer, pass: crate::timing::PassBegin) {
    if let Some(t) = &d.timing {
        let _ = guarded(&d.health, "timing", || t.before_pass(cb, pass));
    }
}

/// Before a render pass instance or subpass ends (inside it): the open range ends; for a
/// subpass, `next_multiview` is the next subpass's.
fn timing_end_pass(d: &DeviceData, cb: vk::CommandBuffer, next_multiview: Option<bool>) {
    if let Some(t) = &d.timing {
        let _ = guarded(&d.health, "timing", || {
            t.with(cb, |r, out| match next_multiview {
                Some(mv) => r.next_subpass(mv, out),
                None => r.end_pass(out),
            })
        });
    }
}

/// Before an action or synchronization command: the timing's start of the command buffer.
fn timing_before_action(d: &DeviceData, cb: vk::CommandBuffer) {
    if let Some(t) = &d.timing {
        let _ = guarded(&d.health, "timing", || t.before_action(cb));
    }
}

/// Adjusts the device's armed count when a command buffer's interlocked binding comes or goes
/// (under the device's command-buffer lock); the draw hooks' targets follow it when it leaves or
/// reaches zero.
fn rearm(d: &DeviceData, was: bool, is: bool) {
    let reaches_or_leaves_zero = match (was, is) {
        (false, true) => d.armed.fetch_add(1, Ordering::Relaxed) == 0,
        (true, false) => d.armed.fetch_sub(1, Ordering::Relaxed) == 1,
        _ => false,
    };
    if reaches_or_leaves_zero {
        crate::draw_path::retarget();
    }
}

/// A command buffer's state leaves the map (ended, reset, freed).
fn forget(
    d: &DeviceData,
    m: &mut std::collections::HashMap<u64, CmdState, crate::compute::FastHash>,
    cb: u64,
) -> Option<CmdState> {
    let mut st = m.remove(&cb)?;
    st.absorb();
    rearm(d, st.active().is_some(), false);
    Some(st)
}

/// Runs `f` with the device of `cb` (lock-free when it is the process's only device).
#[inline(always)]
fn on_device<T>(cb: vk::CommandBuffer, f: impl FnOnce(&DeviceData) -> T) -> Option<T> {
    if vk::Handle::as_raw(cb) == 0 {
        return None;
    }
    // SAFETY: hooks are only reachable for command buffers of devices created through this
    // layer, which share their device's dispatch key.
    dispatch::with_device(unsafe { dispatch_key(cb) }, f)
}

/// Defines a hook on `cb` that calls down, then updates the state; with `before`, a step before
/// calling down (the timing's queries around render pass instances, which must be recorded
/// outside or inside the instance).
macro_rules! cmd_hook {
    ($hook:ident, $field:ident, ($($arg:ident : $ty:ty),*), |$d:ident, $st:ident| $body:expr) => {
        cmd_hook!($hook, $field, ($($arg : $ty),*), before |_d, _cb| (), |$d, $st| $body);
    };
    ($hook:ident, $field:ident, ($($arg:ident : $ty:ty),*), before |$bd:ident, $bc:ident| $before:expr, |$d:ident, $st:ident| $body:expr) => {
        pub(crate) unsafe extern "system" fn $hook(cb: vk::CommandBuffer, $($arg: $ty),*) {
            crate::dispatch::ffi_boundary(stringify!($hook), (), || {
                on_device(cb, |$d| {
                    let Some(next) = $d.next.$field else { return };
                    {
                        let ($bd, $bc) = ($d, cb);
                        $before;
                    }
                    // SAFETY: the application's arguments, unchanged.
                    unsafe { next(cb, $($arg),*) };
                    with_state($d, cb, stringify!($hook), |$st| $body);
                });
            })
        }
    };
}

cmd_hook!(cmd_bind_pipeline, cmd_bind_pipeline, (bp: vk::PipelineBindPoint, p: vk::Pipeline), |d, st| {
    if bp == vk::PipelineBindPoint::GRAPHICS {
        st.bind_pipeline(d.bindable(vk::Handle::as_raw(p)));
    }
});

cmd_hook!(cmd_bind_shaders_ext, cmd_bind_shaders_ext, (n: u32, stages: *const vk::ShaderStageFlags, shaders: *const vk::ShaderEXT), |d, st| {
    if n > 0 && !stages.is_null() {
        // SAFETY: pStages holds stageCount flags; pShaders is NULL or holds stageCount handles.
        let stages = unsafe { std::slice::from_raw_parts(stages, n as usize) };
        for (i, s) in stages.iter().enumerate() {
            if s.contains(vk::ShaderStageFlags::FRAGMENT) {
                let h = if shaders.is_null() {
                    0
                } else {
                    // SAFETY: as above.
                    vk::Handle::as_raw(unsafe { *shaders.add(i) })
                };
                st.bind_fragment_shader(d.bindable(h));
            }
        }
    }
});

cmd_hook!(cmd_set_rasterization_samples_ext, cmd_set_rasterization_samples_ext, (s: vk::SampleCountFlags), |_d, st| {
    st.dynamic.samples = Some(s.as_raw().max(1));
});
cmd_hook!(cmd_set_depth_test_enable, cmd_set_depth_test_enable, (v: vk::Bool32), |_d, st| st.dynamic.depth_test = Some(v == vk::TRUE));
cmd_hook!(cmd_set_depth_test_enable_ext, cmd_set_depth_test_enable_ext, (v: vk::Bool32), |_d, st| st.dynamic.depth_test = Some(v == vk::TRUE));
cmd_hook!(cmd_set_depth_write_enable, cmd_set_depth_write_enable, (v: vk::Bool32), |_d, st| st.dynamic.depth_write = Some(v == vk::TRUE));
cmd_hook!(cmd_set_depth_write_enable_ext, cmd_set_depth_write_enable_ext, (v: vk::Bool32), |_d, st| st.dynamic.depth_write = Some(v == vk::TRUE));
cmd_hook!(cmd_set_depth_compare_op, cmd_set_depth_compare_op, (v: vk::CompareOp), |_d, st| st.dynamic.depth_compare = Some(v.as_raw()));
cmd_hook!(cmd_set_depth_compare_op_ext, cmd_set_depth_compare_op_ext, (v: vk::CompareOp), |_d, st| st.dynamic.depth_compare = Some(v.as_raw()));
cmd_hook!(cmd_set_stencil_test_enable, cmd_set_stencil_test_enable, (v: vk::Bool32), |_d, st| st.dynamic.stencil_test = Some(v == vk::TRUE));
cmd_hook!(cmd_set_stencil_test_enable_ext, cmd_set_stencil_test_enable_ext, (v: vk::Bool32), |_d, st| st.dynamic.stencil_test = Some(v == vk::TRUE));

/// vkCmdSetStencilOp: the faces' fail, pass, depth-fail and compare ops.
fn set_stencil_op(
    st: &mut CmdState,
    faces: vk::StencilFaceFlags,
    fail: vk::StencilOp,
    pass: vk::StencilOp,
    depth_fail: vk::StencilOp,
    compare: vk::CompareOp,
) {
    let ops = [
        fail.as_raw(),
        pass.as_raw(),
        depth_fail.as_raw(),
        compare.as_raw(),
    ];
    if faces.contains(vk::StencilFaceFlags::FRONT) {
        st.dynamic.stencil_ops[0] = Some(ops);
    }
    if faces.contains(vk::StencilFaceFlags::BACK) {
        st.dynamic.stencil_ops[1] = Some(ops);
    }
}

cmd_hook!(cmd_set_stencil_op, cmd_set_stencil_op, (f: vk::StencilFaceFlags, a: vk::StencilOp, b: vk::StencilOp, c: vk::StencilOp, o: vk::CompareOp), |_d, st| set_stencil_op(st, f, a, b, c, o));
cmd_hook!(cmd_set_stencil_op_ext, cmd_set_stencil_op_ext, (f: vk::StencilFaceFlags, a: vk::StencilOp, b: vk::StencilOp, c: vk::StencilOp, o: vk::CompareOp), |_d, st| set_stencil_op(st, f, a, b, c, o));
cmd_hook!(cmd_set_rasterizer_discard_enable, cmd_set_rasterizer_discard_enable, (v: vk::Bool32), |_d, st| st.dynamic.rasterizer_discard = Some(v == vk::TRUE));
cmd_hook!(cmd_set_rasterizer_discard_enable_ext, cmd_set_rasterizer_discard_enable_ext, (v: vk::Bool32), |_d, st| st.dynamic.rasterizer_discard = Some(v == vk::TRUE));

cmd_hook!(cmd_set_color_blend_enable_ext, cmd_set_color_blend_enable_ext, (first: u32, n: u32, p: *const vk::Bool32), |_d, st| {
    if !p.is_null() {
        // SAFETY: pColorBlendEnables holds attachmentCount values.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic.set_blend_enable(first, v.iter().map(|b| *b == vk::TRUE));
    }
});
cmd_hook!(cmd_set_color_blend_equation_ext, cmd_set_color_blend_equation_ext, (first: u32, n: u32, p: *const vk::ColorBlendEquationEXT), |_d, st| {
    if !p.is_null() {
        // SAFETY: pColorBlendEquations holds attachmentCount structures.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic.set_blend_equation(first, v.iter().map(|e| BlendEquation {
            src_color: e.src_color_blend_factor.as_raw(),
            dst_color: e.dst_color_blend_factor.as_raw(),
            color_op: e.color_blend_op.as_raw(),
            src_alpha: e.src_alpha_blend_factor.as_raw(),
            dst_alpha: e.dst_alpha_blend_factor.as_raw(),
            alpha_op: e.alpha_blend_op.as_raw(),
        }));
    }
});
cmd_hook!(cmd_set_color_write_mask_ext, cmd_set_color_write_mask_ext, (first: u32, n: u32, p: *const vk::ColorComponentFlags), |_d, st| {
    if !p.is_null() {
        // SAFETY: pColorWriteMasks holds attachmentCount masks.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic.set_write_mask(first, v.iter().map(|m| m.as_raw()));
    }
});
cmd_hook!(cmd_set_fragment_shading_rate_khr, cmd_set_fragment_shading_rate_khr, (size: *const vk::Extent2D, ops: *const [vk::FragmentShadingRateCombinerOpKHR; 2]), |_d, st| {
    if !size.is_null() && !ops.is_null() {
        // SAFETY: pFragmentSize points to an extent; combinerOps to two ops.
        let (size, ops) = unsafe { (*size, *ops) };
        st.dynamic.vrs = Some(
            size.width > 1
                || size.height > 1
                || ops.iter().any(|o| *o != vk::FragmentShadingRateCombinerOpKHR::KEEP),
        );
    }
});

/// What dynamic rendering renders to: the depth/stencil attachment's samples and stencil aspect
/// from its image view.
///
/// # Safety
/// `info` must be a valid `VkRenderingInfo`.
unsafe fn rendering_of(d: &DeviceData, info: *const vk::RenderingInfo) -> Option<Rendering> {
    if info.is_null() {
        return None;
    }
    // SAFETY: a valid rendering info per the caller.
    let info = unsafe { &*info };
    let view_of = |a: *const vk::RenderingAttachmentInfo| {
        // SAFETY: NULL or a valid attachment info.
        (!a.is_null())
            .then(|| unsafe { (*a).image_view })
            .filter(|v| *v != vk::ImageView::null())
            .and_then(|v| d.view(vk::Handle::as_raw(v)))
    };
    let depth = view_of(info.p_depth_attachment).or_else(|| view_of(info.p_stencil_attachment));
    // SAFETY: pColorAttachments holds colorAttachmentCount attachment infos.
    let colors = unsafe { capture::slice(info.p_color_attachments, info.color_attachment_count) };
    let colors = capture::ColorFormats::from_formats(colors.iter().map(|a| {
        if a.image_view == vk::ImageView::null() {
            vk::Format::UNDEFINED
        } else {
            // A view the layer did not see created: a written target of unknown format.
            d.view(vk::Handle::as_raw(a.image_view))
                .map_or(vk::Format::R8G8B8A8_UNORM, |(format, _)| format)
        }
    }));
    Some(Rendering {
        colors,
        depth: depth.map_or(DepthAttachment::default(), |(format, samples)| {
            DepthAttachment {
                samples,
                has_stencil: capture::format_has_stencil(format),
            }
        }),
        color_count: info.color_attachment_count,
    })
}

/// How a dynamic rendering instance begins: multiview (a timestamp there writes one query per
/// view), resuming or suspending.
///
/// # Safety
/// `info` must be NULL or a valid `VkRenderingInfo`.
unsafe fn rendering_pass(info: *const vk::RenderingInfo) -> crate::timing::PassBegin {
    if info.is_null() {
        return Default::default();
    }
    // SAFETY: per the caller.
    let i = unsafe { &*info };
    crate::timing::PassBegin {
        multiview: i.view_mask != 0,
        resuming: i.flags.contains(vk::RenderingFlags::RESUMING),
        suspending: i.flags.contains(vk::RenderingFlags::SUSPENDING),
    }
}

cmd_hook!(cmd_begin_rendering, cmd_begin_rendering, (info: *const vk::RenderingInfo),
    // SAFETY: the application's valid rendering info.
    before |d, cb| timing_before_pass(d, cb, unsafe { rendering_pass(info) }),
    |d, st| {
    // SAFETY: the application's valid rendering info.
    st.rendering = unsafe { rendering_of(d, info) };
});
cmd_hook!(cmd_begin_rendering_khr, cmd_begin_rendering_khr, (info: *const vk::RenderingInfo),
    // SAFETY: as above.
    before |d, cb| timing_before_pass(d, cb, unsafe { rendering_pass(info) }),
    |d, st| {
    // SAFETY: as above.
    st.rendering = unsafe { rendering_of(d, info) };
});
cmd_hook!(
    cmd_end_rendering,
    cmd_end_rendering,
    (),
    before | d,
    cb | timing_end_pass(d, cb, None),
    |_d, st| st.rendering = None
);
cmd_hook!(
    cmd_end_rendering_khr,
    cmd_end_rendering_khr,
    (),
    before | d,
    cb | timing_end_pass(d, cb, None),
    |_d, st| st.rendering = None
);

/// A render pass instance's subpass as [`Rendering`].
fn subpass_rendering(d: &DeviceData, rp: u64, subpass: u32) -> Option<Rendering> {
    let passes = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
    passes
        .get(&rp)
        .and_then(|s| s.get(subpass as usize))
        .map(|u| Rendering {
            depth: u.depth,
            color_count: u.color_count,
            colors: u.colors,
        })
}

/// # Safety
/// `begin` must be NULL or a valid `VkRenderPassBeginInfo`.
unsafe fn begin_pass(d: &DeviceData, st: &mut CmdState, begin: *const vk::RenderPassBeginInfo) {
    if begin.is_null() {
        return;
    }
    // SAFETY: per the caller.
    let rp = vk::Handle::as_raw(unsafe { (*begin).render_pass });
    st.render_pass = Some((rp, 0));
    st.rendering = subpass_rendering(d, rp, 0);
}

fn next_subpass(d: &DeviceData, st: &mut CmdState) {
    if let Some((rp, s)) = st.render_pass {
        st.render_pass = Some((rp, s + 1));
        st.rendering = subpass_rendering(d, rp, s + 1);
    }
}

fn end_pass(st: &mut CmdState) {
    st.render_pass = None;
    st.rendering = None;
}

/// Whether a render pass's subpass is multiview.
fn subpass_multiview(d: &DeviceData, rp: u64, subpass: u32) -> bool {
    let passes = d.render_passes.lock().unwrap_or_else(|p| p.into_inner());
    passes
        .get(&rp)
        .and_then(|s| s.get(subpass as usize))
        .is_some_and(|u| u.multiview)
}

/// How the render pass instance `begin` starts: multiview in its first subpass or not.
///
/// # Safety
/// `begin` must be NULL or a valid `VkRenderPassBeginInfo`.
unsafe fn pass_begin(
    d: &DeviceData,
    begin: *const vk::RenderPassBeginInfo,
) -> crate::timing::PassBegin {
    crate::timing::PassBegin {
        // SAFETY: per the caller.
        multiview: !begin.is_null()
            && subpass_multiview(d, vk::Handle::as_raw(unsafe { (*begin).render_pass }), 0),
        ..Default::default()
    }
}

/// The multiview of the subpass vkCmdNextSubpass moves to.
fn next_subpass_multiview(d: &DeviceData, cb: vk::CommandBuffer) -> bool {
    let pass = d
        .cmds
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&vk::Handle::as_raw(cb))
        .and_then(|st| st.render_pass);
    pass.is_some_and(|(rp, s)| subpass_multiview(d, rp, s + 1))
}

cmd_hook!(cmd_begin_render_pass, cmd_begin_render_pass, (b: *const vk::RenderPassBeginInfo, c: vk::SubpassContents),
    // SAFETY: the application's valid begin info.
    before |d, cb| timing_before_pass(d, cb, unsafe { pass_begin(d, b) }),
    |d, st| {
    // SAFETY: the application's valid begin info.
    unsafe { begin_pass(d, st, b) }
});
cmd_hook!(cmd_begin_render_pass2, cmd_begin_render_pass2, (b: *const vk::RenderPassBeginInfo, s: *const vk::SubpassBeginInfo),
    // SAFETY: as above.
    before |d, cb| timing_before_pass(d, cb, unsafe { pass_begin(d, b) }),
    |d, st| {
    // SAFETY: as above.
    unsafe { begin_pass(d, st, b) }
});
cmd_hook!(cmd_begin_render_pass2_khr, cmd_begin_render_pass2_khr, (b: *const vk::RenderPassBeginInfo, s: *const vk::SubpassBeginInfo),
    // SAFETY: as above.
    before |d, cb| timing_before_pass(d, cb, unsafe { pass_begin(d, b) }),
    |d, st| {
    // SAFETY: as above.
    unsafe { begin_pass(d, st, b) }
});
cmd_hook!(cmd_next_subpass, cmd_next_subpass, (c: vk::SubpassContents), before |d, cb| timing_end_pass(d, cb, Some(next_subpass_multiview(d, cb))), |d, st| next_subpass(d, st));
cmd_hook!(cmd_next_subpass2, cmd_next_subpass2, (b: *const vk::SubpassBeginInfo, e: *const vk::SubpassEndInfo), before |d, cb| timing_end_pass(d, cb, Some(next_subpass_multiview(d, cb))), |d, st| next_subpass(d, st));
cmd_hook!(cmd_next_subpass2_khr, cmd_next_subpass2_khr, (b: *const vk::SubpassBeginInfo, e: *const vk::SubpassEndInfo), before |d, cb| timing_end_pass(d, cb, Some(next_subpass_multiview(d, cb))), |d, st| next_subpass(d, st));
cmd_hook!(
    cmd_end_render_pass,
    cmd_end_render_pass,
    (),
    before | d,
    cb | timing_end_pass(d, cb, None),
    |_d, st| end_pass(st)
);
cmd_hook!(cmd_end_render_pass2, cmd_end_render_pass2, (e: *const vk::SubpassEndInfo), before |d, cb| timing_end_pass(d, cb, None), |_d, st| end_pass(st));
cmd_hook!(cmd_end_render_pass2_khr, cmd_end_render_pass2_khr, (e: *const vk::SubpassEndInfo), before |d, cb| timing_end_pass(d, cb, None), |_d, st| end_pass(st));

pub(crate) unsafe extern "system" fn allocate_command_buffers(
    device: vk::Device,
    info: *const vk::CommandBufferAllocateInfo,
    out: *mut vk::CommandBuffer,
) -> vk::Result {
    crate::dispatch::ffi_boundary(
        "allocate_command_buffers",
        vk::Result::ERROR_UNKNOWN,
        || {
            let Some(d) = device_of(device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(next) = d.next.allocate_command_buffers else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the application's arguments, unchanged.
            let r = unsafe { next(device, info, out) };
            if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
                let _ = guarded(&d.health, "vkAllocateCommandBuffers", || {
                    // SAFETY: success: `out` holds commandBufferCount new command buffers.
                    let (level, cbs) = unsafe {
                        let i = &*info;
                        (
                            i.level,
                            std::slice::from_raw_parts(out, i.command_buffer_count as usize),
                        )
                    };
                    if level == vk::CommandBufferLevel::SECONDARY {
                        let mut s = d.secondaries.lock().unwrap_or_else(|p| p.into_inner());
                        s.extend(cbs.iter().map(|c| vk::Handle::as_raw(*c)));
                    } else if let Some(t) = &d.timing {
                        // SAFETY: a valid allocate info.
                        let pool = vk::Handle::as_raw(unsafe { (*info).command_pool });
                        let raw: Vec<u64> = cbs.iter().map(|c| vk::Handle::as_raw(*c)).collect();
                        t.allocated(pool, &raw);
                    }
                });
            }
            r
        },
    )
}

pub(crate) unsafe extern "system" fn free_command_buffers(
    device: vk::Device,
    pool: vk::CommandPool,
    n: u32,
    cbs: *const vk::CommandBuffer,
) {
    crate::dispatch::ffi_boundary("free_command_buffers", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        if n > 0 && !cbs.is_null() {
            let _ = guarded(&d.health, "vkFreeCommandBuffers", || {
                // SAFETY: pCommandBuffers holds commandBufferCount handles (NULL ones allowed).
                let cbs = unsafe { std::slice::from_raw_parts(cbs, n as usize) };
                let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
                let mut s = d.secondaries.lock().unwrap_or_else(|p| p.into_inner());
                for c in cbs {
                    forget(&d, &mut m, vk::Handle::as_raw(*c));
                    s.remove(&vk::Handle::as_raw(*c));
                    if let Some(t) = &d.timing {
                        t.forget(vk::Handle::as_raw(*c), true);
                    }
                }
            });
        }
        if let Some(next) = d.next.free_command_buffers {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, pool, n, cbs) };
        }
    })
}

pub(crate) unsafe extern "system" fn begin_command_buffer(
    cb: vk::CommandBuffer,
    info: *const vk::CommandBufferBeginInfo,
) -> vk::Result {
    crate::dispatch::ffi_boundary("begin_command_buffer", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(cb) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.begin_command_buffer else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(cb, info) };
        if let (vk::Result::SUCCESS, Some(t)) = (r, &d.timing) {
            let _ = guarded(&d.health, "timing", || t.begin(cb));
        }
        if r == vk::Result::SUCCESS && d.tracking.load(Ordering::Relaxed) {
            let _ = guarded(&d.health, "vkBeginCommandBuffer", || {
                let secondary = d
                    .secondaries
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains(&vk::Handle::as_raw(cb));
                // pInheritanceInfo is read only for secondary command buffers, and its render pass
                // only with RENDER_PASS_CONTINUE (the specification ignores it otherwise).
                // SAFETY: a valid begin info; for a secondary, a valid inheritance info.
                let inherited = unsafe { inherited_rendering(&d, info, secondary) };
                let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
                forget(&d, &mut m, vk::Handle::as_raw(cb));
                m.insert(vk::Handle::as_raw(cb), CmdState::begin(inherited));
            });
        }
        r
    })
}

/// The render pass instance a secondary command buffer continues.
///
/// # Safety
/// `info` must be a valid `VkCommandBufferBeginInfo`; `secondary` whether the buffer is one.
unsafe fn inherited_rendering(
    d: &DeviceData,
    info: *const vk::CommandBufferBeginInfo,
    secondary: bool,
) -> Option<Rendering> {
    if !secondary || info.is_null() {
        return None;
    }
    // SAFETY: per the caller.
    let info = unsafe { &*info };
    if !info
        .flags
        .contains(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
        || info.p_inheritance_info.is_null()
    {
        return None;
    }
    // SAFETY: a secondary's inheritance info is valid.
    let inh = unsafe { &*info.p_inheritance_info };
    if inh.render_pass != vk::RenderPass::null() {
        return subpass_rendering(d, vk::Handle::as_raw(inh.render_pass), inh.subpass);
    }
    // SAFETY: the chain of a valid structure.
    let r = unsafe {
        crate::ffi::find_in_chain(
            inh.p_next,
            vk::StructureType::COMMAND_BUFFER_INHERITANCE_RENDERING_INFO,
        )
    } as *const vk::CommandBufferInheritanceRenderingInfo;
    if r.is_null() {
        return None;
    }
    // SAFETY: sType identifies the structure.
    let r = unsafe { &*r };
    let ds = r.depth_attachment_format != vk::Format::UNDEFINED
        || r.stencil_attachment_format != vk::Format::UNDEFINED;
    Some(Rendering {
        depth: DepthAttachment {
            samples: if ds {
                r.rasterization_samples.as_raw().max(1)
            } else {
                0
            },
            has_stencil: capture::format_has_stencil(r.stencil_attachment_format)
                || capture::format_has_stencil(r.depth_attachment_format),
        },
        color_count: r.color_attachment_count,
        // SAFETY: pColorAttachmentFormats holds colorAttachmentCount formats.
        colors: capture::ColorFormats::from_formats(
            unsafe { capture::slice(r.p_color_attachment_formats, r.color_attachment_count) }
                .iter()
                .copied(),
        ),
    })
}

pub(crate) unsafe extern "system" fn end_command_buffer(cb: vk::CommandBuffer) -> vk::Result {
    crate::dispatch::ffi_boundary("end_command_buffer", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(cb) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.end_command_buffer else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        if let Some(t) = &d.timing {
            // The buffer's last timestamp, before it ends.
            let _ = guarded(&d.health, "timing", || t.end(cb));
        }
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(cb) };
        if d.tracking.load(Ordering::Relaxed) {
            let _ = guarded(&d.health, "vkEndCommandBuffer", || {
                let groups = {
                    let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
                    forget(&d, &mut m, vk::Handle::as_raw(cb))
                        .map(|s| s.groups)
                        .unwrap_or_default()
                };
                // Records are built outside the lock.
                for g in groups {
                    report_draws(&d, vk::Handle::as_raw(cb), &g);
                }
            });
        }
        r
    })
}

/// One `draw` record: the draws of one command buffer with one bound object and draw state.
fn report_draws(d: &DeviceData, cb: u64, g: &crate::draws::DrawGroup) {
    let b = &g.bound;
    let subject = Subject {
        stage_hash: b.fragment.hash.as_deref(),
        app: &d.app,
        device: &d.device_name,
        kind: Kind::Draw,
        handle: b.handle,
        source: b.fragment.source,
        chip: d.chip,
        features: d.features,
    };
    let entry = compute::fragment_entry(&b.fragment.analysis, &b.fragment.entry);
    let mut rec = compute::build_record(&subject, &b.fragment.entry, entry, &g.draw);
    rec.command_buffer = Some(format!("0x{cb:x}"));
    rec.bound = Some(
        match b.kind {
            Kind::ShaderObject => "shader_object",
            _ => "pipeline",
        }
        .to_string(),
    );
    rec.draws = Some(g.count);
    rec.module_name = b.fragment.module_name.clone();
    rec.experiment = b.fragment.experiment.clone();
    rec.name = b.name();
    d.stats.draws.fetch_add(g.count, Ordering::Relaxed);
    d.stats.draw_records.fetch_add(1, Ordering::Relaxed);
    crate::records::write_report(d, &rec);
    crate::records::tell_messengers(d, b.handle, &rec);
}

pub(crate) unsafe extern "system" fn reset_command_buffer(
    cb: vk::CommandBuffer,
    flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    crate::dispatch::ffi_boundary("reset_command_buffer", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(cb) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.reset_command_buffer else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(cb, flags) };
        let _ = guarded(&d.health, "vkResetCommandBuffer", || {
            let mut m = d.cmds.lock().unwrap_or_else(|p| p.into_inner());
            forget(&d, &mut m, vk::Handle::as_raw(cb));
            if let Some(t) = &d.timing {
                t.forget(vk::Handle::as_raw(cb), false);
            }
        });
        r
    })
}

pub(crate) unsafe extern "system" fn create_image(
    device: vk::Device,
    info: *const vk::ImageCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::Image,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_image", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_image else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(device, info, alloc, out) };
        if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
            let _ = guarded(&d.health, "vkCreateImage", || {
                // SAFETY: success: a valid create info and the new image.
                let (i, img) = unsafe { (&*info, *out) };
                if i.usage.intersects(
                    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                        | vk::ImageUsageFlags::COLOR_ATTACHMENT,
                ) {
                    let mut m = d.images.lock().unwrap_or_else(|p| p.into_inner());
                    m.insert(
                        vk::Handle::as_raw(img),
                        (i.format, i.samples.as_raw().max(1)),
                    );
                }
            });
        }
        r
    })
}

pub(crate) unsafe extern "system" fn destroy_image(
    device: vk::Device,
    image: vk::Image,
    alloc: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_image", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        {
            let mut m = d.images.lock().unwrap_or_else(|p| p.into_inner());
            m.remove(&vk::Handle::as_raw(image));
        }
        if let Some(next) = d.next.destroy_image {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, image, alloc) };
        }
    })
}

pub(crate) unsafe extern "system" fn create_image_view(
    device: vk::Device,
    info: *const vk::ImageViewCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::ImageView,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_image_view", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_image_view else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(device, info, alloc, out) };
        if r == vk::Result::SUCCESS && !info.is_null() && !out.is_null() {
            let _ = guarded(&d.health, "vkCreateImageView", || {
                // SAFETY: success: a valid create info and the new view.
                let (i, view) = unsafe { (&*info, *out) };
                let image = d
                    .images
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&vk::Handle::as_raw(i.image))
                    .copied();
                // An image the layer did not see created (a swapchain image) has one sample.
                let samples = image.map_or(1, |(_, samples)| samples);
                let mut m = d.views.lock().unwrap_or_else(|p| p.into_inner());
                m.insert(vk::Handle::as_raw(view), (i.format, samples));
            });
        }
        r
    })
}

pub(crate) unsafe extern "system" fn destroy_image_view(
    device: vk::Device,
    view: vk::ImageView,
    alloc: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_image_view", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        {
            let mut m = d.views.lock().unwrap_or_else(|p| p.into_inner());
            m.remove(&vk::Handle::as_raw(view));
        }
        if let Some(next) = d.next.destroy_image_view {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, view, alloc) };
        }
    })
}

pub(crate) unsafe extern "system" fn create_command_pool(
    device: vk::Device,
    info: *const vk::CommandPoolCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::CommandPool,
) -> vk::Result {
    crate::dispatch::ffi_boundary("create_command_pool", vk::Result::ERROR_UNKNOWN, || {
        let Some(d) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let Some(next) = d.next.create_command_pool else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: the application's arguments, unchanged.
        let r = unsafe { next(device, info, alloc, out) };
        if let (vk::Result::SUCCESS, Some(t)) = (r, &d.timing) {
            if !info.is_null() && !out.is_null() {
                let _ = guarded(&d.health, "vkCreateCommandPool", || {
                    // SAFETY: success: a valid create info and the new pool.
                    let (i, pool) = unsafe { (&*info, *out) };
                    // Queries may not be used in protected command buffers.
                    if !i.flags.contains(vk::CommandPoolCreateFlags::PROTECTED) {
                        t.pool_created(vk::Handle::as_raw(pool), i.queue_family_index);
                    }
                });
            }
        }
        r
    })
}

pub(crate) unsafe extern "system" fn destroy_command_pool(
    device: vk::Device,
    pool: vk::CommandPool,
    alloc: *const vk::AllocationCallbacks,
) {
    crate::dispatch::ffi_boundary("destroy_command_pool", (), || {
        let Some(d) = device_of(device) else {
            return;
        };
        if let Some(t) = &d.timing {
            let _ = guarded(&d.health, "vkDestroyCommandPool", || {
                t.pool_destroyed(vk::Handle::as_raw(pool))
            });
        }
        if let Some(next) = d.next.destroy_command_pool {
            // SAFETY: the application's arguments, unchanged.
            unsafe { next(device, pool, alloc) };
        }
    })
}

/// Defines a hook that gives the timing its command buffer's start before an action or
/// synchronization command (crate::timing::Recording::start); handed out only with the `timing`
/// setting.
macro_rules! action_hook {
    ($hook:ident, $field:ident, ($($arg:ident : $ty:ty),*)) => {
        pub(crate) unsafe extern "system" fn $hook(cb: vk::CommandBuffer, $($arg: $ty),*) {
            crate::dispatch::ffi_boundary(stringify!($hook), (), || {
                on_device(cb, |d| {
                    let Some(next) = d.next.$field else { return };
                    timing_before_action(d, cb);
                    // SAFETY: the application's arguments, unchanged.
                    unsafe { next(cb, $($arg),*) };
                });
            })
        }
    };
}

action_hook!(cmd_pipeline_barrier, cmd_pipeline_barrier, (a: vk::PipelineStageFlags, b: vk::PipelineStageFlags, c: vk::DependencyFlags, d1: u32, e: *const vk::MemoryBarrier, f: u32, g: *const vk::BufferMemoryBarrier, h: u32, i: *const vk::ImageMemoryBarrier));
action_hook!(cmd_pipeline_barrier2, cmd_pipeline_barrier2, (a: *const vk::DependencyInfo));
action_hook!(cmd_pipeline_barrier2_khr, cmd_pipeline_barrier2_khr, (a: *const vk::DependencyInfo));
action_hook!(cmd_wait_events, cmd_wait_events, (n: u32, p: *const vk::Event, a: vk::PipelineStageFlags, b: vk::PipelineStageFlags, c: u32, e: *const vk::MemoryBarrier, f: u32, g: *const vk::BufferMemoryBarrier, h: u32, i: *const vk::ImageMemoryBarrier));
action_hook!(cmd_wait_events2, cmd_wait_events2, (n: u32, p: *const vk::Event, a: *const vk::DependencyInfo));
action_hook!(cmd_wait_events2_khr, cmd_wait_events2_khr, (n: u32, p: *const vk::Event, a: *const vk::DependencyInfo));
action_hook!(cmd_set_event, cmd_set_event, (e: vk::Event, a: vk::PipelineStageFlags));
action_hook!(cmd_set_event2, cmd_set_event2, (e: vk::Event, a: *const vk::DependencyInfo));
action_hook!(cmd_set_event2_khr, cmd_set_event2_khr, (e: vk::Event, a: *const vk::DependencyInfo));
action_hook!(cmd_reset_event, cmd_reset_event, (e: vk::Event, a: vk::PipelineStageFlags));
action_hook!(cmd_reset_event2, cmd_reset_event2, (e: vk::Event, a: vk::PipelineStageFlags2));
action_hook!(cmd_reset_event2_khr, cmd_reset_event2_khr, (e: vk::Event, a: vk::PipelineStageFlags2));
action_hook!(cmd_copy_buffer, cmd_copy_buffer, (s: vk::Buffer, t: vk::Buffer, n: u32, r: *const vk::BufferCopy));
action_hook!(cmd_copy_image, cmd_copy_image, (s: vk::Image, sl: vk::ImageLayout, t: vk::Image, tl: vk::ImageLayout, n: u32, r: *const vk::ImageCopy));
action_hook!(cmd_copy_buffer_to_image, cmd_copy_buffer_to_image, (s: vk::Buffer, t: vk::Image, tl: vk::ImageLayout, n: u32, r: *const vk::BufferImageCopy));
action_hook!(cmd_copy_image_to_buffer, cmd_copy_image_to_buffer, (s: vk::Image, sl: vk::ImageLayout, t: vk::Buffer, n: u32, r: *const vk::BufferImageCopy));
action_hook!(cmd_copy_buffer2, cmd_copy_buffer2, (i: *const vk::CopyBufferInfo2));
action_hook!(cmd_copy_buffer2_khr, cmd_copy_buffer2_khr, (i: *const vk::CopyBufferInfo2));
action_hook!(cmd_copy_image2, cmd_copy_image2, (i: *const vk::CopyImageInfo2));
action_hook!(cmd_copy_image2_khr, cmd_copy_image2_khr, (i: *const vk::CopyImageInfo2));
action_hook!(cmd_copy_buffer_to_image2, cmd_copy_buffer_to_image2, (i: *const vk::CopyBufferToImageInfo2));
action_hook!(cmd_copy_buffer_to_image2_khr, cmd_copy_buffer_to_image2_khr, (i: *const vk::CopyBufferToImageInfo2));
action_hook!(cmd_copy_image_to_buffer2, cmd_copy_image_to_buffer2, (i: *const vk::CopyImageToBufferInfo2));
action_hook!(cmd_copy_image_to_buffer2_khr, cmd_copy_image_to_buffer2_khr, (i: *const vk::CopyImageToBufferInfo2));
action_hook!(cmd_blit_image, cmd_blit_image, (s: vk::Image, sl: vk::ImageLayout, t: vk::Image, tl: vk::ImageLayout, n: u32, r: *const vk::ImageBlit, f: vk::Filter));
action_hook!(cmd_blit_image2, cmd_blit_image2, (i: *const vk::BlitImageInfo2));
action_hook!(cmd_blit_image2_khr, cmd_blit_image2_khr, (i: *const vk::BlitImageInfo2));
action_hook!(cmd_resolve_image, cmd_resolve_image, (s: vk::Image, sl: vk::ImageLayout, t: vk::Image, tl: vk::ImageLayout, n: u32, r: *const vk::ImageResolve));
action_hook!(cmd_resolve_image2, cmd_resolve_image2, (i: *const vk::ResolveImageInfo2));
action_hook!(cmd_resolve_image2_khr, cmd_resolve_image2_khr, (i: *const vk::ResolveImageInfo2));
action_hook!(cmd_fill_buffer, cmd_fill_buffer, (b: vk::Buffer, o: vk::DeviceSize, z: vk::DeviceSize, v: u32));
action_hook!(cmd_update_buffer, cmd_update_buffer, (b: vk::Buffer, o: vk::DeviceSize, z: vk::DeviceSize, p: *const std::ffi::c_void));
action_hook!(cmd_clear_color_image, cmd_clear_color_image, (i: vk::Image, l: vk::ImageLayout, c: *const vk::ClearColorValue, n: u32, r: *const vk::ImageSubresourceRange));
action_hook!(cmd_clear_depth_stencil_image, cmd_clear_depth_stencil_image, (i: vk::Image, l: vk::ImageLayout, c: *const vk::ClearDepthStencilValue, n: u32, r: *const vk::ImageSubresourceRange));
action_hook!(cmd_dispatch, cmd_dispatch, (x: u32, y: u32, z: u32));
action_hook!(cmd_dispatch_indirect, cmd_dispatch_indirect, (b: vk::Buffer, o: vk::DeviceSize));
action_hook!(cmd_dispatch_base, cmd_dispatch_base, (a: u32, b: u32, c: u32, x: u32, y: u32, z: u32));
action_hook!(cmd_execute_commands, cmd_execute_commands, (n: u32, p: *const vk::CommandBuffer));
action_hook!(cmd_reset_query_pool, cmd_reset_query_pool, (p: vk::QueryPool, f: u32, n: u32));
action_hook!(cmd_begin_query, cmd_begin_query, (p: vk::QueryPool, q: u32, f: vk::QueryControlFlags));
action_hook!(cmd_write_timestamp, cmd_write_timestamp, (s: vk::PipelineStageFlags, p: vk::QueryPool, q: u32));
action_hook!(cmd_write_timestamp2, cmd_write_timestamp2, (s: vk::PipelineStageFlags2, p: vk::QueryPool, q: u32));
action_hook!(cmd_write_timestamp2_khr, cmd_write_timestamp2_khr, (s: vk::PipelineStageFlags2, p: vk::QueryPool, q: u32));
action_hook!(cmd_copy_query_pool_results, cmd_copy_query_pool_results, (p: vk::QueryPool, f: u32, n: u32, b: vk::Buffer, o: vk::DeviceSize, s: vk::DeviceSize, g: vk::QueryResultFlags));
