//! The book's examples that run against `w3api serve`: a page's text between
//! `<!-- tested-NAME:start -->` and `<!-- tested-NAME:end -->`, and the code
//! blocks in it. The tests run them as the page shows them, so the book
//! cannot drift from what the server does.

/// The text of `docs/src/PAGE` between the markers of `name`.
pub(crate) fn section(page: &str, name: &str) -> String {
    let path = w3api_spec_check::repository_root().join("docs/src").join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = format!("<!-- tested-{name}:start -->");
    let end = format!("<!-- tested-{name}:end -->");
    let from = text.find(&start).unwrap_or_else(|| panic!("{page} has no {start}"));
    let to = text[from..].find(&end).unwrap_or_else(|| panic!("{page} has no {end} after its start"));
    text[from + start.len()..from + to].to_string()
}

/// The code blocks of `language` in `text`, in order.
pub(crate) fn blocks(text: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}\n");
    text.split(&fence).skip(1).map(|block| block.split("```").next().unwrap_or_default().to_string()).collect()
}
