//! Shorter names for the bundle: every name the core declares (functions,
//! types, constants, fields, parameters, locals, modules) is renamed
//! everywhere to a short one, the most used first to the shortest. The
//! judge counts characters; the names were a third of them.
//!
//! The renaming is by token text, so a name and every use of it change
//! together: a field and the shorthand that fills it, a method and its
//! calls, a path through a module. What must keep its name is left alone:
//! - names the core does not declare (the standard library's);
//! - names it declares that the standard library also uses, listed in
//!   [`KEEP`] (a trait's methods, `new`, `len`, …): renaming those would
//!   rename the library's too;
//! - names written inside a format string (`{stage:5}`);
//! - everything inside an attribute (`#[target_feature(enable = …)]`).
//!
//! A name wrongly renamed does not compile (a trait impl loses its method,
//! a call finds nothing), and CI builds the bundle, so a new name that
//! needs keeping shows up there, to be added to [`KEEP`].

use super::tokens::{Kind, Token};
use std::collections::{HashMap, HashSet};

/// Names the core declares that must not change: the standard library
/// uses them too (trait methods implemented here, inherent methods with
/// the same names as library ones).
const KEEP: &[&str] = &[
    "main",
    "new",
    "default",
    "fmt",
    "from",
    "next",
    "len",
    "is_empty",
    "parse",
    "index",
    "iter",
    "deref",
    "deref_mut",
    "from_iter",
    "into_iter",
    "extend",
    "push",
    "clear",
    "drop",
    "eq",
    "cmp",
    "hash",
    "clone",
    "get",
    "insert",
    "contains",
    "count",
    "min",
    "max",
    "abs",
    "flush",
    "write",
    "read",
    "as_ptr",
    "as_mut_ptr",
    "to_string",
    "fill_buf",
    "consume",
    "Item",
    "IntoIter",
    "Target",
    "Output",
    "Err",
    "Ok",
    "Some",
    "None",
    "T",
    "N",
    "bits",
    "sum",
    "wrapping_mul",
    "swap",
    "sort",
    "sort_by_key",
    "take",
    "find",
    "position",
    "map",
    "filter",
    "zip",
    "rev",
    "elapsed",
    "duration_since",
    "name",
    "to_le_bytes",
    "from_le_bytes",
    "trailing_zeros",
    "count_ones",
    "leading_zeros",
    "first",
    "last",
    "split",
    "lines",
    "chars",
    "trim",
    "bytes",
    "ZERO",
    "fill",
    "fold",
    "kind",
    "size_hint",
    "stdin",
    "size",
    "cast",
    "array",
];

/// Rust's keywords, which a new name must not be.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

/// Renames the declared names of `tokens` in place; returns how many
/// names were renamed.
pub fn shorten(tokens: &mut [Token]) -> usize {
    let keep = kept(tokens);
    let declared = declared(tokens, &keep);
    // Most used first, so they get the shortest names.
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for t in tokens.iter().filter(|t| t.kind == Kind::Word) {
        if declared.contains(t.text.as_str()) {
            *uses.entry(t.text.as_str()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&str, usize)> = uses.into_iter().collect();
    ranked.sort_by(|a, b| (b.1 * b.0.len()).cmp(&(a.1 * a.0.len())).then(a.0.cmp(b.0)));
    let existing: HashSet<&str> = tokens
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.text.as_str())
        .collect();
    let mut fresh = (0..)
        .map(short_name)
        .filter(|n| !existing.contains(n.as_str()) && !KEYWORDS.contains(&n.as_str()));
    let renames: HashMap<String, String> = ranked
        .into_iter()
        .filter_map(|(name, _)| {
            let short = fresh.next().expect("endless names");
            (short.len() < name.len()).then(|| (name.to_string(), short))
        })
        .collect();
    // Everything inside `#[…]` and `#![…]` keeps its name.
    let mut attribute_depth: Option<i32> = None;
    for token in tokens.iter_mut() {
        if token.is("#") {
            attribute_depth = Some(0);
        }
        if let Some(depth) = attribute_depth.as_mut() {
            match token.text.as_str() {
                "[" => *depth += 1,
                "]" => {
                    *depth -= 1;
                    if *depth == 0 {
                        attribute_depth = None;
                    }
                }
                _ => {}
            }
            continue;
        }
        if token.kind == Kind::Word {
            if let Some(short) = renames.get(&token.text) {
                token.text.clone_from(short);
            }
        }
    }
    renames.len()
}

/// The `n`th short name: `a` … `z`, then `a0` … `z9`, `aa` …
fn short_name(n: usize) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_";
    let mut n = n;
    let mut name = String::new();
    name.push(FIRST[n % FIRST.len()] as char);
    n /= FIRST.len();
    while n > 0 {
        n -= 1;
        name.push(REST[n % REST.len()] as char);
        n /= REST.len();
    }
    name
}

/// [`KEEP`], the names written in format strings, and the functions of
/// `extern "C"` blocks (the linker looks for them by name).
fn kept(tokens: &[Token]) -> HashSet<String> {
    let mut keep: HashSet<String> = KEEP.iter().map(|s| (*s).to_string()).collect();
    for (i, t) in tokens.iter().enumerate() {
        let foreign = t.is("extern")
            && tokens.get(i + 1).is_some_and(|t| t.kind == Kind::Literal)
            && tokens.get(i + 2).is_some_and(|t| t.is("{"));
        if foreign {
            let end = super::tokens::group_end(tokens, i + 2);
            for pair in tokens[i + 2..end].windows(2) {
                if pair[0].is("fn") {
                    keep.insert(pair[1].text.clone());
                }
            }
        }
    }
    for t in tokens.iter().filter(|t| t.kind == Kind::Literal) {
        for part in t.text.split('{').skip(1) {
            let name: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                keep.insert(name);
            }
        }
    }
    keep
}

/// The names `tokens` declare: after `fn`, `struct`, `enum`, `trait`,
/// `type`, `const`, `static`, `mod`, `let [mut]`, and before a single `:`
/// (fields, parameters, typed bindings), less those kept.
fn declared<'a>(tokens: &'a [Token], keep: &HashSet<String>) -> HashSet<&'a str> {
    let mut names = HashSet::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != Kind::Word {
            continue;
        }
        let before = |k: usize| i.checked_sub(k).map(|j| tokens[j].text.as_str());
        let after = |k: usize| tokens.get(i + k).map(|t| t.text.as_str());
        let by_keyword = matches!(
            before(1),
            Some("fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "mod" | "let")
        ) || (before(1) == Some("mut") && before(2) == Some("let"));
        let typed = after(1) == Some(":") && after(2) != Some(":") && before(1) != Some(":");
        let name = t.text.as_str();
        if (by_keyword || typed) && !keep.contains(name) && !KEYWORDS.contains(&name) {
            names.insert(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::super::tokens::{tokenize, write};
    use super::*;

    fn shortened(source: &str) -> String {
        let mut tokens = tokenize(source).expect("lexes");
        shorten(&mut tokens);
        write(&tokens)
    }

    #[test]
    fn declared_names_shrink_and_the_library_keeps_its_own() {
        let source = "struct Position { empties: u32 } fn count_empties(board: &Position) -> usize { let total = board.empties as usize; vec![total].len() }";
        assert_eq!(
            shortened(source),
            "struct a{b:u32}fn c(d:&a)->usize{let e=d.b as usize;vec![e].len()}"
        );
    }

    #[test]
    fn format_strings_attributes_and_kept_names_are_untouched() {
        let source = "#[target_feature(enable = \"bmi2\")] fn stage_of(stage: u32) -> String { format!(\"{stage:5}\") } impl Default for X { fn default() -> X { X } }";
        let out = shortened(source);
        assert!(out.contains("#[target_feature(enable=\"bmi2\")]"), "{out}");
        assert!(
            out.contains("(stage:u32)") && out.contains("{stage:5}"),
            "{out}"
        );
        assert!(out.contains("fn default()"), "{out}");
        assert!(!out.contains("stage_of"), "{out}");
    }

    #[test]
    fn new_names_never_meet_an_existing_one() {
        // `a` is a name the source uses and does not declare: skipped.
        let out = shortened("fn long_name() { a(); }");
        assert_eq!(out, "fn b(){a();}");
    }
}
