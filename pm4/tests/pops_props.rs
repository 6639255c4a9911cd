//! Properties of `pm4::pops::derive` over arbitrary input: it never panics, refuses exactly the
//! invalid inputs with a typed error, writes only registers of the chip's level, and its PM4
//! writes exactly those registers.

use pm4::decode::decode;
use pm4::pops::{
    derive_assuming, emit, BlendFactor, BlendOp, BlendTarget, CompareOp, DepthStencilState,
    DrawState, Experiments, InterlockDesc, KernelState, RasterizationOrder, StateError, StencilOp,
    StencilOpState,
};
use pm4::{Family, Granularity, InterlockMode, Ordering};
use proptest::prelude::*;

fn blend_op() -> impl Strategy<Value = BlendOp> {
    prop::sample::select(vec![
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ])
}

fn factor() -> impl Strategy<Value = BlendFactor> {
    use BlendFactor::*;
    prop::sample::select(vec![
        Zero,
        One,
        SrcColor,
        OneMinusSrcColor,
        DstColor,
        OneMinusDstColor,
        SrcAlpha,
        OneMinusSrcAlpha,
        DstAlpha,
        OneMinusDstAlpha,
        ConstantColor,
        SrcAlphaSaturate,
        Src1Alpha,
    ])
}

fn target() -> impl Strategy<Value = Option<BlendTarget>> {
    prop::option::of(
        (
            any::<bool>(),
            blend_op(),
            blend_op(),
            factor(),
            factor(),
            factor(),
            factor(),
            0u8..16,
        )
            .prop_map(|(enable, co, ao, sc, dc, sa, da, m)| BlendTarget {
                enable,
                color_op: co,
                alpha_op: ao,
                src_color: sc,
                dst_color: dc,
                src_alpha: sa,
                dst_alpha: da,
                write_mask: m,
            }),
    )
}

fn compare() -> impl Strategy<Value = CompareOp> {
    prop::sample::select(CompareOp::ALL.to_vec())
}

fn stencil() -> impl Strategy<Value = StencilOpState> {
    let op = prop::sample::select(StencilOp::ALL.to_vec());
    (op.clone(), op.clone(), op, compare(), 0u32..3).prop_map(|(f, p, d, c, m)| StencilOpState {
        fail: f,
        pass: p,
        depth_fail: d,
        compare: c,
        write_mask: m,
    })
}

fn draw() -> impl Strategy<Value = DrawState> {
    (
        (0u32..10, 0u32..10, 0u32..10, any::<bool>()),
        prop::array::uniform8(target()),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            compare(),
            any::<bool>(),
            stencil(),
            stencil(),
        ),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        prop::array::uniform8(prop::sample::select(pm4::pops::color::ALL)),
    )
        .prop_map(
            |(
                (rs, ds, cs, ss),
                targets,
                (hs, dt, dw, dc, st, fr, bk),
                (rel, vrs, add, nzf),
                formats,
            )| {
                DrawState {
                    rasterization_samples: rs,
                    depth_stencil_samples: ds,
                    color_samples: cs,
                    sample_shading: ss,
                    color_targets: targets,
                    color_formats: formats,
                    depth_stencil: DepthStencilState {
                        has_stencil: hs,
                        depth_test: dt,
                        depth_write: dw,
                        depth_compare: dc,
                        stencil_test: st,
                        front: fr,
                        back: bk,
                    },
                    rasterization_order: if rel {
                        RasterizationOrder::Relaxed
                    } else {
                        RasterizationOrder::Strict
                    },
                    vrs_in_use: vrs,
                    allow_commutative_additive_blend: add,
                    assume_no_z_fights: nzf,
                }
            },
        )
}

fn interlock() -> impl Strategy<Value = InterlockDesc> {
    (
        prop::option::of(prop::sample::select(InterlockMode::ALL.to_vec())),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mode, i, c, w, m)| InterlockDesc {
            mode,
            resolves_intrawave: i,
            has_color_output: c,
            writes_memory: w,
            reads_sample_mask: m,
        })
}

fn experiments() -> impl Strategy<Value = Experiments> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(a, b, c)| Experiments {
        force_drain_ps_on_overlap: a,
        exec_if_overlapped: b,
        bin_map_mode_pops: c,
    })
}

fn kernel() -> impl Strategy<Value = KernelState> {
    any::<bool>().prop_map(|f| KernelState {
        force_vrs_rate_fine_pops: f,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn derive_is_total_and_consistent(
        family in prop::sample::select(Family::ALL.to_vec()),
        il in interlock(),
        d in draw(),
        e in experiments(),
        k in kernel(),
    ) {
        let valid = |s: u32| matches!(s, 1 | 2 | 4 | 8);
        match derive_assuming(family, &il, &d, &e, &k) {
            Err(StateError::RasterizationSamples(s)) => prop_assert!(!valid(s)),
            Err(StateError::DepthStencilSamples(s)) => {
                prop_assert!(valid(d.rasterization_samples) && s != 0 && !valid(s))
            }
            Err(StateError::ColorSamples { color, rasterization }) => {
                prop_assert!(valid(rasterization) && (!valid(color) || color > rasterization))
            }
            Err(StateError::ShadingRateInterlock(m)) => {
                prop_assert_eq!(m.granularity, Granularity::ShadingRate)
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
            Ok(st) => {
                prop_assert!(valid(d.rasterization_samples));
                prop_assert!(d.depth_stencil_samples == 0 || valid(d.depth_stencil_samples));
                prop_assert!(d.color_samples == 0 || (valid(d.color_samples) && d.color_samples <= d.rasterization_samples));
                // The decided mask covers exactly the fields with a reason, and more only for
                // fields decided as a group; it never has bits outside the register's fields.
                for (r, m) in st.registers.iter().zip(&st.decided) {
                    let all: u32 = r.desc.fields.iter().map(|f| f.mask()).fold(0, |a, b| a | b);
                    prop_assert_eq!(m & !all, 0);
                    prop_assert_eq!(r.value & !m, 0, "{} has undecided bits set", r.reg());
                }
                prop_assert!(!matches!(il.mode, Some(m) if m.granularity == Granularity::ShadingRate));
                let level = family.gfx_level();
                for r in &st.registers {
                    prop_assert_eq!(level.register(r.reg()), Some(r.desc));
                }
                for r in &st.reasons {
                    prop_assert!(st.register(r.reg).is_some());
                }
                // Decode the PM4: exactly the registers, in order.
                let decoded = decode(level, &emit(&st));
                prop_assert!(decoded.is_ok());
                let written: Vec<_> = decoded.writes().map(|w| (w.address, w.value)).collect();
                let want: Vec<_> =
                    st.registers.iter().map(|r| (r.desc.address, r.value)).collect();
                prop_assert_eq!(written, want);
                // And the validator, which shares nothing with the encoder, accepts every dword.
                let report = pm4::validate::validate(level, &emit(&st));
                prop_assert!(report.is_ok(), "{:?}", report.violations);
                // Out-of-order rasterization: only with the hardware, and an ordered interlock
                // never enables it implicitly (only an explicit relaxed order does).
                if st.out_of_order.enabled {
                    prop_assert!(family.quirks().out_of_order_rast);
                    if matches!(il.mode, Some(m) if m.ordering == Ordering::Ordered) {
                        prop_assert_eq!(d.rasterization_order, RasterizationOrder::Relaxed);
                    }
                }
            }
        }
    }
}
