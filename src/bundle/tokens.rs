//! Rust source as a list of tokens, enough to pack it small: comments
//! dropped, whitespace kept only where two tokens would otherwise run
//! together, and the few item-level edits the bundler makes (dropping an
//! item by its `cfg`, inlining a module) done on tokens rather than text,
//! so that a comment or a string that looks like code is never touched.
//!
//! This is not a full Rust lexer: it knows what the project's own sources
//! use (no nested raw-string tricks, no shebang), and the bundle is built
//! with `rustc` in CI, which catches anything it gets wrong.

/// What a token is, as far as spacing and item edits care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword (raw identifiers included).
    Word,
    /// A number, with any suffix.
    Number,
    /// A lifetime or loop label (`'a`).
    Lifetime,
    /// A string, byte string, raw string, char or byte literal.
    Literal,
    /// One punctuation character: `::` is two of them.
    Punct,
}

/// A token of the source, with whether whitespace or a comment preceded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub spaced: bool,
}

impl Token {
    pub fn is(&self, text: &str) -> bool {
        self.text == text
    }
}

/// A source the tokenizer could not read, with the byte offset.
#[derive(Debug)]
pub struct LexError(pub usize, pub &'static str);

/// The tokens of `source`, comments dropped.
pub fn tokenize(source: &str) -> Result<Vec<Token>, LexError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut spaced = false;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            i += 1;
            spaced = true;
            continue;
        } else if bytes[i..].starts_with(b"//") {
            i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
            spaced = true;
            continue;
        } else if bytes[i..].starts_with(b"/*") {
            i = block_comment_end(bytes, i)?;
            spaced = true;
            continue;
        } else if let Some(end) = raw_string_end(bytes, i)? {
            i = end;
            Kind::Literal
        } else if c == b'"' || (c == b'b' && bytes.get(i + 1) == Some(&b'"')) {
            i = quoted_end(bytes, i + usize::from(c == b'b') + 1, b'"')?;
            Kind::Literal
        } else if c == b'b' && bytes.get(i + 1) == Some(&b'\'') {
            i = quoted_end(bytes, i + 2, b'\'')?;
            Kind::Literal
        } else if c == b'\'' {
            // A char literal closes within a character or an escape; a
            // lifetime is a quote and a word with no closing quote.
            let next = source[i + 1..]
                .chars()
                .next()
                .ok_or(LexError(i, "lone quote"))?;
            let after = i + 1 + next.len_utf8();
            if next == '\\' || bytes.get(after) == Some(&b'\'') {
                i = quoted_end(bytes, i + 1, b'\'')?;
                Kind::Literal
            } else {
                i = word_end(bytes, i + 1);
                Kind::Lifetime
            }
        } else if c.is_ascii_digit() {
            i = number_end(bytes, i);
            Kind::Number
        } else if c == b'_' || c.is_ascii_alphabetic() {
            if bytes[i..].starts_with(b"r#") {
                i += 2;
            }
            i = word_end(bytes, i);
            Kind::Word
        } else if c.is_ascii() {
            i += 1;
            Kind::Punct
        } else {
            return Err(LexError(i, "non-ASCII character outside a literal"));
        };
        tokens.push(Token {
            kind,
            text: source[start..i].to_string(),
            spaced,
        });
        spaced = false;
    }
    Ok(tokens)
}

fn word_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
        i += 1;
    }
    i
}

/// A number: digits, letters and underscores (hex, exponents, suffixes),
/// and a decimal point when a digit follows it (`1.5`, but `1..2` and
/// `x.0.max()` stay apart).
fn number_end(bytes: &[u8], i: usize) -> usize {
    let mut end = word_end(bytes, i);
    let point_then_digit =
        bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
    if point_then_digit {
        end = word_end(bytes, end + 1);
    }
    end
}

/// The end of a quoted literal whose body starts at `i`.
fn quoted_end(bytes: &[u8], mut i: usize, quote: u8) -> Result<usize, LexError> {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return Ok(i + 1),
            _ => i += 1,
        }
    }
    Err(LexError(i, "unterminated literal"))
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`,
/// or `None` if none starts there.
fn raw_string_end(bytes: &[u8], i: usize) -> Result<Option<usize>, LexError> {
    let mut j = i;
    if bytes.get(j) == Some(&b'b') {
        j += 1;
    }
    if bytes.get(j) != Some(&b'r') {
        return Ok(None);
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if bytes.get(j) != Some(&b'"') {
        return Ok(None);
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    bytes[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|at| Some(body + at + close.len()))
        .ok_or(LexError(i, "unterminated raw string"))
}

fn block_comment_end(bytes: &[u8], mut i: usize) -> Result<usize, LexError> {
    let start = i;
    let mut depth = 0;
    while i + 1 < bytes.len() {
        if bytes[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Ok(i);
            }
        } else {
            i += 1;
        }
    }
    Err(LexError(start, "unterminated block comment"))
}

/// Two punctuation characters that lex as one token when written
/// together.
const JOINING: &[&str] = &[
    "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=", "&=",
    "|=", "<<", ">>", "..", "//", "/*", "*/", "<-",
];

/// The tokens written back as source, with a space only where one is
/// needed: between two words, numbers, lifetimes or literals (`pub fn`,
/// `in "x"`, whose halves would otherwise lex as one token), and between
/// two punctuation characters that the source kept apart and that would
/// join (`& &x`, `a - -b`), or a number and a point (`1 .`).
pub fn write(tokens: &[Token]) -> String {
    let mut out = String::new();
    let mut previous: Option<&Token> = None;
    for token in tokens {
        if let Some(before) = previous {
            let wordy = |t: &Token| t.kind != Kind::Punct;
            let joined = format!("{}{}", before.text, token.text);
            let space = (wordy(before) && wordy(token))
                || (token.spaced
                    && token.kind == Kind::Punct
                    && ((before.kind == Kind::Punct && JOINING.contains(&joined.as_str()))
                        || (before.kind == Kind::Number && token.is("."))));
            if space {
                out.push(' ');
            }
        }
        out.push_str(&token.text);
        previous = Some(token);
    }
    out
}

/// The index just past the group that opens at `open` (`(`, `[` or `{`),
/// or the end of `tokens` if it never closes.
pub fn group_end(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0i32;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The index just past the item or statement starting at `start` (its
/// attributes already consumed): at the `;` that ends it, or at the closing
/// brace of a body that ends it (`fn`, `impl`, `mod`, `struct { }`,
/// `enum`, `trait`).
pub fn item_end(tokens: &[Token], start: usize) -> usize {
    let braced = tokens[start..]
        .iter()
        .take_while(|t| t.kind == Kind::Word || t.is("(") || t.is(")"))
        .any(|t| {
            ["fn", "impl", "mod", "struct", "enum", "trait", "union"].contains(&t.text.as_str())
        });
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            ";" => return i + 1,
            "(" | "[" => i = group_end(tokens, i),
            "{" => {
                i = group_end(tokens, i);
                if braced {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    tokens.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squeeze(source: &str) -> String {
        write(&tokenize(source).expect("lexes"))
    }

    #[test]
    fn comments_go_and_spaces_stay_only_where_needed() {
        let source = "pub fn f(x: &u8) -> u8 { // one\n    /* two /* nested */ */ *x + 1 }";
        assert_eq!(squeeze(source), "pub fn f(x:&u8)->u8{*x+1}");
    }

    #[test]
    fn literals_keep_their_text_and_their_distance_from_words() {
        let source =
            r##"for c in "a // b" { let q = '"'; let r = r#"x"y"#; m(b'\'', 'a', '\n') }"##;
        assert_eq!(
            squeeze(source),
            r##"for c in "a // b"{let q='"';let r=r#"x"y"#;m(b'\'','a','\n')}"##
        );
    }

    #[test]
    fn lifetimes_numbers_and_separated_punctuation_keep_their_meaning() {
        assert_eq!(squeeze("fn f<'a>(x: &'a [u8]) {}"), "fn f<'a>(x:&'a[u8]){}");
        assert_eq!(
            squeeze("let y = 1.5 + x.0.max(2) + (0 .. 3).len();"),
            "let y=1.5+x.0.max(2)+(0 ..3).len();"
        );
        assert_eq!(squeeze("a & &b; c - -d; e && f"), "a& &b;c--d;e&&f");
        assert_eq!(squeeze("0x1F_u64 as usize"), "0x1F_u64 as usize");
    }

    #[test]
    fn an_unterminated_literal_is_an_error_not_a_panic() {
        assert!(tokenize("let s = \"open").is_err());
        assert!(tokenize("/* open").is_err());
    }

    #[test]
    fn items_end_at_their_semicolon_or_their_body() {
        let tokens =
            tokenize("const A: [u8; 2] = [1, 2]; fn f() { g(); } struct S(u8); x").expect("lexes");
        let first = item_end(&tokens, 0);
        assert!(tokens[first - 1].is(";") && tokens[first].is("fn"));
        let second = item_end(&tokens, first);
        assert!(tokens[second - 1].is("}") && tokens[second].is("struct"));
        let third = item_end(&tokens, second);
        assert!(tokens[third - 1].is(";") && tokens[third].is("x"));
    }
}
