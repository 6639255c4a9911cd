//! The next layer's functions, resolved once (instance-level at vkCreateInstance, device-level
//! at vkCreateDevice): one field per entry of crate::table, `None` where the next layer does not
//! have the function.

use ash::vk;
use std::ffi::CStr;

type Void = unsafe extern "system" fn();

/// A table entry's name as a C string.
macro_rules! c_name {
    ($name:ident) => {
        match CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => panic!("a Vulkan function name has no interior NUL"),
        }
    };
}
pub(crate) use c_name;

/// The next layer's function of `name`, as the type its name implies.
macro_rules! resolve {
    ($get:ident, $name:ident, $pfn:ty) => {
        $get(c_name!($name)).map(|f| {
            // SAFETY: the next layer returned this pointer for the name whose prototype is
            // `$pfn` (crate::table pairs each name with its own prototype).
            unsafe { std::mem::transmute::<Void, $pfn>(f) }
        })
    };
}

macro_rules! next_tables {
    (
        global [$($global:tt)*]
        instance [$($ik:ident $iw:ident $iname:ident . $ifield:ident : $ipfn:ty => $ibody:path [$($iarg:ident : $ity:ty),*] $(-> $iret:ty)?;)*]
        instance_calls [$($cname:ident . $cfield:ident : $cpfn:ty;)*]
        device [$($dk:ident $dw:ident $dname:ident . $dfield:ident : $dpfn:ty => $dbody:path [$($darg:ident : $dty:ty),*] $(-> $dret:ty)?;)*]
        device_calls [$($ename:ident . $efield:ident : $epfn:ty;)*]
    ) => {
        /// The next layer's instance-level functions this layer intercepts or calls.
        #[derive(Default)]
        pub struct InstanceNext {
            $( pub $ifield: Option<$ipfn>, )*
            $( pub $cfield: Option<$cpfn>, )*
        }

        impl InstanceNext {
            /// Resolves every function through the next layer's vkGetInstanceProcAddr.
            pub fn load(get: impl Fn(&CStr) -> vk::PFN_vkVoidFunction) -> InstanceNext {
                InstanceNext {
                    $( $ifield: resolve!(get, $iname, $ipfn), )*
                    $( $cfield: resolve!(get, $cname, $cpfn), )*
                }
            }
        }

        /// The next layer's device-level functions this layer intercepts or calls.
        #[derive(Default)]
        pub struct Next {
            $( pub $dfield: Option<$dpfn>, )*
            $( pub $efield: Option<$epfn>, )*
        }

        impl Next {
            /// Resolves every function through the next layer's vkGetDeviceProcAddr.
            pub fn load(get: impl Fn(&CStr) -> vk::PFN_vkVoidFunction) -> Next {
                Next {
                    $( $dfield: resolve!(get, $dname, $dpfn), )*
                    $( $efield: resolve!(get, $ename, $epfn), )*
                }
            }
        }
    };
}

crate::table::vulkan_table!(next_tables);
