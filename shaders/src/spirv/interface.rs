//! The resource interface a module declares: each descriptor (set, binding, kind) and whether it
//! has push constants — what a pipeline layout must provide for the module to be valid in it
//! (the specification's "Shader Resource Interface"). Read from the decorations and the variables'
//! types, as a driver reads them.

use super::module::{parse_header, Instructions, SpirvError};
use super::table::{Decoration, Dim, Op, StorageClass};
use std::collections::HashMap;

/// What kind of descriptor a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DescriptorKind {
    Sampler,
    CombinedImageSampler,
    SampledImage,
    StorageImage,
    UniformBuffer,
    StorageBuffer,
    InputAttachment,
    AccelerationStructure,
}

/// One descriptor binding of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// Array elements (1 for a single descriptor; a runtime array counts 1).
    pub count: u32,
}

/// The module's resource interface.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// Sorted by set and binding, one per binding.
    pub descriptors: Vec<Descriptor>,
    pub push_constants: bool,
}

/// Reads the interface of every variable the module declares (not only an entry point's).
pub fn interface(words: &[u32]) -> Result<Interface, SpirvError> {
    parse_header(words)?;
    let mut binding: HashMap<u32, u32> = HashMap::new();
    let mut set: HashMap<u32, u32> = HashMap::new();
    let mut buffer_block: Vec<u32> = Vec::new();
    let mut types: HashMap<u32, (Op, Vec<u32>)> = HashMap::new();
    let mut constants: HashMap<u32, u32> = HashMap::new();
    // (variable, pointer type, storage class)
    let mut vars: Vec<(u32, u32, StorageClass)> = Vec::new();
    for inst in Instructions::new(words) {
        let inst = inst?;
        let w = inst.words;
        match inst.op {
            Op::Decorate if w.len() >= 3 => match Decoration(w[2]) {
                Decoration::Binding if w.len() >= 4 => {
                    binding.insert(w[1], w[3]);
                }
                Decoration::DescriptorSet if w.len() >= 4 => {
                    set.insert(w[1], w[3]);
                }
                Decoration::BufferBlock => buffer_block.push(w[1]),
                _ => {}
            },
            Op::Constant if w.len() >= 4 => {
                constants.insert(w[2], w[3]);
            }
            Op::TypePointer
            | Op::TypeStruct
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeAccelerationStructureKHR
                if w.len() >= 2 =>
            {
                types.insert(w[1], (inst.op, w.to_vec()));
            }
            Op::Variable if w.len() >= 4 => vars.push((w[2], w[1], StorageClass(w[3]))),
            _ => {}
        }
    }
    let mut out = Interface::default();
    for (id, ptr, class) in vars {
        if class == StorageClass::PushConstant {
            out.push_constants = true;
            continue;
        }
        let (Some(&b), Some(&s)) = (binding.get(&id), set.get(&id)) else {
            continue;
        };
        // The pointee, through arrays.
        let mut ty = types
            .get(&ptr)
            .and_then(|(_, p)| p.get(3).copied())
            .unwrap_or(0);
        let mut count = 1u32;
        while let Some((op, t)) = types.get(&ty) {
            match *op {
                Op::TypeArray => {
                    count = count.saturating_mul(
                        t.get(3)
                            .and_then(|c| constants.get(c))
                            .copied()
                            .unwrap_or(1),
                    );
                    ty = t.get(2).copied().unwrap_or(0);
                }
                Op::TypeRuntimeArray => ty = t.get(2).copied().unwrap_or(0),
                _ => break,
            }
        }
        let (op, t) = types.get(&ty).cloned().unwrap_or((Op::Nop, Vec::new()));
        let kind = match (class, op) {
            (StorageClass::StorageBuffer, _) => DescriptorKind::StorageBuffer,
            (StorageClass::Uniform, _) if buffer_block.contains(&ty) => {
                DescriptorKind::StorageBuffer
            }
            (StorageClass::Uniform, _) => DescriptorKind::UniformBuffer,
            (StorageClass::UniformConstant, Op::TypeSampledImage) => {
                DescriptorKind::CombinedImageSampler
            }
            (StorageClass::UniformConstant, Op::TypeSampler) => DescriptorKind::Sampler,
            (StorageClass::UniformConstant, Op::TypeAccelerationStructureKHR) => {
                DescriptorKind::AccelerationStructure
            }
            // OpTypeImage: Dim is word 3, Sampled word 7 (2: read and written without a sampler).
            (StorageClass::UniformConstant, Op::TypeImage)
                if t.get(3) == Some(&Dim::SubpassData.0) =>
            {
                DescriptorKind::InputAttachment
            }
            (StorageClass::UniformConstant, Op::TypeImage) if t.get(7) == Some(&2) => {
                DescriptorKind::StorageImage
            }
            (StorageClass::UniformConstant, Op::TypeImage) => DescriptorKind::SampledImage,
            _ => continue,
        };
        out.descriptors.push(Descriptor {
            set: s,
            binding: b,
            kind,
            count,
        });
    }
    out.descriptors.sort();
    out.descriptors.dedup_by_key(|d| (d.set, d.binding));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(name: &str) -> Interface {
        let s = crate::corpus::get(name).unwrap_or_else(|| panic!("{name} in the corpus"));
        interface(&s.words()).unwrap()
    }

    /// The corpus's declarations (their GLSL in `shaders/glsl/`): a storage image, a storage
    /// buffer with push constants, an input attachment.
    #[test]
    fn declared_resources_are_read_with_their_kinds() {
        let d = |binding, kind| Descriptor {
            set: 0,
            binding,
            kind,
            count: 1,
        };
        assert_eq!(
            of("pixel_interlock_ordered.frag").descriptors,
            [d(0, DescriptorKind::StorageImage)]
        );
        let oit = of("oit_interlock.frag");
        assert_eq!(oit.descriptors, [d(0, DescriptorKind::StorageBuffer)]);
        assert!(oit.push_constants);
        assert_eq!(
            of("input_attachment_interlock.frag").descriptors,
            [d(0, DescriptorKind::InputAttachment)]
        );
        assert!(interface(&[1, 2, 3]).is_err(), "not SPIR-V");
    }
}
