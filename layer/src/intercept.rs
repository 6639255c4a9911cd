//! Every device-level function the layer intercepts, in one table: its Vulkan name, the field
//! holding the next layer's function ([`Next`], resolved once at vkCreateDevice) and the hook
//! handed out in its place ([`hook`], only where the next layer has the function). Adding an
//! intercepted function is one line here and its hook. `vkGetDeviceProcAddr` itself is answered
//! by the loader-chain code (crate::hooks).

use crate::cmd_hooks::*;
use crate::draw_path::{
    cmd_draw, cmd_draw_indexed, cmd_draw_indexed_indirect, cmd_draw_indexed_indirect_count,
    cmd_draw_indexed_indirect_count_khr, cmd_draw_indirect, cmd_draw_indirect_count,
    cmd_draw_indirect_count_khr, cmd_draw_mesh_tasks_ext, cmd_draw_mesh_tasks_indirect_count_ext,
    cmd_draw_mesh_tasks_indirect_ext, cmd_draw_multi_ext, cmd_draw_multi_indexed_ext,
};
use crate::hooks::destroy_device;
use crate::objects::{
    create_graphics_pipelines, create_render_pass, create_render_pass2, create_render_pass2_khr,
    create_shader_module, create_shaders_ext, destroy_pipeline, destroy_render_pass,
    destroy_shader_ext, destroy_shader_module,
};
use crate::queue_hooks::{queue_present_khr, queue_submit, queue_submit2, queue_submit2_khr};
use ash::vk;

type Void = unsafe extern "system" fn();

/// Functions intercepted only for devices with the `timing` setting (crate::timing).
pub const TIMING_ONLY: &[&[u8]] = &[
    b"vkCreateCommandPool",
    b"vkDestroyCommandPool",
    b"vkQueueSubmit",
    b"vkQueueSubmit2",
    b"vkQueueSubmit2KHR",
    b"vkQueuePresentKHR",
];

/// The next layer's device-level functions this layer intercepts, resolved once at
/// vkCreateDevice.
#[derive(Default)]
pub struct Next {
    pub destroy_device: Option<vk::PFN_vkDestroyDevice>,
    pub create_shader_module: Option<vk::PFN_vkCreateShaderModule>,
    pub destroy_shader_module: Option<vk::PFN_vkDestroyShaderModule>,
    pub create_graphics_pipelines: Option<vk::PFN_vkCreateGraphicsPipelines>,
    pub destroy_pipeline: Option<vk::PFN_vkDestroyPipeline>,
    pub create_shaders_ext: Option<vk::PFN_vkCreateShadersEXT>,
    pub destroy_shader_ext: Option<vk::PFN_vkDestroyShaderEXT>,
    pub create_render_pass: Option<vk::PFN_vkCreateRenderPass>,
    pub create_render_pass2: Option<vk::PFN_vkCreateRenderPass2>,
    pub create_render_pass2_khr: Option<vk::PFN_vkCreateRenderPass2>,
    pub destroy_render_pass: Option<vk::PFN_vkDestroyRenderPass>,
    pub create_command_pool: Option<vk::PFN_vkCreateCommandPool>,
    pub destroy_command_pool: Option<vk::PFN_vkDestroyCommandPool>,
    pub queue_submit: Option<vk::PFN_vkQueueSubmit>,
    pub queue_submit2: Option<vk::PFN_vkQueueSubmit2>,
    pub queue_submit2_khr: Option<vk::PFN_vkQueueSubmit2>,
    pub queue_present_khr: Option<vk::PFN_vkQueuePresentKHR>,
    pub allocate_command_buffers: Option<vk::PFN_vkAllocateCommandBuffers>,
    pub free_command_buffers: Option<vk::PFN_vkFreeCommandBuffers>,
    pub begin_command_buffer: Option<vk::PFN_vkBeginCommandBuffer>,
    pub end_command_buffer: Option<vk::PFN_vkEndCommandBuffer>,
    pub reset_command_buffer: Option<vk::PFN_vkResetCommandBuffer>,
    pub create_image: Option<vk::PFN_vkCreateImage>,
    pub destroy_image: Option<vk::PFN_vkDestroyImage>,
    pub create_image_view: Option<vk::PFN_vkCreateImageView>,
    pub destroy_image_view: Option<vk::PFN_vkDestroyImageView>,
    pub cmd_bind_pipeline: Option<vk::PFN_vkCmdBindPipeline>,
    pub cmd_bind_shaders_ext: Option<vk::PFN_vkCmdBindShadersEXT>,
    pub cmd_set_rasterization_samples_ext: Option<vk::PFN_vkCmdSetRasterizationSamplesEXT>,
    pub cmd_set_depth_test_enable: Option<vk::PFN_vkCmdSetDepthTestEnable>,
    pub cmd_set_depth_test_enable_ext: Option<vk::PFN_vkCmdSetDepthTestEnable>,
    pub cmd_set_depth_write_enable: Option<vk::PFN_vkCmdSetDepthWriteEnable>,
    pub cmd_set_depth_write_enable_ext: Option<vk::PFN_vkCmdSetDepthWriteEnable>,
    pub cmd_set_depth_compare_op: Option<vk::PFN_vkCmdSetDepthCompareOp>,
    pub cmd_set_depth_compare_op_ext: Option<vk::PFN_vkCmdSetDepthCompareOp>,
    pub cmd_set_stencil_test_enable: Option<vk::PFN_vkCmdSetStencilTestEnable>,
    pub cmd_set_stencil_test_enable_ext: Option<vk::PFN_vkCmdSetStencilTestEnable>,
    pub cmd_set_color_blend_enable_ext: Option<vk::PFN_vkCmdSetColorBlendEnableEXT>,
    pub cmd_set_color_blend_equation_ext: Option<vk::PFN_vkCmdSetColorBlendEquationEXT>,
    pub cmd_set_color_write_mask_ext: Option<vk::PFN_vkCmdSetColorWriteMaskEXT>,
    pub cmd_set_fragment_shading_rate_khr: Option<vk::PFN_vkCmdSetFragmentShadingRateKHR>,
    pub cmd_begin_rendering: Option<vk::PFN_vkCmdBeginRendering>,
    pub cmd_begin_rendering_khr: Option<vk::PFN_vkCmdBeginRendering>,
    pub cmd_end_rendering: Option<vk::PFN_vkCmdEndRendering>,
    pub cmd_end_rendering_khr: Option<vk::PFN_vkCmdEndRendering>,
    pub cmd_begin_render_pass: Option<vk::PFN_vkCmdBeginRenderPass>,
    pub cmd_begin_render_pass2: Option<vk::PFN_vkCmdBeginRenderPass2>,
    pub cmd_begin_render_pass2_khr: Option<vk::PFN_vkCmdBeginRenderPass2>,
    pub cmd_next_subpass: Option<vk::PFN_vkCmdNextSubpass>,
    pub cmd_next_subpass2: Option<vk::PFN_vkCmdNextSubpass2>,
    pub cmd_next_subpass2_khr: Option<vk::PFN_vkCmdNextSubpass2>,
    pub cmd_end_render_pass: Option<vk::PFN_vkCmdEndRenderPass>,
    pub cmd_end_render_pass2: Option<vk::PFN_vkCmdEndRenderPass2>,
    pub cmd_end_render_pass2_khr: Option<vk::PFN_vkCmdEndRenderPass2>,
    pub cmd_draw: Option<vk::PFN_vkCmdDraw>,
    pub cmd_draw_indexed: Option<vk::PFN_vkCmdDrawIndexed>,
    pub cmd_draw_indirect: Option<vk::PFN_vkCmdDrawIndirect>,
    pub cmd_draw_indexed_indirect: Option<vk::PFN_vkCmdDrawIndexedIndirect>,
    pub cmd_draw_indirect_count: Option<vk::PFN_vkCmdDrawIndirectCount>,
    pub cmd_draw_indirect_count_khr: Option<vk::PFN_vkCmdDrawIndirectCount>,
    pub cmd_draw_indexed_indirect_count: Option<vk::PFN_vkCmdDrawIndexedIndirectCount>,
    pub cmd_draw_indexed_indirect_count_khr: Option<vk::PFN_vkCmdDrawIndexedIndirectCount>,
    pub cmd_draw_mesh_tasks_ext: Option<vk::PFN_vkCmdDrawMeshTasksEXT>,
    pub cmd_draw_mesh_tasks_indirect_ext: Option<vk::PFN_vkCmdDrawMeshTasksIndirectEXT>,
    pub cmd_draw_mesh_tasks_indirect_count_ext: Option<vk::PFN_vkCmdDrawMeshTasksIndirectCountEXT>,
    pub cmd_draw_multi_ext: Option<vk::PFN_vkCmdDrawMultiEXT>,
    pub cmd_draw_multi_indexed_ext: Option<vk::PFN_vkCmdDrawMultiIndexedEXT>,
    pub cmd_set_stencil_op: Option<vk::PFN_vkCmdSetStencilOp>,
    pub cmd_set_stencil_op_ext: Option<vk::PFN_vkCmdSetStencilOp>,
    pub cmd_set_rasterizer_discard_enable: Option<vk::PFN_vkCmdSetRasterizerDiscardEnable>,
    pub cmd_set_rasterizer_discard_enable_ext: Option<vk::PFN_vkCmdSetRasterizerDiscardEnable>,
    pub set_debug_utils_object_name_ext: Option<vk::PFN_vkSetDebugUtilsObjectNameEXT>,
    pub debug_marker_set_object_name_ext: Option<vk::PFN_vkDebugMarkerSetObjectNameEXT>,
}

/// Generates, from one list of (Vulkan name, field, hook, type): the next layer's pointers
/// ([`CmdNext::load`]), the layer's pointer by name ([`hook`]) and the names ([`NAMES`]).
macro_rules! table {
    ($( $name:literal => $field:ident, $hook:ident, $t:ty; )*) => {
        impl Next {
            /// Resolves every next-layer function once, at vkCreateDevice.
            pub fn load(get: impl Fn(&std::ffi::CStr) -> vk::PFN_vkVoidFunction) -> Next {
                Next { $( $field: get($name).map(|f| {
                    // SAFETY: the pointer was returned for the name whose prototype is `$t`.
                    unsafe { std::mem::transmute::<Void, $t>(f) }
                }), )* }
            }
        }

        /// The layer's hook for a command-buffer function name.
        pub fn hook(name: &[u8]) -> vk::PFN_vkVoidFunction {
            $( if name == $name.to_bytes() {
                let f: $t = $hook;
                // SAFETY: a function pointer cast to the generic PFN_vkVoidFunction, as the
                // loader expects; the caller casts it back to the type its name implies.
                return Some(unsafe { std::mem::transmute::<$t, Void>(f) });
            } )*
            None
        }

        /// Every name [`hook`] answers.
        pub const NAMES: &[&str] = &[ $( match $name.to_str() { Ok(s) => s, Err(_) => "" }, )* ];

        /// Whether the next layer has the function of `name` (hooks are handed out only then).
        pub fn next_has(next: &Next, name: &[u8]) -> bool {
            $( if name == $name.to_bytes() { return next.$field.is_some(); } )*
            false
        }
    };
}

table! {
    c"vkDestroyDevice" => destroy_device, destroy_device, vk::PFN_vkDestroyDevice;
    c"vkCreateShaderModule" => create_shader_module, create_shader_module, vk::PFN_vkCreateShaderModule;
    c"vkDestroyShaderModule" => destroy_shader_module, destroy_shader_module, vk::PFN_vkDestroyShaderModule;
    c"vkCreateGraphicsPipelines" => create_graphics_pipelines, create_graphics_pipelines, vk::PFN_vkCreateGraphicsPipelines;
    c"vkDestroyPipeline" => destroy_pipeline, destroy_pipeline, vk::PFN_vkDestroyPipeline;
    c"vkCreateShadersEXT" => create_shaders_ext, create_shaders_ext, vk::PFN_vkCreateShadersEXT;
    c"vkDestroyShaderEXT" => destroy_shader_ext, destroy_shader_ext, vk::PFN_vkDestroyShaderEXT;
    c"vkCreateRenderPass" => create_render_pass, create_render_pass, vk::PFN_vkCreateRenderPass;
    c"vkCreateRenderPass2" => create_render_pass2, create_render_pass2, vk::PFN_vkCreateRenderPass2;
    c"vkCreateRenderPass2KHR" => create_render_pass2_khr, create_render_pass2_khr, vk::PFN_vkCreateRenderPass2;
    c"vkDestroyRenderPass" => destroy_render_pass, destroy_render_pass, vk::PFN_vkDestroyRenderPass;
    c"vkCreateCommandPool" => create_command_pool, create_command_pool, vk::PFN_vkCreateCommandPool;
    c"vkDestroyCommandPool" => destroy_command_pool, destroy_command_pool, vk::PFN_vkDestroyCommandPool;
    c"vkQueueSubmit" => queue_submit, queue_submit, vk::PFN_vkQueueSubmit;
    c"vkQueueSubmit2" => queue_submit2, queue_submit2, vk::PFN_vkQueueSubmit2;
    c"vkQueueSubmit2KHR" => queue_submit2_khr, queue_submit2_khr, vk::PFN_vkQueueSubmit2;
    c"vkQueuePresentKHR" => queue_present_khr, queue_present_khr, vk::PFN_vkQueuePresentKHR;
    c"vkAllocateCommandBuffers" => allocate_command_buffers, allocate_command_buffers, vk::PFN_vkAllocateCommandBuffers;
    c"vkFreeCommandBuffers" => free_command_buffers, free_command_buffers, vk::PFN_vkFreeCommandBuffers;
    c"vkBeginCommandBuffer" => begin_command_buffer, begin_command_buffer, vk::PFN_vkBeginCommandBuffer;
    c"vkEndCommandBuffer" => end_command_buffer, end_command_buffer, vk::PFN_vkEndCommandBuffer;
    c"vkResetCommandBuffer" => reset_command_buffer, reset_command_buffer, vk::PFN_vkResetCommandBuffer;
    c"vkCreateImage" => create_image, create_image, vk::PFN_vkCreateImage;
    c"vkDestroyImage" => destroy_image, destroy_image, vk::PFN_vkDestroyImage;
    c"vkCreateImageView" => create_image_view, create_image_view, vk::PFN_vkCreateImageView;
    c"vkDestroyImageView" => destroy_image_view, destroy_image_view, vk::PFN_vkDestroyImageView;
    c"vkCmdBindPipeline" => cmd_bind_pipeline, cmd_bind_pipeline, vk::PFN_vkCmdBindPipeline;
    c"vkCmdBindShadersEXT" => cmd_bind_shaders_ext, cmd_bind_shaders_ext, vk::PFN_vkCmdBindShadersEXT;
    c"vkCmdSetRasterizationSamplesEXT" => cmd_set_rasterization_samples_ext, cmd_set_rasterization_samples_ext, vk::PFN_vkCmdSetRasterizationSamplesEXT;
    c"vkCmdSetDepthTestEnable" => cmd_set_depth_test_enable, cmd_set_depth_test_enable, vk::PFN_vkCmdSetDepthTestEnable;
    c"vkCmdSetDepthTestEnableEXT" => cmd_set_depth_test_enable_ext, cmd_set_depth_test_enable_ext, vk::PFN_vkCmdSetDepthTestEnable;
    c"vkCmdSetDepthWriteEnable" => cmd_set_depth_write_enable, cmd_set_depth_write_enable, vk::PFN_vkCmdSetDepthWriteEnable;
    c"vkCmdSetDepthWriteEnableEXT" => cmd_set_depth_write_enable_ext, cmd_set_depth_write_enable_ext, vk::PFN_vkCmdSetDepthWriteEnable;
    c"vkCmdSetDepthCompareOp" => cmd_set_depth_compare_op, cmd_set_depth_compare_op, vk::PFN_vkCmdSetDepthCompareOp;
    c"vkCmdSetDepthCompareOpEXT" => cmd_set_depth_compare_op_ext, cmd_set_depth_compare_op_ext, vk::PFN_vkCmdSetDepthCompareOp;
    c"vkCmdSetStencilTestEnable" => cmd_set_stencil_test_enable, cmd_set_stencil_test_enable, vk::PFN_vkCmdSetStencilTestEnable;
    c"vkCmdSetStencilTestEnableEXT" => cmd_set_stencil_test_enable_ext, cmd_set_stencil_test_enable_ext, vk::PFN_vkCmdSetStencilTestEnable;
    c"vkCmdSetColorBlendEnableEXT" => cmd_set_color_blend_enable_ext, cmd_set_color_blend_enable_ext, vk::PFN_vkCmdSetColorBlendEnableEXT;
    c"vkCmdSetColorBlendEquationEXT" => cmd_set_color_blend_equation_ext, cmd_set_color_blend_equation_ext, vk::PFN_vkCmdSetColorBlendEquationEXT;
    c"vkCmdSetColorWriteMaskEXT" => cmd_set_color_write_mask_ext, cmd_set_color_write_mask_ext, vk::PFN_vkCmdSetColorWriteMaskEXT;
    c"vkCmdSetFragmentShadingRateKHR" => cmd_set_fragment_shading_rate_khr, cmd_set_fragment_shading_rate_khr, vk::PFN_vkCmdSetFragmentShadingRateKHR;
    c"vkCmdBeginRendering" => cmd_begin_rendering, cmd_begin_rendering, vk::PFN_vkCmdBeginRendering;
    c"vkCmdBeginRenderingKHR" => cmd_begin_rendering_khr, cmd_begin_rendering_khr, vk::PFN_vkCmdBeginRendering;
    c"vkCmdEndRendering" => cmd_end_rendering, cmd_end_rendering, vk::PFN_vkCmdEndRendering;
    c"vkCmdEndRenderingKHR" => cmd_end_rendering_khr, cmd_end_rendering_khr, vk::PFN_vkCmdEndRendering;
    c"vkCmdBeginRenderPass" => cmd_begin_render_pass, cmd_begin_render_pass, vk::PFN_vkCmdBeginRenderPass;
    c"vkCmdBeginRenderPass2" => cmd_begin_render_pass2, cmd_begin_render_pass2, vk::PFN_vkCmdBeginRenderPass2;
    c"vkCmdBeginRenderPass2KHR" => cmd_begin_render_pass2_khr, cmd_begin_render_pass2_khr, vk::PFN_vkCmdBeginRenderPass2;
    c"vkCmdNextSubpass" => cmd_next_subpass, cmd_next_subpass, vk::PFN_vkCmdNextSubpass;
    c"vkCmdNextSubpass2" => cmd_next_subpass2, cmd_next_subpass2, vk::PFN_vkCmdNextSubpass2;
    c"vkCmdNextSubpass2KHR" => cmd_next_subpass2_khr, cmd_next_subpass2_khr, vk::PFN_vkCmdNextSubpass2;
    c"vkCmdEndRenderPass" => cmd_end_render_pass, cmd_end_render_pass, vk::PFN_vkCmdEndRenderPass;
    c"vkCmdEndRenderPass2" => cmd_end_render_pass2, cmd_end_render_pass2, vk::PFN_vkCmdEndRenderPass2;
    c"vkCmdEndRenderPass2KHR" => cmd_end_render_pass2_khr, cmd_end_render_pass2_khr, vk::PFN_vkCmdEndRenderPass2;
    c"vkCmdDraw" => cmd_draw, cmd_draw, vk::PFN_vkCmdDraw;
    c"vkCmdDrawIndexed" => cmd_draw_indexed, cmd_draw_indexed, vk::PFN_vkCmdDrawIndexed;
    c"vkCmdDrawIndirect" => cmd_draw_indirect, cmd_draw_indirect, vk::PFN_vkCmdDrawIndirect;
    c"vkCmdDrawIndexedIndirect" => cmd_draw_indexed_indirect, cmd_draw_indexed_indirect, vk::PFN_vkCmdDrawIndexedIndirect;
    c"vkCmdDrawIndirectCount" => cmd_draw_indirect_count, cmd_draw_indirect_count, vk::PFN_vkCmdDrawIndirectCount;
    c"vkCmdDrawIndirectCountKHR" => cmd_draw_indirect_count_khr, cmd_draw_indirect_count_khr, vk::PFN_vkCmdDrawIndirectCount;
    c"vkCmdDrawIndexedIndirectCount" => cmd_draw_indexed_indirect_count, cmd_draw_indexed_indirect_count, vk::PFN_vkCmdDrawIndexedIndirectCount;
    c"vkCmdDrawIndexedIndirectCountKHR" => cmd_draw_indexed_indirect_count_khr, cmd_draw_indexed_indirect_count_khr, vk::PFN_vkCmdDrawIndexedIndirectCount;
    c"vkCmdDrawMeshTasksEXT" => cmd_draw_mesh_tasks_ext, cmd_draw_mesh_tasks_ext, vk::PFN_vkCmdDrawMeshTasksEXT;
    c"vkCmdDrawMeshTasksIndirectEXT" => cmd_draw_mesh_tasks_indirect_ext, cmd_draw_mesh_tasks_indirect_ext, vk::PFN_vkCmdDrawMeshTasksIndirectEXT;
    c"vkCmdDrawMeshTasksIndirectCountEXT" => cmd_draw_mesh_tasks_indirect_count_ext, cmd_draw_mesh_tasks_indirect_count_ext, vk::PFN_vkCmdDrawMeshTasksIndirectCountEXT;
    c"vkCmdDrawMultiEXT" => cmd_draw_multi_ext, cmd_draw_multi_ext, vk::PFN_vkCmdDrawMultiEXT;
    c"vkCmdDrawMultiIndexedEXT" => cmd_draw_multi_indexed_ext, cmd_draw_multi_indexed_ext, vk::PFN_vkCmdDrawMultiIndexedEXT;
    c"vkCmdSetStencilOp" => cmd_set_stencil_op, cmd_set_stencil_op, vk::PFN_vkCmdSetStencilOp;
    c"vkCmdSetStencilOpEXT" => cmd_set_stencil_op_ext, cmd_set_stencil_op_ext, vk::PFN_vkCmdSetStencilOp;
    c"vkCmdSetRasterizerDiscardEnable" => cmd_set_rasterizer_discard_enable, cmd_set_rasterizer_discard_enable, vk::PFN_vkCmdSetRasterizerDiscardEnable;
    c"vkCmdSetRasterizerDiscardEnableEXT" => cmd_set_rasterizer_discard_enable_ext, cmd_set_rasterizer_discard_enable_ext, vk::PFN_vkCmdSetRasterizerDiscardEnable;
    c"vkSetDebugUtilsObjectNameEXT" => set_debug_utils_object_name_ext, set_debug_utils_object_name_ext, vk::PFN_vkSetDebugUtilsObjectNameEXT;
    c"vkDebugMarkerSetObjectNameEXT" => debug_marker_set_object_name_ext, debug_marker_set_object_name_ext, vk::PFN_vkDebugMarkerSetObjectNameEXT;
}
