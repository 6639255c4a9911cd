//! `verify_isa`: the driver's code of a graphics pipeline — how it is asked for at creation
//! (the pipeline's binaries, or its printed representations, or neither where the driver's key
//! of the create info was verified before), read once the pipeline exists, and verified on the
//! device's verifier thread (crate::background).

use crate::boundary::guarded;
use crate::chain;
use crate::device::Device;
use crate::model::capture::PipelineCapture;
use crate::model::object::{IsaVerdict, PendingVerdict};
use crate::stores::CodeKept;
use crate::vk::capture as read;
use ash::vk;
use std::sync::Arc;

/// verify_isa: how a create info goes down.
pub(super) enum Capture {
    /// With the flags (and flags structure) that ask the driver to keep its code; under the
    /// driver's key of the create info, where verdicts are kept by key.
    Kept(chain::CaptureCopy, Option<Box<[u8]>>),
    /// With the flag that asks the driver to keep the pipeline's binaries (VK_KHR_pipeline_
    /// binary), the code then read from the fragment shader's binary: no printing of the code,
    /// no disassembler. Under the driver's key of the create info as the application made it.
    Data(chain::CaptureCopy, Box<[u8]>),
    /// As the application made it: the driver's key is one whose code was verified before (or
    /// is being verified), and this is its verdict.
    Known(IsaVerdict),
    /// As the application made it: a structure before its flags structure is one the layer
    /// does not know the size of, so it cannot be copied.
    Unkept,
    /// As the application made it: created after the process's exit waited for the creations
    /// printing their code, so not asked to print it (crate::exit_wait).
    Exiting,
}

/// Per create info, whether the driver is asked to keep its code: a complete pipeline whose
/// fragment stage (its own or a linked library's) is interlocked, and every graphics pipeline
/// library — the libraries linked into one pipeline must agree on the flag
/// (VUID-VkGraphicsPipelineCreateInfo-pLibraries-06646, -06647, -flags-06645), and which of them
/// will meet an interlocked fragment shader is not known when each is created.
/// `interlocked`: whether a pipeline's fragment stage, resolved as its record will resolve it,
/// is interlocked.
///
/// # Safety
/// `infos` must hold `count` valid create infos.
pub(super) unsafe fn capture_flags(
    d: &Device,
    device: vk::Device,
    infos: *const vk::GraphicsPipelineCreateInfo,
    count: u32,
    interlocked: impl Fn(&PipelineCapture) -> bool,
) -> Vec<Option<Capture>> {
    guarded(&d.health, "verify_isa", || {
        // SAFETY: per the caller.
        let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
        let subpass =
            |rp: vk::RenderPass, subpass: u32| d.passes.subpass(vk::Handle::as_raw(rp), subpass);
        infos
            .iter()
            .map(|info| {
                // SAFETY: a valid create info, read where valid usage makes it valid.
                let cap = unsafe { read::capture(info, subpass) };
                let wanted = cap.is_library || interlocked(&cap);
                // SAFETY: as above.
                wanted.then(|| unsafe { capture_or_known(d, device, info, &cap) })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Where the driver is asked to print code (`Capture::Kept`), the creation is counted so that the
/// process's exit waits for it; once the exit has waited, a create info that valid usage lets go
/// without the printing goes as the application made it (`Capture::Exiting`) (crate::exit_wait).
///
/// # Safety
/// `infos` must hold `capture.len()` valid create infos.
pub(super) unsafe fn printing(
    capture: &mut [Option<Capture>],
    infos: *const vk::GraphicsPipelineCreateInfo,
) -> Option<crate::exit_wait::Printing<'static>> {
    if !capture.iter().any(|c| matches!(c, Some(Capture::Kept(..)))) {
        return None;
    }
    let counted = crate::exit_wait::begin();
    if counted.is_none() {
        // SAFETY: per the caller.
        let infos = unsafe { std::slice::from_raw_parts(infos, capture.len()) };
        for (c, info) in capture.iter_mut().zip(infos) {
            // SAFETY: a valid create info.
            if matches!(c, Some(Capture::Kept(..)))
                && unsafe { chain::may_go_without_printing(info) }
            {
                *c = Some(Capture::Exiting);
            }
        }
    }
    counted
}

/// How a wanted create info goes down: as it is, where the driver's key of it is one whose
/// code was verified before; else asking the driver to keep its code, the verdict to be kept
/// under the key of the create info as the application made it. The key of the create info as
/// it goes down, with the capture, is asked for too, once per device: whether the driver gives
/// both the same key (its promise that the capture changes nothing of the binaries) is said.
///
/// # Safety
/// `info` must be a valid create info of `device`.
unsafe fn capture_or_known(
    d: &Device,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
    cap: &PipelineCapture,
) -> Capture {
    // SAFETY: per the caller.
    let key = unsafe { pipeline_key(d, device, info, cap) };
    if let Some(verdict) = key.as_deref().and_then(|k| d.verdicts.get(k)) {
        return Capture::Known(verdict);
    }
    let binaries = d.isa.is_some_and(|x| x.binaries.is_some()) && d.verdicts.binaries_readable();
    // SAFETY: per the caller.
    if let (Some(k), true) = (&key, binaries && unsafe { fragment_binary_last(info) }) {
        // SAFETY: per the caller.
        if let Some(copy) = unsafe { chain::with_capture_data(info) } {
            // SAFETY: per the caller.
            unsafe { note_capture_key(d, device, info, cap, (&copy, CodeKept::Binaries), k) };
            return Capture::Data(copy, k.clone());
        }
    }
    // SAFETY: per the caller.
    let Some(copy) = (unsafe { chain::with_capture(info) }) else {
        return Capture::Unkept;
    };
    if let Some(k) = &key {
        // SAFETY: per the caller.
        unsafe { note_capture_key(d, device, info, cap, (&copy, CodeKept::Representations), k) };
    }
    Capture::Kept(copy, key)
}

/// Asks, once per device and way the code is kept (`how`), the driver's key of the create info
/// as it goes down with `copy`'s flags, and says whether it is the application's `key`.
///
/// # Safety
/// `info` must be a valid create info of `device`, `copy` made from it.
unsafe fn note_capture_key(
    d: &Device,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
    cap: &PipelineCapture,
    (copy, how): (&chain::CaptureCopy, CodeKept),
    key: &[u8],
) {
    if d.verdicts.capture_key_noted(how) {
        return;
    }
    let captured = vk::GraphicsPipelineCreateInfo {
        flags: copy.flags,
        p_next: copy.p_next,
        ..*info
    };
    // SAFETY: the create info as it goes down, valid while `copy` lives.
    if let Some(with_capture) = unsafe { pipeline_key(d, device, &captured, cap) } {
        d.verdicts
            .note_capture_key(&d.device_name, how, *with_capture == *key);
    }
}

/// Whether the fragment shader's binary is the pipeline's last: RADV returns one binary per
/// compiled stage in stage order, fragment after the vertex and tessellation stages, and
/// appends a geometry copy shader; task and mesh stages come after the fragment stage. So it
/// is where no geometry, task or mesh stage is there (the test command holds this to the
/// driver's own disassembly); other pipelines have their code printed instead.
///
/// # Safety
/// `info` must be a valid create info of a complete pipeline (its stages valid).
unsafe fn fragment_binary_last(info: &vk::GraphicsPipelineCreateInfo) -> bool {
    use vk::ShaderStageFlags as S;
    // SAFETY: per the caller.
    let stages = unsafe { read::slice(info.p_stages, info.stage_count) };
    stages.iter().any(|s| s.stage == S::FRAGMENT)
        && !stages
            .iter()
            .any(|s| s.stage.intersects(S::GEOMETRY | S::TASK_EXT | S::MESH_EXT))
}

/// The driver's key of a complete pipeline's create info (vkGetPipelineKeyKHR), where the
/// device has the query. None for libraries and pipelines linked from them (their capture
/// follows the libraries', which are always created with it), and for pipelines made from
/// pipeline binaries (VUID-vkGetPipelineKeyKHR-pNext-09605).
///
/// # Safety
/// `info` must be a valid create info of `device`.
unsafe fn pipeline_key(
    d: &Device,
    device: vk::Device,
    info: &vk::GraphicsPipelineCreateInfo,
    cap: &PipelineCapture,
) -> Option<Box<[u8]>> {
    let get_key = d.isa?.pipeline_key?;
    // SAFETY: per the caller.
    if cap.is_library || !cap.libraries.is_empty() || unsafe { chain::has_binaries(info) } {
        return None;
    }
    let create_info = crate::ffi::PipelineCreateInfoKHR {
        s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_CREATE_INFO_KHR,
        p_next: info as *const vk::GraphicsPipelineCreateInfo as *mut std::ffi::c_void,
    };
    let mut key = crate::ffi::PipelineBinaryKeyKHR::default();
    // SAFETY: a valid create info of `device` behind a VkPipelineCreateInfoKHR, on a device
    // with pipelineBinaries enabled (pipeline_key is only set there).
    let r = unsafe { get_key(device, &create_info, &mut key) };
    (r == vk::Result::SUCCESS)
        .then(|| key.bytes().map(Box::from))
        .flatten()
}

/// The fragment shader's code the driver printed for `pipeline`, to be verified; the verdict
/// to be kept under the create info's `key`, where it has one.
///
/// # Safety
/// `pipeline` must be a live pipeline of `device`, created with its internal representations
/// captured, on a device with pipelineExecutableInfo enabled.
pub(super) unsafe fn assembly_code(
    x: crate::device::Executables,
    device: vk::Device,
    pipeline: vk::Pipeline,
    chip: pm4::Family,
    key: Option<Box<[u8]>>,
) -> Isa {
    // SAFETY: per the caller.
    match unsafe { fragment_assembly(x, device, pipeline) } {
        Some(text) => Isa::Later(Pending {
            code: OwnedCode::Text(text),
            level: chip.gfx_level(),
            key,
        }),
        None => Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
            pops_report::Severity::Info,
            pops_report::Code::ISA_NOT_VERIFIED,
            "the driver returned no assembly of the fragment shader (VK_KHR_pipeline_executable_properties): not verified",
        )])),
    }
}

/// The fragment shader's code read from `pipeline`'s binaries, to be verified; the verdict to
/// be kept under the create info's `key`. A binary the layer cannot read is said once for the
/// device, whose later pipelines then have their code printed instead.
///
/// # Safety
/// `pipeline` must be a live pipeline of `device`, created with
/// VK_PIPELINE_CREATE_2_CAPTURE_DATA_BIT_KHR on a device with pipelineBinaries enabled.
pub(super) unsafe fn binary_code(
    d: &Device,
    x: crate::device::Executables,
    device: vk::Device,
    pipeline: vk::Pipeline,
    chip: pm4::Family,
    key: &[u8],
) -> Isa {
    let not_verified = |why: String| {
        Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
            pops_report::Severity::Info,
            pops_report::Code::ISA_NOT_VERIFIED,
            format!("the fragment shader's pipeline binary (VK_KHR_pipeline_binary) {why}: not verified"),
        )]))
    };
    // SAFETY: per the caller.
    let data = match x
        .binaries
        .map(|b| unsafe { last_binary(b, device, pipeline) })
    {
        Some(Ok(data)) => data,
        Some(Err(r)) => return not_verified(format!("could not be had ({r})")),
        None => return not_verified("could not be had (no vkCreatePipelineBinariesKHR)".into()),
    };
    // Where the code lies is found here, on the application's thread, so that the very next
    // pipeline already knows whether binaries can be read.
    if let Err(e) = shaders::verify::radv_binary::machine_code(&data) {
        d.verdicts
            .binaries_unreadable(&d.device_name, &e.to_string());
        return not_verified(format!("is not code the layer can read ({e})"));
    }
    Isa::Later(Pending {
        code: OwnedCode::Binary(data),
        level: chip.gfx_level(),
        key: Some(key.into()),
    })
}

/// A fragment shader object's code, read from its binary data (vkGetShaderBinaryDataEXT: RADV's
/// header, then its serialized shader, `shaders::verify::radv_binary::shader_object_shader`), to
/// be verified as a pipeline's binary is. Its PS epilog is compiled at draw time: the verifier
/// judges the jump as for a pipeline whose epilog it does not know. A note where the data cannot
/// be had or read (another driver, another layout), with one warning per device.
///
/// # Safety
/// `shader` must be a live shader object of `device`, and `get` the next layer's
/// vkGetShaderBinaryDataEXT.
pub(super) unsafe fn shader_object_code(
    d: &Device,
    get: vk::PFN_vkGetShaderBinaryDataEXT,
    device: vk::Device,
    shader: vk::ShaderEXT,
    chip: pm4::Family,
) -> Isa {
    let not_verified = |why: String| {
        d.verdicts.shader_object_unreadable(&d.device_name, &why);
        Isa::Now(IsaVerdict::from(vec![pops_report::Diagnostic::new(
            pops_report::Severity::Info,
            pops_report::Code::ISA_NOT_VERIFIED,
            format!("the fragment shader object's binary data (vkGetShaderBinaryDataEXT) {why}: not verified"),
        )]))
    };
    let mut size = 0usize;
    // SAFETY: the two-call idiom on a live shader object; the buffer has the size the driver
    // reported.
    let data = unsafe {
        let r = get(device, shader, &mut size, std::ptr::null_mut());
        if r != vk::Result::SUCCESS {
            return not_verified(format!("could not be had ({r})"));
        }
        let mut bytes = vec![0u8; size];
        let r = get(device, shader, &mut size, bytes.as_mut_ptr().cast());
        if r != vk::Result::SUCCESS {
            return not_verified(format!("could not be had ({r})"));
        }
        bytes.truncate(size);
        bytes
    };
    match shaders::verify::radv_binary::shader_object_shader(&data) {
        Ok(shader) => Isa::Later(Pending {
            code: OwnedCode::Binary(shader.to_vec()),
            level: chip.gfx_level(),
            key: None,
        }),
        Err(e) => not_verified(format!("is not code the layer can read ({e})")),
    }
}

/// Why a pipeline's binary could not be had.
#[derive(Debug, thiserror::Error)]
enum BinaryError {
    #[error("vkCreatePipelineBinariesKHR or vkGetPipelineBinaryDataKHR returned {0}")]
    Call(vk::Result),
    #[error("the driver made no binary of the pipeline")]
    None,
}

/// The data of `pipeline`'s last binary; every binary made is destroyed again.
///
/// # Safety
/// As [`binary_code`].
unsafe fn last_binary(
    b: crate::device::BinaryCalls,
    device: vk::Device,
    pipeline: vk::Pipeline,
) -> Result<Vec<u8>, BinaryError> {
    use crate::ffi::{
        PipelineBinaryCreateInfoKHR, PipelineBinaryDataInfoKHR, PipelineBinaryHandlesInfoKHR,
        PipelineBinaryKeyKHR,
    };
    let info = PipelineBinaryCreateInfoKHR {
        s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_CREATE_INFO_KHR,
        p_next: std::ptr::null(),
        p_keys_and_data_info: std::ptr::null(),
        pipeline,
        p_pipeline_create_info: std::ptr::null(),
    };
    let mut handles = PipelineBinaryHandlesInfoKHR {
        s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_HANDLES_INFO_KHR,
        p_next: std::ptr::null(),
        pipeline_binary_count: 0,
        p_pipeline_binaries: std::ptr::null_mut(),
    };
    let ok = |r: vk::Result| {
        (r == vk::Result::SUCCESS)
            .then_some(())
            .ok_or(BinaryError::Call(r))
    };
    // SAFETY (whole function): two-call idioms on a live pipeline created with its binaries
    // kept; every array and buffer has the size the driver reported; each binary made is
    // destroyed once, whatever happens after it was made.
    unsafe {
        ok((b.create)(device, &info, std::ptr::null(), &mut handles))?;
        let mut binaries = vec![0u64; handles.pipeline_binary_count as usize];
        handles.p_pipeline_binaries = binaries.as_mut_ptr();
        ok((b.create)(device, &info, std::ptr::null(), &mut handles))?;
        binaries.truncate(handles.pipeline_binary_count as usize);
        let data = binaries.last().map(|&binary| {
            let di = PipelineBinaryDataInfoKHR {
                s_type: crate::ffi::STRUCTURE_TYPE_PIPELINE_BINARY_DATA_INFO_KHR,
                p_next: std::ptr::null_mut(),
                pipeline_binary: binary,
            };
            let mut key = PipelineBinaryKeyKHR::default();
            let mut size = 0usize;
            ok((b.data)(
                device,
                &di,
                &mut key,
                &mut size,
                std::ptr::null_mut(),
            ))?;
            let mut bytes = vec![0u8; size];
            ok((b.data)(
                device,
                &di,
                &mut key,
                &mut size,
                bytes.as_mut_ptr().cast(),
            ))?;
            bytes.truncate(size);
            Ok(bytes)
        });
        for &binary in &binaries {
            (b.destroy)(device, binary, std::ptr::null());
        }
        data.unwrap_or(Err(BinaryError::None))
    }
}

/// The text of the fragment executable's "Assembly" (or "Disassembly") representation.
///
/// # Safety
/// As [`assembly_code`].
unsafe fn fragment_assembly(
    x: crate::device::Executables,
    device: vk::Device,
    pipeline: vk::Pipeline,
) -> Option<String> {
    let info = vk::PipelineInfoKHR {
        pipeline,
        ..Default::default()
    };
    let mut n = 0u32;
    // SAFETY (whole function): two-call idioms on a live pipeline; every array has the count
    // the driver asked for, and the data buffers the sizes it reported.
    unsafe {
        if (x.properties)(device, &info, &mut n, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        let mut props = vec![vk::PipelineExecutablePropertiesKHR::default(); n as usize];
        if (x.properties)(device, &info, &mut n, props.as_mut_ptr()) != vk::Result::SUCCESS {
            return None;
        }
        let index = props
            .iter()
            .take(n as usize)
            .position(|p| p.stages.contains(vk::ShaderStageFlags::FRAGMENT))?;
        let exec = vk::PipelineExecutableInfoKHR {
            pipeline,
            executable_index: u32::try_from(index).ok()?,
            ..Default::default()
        };
        let mut m = 0u32;
        if (x.representations)(device, &exec, &mut m, std::ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); m as usize];
        let r = (x.representations)(device, &exec, &mut m, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let k = reps.iter().take(m as usize).position(|r| {
            matches!(
                r.name_as_c_str().ok().and_then(|n| n.to_str().ok()),
                Some("Assembly" | "Disassembly")
            ) && r.is_text == vk::TRUE
        })?;
        let mut data = vec![0u8; reps[k].data_size];
        for (j, rep) in reps.iter_mut().enumerate() {
            rep.p_data = if j == k {
                data.as_mut_ptr() as *mut std::ffi::c_void
            } else {
                std::ptr::null_mut()
            };
            if j != k {
                rep.data_size = 0;
            }
        }
        let r = (x.representations)(device, &exec, &mut m, reps.as_mut_ptr());
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        Some(String::from_utf8_lossy(&data[..end]).into_owned())
    }
}

/// Where the `verify_isa` setting asks for verification and this device's code is out of
/// reach, the verdict every interlocked pipeline and shader object gets: `isa-not-verified`,
/// naming why (never a record without a verdict).
pub(super) fn cannot_verify(d: &Device) -> Option<IsaVerdict> {
    if !d.settings.verify_isa {
        return None;
    }
    let why = match (d.chip, d.isa) {
        (None, _) => "the device is no AMD chip pops models: its code is not verified",
        (_, None) => "the device gives no VK_KHR_pipeline_executable_properties with pipelineExecutableInfo: the driver's code cannot be read, not verified",
        _ => return None,
    };
    Some(IsaVerdict::from(vec![pops_report::Diagnostic::new(
        pops_report::Severity::Info,
        pops_report::Code::ISA_NOT_VERIFIED,
        why,
    )]))
}

/// A pipeline's `verify_isa` findings: known at its creation, or to be reached from the code
/// the driver gave.
pub enum Isa {
    /// Known (or being reached for another pipeline with the same key).
    Now(IsaVerdict),
    /// To be reached from this code.
    Later(Pending),
}

impl Isa {
    /// The verdict a record carries: known, or given to the device's verifier; and the cell the
    /// record waits for in the device's outbox while a verdict is still to be reached.
    pub(super) fn into_verdict(self, d: &Device) -> (IsaVerdict, Option<Arc<PendingVerdict>>) {
        match self {
            Isa::Now(IsaVerdict::Pending(cell)) => (IsaVerdict::Pending(cell.clone()), Some(cell)),
            Isa::Now(v) => (v, None),
            Isa::Later(p) => {
                let cell = p.submit(d);
                (IsaVerdict::Pending(cell.clone()), Some(cell))
            }
        }
    }
}

/// The driver's code of a fragment shader to verify, for which chip, and the key to keep the
/// verdict under.
pub struct Pending {
    code: OwnedCode,
    level: pm4::GfxLevel,
    key: Option<Box<[u8]>>,
}

enum OwnedCode {
    Text(String),
    Binary(Vec<u8>),
}

impl Pending {
    /// Gives the code to the device's verifier; the verdict is given, once reached, in the
    /// returned cell (a note that it is not verified where the verification failed).
    pub(super) fn submit(self, d: &Device) -> Arc<PendingVerdict> {
        let cell = Arc::new(PendingVerdict::default());
        if let Some(key) = &self.key {
            d.verdicts.reaching(key, cell.clone());
        }
        let given = cell.clone();
        let job = move |d: &Device| {
            let verdict = guarded(&d.health, "verify_isa", || self.reach(d)).unwrap_or_else(|| {
                if let Some(key) = &self.key {
                    d.verdicts.not_reached(key);
                }
                Arc::from(vec![pops_report::Diagnostic::new(
                    pops_report::Severity::Info,
                    pops_report::Code::ISA_NOT_VERIFIED,
                    "the layer's verification of the driver's code failed: not verified",
                )])
            });
            given.give(verdict);
            // The records waiting for this verdict, and those after them, are written now:
            // not left for the application's next call, which may never come.
            d.outbox.write_ready(d);
        };
        match crate::registry::device(d.key) {
            Some(dev) => d.verifier.submit(Box::new(move || job(&dev))),
            None => job(d),
        }
        cell
    }

    /// The verdict, kept under the key.
    fn reach(&self, d: &Device) -> Arc<[pops_report::Diagnostic]> {
        let code = match &self.code {
            OwnedCode::Text(t) => crate::model::isa::DriverCode::Text(t),
            OwnedCode::Binary(b) => crate::model::isa::DriverCode::Binary(b),
        };
        let verdict = crate::model::isa::diagnostics_cached(self.level, code);
        if let Some(key) = &self.key {
            d.verdicts.keep(key, verdict.clone());
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fragment shader's binary is the last of a pipeline of vertex (and tessellation)
    /// and fragment stages only; with a geometry, task or mesh stage, or without a fragment
    /// stage, the code is printed instead.
    #[test]
    fn the_fragment_binary_is_last_only_without_later_or_copied_stages() {
        use vk::ShaderStageFlags as S;
        let last = |stages: &[S]| {
            let infos: Vec<vk::PipelineShaderStageCreateInfo> = stages
                .iter()
                .map(|&stage| vk::PipelineShaderStageCreateInfo {
                    stage,
                    ..Default::default()
                })
                .collect();
            let info = vk::GraphicsPipelineCreateInfo {
                stage_count: infos.len() as u32,
                p_stages: infos.as_ptr(),
                ..Default::default()
            };
            // SAFETY: a create info whose stages are the array above.
            unsafe { fragment_binary_last(&info) }
        };
        assert!(last(&[S::VERTEX, S::FRAGMENT]));
        assert!(last(&[
            S::VERTEX,
            S::TESSELLATION_CONTROL,
            S::TESSELLATION_EVALUATION,
            S::FRAGMENT
        ]));
        assert!(!last(&[S::VERTEX, S::GEOMETRY, S::FRAGMENT]));
        assert!(!last(&[S::MESH_EXT, S::FRAGMENT]));
        assert!(!last(&[S::TASK_EXT, S::MESH_EXT, S::FRAGMENT]));
        assert!(!last(&[S::VERTEX]));
    }
}
