//! The driver's code of one pipeline two ways, for the test that holds `verify_isa`'s premise to
//! the driver: the binaries of a pipeline created as an application creates it (only
//! VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR, which asks the driver to keep them for
//! VK_KHR_pipeline_binary), and the fragment "Assembly" of the same pipeline created with its
//! internal representations captured, as `verify_isa` reads it; and the driver's key of the
//! create info without either flag and with each. No layer: the driver alone.
//! Needs POPS_SCENARIO_CODE_QUERIES=1 (the context enables the extensions).

use crate::common::*;
use std::ffi::c_void;

/// `VkPipelineBinaryCreateInfoKHR` (Vulkan registry: sType 1000483001).
#[repr(C)]
struct BinaryCreateInfo {
    s_type: vk::StructureType,
    p_next: *const c_void,
    p_keys_and_data_info: *const c_void,
    pipeline: vk::Pipeline,
    p_pipeline_create_info: *const c_void,
}

/// `VkPipelineBinaryHandlesInfoKHR` (sType 1000483009).
#[repr(C)]
struct HandlesInfo {
    s_type: vk::StructureType,
    p_next: *const c_void,
    pipeline_binary_count: u32,
    p_pipeline_binaries: *mut u64,
}

/// `VkPipelineBinaryDataInfoKHR` (sType 1000483006).
#[repr(C)]
struct DataInfo {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    pipeline_binary: u64,
}

/// `VkPipelineBinaryKeyKHR` (sType 1000483003).
#[repr(C)]
struct BinaryKey {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    key_size: u32,
    key: [u8; 32],
}

impl BinaryKey {
    /// A key for the driver to fill.
    fn empty() -> BinaryKey {
        BinaryKey {
            s_type: vk::StructureType::from_raw(1_000_483_003),
            p_next: std::ptr::null_mut(),
            key_size: 0,
            key: [0; 32],
        }
    }
}

type CreateBinaries = unsafe extern "system" fn(
    vk::Device,
    *const BinaryCreateInfo,
    *const vk::AllocationCallbacks,
    *mut HandlesInfo,
) -> vk::Result;
type GetData = unsafe extern "system" fn(
    vk::Device,
    *const DataInfo,
    *mut BinaryKey,
    *mut usize,
    *mut c_void,
) -> vk::Result;
type DestroyBinary = unsafe extern "system" fn(vk::Device, u64, *const vk::AllocationCallbacks);

/// `VkPipelineCreateInfoKHR` (sType 1000483007): its pNext is the pipeline's create info.
#[repr(C)]
struct PipelineCreateInfo {
    s_type: vk::StructureType,
    p_next: *const c_void,
}

type GetKey =
    unsafe extern "system" fn(vk::Device, *const PipelineCreateInfo, *mut BinaryKey) -> vk::Result;

/// VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR (Vulkan registry: bit 31).
const CAPTURE_DATA: vk::PipelineCreateFlags2KHR = vk::PipelineCreateFlags2KHR::from_raw(1 << 31);

struct BinaryFns {
    create: CreateBinaries,
    data: GetData,
    destroy: DestroyBinary,
    key: GetKey,
}

impl BinaryFns {
    fn load(ctx: &Ctx) -> Res<BinaryFns> {
        let get = |name: &CStr| {
            // SAFETY: a query on the live device.
            unsafe {
                ctx.instance
                    .get_device_proc_addr(ctx.device.handle(), name.as_ptr())
            }
            .ok_or_else(|| format!("no {}", name.to_string_lossy()))
        };
        // SAFETY: each pointer was returned for the name whose prototype it is given.
        unsafe {
            Ok(BinaryFns {
                create: std::mem::transmute::<unsafe extern "system" fn(), CreateBinaries>(get(
                    c"vkCreatePipelineBinariesKHR",
                )?),
                data: std::mem::transmute::<unsafe extern "system" fn(), GetData>(get(
                    c"vkGetPipelineBinaryDataKHR",
                )?),
                destroy: std::mem::transmute::<unsafe extern "system" fn(), DestroyBinary>(get(
                    c"vkDestroyPipelineBinaryKHR",
                )?),
                key: std::mem::transmute::<unsafe extern "system" fn(), GetKey>(get(
                    c"vkGetPipelineKeyKHR",
                )?),
            })
        }
    }

    /// The driver's key of `ci`, in hex.
    fn key_of(&self, ctx: &Ctx, ci: &vk::GraphicsPipelineCreateInfo) -> Res<String> {
        let info = PipelineCreateInfo {
            s_type: vk::StructureType::from_raw(1_000_483_007),
            p_next: ci as *const vk::GraphicsPipelineCreateInfo as *const c_void,
        };
        let mut key = BinaryKey::empty();
        // SAFETY: a valid create info of the device behind a VkPipelineCreateInfoKHR.
        let r = unsafe { (self.key)(ctx.device.handle(), &info, &mut key) };
        if r != vk::Result::SUCCESS {
            return Err(format!("vkGetPipelineKeyKHR: {r}"));
        }
        let n = (key.key_size as usize).min(32);
        Ok(key.key[..n].iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The data of every binary of `pipeline` (created with CAPTURE_DATA).
    fn data_of(&self, ctx: &Ctx, pipeline: vk::Pipeline) -> Res<Vec<Vec<u8>>> {
        let device = ctx.device.handle();
        let info = BinaryCreateInfo {
            s_type: vk::StructureType::from_raw(1_000_483_001),
            p_next: std::ptr::null(),
            p_keys_and_data_info: std::ptr::null(),
            pipeline,
            p_pipeline_create_info: std::ptr::null(),
        };
        let mut handles = HandlesInfo {
            s_type: vk::StructureType::from_raw(1_000_483_009),
            p_next: std::ptr::null(),
            pipeline_binary_count: 0,
            p_pipeline_binaries: std::ptr::null_mut(),
        };
        // SAFETY (whole function): two-call idioms on a live pipeline; every buffer has the
        // size the driver reported, and every binary is destroyed once.
        unsafe {
            let r = (self.create)(device, &info, std::ptr::null(), &mut handles);
            if r != vk::Result::SUCCESS {
                return Err(format!("vkCreatePipelineBinariesKHR (count): {r}"));
            }
            let mut binaries = vec![0u64; handles.pipeline_binary_count as usize];
            handles.p_pipeline_binaries = binaries.as_mut_ptr();
            let r = (self.create)(device, &info, std::ptr::null(), &mut handles);
            if r != vk::Result::SUCCESS {
                return Err(format!("vkCreatePipelineBinariesKHR: {r}"));
            }
            let mut out = Vec::new();
            for &b in &binaries {
                let di = DataInfo {
                    s_type: vk::StructureType::from_raw(1_000_483_006),
                    p_next: std::ptr::null_mut(),
                    pipeline_binary: b,
                };
                let mut key = BinaryKey::empty();
                let mut size = 0usize;
                let r = (self.data)(device, &di, &mut key, &mut size, std::ptr::null_mut());
                let mut bytes = vec![0u8; size];
                let r2 = (self.data)(device, &di, &mut key, &mut size, bytes.as_mut_ptr().cast());
                (self.destroy)(device, b, std::ptr::null());
                if r != vk::Result::SUCCESS || r2 != vk::Result::SUCCESS {
                    return Err(format!("vkGetPipelineBinaryDataKHR: {r}, {r2}"));
                }
                out.push(bytes);
            }
            Ok(out)
        }
    }
}

/// The fragment executable's "Assembly" text of a pipeline created with its internal
/// representations captured.
fn fragment_assembly(ctx: &Ctx, pipeline: vk::Pipeline) -> Res<String> {
    let x = ash::khr::pipeline_executable_properties::Device::new(&ctx.instance, &ctx.device);
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    // SAFETY: queries on a live pipeline created with its representations captured.
    let props = unsafe { x.get_pipeline_executable_properties(&info) }
        .map_err(vkerr("vkGetPipelineExecutablePropertiesKHR"))?;
    let index = props
        .iter()
        .position(|p| p.stages.contains(vk::ShaderStageFlags::FRAGMENT))
        .ok_or("no fragment executable")?;
    let exec = vk::PipelineExecutableInfoKHR::default()
        .pipeline(pipeline)
        .executable_index(index as u32);
    let mut n = 0u32;
    let fp = x.fp().get_pipeline_executable_internal_representations_khr;
    // SAFETY: the two-call idiom, then the data call with a buffer of the reported size.
    unsafe {
        let r = fp(x.device(), &exec, &mut n, std::ptr::null_mut());
        if r != vk::Result::SUCCESS {
            return Err(format!("representations (count): {r}"));
        }
        let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n as usize];
        let r = fp(x.device(), &exec, &mut n, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS {
            return Err(format!("representations: {r}"));
        }
        let k = reps
            .iter()
            .position(|r| {
                matches!(
                    r.name_as_c_str().ok().and_then(|n| n.to_str().ok()),
                    Some("Assembly" | "Disassembly")
                )
            })
            .ok_or("no Assembly representation")?;
        let mut data = vec![0u8; reps[k].data_size];
        reps[k].p_data = data.as_mut_ptr().cast();
        let r = fp(x.device(), &exec, &mut n, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return Err(format!("representation data: {r}"));
        }
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        Ok(String::from_utf8_lossy(&data[..end]).into_owned())
    }
}

/// One pipeline of `modules` (vertex, fragment) two ways: its binaries as an application
/// creates it, its fragment "Assembly" captured; with the driver's keys of its create info.
fn both_ways(
    ctx: &Ctx,
    fns: &BinaryFns,
    fx: &Fixed,
    [vert, frag]: [vk::ShaderModule; 2],
) -> Res<serde_json::Value> {
    let stages = [
        stage_info(vk::ShaderStageFlags::VERTEX, vert, c"main"),
        stage_info(vk::ShaderStageFlags::FRAGMENT, frag, c"main"),
    ];
    let none = vk::PipelineCreateFlags::empty();
    let cache = vk::PipelineCache::null();
    let plain = create_complete_pipeline_flags2(ctx, fx, &stages, cache, none, Some(CAPTURE_DATA))
        .map_err(|(_, e)| format!("pipeline with its data kept: {e}"))?[0];
    let binaries = fns.data_of(ctx, plain)?;
    let capture = vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
    let captured = create_complete_pipeline(ctx, fx, &stages, cache, capture)
        .map_err(|(_, e)| format!("pipeline with its representations: {e}"))?[0];
    let assembly = fragment_assembly(ctx, captured)?;
    // SAFETY: the pipelines of this call, destroyed once.
    unsafe {
        ctx.device.destroy_pipeline(plain, None);
        ctx.device.destroy_pipeline(captured, None);
    }
    let hex = |b: &Vec<u8>| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    // The driver's key of the create info as an application makes it, and with each flag that
    // asks it to keep the pipeline's code.
    let key = |flags2: Option<vk::PipelineCreateFlags2KHR>| {
        with_complete_pipeline_info(ctx, fx, &stages, (none, flags2), |ci| fns.key_of(ctx, ci))
    };
    let keys = serde_json::json!({
        "plain": key(None)?,
        "data": key(Some(CAPTURE_DATA))?,
        "representations": key(Some(vk::PipelineCreateFlags2KHR::CAPTURE_INTERNAL_REPRESENTATIONS))?,
    });
    Ok(serde_json::json!({"assembly": assembly,
        "binaries": binaries.iter().map(hex).collect::<Vec<_>>(), "keys": keys}))
}

pub(crate) fn scenario_capture_code() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-capture-code")?;
    require_interlock(&ctx)?;
    let fns = BinaryFns::load(&ctx)?;
    let vert = ctx.module(spv("fullscreen.vert")?)?;
    let list = std::env::var("POPS_SCENARIO_SHADERS").unwrap_or_else(|_| DEFAULT_SHADERS.into());
    for item in list.split(',') {
        let (shader, samples) = item.split_once(':').unwrap_or((item, "1"));
        let samples: u32 = samples.parse().map_err(|_| format!("samples of {item}"))?;
        let frag = ctx.module(spv(shader)?)?;
        // Blending dynamic as well where the device allows it: RADV then jumps into a PS
        // epilog for the exports, compiled at draw time.
        for dynamic_blend in [false, true]
            .into_iter()
            .filter(|d| !d || ctx.caps.dynamic_blend)
        {
            let mut fx = Fixed::new(samples);
            if dynamic_blend {
                fx.dyn_states.extend([
                    vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
                    vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
                    vk::DynamicState::COLOR_WRITE_MASK_EXT,
                ]);
            }
            let mut line = both_ways(&ctx, &fns, &fx, [vert, frag])
                .map_err(|e| format!("{shader} x{samples}: {e}"))?;
            line["shader"] = shader.into();
            line["samples"] = samples.into();
            line["dynamic_blend"] = dynamic_blend.into();
            println!("{line}");
        }
        // SAFETY: a module of this iteration, destroyed once.
        unsafe { ctx.device.destroy_shader_module(frag, None) };
    }
    // SAFETY: a live module of the context.
    unsafe { ctx.device.destroy_shader_module(vert, None) };
    ctx.destroy();
    Ok(())
}
