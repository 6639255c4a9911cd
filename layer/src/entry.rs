//! The layer's entry points: one `extern "system"` function per hook of crate::table, generated
//! with its boundary, so that every body runs inside [`ffi_boundary`] by construction (the draw
//! commands' hot paths are crate::draw_path's); the lookup by name the loader chain answers
//! with; and vkGetInstanceProcAddr / vkGetDeviceProcAddr themselves.

use crate::boundary::{ffi_boundary, guarded, Fallback};
use crate::hooks::{
    attachments, device, instance, lifecycle, modules, names, passes, pipelines, queue,
    render_passes, shader_objects, state, sync, timing,
};
use crate::registry;
use ash::vk;
use std::ffi::CStr;

type Void = unsafe extern "system" fn();

/// Which dispatchable object a hook belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Answered with or without an instance: vkGetInstanceProcAddr, vkGetDeviceProcAddr,
    /// vkCreateInstance.
    Global,
    Instance,
    Device,
}

/// When a hook is handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    Always,
    /// Only with the `timing` setting (instance) and a device that times.
    Timing,
}

/// One hook: the function handed out for a Vulkan name.
pub struct Hook {
    pub name: &'static CStr,
    pub level: Level,
    pub need: Need,
    pub pointer: Void,
}

/// One generated entry point, by the entry's kind (crate::table).
macro_rules! entry_point {
    (own, $level:ident, $name:ident, $field:ident, $body:path, [$($arg:ident : $ty:ty),*], [$($ret:ty)?]) => {
        #[doc = concat!("The layer's ", stringify!($name), ".")]
        ///
        /// # Safety
        /// The command's valid usage.
        pub unsafe extern "system" fn $name($($arg: $ty),*) $(-> $ret)? {
            ffi_boundary(stringify!($name), || {
                // SAFETY: the caller's arguments, under the command's valid usage.
                unsafe { $body($($arg),*) }
            })
        }
    };
    (hook, instance, $name:ident, $field:ident, $body:path, [$first:ident : $fty:ty $(, $arg:ident : $ty:ty)*], [$($ret:ty)?]) => {
        #[doc = concat!("The layer's ", stringify!($name), ".")]
        ///
        /// # Safety
        /// The command's valid usage.
        pub unsafe extern "system" fn $name($first: $fty $(, $arg: $ty)*) $(-> $ret)? {
            ffi_boundary(stringify!($name), || {
                let Some(inst) = registry::instance_of($first) else {
                    return Fallback::unavailable();
                };
                let Some(next) = inst.next.$field else {
                    return Fallback::unavailable();
                };
                // SAFETY: the caller's arguments, under the command's valid usage; `next` is the
                // next layer's function of this name.
                unsafe { $body(&inst, next, $first $(, $arg)*) }
            })
        }
    };
    (hook, device, $name:ident, $field:ident, $body:path, [$first:ident : $fty:ty $(, $arg:ident : $ty:ty)*], [$($ret:ty)?]) => {
        #[doc = concat!("The layer's ", stringify!($name), ".")]
        ///
        /// # Safety
        /// The command's valid usage.
        pub unsafe extern "system" fn $name($first: $fty $(, $arg: $ty)*) $(-> $ret)? {
            ffi_boundary(stringify!($name), || {
                registry::with_device_of($first, |d| match d.next.$field {
                    // SAFETY: the caller's arguments, under the command's valid usage; `next`
                    // is the next layer's function of this name.
                    Some(next) => unsafe { $body(d, next, $first $(, $arg)*) },
                    None => Fallback::unavailable(),
                })
                .unwrap_or_else(Fallback::unavailable)
            })
        }
    };
    (after, device, $name:ident, $field:ident, $body:path, [$first:ident : $fty:ty $(, $arg:ident : $ty:ty)*], []) => {
        #[doc = concat!("The layer's ", stringify!($name), ".")]
        ///
        /// # Safety
        /// The command's valid usage.
        pub unsafe extern "system" fn $name($first: $fty $(, $arg: $ty)*) {
            ffi_boundary(stringify!($name), || {
                registry::with_device_of($first, |d| {
                    let Some(next) = d.next.$field else { return };
                    // SAFETY: the caller's arguments, unchanged.
                    unsafe { next($first $(, $arg)*) };
                    let _ = guarded(&d.health, stringify!($name), || {
                        // SAFETY: the arguments the command was just recorded with.
                        unsafe { $body(d, $first $(, $arg)*) }
                    });
                });
            })
        }
    };
    (action, device, $name:ident, $field:ident, $body:path, [$first:ident : $fty:ty $(, $arg:ident : $ty:ty)*], []) => {
        #[doc = concat!("The layer's ", stringify!($name), ".")]
        ///
        /// # Safety
        /// The command's valid usage.
        pub unsafe extern "system" fn $name($first: $fty $(, $arg: $ty)*) {
            ffi_boundary(stringify!($name), || {
                registry::with_device_of($first, |d| {
                    let Some(next) = d.next.$field else { return };
                    $body(d, $first);
                    // SAFETY: the caller's arguments, unchanged.
                    unsafe { next($first $(, $arg)*) };
                });
            })
        }
    };
    (draw, $($rest:tt)*) => {};
}

/// A hook's pointer, by the entry's kind.
macro_rules! hook_pointer {
    (draw, $name:ident, $pfn:ty) => {{
        let f: $pfn = crate::draw_path::$name;
        // SAFETY: a function pointer as the generic PFN_vkVoidFunction, as the loader expects;
        // the caller casts it back to the type its name implies.
        unsafe { std::mem::transmute::<$pfn, Void>(f) }
    }};
    ($kind:ident, $name:ident, $pfn:ty) => {{
        let f: $pfn = $name;
        // SAFETY: as above.
        unsafe { std::mem::transmute::<$pfn, Void>(f) }
    }};
}

macro_rules! need {
    (always) => {
        Need::Always
    };
    (timing) => {
        Need::Timing
    };
}

macro_rules! entry_points {
    (
        global [$($gk:ident $gw:ident $gname:ident . $gfield:ident : $gpfn:ty => $gbody:path [$($garg:ident : $gty:ty),*] $(-> $gret:ty)?;)*]
        instance [$($ik:ident $iw:ident $iname:ident . $ifield:ident : $ipfn:ty => $ibody:path [$($iarg:ident : $ity:ty),*] $(-> $iret:ty)?;)*]
        instance_calls [$($calls:tt)*]
        device [$($dk:ident $dw:ident $dname:ident . $dfield:ident : $dpfn:ty => $dbody:path [$($darg:ident : $dty:ty),*] $(-> $dret:ty)?;)*]
        device_calls [$($dcalls:tt)*]
    ) => {
        $( entry_point!($gk, global, $gname, $gfield, $gbody, [$($garg : $gty),*], [$($gret)?]); )*
        $( entry_point!($ik, instance, $iname, $ifield, $ibody, [$($iarg : $ity),*], [$($iret)?]); )*
        $( entry_point!($dk, device, $dname, $dfield, $dbody, [$($darg : $dty),*], [$($dret)?]); )*

        /// Every hook of the table.
        pub static HOOKS: &[Hook] = &[
            $( Hook { name: crate::next::c_name!($gname), level: Level::Global, need: need!($gw), pointer: hook_pointer!($gk, $gname, $gpfn) }, )*
            $( Hook { name: crate::next::c_name!($iname), level: Level::Instance, need: need!($iw), pointer: hook_pointer!($ik, $iname, $ipfn) }, )*
            $( Hook { name: crate::next::c_name!($dname), level: Level::Device, need: need!($dw), pointer: hook_pointer!($dk, $dname, $dpfn) }, )*
        ];
    };
}

crate::table::vulkan_table!(entry_points);

/// The hook of a Vulkan name, if the layer has one.
pub fn hook(name: &[u8]) -> Option<&'static Hook> {
    HOOKS.iter().find(|h| h.name.to_bytes() == name)
}

/// Every name the layer intercepts (for tests of pointer identity).
pub fn intercepted() -> impl Iterator<Item = &'static str> {
    HOOKS.iter().filter_map(|h| h.name.to_str().ok())
}

/// vkGetInstanceProcAddr and vkGetDeviceProcAddr: the layer's hook where it has one, the next
/// layer has the function and the hook is wanted; the next layer's function otherwise.
mod proc_addr {
    use super::{hook, Level, Need};
    use crate::ffi::dispatch_key;
    use crate::registry;
    use ash::vk;
    use std::ffi::{c_char, CStr};

    fn name_of<'a>(p_name: *const c_char) -> Option<&'a [u8]> {
        if p_name.is_null() {
            return None;
        }
        // SAFETY: the loader and applications pass NUL-terminated names.
        Some(unsafe { CStr::from_ptr(p_name) }.to_bytes())
    }

    /// # Safety
    /// The loader's or application's arguments: a valid (or null) instance and a name.
    pub unsafe fn instance(
        instance: vk::Instance,
        p_name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        let n = name_of(p_name)?;
        let h = hook(n);
        // Global commands are answered with or without an instance.
        if let Some(h) = h.filter(|h| h.level == Level::Global && n != b"vkGetDeviceProcAddr") {
            return Some(h.pointer);
        }
        if instance == vk::Instance::null() {
            // NULL instance: only global commands are defined for applications, and the loader
            // answers vkEnumerateInstance* from the manifest. vkCreateDevice is the exception
            // of the layer chain: a layer above looks the next vkCreateDevice up with a NULL
            // instance (Mesa's overlay layer, and the loader's own sample code, do), and the
            // loader's terminator answers it so. Refusing it fails every device created
            // through such a layer.
            return h.filter(|_| n == b"vkCreateDevice").map(|h| h.pointer);
        }
        // SAFETY: a non-null instance handle passed to GetInstanceProcAddr is a live instance.
        let inst = registry::instance(unsafe { dispatch_key(instance) })?;
        if let Some(h) = h.filter(|h| h.level == Level::Global) {
            return Some(h.pointer);
        }
        // SAFETY: the next layer's GIPA with the instance it created.
        let next = unsafe { (inst.next_gipa)(instance, p_name) };
        match h {
            // The timing's hooks only for an instance whose devices time.
            Some(h) if h.need == Need::Timing && !inst.settings.timing => next,
            Some(h) if next.is_some() => Some(h.pointer),
            _ => next,
        }
    }

    /// # Safety
    /// The loader's or application's arguments: a valid device and a name.
    pub unsafe fn device(device: vk::Device, p_name: *const c_char) -> vk::PFN_vkVoidFunction {
        let n = name_of(p_name)?;
        if device == vk::Device::null() {
            return None;
        }
        // SAFETY: a live device handle.
        let d = registry::device(unsafe { dispatch_key(device) })?;
        let h = hook(n);
        if n == b"vkGetDeviceProcAddr" {
            return h.map(|h| h.pointer);
        }
        // SAFETY: the next layer's GDPA with the device it created.
        let next = unsafe { (d.next_gdpa)(device, p_name) };
        match h.filter(|h| h.level == Level::Device) {
            // The timing's hooks only where the device times: the layer is otherwise invisible
            // to submissions.
            Some(h) if h.need == Need::Timing && d.timing.is_none() => next,
            Some(h) if next.is_some() => Some(h.pointer),
            _ => next,
        }
    }
}
