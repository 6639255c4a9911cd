//! The race test (`--race`): many primitives, each covering the whole viewport, drawn in one
//! call; every fragment does a read-modify-write of its unit's counter and last primitive inside
//! the interlock's critical section (`shaders/race.frag`). Where the interlock holds, every
//! counter ends at the number of primitives (no lost update) and, in an ordered mode, no fragment
//! sees a later primitive's write before its own (no order violation). The control runs the same
//! code without interlock: on a device that runs fragments concurrently it must lose updates —
//! the proof that the test can see a race there at all.

use crate::config::{Aa, Algorithm, Combo};
use crate::device::{vk_err, DeviceError, Gpu};
use crate::matrix::{self, Stats};
use crate::pipelines::{pass, Layouts, Pass, PipelineDesc, TAIL_FORMAT};
use crate::resources::{Buffer, Held, Image};
use crate::submission::Submission;
use ash::vk;
use pm4::{Granularity, InterlockMode, Ordering};

/// Where the units live: a storage buffer or a storage image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    Buffer,
    Image,
}

impl Storage {
    pub const ALL: [Storage; 2] = [Storage::Buffer, Storage::Image];

    pub const fn name(self) -> &'static str {
        match self {
            Storage::Buffer => "buffer",
            Storage::Image => "image",
        }
    }
}

/// One combination of the race test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceCombo {
    /// `None`: the control, without interlock.
    pub interlock: Option<InterlockMode>,
    pub aa: Aa,
    pub storage: Storage,
}

impl RaceCombo {
    /// The control first (its verdict says whether the others can be believed), then every
    /// interlock mode; each with every anti-aliasing mode and both storages.
    pub fn all() -> Vec<RaceCombo> {
        let modes = std::iter::once(None).chain(Algorithm::ALL.iter().filter_map(|a| match a {
            Algorithm::Interlock(m) => Some(Some(*m)),
            Algorithm::LinkedList => None,
        }));
        let mut v = Vec::new();
        for interlock in modes {
            for aa in Aa::ALL {
                for storage in Storage::ALL {
                    v.push(RaceCombo {
                        interlock,
                        aa,
                        storage,
                    });
                }
            }
        }
        v
    }

    pub fn name(self) -> String {
        let mode = self
            .interlock
            .map_or_else(|| "control".to_string(), |m| m.name().to_string());
        format!("{mode}_{}_{}", self.aa.name(), self.storage.name())
    }

    /// The fragment shader variant (`build.rs`).
    fn variant(self) -> String {
        let (i, o, s) = match self.interlock {
            None => (0, 0, 0),
            Some(m) => (
                1,
                (m.ordering == Ordering::Ordered) as u32,
                (m.granularity == Granularity::Sample) as u32,
            ),
        };
        let p = self.aa.per_sample() as u32;
        let m = (self.storage == Storage::Image) as u32;
        format!("race_i{i}_o{o}_s{s}_p{p}_m{m}")
    }

    /// Whether the mode promises primitive order (so a violation is a failure).
    pub fn ordered(self) -> bool {
        self.interlock
            .is_some_and(|m| m.ordering == Ordering::Ordered)
    }

    /// Units per pixel: one per sample with sample shading, else one.
    fn per_pixel(self) -> u32 {
        if self.aa.per_sample() {
            self.aa.samples()
        } else {
            1
        }
    }

    /// Samples each unit counts per primitive: all of the pixel's with pixel-rate shading.
    fn samples_per_unit(self) -> u32 {
        if self.aa.per_sample() {
            1
        } else {
            self.aa.samples()
        }
    }

    /// What the device must have, as the OIT matrix asks it.
    fn needs(self) -> Combo {
        Combo {
            algorithm: self
                .interlock
                .map_or(Algorithm::LinkedList, Algorithm::Interlock),
            aa: self.aa,
        }
    }
}

/// The size of each combination's run.
#[derive(Clone, Copy, Debug)]
pub struct RaceOptions {
    pub width: u32,
    pub height: u32,
    pub primitives: u32,
    pub frames: u32,
    pub create_only: bool,
}

/// What one combination measured, over all its frames.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Fragment shader invocations that ran the section: primitives × units × frames.
    pub executions: u64,
    /// Σ |primitives × samples per unit − samples counted| over every unit and frame.
    pub lost: u64,
    /// Fragments that saw a primitive not below their own.
    pub violations: u64,
    pub gpu_ms: Option<Stats>,
}

#[derive(Clone, Debug)]
pub enum RaceOutcome {
    Measured(Measured),
    /// The mode promises nothing for this unit (sample interlock with a per-pixel unit).
    NotApplicable(&'static str),
    Unsupported(String),
    /// Pipelines created, nothing submitted (a device that cannot execute).
    Created,
    /// Submitted and completed, but nothing was written: no shader ran.
    NoShaderOutput,
    Error(String),
}

/// The race shaders' layout: the cells buffer, the statistics buffer, the cells image.
pub fn layouts(gpu: &Gpu) -> Result<Layouts, DeviceError> {
    use vk::DescriptorType as T;
    Layouts::with(
        gpu,
        &[T::STORAGE_BUFFER, T::STORAGE_BUFFER, T::STORAGE_IMAGE],
    )
}

/// Runs one combination: its pipeline (or shader objects) in the process's compile mode, then
/// `frames` submissions, each read back and counted.
pub fn run(gpu: &Gpu, layouts: &Layouts, combo: RaceCombo, opts: &RaceOptions) -> RaceOutcome {
    if combo.needs().not_applicable().is_some() {
        return RaceOutcome::NotApplicable(
            "sample interlock does not exclude two invocations that cover different samples of one pixel, so a per-pixel counter races",
        );
    }
    if let Some(why) = matrix::unsupported(&gpu.caps, combo.needs()) {
        return RaceOutcome::Unsupported(why);
    }
    let desc = PipelineDesc {
        vert: "race_vert",
        frag: &combo.variant(),
        samples: combo.aa.samples(),
        sample_shading: combo.aa.per_sample(),
        format: TAIL_FORMAT,
        blend: true,
        write_color: true,
    };
    let pass = match pass(gpu, layouts, desc) {
        Ok(p) => p,
        Err(e) => return RaceOutcome::Error(e.to_string()),
    };
    pass.name(gpu, &format!("race/{}", combo.name()));
    let outcome = if opts.create_only {
        RaceOutcome::Created
    } else {
        match measure(gpu, layouts, &pass, combo, opts) {
            Ok(o) => o,
            Err(e) => RaceOutcome::Error(e.to_string()),
        }
    };
    pass.destroy(gpu);
    outcome
}

/// The byte the read-back buffer holds before a submission: still there, nothing ran.
const SENTINEL: u8 = 0xa5;

fn measure(
    gpu: &Gpu,
    layouts: &Layouts,
    pass: &Pass,
    combo: RaceCombo,
    opts: &RaceOptions,
) -> Result<RaceOutcome, DeviceError> {
    let units = opts.width as u64 * opts.height as u64 * combo.per_pixel() as u64;
    let r = Resources::new(gpu, layouts, combo, opts, units)?;
    r.record(gpu, layouts, pass, combo, opts)?;
    let mut m = Measured::default();
    let mut gpu_ms = Vec::new();
    let sentinel = vec![SENTINEL; r.readback.size as usize];
    for _ in 0..opts.frames.max(1) {
        r.readback.write(&sentinel);
        r.sub.submit_and_wait()?;
        let bytes = r.readback.read(r.readback.size as usize);
        if bytes == sentinel {
            return Ok(RaceOutcome::NoShaderOutput);
        }
        count(
            &bytes,
            units,
            opts.primitives * combo.samples_per_unit(),
            &mut m,
        );
        m.executions += units * opts.primitives as u64;
        if let Some(ms) = r.sub.gpu_ms()? {
            gpu_ms.push(ms);
        }
    }
    m.gpu_ms = Stats::of(&gpu_ms);
    Ok(RaceOutcome::Measured(m))
}

/// Adds one frame's read-back (`units` pairs of samples counted and last primitive + 1, then the
/// violation count) to `m`: each unit must have counted `expected` samples.
fn count(bytes: &[u8], units: u64, expected: u32, m: &mut Measured) {
    let word = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    for u in 0..units as usize {
        m.lost += word(2 * u).abs_diff(expected) as u64;
    }
    m.violations += word(2 * units as usize) as u64;
}

/// One combination's buffers, image, descriptors and command buffer.
struct Resources<'g> {
    gpu: &'g Gpu,
    cells: Held<'g, Buffer>,
    stats: Held<'g, Buffer>,
    readback: Held<'g, Buffer>,
    cell_image: Held<'g, Image>,
    color: Held<'g, Image>,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    sub: Submission<'g>,
}

impl Drop for Resources<'_> {
    fn drop(&mut self) {
        let d = &self.gpu.device;
        // SAFETY: the device is idle first, so the set is not in use (the submission, buffers
        // and images are destroyed after this, as the fields drop); a null pool is ignored.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_descriptor_pool(self.pool, None);
        }
    }
}

impl<'g> Resources<'g> {
    fn new(
        gpu: &'g Gpu,
        layouts: &Layouts,
        combo: RaceCombo,
        opts: &RaceOptions,
        units: u64,
    ) -> Result<Resources<'g>, DeviceError> {
        use vk::BufferUsageFlags as B;
        use vk::ImageUsageFlags as I;
        let rw = B::STORAGE_BUFFER | B::TRANSFER_DST | B::TRANSFER_SRC;
        let cells = Buffer::new(gpu, units * 8, rw, false)?.held(gpu);
        let stats = Buffer::new(gpu, 16, rw, false)?.held(gpu);
        let readback = Buffer::new(gpu, units * 8 + 16, B::TRANSFER_DST, true)?.held(gpu);
        let (w, h) = (opts.width * combo.per_pixel(), opts.height);
        let store = I::STORAGE | I::TRANSFER_DST | I::TRANSFER_SRC;
        let cell_image = Image::new(gpu, w, h, vk::Format::R32G32_UINT, 1, store)?.held(gpu);
        let color = Image::new(
            gpu,
            opts.width,
            opts.height,
            TAIL_FORMAT,
            combo.aa.samples(),
            I::COLOR_ATTACHMENT,
        )?
        .held(gpu);
        let mut r = Resources {
            gpu,
            cells,
            stats,
            readback,
            cell_image,
            color,
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            sub: Submission::new(gpu)?,
        };
        r.descriptors(layouts)?;
        Ok(r)
    }

    /// The set: the cells buffer, the statistics, the cells image.
    fn descriptors(&mut self, layouts: &Layouts) -> Result<(), DeviceError> {
        let d = &self.gpu.device;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 2,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_IMAGE,
                descriptor_count: 1,
            },
        ];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: valid device; the pool is destroyed on drop.
        self.pool = unsafe { d.create_descriptor_pool(&info, None) }
            .map_err(vk_err("vkCreateDescriptorPool"))?;
        let set_layouts = [layouts.set_layout];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&set_layouts);
        // SAFETY: the pool has room for one set of this layout.
        self.set = unsafe { d.allocate_descriptor_sets(&alloc) }
            .map_err(vk_err("vkAllocateDescriptorSets"))?[0];
        let buffer = |b: &Buffer| {
            [vk::DescriptorBufferInfo {
                buffer: b.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        };
        let (cells, stats) = (buffer(&self.cells), buffer(&self.stats));
        let image = [vk::DescriptorImageInfo {
            sampler: vk::Sampler::null(),
            image_view: self.cell_image.view,
            image_layout: vk::ImageLayout::GENERAL,
        }];
        let write = |binding: u32, ty| {
            vk::WriteDescriptorSet::default()
                .dst_set(self.set)
                .dst_binding(binding)
                .descriptor_type(ty)
        };
        let writes = [
            write(0, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&cells),
            write(1, vk::DescriptorType::STORAGE_BUFFER).buffer_info(&stats),
            write(2, vk::DescriptorType::STORAGE_IMAGE).image_info(&image),
        ];
        // SAFETY: the set and resources are valid and not in use.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }
}

mod record;
mod table;

pub use table::run_all;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_has_its_own_name_and_a_compiled_shader() {
        let all = RaceCombo::all();
        // The control and four interlock modes, four anti-aliasing modes, two storages.
        assert_eq!(all.len(), 5 * 4 * 2);
        let mut names: Vec<String> = all.iter().map(|c| c.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for c in all {
            assert!(crate::pipelines::has_variant(&c.variant()), "{}", c.name());
        }
        assert!(crate::pipelines::has_variant("race_vert"));
    }

    #[test]
    fn only_ordered_modes_promise_order() {
        for c in RaceCombo::all() {
            let ordered = c.interlock.is_some_and(|m| m.ordering == Ordering::Ordered);
            assert_eq!(c.ordered(), ordered, "{}", c.name());
        }
    }

    /// A unit counts every covered sample of every primitive: the expected count, and what is
    /// lost when a write is overwritten by a stale one.
    #[test]
    fn lost_updates_are_the_distance_from_the_expected_count() {
        let frame = |counts: &[u32], violations: u32| -> Vec<u8> {
            let mut v: Vec<u8> = counts
                .iter()
                .flat_map(|c| [c.to_le_bytes(), 7u32.to_le_bytes()].concat())
                .collect();
            v.extend(violations.to_le_bytes());
            v
        };
        let mut m = Measured::default();
        count(&frame(&[40, 40, 36], 0), 3, 40, &mut m);
        assert_eq!((m.lost, m.violations), (4, 0));
        count(&frame(&[40, 44, 40], 2), 3, 40, &mut m);
        assert_eq!((m.lost, m.violations), (8, 2));
    }
}
