//! Ctrl-C (SIGINT) and SIGTERM while a sweep writes its CSV: a request to
//! stop, so the sweep can remove its temporary file and say how far it got,
//! instead of dying with a `*.tmp` left behind. A second signal ends the
//! process at once (exit 130), for a writer stuck on a slow disk.
//!
//! Invariant: the handlers exist only while an `Interrupts` does; before and
//! after, the signals have their default effect.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use signal_hook::SigId;
use signal_hook::consts::{SIGINT, SIGTERM};

/// The signals caught while it lives.
pub struct Interrupts {
    asked: Arc<AtomicBool>,
    handlers: Vec<SigId>,
}

impl Interrupts {
    /// Starts catching SIGINT and SIGTERM.
    pub fn catch() -> Result<Interrupts> {
        let asked = Arc::new(AtomicBool::new(false));
        let mut handlers = Vec::new();
        for signal in [SIGINT, SIGTERM] {
            // The exit comes first, so it sees the flag as the previous
            // signal left it: the first signal only sets it.
            handlers.push(signal_hook::flag::register_conditional_shutdown(
                signal,
                130,
                asked.clone(),
            ));
            handlers.push(signal_hook::flag::register(signal, asked.clone()));
        }
        let handlers = handlers
            .into_iter()
            .collect::<Result<_, _>>()
            .context("cannot catch Ctrl-C and SIGTERM")?;
        Ok(Interrupts { asked, handlers })
    }

    /// Whether to go on: `Break` once a signal came.
    pub fn control(&self) -> ControlFlow<()> {
        if self.asked.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        for id in self.handlers.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
