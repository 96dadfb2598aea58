//! The front page and the guide (`README.md`, `docs/*.md`) as a reader
//! meets them; the modules are the table of contents:
//!
//! - `commands`: every command they show, run against the real binary in
//!   a scratch copy of the inputs, its output compared with the one shown;
//! - `expect`: how an output shown compares with one printed (`[..]`,
//!   `...`);
//! - `links`: every relative link and `#anchor` leads somewhere;
//! - `rules`: every kubelet rule cited in `src/` and `tests/` has its entry
//!   in `docs/kubelet-rules.md`;
//! - `markdown`: the pages, their fenced blocks, headings and links.

mod commands;
mod expect;
mod links;
mod markdown;
mod rules;
