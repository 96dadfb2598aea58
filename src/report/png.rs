//! PNG output: the same SVG every picture is drawn as, rasterised by `resvg`
//! (pure Rust) with DejaVu Sans compiled into the binary, so a PNG needs no
//! system font, no fontconfig and no native library.
//!
//! Invariant: the PNG has exactly the SVG's `width` × `height` in pixels.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

/// DejaVu Sans (Bitstream Vera licence, see `assets/fonts/LICENSE-DejaVu.txt`).
const DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Why an SVG could not become a PNG.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// resvg could not parse the SVG (a bug: podsim writes it).
    #[error("cannot read the SVG: {0}")]
    Svg(#[from] usvg::Error),
    /// The size asked for is zero or beyond what resvg can allocate.
    #[error("picture of {0}×{1} px is empty or too large")]
    Size(u32, u32),
    /// The PNG encoder failed.
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

/// The font database, built once: parsing the font file costs more than a picture.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(DEJAVU_SANS.to_vec());
            db.set_sans_serif_family("DejaVu Sans");
            Arc::new(db)
        })
        .clone()
}

/// Rasterises `svg` at its own size (one SVG pixel per PNG pixel).
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PngError> {
    let options = usvg::Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let size = tree.size().to_int_size();
    let (width, height) = (size.width(), size.height());
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(PngError::Size(width, height))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::identity(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PngError::Encode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::svg::Svg;

    #[test]
    fn png_has_the_svg_size_and_draws_text() {
        let mut svg = Svg::new(120, 40);
        svg.text(5.0, 25.0, "podsim", &[("font-size", &20)]);
        let png = svg_to_png(&svg.finish()).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height), (120, 40));
        // The embedded font drew the word: some pixels are dark.
        assert!(pixels.iter().any(|&b| b < 64));
    }

    #[test]
    fn malformed_svg_is_an_error_not_a_panic() {
        assert!(matches!(svg_to_png("<svg"), Err(PngError::Svg(_))));
    }
}
