//! The layer's findings in the application's `VK_EXT_debug_utils` messengers, as the Khronos
//! layers deliver theirs: a severity mapped from the diagnostic's, a stable message id per
//! diagnostic code (`pMessageIdName` `"POPS-<code>"`, `messageIdNumber` its FNV-1a hash), and the
//! object (pipeline or shader object, with the application's name) in `pObjects`. RenderDoc and
//! application logs show them where they show validation messages. The `debug_messages` setting
//! turns this off.
//!
//! Messengers are created on the instance; devices share their instance's [`Messengers`]. A
//! finding is delivered once per (code, object, sample count, object name): draw records repeat
//! per command buffer, a message per frame would drown the application's log.

use ash::vk;
use parking_lot::Mutex;
use pops_report::{Diagnostic, Severity};
use std::collections::HashSet;
use std::ffi::CString;

/// One messenger the application created.
#[derive(Clone, Copy)]
struct Messenger {
    handle: vk::DebugUtilsMessengerEXT,
    severities: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    callback: vk::PFN_vkDebugUtilsMessengerCallbackEXT,
    user_data: usize,
}

/// What identifies a message already sent: (code, object handle, samples, object name).
type Said = (pops_report::Code, u64, Option<u32>, Option<String>);

/// The messengers of one instance, and what was already said.
#[derive(Default)]
pub struct Messengers {
    list: Mutex<Vec<Messenger>>,
    said: Mutex<HashSet<Said>>,
}

/// The message type every finding is sent with: the layer reports how interlock is used and
/// what the hardware is programmed to, neither a valid-usage violation nor only performance.
const TYPE: vk::DebugUtilsMessageTypeFlagsEXT = vk::DebugUtilsMessageTypeFlagsEXT::GENERAL;

/// The stable message id of a diagnostic code: `"POPS-<code>"` and its 32-bit FNV-1a hash.
pub fn message_id(code: &str) -> (String, i32) {
    let mut h: u32 = 0x811c_9dc5;
    for b in code.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (format!("POPS-{code}"), h as i32)
}

fn severity(s: Severity) -> vk::DebugUtilsMessageSeverityFlagsEXT {
    match s {
        Severity::Info => vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
        Severity::Warning => vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
        Severity::Error => vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    }
}

/// The object a finding is about.
pub struct Subject<'a> {
    pub object_type: vk::ObjectType,
    pub handle: u64,
    pub name: Option<&'a str>,
    /// What the message names beside the finding: kind, stage hash, mode, samples.
    pub context: String,
    pub samples: Option<u32>,
}

impl Messengers {
    /// Remembers a messenger the next layer created.
    ///
    /// # Safety
    /// `info` must be the valid create info the messenger was created with.
    pub unsafe fn add(
        &self,
        handle: vk::DebugUtilsMessengerEXT,
        info: &vk::DebugUtilsMessengerCreateInfoEXT,
    ) {
        let m = Messenger {
            handle,
            severities: info.message_severity,
            types: info.message_type,
            callback: info.pfn_user_callback,
            user_data: info.p_user_data as usize,
        };
        self.list.lock().push(m);
    }

    pub fn remove(&self, handle: vk::DebugUtilsMessengerEXT) {
        self.list.lock().retain(|m| m.handle != handle);
    }

    /// Sends each diagnostic to every messenger that wants its severity, once per (code,
    /// object, samples, name). No lock is held while the application's callbacks run.
    pub fn deliver(&self, subject: &Subject, diagnostics: &[Diagnostic]) {
        let list: Vec<Messenger> = self.list.lock().clone();
        if list.is_empty() || diagnostics.is_empty() {
            return;
        }
        for d in diagnostics {
            let sev = severity(d.severity);
            let wanted: Vec<&Messenger> = list
                .iter()
                .filter(|m| m.severities.contains(sev) && m.types.contains(TYPE))
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let first = self.said.lock().insert((
                d.code,
                subject.handle,
                subject.samples,
                subject.name.map(str::to_string),
            ));
            if !first {
                continue;
            }
            let (id_name, id) = message_id(d.code.name());
            // Interior NULs cannot occur in codes, names or messages the layer builds; an
            // application name with one is cut there.
            let cstring = |s: &str| {
                CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
            };
            let id_name = cstring(&id_name);
            let text = cstring(&format!("{} ({})", d.message, subject.context));
            let name = subject.name.map(cstring);
            let objects = [vk::DebugUtilsObjectNameInfoEXT {
                object_type: subject.object_type,
                object_handle: subject.handle,
                p_object_name: name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                ..Default::default()
            }];
            let data = vk::DebugUtilsMessengerCallbackDataEXT {
                p_message_id_name: id_name.as_ptr(),
                message_id_number: id,
                p_message: text.as_ptr(),
                object_count: objects.len() as u32,
                p_objects: objects.as_ptr(),
                ..Default::default()
            };
            for m in &wanted {
                if let Some(cb) = m.callback {
                    // SAFETY: the application's callback with the arguments the specification
                    // defines; `data` and everything it points to live until it returns.
                    unsafe { cb(sev, TYPE, &data, m.user_data as *mut std::ffi::c_void) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Message ids are stable: a code always gives the same name and number (the FNV-1a of
    /// "pixel-interlock-with-msaa", computed independently), and different codes differ.
    #[test]
    fn message_ids_are_stable_per_code() {
        let (name, id) = message_id("pixel-interlock-with-msaa");
        assert_eq!(name, "POPS-pixel-interlock-with-msaa");
        let mut h: u32 = 2166136261;
        for b in "pixel-interlock-with-msaa".as_bytes() {
            h = (h ^ *b as u32).wrapping_mul(16777619);
        }
        assert_eq!(id, h as i32);
        assert_ne!(message_id("missed-overlap-drain").1, id);
    }

    /// (id name, id number, message, object handle, object name) of each message received.
    type Received = (String, i32, String, u64, Option<String>);
    struct Got(Mutex<Vec<Received>>);

    unsafe extern "system" fn callback(
        _sev: vk::DebugUtilsMessageSeverityFlagsEXT,
        _ty: vk::DebugUtilsMessageTypeFlagsEXT,
        data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
        user: *mut std::ffi::c_void,
    ) -> vk::Bool32 {
        // SAFETY: called by `deliver` with valid data and the `Got` passed as user data.
        unsafe {
            let got = &*(user as *const Got);
            let d = &*data;
            let o = &*d.p_objects;
            let s = |p: *const std::ffi::c_char| {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            };
            got.0.lock().push((
                s(d.p_message_id_name),
                d.message_id_number,
                s(d.p_message),
                o.object_handle,
                (!o.p_object_name.is_null()).then(|| s(o.p_object_name)),
            ));
        }
        vk::FALSE
    }

    /// Findings reach a messenger that wants their severity, once per object and samples, with
    /// the object and its name; a messenger for errors only hears nothing of an info.
    #[test]
    fn findings_are_delivered_once_with_their_object() {
        let ms = Messengers::default();
        let got = Got(Mutex::new(Vec::new()));
        let errors = Got(Mutex::new(Vec::new()));
        let info = |sev, user: &Got| {
            vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(sev)
                .message_type(vk::DebugUtilsMessageTypeFlagsEXT::GENERAL)
                .pfn_user_callback(Some(callback))
                .user_data(user as *const Got as *mut std::ffi::c_void)
        };
        use vk::DebugUtilsMessageSeverityFlagsEXT as S;
        // SAFETY: valid create infos.
        unsafe {
            ms.add(vk::Handle::from_raw(1), &info(S::INFO | S::WARNING, &got));
            ms.add(vk::Handle::from_raw(2), &info(S::ERROR, &errors));
        }
        let subject = Subject {
            object_type: vk::ObjectType::PIPELINE,
            handle: 0x1234,
            name: Some("oit colour pass"),
            context: "pipeline".into(),
            samples: Some(4),
        };
        let diag = [Diagnostic::new(
            Severity::Info,
            pops_report::Code::Chip(pm4::pops::StateCode::PixelInterlockWithMsaa),
            "m",
        )];
        ms.deliver(&subject, &diag);
        ms.deliver(&subject, &diag);
        let g = got.0.lock();
        assert_eq!(g.len(), 1, "once per object and samples");
        assert_eq!(g[0].0, "POPS-pixel-interlock-with-msaa");
        assert_eq!(g[0].1, message_id("pixel-interlock-with-msaa").1);
        assert_eq!(g[0].3, 0x1234);
        assert_eq!(g[0].4.as_deref(), Some("oit colour pass"));
        assert!(errors.0.lock().is_empty());
        drop(g);
        ms.remove(vk::Handle::from_raw(1));
        let other = Subject {
            handle: 0x99,
            ..subject
        };
        ms.deliver(&other, &diag);
        assert_eq!(got.0.lock().len(), 1, "a removed messenger hears nothing");
    }
}
