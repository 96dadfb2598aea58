//! What a sweep's writer has written: rows, bytes and a running SHA-256 per
//! output, kept as it writes so the manifest never reads the file back; and
//! what the progress callback sees between two batches of rows, which is
//! where a checkpoint can be taken.
//!
//! Invariant: a tally's digest is that of exactly the bytes it counted, in
//! order, whether they were written by this process or read back from the
//! prefix of a file a stopped sweep left (`Tally::read`); so a resumed sweep's
//! final digest is the one an uninterrupted sweep would have computed.

use std::io::{self, Read, Write};

use sha2::{Digest, Sha256};

/// What a sweep wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Rows, header excluded.
    pub rows: u64,
    /// Bytes, header included.
    pub bytes: u64,
    /// SHA-256 of those bytes, for the manifest: hashed by the writer as it
    /// writes, so the file is never read back.
    pub sha256: [u8; 32],
}

/// What a sweep wrote: the CSV, and the summary when one was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// The CSV's rows, bytes and hash.
    pub csv: Written,
    /// The summary's, if one was written.
    pub summary: Option<Written>,
}

/// One output's bytes so far and their running digest.
#[derive(Clone, Debug)]
pub struct Tally {
    rows: u64,
    bytes: u64,
    hash: Sha256,
}

impl Tally {
    /// Writes `header` to `sink`: the start of a fresh output.
    pub(crate) fn start(sink: &mut dyn Write, header: &[u8]) -> io::Result<Tally> {
        let mut tally = Tally {
            rows: 0,
            bytes: 0,
            hash: Sha256::new(),
        };
        tally.write(sink, header, 0)?;
        Ok(tally)
    }

    /// The tally of the first `bytes` bytes of `file`, a header line and
    /// whole rows, as a resumed sweep continues it. Cost: one read of those
    /// bytes. An error if the file is shorter, or if those bytes do not end
    /// a line (they were not all written by a sweep's whole rows).
    pub fn read(file: &mut dyn Read, bytes: u64) -> io::Result<Tally> {
        let mut tally = Tally {
            rows: 0,
            bytes: 0,
            hash: Sha256::new(),
        };
        let mut buf = vec![0; 1 << 20];
        let mut lines = 0;
        let mut last = b'\n';
        let mut limited = file.take(bytes);
        loop {
            let n = match limited.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let chunk = &buf[..n];
            tally.hash.update(chunk);
            tally.bytes += n as u64;
            lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
            last = chunk[n - 1];
        }
        if tally.bytes < bytes {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("it holds {} bytes, fewer than {bytes}", tally.bytes),
            ));
        }
        if lines == 0 || last != b'\n' {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("its first {bytes} bytes do not end with a whole line"),
            ));
        }
        tally.rows = lines - 1;
        Ok(tally)
    }

    pub(crate) fn write(&mut self, sink: &mut dyn Write, buf: &[u8], rows: u64) -> io::Result<()> {
        sink.write_all(buf)?;
        self.hash.update(buf);
        self.bytes += buf.len() as u64;
        self.rows += rows;
        Ok(())
    }

    /// Rows counted so far, header excluded.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// What was counted so far, digest included. Cost: the digest's last
    /// block, on a copy; the tally goes on.
    pub fn written(&self) -> Written {
        Written {
            rows: self.rows,
            bytes: self.bytes,
            sha256: self.hash.clone().finalize().into(),
        }
    }
}

/// Where a sweep stands between two batches of rows, as its progress
/// callback sees it: every run before `next_run` has all its rows (and its
/// summary row) in the sinks, and no later run has any.
pub struct Progress<'p> {
    /// The first run not written yet.
    pub next_run: u64,
    pub(crate) csv: (&'p mut dyn Write, &'p Tally),
    pub(crate) summary: Option<(&'p mut dyn Write, &'p Tally)>,
}

impl Progress<'_> {
    /// CSV rows in the sink, header excluded, those a resumed sweep found
    /// included.
    pub fn rows(&self) -> u64 {
        self.csv.1.rows
    }

    /// Flushes both sinks, so every byte written so far has left the
    /// sweep's buffers, and says what they hold: what a checkpoint records
    /// once the caller has made those bytes durable.
    pub fn flush(&mut self) -> io::Result<Output> {
        self.csv.0.flush()?;
        if let Some((sink, _)) = self.summary.as_mut() {
            sink.flush()?;
        }
        Ok(Output {
            csv: self.csv.1.written(),
            summary: self.summary.as_ref().map(|(_, t)| t.written()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_read_back_continues_as_if_never_stopped() {
        let header = b"run,x\n";
        let rows = b"0,7\n1,8\n2,9\n";
        let mut whole = Vec::new();
        let mut straight = Tally::start(&mut whole, header).unwrap();
        straight.write(&mut whole, rows, 3).unwrap();
        // Stopped after run 0, with rubbish after the checkpoint's bytes.
        let mut file = [&header[..], b"0,7\n1,"].concat();
        let mut resumed = Tally::read(&mut file.as_slice(), 10).unwrap();
        assert_eq!(resumed.rows(), 1);
        file.truncate(10);
        resumed.write(&mut file, b"1,8\n2,9\n", 2).unwrap();
        assert_eq!(file, whole);
        assert_eq!(resumed.written(), straight.written());
        assert_eq!(
            straight.written().sha256,
            <[u8; 32]>::from(Sha256::digest(&whole))
        );
    }

    #[test]
    fn a_short_or_cut_prefix_is_refused() {
        // 6 + 4 + 2 bytes: a header, a row and the start of the next.
        let file = b"run,x\n0,7\n1,";
        let e = Tally::read(&mut &file[..], 20).unwrap_err();
        assert_eq!(e.to_string(), "it holds 12 bytes, fewer than 20");
        let e = Tally::read(&mut &file[..], 12).unwrap_err();
        assert_eq!(e.to_string(), "its first 12 bytes do not end with a whole line");
        assert!(Tally::read(&mut &file[..], 0).is_err(), "not even a header");
    }
}
