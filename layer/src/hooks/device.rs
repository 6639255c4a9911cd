//! Device life: vkCreateDevice (the chip, the interlock features, the experiment's copy of the
//! create info, the next layer's functions resolved once, timing) and vkDestroyDevice.

use crate::boundary::guarded;
use crate::device::Device;
use crate::ffi::{self, dispatch_key};
use crate::instance::Instance;
use crate::model::analysis::InterlockFeatures;
use crate::model::experiment::{self, Active};
use crate::next::Next;
use crate::registry;
use crate::stores::{Recordings, Timing};
use crate::table::vkfn;
use crate::{chain, draw_path, records, report};
use ash::vk;
use pm4::Family;

/// vkCreateDevice: calls down (through a copy of the create info where the experiment needs a
/// feature the application did not enable), then remembers the device.
///
/// # Safety
/// The loader's arguments.
pub unsafe fn create(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo,
    p_allocator: *const vk::AllocationCallbacks,
    p_device: *mut vk::Device,
) -> vk::Result {
    if p_create_info.is_null() || p_device.is_null() {
        log::error!("vkCreateDevice: a null create info or device pointer");
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // Physical devices share their instance's dispatch key.
    let Some(inst) = registry::instance_of(physical_device) else {
        log::error!("vkCreateDevice: the physical device belongs to no instance this layer saw");
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the loader passes a valid create info.
    let ci = unsafe { &*p_create_info };
    // SAFETY: the create info's valid chain; the instance is the physical device's.
    let Some((next_create, next_gdpa, layers_below)) = (unsafe { take_link(&inst, ci) }) else {
        log::error!("vkCreateDevice: the loader's layer link is missing or incomplete");
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the create info's valid chain, read only.
    let enabled = unsafe { interlock_features(ci) };
    let plan = guarded(&inst.health, "experiment", || {
        experiment::for_device(
            inst.settings.experiment,
            &inst.settings.experiment_targets,
            enabled,
        )
    })
    .unwrap_or(Ok(None));
    // SAFETY: a query on the application's physical device (once: the loader's answer is slow).
    let extensions = unsafe { device_extensions(&inst, physical_device) };
    // SAFETY: queries on the application's physical device.
    let extras = unsafe { Extras::offered(&inst, physical_device, &extensions, layers_below) };
    let call = |p_ci: *const vk::DeviceCreateInfo| {
        // SAFETY: the application's arguments (or a copy with the interlock feature enabled).
        unsafe { extras.create(next_create, physical_device, p_ci, p_allocator, p_device) }
    };
    // SAFETY: the application's valid create info.
    let (result, experiment, refusal) = unsafe { create_with_plan(plan, ci, p_create_info, call) };
    if result != vk::Result::SUCCESS {
        log::debug!("vkCreateDevice: the next layer or the driver returned {result}");
        return result;
    }
    // SAFETY: success, so *p_device is the new device.
    let device = unsafe { *p_device };
    let next = Next::load(|name| {
        // SAFETY: the next layer's GDPA with the device it created.
        unsafe { next_gdpa(device, name.as_ptr()) }
    });
    // SAFETY: queries on the application's physical device and the new device.
    let d = unsafe { describe(&inst, physical_device, &extensions, device, next, next_gdpa) };
    if let Some(message) = &refusal {
        log::warn!("device '{}': {message}", d.device_name);
    }
    let (fault_on, executables_on, keys_on) =
        (extras.fault_on, extras.executables_on, extras.keys_on);
    let fault_info = if fault_on.get() {
        d.next.get_device_fault_info_ext
    } else {
        None
    };
    // The driver's code of interlocked pipelines, where the setting asks and the device can.
    let isa = executables(
        &d,
        inst.settings.verify_isa,
        executables_on.get(),
        keys_on.get(),
    );
    // SAFETY: the new device, with pipelineBinaries enabled where isa has the key query.
    let verdicts = unsafe { verdict_file(&d, isa, &inst.settings.verify_isa_cache) };
    log_verdicts(&d, isa, verdicts.as_deref(), layers_below);
    let d = Device {
        experiment,
        features: enabled.unwrap_or_default(),
        fault_info,
        isa,
        verdicts: crate::stores::VerdictStore::new(verdicts),
        ..d
    };
    registry::insert_device(d.key, d);
    draw_path::retarget();
    result
}

/// The next layer's vkCreateDevice and vkGetDeviceProcAddr from the loader's link info, which is
/// advanced for the next layer before this one calls down; and whether other layers lie below
/// this one (the link list goes on) rather than the driver alone.
///
/// # Safety
/// `ci` must be the loader's valid create info for a physical device of `inst`.
unsafe fn take_link(
    inst: &Instance,
    ci: &vk::DeviceCreateInfo,
) -> Option<(vk::PFN_vkCreateDevice, vk::PFN_vkGetDeviceProcAddr, bool)> {
    // SAFETY: valid chain.
    let chain: *mut ffi::LayerDeviceCreateInfo =
        unsafe { ffi::find_link(ci.p_next, vk::StructureType::LOADER_DEVICE_CREATE_INFO) };
    // SAFETY: the loader's link structure, checked for null.
    unsafe {
        if chain.is_null() || (*chain).u.p_layer_info.is_null() {
            return None;
        }
        let link = &*(*chain).u.p_layer_info;
        let next_gipa = link.pfn_next_get_instance_proc_addr?;
        let next_gdpa = link.pfn_next_get_device_proc_addr?;
        // GetInstanceProcAddr(instance, "vkCreateDevice") per the loader's chain rules.
        let create = next_gipa(inst.handle, c"vkCreateDevice".as_ptr())?;
        (*chain).u.p_layer_info = link.p_next;
        Some((
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCreateDevice>(create),
            next_gdpa,
            !link.p_next.is_null(),
        ))
    }
}

/// Creates the device as the experiment's plan says: from the application's create info, or a
/// copy with the feature the new mode needs, falling back to the application's where the device
/// refuses the copy. The result, the experiment the device runs, and why one was refused.
///
/// # Safety
/// `ci` must be the application's valid create info and `p_ci` point to it.
unsafe fn create_with_plan(
    plan: Result<Option<(Active, bool)>, experiment::Refused>,
    ci: &vk::DeviceCreateInfo,
    p_ci: *const vk::DeviceCreateInfo,
    call: impl Fn(*const vk::DeviceCreateInfo) -> vk::Result,
) -> (vk::Result, Option<Active>, Option<String>) {
    match plan {
        Ok(None) => (call(p_ci), None, None),
        Ok(Some((active, false))) => (call(p_ci), Some(active), None),
        // SAFETY: the application's valid create info, which chains interlock features.
        Ok(Some((active, true))) => match unsafe { chain::with_feature_enabled(&active, ci) } {
            Some(copy) => match call(&copy.info) {
                vk::Result::SUCCESS => (vk::Result::SUCCESS, Some(active), None),
                r => (
                    call(p_ci),
                    None,
                    Some(format!(
                        "experiment {} refused: the device does not accept the interlock feature its new mode needs ({r}); nothing is changed",
                        active.experiment
                    )),
                ),
            },
            None => (
                call(p_ci),
                None,
                Some(format!(
                    "experiment {} refused: the application did not enable the interlock feature its new mode needs, and its device create info chains a structure the layer does not copy; nothing is changed",
                    active.experiment
                )),
            ),
        },
        Err(refused) => (call(p_ci), None, Some(refused.to_string())),
    }
}

/// The new device as the layer keeps it: its name, chip and timing, stores empty.
///
/// # Safety
/// `pd` must be a physical device of `inst` and `device` the live device created on it.
unsafe fn describe(
    inst: &Instance,
    pd: vk::PhysicalDevice,
    extensions: &[vk::ExtensionProperties],
    device: vk::Device,
    next: Next,
    next_gdpa: vk::PFN_vkGetDeviceProcAddr,
) -> Device {
    let mut props = vk::PhysicalDeviceProperties::default();
    if let Some(f) = inst.next.get_physical_device_properties {
        // SAFETY: a query on the application's physical device; no state changes.
        unsafe { f(pd, &mut props) };
    }
    let device_name = props
        .device_name_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let timing = if inst.settings.timing {
        guarded(&inst.health, "timing", || {
            // SAFETY: queries on the application's physical device.
            let families = unsafe { queue_families(inst, pd) };
            Timing::new(device, &next, &props.limits, &families)
        })
        .and_then(|t| {
            t.map_err(|e| log::warn!("device '{device_name}': timing refused: {e}"))
                .ok()
        })
    } else {
        None
    };
    let chip = guarded(&inst.health, vkfn::vkCreateDevice, || {
        // SAFETY: queries on the application's physical device.
        unsafe { chip_of(inst, pd, extensions, &props, &device_name) }
    })
    .flatten();
    let driver = guarded(&inst.health, vkfn::vkCreateDevice, || {
        // SAFETY: a query on the application's physical device.
        unsafe { driver_of(inst, pd, extensions) }
    })
    .flatten();
    Device {
        handle: device,
        // SAFETY: the new device is live.
        key: unsafe { dispatch_key(device) },
        next_gdpa,
        next,
        device_name,
        driver,
        app: inst.app.clone(),
        chip,
        null_device: crate::model::record::null_device(
            std::env::var("RADV_FORCE_FAMILY").ok().as_deref(),
            std::env::var(pops_report::NULL_DEVICE_ENV).ok().as_deref(),
            std::env::var("LD_PRELOAD").ok().as_deref(),
        ),
        features: InterlockFeatures::default(),
        settings: inst.settings.clone(),
        modules: Default::default(),
        objects: Default::default(),
        passes: Default::default(),
        attachments: Default::default(),
        recordings: Recordings::new(draw_path::retarget),
        stats: Default::default(),
        messengers: inst.messengers.clone(),
        health: inst.health.clone(),
        experiment: None,
        timing,
        submissions: Default::default(),
        fault_info: None,
        isa: None,
        verdicts: crate::stores::VerdictStore::new(None),
        verifier: Default::default(),
        outbox: Default::default(),
        held_messages: Default::default(),
    }
}

/// The device's chip: the `chip` setting, its PCI id through the chip database, or its render
/// node.
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn chip_of(
    inst: &Instance,
    pd: vk::PhysicalDevice,
    extensions: &[vk::ExtensionProperties],
    props: &vk::PhysicalDeviceProperties,
    device_name: &str,
) -> Option<Family> {
    // SAFETY: a query on the application's physical device through the next layer.
    let pci = unsafe { pci_bus_address(inst, pd, extensions) };
    // The revision is read (from sysfs) only where the id alone does not name the chip.
    let needs_revision = matches!(
        Family::from_pci(props.vendor_id, props.device_id, None),
        pm4::PciChip::NeedsRevision { .. }
    );
    let id = crate::chip::PciIdentity {
        vendor: props.vendor_id,
        device: props.device_id,
        revision: pci
            .as_deref()
            .filter(|_| needs_revision)
            .and_then(|p| crate::chip::pci_revision(p, props.device_id)),
    };
    let by_pci = || crate::chip::family_from_render_node(pci.as_deref()?);
    let choice = crate::chip::choose(inst.settings.chip.as_deref(), id, &by_pci);
    if let Some(w) = &choice.warning {
        log::warn!("device '{device_name}': {w}");
    }
    log::info!(
        "device '{device_name}' ({id}): chip {} ({:?})",
        choice.chip.map_or("none", |f| f.name()),
        choice.source
    );
    choice.chip
}

/// The physical device's queue families.
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn queue_families(
    inst: &Instance,
    pd: vk::PhysicalDevice,
) -> Vec<vk::QueueFamilyProperties> {
    let Some(f) = inst.next.get_physical_device_queue_family_properties else {
        return Vec::new();
    };
    let mut n = 0u32;
    // SAFETY: the standard two-call enumeration on a live physical device.
    unsafe { f(pd, &mut n, std::ptr::null_mut()) };
    let mut v = vec![vk::QueueFamilyProperties::default(); n as usize];
    // SAFETY: as above, with room for `n`.
    unsafe { f(pd, &mut n, v.as_mut_ptr()) };
    v.truncate(n as usize);
    v
}

/// The physical device's extensions (none where the enumeration fails).
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn device_extensions(
    inst: &Instance,
    pd: vk::PhysicalDevice,
) -> Vec<vk::ExtensionProperties> {
    let Some(enumerate) = inst.next.enumerate_device_extension_properties else {
        return Vec::new();
    };
    let mut n = 0u32;
    // SAFETY: the standard two-call enumeration on a live physical device.
    unsafe {
        if enumerate(pd, std::ptr::null(), &mut n, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return Vec::new();
        }
        let mut exts = vec![vk::ExtensionProperties::default(); n as usize];
        let r = enumerate(pd, std::ptr::null(), &mut n, exts.as_mut_ptr());
        if r.as_raw() < 0 {
            return Vec::new();
        }
        exts.truncate(n as usize);
        exts
    }
}

fn offers(extensions: &[vk::ExtensionProperties], name: &std::ffi::CStr) -> bool {
    extensions
        .iter()
        .any(|e| e.extension_name_as_c_str().ok() == Some(name))
}

/// The queries of the driver's code, where the `verify_isa` setting asks for them and the
/// device has them enabled (and the pipeline key where pipelineBinaries is); a warning where it
/// asks and the device cannot.
fn executables(
    d: &Device,
    wanted: bool,
    enabled: bool,
    keys: bool,
) -> Option<crate::device::Executables> {
    let x = (wanted && enabled)
        .then(|| {
            Some(crate::device::Executables {
                properties: d.next.get_pipeline_executable_properties_khr?,
                representations: d
                    .next
                    .get_pipeline_executable_internal_representations_khr?,
                pipeline_key: d.next.get_pipeline_key_khr.filter(|_| keys),
                binaries: keys
                    .then(|| {
                        Some(crate::device::BinaryCalls {
                            create: d.next.create_pipeline_binaries_khr?,
                            data: d.next.get_pipeline_binary_data_khr?,
                            destroy: d.next.destroy_pipeline_binary_khr?,
                        })
                    })
                    .flatten(),
            })
        })
        .flatten();
    if wanted && x.is_none() {
        log::warn!(
            "device '{}': verify_isa: the device has no VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver's code cannot be read",
            d.device_name
        );
    }
    x
}

/// Says at device creation how `verify_isa` keeps its verdicts on this device, and why not
/// where it does not.
fn log_verdicts(
    d: &Device,
    isa: Option<crate::device::Executables>,
    file: Option<&std::path::Path>,
    layers_below: bool,
) {
    let Some(x) = isa else {
        return;
    };
    let how = match (file, x.pipeline_key.is_some()) {
        (Some(f), _) => format!(
            "verdicts kept by pipeline key, for this process and in {}",
            f.display()
        ),
        (None, true) => "verdicts kept by pipeline key for this process".to_string(),
        (None, false) if layers_below => "every pipeline verified: another layer lies below this one, so the pipeline key (VK_KHR_pipeline_binary) is not asked for".to_string(),
        (None, false) => "every pipeline verified: no pipeline key to keep verdicts by (the device has no VK_KHR_pipeline_binary, or it could not be enabled)".to_string(),
    };
    log::info!("device '{}': verify_isa: {how}", d.device_name);
}

/// The file of the device's `verify_isa` verdicts: in the setting's directory, named for the
/// driver build (its global pipeline key), the pops build and the chip. None where verdicts
/// cannot be keyed or the setting says off.
///
/// # Safety
/// `d.handle` must be the live device `isa`'s functions belong to, with pipelineBinaries
/// enabled where `isa` has the key query.
unsafe fn verdict_file(
    d: &Device,
    isa: Option<crate::device::Executables>,
    cache: &crate::settings::VerdictCache,
) -> Option<std::path::PathBuf> {
    let get_key = isa?.pipeline_key?;
    let chip = d.chip?;
    let dir = cache.dir(|k| std::env::var(k).ok())?;
    let mut global = crate::ffi::PipelineBinaryKeyKHR::default();
    // SAFETY: per the caller; a null create info asks for the global key.
    if unsafe { get_key(d.handle, std::ptr::null(), &mut global) } != vk::Result::SUCCESS {
        return None;
    }
    let name = crate::model::verdicts::file_name(
        global.bytes()?,
        env!("POPS_VERIFIER_BUILD"),
        chip.name(),
    );
    Some(dir.join(name))
}

type Fault = vk::PhysicalDeviceFaultFeaturesEXT<'static>;
type Executables = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static>;
type Keys = crate::ffi::PhysicalDevicePipelineBinaryFeaturesKHR;

/// The features the layer enables besides the application's where the device offers them:
/// VK_EXT_device_fault (a device loss's description) and, with `verify_isa`,
/// VK_KHR_pipeline_executable_properties (the driver's code) and VK_KHR_pipeline_binary (a
/// pipeline create info's key, under which a verdict is kept); and which ended up enabled.
struct Extras {
    offers_fault: bool,
    offers_executables: bool,
    offers_keys: bool,
    fault_on: std::cell::Cell<bool>,
    executables_on: std::cell::Cell<bool>,
    keys_on: std::cell::Cell<bool>,
}

impl Extras {
    /// What the physical device offers of the extra features (the `verify_isa` ones only with
    /// the setting), none of them enabled yet.
    ///
    /// # Safety
    /// `physical_device` must be a physical device of `inst`.
    unsafe fn offered(
        inst: &Instance,
        physical_device: vk::PhysicalDevice,
        extensions: &[vk::ExtensionProperties],
        layers_below: bool,
    ) -> Extras {
        Extras {
            // SAFETY: queries on the application's physical device.
            offers_fault: guarded(&inst.health, vkfn::vkCreateDevice, || unsafe {
                offers_feature::<Fault>(inst, physical_device, extensions)
            })
            .unwrap_or(false),
            // The driver's code of interlocked pipelines, with the verify_isa setting only.
            offers_executables: inst.settings.verify_isa
                // SAFETY: as above.
                && guarded(&inst.health, vkfn::vkCreateDevice, || unsafe {
                    offers_feature::<Executables>(inst, physical_device, extensions)
                })
                .unwrap_or(false),
            // Keys of pipeline create info, under which verify_isa keeps its verdicts: asked for
            // only where the driver itself is next. A layer below that wraps handles and does not
            // know VK_KHR_pipeline_binary (an older validation layer) would pass the key query the
            // wrapped handles of the create info, and the driver would crash on them; where the
            // application enables the extension itself, the layers below are its to choose.
            offers_keys: inst.settings.verify_isa
                && !layers_below
                // SAFETY: as above.
                && guarded(&inst.health, vkfn::vkCreateDevice, || unsafe {
                    offers_feature::<Keys>(inst, physical_device, extensions)
                })
                .unwrap_or(false),
            fault_on: std::cell::Cell::new(false),
            executables_on: std::cell::Cell::new(false),
            keys_on: std::cell::Cell::new(false),
        }
    }

    /// Creates the device with the extra features where they are offered and not already on,
    /// and without them if the driver refuses the copy.
    ///
    /// # Safety
    /// The application's arguments to vkCreateDevice; `next_create` the next layer's.
    unsafe fn create(
        &self,
        next_create: vk::PFN_vkCreateDevice,
        physical_device: vk::PhysicalDevice,
        p_ci: *const vk::DeviceCreateInfo,
        p_allocator: *const vk::AllocationCallbacks,
        p_device: *mut vk::Device,
    ) -> vk::Result {
        // SAFETY: the application's valid create info (or a copy with one feature enabled).
        let ci = unsafe { &*p_ci };
        // SAFETY: as above.
        let already = unsafe {
            [
                chain::feature_enabled::<Fault>(ci),
                chain::feature_enabled::<Executables>(ci),
                chain::feature_enabled::<Keys>(ci),
            ]
        };
        let [fault_already, executables_already, keys_already] = already;
        let want_fault = !fault_already && self.offers_fault;
        let want_executables = !executables_already && self.offers_executables;
        // A key is of use only where the code can be read.
        let want_keys = !keys_already && self.offers_keys && self.offers_executables;
        if want_fault || want_executables || want_keys {
            // SAFETY: as above; each copy is used while the application's call lasts, and each
            // is made from the one before, which lives until after the call.
            let fault = want_fault
                .then(|| unsafe { chain::with_feature::<Fault>(ci) })
                .flatten();
            let base = fault.as_ref().map_or(ci, |c| &c.info);
            // SAFETY: as above.
            let exec = want_executables
                .then(|| unsafe { chain::with_feature::<Executables>(base) })
                .flatten();
            let base = exec.as_ref().map_or(base, |c| &c.info);
            // SAFETY: as above.
            let keys = want_keys
                .then(|| unsafe { chain::with_feature::<Keys>(base) })
                .flatten();
            let info = keys.as_ref().map_or(base, |c| &c.info);
            if fault.is_some() || exec.is_some() || keys.is_some() {
                // SAFETY: the application's arguments, with the features enabled besides.
                let r = unsafe { next_create(physical_device, info, p_allocator, p_device) };
                if r == vk::Result::SUCCESS {
                    self.fault_on.set(fault_already || fault.is_some());
                    self.executables_on
                        .set(executables_already || exec.is_some());
                    self.keys_on.set(keys_already || keys.is_some());
                    return r;
                }
            }
        }
        self.fault_on.set(fault_already);
        self.executables_on.set(executables_already);
        self.keys_on.set(keys_already);
        // SAFETY: the application's arguments (or a copy with one feature enabled).
        unsafe { next_create(physical_device, p_ci, p_allocator, p_device) }
    }
}

/// Whether the layer may enable the feature `F` on a device of `pd`: the physical device
/// offers its extension and the feature, and the instance has vkGetPhysicalDeviceFeatures2
/// (which both extensions the layer enables require).
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn offers_feature<F: chain::ExtraFeature>(
    inst: &Instance,
    pd: vk::PhysicalDevice,
    extensions: &[vk::ExtensionProperties],
) -> bool {
    let Some(features2) = inst.next.get_physical_device_features2 else {
        return false;
    };
    let offered = F::REQUIRES
        .iter()
        .chain([&F::EXTENSION])
        .all(|name| offers(extensions, name));
    if !inst.properties2 || !offered {
        return false;
    }
    let mut feature = F::default();
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: &mut feature as *mut F as *mut std::ffi::c_void,
        ..Default::default()
    };
    // SAFETY: a query on a live physical device that offers the extension; the chained
    // structure lives across the call.
    unsafe { features2(pd, &mut f2) };
    feature.is_on()
}

/// The driver and its release as the device names them, `driverName (driverInfo)` (`radv (Mesa
/// 26.2.6-1)`). Asked only where VkPhysicalDeviceDriverProperties may be chained: the instance
/// has vkGetPhysicalDeviceProperties2 and the device offers VK_KHR_driver_properties (every
/// driver pops meets does; its structure is then valid whatever the API version).
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn driver_of(
    inst: &Instance,
    pd: vk::PhysicalDevice,
    extensions: &[vk::ExtensionProperties],
) -> Option<String> {
    let props2 = inst.next.get_physical_device_properties2?;
    if !inst.properties2 || !offers(extensions, vk::KHR_DRIVER_PROPERTIES_NAME) {
        return None;
    }
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: a query on a physical device of the instance, with a structure its extension
    // defines; the chain lives across the call.
    unsafe { props2(pd, &mut p2) };
    let name = driver.driver_name_as_c_str().ok()?.to_string_lossy();
    let info = driver
        .driver_info_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some(if info.is_empty() {
        name.into_owned()
    } else {
        format!("{name} ({info})")
    })
}

/// The device's PCI address from VK_EXT_pci_bus_info, where the device has the extension.
///
/// # Safety
/// `pd` must be a physical device of `inst`.
unsafe fn pci_bus_address(
    inst: &Instance,
    pd: vk::PhysicalDevice,
    extensions: &[vk::ExtensionProperties],
) -> Option<String> {
    let props2 = inst.next.get_physical_device_properties2?;
    // SAFETY: per the caller.
    unsafe {
        if !offers(extensions, vk::EXT_PCI_BUS_INFO_NAME) {
            return None;
        }
        let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut pci);
        props2(pd, &mut p2);
        Some(crate::chip::pci_address(
            pci.pci_domain,
            pci.pci_bus,
            pci.pci_device,
            pci.pci_function,
        ))
    }
}

/// The interlock features the application enabled (`None`: it chains none).
///
/// # Safety
/// `ci` must be a valid `VkDeviceCreateInfo`.
unsafe fn interlock_features(ci: &vk::DeviceCreateInfo) -> Option<InterlockFeatures> {
    // SAFETY: valid chain per the caller.
    let p = unsafe {
        ffi::find_in_chain(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_FRAGMENT_SHADER_INTERLOCK_FEATURES_EXT,
        )
    } as *const vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT;
    if p.is_null() {
        return None;
    }
    // SAFETY: sType identifies the structure.
    let f = unsafe { &*p };
    Some(InterlockFeatures {
        pixel: f.fragment_shader_pixel_interlock == vk::TRUE,
        sample: f.fragment_shader_sample_interlock == vk::TRUE,
        shading_rate: f.fragment_shader_shading_rate_interlock == vk::TRUE,
    })
}

/// vkDestroyDevice: forgets the device, writes its last timing lines and summary, then calls
/// down.
///
/// # Safety
/// The application's arguments.
pub unsafe fn destroy_device(device: vk::Device, p_allocator: *const vk::AllocationCallbacks) {
    if device == vk::Device::null() {
        return;
    }
    // SAFETY: a live device.
    let Some(d) = registry::remove_device(unsafe { dispatch_key(device) }) else {
        return;
    };
    draw_path::retarget();
    // The verdicts still being reached: their records belong before the device's summary.
    d.outbox.flush(&d, None);
    d.verifier.finish(None);
    records::tell_held_messages(&d);
    let _ = guarded(&d.health, vkfn::vkDestroyDevice, || {
        if let Some(t) = &d.timing {
            let (units, total, dropped) = t.finish(!d.submissions.is_lost());
            records::write_timing(&d, units, Some((&total, dropped)));
        }
        records::summary(&d);
        report::flush_all(true);
    });
    if let Some(f) = d.next.destroy_device {
        // SAFETY: the application's arguments, unchanged.
        unsafe { f(device, p_allocator) };
    }
}
