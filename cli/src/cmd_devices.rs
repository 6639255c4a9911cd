//! `pops devices`: the amdgpu GPUs of this machine, with the POPS quirks of each.

use pops_report::commands::{Device, DevicesDocument, Firmware, SkippedNode};
use std::path::PathBuf;
use std::process::ExitCode;
use winsys::amdgpu::{AmdgpuWinsys, ProbedNode};
use winsys::identify::DEFAULT_DRI_DIR;
use winsys::{DeviceInfo, WinsysError};

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Directory holding the DRM render nodes.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DRI_DIR)]
    dri_dir: PathBuf,
}

/// The POPS quirks of a family, named as `pops chips` names them.
pub fn quirk_names(family: pm4::Family) -> Vec<&'static str> {
    let q = family.quirks();
    let mut v = Vec::new();
    if q.pops_missed_overlap {
        v.push("pops-missed-overlap");
    }
    if q.stalled_pops_mode {
        v.push("stalled-pops-mode");
    }
    if q.out_of_order_rast {
        v.push("out-of-order-rasterization");
    }
    v
}

fn fw(v: Option<winsys::FirmwareVersion>) -> Option<Firmware> {
    v.map(|v| Firmware {
        version: v.version,
        feature: v.feature,
    })
}

fn device(info: &DeviceInfo) -> Device {
    Device {
        render_node: info.render_node.as_ref().map(|p| p.display().to_string()),
        family: info.family.name().into(),
        gfx_level: info.gfx_level.name().into(),
        llvm_processor: info.family.llvm_processor().into(),
        asic: info.asic.clone(),
        marketing_name: info.marketing_name.clone(),
        pci_bus: info.pci_bus.clone(),
        pci_id: info.pci_id.map(|(device, _)| format!("1002:{device:04x}")),
        pci_revision: info.pci_id.map(|(_, rev)| rev),
        shader_engines: info.shader_engines,
        me_firmware: fw(info.me_firmware),
        pfp_firmware: fw(info.pfp_firmware),
        ib_pad_dwords: info.ib_pad_dwords,
        ib_start_alignment: info.ib_start_alignment,
        drm_version: info.drm_version.map(|(a, b, c)| format!("{a}.{b}.{c}")),
        gpu_counter_freq_khz: info.gpu_counter_freq_khz,
        quirks: quirk_names(info.family)
            .into_iter()
            .map(str::to_string)
            .collect(),
    }
}

pub fn run(args: Args) -> ExitCode {
    let (probed, none_reason) = match AmdgpuWinsys::probe_all(&args.dri_dir) {
        Ok(p) => (p, None),
        Err(e @ WinsysError::NoRenderNode { .. }) => (Vec::new(), Some(e.to_string())),
        Err(e) => {
            eprintln!("pops devices: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (devices, skipped): (Vec<&ProbedNode>, Vec<&ProbedNode>) =
        probed.iter().partition(|p| p.outcome.is_ok());
    let devices: Vec<&DeviceInfo> = devices
        .iter()
        .filter_map(|p| p.outcome.as_ref().ok())
        .collect();
    let skipped: Vec<(String, String)> = skipped
        .iter()
        .filter_map(|p| {
            p.outcome
                .as_ref()
                .err()
                .map(|e| (p.path.display().to_string(), e.to_string()))
        })
        .collect();
    let message = if devices.is_empty() {
        Some(none_reason.unwrap_or_else(|| {
            format!(
                "no usable amdgpu GPU among the render nodes of {}",
                args.dri_dir.display()
            )
        }))
    } else {
        None
    };

    if args.json {
        crate::document::print_document(&DevicesDocument {
            devices: devices.iter().map(|d| device(d)).collect(),
            skipped: skipped
                .iter()
                .map(|(p, r)| SkippedNode {
                    render_node: p.clone(),
                    reason: r.clone(),
                })
                .collect(),
            message,
        });
        return ExitCode::SUCCESS;
    }
    if let Some(m) = &message {
        println!("No amdgpu GPU found: {m}.");
    }
    if !devices.is_empty() {
        println!(
            "{:<22} {:<18} {:<8} {:<14} {:<10} {:>3} quirks",
            "render node", "family", "level", "pci bus", "pci id", "SE"
        );
    }
    for d in &devices {
        let q = quirk_names(d.family);
        println!(
            "{:<22} {:<18} {:<8} {:<14} {:<10} {:>3} {}{}",
            d.render_node
                .as_ref()
                .map_or("-".into(), |p| p.display().to_string()),
            d.family.name(),
            d.gfx_level.name(),
            d.pci_bus.as_deref().unwrap_or("-"),
            d.pci_id
                .map_or("-".into(), |(dev, _)| format!("1002:{dev:04x}")),
            d.shader_engines,
            if q.is_empty() {
                "-".into()
            } else {
                q.join(", ")
            },
            d.marketing_name
                .as_ref()
                .map_or(String::new(), |n| format!("  ({n})")),
        );
    }
    for (p, r) in &skipped {
        println!("skipped {p}: {r}");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_shows_the_counter_frequency_or_null() {
        let mut info = winsys::capture::capture_info(pm4::Family::Navi21);
        let json = |d: Device| serde_json::to_value(d).unwrap()["gpu_counter_freq_khz"].clone();
        assert!(json(device(&info)).is_null());
        info.gpu_counter_freq_khz = Some(100_000);
        assert_eq!(json(device(&info)), 100_000);
    }
}
