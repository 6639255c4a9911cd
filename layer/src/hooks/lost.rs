//! The first VK_ERROR_DEVICE_LOST a call returns on a device: the device-lost line (which
//! interlocked draws were in flight, at the loss and just before it), with the driver's fault
//! description where VK_EXT_device_fault is enabled — the one call the layer makes on a lost
//! device. Later losses on the device say nothing more.

use crate::boundary::guarded;
use crate::device::Device;
use crate::model::in_flight::Submitted;
use crate::model::lost::{self, Recorded, Seen};
use crate::records;
use ash::vk;
use pops_report::{DeviceFault, FaultAddress, FaultVendor};

/// A call returned VK_ERROR_DEVICE_LOST (`queue`: the queue it concerned, where known;
/// `at_loss`: the draws of the submission it made, if it was one).
pub fn seen(
    d: &Device,
    call: &'static str,
    queue: Option<u64>,
    at_loss: impl FnOnce() -> Vec<Submitted<Recorded>>,
) {
    let _ = guarded(&d.health, call, || {
        let Some(loss) = d.submissions.lost(queue) else {
            return;
        };
        // The draw records the line names are written first, with their verdicts and the ids
        // the report gave them (a record waits in the outbox while its verdict is reached).
        let limit = crate::background::VERDICT_WAIT;
        d.outbox.flush(d, Some(std::time::Instant::now() + limit));
        // SAFETY: the device is live (lost, not destroyed) and has deviceFault enabled.
        let fault = d.fault_info.and_then(|f| unsafe { fault(d.handle, f) });
        let line = lost::line(
            &Seen {
                app: &d.app,
                device: &d.device_name,
                chip: d.chip,
                call,
                queue,
            },
            loss,
            at_loss(),
            fault,
        );
        records::device_lost(d, &line, queue);
    });
}

/// Most addresses and vendor faults the layer copies; a vendor binary dump is sized, not copied.
const MOST: u32 = 64;
const MOST_BINARY: usize = 1 << 20;

/// What vkGetDeviceFaultInfoEXT says: its counts, then its information (the specification's
/// two-call idiom; the layer's buffers are sized from the counts, as drivers that write their
/// vendor binary without looking at the capacity need).
///
/// # Safety
/// `device` must be live with VK_EXT_device_fault's deviceFault enabled; `f` its
/// vkGetDeviceFaultInfoEXT.
unsafe fn fault(device: vk::Device, f: vk::PFN_vkGetDeviceFaultInfoEXT) -> Option<DeviceFault> {
    let mut counts = vk::DeviceFaultCountsEXT::default();
    // SAFETY: per the caller; the counts query.
    if unsafe { f(device, &mut counts, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return None;
    }
    let binary = counts.vendor_binary_size as usize;
    if binary > MOST_BINARY {
        counts.vendor_binary_size = 0;
    }
    counts.address_info_count = counts.address_info_count.min(MOST);
    counts.vendor_info_count = counts.vendor_info_count.min(MOST);
    let mut addresses =
        vec![vk::DeviceFaultAddressInfoEXT::default(); counts.address_info_count as usize];
    let mut vendor =
        vec![vk::DeviceFaultVendorInfoEXT::default(); counts.vendor_info_count as usize];
    let mut dump = vec![0u8; counts.vendor_binary_size as usize];
    let mut info = vk::DeviceFaultInfoEXT {
        p_address_infos: addresses.as_mut_ptr(),
        p_vendor_infos: vendor.as_mut_ptr(),
        p_vendor_binary_data: if dump.is_empty() {
            std::ptr::null_mut()
        } else {
            dump.as_mut_ptr().cast()
        },
        ..Default::default()
    };
    // SAFETY: per the caller; every array has the capacity the counts give.
    let r = unsafe { f(device, &mut counts, &mut info) };
    if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
        return None;
    }
    addresses.truncate(counts.address_info_count as usize);
    vendor.truncate(counts.vendor_info_count as usize);
    Some(DeviceFault {
        description: text(&info.description),
        addresses: addresses
            .iter()
            .map(|a| FaultAddress {
                kind: lost::address_type(a.address_type.as_raw()),
                address: format!("0x{:x}", a.reported_address),
                precision: a.address_precision,
            })
            .collect(),
        vendor: vendor
            .iter()
            .map(|v| FaultVendor {
                description: text(&v.description),
                code: v.vendor_fault_code,
                data: v.vendor_fault_data,
            })
            .collect(),
        vendor_binary_bytes: binary as u64,
    })
}

/// A fixed-size, NUL-terminated description.
fn text(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver's vkGetDeviceFaultInfoEXT that, like RADV with a hang report, writes its vendor
    /// binary whatever capacity it is given: it must be given the room the counts asked for.
    unsafe extern "system" fn driver(
        _: vk::Device,
        counts: *mut vk::DeviceFaultCountsEXT,
        info: *mut vk::DeviceFaultInfoEXT,
    ) -> vk::Result {
        // SAFETY: the layer's valid structures.
        unsafe {
            let c = &mut *counts;
            if info.is_null() {
                c.address_info_count = 1;
                c.vendor_info_count = 1;
                c.vendor_binary_size = 40;
                return vk::Result::SUCCESS;
            }
            let i = &mut *info;
            assert_eq!((c.address_info_count, c.vendor_info_count), (1, 1));
            assert!(!i.p_vendor_binary_data.is_null() && c.vendor_binary_size >= 40);
            std::ptr::write_bytes(i.p_vendor_binary_data.cast::<u8>(), 7, 40);
            for (d, s) in i
                .description
                .iter_mut()
                .zip(b"A GPUVM fault has been detected\0")
            {
                *d = *s as std::ffi::c_char;
            }
            *i.p_address_infos = vk::DeviceFaultAddressInfoEXT {
                address_type: vk::DeviceFaultAddressTypeEXT::WRITE_INVALID,
                reported_address: 0xdead_0000,
                address_precision: 4096,
            };
            let v = &mut *i.p_vendor_infos;
            v.vendor_fault_code = 3;
            v.vendor_fault_data = 4;
            vk::Result::SUCCESS
        }
    }

    #[test]
    fn the_fault_description_is_read_with_room_for_everything_the_driver_reports() {
        // SAFETY: the fake driver above.
        let f = unsafe { fault(vk::Device::null(), driver) }.expect("a description");
        assert_eq!(f.description, "A GPUVM fault has been detected");
        assert_eq!(
            f.addresses,
            [FaultAddress {
                kind: "WRITE_INVALID".into(),
                address: "0xdead0000".into(),
                precision: 4096
            }]
        );
        assert_eq!((f.vendor[0].code, f.vendor[0].data), (3, 4));
        assert_eq!(f.vendor_binary_bytes, 40);
    }
}
