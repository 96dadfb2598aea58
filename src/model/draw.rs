//! Where random numbers come from: a counter-based generator, so a draw is a
//! pure function of what it is for — (seed, replication, container, key,
//! attempt) — and not of how many draws came before it.
//!
//! Invariant: nothing here has state. The same five inputs give the same
//! uniform on every thread, in every shard, in any run order, and whatever
//! else the Pod drew: replication r of two combinations that differ in one
//! axis sees the same proxy boot times (common random numbers).

/// What a draw is for; its number is part of the counter, so the boot and
/// the drain of one attempt are independent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawKey {
    /// A container instance's boot.
    Boot = 1,
    /// Its drain after SIGTERM.
    Drain = 2,
    /// Its preStop hook.
    PreStop = 3,
    /// An app's `run`.
    Run = 4,
    /// A `crash_after` time.
    CrashAfter = 5,
    /// Whether the attempt fails (`fail_probability`).
    Failure = 6,
    /// The Pod's deletion time (`stop_at`, `stop_after_ready`).
    Deletion = 7,
    /// The gap before a Service request arrives (counter: request index);
    /// of a Poisson stream, the chain's next output picks which client
    /// sends it (`Seeded::uniform_and_index`), uniformly: so each client's
    /// requests are a Poisson stream of their own (thinning).
    ArrivalGap = 8,
    /// How long the app takes to answer a request (counter: request index).
    ServiceTime = 9,
    /// Which endpoint a new connection picks (counter: request index, try).
    Endpoint = 10,
    /// One node's delay from an endpoint change to its sync request
    /// (counter: node index, slice version).
    Propagation = 11,
    /// A container instance's postStart hook.
    PostStart = 12,
    /// The hop's delay from an endpoint change to its view (counter:
    /// slice version).
    HopPropagation = 13,
    /// A least-request hop's second candidate (counter: request index, try).
    HopPick = 14,
    /// The gap before the cluster's next background endpoint change
    /// (counter: the change's index).
    ChurnGap = 15,
    /// One node's delay from a background change to its sync request
    /// (name: the node; counter: the change's index).
    ChurnPropagation = 16,
    /// One node's delay from a rolling Deployment's change to its sync
    /// request (name: node and Deployment; counter: our slice version).
    RollingPropagation = 17,
    /// The counting traffic model's draws: how many requests a span of
    /// constant routing state sent (counter: the run's count draw, and the
    /// uniform within it).
    Count = 18,
    /// The counting model's keep-alive client (`counting::keepalive`): a
    /// request's gap, a dial's endpoint, a connection's last request
    /// (counter: the run's pool draw, and the uniform within it).
    Pool = 20,
    /// A lost node's Lease age at its failure (name: the node).
    LeaseAge = 21,
    /// The lag from that Lease renewal to the node controller's check
    /// that saw it (name: the node).
    MonitorLag = 22,
}

/// The seed and the replication of one run: the part of a draw's counter
/// that the run, not the Pod, decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stream {
    /// `seed`: one stream of draws per seed.
    pub seed: u64,
    /// Which replication of a combination, from 0.
    pub replication: u64,
}

/// SplitMix64's output function (Steele, Lea, Flood 2014): a bijection of
/// `u64` whose every output bit depends on every input bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of a container's name: a draw follows the container by name, so
/// reordering or adding containers leaves its draws alone.
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

impl Stream {
    /// The stream of the `n`-th Pod made from one template (a Service's
    /// replica, a Job's replacement): moved by `n` so the Pods draw apart,
    /// and Pod 0 keeps the run's own, so one Pod alone is the Pod run.
    pub fn moved(self, n: u32) -> Stream {
        Stream {
            seed: self.seed ^ u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ..self
        }
    }

    /// A uniform in the open interval (0, 1) for this draw; `name` is the
    /// container's `name_hash` (0 for the Pod), `attempt` counts from 1.
    pub fn uniform(self, name: u64, key: DrawKey, attempt: u32) -> f64 {
        self.seeded().uniform(name, key, attempt)
    }

    /// The first two rounds of every draw's hash chain, which only the
    /// seed and the replication decide: a model that draws many times a
    /// run (a Service, a request at a time) folds them in once.
    pub fn seeded(self) -> Seeded {
        let h = mix(self.seed ^ 0x9E37_79B9_7F4A_7C15);
        Seeded(mix(h ^ self.replication.wrapping_mul(0xD1B5_4A32_D192_ED03)))
    }
}

/// A `Stream` with its seed and replication folded in: the same draws,
/// two rounds of the mixer fewer each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Seeded(u64);

impl Seeded {
    /// `Stream::uniform` of the stream this was made from.
    #[inline]
    pub fn uniform(self, name: u64, key: DrawKey, attempt: u32) -> f64 {
        to_unit(mix(self.state(name, key, attempt)))
    }

    /// `uniform(name, key, attempt)` and, from the next output of the same
    /// chain, an index uniform over `0..n` (`n` ≥ 1): two independent
    /// draws for one round of the mixer more than the first alone. The
    /// next output is SplitMix64's own step, the state moved by its odd
    /// gamma and mixed again, so the two are successive outputs of that
    /// generator (Steele, Lea, Flood 2014). The index is the high word of
    /// that 64-bit output times `n` (Lemire 2019): each index has
    /// ⌊2⁶⁴/n⌋ or ⌈2⁶⁴/n⌉ of the outputs, so its chance is within 2⁻⁶⁴ of
    /// 1/`n` — not the first output's spare low 11 bits, whose 2¹¹ values
    /// cannot split evenly three ways.
    #[inline]
    pub fn uniform_and_index(self, name: u64, key: DrawKey, attempt: u32, n: u32) -> (f64, u32) {
        let state = self.state(name, key, attempt);
        let next = mix(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        let index = (u128::from(next) * u128::from(n)) >> 64;
        (to_unit(mix(state)), index as u32)
    }

    /// The chain's state before its last round. Each input is folded in
    /// through the mixer, with a distinct odd constant, so equal inputs in
    /// different places never cancel.
    #[inline]
    fn state(self, name: u64, key: DrawKey, attempt: u32) -> u64 {
        let h = mix(self.0 ^ name.wrapping_mul(0xAEF1_7502_108E_F2D9));
        h ^ ((key as u64) << 32 | u64::from(attempt)).wrapping_mul(0x8CB9_2BA7_2F3D_8DD7)
    }
}

/// The top 53 bits of `h`, centred in their cell: never 0, never 1.
#[inline]
fn to_unit(h: u64) -> f64 {
    ((h >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_depends_on_each_input_and_on_nothing_else() {
        let s = Stream {
            seed: 42,
            replication: 3,
        };
        let web = name_hash("web");
        let u = s.uniform(web, DrawKey::Boot, 1);
        assert_eq!(u, s.uniform(web, DrawKey::Boot, 1));
        let others = [
            Stream { seed: 43, ..s }.uniform(web, DrawKey::Boot, 1),
            Stream { replication: 4, ..s }.uniform(web, DrawKey::Boot, 1),
            s.uniform(name_hash("proxy"), DrawKey::Boot, 1),
            s.uniform(web, DrawKey::Drain, 1),
            s.uniform(web, DrawKey::Boot, 2),
        ];
        for other in others {
            assert_ne!(u, other);
        }
        assert!(u > 0.0 && u < 1.0);
    }

    #[test]
    fn uniforms_are_uniform() {
        // 100,000 draws: the mean is 1/2 with standard error sqrt(1/12/n)
        // ≈ 0.000913; each decile holds 10,000 ± 95 (binomial sd).
        let s = Stream::default();
        let n = 100_000;
        let mut deciles = [0u32; 10];
        let mut sum = 0.0;
        for r in 0..n {
            let u = Stream { replication: r, ..s }.uniform(7, DrawKey::Boot, 1);
            sum += u;
            deciles[(u * 10.0) as usize] += 1;
        }
        assert!(
            (sum / n as f64 - 0.5).abs() < 4.0 * 0.000_913,
            "{}",
            sum / n as f64
        );
        for d in deciles {
            assert!((f64::from(d) - 10_000.0).abs() < 4.0 * 95.0, "{deciles:?}");
        }
    }

    #[test]
    fn a_pair_is_the_uniform_and_an_independent_even_index() {
        // 300,000 pairs over 3 indices: each of the 6 cells (u below or
        // above 1/2, index 0–2) holds 50,000 ± 204 (binomial sd,
        // sqrt(n·1/6·5/6)) if the index is uniform and independent of u.
        let s = Stream {
            seed: 9,
            replication: 0,
        }
        .seeded();
        let mut cells = [[0u32; 3]; 2];
        for i in 0..300_000u64 {
            let (u, index) = s.uniform_and_index(i, DrawKey::ArrivalGap, 1, 3);
            assert_eq!(u, s.uniform(i, DrawKey::ArrivalGap, 1));
            cells[usize::from(u >= 0.5)][index as usize] += 1;
        }
        for cell in cells.iter().flatten() {
            assert!((f64::from(*cell) - 50_000.0).abs() < 4.0 * 204.0, "{cells:?}");
        }
        assert_eq!(s.uniform_and_index(5, DrawKey::ArrivalGap, 1, 1).1, 0);
    }
}
