//! Command-buffer tracking: what a draw really programs. POPS is decided per draw, from the
//! bound pipeline or shader object, the dynamic state set since, and the attachments rendered
//! to. [`CmdState`] follows one command buffer's recording (pure: the hooks feed it) and counts
//! draws per (bound object, effective draw state); at vkEndCommandBuffer each distinct pair
//! becomes one `draw` record.

use super::capture::{
    CapturedState, ColorFormats, DepthAttachment, Dynamic, Samples, UNSET_DEPTH_STENCIL,
};
use super::object::Interlocked;
use pm4::pops::{BlendFactor, BlendOp, BlendTarget, CompareOp, StencilOp};
use std::sync::Arc;

/// Blend state of one attachment set by vkCmdSetColorBlendEquationEXT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendEquation {
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
}

/// One face's stencil operations set by vkCmdSetStencilOp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilOps {
    pub fail: StencilOp,
    pub pass: StencilOp,
    pub depth_fail: StencilOp,
    pub compare: CompareOp,
}

/// Dynamic state values set in the command buffer (`None`: not set).
#[derive(Clone, Debug, Default)]
pub struct DynamicValues {
    pub samples: Option<u32>,
    pub depth_test: Option<bool>,
    pub depth_write: Option<bool>,
    pub depth_compare: Option<CompareOp>,
    pub stencil_test: Option<bool>,
    /// vkCmdSetStencilOp per face (front, back).
    pub stencil_ops: [Option<StencilOps>; 2],
    /// vkCmdSetRasterizerDiscardEnable: with discard no fragment runs, so no POPS.
    pub rasterizer_discard: Option<bool>,
    pub blend_enable: Vec<Option<bool>>,
    pub blend_equation: Vec<Option<BlendEquation>>,
    pub write_mask: Vec<Option<u8>>,
    pub vrs: Option<bool>,
}

fn set_at<T: Copy>(v: &mut Vec<Option<T>>, first: u32, values: impl IntoIterator<Item = T>) {
    for (i, x) in values.into_iter().enumerate() {
        let k = first as usize + i;
        if v.len() <= k {
            v.resize(k + 1, None);
        }
        v[k] = Some(x);
    }
}

impl DynamicValues {
    pub fn set_blend_enable(&mut self, first: u32, values: impl IntoIterator<Item = bool>) {
        set_at(&mut self.blend_enable, first, values);
    }
    pub fn set_blend_equation(
        &mut self,
        first: u32,
        values: impl IntoIterator<Item = BlendEquation>,
    ) {
        set_at(&mut self.blend_equation, first, values);
    }
    pub fn set_write_mask(&mut self, first: u32, values: impl IntoIterator<Item = u8>) {
        set_at(&mut self.write_mask, first, values);
    }
}

/// What the current render pass instance renders to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rendering {
    pub depth: DepthAttachment,
    pub color_count: u32,
    /// The colour attachments' formats.
    pub colors: ColorFormats,
}

/// One distinct (bound object, draw state) of a command buffer and how many draws used it.
#[derive(Clone, Debug)]
pub struct DrawGroup {
    pub bound: Arc<Interlocked>,
    pub draw: CapturedState,
    pub count: u64,
}

/// One command buffer's recording, as far as POPS is concerned.
#[derive(Debug, Default)]
pub struct CmdState {
    /// The interlocked graphics pipeline bound (`None`: none, or one without interlock).
    pub pipeline: Option<Arc<Interlocked>>,
    /// The interlocked fragment shader object bound.
    pub shader: Option<Arc<Interlocked>>,
    /// Whether the last graphics binding was shader objects (binding one kind unbinds the other).
    pub shaders_active: bool,
    pub dynamic: DynamicValues,
    pub rendering: Option<Rendering>,
    /// The render pass instance (render pass, subpass index), for vkCmdNextSubpass.
    pub render_pass: Option<(u64, u32)>,
    pub groups: Vec<DrawGroup>,
    /// The group the last draw counted in, while nothing has changed since: the next draw just
    /// counts there. Any other command clears it ([`CmdState::changed`]).
    pub last: Option<usize>,
}

impl CmdState {
    /// A command buffer beginning: a secondary inherits its render pass instance's attachments.
    pub fn begin(inherited: Option<Rendering>) -> CmdState {
        CmdState {
            rendering: inherited,
            ..CmdState::default()
        }
    }

    pub fn bind_pipeline(&mut self, p: Option<Arc<Interlocked>>) {
        self.pipeline = p;
        self.shaders_active = false;
        self.changed();
    }

    pub fn bind_fragment_shader(&mut self, s: Option<Arc<Interlocked>>) {
        self.shader = s;
        self.shaders_active = true;
        self.changed();
    }

    /// The interlocked object whose fragment stage a draw now runs, if any.
    pub fn active(&self) -> Option<&Arc<Interlocked>> {
        if self.shaders_active {
            self.shader.as_ref()
        } else {
            self.pipeline.as_ref()
        }
    }

    /// The draw state a draw with `b` bound uses: its creation state, with every state it
    /// declares dynamic taken from the command buffer, and the attachments rendered to.
    pub fn effective(&self, b: &Interlocked) -> CapturedState {
        let mut d = b.draw.clone();
        let dy = &self.dynamic;
        let is = |f: Dynamic| b.dynamic.contains(f);
        if is(Dynamic::RASTERIZATION_SAMPLES) {
            d.samples = Some(dy.samples.map_or(Samples::Dynamic, Samples::Static));
        }
        let depth_dynamic = Dynamic::DEPTH_TEST_ENABLE
            | Dynamic::DEPTH_WRITE_ENABLE
            | Dynamic::DEPTH_COMPARE_OP
            | Dynamic::STENCIL_TEST_ENABLE
            | Dynamic::STENCIL_OP;
        if b.dynamic.intersects(depth_dynamic) {
            let mut ds = d.depth_stencil.unwrap_or(UNSET_DEPTH_STENCIL);
            if is(Dynamic::DEPTH_TEST_ENABLE) {
                ds.depth_test = dy.depth_test.unwrap_or(false);
            }
            if is(Dynamic::DEPTH_WRITE_ENABLE) {
                ds.depth_write = dy.depth_write.unwrap_or(false);
            }
            if is(Dynamic::DEPTH_COMPARE_OP) {
                ds.depth_compare = dy.depth_compare.unwrap_or(ds.depth_compare);
            }
            if is(Dynamic::STENCIL_TEST_ENABLE) {
                ds.stencil_test = dy.stencil_test.unwrap_or(false);
            }
            if is(Dynamic::STENCIL_OP) {
                for (face, ops) in [&mut ds.front, &mut ds.back]
                    .into_iter()
                    .zip(dy.stencil_ops)
                {
                    if let Some(o) = ops {
                        face.fail = o.fail;
                        face.pass = o.pass;
                        face.depth_fail = o.depth_fail;
                        face.compare = o.compare;
                    }
                }
            }
            d.depth_stencil = Some(ds);
        }
        let blend_dynamic =
            Dynamic::COLOR_BLEND_ENABLE | Dynamic::COLOR_BLEND_EQUATION | Dynamic::COLOR_WRITE_MASK;
        if b.dynamic.intersects(blend_dynamic) {
            let count = self
                .rendering
                .map(|r| r.color_count as usize)
                .or_else(|| d.blend.as_ref().map(Vec::len))
                .unwrap_or(1);
            let mut targets = d.blend.clone().unwrap_or_default();
            targets.resize(count, BlendTarget::OPAQUE);
            for (i, t) in targets.iter_mut().enumerate() {
                if is(Dynamic::COLOR_BLEND_ENABLE) {
                    t.enable = dy.blend_enable.get(i).copied().flatten().unwrap_or(false);
                }
                if is(Dynamic::COLOR_BLEND_EQUATION) {
                    if let Some(e) = dy.blend_equation.get(i).copied().flatten() {
                        t.src_color = e.src_color;
                        t.dst_color = e.dst_color;
                        t.color_op = e.color_op;
                        t.src_alpha = e.src_alpha;
                        t.dst_alpha = e.dst_alpha;
                        t.alpha_op = e.alpha_op;
                    }
                }
                if is(Dynamic::COLOR_WRITE_MASK) {
                    t.write_mask = dy.write_mask.get(i).copied().flatten().unwrap_or(0xf);
                }
            }
            d.blend = Some(targets);
        }
        if is(Dynamic::FRAGMENT_SHADING_RATE) {
            d.vrs = Some(dy.vrs.unwrap_or(false));
        }
        if let Some(r) = self.rendering {
            d.depth_attachment = Some(r.depth);
            d.color_formats = Some(r.colors);
            if d.blend.is_none() {
                // The pipeline did not say (a library or shader object): the render pass
                // instance's colour attachments, written without blending.
                d.blend = Some(vec![BlendTarget::OPAQUE; r.color_count as usize]);
            }
        }
        d
    }

    /// State that a draw depends on may have changed.
    pub fn changed(&mut self) {
        self.last = None;
    }

    /// Folds `n` draws counted elsewhere since the last draw (they repeated it: the lock-free
    /// counter of crate::draw_path, ended before any change) into that draw's group.
    pub fn absorb(&mut self, n: u64) {
        if let Some(g) = self.last.and_then(|i| self.groups.get_mut(i)) {
            g.count += n;
        }
    }

    /// A draw command. Counted only when an interlocked fragment stage is bound.
    pub fn draw(&mut self) {
        if let Some(g) = self.last.and_then(|i| self.groups.get_mut(i)) {
            g.count += 1;
            return;
        }
        let Some(b) = self.active().cloned() else {
            return;
        };
        // Dynamic rasterizer discard on: no fragment runs, nothing is ordered.
        if b.dynamic.contains(Dynamic::RASTERIZER_DISCARD_ENABLE)
            && self.dynamic.rasterizer_discard == Some(true)
        {
            return;
        }
        let draw = self.effective(&b);
        let i = match self
            .groups
            .iter()
            .position(|g| Arc::ptr_eq(&g.bound, &b) && g.draw == draw)
        {
            Some(i) => {
                self.groups[i].count += 1;
                i
            }
            None => {
                self.groups.push(DrawGroup {
                    bound: b,
                    draw,
                    count: 1,
                });
                self.groups.len() - 1
            }
        };
        self.last = Some(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::Fragment;
    use pm4::pops::DepthStencilState;
    use pops_report::{Bound, Source};

    fn bindable(kind: Bound, dynamic: Dynamic, draw: CapturedState) -> Arc<Interlocked> {
        Arc::new(Interlocked::new(
            0x10,
            kind,
            Fragment {
                analysis: crate::analysis::unknown("test"),
                entry: "main".into(),
                source: Source::ShaderModule,
                hash: None,
                module_name: None,
                fossilize_module: None,
                experiment: None,
                isa: Default::default(),
            },
            draw,
            dynamic,
        ))
    }

    /// The defect behind draw tracking: a dynamic rasterization sample count is the one set in
    /// the command buffer, not 1.
    #[test]
    fn dynamic_samples_come_from_the_command_buffer() {
        let p = bindable(
            Bound::Pipeline,
            Dynamic::RASTERIZATION_SAMPLES,
            CapturedState {
                samples: Some(Samples::Dynamic),
                ..CapturedState::default()
            },
        );
        let mut c = CmdState::begin(None);
        c.bind_pipeline(Some(p.clone()));
        c.draw();
        c.dynamic.samples = Some(4);
        c.changed();
        c.draw();
        c.draw();
        c.dynamic.samples = Some(8);
        c.changed();
        c.draw();
        let got: Vec<_> = c.groups.iter().map(|g| (g.draw.samples, g.count)).collect();
        assert_eq!(
            got,
            [
                (Some(Samples::Dynamic), 1),
                (Some(Samples::Static(4)), 2),
                (Some(Samples::Static(8)), 1)
            ]
        );
    }

    #[test]
    fn stencil_ops_and_rasterizer_discard_at_draw_time() {
        let s = bindable(
            Bound::ShaderObject,
            Dynamic::all(),
            CapturedState::default(),
        );
        let mut c = CmdState::begin(None);
        c.bind_fragment_shader(Some(s));
        c.dynamic.stencil_test = Some(true);
        c.dynamic.stencil_ops = [
            Some(StencilOps {
                fail: StencilOp::Keep,
                pass: StencilOp::IncrementAndClamp,
                depth_fail: StencilOp::Keep,
                compare: CompareOp::Always,
            }),
            None,
        ];
        c.changed();
        c.draw();
        let ds: DepthStencilState = c.groups[0].draw.depth_stencil.unwrap();
        assert!(ds.stencil_test);
        assert_eq!(
            (ds.front.pass, ds.front.compare),
            (StencilOp::IncrementAndClamp, CompareOp::Always)
        );
        assert_eq!(ds.back.pass, StencilOp::Keep);
        c.dynamic.rasterizer_discard = Some(true);
        c.changed();
        c.draw();
        assert_eq!(c.groups.iter().map(|g| g.count).sum::<u64>(), 1);
    }

    #[test]
    fn static_state_ignores_dynamic_values_it_does_not_declare() {
        let p = bindable(
            Bound::Pipeline,
            Dynamic::empty(),
            CapturedState {
                samples: Some(Samples::Static(2)),
                ..CapturedState::default()
            },
        );
        let mut c = CmdState::begin(None);
        c.dynamic.samples = Some(8);
        c.bind_pipeline(Some(p));
        c.draw();
        assert_eq!(c.groups[0].draw.samples, Some(Samples::Static(2)));
    }

    #[test]
    fn shader_objects_and_pipelines_unbind_each_other_and_nothing_counts_without_interlock() {
        let p = bindable(Bound::Pipeline, Dynamic::empty(), CapturedState::default());
        let s = bindable(
            Bound::ShaderObject,
            Dynamic::all(),
            CapturedState::default(),
        );
        let mut c = CmdState::begin(Some(Rendering {
            depth: DepthAttachment {
                samples: 4,
                has_stencil: true,
            },
            color_count: 2,
            colors: ColorFormats::from_formats(
                ["R8G8B8A8_UNORM", "R16G16B16A16_SFLOAT"]
                    .map(|f| pm4::pops::ColorFormat::parse(f).ok()),
            ),
        }));
        c.draw();
        assert!(c.groups.is_empty());
        c.bind_fragment_shader(Some(s.clone()));
        c.dynamic.samples = Some(4);
        c.dynamic.depth_test = Some(true);
        c.dynamic.set_blend_enable(1, [true]);
        c.changed();
        c.draw();
        c.bind_pipeline(Some(p));
        c.draw();
        c.bind_pipeline(None);
        c.draw();
        assert_eq!(c.groups.len(), 2);
        let so = &c.groups[0];
        assert_eq!(so.bound.bound, Bound::ShaderObject);
        assert_eq!(so.draw.samples, Some(Samples::Static(4)));
        assert_eq!(so.draw.depth_stencil.map(|d| d.depth_test), Some(true));
        let blend = so.draw.blend.as_ref().unwrap();
        assert_eq!(blend.len(), 2);
        assert!(!blend[0].enable && blend[1].enable);
        assert_eq!(
            so.draw.depth_attachment,
            Some(DepthAttachment {
                samples: 4,
                has_stencil: true
            })
        );
        assert_eq!(c.groups[1].bound.bound, Bound::Pipeline);
    }
}
