//! What the layer runs on whatever a driver hands it with `verify_isa`: the pipeline- and
//! shader-object binary readers, the instruction decoder, the rules on every path and the
//! ordering model. Any bytes must give code or a typed error, a verdict or a "not modelled",
//! never a panic, overflow, out-of-bounds access or hang. The first byte picks the level; the
//! rest is the driver's data, read as a shader object's, else as a pipeline binary's, else as
//! raw instruction words (so that mutations of real code reach the decoder and the model).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pm4::GfxLevel;
use shaders::isa::Encoding;
use shaders::verify::{self, radv_binary};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, data)) = data.split_first() else {
        return;
    };
    let level = GfxLevel::ALL[usize::from(pick) % GfxLevel::ALL.len()];
    let code = radv_binary::shader_object_shader(data)
        .and_then(radv_binary::machine_code)
        .or_else(|_| radv_binary::machine_code(data))
        .unwrap_or(data);
    let words = radv_binary::words(code);
    if let Ok(instrs) = verify::words(Encoding::of(level), &words) {
        let _ = verify::verify(level, &instrs);
        let _ = verify::model::run(level, &instrs);
    }
});
