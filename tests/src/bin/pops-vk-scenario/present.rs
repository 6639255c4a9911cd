//! Frames presented to a headless surface (VK_EXT_headless_surface): what the layer's timing
//! calls a frame.

use crate::common::*;

/// POPS_SCENARIO_FRAMES frames (default 3), each one submission that clears the acquired
/// swapchain image, then a present; an upload-like submission before the first frame. Prints
/// the number of frames and submissions.
pub(crate) fn scenario_present() -> Res<()> {
    let frames = env_u32("POPS_SCENARIO_FRAMES", 3);
    // SAFETY: loads libvulkan.so.1, the system loader.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("loader: {e}"))?;
    let Headless {
        instance,
        surfaces,
        surface,
        pdev,
        family,
        caps,
        format,
    } = headless(&entry)?;
    // SAFETY (whole scenario): objects created, used after waits and destroyed in order; every
    // create info is well-formed.
    unsafe {
        let device = swapchain_device(&instance, pdev, family)?;
        let queue = device.get_device_queue(family, 0);
        let sc = ash::khr::swapchain::Device::new(&instance, &device);
        let swapchain = create_swapchain(&sc, surface, &caps, format)?;
        let images = sc
            .get_swapchain_images(swapchain)
            .map_err(vkerr("vkGetSwapchainImagesKHR"))?;
        let pool = device
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
            .map_err(vkerr("vkCreateCommandPool"))?;
        let cb = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(vkerr("vkCreateFence"))?;
        let acquired = device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .map_err(vkerr("vkCreateSemaphore"))?;
        let rendered = device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .map_err(vkerr("vkCreateSemaphore"))?;
        let mut submissions = 0;
        // Records `f` into the command buffer and submits it, waiting on `wait`, signalling
        // `signal`, and waits for it.
        let mut submit = |f: &dyn Fn(vk::CommandBuffer),
                          wait: &[vk::Semaphore],
                          signal: &[vk::Semaphore]|
         -> Res<()> {
            submit_and_wait(&device, queue, cb, fence, f, wait, signal)?;
            submissions += 1;
            Ok(())
        };
        // An upload before the first frame: nothing recorded.
        submit(&|_| {}, &[], &[])?;
        for n in 0..frames {
            let (index, _) = sc
                .acquire_next_image(swapchain, u64::MAX, acquired, vk::Fence::null())
                .map_err(vkerr("vkAcquireNextImageKHR"))?;
            let image = images[index as usize];
            submit(
                &|cb| {
                    let colour = [n as f32 / frames as f32, 0.5, 0.25, 1.0];
                    clear_for_present(&device, cb, image, colour);
                },
                &[acquired],
                &[rendered],
            )?;
            let swapchains = [swapchain];
            let indices = [index];
            let waits = [rendered];
            sc.queue_present(
                queue,
                &vk::PresentInfoKHR::default()
                    .wait_semaphores(&waits)
                    .swapchains(&swapchains)
                    .image_indices(&indices),
            )
            .map_err(vkerr("vkQueuePresentKHR"))?;
        }
        device
            .device_wait_idle()
            .map_err(vkerr("vkDeviceWaitIdle"))?;
        println!(
            "{}",
            serde_json::json!({"frames": frames, "submissions": submissions})
        );
        device.destroy_semaphore(rendered, None);
        device.destroy_semaphore(acquired, None);
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
        sc.destroy_swapchain(swapchain, None);
        device.destroy_device(None);
        surfaces.destroy_surface(surface, None);
        instance.destroy_instance(None);
    }
    Ok(())
}

/// A 64×64 FIFO swapchain the frames are cleared into by transfers.
///
/// # Safety
/// `surface` is a live surface of the device `sc` was loaded for.
unsafe fn create_swapchain(
    sc: &ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    caps: &vk::SurfaceCapabilitiesKHR,
    format: vk::SurfaceFormatKHR,
) -> Res<vk::SwapchainKHR> {
    // SAFETY: the create info is well-formed; the caller's surface is live.
    unsafe {
        sc.create_swapchain(
            &vk::SwapchainCreateInfoKHR::default()
                .surface(surface)
                .min_image_count(caps.min_image_count.max(2))
                .image_format(format.format)
                .image_color_space(format.color_space)
                .image_extent(vk::Extent2D {
                    width: 64,
                    height: 64,
                })
                .image_array_layers(1)
                .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
                .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
                .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
                .present_mode(vk::PresentModeKHR::FIFO)
                .clipped(true),
            None,
        )
        .map_err(vkerr("vkCreateSwapchainKHR"))
    }
}

/// Records the clear of `image` to `colour` and its transition for presenting.
fn clear_for_present(
    device: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    colour: [f32; 4],
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let barrier = |old, new| {
        vk::ImageMemoryBarrier::default()
            .image(image)
            .old_layout(old)
            .new_layout(new)
            .subresource_range(range)
    };
    let to_dst = barrier(
        vk::ImageLayout::UNDEFINED,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )
    .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE);
    let to_present = barrier(
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        vk::ImageLayout::PRESENT_SRC_KHR,
    )
    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE);
    // SAFETY: `cb` is recording on `device`; `image` is a live swapchain image.
    unsafe {
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_dst],
        );
        device.cmd_clear_color_image(
            cb,
            image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &vk::ClearColorValue { float32: colour },
            &[range],
        );
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_present],
        );
    }
}

/// An instance with a headless surface its first device's graphics queue can present to.
struct Headless {
    instance: ash::Instance,
    surfaces: ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
    pdev: vk::PhysicalDevice,
    family: u32,
    caps: vk::SurfaceCapabilitiesKHR,
    format: vk::SurfaceFormatKHR,
}

fn headless(entry: &ash::Entry) -> Res<Headless> {
    // SAFETY: a loaded entry.
    let exts = unsafe { entry.enumerate_instance_extension_properties(None) }
        .map_err(vkerr("vkEnumerateInstanceExtensionProperties"))?;
    if !has_ext(&exts, ash::ext::headless_surface::NAME) {
        return Err("SKIP: no VK_EXT_headless_surface".into());
    }
    let app = vk::ApplicationInfo::default()
        .application_name(c"pops-scenario-present")
        .api_version(vk::API_VERSION_1_1);
    let names = [
        ash::khr::surface::NAME.as_ptr(),
        ash::ext::headless_surface::NAME.as_ptr(),
    ];
    // SAFETY: every create info is well-formed; the objects are returned to be destroyed by
    // the scenario.
    unsafe {
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default()
                    .application_info(&app)
                    .enabled_extension_names(&names),
                None,
            )
            .map_err(vkerr("vkCreateInstance"))?;
        let pdev = *instance
            .enumerate_physical_devices()
            .map_err(vkerr("vkEnumeratePhysicalDevices"))?
            .first()
            .ok_or("no physical device")?;
        let family = instance
            .get_physical_device_queue_family_properties(pdev)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or("no graphics queue")? as u32;
        let headless = ash::ext::headless_surface::Instance::new(entry, &instance);
        let surface = headless
            .create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
            .map_err(vkerr("vkCreateHeadlessSurfaceEXT"))?;
        let surfaces = ash::khr::surface::Instance::new(entry, &instance);
        if !surfaces
            .get_physical_device_surface_support(pdev, family, surface)
            .unwrap_or(false)
        {
            return Err("SKIP: the queue cannot present to a headless surface".into());
        }
        let caps = surfaces
            .get_physical_device_surface_capabilities(pdev, surface)
            .map_err(vkerr("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))?;
        let format = *surfaces
            .get_physical_device_surface_formats(pdev, surface)
            .map_err(vkerr("vkGetPhysicalDeviceSurfaceFormatsKHR"))?
            .first()
            .ok_or("no surface format")?;
        Ok(Headless {
            instance,
            surfaces,
            surface,
            pdev,
            family,
            caps,
            format,
        })
    }
}

/// A device with VK_KHR_swapchain and one queue of `family`.
fn swapchain_device(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    family: u32,
) -> Res<ash::Device> {
    // SAFETY: the create info is well-formed; `pdev` belongs to `instance`.
    unsafe {
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let dev_exts = [ash::khr::swapchain::NAME.as_ptr()];
        let device = instance
            .create_device(
                pdev,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .enabled_extension_names(&dev_exts),
                None,
            )
            .map_err(vkerr("vkCreateDevice"))?;
        Ok(device)
    }
}

/// Records `f` into `cb`, submits it waiting on `wait` and signalling `signal`, and waits for it.
fn submit_and_wait(
    device: &ash::Device,
    queue: vk::Queue,
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    f: &dyn Fn(vk::CommandBuffer),
    wait: &[vk::Semaphore],
    signal: &[vk::Semaphore],
) -> Res<()> {
    // SAFETY: `cb`, `fence` and the semaphores belong to `device`; the fence is unsignalled and
    // the command buffer idle (each submission is waited for).
    unsafe {
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .map_err(vkerr("vkBeginCommandBuffer"))?;
        f(cb);
        device
            .end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;
        let stages = [vk::PipelineStageFlags::TRANSFER];
        let cbs = [cb];
        let info = vk::SubmitInfo::default()
            .command_buffers(&cbs)
            .wait_semaphores(wait)
            .wait_dst_stage_mask(&stages[..wait.len()])
            .signal_semaphores(signal);
        device
            .queue_submit(queue, &[info], fence)
            .map_err(vkerr("vkQueueSubmit"))?;
        device
            .wait_for_fences(&[fence], true, u64::MAX)
            .map_err(vkerr("vkWaitForFences"))?;
        device
            .reset_fences(&[fence])
            .map_err(vkerr("vkResetFences"))?;
        Ok(())
    }
}
