//! The one table of every Vulkan function the layer intercepts or calls down: its name, the
//! next layer's pointer it is called through (a field of crate::next's tables, resolved once),
//! the hook handed out in its place, and when the hook is handed out. Everything else is
//! generated from it — the next-layer tables (crate::next), the entry points with their
//! boundary (crate::entry), the draw commands' hot path (crate::draw_path) — so that "every
//! hook body runs in the boundary" and "every hook has its next pointer" hold by construction.
//! Adding an intercepted function is one line here and its body.
//!
//! An entry reads `KIND WHEN vkName.next_field: PFN => body [arguments] -> result;`, the
//! arguments with ash's types and the Vulkan registry's names in snake case (a test holds them
//! to `vk.xml`: `layer/tests/registry.rs`):
//!
//! - `own`: the body is called with the arguments as they are, and finds its instance or
//!   device itself (the loader chain, and the calls that create or destroy them);
//! - `hook`: the body gets the device (or instance) of the first argument and the next layer's
//!   function, and calls down itself;
//! - `after`: the entry calls down, then the body records what the command changed (the command
//!   buffer's state);
//! - `action`: the body runs before the entry calls down (the timing's start of a command
//!   buffer before its first action or synchronization command);
//! - `draw`: a draw command, whose hook is the hot path of crate::draw_path (not a body).
//!
//! `WHEN` is `always`, or `timing` for hooks handed out only to instances and devices with the
//! `timing` setting (the layer is otherwise invisible to those functions). Body paths are
//! relative to crate::hooks. The `*_calls` sections list functions the layer calls down without
//! intercepting them.

/// Calls `$then!` with the whole table (see the module documentation for its grammar).
macro_rules! vulkan_table {
    ($then:ident) => {
        $then! {
            global [
                own always vkGetInstanceProcAddr.get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr => proc_addr::instance [instance: vk::Instance, p_name: *const std::ffi::c_char] -> vk::PFN_vkVoidFunction;
                own always vkGetDeviceProcAddr.get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr => proc_addr::device [device: vk::Device, p_name: *const std::ffi::c_char] -> vk::PFN_vkVoidFunction;
                own always vkCreateInstance.create_instance: vk::PFN_vkCreateInstance => instance::create [p_create_info: *const vk::InstanceCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_instance: *mut vk::Instance] -> vk::Result;
            ]
            instance [
                hook always vkDestroyInstance.destroy_instance: vk::PFN_vkDestroyInstance => instance::destroy [instance: vk::Instance, p_allocator: *const vk::AllocationCallbacks];
                own always vkCreateDevice.create_device: vk::PFN_vkCreateDevice => device::create [physical_device: vk::PhysicalDevice, p_create_info: *const vk::DeviceCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_device: *mut vk::Device] -> vk::Result;
                hook always vkCreateDebugUtilsMessengerEXT.create_debug_utils_messenger: vk::PFN_vkCreateDebugUtilsMessengerEXT => instance::create_messenger [instance: vk::Instance, p_create_info: *const vk::DebugUtilsMessengerCreateInfoEXT, p_allocator: *const vk::AllocationCallbacks, p_messenger: *mut vk::DebugUtilsMessengerEXT] -> vk::Result;
                hook always vkDestroyDebugUtilsMessengerEXT.destroy_debug_utils_messenger: vk::PFN_vkDestroyDebugUtilsMessengerEXT => instance::destroy_messenger [instance: vk::Instance, messenger: vk::DebugUtilsMessengerEXT, p_allocator: *const vk::AllocationCallbacks];
            ]
            instance_calls [
                vkGetPhysicalDeviceProperties.get_physical_device_properties: vk::PFN_vkGetPhysicalDeviceProperties;
                vkGetPhysicalDeviceProperties2.get_physical_device_properties2: vk::PFN_vkGetPhysicalDeviceProperties2;
                vkGetPhysicalDeviceQueueFamilyProperties.get_physical_device_queue_family_properties: vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties;
                vkEnumerateDeviceExtensionProperties.enumerate_device_extension_properties: vk::PFN_vkEnumerateDeviceExtensionProperties;
                vkGetPhysicalDeviceFeatures2.get_physical_device_features2: vk::PFN_vkGetPhysicalDeviceFeatures2;
            ]
            device [
            own always vkDestroyDevice.destroy_device: vk::PFN_vkDestroyDevice => device::destroy_device [device: vk::Device, p_allocator: *const vk::AllocationCallbacks];
            hook always vkCreateShaderModule.create_shader_module: vk::PFN_vkCreateShaderModule => modules::create [device: vk::Device, p_create_info: *const vk::ShaderModuleCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_shader_module: *mut vk::ShaderModule] -> vk::Result;
            hook always vkDestroyShaderModule.destroy_shader_module: vk::PFN_vkDestroyShaderModule => modules::destroy [device: vk::Device, shader_module: vk::ShaderModule, p_allocator: *const vk::AllocationCallbacks];
            hook always vkCreateGraphicsPipelines.create_graphics_pipelines: vk::PFN_vkCreateGraphicsPipelines => pipelines::create [device: vk::Device, pipeline_cache: vk::PipelineCache, create_info_count: u32, p_create_infos: *const vk::GraphicsPipelineCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_pipelines: *mut vk::Pipeline] -> vk::Result;
            hook always vkDestroyPipeline.destroy_pipeline: vk::PFN_vkDestroyPipeline => pipelines::destroy [device: vk::Device, pipeline: vk::Pipeline, p_allocator: *const vk::AllocationCallbacks];
            hook always vkCreateShadersEXT.create_shaders_ext: vk::PFN_vkCreateShadersEXT => shader_objects::create [device: vk::Device, create_info_count: u32, p_create_infos: *const vk::ShaderCreateInfoEXT, p_allocator: *const vk::AllocationCallbacks, p_shaders: *mut vk::ShaderEXT] -> vk::Result;
            hook always vkDestroyShaderEXT.destroy_shader_ext: vk::PFN_vkDestroyShaderEXT => shader_objects::destroy [device: vk::Device, shader: vk::ShaderEXT, p_allocator: *const vk::AllocationCallbacks];
            hook always vkCreateRenderPass.create_render_pass: vk::PFN_vkCreateRenderPass => render_passes::create [device: vk::Device, p_create_info: *const vk::RenderPassCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_render_pass: *mut vk::RenderPass] -> vk::Result;
            hook always vkCreateRenderPass2.create_render_pass2: vk::PFN_vkCreateRenderPass2 => render_passes::create2 [device: vk::Device, p_create_info: *const vk::RenderPassCreateInfo2, p_allocator: *const vk::AllocationCallbacks, p_render_pass: *mut vk::RenderPass] -> vk::Result;
            hook always vkCreateRenderPass2KHR.create_render_pass2_khr: vk::PFN_vkCreateRenderPass2 => render_passes::create2 [device: vk::Device, p_create_info: *const vk::RenderPassCreateInfo2, p_allocator: *const vk::AllocationCallbacks, p_render_pass: *mut vk::RenderPass] -> vk::Result;
            hook always vkDestroyRenderPass.destroy_render_pass: vk::PFN_vkDestroyRenderPass => render_passes::destroy [device: vk::Device, render_pass: vk::RenderPass, p_allocator: *const vk::AllocationCallbacks];
            hook timing vkCreateCommandPool.create_command_pool: vk::PFN_vkCreateCommandPool => timing::create_command_pool [device: vk::Device, p_create_info: *const vk::CommandPoolCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_command_pool: *mut vk::CommandPool] -> vk::Result;
            hook timing vkDestroyCommandPool.destroy_command_pool: vk::PFN_vkDestroyCommandPool => timing::destroy_command_pool [device: vk::Device, command_pool: vk::CommandPool, p_allocator: *const vk::AllocationCallbacks];
            hook always vkQueueSubmit.queue_submit: vk::PFN_vkQueueSubmit => queue::submit [queue: vk::Queue, submit_count: u32, p_submits: *const vk::SubmitInfo, fence: vk::Fence] -> vk::Result;
            hook always vkQueueSubmit2.queue_submit2: vk::PFN_vkQueueSubmit2 => queue::submit2 [queue: vk::Queue, submit_count: u32, p_submits: *const vk::SubmitInfo2, fence: vk::Fence] -> vk::Result;
            hook always vkQueueSubmit2KHR.queue_submit2_khr: vk::PFN_vkQueueSubmit2 => queue::submit2 [queue: vk::Queue, submit_count: u32, p_submits: *const vk::SubmitInfo2, fence: vk::Fence] -> vk::Result;
            hook always vkQueueBindSparse.queue_bind_sparse: vk::PFN_vkQueueBindSparse => queue::bind_sparse [queue: vk::Queue, bind_info_count: u32, p_bind_info: *const vk::BindSparseInfo, fence: vk::Fence] -> vk::Result;
            hook always vkQueuePresentKHR.queue_present_khr: vk::PFN_vkQueuePresentKHR => queue::present [queue: vk::Queue, p_present_info: *const vk::PresentInfoKHR] -> vk::Result;
            hook always vkQueueWaitIdle.queue_wait_idle: vk::PFN_vkQueueWaitIdle => queue::wait_idle [queue: vk::Queue] -> vk::Result;
            hook always vkDeviceWaitIdle.device_wait_idle: vk::PFN_vkDeviceWaitIdle => sync::device_wait_idle [device: vk::Device] -> vk::Result;
            hook always vkWaitForFences.wait_for_fences: vk::PFN_vkWaitForFences => sync::wait_for_fences [device: vk::Device, fence_count: u32, p_fences: *const vk::Fence, wait_all: vk::Bool32, timeout: u64] -> vk::Result;
            hook always vkGetFenceStatus.get_fence_status: vk::PFN_vkGetFenceStatus => sync::get_fence_status [device: vk::Device, fence: vk::Fence] -> vk::Result;
            hook always vkCreateSemaphore.create_semaphore: vk::PFN_vkCreateSemaphore => sync::create_semaphore [device: vk::Device, p_create_info: *const vk::SemaphoreCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_semaphore: *mut vk::Semaphore] -> vk::Result;
            hook always vkDestroySemaphore.destroy_semaphore: vk::PFN_vkDestroySemaphore => sync::destroy_semaphore [device: vk::Device, semaphore: vk::Semaphore, p_allocator: *const vk::AllocationCallbacks];
            hook always vkWaitSemaphores.wait_semaphores: vk::PFN_vkWaitSemaphores => sync::wait_semaphores [device: vk::Device, p_wait_info: *const vk::SemaphoreWaitInfo, timeout: u64] -> vk::Result;
            hook always vkWaitSemaphoresKHR.wait_semaphores_khr: vk::PFN_vkWaitSemaphores => sync::wait_semaphores [device: vk::Device, p_wait_info: *const vk::SemaphoreWaitInfo, timeout: u64] -> vk::Result;
            hook always vkGetSemaphoreCounterValue.get_semaphore_counter_value: vk::PFN_vkGetSemaphoreCounterValue => sync::get_semaphore_counter_value [device: vk::Device, semaphore: vk::Semaphore, p_value: *mut u64] -> vk::Result;
            hook always vkGetSemaphoreCounterValueKHR.get_semaphore_counter_value_khr: vk::PFN_vkGetSemaphoreCounterValue => sync::get_semaphore_counter_value [device: vk::Device, semaphore: vk::Semaphore, p_value: *mut u64] -> vk::Result;
            hook always vkGetQueryPoolResults.get_query_pool_results: vk::PFN_vkGetQueryPoolResults => sync::get_query_pool_results [device: vk::Device, query_pool: vk::QueryPool, first_query: u32, query_count: u32, data_size: usize, p_data: *mut std::ffi::c_void, stride: vk::DeviceSize, flags: vk::QueryResultFlags] -> vk::Result;
            hook always vkAcquireNextImageKHR.acquire_next_image_khr: vk::PFN_vkAcquireNextImageKHR => sync::acquire_next_image [device: vk::Device, swapchain: vk::SwapchainKHR, timeout: u64, semaphore: vk::Semaphore, fence: vk::Fence, p_image_index: *mut u32] -> vk::Result;
            hook always vkAcquireNextImage2KHR.acquire_next_image2_khr: vk::PFN_vkAcquireNextImage2KHR => sync::acquire_next_image2 [device: vk::Device, p_acquire_info: *const vk::AcquireNextImageInfoKHR, p_image_index: *mut u32] -> vk::Result;
            hook always vkAllocateCommandBuffers.allocate_command_buffers: vk::PFN_vkAllocateCommandBuffers => lifecycle::allocate [device: vk::Device, p_allocate_info: *const vk::CommandBufferAllocateInfo, p_command_buffers: *mut vk::CommandBuffer] -> vk::Result;
            hook always vkFreeCommandBuffers.free_command_buffers: vk::PFN_vkFreeCommandBuffers => lifecycle::free [device: vk::Device, command_pool: vk::CommandPool, command_buffer_count: u32, p_command_buffers: *const vk::CommandBuffer];
            hook always vkBeginCommandBuffer.begin_command_buffer: vk::PFN_vkBeginCommandBuffer => lifecycle::begin [command_buffer: vk::CommandBuffer, p_begin_info: *const vk::CommandBufferBeginInfo] -> vk::Result;
            hook always vkEndCommandBuffer.end_command_buffer: vk::PFN_vkEndCommandBuffer => lifecycle::end [command_buffer: vk::CommandBuffer] -> vk::Result;
            hook always vkResetCommandBuffer.reset_command_buffer: vk::PFN_vkResetCommandBuffer => lifecycle::reset [command_buffer: vk::CommandBuffer, flags: vk::CommandBufferResetFlags] -> vk::Result;
            hook always vkCreateImage.create_image: vk::PFN_vkCreateImage => attachments::create_image [device: vk::Device, p_create_info: *const vk::ImageCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_image: *mut vk::Image] -> vk::Result;
            hook always vkDestroyImage.destroy_image: vk::PFN_vkDestroyImage => attachments::destroy_image [device: vk::Device, image: vk::Image, p_allocator: *const vk::AllocationCallbacks];
            hook always vkCreateImageView.create_image_view: vk::PFN_vkCreateImageView => attachments::create_view [device: vk::Device, p_create_info: *const vk::ImageViewCreateInfo, p_allocator: *const vk::AllocationCallbacks, p_view: *mut vk::ImageView] -> vk::Result;
            hook always vkDestroyImageView.destroy_image_view: vk::PFN_vkDestroyImageView => attachments::destroy_view [device: vk::Device, image_view: vk::ImageView, p_allocator: *const vk::AllocationCallbacks];
            after always vkCmdBindPipeline.cmd_bind_pipeline: vk::PFN_vkCmdBindPipeline => state::bind_pipeline [command_buffer: vk::CommandBuffer, pipeline_bind_point: vk::PipelineBindPoint, pipeline: vk::Pipeline];
            after always vkCmdBindShadersEXT.cmd_bind_shaders_ext: vk::PFN_vkCmdBindShadersEXT => state::bind_shaders [command_buffer: vk::CommandBuffer, stage_count: u32, p_stages: *const vk::ShaderStageFlags, p_shaders: *const vk::ShaderEXT];
            after always vkCmdSetRasterizationSamplesEXT.cmd_set_rasterization_samples_ext: vk::PFN_vkCmdSetRasterizationSamplesEXT => state::rasterization_samples [command_buffer: vk::CommandBuffer, rasterization_samples: vk::SampleCountFlags];
            after always vkCmdSetDepthTestEnable.cmd_set_depth_test_enable: vk::PFN_vkCmdSetDepthTestEnable => state::depth_test_enable [command_buffer: vk::CommandBuffer, depth_test_enable: vk::Bool32];
            after always vkCmdSetDepthTestEnableEXT.cmd_set_depth_test_enable_ext: vk::PFN_vkCmdSetDepthTestEnable => state::depth_test_enable [command_buffer: vk::CommandBuffer, depth_test_enable: vk::Bool32];
            after always vkCmdSetDepthWriteEnable.cmd_set_depth_write_enable: vk::PFN_vkCmdSetDepthWriteEnable => state::depth_write_enable [command_buffer: vk::CommandBuffer, depth_write_enable: vk::Bool32];
            after always vkCmdSetDepthWriteEnableEXT.cmd_set_depth_write_enable_ext: vk::PFN_vkCmdSetDepthWriteEnable => state::depth_write_enable [command_buffer: vk::CommandBuffer, depth_write_enable: vk::Bool32];
            after always vkCmdSetDepthCompareOp.cmd_set_depth_compare_op: vk::PFN_vkCmdSetDepthCompareOp => state::depth_compare_op [command_buffer: vk::CommandBuffer, depth_compare_op: vk::CompareOp];
            after always vkCmdSetDepthCompareOpEXT.cmd_set_depth_compare_op_ext: vk::PFN_vkCmdSetDepthCompareOp => state::depth_compare_op [command_buffer: vk::CommandBuffer, depth_compare_op: vk::CompareOp];
            after always vkCmdSetStencilTestEnable.cmd_set_stencil_test_enable: vk::PFN_vkCmdSetStencilTestEnable => state::stencil_test_enable [command_buffer: vk::CommandBuffer, stencil_test_enable: vk::Bool32];
            after always vkCmdSetStencilTestEnableEXT.cmd_set_stencil_test_enable_ext: vk::PFN_vkCmdSetStencilTestEnable => state::stencil_test_enable [command_buffer: vk::CommandBuffer, stencil_test_enable: vk::Bool32];
            after always vkCmdSetColorBlendEnableEXT.cmd_set_color_blend_enable_ext: vk::PFN_vkCmdSetColorBlendEnableEXT => state::color_blend_enable [command_buffer: vk::CommandBuffer, first_attachment: u32, attachment_count: u32, p_color_blend_enables: *const vk::Bool32];
            after always vkCmdSetColorBlendEquationEXT.cmd_set_color_blend_equation_ext: vk::PFN_vkCmdSetColorBlendEquationEXT => state::color_blend_equation [command_buffer: vk::CommandBuffer, first_attachment: u32, attachment_count: u32, p_color_blend_equations: *const vk::ColorBlendEquationEXT];
            after always vkCmdSetColorWriteMaskEXT.cmd_set_color_write_mask_ext: vk::PFN_vkCmdSetColorWriteMaskEXT => state::color_write_mask [command_buffer: vk::CommandBuffer, first_attachment: u32, attachment_count: u32, p_color_write_masks: *const vk::ColorComponentFlags];
            after always vkCmdSetFragmentShadingRateKHR.cmd_set_fragment_shading_rate_khr: vk::PFN_vkCmdSetFragmentShadingRateKHR => state::fragment_shading_rate [command_buffer: vk::CommandBuffer, p_fragment_size: *const vk::Extent2D, combiner_ops: *const [vk::FragmentShadingRateCombinerOpKHR; 2]];
            hook always vkCmdBeginRendering.cmd_begin_rendering: vk::PFN_vkCmdBeginRendering => passes::begin_rendering [command_buffer: vk::CommandBuffer, p_rendering_info: *const vk::RenderingInfo];
            hook always vkCmdBeginRenderingKHR.cmd_begin_rendering_khr: vk::PFN_vkCmdBeginRendering => passes::begin_rendering [command_buffer: vk::CommandBuffer, p_rendering_info: *const vk::RenderingInfo];
            hook always vkCmdEndRendering.cmd_end_rendering: vk::PFN_vkCmdEndRendering => passes::end_rendering [command_buffer: vk::CommandBuffer];
            hook always vkCmdEndRenderingKHR.cmd_end_rendering_khr: vk::PFN_vkCmdEndRendering => passes::end_rendering [command_buffer: vk::CommandBuffer];
            hook always vkCmdBeginRenderPass.cmd_begin_render_pass: vk::PFN_vkCmdBeginRenderPass => passes::begin_render_pass [command_buffer: vk::CommandBuffer, p_render_pass_begin: *const vk::RenderPassBeginInfo, contents: vk::SubpassContents];
            hook always vkCmdBeginRenderPass2.cmd_begin_render_pass2: vk::PFN_vkCmdBeginRenderPass2 => passes::begin_render_pass2 [command_buffer: vk::CommandBuffer, p_render_pass_begin: *const vk::RenderPassBeginInfo, p_subpass_begin_info: *const vk::SubpassBeginInfo];
            hook always vkCmdBeginRenderPass2KHR.cmd_begin_render_pass2_khr: vk::PFN_vkCmdBeginRenderPass2 => passes::begin_render_pass2 [command_buffer: vk::CommandBuffer, p_render_pass_begin: *const vk::RenderPassBeginInfo, p_subpass_begin_info: *const vk::SubpassBeginInfo];
            hook always vkCmdNextSubpass.cmd_next_subpass: vk::PFN_vkCmdNextSubpass => passes::next_subpass [command_buffer: vk::CommandBuffer, contents: vk::SubpassContents];
            hook always vkCmdNextSubpass2.cmd_next_subpass2: vk::PFN_vkCmdNextSubpass2 => passes::next_subpass2 [command_buffer: vk::CommandBuffer, p_subpass_begin_info: *const vk::SubpassBeginInfo, p_subpass_end_info: *const vk::SubpassEndInfo];
            hook always vkCmdNextSubpass2KHR.cmd_next_subpass2_khr: vk::PFN_vkCmdNextSubpass2 => passes::next_subpass2 [command_buffer: vk::CommandBuffer, p_subpass_begin_info: *const vk::SubpassBeginInfo, p_subpass_end_info: *const vk::SubpassEndInfo];
            hook always vkCmdEndRenderPass.cmd_end_render_pass: vk::PFN_vkCmdEndRenderPass => passes::end_render_pass [command_buffer: vk::CommandBuffer];
            hook always vkCmdEndRenderPass2.cmd_end_render_pass2: vk::PFN_vkCmdEndRenderPass2 => passes::end_render_pass2 [command_buffer: vk::CommandBuffer, p_subpass_end_info: *const vk::SubpassEndInfo];
            hook always vkCmdEndRenderPass2KHR.cmd_end_render_pass2_khr: vk::PFN_vkCmdEndRenderPass2 => passes::end_render_pass2 [command_buffer: vk::CommandBuffer, p_subpass_end_info: *const vk::SubpassEndInfo];
            draw always vkCmdDraw.cmd_draw: vk::PFN_vkCmdDraw => count [command_buffer: vk::CommandBuffer, vertex_count: u32, instance_count: u32, first_vertex: u32, first_instance: u32];
            draw always vkCmdDrawIndexed.cmd_draw_indexed: vk::PFN_vkCmdDrawIndexed => count [command_buffer: vk::CommandBuffer, index_count: u32, instance_count: u32, first_index: u32, vertex_offset: i32, first_instance: u32];
            draw always vkCmdDrawIndirect.cmd_draw_indirect: vk::PFN_vkCmdDrawIndirect => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32];
            draw always vkCmdDrawIndexedIndirect.cmd_draw_indexed_indirect: vk::PFN_vkCmdDrawIndexedIndirect => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32];
            draw always vkCmdDrawIndirectCount.cmd_draw_indirect_count: vk::PFN_vkCmdDrawIndirectCount => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, count_buffer: vk::Buffer, count_buffer_offset: vk::DeviceSize, max_draw_count: u32, stride: u32];
            draw always vkCmdDrawIndirectCountKHR.cmd_draw_indirect_count_khr: vk::PFN_vkCmdDrawIndirectCount => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, count_buffer: vk::Buffer, count_buffer_offset: vk::DeviceSize, max_draw_count: u32, stride: u32];
            draw always vkCmdDrawIndexedIndirectCount.cmd_draw_indexed_indirect_count: vk::PFN_vkCmdDrawIndexedIndirectCount => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, count_buffer: vk::Buffer, count_buffer_offset: vk::DeviceSize, max_draw_count: u32, stride: u32];
            draw always vkCmdDrawIndexedIndirectCountKHR.cmd_draw_indexed_indirect_count_khr: vk::PFN_vkCmdDrawIndexedIndirectCount => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, count_buffer: vk::Buffer, count_buffer_offset: vk::DeviceSize, max_draw_count: u32, stride: u32];
            draw always vkCmdDrawMeshTasksEXT.cmd_draw_mesh_tasks_ext: vk::PFN_vkCmdDrawMeshTasksEXT => count [command_buffer: vk::CommandBuffer, group_count_x: u32, group_count_y: u32, group_count_z: u32];
            draw always vkCmdDrawMeshTasksIndirectEXT.cmd_draw_mesh_tasks_indirect_ext: vk::PFN_vkCmdDrawMeshTasksIndirectEXT => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32];
            draw always vkCmdDrawMeshTasksIndirectCountEXT.cmd_draw_mesh_tasks_indirect_count_ext: vk::PFN_vkCmdDrawMeshTasksIndirectCountEXT => count [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, count_buffer: vk::Buffer, count_buffer_offset: vk::DeviceSize, max_draw_count: u32, stride: u32];
            draw always vkCmdDrawMultiEXT.cmd_draw_multi_ext: vk::PFN_vkCmdDrawMultiEXT => count [command_buffer: vk::CommandBuffer, draw_count: u32, p_vertex_info: *const vk::MultiDrawInfoEXT, instance_count: u32, first_instance: u32, stride: u32];
            draw always vkCmdDrawMultiIndexedEXT.cmd_draw_multi_indexed_ext: vk::PFN_vkCmdDrawMultiIndexedEXT => count [command_buffer: vk::CommandBuffer, draw_count: u32, p_index_info: *const vk::MultiDrawIndexedInfoEXT, instance_count: u32, first_instance: u32, stride: u32, p_vertex_offset: *const i32];
            after always vkCmdSetStencilOp.cmd_set_stencil_op: vk::PFN_vkCmdSetStencilOp => state::stencil_op [command_buffer: vk::CommandBuffer, face_mask: vk::StencilFaceFlags, fail_op: vk::StencilOp, pass_op: vk::StencilOp, depth_fail_op: vk::StencilOp, compare_op: vk::CompareOp];
            after always vkCmdSetStencilOpEXT.cmd_set_stencil_op_ext: vk::PFN_vkCmdSetStencilOp => state::stencil_op [command_buffer: vk::CommandBuffer, face_mask: vk::StencilFaceFlags, fail_op: vk::StencilOp, pass_op: vk::StencilOp, depth_fail_op: vk::StencilOp, compare_op: vk::CompareOp];
            after always vkCmdSetRasterizerDiscardEnable.cmd_set_rasterizer_discard_enable: vk::PFN_vkCmdSetRasterizerDiscardEnable => state::rasterizer_discard_enable [command_buffer: vk::CommandBuffer, rasterizer_discard_enable: vk::Bool32];
            after always vkCmdSetRasterizerDiscardEnableEXT.cmd_set_rasterizer_discard_enable_ext: vk::PFN_vkCmdSetRasterizerDiscardEnable => state::rasterizer_discard_enable [command_buffer: vk::CommandBuffer, rasterizer_discard_enable: vk::Bool32];
            action timing vkCmdPipelineBarrier.cmd_pipeline_barrier: vk::PFN_vkCmdPipelineBarrier => timing::before_action [command_buffer: vk::CommandBuffer, src_stage_mask: vk::PipelineStageFlags, dst_stage_mask: vk::PipelineStageFlags, dependency_flags: vk::DependencyFlags, memory_barrier_count: u32, p_memory_barriers: *const vk::MemoryBarrier, buffer_memory_barrier_count: u32, p_buffer_memory_barriers: *const vk::BufferMemoryBarrier, image_memory_barrier_count: u32, p_image_memory_barriers: *const vk::ImageMemoryBarrier];
            action timing vkCmdPipelineBarrier2.cmd_pipeline_barrier2: vk::PFN_vkCmdPipelineBarrier2 => timing::before_action [command_buffer: vk::CommandBuffer, p_dependency_info: *const vk::DependencyInfo];
            action timing vkCmdPipelineBarrier2KHR.cmd_pipeline_barrier2_khr: vk::PFN_vkCmdPipelineBarrier2 => timing::before_action [command_buffer: vk::CommandBuffer, p_dependency_info: *const vk::DependencyInfo];
            action timing vkCmdWaitEvents.cmd_wait_events: vk::PFN_vkCmdWaitEvents => timing::before_action [command_buffer: vk::CommandBuffer, event_count: u32, p_events: *const vk::Event, src_stage_mask: vk::PipelineStageFlags, dst_stage_mask: vk::PipelineStageFlags, memory_barrier_count: u32, p_memory_barriers: *const vk::MemoryBarrier, buffer_memory_barrier_count: u32, p_buffer_memory_barriers: *const vk::BufferMemoryBarrier, image_memory_barrier_count: u32, p_image_memory_barriers: *const vk::ImageMemoryBarrier];
            action timing vkCmdWaitEvents2.cmd_wait_events2: vk::PFN_vkCmdWaitEvents2 => timing::before_action [command_buffer: vk::CommandBuffer, event_count: u32, p_events: *const vk::Event, p_dependency_infos: *const vk::DependencyInfo];
            action timing vkCmdWaitEvents2KHR.cmd_wait_events2_khr: vk::PFN_vkCmdWaitEvents2 => timing::before_action [command_buffer: vk::CommandBuffer, event_count: u32, p_events: *const vk::Event, p_dependency_infos: *const vk::DependencyInfo];
            action timing vkCmdSetEvent.cmd_set_event: vk::PFN_vkCmdSetEvent => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, stage_mask: vk::PipelineStageFlags];
            action timing vkCmdSetEvent2.cmd_set_event2: vk::PFN_vkCmdSetEvent2 => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, p_dependency_info: *const vk::DependencyInfo];
            action timing vkCmdSetEvent2KHR.cmd_set_event2_khr: vk::PFN_vkCmdSetEvent2 => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, p_dependency_info: *const vk::DependencyInfo];
            action timing vkCmdResetEvent.cmd_reset_event: vk::PFN_vkCmdResetEvent => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, stage_mask: vk::PipelineStageFlags];
            action timing vkCmdResetEvent2.cmd_reset_event2: vk::PFN_vkCmdResetEvent2 => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, stage_mask: vk::PipelineStageFlags2];
            action timing vkCmdResetEvent2KHR.cmd_reset_event2_khr: vk::PFN_vkCmdResetEvent2 => timing::before_action [command_buffer: vk::CommandBuffer, event: vk::Event, stage_mask: vk::PipelineStageFlags2];
            action timing vkCmdCopyBuffer.cmd_copy_buffer: vk::PFN_vkCmdCopyBuffer => timing::before_action [command_buffer: vk::CommandBuffer, src_buffer: vk::Buffer, dst_buffer: vk::Buffer, region_count: u32, p_regions: *const vk::BufferCopy];
            action timing vkCmdCopyImage.cmd_copy_image: vk::PFN_vkCmdCopyImage => timing::before_action [command_buffer: vk::CommandBuffer, src_image: vk::Image, src_image_layout: vk::ImageLayout, dst_image: vk::Image, dst_image_layout: vk::ImageLayout, region_count: u32, p_regions: *const vk::ImageCopy];
            action timing vkCmdCopyBufferToImage.cmd_copy_buffer_to_image: vk::PFN_vkCmdCopyBufferToImage => timing::before_action [command_buffer: vk::CommandBuffer, src_buffer: vk::Buffer, dst_image: vk::Image, dst_image_layout: vk::ImageLayout, region_count: u32, p_regions: *const vk::BufferImageCopy];
            action timing vkCmdCopyImageToBuffer.cmd_copy_image_to_buffer: vk::PFN_vkCmdCopyImageToBuffer => timing::before_action [command_buffer: vk::CommandBuffer, src_image: vk::Image, src_image_layout: vk::ImageLayout, dst_buffer: vk::Buffer, region_count: u32, p_regions: *const vk::BufferImageCopy];
            action timing vkCmdCopyBuffer2.cmd_copy_buffer2: vk::PFN_vkCmdCopyBuffer2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_buffer_info: *const vk::CopyBufferInfo2];
            action timing vkCmdCopyBuffer2KHR.cmd_copy_buffer2_khr: vk::PFN_vkCmdCopyBuffer2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_buffer_info: *const vk::CopyBufferInfo2];
            action timing vkCmdCopyImage2.cmd_copy_image2: vk::PFN_vkCmdCopyImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_image_info: *const vk::CopyImageInfo2];
            action timing vkCmdCopyImage2KHR.cmd_copy_image2_khr: vk::PFN_vkCmdCopyImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_image_info: *const vk::CopyImageInfo2];
            action timing vkCmdCopyBufferToImage2.cmd_copy_buffer_to_image2: vk::PFN_vkCmdCopyBufferToImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_buffer_to_image_info: *const vk::CopyBufferToImageInfo2];
            action timing vkCmdCopyBufferToImage2KHR.cmd_copy_buffer_to_image2_khr: vk::PFN_vkCmdCopyBufferToImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_buffer_to_image_info: *const vk::CopyBufferToImageInfo2];
            action timing vkCmdCopyImageToBuffer2.cmd_copy_image_to_buffer2: vk::PFN_vkCmdCopyImageToBuffer2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_image_to_buffer_info: *const vk::CopyImageToBufferInfo2];
            action timing vkCmdCopyImageToBuffer2KHR.cmd_copy_image_to_buffer2_khr: vk::PFN_vkCmdCopyImageToBuffer2 => timing::before_action [command_buffer: vk::CommandBuffer, p_copy_image_to_buffer_info: *const vk::CopyImageToBufferInfo2];
            action timing vkCmdBlitImage.cmd_blit_image: vk::PFN_vkCmdBlitImage => timing::before_action [command_buffer: vk::CommandBuffer, src_image: vk::Image, src_image_layout: vk::ImageLayout, dst_image: vk::Image, dst_image_layout: vk::ImageLayout, region_count: u32, p_regions: *const vk::ImageBlit, filter: vk::Filter];
            action timing vkCmdBlitImage2.cmd_blit_image2: vk::PFN_vkCmdBlitImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_blit_image_info: *const vk::BlitImageInfo2];
            action timing vkCmdBlitImage2KHR.cmd_blit_image2_khr: vk::PFN_vkCmdBlitImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_blit_image_info: *const vk::BlitImageInfo2];
            action timing vkCmdResolveImage.cmd_resolve_image: vk::PFN_vkCmdResolveImage => timing::before_action [command_buffer: vk::CommandBuffer, src_image: vk::Image, src_image_layout: vk::ImageLayout, dst_image: vk::Image, dst_image_layout: vk::ImageLayout, region_count: u32, p_regions: *const vk::ImageResolve];
            action timing vkCmdResolveImage2.cmd_resolve_image2: vk::PFN_vkCmdResolveImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_resolve_image_info: *const vk::ResolveImageInfo2];
            action timing vkCmdResolveImage2KHR.cmd_resolve_image2_khr: vk::PFN_vkCmdResolveImage2 => timing::before_action [command_buffer: vk::CommandBuffer, p_resolve_image_info: *const vk::ResolveImageInfo2];
            action timing vkCmdFillBuffer.cmd_fill_buffer: vk::PFN_vkCmdFillBuffer => timing::before_action [command_buffer: vk::CommandBuffer, dst_buffer: vk::Buffer, dst_offset: vk::DeviceSize, size: vk::DeviceSize, data: u32];
            action timing vkCmdUpdateBuffer.cmd_update_buffer: vk::PFN_vkCmdUpdateBuffer => timing::before_action [command_buffer: vk::CommandBuffer, dst_buffer: vk::Buffer, dst_offset: vk::DeviceSize, data_size: vk::DeviceSize, p_data: *const std::ffi::c_void];
            action timing vkCmdClearColorImage.cmd_clear_color_image: vk::PFN_vkCmdClearColorImage => timing::before_action [command_buffer: vk::CommandBuffer, image: vk::Image, image_layout: vk::ImageLayout, p_color: *const vk::ClearColorValue, range_count: u32, p_ranges: *const vk::ImageSubresourceRange];
            action timing vkCmdClearDepthStencilImage.cmd_clear_depth_stencil_image: vk::PFN_vkCmdClearDepthStencilImage => timing::before_action [command_buffer: vk::CommandBuffer, image: vk::Image, image_layout: vk::ImageLayout, p_depth_stencil: *const vk::ClearDepthStencilValue, range_count: u32, p_ranges: *const vk::ImageSubresourceRange];
            action timing vkCmdDispatch.cmd_dispatch: vk::PFN_vkCmdDispatch => timing::before_action [command_buffer: vk::CommandBuffer, group_count_x: u32, group_count_y: u32, group_count_z: u32];
            action timing vkCmdDispatchIndirect.cmd_dispatch_indirect: vk::PFN_vkCmdDispatchIndirect => timing::before_action [command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize];
            action timing vkCmdDispatchBase.cmd_dispatch_base: vk::PFN_vkCmdDispatchBase => timing::before_action [command_buffer: vk::CommandBuffer, base_group_x: u32, base_group_y: u32, base_group_z: u32, group_count_x: u32, group_count_y: u32, group_count_z: u32];
            hook always vkCmdExecuteCommands.cmd_execute_commands: vk::PFN_vkCmdExecuteCommands => lifecycle::execute_commands [command_buffer: vk::CommandBuffer, command_buffer_count: u32, p_command_buffers: *const vk::CommandBuffer];
            action timing vkCmdResetQueryPool.cmd_reset_query_pool: vk::PFN_vkCmdResetQueryPool => timing::before_action [command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, first_query: u32, query_count: u32];
            action timing vkCmdBeginQuery.cmd_begin_query: vk::PFN_vkCmdBeginQuery => timing::before_action [command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, query: u32, flags: vk::QueryControlFlags];
            action timing vkCmdWriteTimestamp.cmd_write_timestamp: vk::PFN_vkCmdWriteTimestamp => timing::before_action [command_buffer: vk::CommandBuffer, pipeline_stage: vk::PipelineStageFlags, query_pool: vk::QueryPool, query: u32];
            action timing vkCmdWriteTimestamp2.cmd_write_timestamp2: vk::PFN_vkCmdWriteTimestamp2 => timing::before_action [command_buffer: vk::CommandBuffer, stage: vk::PipelineStageFlags2, query_pool: vk::QueryPool, query: u32];
            action timing vkCmdWriteTimestamp2KHR.cmd_write_timestamp2_khr: vk::PFN_vkCmdWriteTimestamp2 => timing::before_action [command_buffer: vk::CommandBuffer, stage: vk::PipelineStageFlags2, query_pool: vk::QueryPool, query: u32];
            action timing vkCmdCopyQueryPoolResults.cmd_copy_query_pool_results: vk::PFN_vkCmdCopyQueryPoolResults => timing::before_action [command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, first_query: u32, query_count: u32, dst_buffer: vk::Buffer, dst_offset: vk::DeviceSize, stride: vk::DeviceSize, flags: vk::QueryResultFlags];
            hook always vkSetDebugUtilsObjectNameEXT.set_debug_utils_object_name_ext: vk::PFN_vkSetDebugUtilsObjectNameEXT => names::debug_utils [device: vk::Device, p_name_info: *const vk::DebugUtilsObjectNameInfoEXT] -> vk::Result;
            hook always vkDebugMarkerSetObjectNameEXT.debug_marker_set_object_name_ext: vk::PFN_vkDebugMarkerSetObjectNameEXT => names::debug_marker [device: vk::Device, p_name_info: *const vk::DebugMarkerObjectNameInfoEXT] -> vk::Result;
            ]
            device_calls [
                vkCreateQueryPool.create_query_pool: vk::PFN_vkCreateQueryPool;
                vkDestroyQueryPool.destroy_query_pool: vk::PFN_vkDestroyQueryPool;
                vkGetDeviceFaultInfoEXT.get_device_fault_info_ext: vk::PFN_vkGetDeviceFaultInfoEXT;
                vkGetPipelineExecutablePropertiesKHR.get_pipeline_executable_properties_khr: vk::PFN_vkGetPipelineExecutablePropertiesKHR;
                vkGetPipelineExecutableInternalRepresentationsKHR.get_pipeline_executable_internal_representations_khr: vk::PFN_vkGetPipelineExecutableInternalRepresentationsKHR;
                vkGetPipelineKeyKHR.get_pipeline_key_khr: crate::ffi::PFN_vkGetPipelineKeyKHR;
                vkCreatePipelineBinariesKHR.create_pipeline_binaries_khr: crate::ffi::PFN_vkCreatePipelineBinariesKHR;
                vkGetPipelineBinaryDataKHR.get_pipeline_binary_data_khr: crate::ffi::PFN_vkGetPipelineBinaryDataKHR;
                vkDestroyPipelineBinaryKHR.destroy_pipeline_binary_khr: crate::ffi::PFN_vkDestroyPipelineBinaryKHR;
                vkGetShaderBinaryDataEXT.get_shader_binary_data_ext: vk::PFN_vkGetShaderBinaryDataEXT;
            ]
        }
    };
}

pub(crate) use vulkan_table;

/// What the table gives the rest of the layer by name: every intercepted function with its
/// parameters' names ([`PROTOTYPES`]), and every Vulkan function name as a constant of its own
/// name ([`vkfn`]).
macro_rules! names {
    (
        global [$($gk:ident $gw:ident $gname:ident . $gfield:ident : $gpfn:ty => $gbody:path [$($garg:ident : $gty:ty),*] $(-> $gret:ty)?;)*]
        instance [$($ik:ident $iw:ident $iname:ident . $ifield:ident : $ipfn:ty => $ibody:path [$($iarg:ident : $ity:ty),*] $(-> $iret:ty)?;)*]
        instance_calls [$($icname:ident . $icfield:ident : $icpfn:ty;)*]
        device [$($dk:ident $dw:ident $dname:ident . $dfield:ident : $dpfn:ty => $dbody:path [$($darg:ident : $dty:ty),*] $(-> $dret:ty)?;)*]
        device_calls [$($dcname:ident . $dcfield:ident : $dcpfn:ty;)*]
    ) => {
        /// Every function the layer intercepts, with its parameters' names as the table gives
        /// them: the Vulkan registry's, in snake case (`layer/tests/registry.rs` checks them
        /// against `vk.xml`).
        pub const PROTOTYPES: &[(&str, &[&str])] = &[
            $((stringify!($gname), &[$(stringify!($garg)),*]),)*
            $((stringify!($iname), &[$(stringify!($iarg)),*]),)*
            $((stringify!($dname), &[$(stringify!($darg)),*]),)*
        ];

        /// The table's Vulkan function names: what the hook bodies say a call is
        /// (`vkfn::vkQueueSubmit`), so that no name is typed twice.
        #[allow(non_upper_case_globals, dead_code)]
        pub mod vkfn {
            $(pub const $gname: &str = stringify!($gname);)*
            $(pub const $iname: &str = stringify!($iname);)*
            $(pub const $icname: &str = stringify!($icname);)*
            $(pub const $dname: &str = stringify!($dname);)*
            $(pub const $dcname: &str = stringify!($dcname);)*
        }
    };
}

vulkan_table!(names);
