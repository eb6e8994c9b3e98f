//! How answers are shown: aligned tables and key-value lines for people,
//! JSON for programs, progress on stderr.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::error::CliError;

/// A table with a header row; columns are as wide as their widest cell.
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

    /// Adds a row (one cell per column).
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    /// The table as text, one line per row, ending with a newline.
    pub(crate) fn render(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|i| {
                let cells = self.rows.iter().map(|r| r[i].chars().count());
                cells.chain([self.headers[i].len()]).max().unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .zip(&self.right_aligned)
                .map(
                    |((cell, width), right)| if *right { format!("{cell:>width$}") } else { format!("{cell:<width$}") },
                )
                .collect();
            padded.join("  ").trim_end().to_string() + "\n"
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

/// Key-value lines, keys aligned.
pub(crate) fn fields(pairs: &[(&str, String)]) -> String {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    pairs.iter().map(|(key, value)| format!("{key:<width$}  {value}\n")).collect()
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

    #[test]
    fn dollars_keep_significant_digits() {
        assert_eq!(usd(Some(1234.567)), "$1234.57");
        assert_eq!(usd(Some(0.000021474)), "$0.0000214740");
        assert_eq!(usd(Some(0.5)), "$0.500000");
        assert_eq!(usd(Some(0.0)), "$0.00");
        assert_eq!(usd(None), "-");
    }
}
