//! An application that exits with a live device.

use crate::common::*;

pub(crate) fn scenario_exit_with_live_device() -> Res<()> {
    let ctx = create_ctx(c"pops-scenario-exit")?;
    let shader = default_shader(&ctx);
    let made = all_ways(&ctx, shader, 1, false)?;
    for m in &made {
        print_made(shader, 1, m);
    }
    std::mem::forget(ctx);
    std::process::exit(0);
}
