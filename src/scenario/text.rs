//! An input's bytes as text: read with a cap, and decoded as UTF-8 with a
//! hint where they are not, so that a file saved as UTF-16 (PowerShell's
//! `>`, Notepad's "Unicode") or Latin-1 is told how to fix it instead of
//! reaching a parser as "invalid UTF-8" or a stray NUL.
//!
//! Invariant: every file and standard input that podsim reads as a
//! scenario, manifest, grid or timings file comes through `read_capped`.

use std::io;
use std::path::Path;

use super::{Diagnostic, Input};

/// The text of an input file and its name for messages.
pub fn read_input(path: &Path, what: Input) -> Result<(String, String), Diagnostic> {
    let origin = path.display().to_string();
    let text = std::fs::File::open(path).and_then(read_capped);
    match text {
        Ok(text) => Ok((origin, text)),
        Err(e) => Err(Diagnostic::unreadable(&origin, what, e)),
    }
}

/// The most any one input may hold. A scenario or a manifest is a few
/// kilobytes and `kubectl get pods -A -o yaml` of a 5,000-node cluster a
/// few tens of megabytes; past this, a file is not an input (`/dev/zero`,
/// a disk image given by mistake), and reading it would only fill memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Reads all of `reader` as UTF-8 text, but no more than `MAX_INPUT_BYTES`:
/// a larger input is an error that says so, read no further; text in
/// another encoding is an error that names it.
pub fn read_capped(reader: impl io::Read) -> io::Result<String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(io::Error::other(format!(
            "it holds more than {} MiB, which no scenario or manifest does; give one file of scenarios \
             or manifests (split a big `kubectl get -o yaml` list by namespace)",
            MAX_INPUT_BYTES >> 20
        )));
    }
    decode(bytes).map_err(io::Error::other)
}

/// The bytes as UTF-8 text (a UTF-8 byte-order mark dropped, as Kubernetes'
/// YAML reader drops it), or what they are instead and how to save them.
fn decode(bytes: Vec<u8>) -> Result<String, String> {
    const SAVE: &str = "save it as UTF-8";
    let utf16 = |how: &str| {
        format!(
            "the file is UTF-16 ({how}) and podsim reads UTF-8: {SAVE} (`iconv -f UTF-16 -t UTF-8`; in \
             PowerShell, `Out-File -Encoding utf8`)"
        )
    };
    match bytes.get(..2) {
        Some([0xFF, 0xFE]) => return Err(utf16("byte-order mark FF FE")),
        Some([0xFE, 0xFF]) => return Err(utf16("byte-order mark FE FF")),
        _ => {}
    }
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        // UTF-16 without a mark: ASCII with a NUL beside every character.
        let head = &bytes[..bytes.len().min(64)];
        let nuls = |from: usize| head.iter().skip(from).step_by(2).filter(|&&b| b == 0).count();
        let (even, odd) = (nuls(0), nuls(1));
        if head.len() >= 4 && even.min(odd) == 0 && even.max(odd) * 4 >= head.len() {
            return Err(utf16("a NUL byte beside every character"));
        }
        let (line, col) = place(&bytes, nul);
        return Err(format!(
            "line {line}, column {col}: a NUL byte, which no text file holds: the file is not UTF-8 text; {SAVE}"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let (line, col) = place(bytes, at);
        let byte = bytes[at];
        // Latin-1 (ISO 8859-1) is Unicode's first 256 code points.
        let latin1 = match byte {
            0xA0..=0xFF => format!(" ({:?} in Latin-1)", char::from(byte)),
            _ => String::new(),
        };
        format!(
            "line {line}, column {col}: byte {byte:02X}{latin1} is not UTF-8: the file looks like Latin-1 or \
             Windows-1252; {SAVE} (`iconv -f LATIN1 -t UTF-8`)"
        )
    })?;
    Ok(match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Line and column (in characters, from 1) of byte `at`, all of whose
/// predecessors are UTF-8.
fn place(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = String::from_utf8_lossy(&bytes[..at]);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::decode;

    fn utf16le(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn utf16_with_or_without_its_mark_is_named() {
        let mut marked = vec![0xFF, 0xFE];
        marked.extend(utf16le("apiVersion: v1\n"));
        let e = decode(marked).unwrap_err();
        assert!(
            e.starts_with(
                "the file is UTF-16 (byte-order mark FF FE) and podsim reads UTF-8: save it as UTF-8"
            ),
            "{e}"
        );
        let big_endian: Vec<u8> = [0xFE, 0xFF, 0, b'a'].to_vec();
        assert!(
            decode(big_endian)
                .unwrap_err()
                .contains("(byte-order mark FE FF)")
        );
        let e = decode(utf16le("kind: Pod\n")).unwrap_err();
        assert!(
            e.starts_with("the file is UTF-16 (a NUL byte beside every character)"),
            "{e}"
        );
    }

    #[test]
    fn latin1_is_located_and_its_character_shown() {
        // "a: caf" then é as Latin-1's single byte E9, on line 2 column 7.
        let e = decode(b"x: 1\na: caf\xE9\n".to_vec()).unwrap_err();
        assert_eq!(
            e,
            "line 2, column 7: byte E9 ('é' in Latin-1) is not UTF-8: the file looks like Latin-1 or \
             Windows-1252; save it as UTF-8 (`iconv -f LATIN1 -t UTF-8`)"
        );
        // A column counts characters, not bytes: "é" in UTF-8 is two bytes.
        let e = decode("é\u{0}".as_bytes().to_vec()).unwrap_err();
        assert!(e.starts_with("line 1, column 2: a NUL byte"), "{e}");
    }

    #[test]
    fn utf8_is_read_as_it_is_and_its_mark_dropped() {
        assert_eq!(decode("caf\u{e9}\n".as_bytes().to_vec()).unwrap(), "café\n");
        assert_eq!(
            decode(b"\xEF\xBB\xBFname = \"x\"\n".to_vec()).unwrap(),
            "name = \"x\"\n"
        );
    }
}
