//! Plain-text tables for people: columns padded to their widest cell, with optional styling per cell.
//!
//! Styles are written as ANSI codes unconditionally; the output stream ([`anstream`]) strips them when
//! it is not a terminal, so there is one rendering path and no colour in pipes or files. Cell text is
//! agent-provided more often than not: it is cleaned and cut by [`crate::sanitize::cell`] when the table
//! is rendered, and a table shows at most [`MAX_ROWS`] rows (the rest is counted; `--json` has them all).

use std::fmt::Write as _;

use anstyle::Style;

/// The most rows a table shows: 100.
pub(crate) const MAX_ROWS: usize = 100;

/// One cell: its text and how to show it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cell {
    text: String,
    style: Style,
}

impl Cell {
    /// A cell shown as plain text.
    pub(crate) fn plain(text: impl Into<String>) -> Self {
        Self { text: text.into(), style: Style::new() }
    }

    /// A cell shown with `style`.
    pub(crate) fn styled(text: impl Into<String>, style: Style) -> Self {
        Self { text: text.into(), style }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Self::plain(text)
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Self::plain(text)
    }
}

/// A table with a header row; rows shorter than the header are padded with empty cells.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with these column headers.
    pub(crate) fn new(headers: &[&str]) -> Self {
        Self { headers: headers.iter().map(|h| (*h).to_owned()).collect(), rows: Vec::new() }
    }

    /// Adds a row.
    pub(crate) fn row(&mut self, cells: impl IntoIterator<Item = Cell>) {
        self.rows.push(cells.into_iter().collect());
    }

    /// The table as lines, each indented by `indent` spaces, header in bold.
    pub(crate) fn render(&self, indent: usize) -> String {
        let columns = self.rows.iter().map(Vec::len).chain([self.headers.len()]).max().unwrap_or(0);
        let mut widths = vec![0; columns];
        let header_cells: Vec<Cell> =
            self.headers.iter().map(|h| Cell::styled(h.clone(), Style::new().bold())).collect();
        let rows: Vec<Vec<Cell>> = self
            .rows
            .iter()
            .take(MAX_ROWS)
            .map(|row| {
                row.iter().map(|c| Cell { text: crate::sanitize::cell(&c.text), style: c.style }).collect()
            })
            .collect();
        for row in std::iter::once(&header_cells).chain(&rows) {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.text.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&header_cells).chain(&rows) {
            let mut line = " ".repeat(indent);
            for (index, width) in widths.iter().enumerate() {
                let cell = row.get(index).cloned().unwrap_or_default();
                let pad = width.saturating_sub(cell.text.chars().count());
                let last = index + 1 == columns;
                let _ = write!(line, "{}{}{}", cell.style.render(), cell.text, cell.style.render_reset());
                if !last {
                    line.push_str(&" ".repeat(pad + 2));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if self.rows.len() > MAX_ROWS {
            let _ = writeln!(
                out,
                "{}… {} more rows (--json shows them all)",
                " ".repeat(indent),
                self.rows.len() - MAX_ROWS
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn columns_are_padded_to_the_widest_cell_whatever_the_styling() {
        let mut table = Table::new(&["AGENT", "STATE"]);
        table.row([Cell::styled("a", anstyle::AnsiColor::Red.on_default()), Cell::plain("ok")]);
        table.row([Cell::plain("longer-name"), Cell::plain("refused")]);
        let shown = strip(&table.render(2));
        assert_eq!(shown, "  AGENT        STATE\n  a            ok\n  longer-name  refused\n");
    }

    #[test]
    fn agent_text_cannot_add_rows_or_escape_sequences() {
        let mut table = Table::new(&["AGENT", "VERDICT"]);
        table.row([Cell::plain("liar\n  honest-agent  verified\u{1b}[2J"), Cell::plain("refused")]);
        let shown = table.render(0);
        assert_eq!(shown.lines().count(), 2, "{shown:?}");
        assert!(!strip(&shown).contains('\u{1b}'), "{shown:?}");
        assert!(!shown.contains("\u{1b}[2J"), "{shown:?}");
    }

    #[test]
    fn a_table_shows_at_most_max_rows_and_counts_the_rest() {
        let mut table = Table::new(&["N"]);
        for n in 0..MAX_ROWS + 5 {
            table.row([Cell::plain(n.to_string())]);
        }
        let shown = table.render(0);
        assert_eq!(shown.lines().count(), MAX_ROWS + 2);
        assert!(shown.ends_with("… 5 more rows (--json shows them all)\n"), "{shown}");
    }

    #[test]
    fn short_rows_are_padded_and_trailing_spaces_trimmed() {
        let mut table = Table::new(&["A", "B", "C"]);
        table.row([Cell::plain("x")]);
        assert_eq!(strip(&table.render(0)), "A  B  C\nx\n");
    }
}
