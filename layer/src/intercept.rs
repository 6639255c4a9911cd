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
    // The actions and synchronization that start a command buffer's timing.
    b"vkCmdPipelineBarrier",
    b"vkCmdPipelineBarrier2",
    b"vkCmdPipelineBarrier2KHR",
    b"vkCmdWaitEvents",
    b"vkCmdWaitEvents2",
    b"vkCmdWaitEvents2KHR",
    b"vkCmdSetEvent",
    b"vkCmdSetEvent2",
    b"vkCmdSetEvent2KHR",
    b"vkCmdResetEvent",
    b"vkCmdResetEvent2",
    b"vkCmdResetEvent2KHR",
    b"vkCmdCopyBuffer",
    b"vkCmdCopyImage",
    b"vkCmdCopyBufferToImage",
    b"vkCmdCopyImageToBuffer",
    b"vkCmdCopyBuffer2",
    b"vkCmdCopyBuffer2KHR",
    b"vkCmdCopyImage2",
    b"vkCmdCopyImage2KHR",
    b"vkCmdCopyBufferToImage2",
    b"vkCmdCopyBufferToImage2KHR",
    b"vkCmdCopyImageToBuffer2",
    b"vkCmdCopyImageToBuffer2KHR",
    b"vkCmdBlitImage",
    b"vkCmdBlitImage2",
    b"vkCmdBlitImage2KHR",
    b"vkCmdResolveImage",
    b"vkCmdResolveImage2",
    b"vkCmdResolveImage2KHR",
    b"vkCmdFillBuffer",
    b"vkCmdUpdateBuffer",
    b"vkCmdClearColorImage",
    b"vkCmdClearDepthStencilImage",
    b"vkCmdDispatch",
    b"vkCmdDispatchIndirect",
    b"vkCmdDispatchBase",
    b"vkCmdExecuteCommands",
    b"vkCmdResetQueryPool",
    b"vkCmdBeginQuery",
    b"vkCmdWriteTimestamp",
    b"vkCmdWriteTimestamp2",
    b"vkCmdWriteTimestamp2KHR",
    b"vkCmdCopyQueryPoolResults",
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
    pub cmd_pipeline_barrier: Option<vk::PFN_vkCmdPipelineBarrier>,
    pub cmd_pipeline_barrier2: Option<vk::PFN_vkCmdPipelineBarrier2>,
    pub cmd_pipeline_barrier2_khr: Option<vk::PFN_vkCmdPipelineBarrier2>,
    pub cmd_wait_events: Option<vk::PFN_vkCmdWaitEvents>,
    pub cmd_wait_events2: Option<vk::PFN_vkCmdWaitEvents2>,
    pub cmd_wait_events2_khr: Option<vk::PFN_vkCmdWaitEvents2>,
    pub cmd_set_event: Option<vk::PFN_vkCmdSetEvent>,
    pub cmd_set_event2: Option<vk::PFN_vkCmdSetEvent2>,
    pub cmd_set_event2_khr: Option<vk::PFN_vkCmdSetEvent2>,
    pub cmd_reset_event: Option<vk::PFN_vkCmdResetEvent>,
    pub cmd_reset_event2: Option<vk::PFN_vkCmdResetEvent2>,
    pub cmd_reset_event2_khr: Option<vk::PFN_vkCmdResetEvent2>,
    pub cmd_copy_buffer: Option<vk::PFN_vkCmdCopyBuffer>,
    pub cmd_copy_image: Option<vk::PFN_vkCmdCopyImage>,
    pub cmd_copy_buffer_to_image: Option<vk::PFN_vkCmdCopyBufferToImage>,
    pub cmd_copy_image_to_buffer: Option<vk::PFN_vkCmdCopyImageToBuffer>,
    pub cmd_copy_buffer2: Option<vk::PFN_vkCmdCopyBuffer2>,
    pub cmd_copy_buffer2_khr: Option<vk::PFN_vkCmdCopyBuffer2>,
    pub cmd_copy_image2: Option<vk::PFN_vkCmdCopyImage2>,
    pub cmd_copy_image2_khr: Option<vk::PFN_vkCmdCopyImage2>,
    pub cmd_copy_buffer_to_image2: Option<vk::PFN_vkCmdCopyBufferToImage2>,
    pub cmd_copy_buffer_to_image2_khr: Option<vk::PFN_vkCmdCopyBufferToImage2>,
    pub cmd_copy_image_to_buffer2: Option<vk::PFN_vkCmdCopyImageToBuffer2>,
    pub cmd_copy_image_to_buffer2_khr: Option<vk::PFN_vkCmdCopyImageToBuffer2>,
    pub cmd_blit_image: Option<vk::PFN_vkCmdBlitImage>,
    pub cmd_blit_image2: Option<vk::PFN_vkCmdBlitImage2>,
    pub cmd_blit_image2_khr: Option<vk::PFN_vkCmdBlitImage2>,
    pub cmd_resolve_image: Option<vk::PFN_vkCmdResolveImage>,
    pub cmd_resolve_image2: Option<vk::PFN_vkCmdResolveImage2>,
    pub cmd_resolve_image2_khr: Option<vk::PFN_vkCmdResolveImage2>,
    pub cmd_fill_buffer: Option<vk::PFN_vkCmdFillBuffer>,
    pub cmd_update_buffer: Option<vk::PFN_vkCmdUpdateBuffer>,
    pub cmd_clear_color_image: Option<vk::PFN_vkCmdClearColorImage>,
    pub cmd_clear_depth_stencil_image: Option<vk::PFN_vkCmdClearDepthStencilImage>,
    pub cmd_dispatch: Option<vk::PFN_vkCmdDispatch>,
    pub cmd_dispatch_indirect: Option<vk::PFN_vkCmdDispatchIndirect>,
    pub cmd_dispatch_base: Option<vk::PFN_vkCmdDispatchBase>,
    pub cmd_execute_commands: Option<vk::PFN_vkCmdExecuteCommands>,
    pub cmd_reset_query_pool: Option<vk::PFN_vkCmdResetQueryPool>,
    pub cmd_begin_query: Option<vk::PFN_vkCmdBeginQuery>,
    pub cmd_write_timestamp: Option<vk::PFN_vkCmdWriteTimestamp>,
    pub cmd_write_timestamp2: Option<vk::PFN_vkCmdWriteTimestamp2>,
    pub cmd_write_timestamp2_khr: Option<vk::PFN_vkCmdWriteTimestamp2>,
    pub cmd_copy_query_pool_results: Option<vk::PFN_vkCmdCopyQueryPoolResults>,
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
    c"vkCmdPipelineBarrier" => cmd_pipeline_barrier, cmd_pipeline_barrier, vk::PFN_vkCmdPipelineBarrier;
    c"vkCmdPipelineBarrier2" => cmd_pipeline_barrier2, cmd_pipeline_barrier2, vk::PFN_vkCmdPipelineBarrier2;
    c"vkCmdPipelineBarrier2KHR" => cmd_pipeline_barrier2_khr, cmd_pipeline_barrier2_khr, vk::PFN_vkCmdPipelineBarrier2;
    c"vkCmdWaitEvents" => cmd_wait_events, cmd_wait_events, vk::PFN_vkCmdWaitEvents;
    c"vkCmdWaitEvents2" => cmd_wait_events2, cmd_wait_events2, vk::PFN_vkCmdWaitEvents2;
    c"vkCmdWaitEvents2KHR" => cmd_wait_events2_khr, cmd_wait_events2_khr, vk::PFN_vkCmdWaitEvents2;
    c"vkCmdSetEvent" => cmd_set_event, cmd_set_event, vk::PFN_vkCmdSetEvent;
    c"vkCmdSetEvent2" => cmd_set_event2, cmd_set_event2, vk::PFN_vkCmdSetEvent2;
    c"vkCmdSetEvent2KHR" => cmd_set_event2_khr, cmd_set_event2_khr, vk::PFN_vkCmdSetEvent2;
    c"vkCmdResetEvent" => cmd_reset_event, cmd_reset_event, vk::PFN_vkCmdResetEvent;
    c"vkCmdResetEvent2" => cmd_reset_event2, cmd_reset_event2, vk::PFN_vkCmdResetEvent2;
    c"vkCmdResetEvent2KHR" => cmd_reset_event2_khr, cmd_reset_event2_khr, vk::PFN_vkCmdResetEvent2;
    c"vkCmdCopyBuffer" => cmd_copy_buffer, cmd_copy_buffer, vk::PFN_vkCmdCopyBuffer;
    c"vkCmdCopyImage" => cmd_copy_image, cmd_copy_image, vk::PFN_vkCmdCopyImage;
    c"vkCmdCopyBufferToImage" => cmd_copy_buffer_to_image, cmd_copy_buffer_to_image, vk::PFN_vkCmdCopyBufferToImage;
    c"vkCmdCopyImageToBuffer" => cmd_copy_image_to_buffer, cmd_copy_image_to_buffer, vk::PFN_vkCmdCopyImageToBuffer;
    c"vkCmdCopyBuffer2" => cmd_copy_buffer2, cmd_copy_buffer2, vk::PFN_vkCmdCopyBuffer2;
    c"vkCmdCopyBuffer2KHR" => cmd_copy_buffer2_khr, cmd_copy_buffer2_khr, vk::PFN_vkCmdCopyBuffer2;
    c"vkCmdCopyImage2" => cmd_copy_image2, cmd_copy_image2, vk::PFN_vkCmdCopyImage2;
    c"vkCmdCopyImage2KHR" => cmd_copy_image2_khr, cmd_copy_image2_khr, vk::PFN_vkCmdCopyImage2;
    c"vkCmdCopyBufferToImage2" => cmd_copy_buffer_to_image2, cmd_copy_buffer_to_image2, vk::PFN_vkCmdCopyBufferToImage2;
    c"vkCmdCopyBufferToImage2KHR" => cmd_copy_buffer_to_image2_khr, cmd_copy_buffer_to_image2_khr, vk::PFN_vkCmdCopyBufferToImage2;
    c"vkCmdCopyImageToBuffer2" => cmd_copy_image_to_buffer2, cmd_copy_image_to_buffer2, vk::PFN_vkCmdCopyImageToBuffer2;
    c"vkCmdCopyImageToBuffer2KHR" => cmd_copy_image_to_buffer2_khr, cmd_copy_image_to_buffer2_khr, vk::PFN_vkCmdCopyImageToBuffer2;
    c"vkCmdBlitImage" => cmd_blit_image, cmd_blit_image, vk::PFN_vkCmdBlitImage;
    c"vkCmdBlitImage2" => cmd_blit_image2, cmd_blit_image2, vk::PFN_vkCmdBlitImage2;
    c"vkCmdBlitImage2KHR" => cmd_blit_image2_khr, cmd_blit_image2_khr, vk::PFN_vkCmdBlitImage2;
    c"vkCmdResolveImage" => cmd_resolve_image, cmd_resolve_image, vk::PFN_vkCmdResolveImage;
    c"vkCmdResolveImage2" => cmd_resolve_image2, cmd_resolve_image2, vk::PFN_vkCmdResolveImage2;
    c"vkCmdResolveImage2KHR" => cmd_resolve_image2_khr, cmd_resolve_image2_khr, vk::PFN_vkCmdResolveImage2;
    c"vkCmdFillBuffer" => cmd_fill_buffer, cmd_fill_buffer, vk::PFN_vkCmdFillBuffer;
    c"vkCmdUpdateBuffer" => cmd_update_buffer, cmd_update_buffer, vk::PFN_vkCmdUpdateBuffer;
    c"vkCmdClearColorImage" => cmd_clear_color_image, cmd_clear_color_image, vk::PFN_vkCmdClearColorImage;
    c"vkCmdClearDepthStencilImage" => cmd_clear_depth_stencil_image, cmd_clear_depth_stencil_image, vk::PFN_vkCmdClearDepthStencilImage;
    c"vkCmdDispatch" => cmd_dispatch, cmd_dispatch, vk::PFN_vkCmdDispatch;
    c"vkCmdDispatchIndirect" => cmd_dispatch_indirect, cmd_dispatch_indirect, vk::PFN_vkCmdDispatchIndirect;
    c"vkCmdDispatchBase" => cmd_dispatch_base, cmd_dispatch_base, vk::PFN_vkCmdDispatchBase;
    c"vkCmdExecuteCommands" => cmd_execute_commands, cmd_execute_commands, vk::PFN_vkCmdExecuteCommands;
    c"vkCmdResetQueryPool" => cmd_reset_query_pool, cmd_reset_query_pool, vk::PFN_vkCmdResetQueryPool;
    c"vkCmdBeginQuery" => cmd_begin_query, cmd_begin_query, vk::PFN_vkCmdBeginQuery;
    c"vkCmdWriteTimestamp" => cmd_write_timestamp, cmd_write_timestamp, vk::PFN_vkCmdWriteTimestamp;
    c"vkCmdWriteTimestamp2" => cmd_write_timestamp2, cmd_write_timestamp2, vk::PFN_vkCmdWriteTimestamp2;
    c"vkCmdWriteTimestamp2KHR" => cmd_write_timestamp2_khr, cmd_write_timestamp2_khr, vk::PFN_vkCmdWriteTimestamp2;
    c"vkCmdCopyQueryPoolResults" => cmd_copy_query_pool_results, cmd_copy_query_pool_results, vk::PFN_vkCmdCopyQueryPoolResults;
    c"vkSetDebugUtilsObjectNameEXT" => set_debug_utils_object_name_ext, set_debug_utils_object_name_ext, vk::PFN_vkSetDebugUtilsObjectNameEXT;
    c"vkDebugMarkerSetObjectNameEXT" => debug_marker_set_object_name_ext, debug_marker_set_object_name_ext, vk::PFN_vkDebugMarkerSetObjectNameEXT;
}
