//! A fake next layer: drives the layer's entry points exactly as the loader does and checks the
//! chain rules — link info advanced before calling down, each intercepted call forwarded exactly
//! once with the caller's own arguments, pass-through pointers identical to the next layer's,
//! hooks only where the next layer has the function.

use crate::ffi;
use crate::table::vkfn;
use ash::vk;
use parking_lot::Mutex;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Dispatchable fake objects: the first word is the dispatch key, as the loader lays them out.
#[repr(C)]
struct Obj {
    dispatch: usize,
}

static INSTANCE_TABLE: u8 = 0;
static DEVICE_TABLE: u8 = 0;

fn leak(dispatch: &'static u8) -> u64 {
    Box::into_raw(Box::new(Obj {
        dispatch: dispatch as *const u8 as usize,
    })) as u64
}

static CALLS: Mutex<Vec<(&'static str, Vec<usize>)>> = Mutex::new(Vec::new());
static LINK_SEEN: AtomicUsize = AtomicUsize::new(usize::MAX);
static PIPELINE_RESULT: AtomicUsize = AtomicUsize::new(0);
/// When set, only the pipelines at even indices are created, whatever PIPELINE_RESULT says (one
/// of several failing).
static PIPELINE_PARTIAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn record(name: &'static str, args: &[usize]) {
    CALLS.lock().push((name, args.to_vec()));
}

fn calls(name: &str) -> Vec<Vec<usize>> {
    CALLS
        .lock()
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, a)| a.clone())
        .collect()
}

type Void = unsafe extern "system" fn();

macro_rules! void {
    ($f:expr, $t:ty) => {{
        let f: $t = $f;
        // SAFETY: function pointer to PFN_vkVoidFunction, cast back by name.
        Some(unsafe { std::mem::transmute::<$t, Void>(f) })
    }};
}

unsafe extern "system" fn next_create_instance(
    ci: *const vk::InstanceCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: test-owned structures.
    unsafe {
        let chain = ffi::find_in_chain((*ci).p_next, vk::StructureType::LOADER_INSTANCE_CREATE_INFO)
            as *const ffi::LayerInstanceCreateInfo;
        LINK_SEEN.store((*chain).u.p_layer_info as usize, SeqCst);
        record(vkfn::vkCreateInstance, &[ci as usize, alloc as usize]);
        *out = vk::Handle::from_raw(leak(&INSTANCE_TABLE));
    }
    vk::Result::SUCCESS
}

unsafe extern "system" fn next_destroy_instance(
    i: vk::Instance,
    a: *const vk::AllocationCallbacks,
) {
    record(
        vkfn::vkDestroyInstance,
        &[vk::Handle::as_raw(i) as usize, a as usize],
    );
}

unsafe extern "system" fn next_props(_: vk::PhysicalDevice, p: *mut vk::PhysicalDeviceProperties) {
    // SAFETY: test-owned output.
    unsafe {
        (*p).vendor_id = 0x1002;
        // A Radeon RX 6800 (navi21) as RADV reports it: the PCI id places the chip.
        (*p).device_id = 0x73bf;
        let name = b"AMD Radeon RX 6800 (RADV NAVI21)\0";
        for (d, s) in (*p).device_name.iter_mut().zip(name) {
            *d = *s as c_char;
        }
    }
}

unsafe extern "system" fn next_enumerate(
    _: vk::Instance,
    _: *mut u32,
    _: *mut vk::PhysicalDevice,
) -> vk::Result {
    vk::Result::SUCCESS
}

unsafe extern "system" fn next_create_device(
    pd: vk::PhysicalDevice,
    ci: *const vk::DeviceCreateInfo,
    alloc: *const vk::AllocationCallbacks,
    out: *mut vk::Device,
) -> vk::Result {
    // SAFETY: test-owned structures.
    unsafe {
        let chain = ffi::find_in_chain((*ci).p_next, vk::StructureType::LOADER_DEVICE_CREATE_INFO)
            as *const ffi::LayerDeviceCreateInfo;
        LINK_SEEN.store((*chain).u.p_layer_info as usize, SeqCst);
        record(
            vkfn::vkCreateDevice,
            &[vk::Handle::as_raw(pd) as usize, ci as usize, alloc as usize],
        );
        *out = vk::Handle::from_raw(leak(&DEVICE_TABLE));
    }
    vk::Result::SUCCESS
}

unsafe extern "system" fn next_destroy_device(d: vk::Device, a: *const vk::AllocationCallbacks) {
    record(
        vkfn::vkDestroyDevice,
        &[vk::Handle::as_raw(d) as usize, a as usize],
    );
}

unsafe extern "system" fn next_create_module(
    d: vk::Device,
    ci: *const vk::ShaderModuleCreateInfo,
    a: *const vk::AllocationCallbacks,
    out: *mut vk::ShaderModule,
) -> vk::Result {
    record(
        vkfn::vkCreateShaderModule,
        &[
            vk::Handle::as_raw(d) as usize,
            ci as usize,
            a as usize,
            out as usize,
        ],
    );
    // SAFETY: test-owned output.
    unsafe { *out = vk::Handle::from_raw(0x5150) };
    vk::Result::SUCCESS
}

unsafe extern "system" fn next_destroy_module(
    d: vk::Device,
    m: vk::ShaderModule,
    a: *const vk::AllocationCallbacks,
) {
    record(
        vkfn::vkDestroyShaderModule,
        &[
            vk::Handle::as_raw(d) as usize,
            vk::Handle::as_raw(m) as usize,
            a as usize,
        ],
    );
}

unsafe extern "system" fn next_create_pipelines(
    d: vk::Device,
    cache: vk::PipelineCache,
    n: u32,
    ci: *const vk::GraphicsPipelineCreateInfo,
    a: *const vk::AllocationCallbacks,
    out: *mut vk::Pipeline,
) -> vk::Result {
    record(
        vkfn::vkCreateGraphicsPipelines,
        &[
            vk::Handle::as_raw(d) as usize,
            vk::Handle::as_raw(cache) as usize,
            n as usize,
            ci as usize,
            a as usize,
            out as usize,
        ],
    );
    let r = vk::Result::from_raw(PIPELINE_RESULT.load(SeqCst) as i32);
    // SAFETY: test-owned output array of n elements.
    unsafe {
        for i in 0..n as usize {
            let partial = PIPELINE_PARTIAL.load(SeqCst);
            *out.add(i) = if (partial && i % 2 == 0) || (!partial && r == vk::Result::SUCCESS) {
                vk::Handle::from_raw(0x9000 + i as u64)
            } else {
                vk::Pipeline::null()
            };
        }
    }
    r
}

unsafe extern "system" fn next_destroy_pipeline(
    d: vk::Device,
    p: vk::Pipeline,
    a: *const vk::AllocationCallbacks,
) {
    record(
        vkfn::vkDestroyPipeline,
        &[
            vk::Handle::as_raw(d) as usize,
            vk::Handle::as_raw(p) as usize,
            a as usize,
        ],
    );
}

unsafe extern "system" fn next_cmd_draw(_: vk::CommandBuffer, _: u32, _: u32, _: u32, _: u32) {}
unsafe extern "system" fn next_cmd_dispatch(_: vk::CommandBuffer, _: u32, _: u32, _: u32) {}

unsafe extern "system" fn next_gipa(
    _: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: null-terminated names from the layer.
    match unsafe { CStr::from_ptr(name) }.to_bytes() {
        b"vkCreateInstance" => void!(next_create_instance, vk::PFN_vkCreateInstance),
        b"vkDestroyInstance" => void!(next_destroy_instance, vk::PFN_vkDestroyInstance),
        b"vkCreateDevice" => void!(next_create_device, vk::PFN_vkCreateDevice),
        b"vkGetPhysicalDeviceProperties" => {
            void!(next_props, vk::PFN_vkGetPhysicalDeviceProperties)
        }
        b"vkEnumeratePhysicalDevices" => void!(next_enumerate, vk::PFN_vkEnumeratePhysicalDevices),
        b"vkCmdDraw" => void!(next_cmd_draw, vk::PFN_vkCmdDraw),
        b"vkCmdDispatch" => void!(next_cmd_dispatch, vk::PFN_vkCmdDispatch),
        b"vkCreateGraphicsPipelines" => {
            void!(next_create_pipelines, vk::PFN_vkCreateGraphicsPipelines)
        }
        _ => None,
    }
}

unsafe extern "system" fn next_gdpa(_: vk::Device, name: *const c_char) -> vk::PFN_vkVoidFunction {
    // SAFETY: null-terminated names from the layer.
    match unsafe { CStr::from_ptr(name) }.to_bytes() {
        b"vkDestroyDevice" => void!(next_destroy_device, vk::PFN_vkDestroyDevice),
        b"vkCreateShaderModule" => void!(next_create_module, vk::PFN_vkCreateShaderModule),
        b"vkDestroyShaderModule" => void!(next_destroy_module, vk::PFN_vkDestroyShaderModule),
        b"vkCreateGraphicsPipelines" => {
            void!(next_create_pipelines, vk::PFN_vkCreateGraphicsPipelines)
        }
        b"vkDestroyPipeline" => void!(next_destroy_pipeline, vk::PFN_vkDestroyPipeline),
        b"vkCmdDraw" => void!(next_cmd_draw, vk::PFN_vkCmdDraw),
        b"vkCmdDispatch" => void!(next_cmd_dispatch, vk::PFN_vkCmdDispatch),
        // vkCreateShadersEXT deliberately absent: the layer must not offer a hook for it.
        _ => None,
    }
}

fn addr(f: vk::PFN_vkVoidFunction) -> usize {
    f.map_or(0, |f| f as usize)
}

type Gipa = vk::PFN_vkGetInstanceProcAddr;
type Gdpa = vk::PFN_vkGetDeviceProcAddr;

/// The allocator pointer every call passes (never dereferenced): it must arrive unchanged.
const ALLOC: *const vk::AllocationCallbacks = 0x77 as *const vk::AllocationCallbacks;

/// The loader's negotiation: interface 2, the layer's GIPA and GDPA.
///
/// # Safety
/// Test-owned structures.
unsafe fn negotiate() -> (Gipa, Gdpa) {
    // SAFETY: a structure built here for the call.
    unsafe {
        let mut neg = ffi::NegotiateLayerInterface {
            s_type: ffi::NegotiateLayerStructType::INTERFACE_STRUCT,
            p_next: std::ptr::null_mut(),
            loader_layer_interface_version: 2,
            pfn_get_instance_proc_addr: None,
            pfn_get_device_proc_addr: None,
            pfn_get_physical_device_proc_addr: None,
        };
        assert_eq!(
            crate::vkNegotiateLoaderLayerInterfaceVersion(&mut neg),
            vk::Result::SUCCESS
        );
        assert_eq!(neg.loader_layer_interface_version, 2);
        assert!(neg.pfn_get_physical_device_proc_addr.is_none());
        (
            neg.pfn_get_instance_proc_addr.expect("GIPA"),
            neg.pfn_get_device_proc_addr.expect("GDPA"),
        )
    }
}

/// NULL-instance rules: global commands only, and vkCreateDevice, which a layer above looks up
/// with a NULL instance in its own vkCreateDevice (as the loader's terminator answers it).
///
/// # Safety
/// `gipa` is the layer's.
unsafe fn null_instance_rules(gipa: Gipa) {
    // SAFETY: the layer's GIPA with NULL and names.
    unsafe {
        let null = vk::Instance::null();
        assert!(gipa(null, c"vkCreateInstance".as_ptr()).is_some());
        assert_eq!(
            addr(gipa(null, c"vkGetInstanceProcAddr".as_ptr())),
            gipa as usize
        );
        assert!(gipa(null, c"vkEnumeratePhysicalDevices".as_ptr()).is_none());
        assert!(gipa(null, c"vkCreatePipelineCache".as_ptr()).is_none());
        assert_eq!(
            addr(gipa(null, c"vkCreateDevice".as_ptr())),
            crate::entry::vkCreateDevice as *const () as usize,
            "the layer's own vkCreateDevice, for the layer above"
        );
    }
}

/// vkCreateInstance with the loader's link info: advanced before calling down, forwarded once.
///
/// # Safety
/// `gipa` is the layer's.
unsafe fn create_instance(gipa: Gipa) -> vk::Instance {
    let null = vk::Instance::null();
    let alloc = ALLOC;
    // SAFETY: every structure is built here and outlives the call; the pointer is cast back to
    // the prototype its name implies.
    unsafe {
        let mut link = ffi::LayerInstanceLink {
            p_next: 0x1234 as *mut ffi::LayerInstanceLink,
            pfn_next_get_instance_proc_addr: Some(next_gipa),
            pfn_next_get_physical_device_proc_addr: None,
        };
        let chain = ffi::LayerInstanceCreateInfo {
            s_type: vk::StructureType::LOADER_INSTANCE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: ffi::LayerFunction::LAYER_LINK_INFO,
            u: ffi::LayerInstanceCreateInfoUnion {
                p_layer_info: &mut link,
            },
        };
        let ici = vk::InstanceCreateInfo {
            p_next: &chain as *const _ as *const c_void,
            ..Default::default()
        };
        let create: vk::PFN_vkCreateInstance =
            std::mem::transmute(gipa(null, c"vkCreateInstance".as_ptr()).unwrap());
        let mut instance = vk::Instance::null();
        assert_eq!(create(&ici, alloc, &mut instance), vk::Result::SUCCESS);
        assert_eq!(
            LINK_SEEN.load(SeqCst),
            0x1234,
            "link info advanced before calling down"
        );
        assert_eq!(
            calls(vkfn::vkCreateInstance),
            [vec![&ici as *const _ as usize, 0x77]]
        );

        instance
    }
}

/// Pass-through: the next layer's own pointers; hooks only for intercepted names. The layer's
/// vkCreateDevice.
///
/// # Safety
/// `gipa` is the layer's; `instance` was created through it.
unsafe fn instance_pass_through(gipa: Gipa, instance: vk::Instance) -> vk::PFN_vkVoidFunction {
    // SAFETY: queries of the layer's GIPA and the fake next layer's.
    unsafe {
        assert_eq!(
            addr(gipa(instance, c"vkEnumeratePhysicalDevices".as_ptr())),
            addr(next_gipa(instance, c"vkEnumeratePhysicalDevices".as_ptr()))
        );
        assert_eq!(
            addr(gipa(instance, c"vkCmdDispatch".as_ptr())),
            next_cmd_dispatch as *const () as usize
        );
        // Draws are tracked: the layer's hook where the next layer has the function.
        let ours = addr(gipa(instance, c"vkCmdDraw".as_ptr()));
        assert!(ours != 0 && ours != next_cmd_draw as *const () as usize);
        assert!(gipa(instance, c"vkNotAFunction".as_ptr()).is_none());
        let create_device_hook = gipa(instance, c"vkCreateDevice".as_ptr());
        assert!(create_device_hook.is_some());
        assert_ne!(
            addr(create_device_hook),
            next_create_device as *const () as usize
        );

        create_device_hook
    }
}

/// vkCreateDevice: the physical device shares the instance's dispatch key; the device link is
/// advanced before calling down.
///
/// # Safety
/// `create_device_hook` is the layer's vkCreateDevice.
unsafe fn create_device(create_device_hook: vk::PFN_vkVoidFunction) -> vk::Device {
    let alloc = ALLOC;
    // SAFETY: every structure is built here and outlives the call; the pointer is cast back to
    // the prototype its name implies.
    unsafe {
        let pd: vk::PhysicalDevice = vk::Handle::from_raw(leak(&INSTANCE_TABLE));
        let mut dlink = ffi::LayerDeviceLink {
            p_next: 0x5678 as *mut ffi::LayerDeviceLink,
            pfn_next_get_instance_proc_addr: Some(next_gipa),
            pfn_next_get_device_proc_addr: Some(next_gdpa),
        };
        let dchain = ffi::LayerDeviceCreateInfo {
            s_type: vk::StructureType::LOADER_DEVICE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: ffi::LayerFunction::LAYER_LINK_INFO,
            u: ffi::LayerDeviceCreateInfoUnion {
                p_layer_info: &mut dlink,
            },
        };
        let dci = vk::DeviceCreateInfo {
            p_next: &dchain as *const _ as *const c_void,
            ..Default::default()
        };
        let create_device: vk::PFN_vkCreateDevice =
            std::mem::transmute(create_device_hook.unwrap());
        let mut device = vk::Device::null();
        assert_eq!(
            create_device(pd, &dci, alloc, &mut device),
            vk::Result::SUCCESS
        );
        assert_eq!(LINK_SEEN.load(SeqCst), 0x5678);
        assert_eq!(
            calls(vkfn::vkCreateDevice),
            [vec![
                vk::Handle::as_raw(pd) as usize,
                &dci as *const _ as usize,
                0x77
            ]]
        );

        device
    }
}

/// Device-level identity and "hook only where the next layer has it".
///
/// # Safety
/// The layer's GIPA and GDPA, with an instance and device created through them.
unsafe fn device_identity(gipa: Gipa, gdpa: Gdpa, instance: vk::Instance, device: vk::Device) {
    // SAFETY: queries of the layer's and the fake next layer's functions.
    unsafe {
        assert_eq!(
            addr(gdpa(device, c"vkCmdDispatch".as_ptr())),
            next_cmd_dispatch as *const () as usize
        );
        assert!(gdpa(device, c"vkCreateShadersEXT".as_ptr()).is_none());
        assert!(gipa(instance, c"vkCreateShadersEXT".as_ptr()).is_none());
        assert_eq!(
            addr(gdpa(device, c"vkGetDeviceProcAddr".as_ptr())),
            gdpa as usize
        );
        for name in crate::entry::intercepted() {
            let n = std::ffi::CString::new(name).unwrap();
            let ours = addr(gdpa(device, n.as_ptr()));
            let theirs = addr(next_gdpa(device, n.as_ptr()));
            if theirs == 0 && name != vkfn::vkGetDeviceProcAddr {
                assert_eq!(ours, 0, "{name}");
            }
        }
    }
}

/// Shader modules: forwarded once, original pointers; malformed SPIR-V is fine.
///
/// # Safety
/// `gdpa` is the layer's; `device` was created through it.
unsafe fn shader_modules(gdpa: Gdpa, device: vk::Device) -> vk::ShaderModule {
    let alloc = ALLOC;
    // SAFETY: structures built here; pointers cast back to the prototypes their names imply.
    unsafe {
        let create_module: vk::PFN_vkCreateShaderModule =
            std::mem::transmute(gdpa(device, c"vkCreateShaderModule".as_ptr()).unwrap());
        let code = [0xdead_beefu32, 1, 2];
        let mci = vk::ShaderModuleCreateInfo::default().code(&code);
        let mut module = vk::ShaderModule::null();
        assert_eq!(
            create_module(device, &mci, alloc, &mut module),
            vk::Result::SUCCESS
        );
        assert_eq!(
            calls(vkfn::vkCreateShaderModule),
            [vec![
                device.raw_usize(),
                &mci as *const _ as usize,
                0x77,
                &mut module as *mut _ as usize
            ]]
        );
        assert_eq!(module, vk::Handle::from_raw(0x5150));
        // A module a driver would reject on sight (an unknown capability, no OpMemoryModel:
        // what `pops inspect` calls invalid) is passed down untouched too; the driver decides.
        let invalid = [
            shaders::spirv::MAGIC,
            0x0001_0000,
            0,
            8,
            0,
            (2 << 16) | 17,
            0xdead,
        ];
        let ici = vk::ShaderModuleCreateInfo::default().code(&invalid);
        let mut invalid_module = vk::ShaderModule::null();
        assert_eq!(
            create_module(device, &ici, alloc, &mut invalid_module),
            vk::Result::SUCCESS
        );
        assert_eq!(
            calls(vkfn::vkCreateShaderModule)[1],
            vec![
                device.raw_usize(),
                &ici as *const _ as usize,
                0x77,
                &mut invalid_module as *mut _ as usize
            ]
        );
        assert!(shaders::spirv::validity::check(&invalid).is_err());

        module
    }
}

/// Pipelines: forwarded once with the caller's arrays; results returned unchanged; exactly the
/// created pipelines are recorded.
///
/// # Safety
/// `gdpa` is the layer's; `device` and `module` were created through it.
unsafe fn pipelines(gdpa: Gdpa, device: vk::Device, module: vk::ShaderModule) {
    let alloc = ALLOC;
    // SAFETY: structures built here; pointers cast back to the prototypes their names imply.
    unsafe {
        let create_pipelines: vk::PFN_vkCreateGraphicsPipelines =
            std::mem::transmute(gdpa(device, c"vkCreateGraphicsPipelines".as_ptr()).unwrap());
        let stages = [vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(module)
            .name(c"main")];
        let infos = [
            vk::GraphicsPipelineCreateInfo::default().stages(&stages),
            vk::GraphicsPipelineCreateInfo::default(),
        ];
        let mut out = [vk::Pipeline::null(); 2];
        let cache: vk::PipelineCache = vk::Handle::from_raw(0xcace);
        PIPELINE_RESULT.store(0, SeqCst);
        assert_eq!(
            create_pipelines(device, cache, 2, infos.as_ptr(), alloc, out.as_mut_ptr()),
            vk::Result::SUCCESS
        );
        assert_eq!(
            out,
            [vk::Handle::from_raw(0x9000), vk::Handle::from_raw(0x9001)]
        );
        PIPELINE_RESULT.store(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY.as_raw() as usize,
            SeqCst,
        );
        assert_eq!(
            create_pipelines(device, cache, 2, infos.as_ptr(), alloc, out.as_mut_ptr()),
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        );
        // One of two pipelines failed (an error, or VK_PIPELINE_COMPILE_REQUIRED): the created
        // one is recorded, the failed one is not.
        let both = [
            vk::GraphicsPipelineCreateInfo::default().stages(&stages),
            vk::GraphicsPipelineCreateInfo::default().stages(&stages),
        ];
        let stats =
            || crate::registry::with_device_of(device, |d| d.stats.analysed_count()).unwrap_or(0);
        let before = stats();
        PIPELINE_PARTIAL.store(true, SeqCst);
        for r in [
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            vk::Result::PIPELINE_COMPILE_REQUIRED,
        ] {
            PIPELINE_RESULT.store(r.as_raw() as usize, SeqCst);
            let mut two = [vk::Pipeline::null(); 2];
            assert_eq!(
                create_pipelines(device, cache, 2, both.as_ptr(), alloc, two.as_mut_ptr()),
                r
            );
            assert_eq!(two, [vk::Handle::from_raw(0x9000), vk::Pipeline::null()]);
        }
        PIPELINE_PARTIAL.store(false, SeqCst);
        assert_eq!(stats() - before, 2, "one record per created pipeline");
        PIPELINE_RESULT.store(0, SeqCst);
        let expect = vec![
            device.raw_usize(),
            0xcace,
            2,
            infos.as_ptr() as usize,
            0x77,
            out.as_mut_ptr() as usize,
        ];
        assert_eq!(
            calls(vkfn::vkCreateGraphicsPipelines)[..2],
            [expect.clone(), expect]
        );
        assert_eq!(calls(vkfn::vkCreateGraphicsPipelines).len(), 4);
    }
}

/// Destruction: handles the layer never saw go down once, unchanged; destroyed objects are
/// unknown afterwards.
///
/// # Safety
/// The layer's GIPA and GDPA, with the objects created through them.
unsafe fn teardown(
    gipa: Gipa,
    gdpa: Gdpa,
    instance: vk::Instance,
    device: vk::Device,
    module: vk::ShaderModule,
) {
    let alloc = ALLOC;
    // SAFETY: pointers cast back to the prototypes their names imply.
    unsafe {
        let destroy_pipeline: vk::PFN_vkDestroyPipeline =
            std::mem::transmute(gdpa(device, c"vkDestroyPipeline".as_ptr()).unwrap());
        destroy_pipeline(device, vk::Handle::from_raw(0xabad), alloc);
        destroy_pipeline(device, vk::Pipeline::null(), alloc);
        assert_eq!(calls(vkfn::vkDestroyPipeline).len(), 2);
        let destroy_module: vk::PFN_vkDestroyShaderModule =
            std::mem::transmute(gdpa(device, c"vkDestroyShaderModule".as_ptr()).unwrap());
        destroy_module(device, module, alloc);
        assert_eq!(calls(vkfn::vkDestroyShaderModule).len(), 1);

        let destroy_device: vk::PFN_vkDestroyDevice =
            std::mem::transmute(gdpa(device, c"vkDestroyDevice".as_ptr()).unwrap());
        destroy_device(device, alloc);
        assert_eq!(
            calls(vkfn::vkDestroyDevice),
            [vec![device.raw_usize(), 0x77]]
        );
        // After destruction the device is unknown: no pointers are handed out.
        assert!(gdpa(device, c"vkCmdDraw".as_ptr()).is_none());

        let destroy_instance: vk::PFN_vkDestroyInstance =
            std::mem::transmute(gipa(instance, c"vkDestroyInstance".as_ptr()).unwrap());
        destroy_instance(instance, alloc);
        assert_eq!(calls(vkfn::vkDestroyInstance).len(), 1);
        assert!(gipa(instance, c"vkCmdDraw".as_ptr()).is_none());
    }
}

#[test]
fn chain_rules_pass_through_identity_and_exactly_once() {
    // SAFETY: each step hands the layer structures built for it, and the objects the steps
    // before it created.
    unsafe {
        let (gipa, gdpa) = negotiate();
        null_instance_rules(gipa);
        let instance = create_instance(gipa);
        let create_device_hook = instance_pass_through(gipa, instance);
        let device = create_device(create_device_hook);
        device_identity(gipa, gdpa, instance, device);
        let module = shader_modules(gdpa, device);
        pipelines(gdpa, device, module);
        teardown(gipa, gdpa, instance, device, module);
    }
}

trait RawUsize {
    fn raw_usize(self) -> usize;
}

impl<T: vk::Handle> RawUsize for T {
    fn raw_usize(self) -> usize {
        self.as_raw() as usize
    }
}
