//! What a command buffer binds and sets for its draws: pipelines, shader objects and the dynamic
//! states that feed the POPS derivation. Each body runs after the command went down (crate::table
//! `after` entries) and only while the device has an interlocked object.

use crate::device::Device;
use crate::model::draws::{BlendEquation, CmdState, StencilOps};
use crate::vk::convert;
use ash::vk;

/// Updates `cb`'s recording state; the interlocked object's timed range ends where the bound
/// one changes.
pub fn update(d: &Device, cb: vk::CommandBuffer, f: impl FnOnce(&mut CmdState)) {
    if !d.objects.any_interlocked() {
        return;
    }
    let r = d.recordings.update(vk::Handle::as_raw(cb), f);
    if r.object_changed {
        if let Some(t) = d.timing() {
            t.with(cb, |r, out| r.close(out));
        }
    }
}

/// # Safety
/// The command's arguments.
pub unsafe fn bind_pipeline(
    d: &Device,
    cb: vk::CommandBuffer,
    bp: vk::PipelineBindPoint,
    p: vk::Pipeline,
) {
    if bp == vk::PipelineBindPoint::GRAPHICS {
        update(d, cb, |st| {
            st.bind_pipeline(d.objects.interlocked(vk::Handle::as_raw(p)))
        });
    }
}

/// # Safety
/// The command's arguments: `stages` holds `n` flags; `shaders` is NULL or holds `n` handles.
pub unsafe fn bind_shaders(
    d: &Device,
    cb: vk::CommandBuffer,
    n: u32,
    stages: *const vk::ShaderStageFlags,
    shaders: *const vk::ShaderEXT,
) {
    if n == 0 || stages.is_null() {
        return;
    }
    update(d, cb, |st| {
        // SAFETY: per the caller.
        let stages = unsafe { std::slice::from_raw_parts(stages, n as usize) };
        for (i, s) in stages.iter().enumerate() {
            if s.contains(vk::ShaderStageFlags::FRAGMENT) {
                let h = if shaders.is_null() {
                    0
                } else {
                    // SAFETY: as above.
                    vk::Handle::as_raw(unsafe { *shaders.add(i) })
                };
                st.bind_fragment_shader(d.objects.interlocked(h));
            }
        }
    });
}

/// # Safety
/// The command's arguments.
pub unsafe fn rasterization_samples(d: &Device, cb: vk::CommandBuffer, s: vk::SampleCountFlags) {
    update(d, cb, |st| st.dynamic.samples = Some(convert::samples(s)));
}

/// # Safety
/// The command's arguments.
pub unsafe fn depth_test_enable(d: &Device, cb: vk::CommandBuffer, v: vk::Bool32) {
    update(d, cb, |st| st.dynamic.depth_test = Some(v == vk::TRUE));
}

/// # Safety
/// The command's arguments.
pub unsafe fn depth_write_enable(d: &Device, cb: vk::CommandBuffer, v: vk::Bool32) {
    update(d, cb, |st| st.dynamic.depth_write = Some(v == vk::TRUE));
}

/// # Safety
/// The command's arguments.
pub unsafe fn depth_compare_op(d: &Device, cb: vk::CommandBuffer, v: vk::CompareOp) {
    update(d, cb, |st| {
        st.dynamic.depth_compare = Some(convert::compare_op(v))
    });
}

/// # Safety
/// The command's arguments.
pub unsafe fn stencil_test_enable(d: &Device, cb: vk::CommandBuffer, v: vk::Bool32) {
    update(d, cb, |st| st.dynamic.stencil_test = Some(v == vk::TRUE));
}

/// vkCmdSetStencilOp: the faces' fail, pass, depth-fail and compare ops.
///
/// # Safety
/// The command's arguments.
pub unsafe fn stencil_op(
    d: &Device,
    cb: vk::CommandBuffer,
    faces: vk::StencilFaceFlags,
    fail: vk::StencilOp,
    pass: vk::StencilOp,
    depth_fail: vk::StencilOp,
    compare: vk::CompareOp,
) {
    let ops = StencilOps {
        fail: convert::stencil_op(fail),
        pass: convert::stencil_op(pass),
        depth_fail: convert::stencil_op(depth_fail),
        compare: convert::compare_op(compare),
    };
    update(d, cb, |st| {
        if faces.contains(vk::StencilFaceFlags::FRONT) {
            st.dynamic.stencil_ops[0] = Some(ops);
        }
        if faces.contains(vk::StencilFaceFlags::BACK) {
            st.dynamic.stencil_ops[1] = Some(ops);
        }
    });
}

/// # Safety
/// The command's arguments.
pub unsafe fn rasterizer_discard_enable(d: &Device, cb: vk::CommandBuffer, v: vk::Bool32) {
    update(d, cb, |st| {
        st.dynamic.rasterizer_discard = Some(v == vk::TRUE)
    });
}

/// # Safety
/// The command's arguments: `p` holds `n` values.
pub unsafe fn color_blend_enable(
    d: &Device,
    cb: vk::CommandBuffer,
    first: u32,
    n: u32,
    p: *const vk::Bool32,
) {
    if p.is_null() {
        return;
    }
    update(d, cb, |st| {
        // SAFETY: per the caller.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic
            .set_blend_enable(first, v.iter().map(|b| *b == vk::TRUE));
    });
}

/// # Safety
/// The command's arguments: `p` holds `n` equations.
pub unsafe fn color_blend_equation(
    d: &Device,
    cb: vk::CommandBuffer,
    first: u32,
    n: u32,
    p: *const vk::ColorBlendEquationEXT,
) {
    if p.is_null() {
        return;
    }
    update(d, cb, |st| {
        // SAFETY: per the caller.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic.set_blend_equation(
            first,
            v.iter().map(|e| BlendEquation {
                src_color: convert::blend_factor(e.src_color_blend_factor),
                dst_color: convert::blend_factor(e.dst_color_blend_factor),
                color_op: convert::blend_op(e.color_blend_op),
                src_alpha: convert::blend_factor(e.src_alpha_blend_factor),
                dst_alpha: convert::blend_factor(e.dst_alpha_blend_factor),
                alpha_op: convert::blend_op(e.alpha_blend_op),
            }),
        );
    });
}

/// # Safety
/// The command's arguments: `p` holds `n` masks.
pub unsafe fn color_write_mask(
    d: &Device,
    cb: vk::CommandBuffer,
    first: u32,
    n: u32,
    p: *const vk::ColorComponentFlags,
) {
    if p.is_null() {
        return;
    }
    update(d, cb, |st| {
        // SAFETY: per the caller.
        let v = unsafe { std::slice::from_raw_parts(p, n as usize) };
        st.dynamic
            .set_write_mask(first, v.iter().map(|m| convert::write_mask(*m)));
    });
}

/// # Safety
/// The command's arguments: `size` points to an extent, `ops` to two combiner ops.
pub unsafe fn fragment_shading_rate(
    d: &Device,
    cb: vk::CommandBuffer,
    size: *const vk::Extent2D,
    ops: *const [vk::FragmentShadingRateCombinerOpKHR; 2],
) {
    if size.is_null() || ops.is_null() {
        return;
    }
    // SAFETY: per the caller.
    let (size, ops) = unsafe { (*size, *ops) };
    update(d, cb, |st| {
        st.dynamic.vrs = Some(
            size.width > 1
                || size.height > 1
                || ops
                    .iter()
                    .any(|o| *o != vk::FragmentShadingRateCombinerOpKHR::KEEP),
        );
    });
}
