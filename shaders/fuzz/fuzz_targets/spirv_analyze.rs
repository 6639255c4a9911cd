//! Any bytes, read as a module in both the byte and the word entry points, must give a result or
//! a typed error, never a panic, overflow, out-of-bounds access or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shaders::spirv::{analyze, analyze_bytes, MAGIC};

fuzz_target!(|data: &[u8]| {
    let _ = analyze_bytes(data);
    // The same bytes as the body of a module with a valid header, so that mutations spend their
    // time past the magic number; the first byte picks a small <id> bound.
    if let Some((&bound, rest)) = data.split_first() {
        let mut words = vec![MAGIC, 0x0001_0500, 0, u32::from(bound), 0];
        words.extend(
            rest.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        let _ = analyze(&words);
        let swapped: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
        let _ = analyze(&swapped);
    }
});
