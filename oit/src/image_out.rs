//! PNG output and a content hash for comparing runs (with and without a layer, say).

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("cannot create {path}: {source}")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot encode PNG {path}: {source}")]
    Encode {
        path: String,
        source: png::EncodingError,
    },
}

pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), ImageError> {
    let name = path.display().to_string();
    let file = File::create(path).map_err(|source| ImageError::Create {
        path: name.clone(),
        source,
    })?;
    let mut enc = png::Encoder::new(BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let encode = |source| ImageError::Encode {
        path: name.clone(),
        source,
    };
    let mut writer = enc.write_header().map_err(encode)?;
    writer.write_image_data(rgba).map_err(encode)?;
    writer.finish().map_err(encode)
}

/// FNV-1a, 64 bits: enough to tell two images apart in a table.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let dir = pops_testkit::scratch("oit-png");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.png");
        let rgba: Vec<u8> = (0..2 * 3 * 4).map(|i| i as u8 * 10).collect();
        write_png(&path, 2, 3, &rgba).unwrap();
        let dec = png::Decoder::new(File::open(&path).unwrap());
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert_eq!(buf, rgba);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hash_tells_images_apart() {
        assert_ne!(hash(&[0, 1]), hash(&[1, 0]));
        assert_eq!(hash(b"abc"), hash(b"abc"));
    }
}
