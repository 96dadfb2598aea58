//! Ctrl-C (SIGINT) and SIGTERM while a sweep writes its CSV or `podsim run`
//! runs: a request to stop, raised on the runs' `StopFlag`, so the runs in
//! progress end within milliseconds and the sweep can remove its temporary
//! file (or keep its checkpointed rows) and say how far it got, instead of
//! dying with a `*.tmp` left behind. A second signal ends the process at
//! once (exit 130), for a writer stuck on a slow disk.
//!
//! Invariant: the handlers exist only while an `Interrupts` does; before and
//! after, the signals have their default effect.

use std::ops::ControlFlow;

use anyhow::{Context, Result};
use podsim::engine::StopFlag;
use signal_hook::SigId;
use signal_hook::consts::{SIGINT, SIGTERM};

/// The signals caught while it lives.
pub struct Interrupts {
    asked: StopFlag,
    handlers: Vec<SigId>,
}

impl Interrupts {
    /// Starts catching SIGINT and SIGTERM.
    pub fn catch() -> Result<Interrupts> {
        let asked = StopFlag::new();
        let mut handlers = Vec::new();
        for signal in [SIGINT, SIGTERM] {
            // The exit comes first, so it sees the flag as the previous
            // signal left it: the first signal only sets it.
            handlers.push(signal_hook::flag::register_conditional_shutdown(
                signal,
                130,
                asked.shared().clone(),
            ));
            handlers.push(signal_hook::flag::register(signal, asked.shared().clone()));
        }
        let handlers = handlers
            .into_iter()
            .collect::<Result<_, _>>()
            .context("cannot catch Ctrl-C and SIGTERM")?;
        Ok(Interrupts { asked, handlers })
    }

    /// Whether to go on: `Break` once a signal came.
    pub fn control(&self) -> ControlFlow<()> {
        if self.asked.is_requested() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// The flag a signal raises, for the runs to watch: they end within
    /// milliseconds of it.
    pub fn flag(&self) -> &StopFlag {
        &self.asked
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        for id in self.handlers.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
