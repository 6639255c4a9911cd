//! Copies of the application's create infos, for what an experiment sends down instead: a device
//! create info whose interlock features enable the feature the new mode needs, and pipeline
//! stages whose fragment SPIR-V is rewritten. Only the structures before the one to change are
//! copied (their `pNext` relinked); the rest of each chain is the application's, shared.

use crate::model::experiment::{apply, Active};
use ash::vk;
use pops_report::AppliedExperiment;
use shaders::spirv::rewrite::Experiment;

/// `(sType, size)` of Vulkan structures, each sType taken from ash's `TaggedStructure` for
/// the type (the registry's pairing, not one written here).
macro_rules! tagged_sizes {
    ($($t:ident),* $(,)?) => {
        [$((
            <vk::$t<'static> as vk::TaggedStructure>::STRUCTURE_TYPE,
            std::mem::size_of::<vk::$t<'static>>(),
        )),*]
    };
}

mod sizes;

/// The size of a structure the layer may copy out of a chain (every one ash knows,
/// [`sizes::TAGGED`], and the two ash does not carry: the loader's own link structure and
/// VkPipelineBinaryInfoKHR, newer than ash's registry), or `None` for a structure newer than
/// ash's registry.
fn known_size(s_type: vk::StructureType) -> Option<usize> {
    match s_type {
        vk::StructureType::LOADER_DEVICE_CREATE_INFO => {
            Some(std::mem::size_of::<crate::ffi::LayerDeviceCreateInfo>())
        }
        crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR => {
            Some(std::mem::size_of::<crate::ffi::PipelineBinaryInfoKHR>())
        }
        _ => {
            // The table by sType, sorted once: a lookup per copied structure, not a scan of ~900.
            static BY_TYPE: std::sync::OnceLock<Vec<(i32, usize)>> = std::sync::OnceLock::new();
            let by_type = BY_TYPE.get_or_init(|| {
                let mut v: Vec<(i32, usize)> = sizes::TAGGED
                    .iter()
                    .map(|(t, n)| (t.as_raw(), *n))
                    .collect();
                v.sort_unstable();
                v
            });
            by_type
                .binary_search_by_key(&s_type.as_raw(), |(t, _)| *t)
                .ok()
                .map(|k| by_type[k].1)
        }
    }
}

/// A copy of the application's device create info whose interlock features also enable the
/// feature `active` needs: the structures before the interlock features are copied (their
/// `pNext` relinked), the interlock features copied with the feature on, the rest shared. `None`
/// when a structure before them is one the layer does not know the size of.
pub struct EnabledCopy {
    /// Copies of the chain's structures, 8-byte aligned; `info` points into them.
    _storage: Vec<Box<[u64]>>,
    pub info: vk::DeviceCreateInfo<'static>,
}

/// Copies a pNext chain up to and including its first structure of `target`: the copies are
/// relinked to each other, the last keeps the original's `pNext` (the rest of the chain is
/// shared). `None` when `target` is absent or a structure before it is one whose size the layer
/// does not know. The copies are 8-byte aligned.
///
/// # Safety
/// `p_next` must be null or a valid pNext chain.
pub unsafe fn copy_chain_until(
    p_next: *const std::ffi::c_void,
    target: vk::StructureType,
) -> Option<Vec<Box<[u64]>>> {
    let mut storage: Vec<Box<[u64]>> = Vec::new();
    let mut cur = p_next as *const crate::ffi::BaseIn;
    loop {
        if cur.is_null() {
            return None;
        }
        // SAFETY: a valid chain: every element starts with sType/pNext.
        let s_type = unsafe { (*cur).s_type };
        let size = if s_type == target {
            target_size(target)?
        } else {
            known_size(s_type)?
        };
        let mut copy = vec![0u64; size.div_ceil(8)].into_boxed_slice();
        // SAFETY: the structure is `size` bytes (its type's size); the copy has room for it.
        unsafe {
            std::ptr::copy_nonoverlapping(cur as *const u8, copy.as_mut_ptr() as *mut u8, size)
        };
        storage.push(copy);
        if s_type == target {
            break;
        }
        // SAFETY: as above.
        cur = unsafe { (*cur).p_next };
    }
    for k in 0..storage.len() - 1 {
        let next = storage[k + 1].as_ptr() as *const crate::ffi::BaseIn;
        // SAFETY: every copy starts with sType/pNext.
        unsafe { (*(storage[k].as_mut_ptr() as *mut crate::ffi::BaseIn)).p_next = next };
    }
    Some(storage)
}

/// `ci`'s members, as a create info the layer passes down in the application's call: the
/// pointers are the application's, valid while its call lasts, which is as long as a copy is
/// used; the type borrows nothing (ash's lifetime is only a marker). Every member is named, so
/// a structure ash grows fails to build here rather than being copied short.
#[allow(deprecated)] // enabledLayerCount, ppEnabledLayerNames: passed on as given
fn detached_device_info(ci: &vk::DeviceCreateInfo) -> vk::DeviceCreateInfo<'static> {
    vk::DeviceCreateInfo {
        s_type: ci.s_type,
        p_next: ci.p_next,
        flags: ci.flags,
        queue_create_info_count: ci.queue_create_info_count,
        p_queue_create_infos: ci.p_queue_create_infos.cast(),
        enabled_layer_count: ci.enabled_layer_count,
        pp_enabled_layer_names: ci.pp_enabled_layer_names,
        enabled_extension_count: ci.enabled_extension_count,
        pp_enabled_extension_names: ci.pp_enabled_extension_names,
        p_enabled_features: ci.p_enabled_features,
        _marker: std::marker::PhantomData,
    }
}

/// A stage's members, as [`detached_device_info`] copies a device create info's.
fn detached_stage(
    s: &vk::PipelineShaderStageCreateInfo,
) -> vk::PipelineShaderStageCreateInfo<'static> {
    vk::PipelineShaderStageCreateInfo {
        s_type: s.s_type,
        p_next: s.p_next,
        flags: s.flags,
        stage: s.stage,
        module: s.module,
        p_name: s.p_name,
        p_specialization_info: s.p_specialization_info.cast(),
        _marker: std::marker::PhantomData,
    }
}

/// The structures [`copy_chain_until`] copies as targets, to change them.
const TARGETS: [(vk::StructureType, usize); 5] = tagged_sizes![
    PhysicalDeviceFragmentShaderInterlockFeaturesEXT,
    ShaderModuleCreateInfo,
    PhysicalDeviceFaultFeaturesEXT,
    PipelineCreateFlags2CreateInfoKHR,
    PhysicalDevicePipelineExecutablePropertiesFeaturesKHR,
];

/// The size of a structure [`copy_chain_until`] copies as its target.
fn target_size(t: vk::StructureType) -> Option<usize> {
    TARGETS.iter().find(|(s, _)| *s == t).map(|(_, n)| *n)
}

/// # Safety
/// `ci` must be the application's valid `VkDeviceCreateInfo` with interlock features chained.
pub unsafe fn with_feature_enabled(
    active: &Active,
    ci: &vk::DeviceCreateInfo,
) -> Option<EnabledCopy> {
    let target = vk::StructureType::PHYSICAL_DEVICE_FRAGMENT_SHADER_INTERLOCK_FEATURES_EXT;
    // SAFETY: the application's valid chain, per the caller.
    let mut storage = unsafe { copy_chain_until(ci.p_next, target)? };
    let last = storage.last_mut()?;
    // SAFETY: the last copy holds the interlock features.
    let f = unsafe {
        &mut *(last.as_mut_ptr() as *mut vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT)
    };
    match active.experiment {
        Experiment::PixelToSample => f.fragment_shader_sample_interlock = vk::TRUE,
        _ => f.fragment_shader_pixel_interlock = vk::TRUE,
    }
    let mut info = detached_device_info(ci);
    info.p_next = storage[0].as_ptr() as *const std::ffi::c_void;
    Some(EnabledCopy {
        _storage: storage,
        info,
    })
}

/// The extension that describes a device loss.
pub const DEVICE_FAULT: &std::ffi::CStr = c"VK_EXT_device_fault";
/// The extension that gives a pipeline's compiled code (`verify_isa`).
pub const PIPELINE_EXECUTABLE_PROPERTIES: &std::ffi::CStr =
    c"VK_KHR_pipeline_executable_properties";

/// The extension that gives a pipeline create info's key (`verify_isa`'s verdicts by key).
pub const PIPELINE_BINARY: &std::ffi::CStr = c"VK_KHR_pipeline_binary";
/// The extension VK_KHR_pipeline_binary depends on (Vulkan registry: `depends`).
pub const MAINTENANCE_5: &std::ffi::CStr = c"VK_KHR_maintenance5";

/// A feature structure the layer may enable besides the application's: its extension, the
/// extensions that one depends on, its structure type and its one `VkBool32` member the layer
/// turns on.
pub trait ExtraFeature: Default + Copy + 'static {
    const EXTENSION: &'static std::ffi::CStr;
    /// Extensions the registry says [`Self::EXTENSION`] depends on: enabled with it
    /// (VUID-vkCreateDevice-ppEnabledExtensionNames-01387).
    const REQUIRES: &'static [&'static std::ffi::CStr] = &[];
    const STYPE: vk::StructureType;
    fn is_on(&self) -> bool;
    fn turn_on(&mut self);
    fn set_next(&mut self, p_next: *mut std::ffi::c_void);
}

impl ExtraFeature for vk::PhysicalDeviceFaultFeaturesEXT<'static> {
    const EXTENSION: &'static std::ffi::CStr = DEVICE_FAULT;
    const STYPE: vk::StructureType = vk::StructureType::PHYSICAL_DEVICE_FAULT_FEATURES_EXT;
    fn is_on(&self) -> bool {
        self.device_fault == vk::TRUE
    }
    fn turn_on(&mut self) {
        self.device_fault = vk::TRUE;
    }
    fn set_next(&mut self, p_next: *mut std::ffi::c_void) {
        self.p_next = p_next;
    }
}

impl ExtraFeature for vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static> {
    const EXTENSION: &'static std::ffi::CStr = PIPELINE_EXECUTABLE_PROPERTIES;
    const STYPE: vk::StructureType =
        vk::StructureType::PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    fn is_on(&self) -> bool {
        self.pipeline_executable_info == vk::TRUE
    }
    fn turn_on(&mut self) {
        self.pipeline_executable_info = vk::TRUE;
    }
    fn set_next(&mut self, p_next: *mut std::ffi::c_void) {
        self.p_next = p_next;
    }
}

impl ExtraFeature for crate::ffi::PhysicalDevicePipelineBinaryFeaturesKHR {
    const EXTENSION: &'static std::ffi::CStr = PIPELINE_BINARY;
    const REQUIRES: &'static [&'static std::ffi::CStr] = &[MAINTENANCE_5];
    const STYPE: vk::StructureType =
        crate::ffi::STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_BINARY_FEATURES_KHR;
    fn is_on(&self) -> bool {
        self.pipeline_binaries == vk::TRUE
    }
    fn turn_on(&mut self) {
        self.pipeline_binaries = vk::TRUE;
    }
    fn set_next(&mut self, p_next: *mut std::ffi::c_void) {
        self.p_next = p_next;
    }
}

/// What the application's device create info already does about the feature `F`: its
/// extension enabled and the feature on.
///
/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`.
pub unsafe fn feature_enabled<F: ExtraFeature>(ci: &vk::DeviceCreateInfo) -> bool {
    // SAFETY: the names and chain of a valid create info.
    unsafe { extension_enabled(ci, F::EXTENSION) && chained::<F>(ci).is_some_and(|on| on) }
}

/// Whether `ci` enables the extension `name`.
///
/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`.
unsafe fn extension_enabled(ci: &vk::DeviceCreateInfo, name: &std::ffi::CStr) -> bool {
    // SAFETY: ppEnabledExtensionNames holds enabledExtensionCount NUL-terminated names.
    unsafe { crate::vk::capture::slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) }
        .iter()
        // SAFETY: as above.
        .any(|&p| !p.is_null() && unsafe { std::ffi::CStr::from_ptr(p) } == name)
}

/// The member of a chained `F`, if one is chained.
///
/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`.
unsafe fn chained<F: ExtraFeature>(ci: &vk::DeviceCreateInfo) -> Option<bool> {
    // SAFETY: a valid chain.
    let p = unsafe { crate::ffi::find_in_chain(ci.p_next, F::STYPE) } as *const F;
    // SAFETY: sType identifies the structure.
    (!p.is_null()).then(|| unsafe { (*p).is_on() })
}

/// A copy of a device create info that also enables an extension and its feature: the
/// extension's name added to a copy of the names, the feature structure prepended to the chain
/// (or, where the application chains one with the feature off, the chain copied up to it with
/// the feature on).
pub struct FeatureCopy<F> {
    _storage: Vec<Box<[u64]>>,
    _feature: Box<F>,
    _names: Vec<*const std::ffi::c_char>,
    pub info: vk::DeviceCreateInfo<'static>,
}

/// `ci` with the feature `F` enabled, or `None` where the layer cannot copy its chain.
///
/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`; the copy is valid while `ci`'s pointers are.
pub unsafe fn with_feature<F: ExtraFeature>(ci: &vk::DeviceCreateInfo) -> Option<FeatureCopy<F>> {
    let mut info = detached_device_info(ci);
    // SAFETY: the names of a valid create info.
    let mut names: Vec<*const std::ffi::c_char> = unsafe {
        crate::vk::capture::slice(ci.pp_enabled_extension_names, ci.enabled_extension_count)
    }
    .to_vec();
    // SAFETY: as above.
    for name in F::REQUIRES.iter().chain([&F::EXTENSION]) {
        // SAFETY: as above.
        if !unsafe { extension_enabled(ci, name) } {
            names.push(name.as_ptr());
        }
    }
    info.enabled_extension_count = u32::try_from(names.len()).ok()?;
    info.pp_enabled_extension_names = names.as_ptr();
    let mut feature = Box::new(F::default());
    feature.turn_on();
    feature.set_next(ci.p_next as *mut std::ffi::c_void);
    let mut storage = Vec::new();
    // SAFETY: a valid chain.
    if unsafe { chained::<F>(ci) }.is_some() {
        // SAFETY: a valid chain with the structure in it.
        storage = unsafe { copy_chain_until(ci.p_next, F::STYPE)? };
        let last = storage.last_mut()?;
        // SAFETY: the last copy holds the feature structure.
        unsafe { (*(last.as_mut_ptr() as *mut F)).turn_on() };
        info.p_next = storage[0].as_ptr() as *const std::ffi::c_void;
    } else {
        info.p_next = &mut *feature as *mut F as *const std::ffi::c_void;
    }
    Some(FeatureCopy {
        _storage: storage,
        _feature: feature,
        _names: names,
        info,
    })
}

/// A pipeline's fragment stage rewritten: its inline SPIR-V (`VkShaderModuleCreateInfo` chained
/// to the stage), or a shader module the layer created from a named module's rewritten code.
/// The stages to use instead of the application's, and what was changed.
pub struct StageCopy {
    /// The rewritten code the copied `VkShaderModuleCreateInfo` points at.
    words: Vec<u32>,
    /// The copied stage chain, up to the shader module create info.
    _chain: Vec<Box<[u64]>>,
    pub stages: Vec<vk::PipelineShaderStageCreateInfo<'static>>,
    pub applied: AppliedExperiment,
    /// The layer's own module in the stages, destroyed once the pipeline is created.
    pub module: Option<vk::ShaderModule>,
}

/// The index of the pipeline's fragment stage, where the specification makes its stages valid to
/// read: the pipeline includes the fragment shader state and no pipeline binaries replace them.
///
/// # Safety
/// `info` must be the application's valid `VkGraphicsPipelineCreateInfo`.
pub unsafe fn fragment_stage(info: &vk::GraphicsPipelineCreateInfo) -> Option<usize> {
    use crate::ffi::find_in_chain;
    use vk::GraphicsPipelineLibraryFlagsEXT as G;
    // SAFETY (whole function): every pointer is read only where valid usage makes it valid.
    unsafe {
        let gpl = find_in_chain(
            info.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        ) as *const vk::GraphicsPipelineLibraryCreateInfoEXT;
        let library = info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR);
        let has_fragment = if gpl.is_null() {
            !library
        } else {
            (*gpl).flags.contains(G::FRAGMENT_SHADER)
        };
        if !has_fragment || has_binaries(info) || info.stage_count == 0 || info.p_stages.is_null() {
            return None;
        }
        let stages = std::slice::from_raw_parts(info.p_stages, info.stage_count as usize);
        stages
            .iter()
            .position(|s| s.stage.contains(vk::ShaderStageFlags::FRAGMENT))
    }
}

/// Whether the create info may go down without VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_
/// BIT_KHR though the layer flags every library with it: it is no library, and it builds no
/// subset of its own on top of libraries (VUID-VkGraphicsPipelineCreateInfo-pLibraries-06647
/// holds such a pipeline to its libraries' flag; a complete pipeline, or one linked from
/// libraries without a VkGraphicsPipelineLibraryCreateInfoEXT or with its flags 0, is free).
///
/// # Safety
/// `info` must be the application's valid `VkGraphicsPipelineCreateInfo`.
pub unsafe fn may_go_without_printing(info: &vk::GraphicsPipelineCreateInfo) -> bool {
    use crate::ffi::find_in_chain;
    // SAFETY: structures of the application's valid chain, read by their sType.
    unsafe {
        // A chained VkPipelineCreateFlags2CreateInfoKHR's flags replace the create info's.
        let flags2 = find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR,
        ) as *const vk::PipelineCreateFlags2CreateInfoKHR;
        let library = match flags2.as_ref() {
            Some(f) => f.flags.contains(vk::PipelineCreateFlags2KHR::LIBRARY),
            None => info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR),
        };
        if library {
            return false;
        }
        let gpl = find_in_chain(
            info.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        ) as *const vk::GraphicsPipelineLibraryCreateInfoEXT;
        let libs = find_in_chain(
            info.p_next,
            vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
        ) as *const vk::PipelineLibraryCreateInfoKHR;
        let linked = !libs.is_null() && (*libs).library_count > 0;
        !linked || gpl.is_null() || (*gpl).flags.is_empty()
    }
}

/// Whether pipeline binaries replace the create info's stages (a chained
/// VkPipelineBinaryInfoKHR with a binaryCount above 0).
///
/// # Safety
/// `info` must be a valid create info.
pub unsafe fn has_binaries(info: &vk::GraphicsPipelineCreateInfo) -> bool {
    // SAFETY: a valid chain; sType identifies the structure.
    unsafe {
        let binaries = crate::ffi::find_in_chain(
            info.p_next,
            crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_INFO_KHR,
        ) as *const crate::ffi::PipelineBinaryInfoKHR;
        !binaries.is_null() && (*binaries).binary_count > 0
    }
}

/// The application's stages, as the copy's.
///
/// # Safety
/// `info` must be a valid create info with `stageCount` stages.
unsafe fn copied_stages(
    info: &vk::GraphicsPipelineCreateInfo,
) -> Vec<vk::PipelineShaderStageCreateInfo<'static>> {
    // SAFETY: per the caller; the copies live no longer than the call they are made for.
    unsafe { std::slice::from_raw_parts(info.p_stages, info.stage_count as usize) }
        .iter()
        .map(detached_stage)
        .collect()
}

/// The stages of a pipeline whose fragment stage uses `module` instead (the layer's own module
/// made from a named module's rewritten code), with what was changed.
///
/// # Safety
/// `info` must be a valid create info whose stage `k` is the fragment stage.
pub unsafe fn with_module(
    info: &vk::GraphicsPipelineCreateInfo,
    k: usize,
    module: vk::ShaderModule,
    applied: AppliedExperiment,
) -> Box<StageCopy> {
    // SAFETY: per the caller.
    let mut stages = unsafe { copied_stages(info) };
    stages[k].module = module;
    Box::new(StageCopy {
        words: Vec::new(),
        _chain: Vec::new(),
        stages,
        applied,
        module: Some(module),
    })
}

/// The experiment applied to the inline SPIR-V of a pipeline's fragment stage, where the stage
/// has one, the specification makes it valid to read (the pipeline includes the fragment shader
/// state and no pipeline binaries replace its stages) and the experiment concerns it.
///
/// # Safety
/// `info` must be the application's valid `VkGraphicsPipelineCreateInfo`.
pub unsafe fn rewrite_inline(
    active: &Active,
    info: &vk::GraphicsPipelineCreateInfo,
) -> Option<Box<StageCopy>> {
    use crate::ffi::find_in_chain;
    // SAFETY (whole function): every pointer is read only where valid usage makes it valid.
    unsafe {
        let k = fragment_stage(info)?;
        let stages = std::slice::from_raw_parts(info.p_stages, info.stage_count as usize);
        if stages[k].module != vk::ShaderModule::null() {
            return None;
        }
        let smci = find_in_chain(
            stages[k].p_next,
            vk::StructureType::SHADER_MODULE_CREATE_INFO,
        ) as *const vk::ShaderModuleCreateInfo;
        if smci.is_null() {
            return None;
        }
        let words = crate::vk::capture::code_words((*smci).p_code as *const u8, (*smci).code_size);
        let (new_words, applied) = match apply(active, &words) {
            Ok(Some(r)) => r,
            Ok(None) => return None,
            Err(e) => {
                log::warn!(
                    "experiment {} not applied to a pipeline's inline shader: {e}",
                    active.experiment
                );
                return None;
            }
        };
        let Some(mut chain) = copy_chain_until(
            stages[k].p_next,
            vk::StructureType::SHADER_MODULE_CREATE_INFO,
        ) else {
            log::warn!(
                "experiment {} not applied to a pipeline's inline shader: its stage chains a structure the layer does not copy",
                active.experiment
            );
            return None;
        };
        let mut copy = Box::new(StageCopy {
            words: new_words,
            _chain: Vec::new(),
            stages: copied_stages(info),
            applied,
            module: None,
        });
        let last = chain.last_mut()?;
        let sm = &mut *(last.as_mut_ptr() as *mut vk::ShaderModuleCreateInfo);
        sm.code_size = copy.words.len() * 4;
        sm.p_code = copy.words.as_ptr();
        copy.stages[k].p_next = chain[0].as_ptr() as *const std::ffi::c_void;
        copy._chain = chain;
        Some(copy)
    }
}

/// A graphics pipeline create info's flags and chain with a capture flag added where the driver
/// reads its flags: `VkPipelineCreateFlags2CreateInfoKHR` where one is chained (the create
/// info's own `flags` are then ignored), else the create info's `flags` where the flag has a
/// legacy bit, else a `VkPipelineCreateFlags2CreateInfoKHR` of the layer's own in front of the
/// chain holding the create info's flags and the flag.
pub struct CaptureCopy {
    /// Copies of the structures up to the flags structure, if one is chained.
    _storage: Vec<Box<[u64]>>,
    /// The layer's own flags structure, if none is chained.
    _flags2: Option<Box<vk::PipelineCreateFlags2CreateInfoKHR<'static>>>,
    pub flags: vk::PipelineCreateFlags,
    pub p_next: *const std::ffi::c_void,
}

/// [`CaptureCopy`] of `info` asking the driver to keep its internal representations (its
/// printed code); `None` when a structure before its flags structure is one the layer does not
/// know the size of.
///
/// # Safety
/// `info` must be the application's valid `VkGraphicsPipelineCreateInfo`.
pub unsafe fn with_capture(info: &vk::GraphicsPipelineCreateInfo) -> Option<CaptureCopy> {
    // SAFETY: per the caller.
    unsafe {
        with_flag(
            info,
            Some(vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR),
            vk::PipelineCreateFlags2KHR::CAPTURE_INTERNAL_REPRESENTATIONS,
        )
    }
}

/// [`CaptureCopy`] of `info` asking the driver to keep the pipeline's binaries for
/// vkCreatePipelineBinariesKHR (a flag only `VkPipelineCreateFlags2CreateInfoKHR` has, valid
/// with VK_KHR_maintenance5, which the layer enables with VK_KHR_pipeline_binary).
///
/// # Safety
/// As [`with_capture`].
pub unsafe fn with_capture_data(info: &vk::GraphicsPipelineCreateInfo) -> Option<CaptureCopy> {
    // SAFETY: per the caller.
    unsafe {
        with_flag(
            info,
            None,
            crate::ffi::PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR,
        )
    }
}

/// # Safety
/// As [`with_capture`].
unsafe fn with_flag(
    info: &vk::GraphicsPipelineCreateInfo,
    legacy: Option<vk::PipelineCreateFlags>,
    bit: vk::PipelineCreateFlags2KHR,
) -> Option<CaptureCopy> {
    use crate::ffi::find_in_chain;
    const FLAGS2: vk::StructureType = vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR;
    // SAFETY: a valid chain; sType identifies the structure.
    if unsafe { find_in_chain(info.p_next, FLAGS2) }.is_null() {
        if let Some(legacy) = legacy {
            return Some(CaptureCopy {
                _storage: Vec::new(),
                _flags2: None,
                flags: info.flags | legacy,
                p_next: info.p_next,
            });
        }
        // The legacy flags' bits are the same bits of the 64-bit flags (VK_KHR_maintenance5).
        let own = Box::new(vk::PipelineCreateFlags2CreateInfoKHR {
            p_next: info.p_next,
            flags: vk::PipelineCreateFlags2KHR::from_raw(u64::from(info.flags.as_raw())) | bit,
            ..Default::default()
        });
        return Some(CaptureCopy {
            p_next: &*own as *const vk::PipelineCreateFlags2CreateInfoKHR
                as *const std::ffi::c_void,
            _storage: Vec::new(),
            _flags2: Some(own),
            flags: info.flags,
        });
    }
    // SAFETY: a valid chain with the structure in it.
    let mut storage = unsafe { copy_chain_until(info.p_next, FLAGS2)? };
    let last = storage.last_mut()?;
    // SAFETY: the last copy holds the flags structure.
    unsafe { (*(last.as_mut_ptr() as *mut vk::PipelineCreateFlags2CreateInfoKHR)).flags |= bit };
    Some(CaptureCopy {
        p_next: storage[0].as_ptr() as *const std::ffi::c_void,
        _storage: storage,
        _flags2: None,
        flags: info.flags,
    })
}

/// The application's `count` create infos with those an experiment changed replaced by
/// `change(info, what changed)`, or `None` when the experiment changed none (the application's
/// array then goes down as it is).
///
/// # Safety
/// `infos` must point to `count` valid create infos, `changed` have one entry per info.
pub unsafe fn copied_where<T: Copy, C>(
    infos: *const T,
    count: u32,
    changed: &[Option<C>],
    change: impl Fn(&T, &C) -> T,
) -> Option<Vec<T>> {
    if !changed.iter().any(Option::is_some) {
        return None;
    }
    // SAFETY: per the caller.
    let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
    Some(
        infos
            .iter()
            .zip(changed)
            .map(|(i, c)| c.as_ref().map_or(*i, |c| change(i, c)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies the layer passes down hold the application's members unchanged (ash's Debug
    /// prints every member, pointers as addresses).
    #[test]
    fn detached_copies_are_the_applications_members() {
        let names = [c"VK_EXT_fragment_shader_interlock".as_ptr()];
        let queue = vk::DeviceQueueCreateInfo::default();
        let features = vk::PhysicalDeviceFeatures::default();
        let ci = vk::DeviceCreateInfo::default()
            .queue_create_infos(std::slice::from_ref(&queue))
            .enabled_extension_names(&names)
            .enabled_features(&features);
        assert_eq!(
            format!("{:?}", detached_device_info(&ci)),
            format!("{ci:?}")
        );
        let spec = vk::SpecializationInfo::default();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .name(c"main")
            .specialization_info(&spec);
        assert_eq!(
            format!("{:?}", detached_stage(&stage)),
            format!("{stage:?}")
        );
    }

    /// Each structure the layer copies is known once, by the sType ash gives its type, and is at
    /// least its sType and pNext; every structure ash knows is one (a replayer such as
    /// fossilize-replay chains every feature structure there is before the one the layer turns
    /// on), the targets with the same sizes.
    #[test]
    fn copied_structures_are_known_once_with_their_own_sizes() {
        for (i, (t, n)) in sizes::TAGGED.iter().enumerate() {
            assert!(*n >= 16, "{t:?}: {n} bytes");
            assert!(
                sizes::TAGGED[i + 1..].iter().all(|(u, _)| u != t),
                "{t:?} twice"
            );
        }
        for (t, n) in TARGETS {
            assert_eq!(known_size(t), Some(n), "{t:?}");
        }
        assert_eq!(
            known_size(vk::StructureType::PHYSICAL_DEVICE_FEATURES_2),
            Some(std::mem::size_of::<vk::PhysicalDeviceFeatures2>())
        );
        assert!(sizes::TAGGED.len() > 800, "{}", sizes::TAGGED.len());
        // A structure newer than ash's registry is not copied.
        assert_eq!(known_size(vk::StructureType::from_raw(1_000_999_999)), None);
    }

    /// The generated table is of the ash the workspace builds with (tools/gen-chain-sizes.py).
    #[test]
    fn the_structure_table_is_of_the_ash_in_cargo_lock() {
        let lock = include_str!("../../Cargo.lock");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"ash\""))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .map(|v| v.trim_end_matches('"'))
            .expect("ash in Cargo.lock");
        let table = include_str!("chain/sizes.rs");
        assert!(
            table.contains(&format!("from ash {version}")),
            "layer/src/chain/sizes.rs is not of ash {version}: run python3 tools/gen-chain-sizes.py"
        );
    }

    #[test]
    fn the_copy_enables_the_feature_and_leaves_the_application_alone() {
        let mut tail = vk::PhysicalDeviceVulkan11Features::default();
        let mut interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default()
            .fragment_shader_pixel_interlock(true);
        interlock.p_next = &mut tail as *mut _ as *mut std::ffi::c_void;
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        v13.p_next = &mut interlock as *mut _ as *mut std::ffi::c_void;
        let ci = vk::DeviceCreateInfo {
            p_next: &v13 as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        let active = Active::new(Experiment::PixelToSample, &[]);
        // SAFETY: a valid chain built above.
        let copy = unsafe { with_feature_enabled(&active, &ci) }.expect("known structures");
        // SAFETY: the copy's chain: a Vulkan 1.3 features copy, then the interlock copy.
        let (c13, cil) = unsafe {
            let c13 = &*(copy.info.p_next as *const vk::PhysicalDeviceVulkan13Features);
            let cil = &*(c13.p_next as *const vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT);
            (c13, cil)
        };
        assert_eq!(c13.dynamic_rendering, vk::TRUE);
        assert_ne!(c13 as *const _, &v13 as *const _);
        assert_eq!(cil.fragment_shader_sample_interlock, vk::TRUE);
        assert_eq!(cil.fragment_shader_pixel_interlock, vk::TRUE);
        assert_eq!(
            cil.p_next, &mut tail as *mut _ as *mut std::ffi::c_void,
            "the rest is shared"
        );
        assert_eq!(
            interlock.fragment_shader_sample_interlock,
            vk::FALSE,
            "the application's own"
        );
        // A structure newer than ash's registry before the interlock features: no copy.
        let unknown = vk::BaseInStructure {
            s_type: vk::StructureType::from_raw(1_000_999_999),
            p_next: &interlock as *const _ as *const vk::BaseInStructure,
            ..Default::default()
        };
        let ci = vk::DeviceCreateInfo {
            p_next: &unknown as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: as above.
        assert!(unsafe { with_feature_enabled(&active, &ci) }.is_none());
    }

    /// Only a pipeline that is no library and builds no subset of its own on top of libraries
    /// may go down without the printing flag (VUID-VkGraphicsPipelineCreateInfo-pLibraries-06647).
    #[test]
    fn only_a_pipeline_free_of_its_libraries_flag_goes_without_printing() {
        let lib = vk::Pipeline::null();
        let libs =
            vk::PipelineLibraryCreateInfoKHR::default().libraries(std::slice::from_ref(&lib));
        let mut gpl = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
            .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE);
        gpl.p_next = &libs as *const _ as *mut std::ffi::c_void;
        let empty_gpl = vk::GraphicsPipelineLibraryCreateInfoEXT {
            p_next: &libs as *const _ as *mut std::ffi::c_void,
            ..Default::default()
        };
        let flags2 = vk::PipelineCreateFlags2CreateInfoKHR::default()
            .flags(vk::PipelineCreateFlags2KHR::LIBRARY);
        let with = |p_next: *const std::ffi::c_void, flags| vk::GraphicsPipelineCreateInfo {
            p_next,
            flags,
            ..Default::default()
        };
        let none = vk::PipelineCreateFlags::empty();
        let cases = [
            (with(std::ptr::null(), none), true, "complete"),
            (
                with(&libs as *const _ as _, none),
                true,
                "linked, no subset of its own",
            ),
            (
                with(&empty_gpl as *const _ as _, none),
                true,
                "linked, subsets 0",
            ),
            (
                with(&gpl as *const _ as _, none),
                false,
                "a subset on top of libraries",
            ),
            (
                with(std::ptr::null(), vk::PipelineCreateFlags::LIBRARY_KHR),
                false,
                "a library",
            ),
            (
                with(&flags2 as *const _ as _, none),
                false,
                "a library by its flags2",
            ),
        ];
        for (info, free, what) in cases {
            // SAFETY: valid chains built above.
            assert_eq!(unsafe { may_go_without_printing(&info) }, free, "{what}");
        }
    }

    /// verify_isa's flag goes where the driver reads the flags: into a copy of a chained
    /// VkPipelineCreateFlags2CreateInfoKHR (the create info's own flags are then ignored), else
    /// into the create info's flags; the application's structures stay as they were.
    #[test]
    fn the_capture_flag_goes_where_the_driver_reads_the_flags() {
        let capture2 = vk::PipelineCreateFlags2KHR::CAPTURE_INTERNAL_REPRESENTATIONS;
        let mut gpl = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
            .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER);
        let mut flags2 = vk::PipelineCreateFlags2CreateInfoKHR::default()
            .flags(vk::PipelineCreateFlags2KHR::LIBRARY);
        flags2.p_next = &mut gpl as *mut _ as *mut std::ffi::c_void;
        let rendering = vk::PipelineRenderingCreateInfo {
            p_next: &mut flags2 as *mut _ as *mut std::ffi::c_void,
            ..Default::default()
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_next: &rendering as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: a valid chain built above.
        let copy = unsafe { with_capture(&info) }.expect("known structures");
        assert_eq!(
            copy.flags,
            vk::PipelineCreateFlags::empty(),
            "ignored flags unchanged"
        );
        // SAFETY: the copy's chain: a rendering info copy, then the flags structure copy.
        let (r, f) = unsafe {
            let r = &*(copy.p_next as *const vk::PipelineRenderingCreateInfo);
            let f = &*(r.p_next as *const vk::PipelineCreateFlags2CreateInfoKHR);
            (r, f)
        };
        assert_eq!(r.s_type, vk::StructureType::PIPELINE_RENDERING_CREATE_INFO);
        assert_ne!(r as *const _, &rendering as *const _);
        assert_eq!(f.flags, vk::PipelineCreateFlags2KHR::LIBRARY | capture2);
        assert_eq!(
            f.p_next, &mut gpl as *mut _ as *const std::ffi::c_void,
            "the rest is shared"
        );
        assert_eq!(
            flags2.flags,
            vk::PipelineCreateFlags2KHR::LIBRARY,
            "the application's own"
        );
        // No flags structure: the create info's flags.
        let plain = vk::GraphicsPipelineCreateInfo {
            flags: vk::PipelineCreateFlags::LIBRARY_KHR,
            p_next: &gpl as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: as above.
        let copy = unsafe { with_capture(&plain) }.expect("no copy needed");
        assert_eq!(
            copy.flags,
            vk::PipelineCreateFlags::LIBRARY_KHR
                | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
        );
        assert_eq!(copy.p_next, plain.p_next);
        // A structure the layer does not know (newer than ash's registry) before the flags
        // structure: no copy.
        let unknown = vk::BaseInStructure {
            s_type: vk::StructureType::from_raw(1_000_999_999),
            p_next: &flags2 as *const _ as *const vk::BaseInStructure,
            ..Default::default()
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_next: &unknown as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: as above.
        assert!(unsafe { with_capture(&info) }.is_none());
    }

    /// The binaries' flag exists only in the 64-bit flags: with no flags structure chained, one
    /// of the layer's own goes in front, holding the create info's flags and the flag; with one
    /// chained, the flag goes into a copy of it.
    #[test]
    fn the_data_flag_brings_its_own_flags_structure_where_none_is_chained() {
        let data = crate::ffi::PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR;
        let rendering = vk::PipelineRenderingCreateInfo::default();
        let plain = vk::GraphicsPipelineCreateInfo {
            flags: vk::PipelineCreateFlags::DISABLE_OPTIMIZATION,
            p_next: &rendering as *const _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: a valid chain built above.
        let copy = unsafe { with_capture_data(&plain) }.expect("no copy needed");
        // SAFETY: the copy's chain starts with the layer's flags structure.
        let f = unsafe { &*(copy.p_next as *const vk::PipelineCreateFlags2CreateInfoKHR) };
        assert_eq!(
            f.s_type,
            vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR
        );
        assert_eq!(
            f.flags,
            vk::PipelineCreateFlags2KHR::DISABLE_OPTIMIZATION | data
        );
        assert_eq!(f.p_next, plain.p_next as *mut std::ffi::c_void);
        let mut flags2 = vk::PipelineCreateFlags2CreateInfoKHR::default()
            .flags(vk::PipelineCreateFlags2KHR::ALLOW_DERIVATIVES);
        let chained = vk::GraphicsPipelineCreateInfo {
            p_next: &mut flags2 as *mut _ as *const std::ffi::c_void,
            ..Default::default()
        };
        // SAFETY: as above.
        let copy = unsafe { with_capture_data(&chained) }.expect("known structures");
        // SAFETY: the copy of the application's flags structure.
        let f = unsafe { &*(copy.p_next as *const vk::PipelineCreateFlags2CreateInfoKHR) };
        assert_eq!(
            f.flags,
            vk::PipelineCreateFlags2KHR::ALLOW_DERIVATIVES | data
        );
        assert_eq!(flags2.flags, vk::PipelineCreateFlags2KHR::ALLOW_DERIVATIVES);
    }

    fn names(info: &vk::DeviceCreateInfo) -> Vec<String> {
        // SAFETY: the copy's names, valid while it lives.
        unsafe {
            crate::vk::capture::slice(
                info.pp_enabled_extension_names,
                info.enabled_extension_count,
            )
            .iter()
            .map(|p| std::ffi::CStr::from_ptr(*p).to_string_lossy().into_owned())
            .collect()
        }
    }

    /// VK_KHR_pipeline_binary goes in with the extension the registry says it depends on
    /// (VK_KHR_maintenance5), which is added only where the application has not enabled it.
    #[test]
    fn the_pipeline_binary_copy_enables_the_extension_it_depends_on() {
        type Keys = crate::ffi::PhysicalDevicePipelineBinaryFeaturesKHR;
        let ci = vk::DeviceCreateInfo::default();
        // SAFETY: a valid create info built above.
        let copy = unsafe { with_feature::<Keys>(&ci) }.expect("a copy");
        assert_eq!(
            names(&copy.info),
            ["VK_KHR_maintenance5", "VK_KHR_pipeline_binary"]
        );
        // SAFETY: the copy's first structure is the layer's feature structure.
        let f = unsafe { &*(copy.info.p_next as *const Keys) };
        assert_eq!(f.pipeline_binaries, vk::TRUE);
        // SAFETY: the copy's chain is valid.
        assert!(unsafe { feature_enabled::<Keys>(&copy.info) });
        let m5 = [MAINTENANCE_5.as_ptr()];
        let ci = vk::DeviceCreateInfo {
            enabled_extension_count: 1,
            pp_enabled_extension_names: m5.as_ptr(),
            ..Default::default()
        };
        // SAFETY: as above.
        let copy = unsafe { with_feature::<Keys>(&ci) }.expect("a copy");
        assert_eq!(
            names(&copy.info),
            ["VK_KHR_maintenance5", "VK_KHR_pipeline_binary"]
        );
    }

    /// Where the application did not enable VK_EXT_device_fault, the copy adds the extension's
    /// name and a feature structure in front of the application's chain; where it chains the
    /// feature off, the chain is copied up to it with the feature on; the application's own
    /// structures never change. Enabled by the application, nothing is copied.
    #[test]
    fn the_device_fault_copy_enables_the_extension_and_its_feature() {
        let swapchain = c"VK_KHR_swapchain";
        let app_names = [swapchain.as_ptr()];
        let v13 = vk::PhysicalDeviceVulkan13Features::default();
        let ci = vk::DeviceCreateInfo {
            p_next: &v13 as *const _ as *const std::ffi::c_void,
            enabled_extension_count: 1,
            pp_enabled_extension_names: app_names.as_ptr(),
            ..Default::default()
        };
        // SAFETY: a valid create info built above.
        assert!(!unsafe { feature_enabled::<vk::PhysicalDeviceFaultFeaturesEXT<'static>>(&ci) });
        // SAFETY: as above.
        let copy = unsafe { with_feature::<vk::PhysicalDeviceFaultFeaturesEXT<'static>>(&ci) }
            .expect("a copy");
        assert_eq!(
            names(&copy.info),
            ["VK_KHR_swapchain", "VK_EXT_device_fault"]
        );
        // SAFETY: the copy's first structure is the layer's feature structure.
        let f = unsafe { &*(copy.info.p_next as *const vk::PhysicalDeviceFaultFeaturesEXT) };
        assert_eq!(
            f.s_type,
            vk::StructureType::PHYSICAL_DEVICE_FAULT_FEATURES_EXT
        );
        assert_eq!(f.device_fault, vk::TRUE);
        assert_eq!(
            f.p_next, &v13 as *const _ as *mut std::ffi::c_void,
            "the rest is shared"
        );
        assert_eq!(ci.enabled_extension_count, 1, "the application's own");
        // SAFETY: the copy's chain is valid.
        assert!(unsafe {
            feature_enabled::<vk::PhysicalDeviceFaultFeaturesEXT<'static>>(&copy.info)
        });

        // The extension enabled, the feature chained off: copied up to it, switched on.
        let fault_name = [DEVICE_FAULT.as_ptr()];
        let off = vk::PhysicalDeviceFaultFeaturesEXT::default();
        let v12 = vk::PhysicalDeviceVulkan12Features {
            p_next: &off as *const _ as *mut std::ffi::c_void,
            ..Default::default()
        };
        let ci = vk::DeviceCreateInfo {
            p_next: &v12 as *const _ as *const std::ffi::c_void,
            enabled_extension_count: 1,
            pp_enabled_extension_names: fault_name.as_ptr(),
            ..Default::default()
        };
        // SAFETY: as above.
        let copy = unsafe { with_feature::<vk::PhysicalDeviceFaultFeaturesEXT<'static>>(&ci) }
            .expect("known structures");
        assert_eq!(names(&copy.info), ["VK_EXT_device_fault"]);
        // SAFETY: a Vulkan 1.2 features copy, then the fault features copy.
        let (c12, cf) = unsafe {
            let c12 = &*(copy.info.p_next as *const vk::PhysicalDeviceVulkan12Features);
            (
                c12,
                &*(c12.p_next as *const vk::PhysicalDeviceFaultFeaturesEXT),
            )
        };
        assert_ne!(c12 as *const _, &v12 as *const _);
        assert_eq!(cf.device_fault, vk::TRUE);
        assert_eq!(off.device_fault, vk::FALSE, "the application's own");

        // Enabled by the application.
        let on = vk::PhysicalDeviceFaultFeaturesEXT::default().device_fault(true);
        let ci = vk::DeviceCreateInfo {
            p_next: &on as *const _ as *const std::ffi::c_void,
            enabled_extension_count: 1,
            pp_enabled_extension_names: fault_name.as_ptr(),
            ..Default::default()
        };
        // SAFETY: as above.
        assert!(unsafe { feature_enabled::<vk::PhysicalDeviceFaultFeaturesEXT<'static>>(&ci) });
    }
}
