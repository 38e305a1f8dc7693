//! `reversi bundle`: the playing core as one Rust source file, for judges
//! that take source (one file, no cargo, no crates, often a size limit).
//!
//! The file is made from the project's own sources, which this binary
//! carries (`include_str!`), so a bundle always plays as the build that
//! wrote it, and no second copy of the engine is kept anywhere:
//! - each module of the core becomes an inline `mod name { … }` at the
//!   same place in the tree, so every `crate::` and `super::` path still
//!   names what it named;
//! - items are chosen by `cfg` as if built with `--cfg bundle`: `test` and
//!   `not(bundle)` items are dropped, `bundle` items kept (the crates give
//!   way to in-house stand-ins there: `movelist::Fixed` for `ArrayVec`;
//!   the pattern tables come from the packed model, `eval::packed`);
//! - a `mod` declaration of a module outside the core is dropped;
//! - the one `include_str!` of the core, the packed evaluation's text,
//!   becomes a literal made to fill the room the code leaves;
//! - comments, lint-only attributes and most whitespace go
//!   (`tokens::write`), and the core's own names are shortened
//!   (`names::shorten`).
//!
//! Then a `main` for the chosen protocol. The size is counted in
//! characters, as CodinGame counts it; a bundle over the limit is not
//! written.

pub mod fit;
mod names;
pub mod packed_text;
mod tokens;

use packed_text::Ranked;
use tokens::{group_end, item_end, tokenize, Kind, Token};

/// One core module's path under `core/src/` without `.rs`, and its
/// source, carried in this binary.
macro_rules! core_source {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../core/src/", $path, ".rs")),
        )
    };
}

/// The core's modules, as paths under `core/src/` without `.rs`, and their
/// sources. A module `a` with children is `a/mod.rs` or `a.rs`; either way
/// its children are `a/child.rs`.
const SOURCES: &[(&str, &str)] = &[
    core_source!("bitboard"),
    core_source!("movegen"),
    core_source!("movegen/avx2"),
    core_source!("movegen/sse"),
    core_source!("movelist"),
    core_source!("board"),
    core_source!("eval/mod"),
    core_source!("eval/hand"),
    core_source!("eval/packed"),
    core_source!("eval/layout"),
    core_source!("eval/pattern"),
    core_source!("eval/pattern/indices"),
    core_source!("eval/stability"),
    core_source!("tt"),
    core_source!("clock"),
    core_source!("lines"),
    core_source!("search/mod"),
    core_source!("search/endgame"),
    core_source!("search/midgame"),
    core_source!("search/midgame/path"),
    core_source!("search/probcut"),
    core_source!("search/root"),
    core_source!("search/searcher"),
    core_source!("book"),
    core_source!("player"),
    core_source!("protocol"),
    core_source!("codingame"),
];

/// The one data file the bundled core includes (`include_str!`), by its
/// path under `src/`: the packed evaluation's text, made here to fill the
/// room the code leaves (see [`bundle`]).
const PACKED_TEXT: &str = "eval/patterns.packed";

/// Stands for the packed text's literal until its size is known.
const PACKED_MARK: &str = "__PACKED_EVALUATION__";

/// The top-level modules every bundle holds: those of [`SOURCES`] (a
/// path without a folder, or a folder's `mod`), less the protocols, of
/// which a bundle holds the one its `main` speaks.
fn core_modules() -> impl Iterator<Item = &'static str> {
    SOURCES
        .iter()
        .map(|(path, _)| path.strip_suffix("/mod").unwrap_or(path))
        .filter(|path| !path.contains('/'))
        .filter(|&name| name != Protocol::Judge.module() && name != Protocol::CodinGame.module())
}

/// Which protocol a bundle's `main` speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The VG101 judge's (`reversi` with no arguments).
    Judge,
    /// CodinGame's Othello (`reversi --protocol codingame`).
    CodinGame,
}

impl Protocol {
    pub fn parse(name: &str) -> Option<Protocol> {
        match name {
            "judge" => Some(Protocol::Judge),
            "codingame" => Some(Protocol::CodinGame),
            _ => None,
        }
    }

    fn module(self) -> &'static str {
        match self {
            Protocol::Judge => "protocol",
            Protocol::CodinGame => "codingame",
        }
    }

    /// The bundle's `main`: what `reversi` does with no flags
    /// (`cli::play_default`), or with `--protocol codingame` alone.
    fn main(self) -> &'static str {
        match self {
            Protocol::Judge => {
                "fn main()->std::process::ExitCode{let mut e=player::Engine::new(player::BotOptions::default());protocol::serve_stdio(&mut e,protocol::Verbosity::Full)}"
            }
            Protocol::CodinGame => {
                "fn main()->std::process::ExitCode{let mut e=player::Engine::new(player::BotOptions::default());codingame::serve_stdio(&mut e,codingame::Budget::default())}"
            }
        }
    }
}

/// Why no bundle was made.
#[derive(Debug)]
pub enum BundleError {
    /// A source the tokenizer could not read: module path and message.
    Source(String),
    /// The bundle's size in characters, over the limit.
    TooLarge { chars: usize, limit: usize },
    /// `--eval-chars` below what the evaluation's model alone takes.
    EvaluationTooSmall { model: usize, given: usize },
}

impl std::fmt::Display for BundleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BundleError::Source(message) => write!(f, "{message}"),
            BundleError::TooLarge { chars, limit } => write!(
                f,
                "the bundle has {chars} characters, {} over the limit of {limit}; nothing written",
                chars - limit
            ),
            BundleError::EvaluationTooSmall { model, given } => write!(
                f,
                "the evaluation's model alone takes {model} characters, more than the {given} given; nothing written"
            ),
        }
    }
}

/// What `reversi bundle` is asked for.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub protocol: Protocol,
    /// The most characters the file may have.
    pub limit: usize,
    /// The characters the packed evaluation's text gets; `None`: all the
    /// room the code leaves.
    pub eval_chars: Option<usize>,
}

/// A bundle, and what its evaluation got.
pub struct Bundle {
    pub source: String,
    /// The packed evaluation's text (`eval::packed::decode` reads it).
    pub evaluation: String,
    /// Characters of the packed evaluation's literal.
    pub eval_chars: usize,
    /// Corrections the packed evaluation holds (see `eval::packed`).
    pub corrections: usize,
}

/// The bundle's source, if it fits in `options.limit` characters: the code
/// first, then the packed evaluation with as many of its best corrections
/// as the rest of the room holds (or `options.eval_chars` of it).
pub fn bundle(options: Options) -> Result<Bundle, BundleError> {
    let ranked = Ranked::embedded().ok_or_else(|| {
        BundleError::Source("the packed evaluation (src/bundle/patterns.pack) is damaged".into())
    })?;
    bundle_with(options, &ranked)
}

/// [`bundle`] with the packed evaluation `ranked` (`reversi pack` measures
/// a new one this way before it is embedded).
pub fn bundle_with(options: Options, ranked: &Ranked) -> Result<Bundle, BundleError> {
    let code = code(options.protocol)?;
    let code_chars = code.chars().count() - PACKED_MARK.len();
    // The literal may take this many characters: what it was given, or
    // the room the code leaves.
    let target = options
        .eval_chars
        .unwrap_or(options.limit.saturating_sub(code_chars));
    let mut room = target;
    loop {
        let Some((text, corrections)) = ranked.text_within(room) else {
            // Not even the model fits: say how large the smallest file is.
            let model_only = packed_text::encode(&ranked.header, &ranked.models, &[]);
            let model = literal(&model_only).chars().count();
            return Err(match options.eval_chars {
                Some(given) => BundleError::EvaluationTooSmall { model, given },
                None => BundleError::TooLarge {
                    chars: code_chars + model,
                    limit: options.limit,
                },
            });
        };
        let literal = literal(&text);
        let eval_chars = literal.chars().count();
        if eval_chars > target {
            // The quotes and escapes: take them off the room, and again.
            room = room.saturating_sub(eval_chars - target);
            continue;
        }
        let chars = code_chars + eval_chars;
        if chars > options.limit {
            return Err(BundleError::TooLarge {
                chars,
                limit: options.limit,
            });
        }
        return Ok(Bundle {
            source: code.replacen(PACKED_MARK, &literal, 1),
            evaluation: text,
            eval_chars,
            corrections,
        });
    }
}

/// `text` as a Rust string literal, escaping only what must be: its
/// letters stay as they are, one character each, where `{:?}` would write
/// the unassigned ones as `\u{…}`.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The bundle's code for `protocol`, with [`PACKED_MARK`] where the packed
/// evaluation's literal goes.
fn code(protocol: Protocol) -> Result<String, BundleError> {
    let mut out = format!(
        "// reversi {} for one-file judges ({} protocol); made by `reversi bundle` from the project's sources (names shortened); build: rustc --edition 2021 -O FILE\n#![allow(dead_code,unused,non_snake_case,non_camel_case_types,non_upper_case_globals)]\n",
        env!("CARGO_PKG_VERSION"),
        match protocol {
            Protocol::Judge => "judge",
            Protocol::CodinGame => "CodinGame",
        }
    );
    let mut tokens = Vec::new();
    for name in core_modules().chain([protocol.module()]) {
        tokens.extend(module_tokens(name, name)?);
    }
    tokens.extend(tokenize(protocol.main()).expect("our own main lexes"));
    names::shorten(&mut tokens);
    out.push_str(&tokens::write(&tokens));
    out.push('\n');
    Ok(out)
}

/// `mod name { … }` for the module at `path` (under `src/`), its children
/// inlined.
fn module_tokens(name: &str, path: &str) -> Result<Vec<Token>, BundleError> {
    let (file, source) = SOURCES
        .iter()
        .find(|(file, _)| *file == path || *file == format!("{path}/mod"))
        .ok_or_else(|| BundleError::Source(format!("no source for module {path}")))?;
    let lexed = tokenize(source)
        .map_err(|e| BundleError::Source(format!("src/{file}.rs at byte {}: {}", e.0, e.1)))?;
    let dir = file.strip_suffix("/mod").unwrap_or(path);
    let file_dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = vec![word("mod"), word(name), punct("{")];
    out.extend(edit(&lexed, dir, file_dir)?);
    out.push(punct("}"));
    Ok(out)
}

fn word(text: &str) -> Token {
    Token {
        kind: Kind::Word,
        text: text.to_string(),
        spaced: true,
    }
}

fn punct(text: &str) -> Token {
    Token {
        kind: Kind::Punct,
        text: text.to_string(),
        spaced: false,
    }
}

/// A module's tokens as the bundle holds them (see the module doc); `dir`
/// is where its children's files are, `file_dir` where its own file is
/// (what its `include_str!` paths start from).
fn edit(tokens: &[Token], dir: &str, file_dir: &str) -> Result<Vec<Token>, BundleError> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        // An outer attribute: `#[...]`.
        if t.is("#") && tokens.get(i + 1).is_some_and(|t| t.is("[")) {
            let end = group_end(tokens, i + 1);
            let inside = &tokens[i + 2..end - 1];
            match attribute(inside) {
                Attribute::Keep => out.extend_from_slice(&tokens[i..end]),
                Attribute::Drop => {}
                Attribute::DropItem => {
                    let mut start = end;
                    while tokens.get(start).is_some_and(|t| t.is("#")) {
                        start = group_end(tokens, start + 1);
                    }
                    i = item_end(tokens, start);
                    continue;
                }
            }
            i = end;
            continue;
        }
        // `include_str!("file")` of a data file: the literal.
        if t.is("include_str") && tokens.get(i + 1).is_some_and(|t| t.is("!")) {
            let end = group_end(tokens, i + 2);
            let file = tokens[i + 3].text.trim_matches('"');
            let path = format!("{file_dir}/{file}");
            if path != PACKED_TEXT {
                return Err(BundleError::Source(format!("no data file {path}")));
            }
            out.push(Token {
                kind: Kind::Literal,
                text: PACKED_MARK.to_string(),
                spaced: true,
            });
            i = end;
            continue;
        }
        // `[pub[(…)]] mod name;`: the child inlined, or dropped.
        let mut at = i;
        if t.is("pub") {
            at += 1;
            if tokens.get(at).is_some_and(|t| t.is("(")) {
                at = group_end(tokens, at);
            }
        }
        let declares = tokens.get(at).is_some_and(|t| t.is("mod"))
            && tokens.get(at + 2).is_some_and(|t| t.is(";"));
        if declares {
            let name = &tokens[at + 1].text;
            let path = format!("{dir}/{name}");
            if SOURCES
                .iter()
                .any(|(p, _)| *p == path || *p == format!("{path}/mod"))
            {
                out.extend_from_slice(&tokens[i..at]);
                out.extend(module_tokens(name, &path)?);
            }
            i = at + 3;
            continue;
        }
        out.push(t.clone());
        i += 1;
    }
    Ok(out)
}

/// What the bundle does with an attribute.
enum Attribute {
    Keep,
    /// Drop the attribute (lint-only, or a `cfg` that holds).
    Drop,
    /// Drop the attribute and the item it is on (a `cfg` that fails).
    DropItem,
}

fn attribute(inside: &[Token]) -> Attribute {
    let first = inside.first().map_or("", |t| t.text.as_str());
    match first {
        "must_use" => Attribute::Drop,
        "allow" if inside.get(2).is_some_and(|t| t.is("clippy")) => Attribute::Drop,
        "cfg" => match predicate(&inside[2..inside.len() - 1]) {
            Some(true) => Attribute::Drop,
            Some(false) => Attribute::DropItem,
            None => Attribute::Keep,
        },
        _ => Attribute::Keep,
    }
}

/// A `cfg` predicate, as the bundle builds: `test` fails, `bundle` holds,
/// anything else (the target's) is left to `rustc` (`None`).
fn predicate(tokens: &[Token]) -> Option<bool> {
    let head = tokens.first()?;
    let args = || -> Vec<&[Token]> {
        if tokens.len() < 3 {
            return Vec::new();
        }
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 2);
        for (k, t) in tokens.iter().enumerate().take(tokens.len() - 1).skip(2) {
            match t.text.as_str() {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 0 => {
                    parts.push(&tokens[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        parts.push(&tokens[start..tokens.len() - 1]);
        parts.retain(|p| !p.is_empty());
        parts
    };
    let called = tokens.get(1).is_some_and(|t| t.is("("));
    match head.text.as_str() {
        "test" if tokens.len() == 1 => Some(false),
        "bundle" if tokens.len() == 1 => Some(true),
        "not" if called => predicate(args().first()?).map(|b| !b),
        "all" if called => {
            let values: Vec<Option<bool>> = args().into_iter().map(predicate).collect();
            if values.contains(&Some(false)) {
                Some(false)
            } else if values.iter().all(|v| *v == Some(true)) {
                Some(true)
            } else {
                None
            }
        }
        "any" if called => {
            let values: Vec<Option<bool>> = args().into_iter().map(predicate).collect();
            if values.contains(&Some(true)) {
                Some(true)
            } else if values.iter().all(|v| *v == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(source: &str) -> String {
        tokens::write(&edit(&tokenize(source).expect("lexes"), "x", "").expect("edits"))
    }

    #[test]
    fn items_are_chosen_as_with_cfg_bundle() {
        let source = "#[cfg(test)] mod tests { fn t() {} }\n#[cfg(not(bundle))] const A: u8 = 1;\n#[cfg(bundle)] const A: u8 = 2;\n#[cfg(all(bundle, target_arch = \"x86_64\"))] fn f() {}\n#[cfg(any(test, unix))] fn g() {}\n#[must_use] fn h() {}";
        assert_eq!(
            edited(source),
            "const A:u8=2;#[cfg(all(bundle,target_arch=\"x86_64\"))]fn f(){}#[cfg(any(test,unix))]fn g(){}fn h(){}"
        );
    }

    #[test]
    fn a_failing_cfg_drops_the_item_with_its_other_attributes() {
        let source = "#[cfg(test)]\n#[derive(Debug)]\nstruct S { a: u8 }\nstruct T;";
        assert_eq!(edited(source), "struct T;");
    }

    #[test]
    fn modules_outside_the_core_are_dropped() {
        assert_eq!(edited("pub mod build; mod inspect; fn f() {}"), "fn f(){}");
    }

    #[test]
    fn the_judge_bundle_fills_the_default_limit_and_names_no_crate() {
        let options = Options {
            protocol: Protocol::Judge,
            limit: 100_000,
            eval_chars: None,
        };
        let made = bundle(options).expect("bundles");
        let chars = made.source.chars().count();
        assert!((99_000..=100_000).contains(&chars), "{chars} characters");
        assert!(made.corrections > 0, "room left for corrections");
        for name in [
            "arrayvec",
            "fastrand",
            "include_",
            "cfg(test)",
            "bundle)",
            PACKED_MARK,
        ] {
            assert!(!made.source.contains(name), "the bundle still says {name}");
        }
        assert!(made.source.contains("fn main()"));
    }

    #[test]
    fn the_evaluation_gets_the_characters_asked_for() {
        let options = Options {
            protocol: Protocol::CodinGame,
            limit: 200_000,
            eval_chars: Some(9_000),
        };
        let made = bundle(options).expect("bundles");
        assert!(
            made.eval_chars <= 9_000 && made.eval_chars > 8_900,
            "{}",
            made.eval_chars
        );
    }

    #[test]
    fn a_bundle_over_the_limit_is_refused_with_the_excess() {
        let options = Options {
            protocol: Protocol::Judge,
            limit: 1000,
            eval_chars: None,
        };
        let error = bundle(options).err().expect("too large");
        let text = error.to_string();
        assert!(text.contains("over the limit of 1000"), "{text}");
    }
}
