//! How a key's value is written, read and encoded: the units, the parsed
//! values, and the tables that turn a word or a version into an axis index.

use crate::engine::SimDuration;
use crate::model::{Dist, Drain, ImagePull, KubeVersion, PostStart, Probability};

use crate::model::service::{Preset, PriorityGroup, Rate, Scaled};

use crate::scenario::dist::{parse_dist_list_text, parse_dist_text, parse_probability};
use crate::scenario::duration::parse_duration;

/// What kind of value a field takes: how it is read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration with a unit (`"3s"`), written in CSV as integer
    /// milliseconds: a setting, which does not vary from run to run.
    Millis,
    /// A duration, or a distribution drawn anew for each container instance
    /// (`{ dist = "lognormal", median = "3s", p99 = "10s" }`).
    Dist,
    /// A probability, 0 to 1 (`0.2`).
    Probability,
    /// A whole number, 0 or more.
    Count,
    /// `true` or `false`.
    Flag,
    /// One of these words (`what` names them in messages).
    Word {
        /// What the words name, for messages (`kind`, `restart policy`).
        what: &'static str,
        /// The valid words, in the order an axis indexes them.
        names: &'static [&'static str],
    },
    /// A Kubernetes version, `"1.20"` … `"1.36"`.
    Version,
    /// Durations or distributions, one per attempt; as an axis, one (the
    /// first attempt).
    DistList,
    /// Requests per second, a number above 0 (`8.3`).
    Rate,
    /// A propagation preset's name, or a duration or distribution.
    Propagation,
    /// A duration or distribution, or one word for what no duration says:
    /// `drain = "never"` (R55: the process ignores SIGTERM), `post_start =
    /// "until-booted"` (the hook returns when the boot is over).
    DistOrWord {
        /// The word.
        word: &'static str,
        /// What it means, for messages.
        meaning: &'static str,
    },
    /// A count of Pods (`1`) or a percentage of the replicas (`"25%"`): the
    /// API's IntOrString.
    Scaled,
    /// How many image pulls fail before one succeeds (`2`), or `"fails"`
    /// for every one (R67).
    Pulls,
    /// A node shutdown's priority groups, `"0:20s, 2000000000:10s"`: one
    /// string, so a TOML scenario, an annotation and a grid axis (a list
    /// of such strings) write it alike; as an axis, each list whole.
    PriorityGroups,
}

/// A value of some `Unit`, parsed and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A duration; also a fixed value of a `Unit::Dist` key.
    Millis(SimDuration),
    /// A distribution that is not fixed.
    Dist(Dist),
    /// A probability, 0 to 1.
    Probability(Probability),
    /// A whole number.
    Count(u32),
    /// `true` or `false`.
    Flag(bool),
    /// The index of a word in its unit's names.
    Word(usize),
    /// A Kubernetes minor version.
    Version(KubeVersion),
    /// One duration or distribution per attempt.
    DistList(Vec<Dist>),
    /// A rate, requests per second.
    Rate(Rate),
    /// The index of a propagation preset in `Preset::ALL`.
    Preset(usize),
    /// A count of Pods or a percentage of the replicas.
    Scaled(Scaled),
    /// The word of a `Unit::DistOrWord` key (`drain = "never"`,
    /// `post_start = "until-booted"`).
    TheWord,
    /// Whether image pulls fail.
    Pulls(ImagePull),
    /// A node shutdown's priority groups, as written.
    PriorityGroups(Box<[PriorityGroup]>),
}

/// Marks a preset in an encoded `Unit::Propagation` value (a duration never reaches it).
pub(super) const PRESET_TAG: u64 = 1 << 63;
/// An encoded `Unit::DistOrWord` value of its word (no duration reaches it).
const WORD_CODE: u64 = u64::MAX;
/// Marks a percentage in an encoded `Unit::Scaled` value.
const PERCENT_TAG: u64 = 1 << 62;
/// An encoded `Unit::Pulls` value for "every pull fails" (a count never reaches it).
const PULLS_FAIL: u64 = 1 << 62;
/// The word for it.
pub(super) const FAILS: &str = "fails";

pub(super) const FLAG_NAMES: [&str; 2] = ["false", "true"];

impl Unit {
    /// The unit of the field as a sweep axis (one value per run).
    pub fn axis(self) -> Unit {
        match self {
            Unit::DistList => Unit::Dist,
            other => other,
        }
    }

    /// A value written as text (an annotation, a CSV cell).
    pub fn parse_text(self, key: &str, text: &str) -> Result<Value, String> {
        let trimmed = text.trim();
        match self {
            Unit::Millis => parse_duration(text).map(Value::Millis),
            Unit::Dist => parse_dist_text(text).map(Value::from_dist),
            Unit::Probability => parse_probability(key, trimmed).map(Value::Probability),
            Unit::Count => trimmed
                .parse()
                .map(Value::Count)
                .map_err(|_| format!("{key} must be a whole number, 0 or more (e.g. \"2\"), not \"{text}\"")),
            Unit::Flag => match trimmed {
                "true" => Ok(Value::Flag(true)),
                "false" => Ok(Value::Flag(false)),
                _ => Err(format!("{key} must be \"true\" or \"false\", not \"{text}\"")),
            },
            Unit::Word { what, names } => word(what, names, trimmed),
            Unit::Version => parse_kube_version(trimmed).map(Value::Version),
            Unit::DistList => parse_dist_list_text(trimmed).map(Value::DistList),
            Unit::Rate => parse_rate(trimmed).map(Value::Rate),
            Unit::Propagation => match Preset::NAMES.iter().position(|n| *n == trimmed) {
                Some(i) => Ok(Value::Preset(i)),
                None if trimmed.starts_with(|c: char| c.is_ascii_digit()) => {
                    parse_dist_text(text).map(Value::from_dist)
                }
                None => Err(unknown_preset(trimmed)),
            },
            Unit::Scaled => parse_scaled(key, trimmed).map(Value::Scaled),
            Unit::DistOrWord { word, .. } if trimmed == word => Ok(Value::TheWord),
            Unit::DistOrWord { word, meaning } => parse_dist_text(text)
                .map(Value::from_dist)
                .map_err(|m| format!("{m}; or write \"{word}\" {meaning}")),
            Unit::Pulls => parse_pulls(key, trimmed).map(Value::Pulls),
            Unit::PriorityGroups => parse_priority_groups(key, trimmed).map(Value::PriorityGroups),
        }
    }

    /// The value `encoded` (as `Value::encode` made it) of this axis unit.
    pub fn decode(self, encoded: u64) -> Value {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList => Value::Millis(SimDuration::from_millis(encoded)),
            Unit::Probability => Value::Probability(Probability::from_bits(encoded)),
            Unit::Count => Value::Count(encoded as u32),
            Unit::Flag => Value::Flag(encoded != 0),
            Unit::Word { .. } => Value::Word(encoded as usize),
            Unit::Version => Value::Version(KubeVersion(encoded as u32)),
            Unit::Rate => Value::Rate(Rate::from_bits(encoded)),
            Unit::Propagation if encoded & PRESET_TAG != 0 => Value::Preset((encoded & !PRESET_TAG) as usize),
            Unit::Propagation => Value::Millis(SimDuration::from_millis(encoded)),
            Unit::Scaled => Value::Scaled(decode_scaled(encoded)),
            Unit::DistOrWord { .. } if encoded == WORD_CODE => Value::TheWord,
            Unit::DistOrWord { .. } => Value::Millis(SimDuration::from_millis(encoded)),
            Unit::Pulls => Value::Pulls(decode_pulls(encoded)),
            // Never encoded: an axis holds the lists whole (`Values::Whole`).
            Unit::PriorityGroups => Value::PriorityGroups(Box::default()),
        }
    }

    /// `encoded` as a person writes it in a grid (`250ms`, `3`, `true`, `"app"`).
    pub fn describe(self, encoded: u64) -> String {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList => SimDuration::from_millis(encoded).to_string(),
            Unit::Probability => Probability::from_bits(encoded).to_string(),
            Unit::Count => encoded.to_string(),
            Unit::Flag => FLAG_NAMES[usize::from(encoded != 0)].to_string(),
            Unit::Word { names, .. } => format!("\"{}\"", names[encoded as usize]),
            Unit::Version => format!("\"1.{encoded}\""),
            Unit::Rate => Rate::from_bits(encoded).get().to_string(),
            Unit::Propagation if encoded & PRESET_TAG != 0 => {
                format!("\"{}\"", Preset::NAMES[(encoded & !PRESET_TAG) as usize])
            }
            Unit::Propagation => SimDuration::from_millis(encoded).to_string(),
            Unit::Scaled => match decode_scaled(encoded) {
                Scaled::Count(n) => n.to_string(),
                p => format!("\"{p}\""),
            },
            Unit::DistOrWord { word, .. } if encoded == WORD_CODE => format!("\"{word}\""),
            Unit::DistOrWord { .. } => SimDuration::from_millis(encoded).to_string(),
            Unit::Pulls => match decode_pulls(encoded) {
                ImagePull::Fails => format!("\"{FAILS}\""),
                _ => encoded.to_string(),
            },
            // Never encoded (see `decode`).
            Unit::PriorityGroups => String::new(),
        }
    }

    /// `encoded` as a CSV cell: digits for numbers, the word for words.
    pub fn cell(self, encoded: u64, buf: &mut Vec<u8>) {
        match self {
            Unit::Millis | Unit::Dist | Unit::DistList | Unit::Count => {
                buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes())
            }
            Unit::Probability => {
                buf.extend_from_slice(Probability::from_bits(encoded).to_string().as_bytes())
            }
            Unit::Flag => buf.extend_from_slice(FLAG_NAMES[usize::from(encoded != 0)].as_bytes()),
            Unit::Word { names, .. } => buf.extend_from_slice(names[encoded as usize].as_bytes()),
            Unit::Version => {
                buf.extend_from_slice(b"1.");
                buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes());
            }
            Unit::Rate => buf.extend_from_slice(Rate::from_bits(encoded).get().to_string().as_bytes()),
            // A preset by its name; a fixed delay in milliseconds.
            Unit::Propagation if encoded & PRESET_TAG != 0 => {
                buf.extend_from_slice(Preset::NAMES[(encoded & !PRESET_TAG) as usize].as_bytes())
            }
            Unit::Propagation => buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes()),
            Unit::Scaled => buf.extend_from_slice(decode_scaled(encoded).to_string().as_bytes()),
            // Milliseconds, as a duration's column holds them; or the word.
            Unit::DistOrWord { word, .. } if encoded == WORD_CODE => buf.extend_from_slice(word.as_bytes()),
            Unit::DistOrWord { .. } => buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes()),
            Unit::Pulls if encoded == PULLS_FAIL => buf.extend_from_slice(FAILS.as_bytes()),
            Unit::Pulls => buf.extend_from_slice(itoa::Buffer::new().format(encoded).as_bytes()),
            // Never encoded (see `decode`).
            Unit::PriorityGroups => {}
        }
    }
}

/// The word `text` of `names`, or the message naming the valid ones.
pub fn word(what: &str, names: &[&str], text: &str) -> Result<Value, String> {
    names
        .iter()
        .position(|n| *n == text)
        .map(Value::Word)
        .ok_or_else(|| crate::scenario::diagnostic::unknown_word(what, text, names))
}

/// A count of Pods (`3`) or a percentage of the replicas (`25%`).
pub fn parse_scaled(key: &str, text: &str) -> Result<Scaled, String> {
    let bad = || {
        format!(
            "{key} must be a count of Pods such as 1 or a percentage in quotes such as \"25%\", not {text}"
        )
    };
    match text.strip_suffix('%') {
        Some(p) => p.trim().parse().map(Scaled::Percent).map_err(|_| bad()),
        None => text.parse().map(Scaled::Count).map_err(|_| bad()),
    }
}

/// Failed pulls before one succeeds (`2`), or `fails` for all of them.
pub fn parse_pulls(key: &str, text: &str) -> Result<ImagePull, String> {
    match text {
        FAILS => Ok(ImagePull::Fails),
        _ => match text.parse::<u32>() {
            Ok(0) => Ok(ImagePull::Pulls),
            Ok(n) => Ok(ImagePull::FailsFirst(n)),
            Err(_) => Err(format!(
                "{key} must be the number of failed pulls before one succeeds (e.g. 2), or \"{FAILS}\" \
                 for an image that never pulls, not {text}"
            )),
        },
    }
}

/// The kubelet's shutdownGracePeriodByPodPriority written as
/// `priority:seconds` groups between commas (`"0:20s, 2000000000:10s"`):
/// each priority a whole number, once; each duration whole seconds, as
/// the kubelet's shutdownGracePeriodSeconds.
pub fn parse_priority_groups(key: &str, text: &str) -> Result<Box<[PriorityGroup]>, String> {
    let bad = |why: String| {
        format!(
            "{key} must be priority:seconds groups between commas, such as \"0:20s, 2000000000:10s\" \
             (the kubelet's shutdownGracePeriodByPodPriority), not \"{text}\": {why}"
        )
    };
    let mut groups: Vec<PriorityGroup> = Vec::new();
    for item in text.split(',').map(str::trim) {
        let Some((priority, seconds)) = item.split_once(':') else {
            return Err(bad(format!(
                "\"{item}\" has no ':' between a priority and its seconds"
            )));
        };
        let priority: u32 = priority.trim().parse().map_err(|_| {
            bad(format!(
                "\"{}\" is no priority: write a whole number, 0 or more",
                priority.trim()
            ))
        })?;
        let seconds = parse_duration(seconds).map_err(&bad)?;
        if seconds.as_millis() % 1000 != 0 {
            return Err(bad(format!(
                "\"{}\" is not whole seconds, as the kubelet's are",
                seconds
            )));
        }
        if groups.iter().any(|g| g.priority == priority) {
            return Err(bad(format!(
                "priority {priority} has two groups; give each priority one"
            )));
        }
        groups.push(PriorityGroup { priority, seconds });
    }
    groups.sort_by_key(|g| g.priority);
    Ok(groups.into())
}

/// Priority groups as `parse_priority_groups` reads them, sorted.
pub fn priority_groups_text(groups: &[PriorityGroup]) -> String {
    let items: Vec<String> = groups
        .iter()
        .map(|g| format!("{}:{}", g.priority, g.seconds))
        .collect();
    items.join(", ")
}

fn decode_pulls(encoded: u64) -> ImagePull {
    match encoded {
        PULLS_FAIL => ImagePull::Fails,
        0 => ImagePull::Pulls,
        n => ImagePull::FailsFirst(n as u32),
    }
}

fn decode_scaled(encoded: u64) -> Scaled {
    let n = (encoded & !PERCENT_TAG) as u32;
    if encoded & PERCENT_TAG != 0 {
        Scaled::Percent(n)
    } else {
        Scaled::Count(n)
    }
}

/// A rate of requests per second: a finite number above 0.
pub fn parse_rate(text: &str) -> Result<Rate, String> {
    text.parse::<f64>()
        .ok()
        .and_then(Rate::new)
        .ok_or_else(|| format!("rate must be a number of requests per second above 0 (e.g. 8.3), not {text}"))
}

/// The message for a propagation that is no preset and no duration.
pub fn unknown_preset(text: &str) -> String {
    crate::scenario::diagnostic::unknown_word("propagation preset", text, &Preset::NAMES)
        + "; or write a duration such as \"2s\" or a distribution"
}

/// Parses `"1.33"` into a version podsim knows.
pub fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let minor = text.strip_prefix("1.").and_then(|m| m.parse::<u32>().ok());
    let (oldest, newest) = (KubeVersion::OLDEST.0, KubeVersion::NEWEST.0);
    match minor {
        Some(m) if (oldest..=newest).contains(&m) => Ok(KubeVersion(m)),
        _ => Err(format!(
            "unknown kubernetes version \"{text}\"; podsim knows \"1.{oldest}\" to \"1.{newest}\""
        )),
    }
}

impl Value {
    /// The value as one `u64` (milliseconds, a count, a word's index, a
    /// version's minor), for axes; `None` for a list.
    pub fn encode(&self) -> Option<u64> {
        match self {
            Value::Millis(d) => Some(d.as_millis()),
            Value::Probability(p) => Some(p.get().to_bits()),
            Value::Dist(_) => None,
            Value::Count(n) => Some(u64::from(*n)),
            Value::Flag(b) => Some(u64::from(*b)),
            Value::Word(i) => Some(*i as u64),
            Value::Version(v) => Some(u64::from(v.0)),
            Value::DistList(_) => None,
            Value::Rate(r) => Some(r.get().to_bits()),
            Value::Preset(i) => Some(*i as u64 | PRESET_TAG),
            Value::Scaled(Scaled::Count(n)) => Some(u64::from(*n)),
            Value::Scaled(Scaled::Percent(p)) => Some(u64::from(*p) | PERCENT_TAG),
            Value::TheWord => Some(WORD_CODE),
            Value::Pulls(ImagePull::Pulls) => Some(0),
            Value::Pulls(ImagePull::FailsFirst(n)) => Some(u64::from(*n)),
            Value::Pulls(ImagePull::Fails) => Some(PULLS_FAIL),
            Value::PriorityGroups(_) => None,
        }
    }

    /// A `Unit::PriorityGroups` value's groups (none, for any other value).
    pub(super) fn priority_groups(&self) -> Box<[PriorityGroup]> {
        match self {
            Value::PriorityGroups(groups) => groups.clone(),
            _ => Box::default(),
        }
    }

    /// A distribution as a value: a fixed one is a plain duration, so it
    /// encodes, prints and compares as one.
    pub fn from_dist(dist: Dist) -> Value {
        match dist.fixed() {
            Some(d) => Value::Millis(d),
            None => Value::Dist(dist),
        }
    }

    /// The value of the drain key as a drain.
    pub fn to_drain(&self) -> Drain {
        match self {
            Value::TheWord => Drain::Never,
            other => Drain::After(other.to_dist()),
        }
    }

    /// The value of the post_start key as a hook.
    pub fn to_post_start(&self) -> PostStart {
        match self {
            Value::TheWord => PostStart::UntilBooted,
            other => PostStart::For(other.to_dist()),
        }
    }

    /// The value of a `Unit::Dist` key as a distribution.
    pub fn to_dist(&self) -> Dist {
        match self {
            Value::Dist(d) => d.clone(),
            Value::Millis(d) => Dist::Fixed(*d),
            _ => Dist::default(),
        }
    }

    /// A `Unit::Millis` value's duration (zero for any other value).
    #[inline]
    pub(super) fn millis(&self) -> SimDuration {
        match self {
            Value::Millis(d) => *d,
            _ => SimDuration::ZERO,
        }
    }

    /// A `Unit::Count` value (zero for any other value).
    #[inline]
    pub(super) fn count(&self) -> u32 {
        match self {
            Value::Count(n) => *n,
            _ => 0,
        }
    }

    /// A `Unit::Flag` value (false for any other value).
    #[inline]
    pub(super) fn flag(&self) -> bool {
        matches!(self, Value::Flag(true))
    }

    /// A `Unit::Probability` value (never, for any other value).
    #[inline]
    pub(super) fn chance(&self) -> Probability {
        match self {
            Value::Probability(p) => *p,
            _ => Probability::NEVER,
        }
    }

    /// A `Unit::Word` value's index (the first word, for any other value).
    #[inline]
    pub(super) fn word(&self) -> usize {
        match self {
            Value::Word(i) => *i,
            _ => 0,
        }
    }
}
