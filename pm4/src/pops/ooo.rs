//! Out-of-order rasterization (PA_SC_MODE_CNTL_1.OUT_OF_ORDER_PRIMITIVE_ENABLE).
//!
//! The implicit decision follows radeonsi's si_out_of_order_rasterization as Nicolai Hähnle
//! explains it in the review thread (shared/seeds/003): per render target, enabled commutative
//! blending needs the depth/stencil "pass_set" invariance, enabled non-commutative blending forbids
//! out-of-order rasterization, and colour writes without blending need "pass_last"; without a
//! depth/stencil attachment the default invariance is used. POPS adds two rules from the article:
//! an ordered interlock never enables it implicitly, and an explicitly relaxed rasterization order
//! still does.

use super::{
    is_ordered, BlendFactor, BlendOp, BlendTarget, CompareOp, DepthStencilState, DrawState,
    InterlockDesc, RasterizationOrder, StencilOp, StencilOpState,
};
use crate::chip::Family;

/// OUT_OF_ORDER_WATER_MARK Mesa programs whenever out-of-order rasterization is on.
pub const OUT_OF_ORDER_WATER_MARK: u32 = 0x7;

/// The decision and the clause that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutOfOrderDecision {
    pub enabled: bool,
    pub reason: &'static str,
}

/// Which depth/stencil outcomes do not depend on the order fragments arrive in (radeonsi's
/// si_dsa_order_invariance).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DsaOrderInvariance {
    /// The final depth/stencil buffer contents are order invariant.
    pub zs: bool,
    /// The set of fragments passing the tests is order invariant.
    pub pass_set: bool,
    /// The last fragment passing for a sample is order invariant (needs
    /// `assume_no_z_fights`).
    pub pass_last: bool,
}

impl DsaOrderInvariance {
    /// With no depth/stencil attachment: everything passes, but the last fragment is whichever
    /// arrives last.
    pub const NO_ATTACHMENT: DsaOrderInvariance = DsaOrderInvariance {
        zs: true,
        pass_set: true,
        pass_last: false,
    };
}

/// Whether a blend equation is commutative for out-of-order purposes (radeonsi's
/// si_blend_check_commutativity).
pub fn blend_is_commutative(
    op: BlendOp,
    src: BlendFactor,
    dst: BlendFactor,
    allow_additive: bool,
) -> bool {
    dst == BlendFactor::One
        && src_factor_independent_of_dst(src)
        && match op {
            BlendOp::Min | BlendOp::Max => true,
            // Addition commutes, but floating-point rounding makes the result depend on order:
            // only when explicitly allowed.
            BlendOp::Add => allow_additive,
            BlendOp::Subtract | BlendOp::ReverseSubtract => false,
        }
}

/// Source factors that do not read the destination. radeonsi's table also admits
/// SRC_ALPHA_SATURATE, but its value min(As, 1 - Ad) reads the destination alpha, so it is left
/// out here.
const fn src_factor_independent_of_dst(f: BlendFactor) -> bool {
    use BlendFactor::*;
    !matches!(
        f,
        DstColor | OneMinusDstColor | DstAlpha | OneMinusDstAlpha | SrcAlphaSaturate
    )
}

fn target_commutative(t: &BlendTarget, allow_additive: bool) -> bool {
    blend_is_commutative(t.color_op, t.src_color, t.dst_color, allow_additive)
        && blend_is_commutative(t.alpha_op, t.src_alpha, t.dst_alpha, allow_additive)
}

/// REPLACE would be invariant unless the shader exports the stencil reference; like radeonsi and
/// RADV, stay conservative.
const fn order_invariant_stencil_op(op: StencilOp) -> bool {
    !matches!(
        op,
        StencilOp::IncrementAndClamp | StencilOp::DecrementAndClamp | StencilOp::Replace
    )
}

/// Assuming depth writes are off: do the passing set and the final stencil value not depend on
/// the order?
fn order_invariant_stencil_state(s: &StencilOpState) -> bool {
    s.write_mask == 0
        || (s.compare == CompareOp::Always
            && order_invariant_stencil_op(s.pass)
            && order_invariant_stencil_op(s.depth_fail))
        || (s.compare == CompareOp::Never && order_invariant_stencil_op(s.fail))
}

fn face_writes_stencil(s: &StencilOpState) -> bool {
    s.write_mask != 0
        && (s.fail != StencilOp::Keep
            || s.pass != StencilOp::Keep
            || s.depth_fail != StencilOp::Keep)
}

/// The invariance of a bound depth/stencil attachment with this state.
pub fn dsa_order_invariance(
    ds: &DepthStencilState,
    assume_no_z_fights: bool,
) -> DsaOrderInvariance {
    let func = if ds.depth_test {
        ds.depth_compare
    } else {
        CompareOp::Always
    };
    let zfunc_is_ordered = matches!(
        func,
        CompareOp::Never
            | CompareOp::Less
            | CompareOp::LessOrEqual
            | CompareOp::Greater
            | CompareOp::GreaterOrEqual
    );
    let func_always_or_never = matches!(func, CompareOp::Always | CompareOp::Never);
    let depth_write = ds.depth_test && ds.depth_write;
    if !ds.has_stencil {
        return DsaOrderInvariance {
            zs: !depth_write || zfunc_is_ordered,
            pass_set: !depth_write || func_always_or_never,
            pass_last: assume_no_z_fights && depth_write && zfunc_is_ordered,
        };
    }
    let stencil_write =
        ds.stencil_test && (face_writes_stencil(&ds.front) || face_writes_stencil(&ds.back));
    let stencil_invariant = !ds.stencil_test
        || (order_invariant_stencil_state(&ds.front) && order_invariant_stencil_state(&ds.back));
    // radeonsi: no depth/stencil writes at all, or no depth writes and an order-invariant
    // stencil state.
    let nozwrite_and_order_invariant_stencil =
        !depth_write && (!stencil_write || stencil_invariant);
    DsaOrderInvariance {
        zs: nozwrite_and_order_invariant_stencil || (!stencil_write && zfunc_is_ordered),
        pass_set: nozwrite_and_order_invariant_stencil || (!stencil_write && func_always_or_never),
        pass_last: assume_no_z_fights && !stencil_write && depth_write && zfunc_is_ordered,
    }
}

const fn decision(enabled: bool, reason: &'static str) -> OutOfOrderDecision {
    OutOfOrderDecision { enabled, reason }
}

/// Decides PA_SC_MODE_CNTL_1.OUT_OF_ORDER_PRIMITIVE_ENABLE for the draw.
pub fn out_of_order_rasterization(
    family: Family,
    interlock: &InterlockDesc,
    draw: &DrawState,
) -> OutOfOrderDecision {
    if !family.quirks().out_of_order_rast {
        return decision(
            false,
            "this chip has no out-of-order rasterization hardware (GFX9 with 2+ shader engines only)",
        );
    }
    if draw.rasterization_order == RasterizationOrder::Relaxed {
        return decision(
            true,
            "relaxed rasterization order requested explicitly (VK_AMD_rasterization_order): it redefines rasterization order, so it applies even with ordered interlock",
        );
    }
    if is_ordered(interlock) {
        return decision(
            false,
            "ordered interlock: out-of-order rasterization must not be enabled implicitly",
        );
    }
    let dsa = if draw.depth_stencil_samples == 0 {
        DsaOrderInvariance::NO_ATTACHMENT
    } else {
        dsa_order_invariance(&draw.depth_stencil, draw.assume_no_z_fights)
    };
    if !dsa.zs {
        return decision(false, "the depth/stencil result depends on primitive order");
    }
    if interlock.writes_memory && !dsa.pass_set {
        return decision(
            false,
            "the shader writes memory and the set of fragments passing depth/stencil depends on order",
        );
    }
    let written = || {
        draw.color_targets
            .iter()
            .flatten()
            .filter(|t| interlock.has_color_output && t.writes())
    };
    if written().next().is_none() {
        return decision(true, "no colour writes and order-invariant depth/stencil");
    }
    let mut any_blended = false;
    let mut any_unblended = false;
    for t in written() {
        if t.enable {
            if !target_commutative(t, draw.allow_commutative_additive_blend) {
                return decision(
                    false,
                    "a render target blends non-commutatively (only MIN/MAX, or ADD when allowed, with destination factor ONE and a source factor not reading the destination)",
                );
            }
            any_blended = true;
        } else {
            any_unblended = true;
        }
    }
    if any_blended && !dsa.pass_set {
        return decision(
            false,
            "commutative blending needs the set of passing fragments to be order invariant (pass_set)",
        );
    }
    if any_unblended && !dsa.pass_last {
        return decision(
            false,
            "colour writes without blending need the last passing fragment to be order invariant (pass_last)",
        );
    }
    decision(
        true,
        "every written render target is commutatively blended or decided by depth (order invariant)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interlock::InterlockMode;
    use crate::pops::MAX_COLOR_TARGETS;

    const OOO_CHIP: Family = Family::Vega10;

    fn draw_with(targets: &[BlendTarget]) -> DrawState {
        let mut color_targets = [None; MAX_COLOR_TARGETS];
        for (i, t) in targets.iter().enumerate() {
            color_targets[i] = Some(*t);
        }
        DrawState {
            color_targets,
            ..DrawState::default()
        }
    }

    fn with_depth(mut d: DrawState, test: bool, write: bool, cmp: CompareOp) -> DrawState {
        d.depth_stencil_samples = 1;
        d.depth_stencil.depth_test = test;
        d.depth_stencil.depth_write = write;
        d.depth_stencil.depth_compare = cmp;
        d
    }

    fn no_interlock() -> InterlockDesc {
        InterlockDesc::default()
    }

    fn ooo(d: &DrawState) -> bool {
        out_of_order_rasterization(OOO_CHIP, &no_interlock(), d).enabled
    }

    /// "if blending is enabled and commutative, pass_set must be true"
    #[test]
    fn commutative_blending_needs_pass_set() {
        let max = draw_with(&[BlendTarget::one_one(BlendOp::Max)]);
        // Depth writes with LESS: the passing set depends on order.
        assert!(!ooo(&with_depth(max, true, true, CompareOp::Less)));
        // Depth writes with ALWAYS: every fragment passes, but the depth buffer keeps the last
        // fragment's depth, so zs fails.
        assert!(!ooo(&with_depth(max, true, true, CompareOp::Always)));
        // Depth writes with NEVER: nothing passes, nothing is written.
        assert!(ooo(&with_depth(max, true, true, CompareOp::Never)));
        // No depth writes: the set of passing fragments is fixed.
        assert!(ooo(&with_depth(max, true, false, CompareOp::Less)));
    }

    /// "MIN/MAX always; ADD only with the opt-in switch" (radeonsi_commutative_blend_add).
    #[test]
    fn min_max_are_commutative_add_only_when_allowed() {
        assert!(ooo(&draw_with(&[BlendTarget::one_one(BlendOp::Min)])));
        assert!(ooo(&draw_with(&[BlendTarget::one_one(BlendOp::Max)])));
        let mut add = draw_with(&[BlendTarget::one_one(BlendOp::Add)]);
        assert!(!ooo(&add));
        add.allow_commutative_additive_blend = true;
        assert!(ooo(&add));
        // Subtraction never commutes.
        let mut sub = draw_with(&[BlendTarget::one_one(BlendOp::Subtract)]);
        sub.allow_commutative_additive_blend = true;
        assert!(!ooo(&sub));
    }

    /// "if blending is enabled and non-commutative, we simply cannot enable ooo": the destination
    /// factor must be ONE, and the source factor must not depend on the destination.
    #[test]
    fn non_commutative_blending_forbids_it() {
        assert!(!ooo(&draw_with(&[BlendTarget::ALPHA])));
        let mut t = BlendTarget::one_one(BlendOp::Max);
        t.src_color = BlendFactor::DstColor;
        assert!(!ooo(&draw_with(&[t])));
        let mut t = BlendTarget::one_one(BlendOp::Max);
        t.dst_alpha = BlendFactor::Zero;
        assert!(!ooo(&draw_with(&[t])), "alpha equation counts too");
        let mut t = BlendTarget::one_one(BlendOp::Max);
        t.src_color = BlendFactor::ConstantColor;
        assert!(ooo(&draw_with(&[t])), "constant source factors are fine");
        let mut t = BlendTarget::one_one(BlendOp::Max);
        t.src_alpha = BlendFactor::SrcAlphaSaturate;
        assert!(
            !ooo(&draw_with(&[t])),
            "min(As, 1-Ad) reads the destination"
        );
    }

    /// "if blending is disabled, pass_last must be true" — and pass_last only holds with
    /// radeonsi_assume_no_z_fights, depth writes and an ordered depth function.
    #[test]
    fn colour_writes_without_blending_need_pass_last() {
        let opaque = draw_with(&[BlendTarget::OPAQUE]);
        assert!(!ooo(&with_depth(opaque, true, true, CompareOp::Less)));
        let mut nzf = with_depth(opaque, true, true, CompareOp::Less);
        nzf.assume_no_z_fights = true;
        assert!(ooo(&nzf));
        let mut eq = with_depth(opaque, true, true, CompareOp::Equal);
        eq.assume_no_z_fights = true;
        assert!(
            !ooo(&eq),
            "EQUAL with writes is not an ordered depth function"
        );
    }

    /// "When there is no Z buffer, radeonsi_assume_no_z_fights has no effect ... without a Z
    /// buffer we simply use the default" — the reviewer's claimed bug does not exist.
    #[test]
    fn no_depth_attachment_uses_the_default_invariance() {
        let mut opaque = draw_with(&[BlendTarget::OPAQUE]);
        opaque.assume_no_z_fights = true;
        // Depth state without an attachment is ignored.
        opaque.depth_stencil.depth_test = true;
        opaque.depth_stencil.depth_write = true;
        assert!(!ooo(&opaque));
        // Default pass_set holds: commutative blending is fine without a depth buffer.
        assert!(ooo(&draw_with(&[BlendTarget::one_one(BlendOp::Max)])));
        // No colour writes at all.
        let mut none = draw_with(&[]);
        assert!(ooo(&none));
        none.color_targets[0] = Some(BlendTarget {
            write_mask: 0,
            ..BlendTarget::OPAQUE
        });
        assert!(ooo(&none));
    }

    /// The reviewer (Matias) read the code as requiring pass_set AND pass_last, "impossible to
    /// satisfy unless depth function is set to never". Nicolai: pass_set is only needed by
    /// blended targets and pass_last only by unblended ones. A commutatively blended draw with a
    /// LESS depth test and no depth writes has pass_set but not pass_last — and is allowed.
    #[test]
    fn reviewer_case_pass_set_without_pass_last_is_enough_for_blending() {
        let d = with_depth(
            draw_with(&[BlendTarget::one_one(BlendOp::Max)]),
            true,
            false,
            CompareOp::Less,
        );
        let inv = dsa_order_invariance(&d.depth_stencil, d.assume_no_z_fights);
        assert!(inv.pass_set && !inv.pass_last);
        assert!(ooo(&d));
    }

    /// "with multiple render targets, it's theoretically possible for render targets to have
    /// different blend states" — each target imposes its own clause.
    #[test]
    fn per_render_target_clauses_combine() {
        let mixed = [BlendTarget::one_one(BlendOp::Max), BlendTarget::OPAQUE];
        // Blended MRT0 needs pass_set, unblended MRT1 needs pass_last: with depth writes and
        // LESS, pass_set fails.
        let mut d = with_depth(draw_with(&mixed), true, true, CompareOp::Less);
        d.assume_no_z_fights = true;
        assert!(!ooo(&d));
        // NEVER satisfies both (the only such function, as the reviewer noted for this case).
        let mut d = with_depth(draw_with(&mixed), true, true, CompareOp::Never);
        d.assume_no_z_fights = true;
        assert!(ooo(&d));
        // A non-commutative target anywhere forbids it.
        assert!(!ooo(&draw_with(&[
            BlendTarget::one_one(BlendOp::Max),
            BlendTarget::ALPHA
        ])));
    }

    #[test]
    fn stencil_invariance() {
        let mut d = draw_with(&[BlendTarget::one_one(BlendOp::Max)]);
        d.depth_stencil_samples = 1;
        d.depth_stencil.has_stencil = true;
        d.depth_stencil.stencil_test = true;
        d.depth_stencil.front.pass = StencilOp::IncrementAndWrap;
        d.depth_stencil.back.pass = StencilOp::IncrementAndWrap;
        assert!(ooo(&d), "wrapping increments commute");
        d.depth_stencil.front.pass = StencilOp::IncrementAndClamp;
        assert!(!ooo(&d), "clamping increments do not");
        d.depth_stencil.front.write_mask = 0;
        assert!(ooo(&d), "no stencil writes on that face");
    }

    /// "If the shader specifies an ordered interlock execution mode, out-of-order rasterization
    /// likely must not be enabled implicitly."
    #[test]
    fn ordered_interlock_never_enables_it_implicitly() {
        let d = draw_with(&[BlendTarget::one_one(BlendOp::Max)]);
        for m in InterlockMode::ALL.into_iter().take(4) {
            let i = InterlockDesc {
                writes_memory: false,
                ..InterlockDesc::with_mode(Some(m))
            };
            let got = out_of_order_rasterization(OOO_CHIP, &i, &d).enabled;
            assert_eq!(got, m.ordering == crate::Ordering::Unordered, "{m}");
        }
    }

    /// "Explicitly enabled relaxed rasterization order modifies the concept of rasterization
    /// order itself in Vulkan, so ... relaxed rasterization order should still be applicable
    /// regardless of whether the shader requests ordered interlock."
    #[test]
    fn relaxed_order_still_allows_it_with_ordered_interlock() {
        let mut d = draw_with(&[BlendTarget::ALPHA]);
        d.rasterization_order = RasterizationOrder::Relaxed;
        let i = InterlockDesc::with_mode(Some("pixel-ordered".parse().unwrap()));
        assert!(out_of_order_rasterization(OOO_CHIP, &i, &d).enabled);
    }

    /// Only chips with the hardware (Mesa: GFX8–9 with two or more shader engines).
    #[test]
    fn only_on_chips_with_the_hardware() {
        let d = DrawState {
            rasterization_order: RasterizationOrder::Relaxed,
            ..DrawState::default()
        };
        for f in Family::ALL {
            assert_eq!(
                out_of_order_rasterization(*f, &no_interlock(), &d).enabled,
                f.quirks().out_of_order_rast,
                "{f}"
            );
        }
        assert!(!out_of_order_rasterization(Family::Raven, &no_interlock(), &d).enabled);
    }

    /// radeonsi: "The set of PS invocations is always order invariant, except when early Z/S
    /// tests are requested" — memory writes from the shader then need pass_set (conservatively
    /// assumed here, as early tests are a shader property this model does not carry).
    #[test]
    fn memory_writes_need_pass_set() {
        // No colour output; depth writes with LESS: zs holds (ordered function), pass_set not.
        let d = with_depth(draw_with(&[]), true, true, CompareOp::Less);
        let mut i = InterlockDesc {
            writes_memory: false,
            has_color_output: false,
            ..InterlockDesc::default()
        };
        assert!(out_of_order_rasterization(OOO_CHIP, &i, &d).enabled);
        i.writes_memory = true;
        assert!(!out_of_order_rasterization(OOO_CHIP, &i, &d).enabled);
        let d = with_depth(d, true, false, CompareOp::Less);
        assert!(out_of_order_rasterization(OOO_CHIP, &i, &d).enabled);
    }
}
