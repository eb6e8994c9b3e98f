//! How answers are shown: aligned tables and key-value lines for people,
//! JSON for programs, progress on stderr.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};

use serde::Serialize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::error::CliError;

/// Whether `c` must not reach a terminal as it is: control characters (C0,
/// DEL, C1), which start escape sequences or move the cursor, and the
/// invisible format characters that reorder or hide text (the Arabic letter
/// mark, the Mongolian vowel separator, zero-width space, the bidirectional
/// marks, embeddings, overrides and isolates, line and paragraph separators,
/// word joiner and invisible operators, the deprecated format characters,
/// the byte order mark and the interlinear annotation characters). Joiners
/// (U+200C, U+200D), variation selectors and tags stay: emoji and scripts
/// are written with them.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// `text` safe to print: each character of [`is_unsafe`] written as Rust
/// escapes it (`\u{1b}`), everything else (wide characters included) as it
/// is. Names and symbols come from whoever deployed a contract; every table
/// cell and key-value value passes through here. Already printable text is
/// left as it is, so applying it twice changes nothing.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            escaped.extend(c.escape_unicode());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// How many terminal columns printable `text` takes (two for a CJK
/// character or an emoji, none for a combining mark).
pub(crate) fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` made [`printable`] and cut to about `columns` terminal columns,
/// with an ellipsis when cut; an escape is kept whole or left out.
pub(crate) fn clip(text: &str, columns: usize) -> String {
    let shown = printable(text);
    if width(&shown) <= columns {
        return shown.into_owned();
    }
    // Character by character (a cut inside an emoji sequence may count a
    // column off; the table measures what it is given).
    let room = columns.saturating_sub(1);
    let (mut kept, mut used) = (String::new(), 0);
    for c in text.chars() {
        let piece: Cow<'_, str> =
            if is_unsafe(c) { c.escape_unicode().to_string().into() } else { c.to_string().into() };
        let columns = if is_unsafe(c) { piece.len() } else { c.width().unwrap_or(0) };
        if used + columns > room {
            break;
        }
        used += columns;
        kept.push_str(&piece);
    }
    kept.push('…');
    kept
}

/// A table with a header row; columns are as wide as their widest cell, in
/// terminal columns. Cells are shown [`printable`].
pub(crate) struct Table {
    headers: Vec<&'static str>,
    right_aligned: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these columns; a header starting with `>` is right-aligned
    /// (numbers), the `>` is not shown.
    pub(crate) fn new(headers: &[&'static str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.trim_start_matches('>')).collect(),
            right_aligned: headers.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (one cell per column), made [`printable`].
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        let cells =
            cells.into_iter().map(|cell| if let Cow::Owned(escaped) = printable(&cell) { escaped } else { cell });
        self.rows.push(cells.collect());
    }

    /// The table as text, one line per row, ending with a newline.
    pub(crate) fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|i| {
                let cells = self.rows.iter().map(|r| width(&r[i]));
                cells.chain([width(self.headers[i])]).max().unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .zip(&self.right_aligned)
                .map(|((cell, columns), right)| {
                    // `format!`'s padding counts characters, not columns.
                    let pad = " ".repeat(columns - width(cell));
                    if *right { format!("{pad}{cell}") } else { format!("{cell}{pad}") }
                })
                .collect();
            padded.join("  ").trim_end_matches(' ').to_string() + "\n"
        };
        let mut text = line(self.headers.clone());
        for row in &self.rows {
            text += &line(row.iter().map(String::as_str).collect());
        }
        text
    }
}

/// How a unit enum variant is written on the wire (`SYNCED`, `ERC721`).
pub(crate) fn wire_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// Key-value lines, keys aligned, values [`printable`].
pub(crate) fn fields(pairs: &[(&str, String)]) -> String {
    let columns = pairs.iter().map(|(k, _)| width(k)).max().unwrap_or(0);
    pairs
        .iter()
        .map(|(key, value)| format!("{key}{}  {}\n", " ".repeat(columns - width(key)), printable(value)))
        .collect()
}

/// `print!` for the CLI's answers: when stdout is closed early (`w3api … |
/// head`), the process ends quietly with success, as Unix tools do, where
/// `print!` would panic; any other failure to write is reported.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!($($arg)*)) };
}

/// `println!` with [`out!`]'s handling of a closed stdout.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};

/// Writes to stdout; see [`out!`].
pub(crate) fn write_out(text: std::fmt::Arguments<'_>) {
    match std::io::stdout().lock().write_fmt(text) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            eprintln!("error: writing to stdout: {error}");
            std::process::exit(1);
        }
    }
}

/// Prints a value as pretty JSON on stdout.
pub(crate) fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::Input(format!("encoding JSON: {e}")))?;
    outln!("{text}");
    Ok(())
}

/// Prints `value` as JSON, or as the text `render` makes of it.
pub(crate) fn emit<T: Serialize + ?Sized>(
    json: bool,
    value: &T,
    render: impl FnOnce(&T) -> String,
) -> Result<(), CliError> {
    if json {
        print_json(value)
    } else {
        out!("{}", render(value));
        Ok(())
    }
}

/// A US dollar amount: cents for amounts of a dollar or more, six
/// significant digits below.
pub(crate) fn usd(amount: Option<f64>) -> String {
    match amount {
        None => "-".into(),
        Some(a) if a.abs() >= 1.0 || a == 0.0 => format!("${a:.2}"),
        Some(a) => {
            let decimals = (6 - a.abs().log10().floor() as i32 - 1).clamp(0, 18) as usize;
            format!("${a:.decimals$}")
        }
    }
}

/// A percentage with two decimals.
pub(crate) fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}%"))
}

/// An optional value, `-` when absent.
pub(crate) fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "-".into(), |v| v.to_string())
}

/// Shows how far `--all` has got, on stderr: one line rewritten in place on
/// a terminal, a line per page otherwise.
pub(crate) struct Progress {
    terminal: bool,
    pages: usize,
    items: usize,
}

impl Progress {
    pub(crate) fn new() -> Progress {
        Progress { terminal: std::io::stderr().is_terminal(), pages: 0, items: 0 }
    }

    /// Records a page of `items` items.
    pub(crate) fn page(&mut self, items: usize) {
        self.pages += 1;
        self.items += items;
        let text = format!("page {}: {} items so far", self.pages, self.items);
        let mut stderr = std::io::stderr().lock();
        let _ = if self.terminal { write!(stderr, "\r{text}") } else { writeln!(stderr, "{text}") };
    }

    /// Ends the progress line.
    pub(crate) fn finish(self) {
        if self.terminal && self.pages > 0 {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let mut table = Table::new(&["NAME", ">VALUE"]);
        table.row(vec!["ether".into(), "1.5".into()]);
        table.row(vec!["a".into(), "1234.25".into()]);
        assert_eq!(table.render(), "NAME     VALUE\nether      1.5\na      1234.25\n");
    }

    /// No character that a terminal acts on instead of showing.
    fn assert_inert(text: &str) {
        for c in text.chars() {
            assert!(c == '\n' || !is_unsafe(c), "{c:?} reaches the terminal in {text:?}");
        }
    }

    #[test]
    fn unsafe_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("\x1b[31mRED\x1b[0m"), "\\u{1b}[31mRED\\u{1b}[0m");
        assert_eq!(printable("a\u{7f}b\u{9b}c\u{0}d\re\nf\tg"), r"a\u{7f}b\u{9b}c\u{0}d\u{d}e\u{a}f\u{9}g");
        // Bidirectional overrides and isolates, which reorder what follows.
        assert_eq!(printable("usd\u{202e}cod.exe\u{202c}"), r"usd\u{202e}cod.exe\u{202c}");
        assert_eq!(printable("\u{2066}x\u{2069}\u{200b}\u{feff}"), r"\u{2066}x\u{2069}\u{200b}\u{feff}");
        // Wide characters, accents, emoji (with their joiners and selectors) stay.
        for kept in ["代币", "Café", "🚀", "👨\u{200d}👩\u{200d}👧", "❤\u{fe0f}", "Ünïcødé ✓"] {
            assert!(matches!(printable(kept), Cow::Borrowed(_)), "{kept}");
        }
        // Escaping twice is escaping once.
        let once = printable("\x1b]0;title\x07").into_owned();
        assert_eq!(printable(&once), once);
        assert_inert(&once);
    }

    #[test]
    fn widths_are_terminal_columns() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("代币"), 4);
        assert_eq!(width("🚀"), 2);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn clipping_counts_columns_and_keeps_escapes_whole() {
        assert_eq!(clip("short", 28), "short");
        assert_eq!(clip("abcdefgh", 5), "abcd…");
        // Four columns of room: two wide characters, not four.
        assert_eq!(clip("代币代币代币", 5), "代币…");
        assert_eq!(clip("代币", 4), "代币");
        // An escape is not cut in half.
        assert_eq!(clip("ab\x1bcdef", 8), "ab…");
        assert_eq!(clip("ab\x1bcdef", 9), r"ab\u{1b}…");
        for text in ["代币代币代币", "ab\x1bcdef", "\x1b[31m🚀🚀🚀🚀🚀"] {
            for columns in 1..12 {
                let clipped = clip(text, columns);
                assert!(width(&clipped) <= columns.max(1), "{clipped:?} in {columns}");
                assert_inert(&clipped);
            }
        }
    }

    #[test]
    fn escapes_and_wide_characters_keep_columns_aligned() {
        let mut table = Table::new(&["SYMBOL", "NAME", ">BALANCE", "TOKEN"]);
        table.row(vec!["\x1b[31mRED".into(), "代币 \x1b[31mred\x1b[0m".into(), "1.5".into(), "0xaaa".into()]);
        table.row(vec!["🚀".into(), "Rocket 🚀 Moon".into(), "1234.25".into(), "0xbbb".into()]);
        table.row(vec!["USD\u{202e}C".into(), "plain".into(), "7".into(), "0xccc".into()]);
        let text = table.render();
        assert_inert(&text);
        let lines: Vec<&str> = text.lines().collect();
        // Each line's cells, as shown: the header, then the escaped rows.
        let cells = [
            ["SYMBOL", "NAME", "BALANCE", "TOKEN"],
            [r"\u{1b}[31mRED", r"代币 \u{1b}[31mred\u{1b}[0m", "1.5", "0xaaa"],
            ["🚀", "Rocket 🚀 Moon", "1234.25", "0xbbb"],
            [r"USD\u{202e}C", "plain", "7", "0xccc"],
        ];
        assert_eq!(lines.len(), cells.len(), "{text}");
        // Where a cell starts and ends on its line, in terminal columns.
        let span = |line: &str, cell: &str| {
            let at = line.find(cell).unwrap_or_else(|| panic!("{cell:?} in {line:?}"));
            (width(&line[..at]), width(&line[..at + cell.len()]))
        };
        for column in 0..4 {
            let spans: Vec<(usize, usize)> =
                lines.iter().zip(&cells).map(|(line, row)| span(line, row[column])).collect();
            if column == 2 {
                assert!(spans.iter().all(|s| s.1 == spans[0].1), "column {column} ends at {spans:?} in:\n{text}");
            } else {
                assert!(spans.iter().all(|s| s.0 == spans[0].0), "column {column} starts at {spans:?} in:\n{text}");
            }
        }
        // The last column is as wide everywhere, so every line is too.
        assert!(lines.iter().all(|line| width(line) == width(lines[0])), "{text}");
        assert_eq!(lines[2], format!("🚀{}  Rocket 🚀 Moon{}  1234.25  0xbbb", " ".repeat(11), " ".repeat(13)));
    }

    #[test]
    fn key_values_are_escaped_and_aligned() {
        let text = fields(&[("token", "代币\x1b[2J".into()), ("exchange", "Uni\u{202e}swap".into())]);
        assert_eq!(text, "token     代币\\u{1b}[2J\nexchange  Uni\\u{202e}swap\n");
        assert_inert(&text);
    }

    #[test]
    fn dollars_keep_significant_digits() {
        assert_eq!(usd(Some(1234.567)), "$1234.57");
        assert_eq!(usd(Some(0.000021474)), "$0.0000214740");
        assert_eq!(usd(Some(0.5)), "$0.500000");
        assert_eq!(usd(Some(0.0)), "$0.00");
        assert_eq!(usd(None), "-");
    }
}
