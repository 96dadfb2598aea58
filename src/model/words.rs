//! Enums spelt as words (a restart policy, a signal, a rollout strategy):
//! one table per enum, from which `words!` writes the variants in order
//! (`ALL`), their words (`NAMES`), a variant's word (`name`) and the
//! variant a word spells (`parse`).
//!
//! Invariant: the four cannot disagree, since they are written from the
//! one table; an axis indexes `NAMES` and decodes through `ALL`, a reader
//! parses, a report names. Shared ground of the model's rooms, as `dist`
//! is: every room's enums use it, and it names none of them.

/// Writes `ALL`, `NAMES`, `name` and `parse` inside an enum's `impl`, from
/// its variants and their words in order (the order an axis indexes and a
/// message lists them). Doc comments before the table go on `NAMES`.
///
/// ```ignore
/// impl Retry {
///     words! {
///         /// The spellings.
///         None => "none",
///         Once => "once",
///     }
/// }
/// ```
macro_rules! words {
    ($(#[$doc:meta])* $($variant:ident => $word:literal),+ $(,)?) => {
        /// Every variant, in `NAMES` order: a word's index picks one.
        pub const ALL: [Self; [$($word),+].len()] = [$(Self::$variant),+];

        $(#[$doc])*
        pub const NAMES: [&'static str; [$($word),+].len()] = [$($word),+];

        /// The word for this variant.
        pub fn name(self) -> &'static str {
            match self {
                $(Self::$variant => $word,)+
            }
        }

        /// The variant `text` spells, if any.
        pub fn parse(text: &str) -> Option<Self> {
            match text {
                $($word => Some(Self::$variant),)+
                _ => None,
            }
        }
    };
}
pub(crate) use words;

#[cfg(test)]
mod tests {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Light {
        Red,
        Amber,
        Green,
    }

    impl Light {
        words! {
            /// What the driver sees.
            Red => "red",
            Amber => "amber",
            Green => "green",
        }
    }

    #[test]
    fn one_table_gives_the_order_the_words_and_both_ways_between_them() {
        assert_eq!(Light::ALL, [Light::Red, Light::Amber, Light::Green]);
        assert_eq!(Light::NAMES, ["red", "amber", "green"]);
        assert_eq!(Light::Amber.name(), "amber");
        assert_eq!(Light::parse("green"), Some(Light::Green));
        assert_eq!(Light::parse("Green"), None);
    }
}
