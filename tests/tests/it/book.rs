//! The book (`docs/`) and the README hold together: every page is reached
//! from `SUMMARY.md`, every relative link and anchor leads somewhere, every
//! page with Rust examples is doctested, and the README stays a front door.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use w3api_tests::DOCTESTED_PAGES;

fn root() -> PathBuf {
    w3api_spec_check::repository_root()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The book's pages, relative to `docs/src`, but `SUMMARY.md`.
fn pages() -> BTreeSet<String> {
    let dir = root().join("docs/src");
    let mut pages = BTreeSet::new();
    let mut folders = vec![dir.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.insert(path.strip_prefix(&dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    pages.remove("SUMMARY.md");
    pages
}

/// The targets of the Markdown links `[text](target)` in `text`, outside code.
fn links(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Inline code spans hold `](` in examples; they are not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// The anchors mdBook (and the forges) give a page's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut anchors = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            let heading = line.trim_start_matches('#').trim().to_lowercase();
            let anchor: String = heading
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            anchors.insert(anchor);
        }
    }
    anchors
}

#[test]
fn every_page_is_in_the_summary_and_every_summary_link_is_a_page() {
    let summary = read(&root().join("docs/src/SUMMARY.md"));
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    let pages = pages();
    let unlisted: Vec<_> = pages.difference(&listed).collect();
    assert!(unlisted.is_empty(), "pages SUMMARY.md does not reach: {unlisted:?}");
    let missing: Vec<_> = listed.difference(&pages).collect();
    assert!(missing.is_empty(), "SUMMARY.md links to pages that are not there: {missing:?}");
}

#[test]
fn every_relative_link_of_the_book_and_the_readme_leads_somewhere() {
    let mut documents: Vec<PathBuf> = pages().iter().map(|page| root().join("docs/src").join(page)).collect();
    documents.push(root().join("README.md"));
    documents.push(root().join("benches/README.md"));
    documents.push(root().join("tests/fixtures/README.md"));
    documents.push(root().join("crates/w3api-devnet/README.md"));
    let mut broken = Vec::new();
    for document in &documents {
        let text = read(document);
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
            let target = if file.is_empty() { document.clone() } else { document.parent().unwrap().join(file) };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", document.display()));
                continue;
            }
            if let Some(anchor) = anchor
                && !anchors(&read(&target)).contains(anchor)
            {
                broken.push(format!("{}: {link}: no heading makes #{anchor}", document.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn every_page_with_rust_examples_is_doctested() {
    let mut with_rust: BTreeSet<String> = pages()
        .into_iter()
        .map(|page| format!("docs/src/{page}"))
        .filter(|page| read(&root().join(page)).contains("```rust"))
        .collect();
    if read(&root().join("README.md")).contains("```rust") {
        with_rust.insert("README.md".into());
    }
    let doctested: BTreeSet<String> = DOCTESTED_PAGES.iter().map(|page| (*page).to_string()).collect();
    let missing: Vec<_> = with_rust.difference(&doctested).collect();
    assert!(missing.is_empty(), "pages with Rust examples that no doctest runs (add them to w3api_tests): {missing:?}");
    for page in &doctested {
        assert!(root().join(page).exists(), "{page} is doctested but is not there");
    }
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read(&root().join("README.md"));
    assert!(
        readme.len() < 12 * 1024,
        "README.md is {} bytes: keep it under 12 KB and put the rest in the book",
        readme.len()
    );
    for command in ["cargo run -p w3api-cli -- demo", "cargo test --workspace"] {
        assert!(readme.contains(command), "README.md shows `{command}`");
    }
}
