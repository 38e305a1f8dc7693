//! The front door: the README and BENCHMARKS.md stay short enough to
//! read, the README names no commit (a user's guide is not a log), and
//! every link of the project's pages leads somewhere.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The pages a reader meets: the README, BENCHMARKS.md, docs/ and the
/// other crates' READMEs.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![
        root().join("README.md"),
        root().join("BENCHMARKS.md"),
        root().join("linkage/README.md"),
        root().join("fixtures/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The text outside fenced code blocks and inline code, where a link is
/// a link.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            // Inline code spans hold text like `[a](b)` that is no link.
            let kept: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            out.push_str(&kept);
            out.push('\n');
        }
    }
    out
}

/// Each `[text](target)` and `![alt](target)` of a page.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut found = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            found.push(after[..end].trim().to_string());
        }
        rest = after;
    }
    found
}

/// A heading's anchor as GitHub makes it: lower case, punctuation
/// dropped but for `-` and `_`, spaces made `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

#[test]
fn every_link_of_the_pages_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        for link in links(&text) {
            if link.starts_with("http://")
                || link.starts_with("https://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            checked += 1;
            let (file, fragment) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().expect("a folder").join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
            } else if !fragment.is_empty()
                && !anchors(&read(&target)).contains(&fragment.to_string())
            {
                broken.push(format!("{}: {link}: no such heading", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(
        checked > 20,
        "only {checked} links found: is the reader right?"
    );
}

#[test]
fn the_readme_and_benchmarks_stay_short() {
    for (name, most) in [("README.md", 300), ("BENCHMARKS.md", 400)] {
        let lines = read(&root().join(name)).lines().count();
        assert!(lines <= most, "{name} has {lines} lines, over {most}");
    }
}

/// A word of 7 to 40 hexadecimal digits with both a digit and a letter:
/// how a commit is named.
fn commit_like(word: &str) -> bool {
    (7..=40).contains(&word.len())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn the_readme_names_no_commit() {
    let readme = read(&root().join("README.md"));
    let commits: Vec<&str> = readme
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| commit_like(w))
        .collect();
    assert!(commits.is_empty(), "the README names commits: {commits:?}");
    // The check itself: it finds one where there is one.
    assert!(commit_like("016a740") && !commit_like("1000000") && !commit_like("decade"));
}

#[test]
fn the_link_reader_finds_what_a_page_links() {
    let text = "See [a](docs/a.md#x) and ![b](b.png), not `[c](c.md)`.\n```\n[d](d.md)\n```\n";
    assert_eq!(links(text), ["docs/a.md#x", "b.png"]);
    assert_eq!(anchor(" Over GGS"), "over-ggs");
    assert_eq!(anchor(" The crates, and why"), "the-crates-and-why");
}
