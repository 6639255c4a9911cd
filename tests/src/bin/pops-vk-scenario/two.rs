//! Two devices in one process.

use crate::common::*;

pub(crate) fn scenario_two() -> Res<()> {
    let a = create_ctx(c"pops-scenario-two-a")?;
    let b = create_ctx(c"pops-scenario-two-b")?;
    let shader = default_shader(&a);
    let ma = all_ways(&a, shader, 1, false)?;
    let mb = all_ways(&b, shader, 1, false)?;
    for m in ma.iter().chain(&mb) {
        print_made(shader, 1, m);
    }
    // Destroy in the other order than creation; pipelines are left to device destruction
    // (invalid for the app, but the layer must cope with the handles it tracks going away).
    b.destroy();
    let ma2 = all_ways(&a, shader, 1, true)?;
    println!("{}", serde_json::json!({"after_destroy_b": ma2.len()}));
    a.destroy();
    // No instance left: the loader may unload the layer; a new instance loads it again.
    let c = create_ctx(c"pops-scenario-two-c")?;
    for m in all_ways(&c, shader, 1, true)? {
        print_made(shader, 1, &m);
    }
    c.destroy();
    Ok(())
}
