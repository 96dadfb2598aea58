//! Each probe's outcome over time as the manifest says it
//! (`probe_reading`), written into the container's spec before the
//! settings (which win), and the notice at every probe that tells what
//! podsim read or that it assumes the probe passes.
//!
//! Invariant: no probe is silent: one the settings leave alone is told,
//! read or assumed, at its own line.

use super::super::probe_reading::{self, Read};
use super::{Entry, Mapper};
use crate::model::{ContainerSpec, ProbeKind, ProbeOutcome};
use crate::scenario::diagnostic::{Diagnostic, ProbeTold, Problem};
use crate::scenario::key::{Field, ProbeField};

/// The model's probe slots in order, with the manifest's and the scenario's keys.
const PROBES: [(ProbeKind, &str, &str); 3] = [
    (ProbeKind::Startup, "startupProbe", "startup_probe"),
    (ProbeKind::Readiness, "readinessProbe", "readiness_probe"),
    (ProbeKind::Liveness, "livenessProbe", "liveness_probe"),
];

/// What each container's probes were read as, in the model's slot order.
pub(super) type ReadProbes = [Option<Read>; 3];

impl Mapper<'_> {
    /// Reads each probe's outcome over time from the manifest and writes
    /// it into `containers` (a probe that passes only inside a window).
    pub(super) fn read_probes(&self, entries: &[Entry], containers: &mut [ContainerSpec]) -> Vec<ReadProbes> {
        let read = |(entry, spec): (&Entry, &mut ContainerSpec)| {
            let c = entry.container;
            let manifest = [&c.startup_probe, &c.readiness_probe, &c.liveness_probe];
            let mut reads: ReadProbes = Default::default();
            for ((slot, probe), read) in spec.probes.iter_mut().zip(manifest).zip(&mut reads) {
                let (Some(slot), Some(probe)) = (slot, probe) else {
                    continue;
                };
                *read = probe_reading::read(probe, c);
                if let Some(r) = read {
                    slot.outcome = ProbeOutcome::Passes;
                    slot.pass_after = r.after;
                    slot.pass_until = r.until;
                }
            }
            reads
        };
        entries.iter().zip(containers.iter_mut()).map(read).collect()
    }

    /// The notice at each probe whose outcome no setting gave, in the
    /// order the probes are written.
    pub(super) fn probe_notices(
        &self,
        entries: &[Entry],
        reads: &[ReadProbes],
        set: &[Vec<Field>],
        notices: &mut Vec<Diagnostic>,
    ) {
        for ((entry, reads), set) in entries.iter().zip(reads).zip(set) {
            let mut told_here = Vec::new();
            let c = entry.container;
            let manifest = [&c.startup_probe, &c.readiness_probe, &c.liveness_probe];
            for (((kind, name, key), probe), read) in PROBES.into_iter().zip(manifest).zip(reads) {
                let Some(probe) = probe else {
                    continue;
                };
                let told = [ProbeField::Outcome, ProbeField::PassAfter, ProbeField::PassUntil]
                    .into_iter()
                    .any(|field| set.contains(&Field::Probe(kind, field)));
                if told {
                    continue;
                }
                let mut at = entry.path();
                at.push(name.to_string());
                let at: Vec<&str> = at.iter().map(String::as_str).collect();
                let problem = Problem::ProbeOutcome(Box::new(ProbeTold {
                    container: c.name.clone(),
                    key,
                    check: probe_reading::check(probe),
                    read: read.as_ref().map(|r| (r.why.clone(), r.after, r.until)),
                }));
                told_here.push((self.doc.offset(&self.full(&at)), self.notice(&at, problem)));
            }
            told_here.sort_by_key(|(offset, _)| *offset);
            notices.extend(told_here.into_iter().map(|(_, notice)| notice));
        }
    }
}
