//! Prints the draw's vertex and pixel shaders for a level, as assembled (text, offsets, dwords):
//! `cargo run -p pops-draw --example listing -- gfx11 [sample]`.

use draw::shader::{Programs, PsOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let level = args
        .get(1)
        .and_then(|a| pm4::GfxLevel::parse(a))
        .unwrap_or(pm4::GfxLevel::Gfx9);
    let per_sample = args.get(2).map(String::as_str) == Some("sample");
    let o = PsOptions {
        pops: true,
        per_sample,
        samples: if per_sample { 8 } else { 1 },
        color_target: !per_sample,
    };
    match Programs::build(level, &o) {
        Ok(p) => print!(
            "; vertex stage ({level})\n{}\n; pixel shader ({level})\n{}",
            p.vs, p.ps
        ),
        Err(e) => {
            eprintln!("listing: {e}");
            std::process::exit(1);
        }
    }
}
