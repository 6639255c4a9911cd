//! Any dwords, on any level, through the decoder and the IB validator: a result, never a panic,
//! overflow, out-of-bounds access or hang. And one cross-check between the two, which share no
//! code: a stream the validator accepts (every packet framed, every write on a real register)
//! decodes without error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pm4::GfxLevel;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let level = GfxLevel::ALL[pick as usize % GfxLevel::ALL.len()];
    let dwords: Vec<u32> = rest
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let decoded = pm4::decode(level, &dwords);
    let report = pm4::validate::validate(level, &dwords);
    for v in &report.violations {
        let _ = v.to_string();
        assert!(v.index < dwords.len().max(1));
    }
    if report.is_ok() {
        assert!(decoded.is_ok(), "validator accepts, decoder refuses: {:?}", decoded.error);
    }
});
