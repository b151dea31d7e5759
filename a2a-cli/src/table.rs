//! Plain-text tables for people: columns padded to their widest cell, long cells wrapped at word
//! boundaries so the table fits the width of the terminal, with optional styling per cell.
//!
//! Styles are written as ANSI codes unconditionally; the output stream ([`anstream`]) strips them when
//! it is not a terminal, so there is one rendering path and no colour in pipes or files. Cell text is
//! agent-provided more often than not: it is cleaned by [`a2a_typestate_client::text::message`] when the table is
//! rendered (control characters removed, and past [`a2a_typestate_client::text::MESSAGE_MAX_CHARS`] the flood
//! bound says how much it left out), and a table shows at most [`MAX_ROWS`] rows (the rest is counted;
//! `--json` has them all).
//!
//! **Wrapping.** A table is laid out within [`width`]: the terminal's when standard output is one,
//! else `COLUMNS` when set, else no width at all: output piped into `grep` or a file keeps each row
//! on one line, every word and URL whole. Columns keep their natural width while the table
//! fits; when it does not, the widest columns share what is left, and their cells wrap at spaces onto
//! as many lines as they need. No word is dropped: the message a reader needs most is often the end of
//! a long detail (the hint to pass a card's own URL, say). A word longer than its column (a long URL)
//! is split into pieces as wide as the column, one per line, so that no line is wider than the width
//! and the columns stay aligned; `--json` keeps it whole. A table with more columns than the width has
//! room for (each column needs [`MIN_COLUMN_WIDTH`] and two spaces between) is laid out at that
//! minimum, wider than the width.

use std::fmt::Write as _;

use anstyle::Style;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The most rows a table shows: 100.
pub(crate) const MAX_ROWS: usize = 100;
/// The narrowest a column is made: 2 columns, room for one wide (CJK) character.
pub(crate) const MIN_COLUMN_WIDTH: usize = 2;
/// Spaces between two columns.
const GAP: usize = 2;

/// The width tables are laid out within: the terminal's when standard output is one, else `COLUMNS`
/// when it holds a positive number, else unbounded (nothing is wrapped, see the module docs).
pub(crate) fn width() -> usize {
    if let Some((_, columns)) = console::Term::stdout().size_checked() {
        return usize::from(columns).max(1);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .unwrap_or(usize::MAX)
}

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

    /// The table as lines within [`width`], each indented by `indent` spaces, header in bold.
    pub(crate) fn render(&self, indent: usize) -> String {
        self.render_within(indent, width())
    }

    /// The table as lines no wider than `width` (indent included, see the module docs for the one
    /// exception), each indented by `indent` spaces, header in bold.
    pub(crate) fn render_within(&self, indent: usize, width: usize) -> String {
        let columns = self.rows.iter().map(Vec::len).chain([self.headers.len()]).max().unwrap_or(0);
        let header_cells: Vec<Cell> = self
            .headers
            .iter()
            .map(|h| Cell::styled(a2a_typestate_client::text::message(h), Style::new().bold()))
            .collect();
        let rows: Vec<Vec<Cell>> = self
            .rows
            .iter()
            .take(MAX_ROWS)
            .map(|row| {
                row.iter()
                    .map(|c| Cell { text: a2a_typestate_client::text::message(&c.text), style: c.style })
                    .collect()
            })
            .collect();
        let all = || std::iter::once(&header_cells).chain(&rows);
        let mut natural = vec![0; columns];
        let mut header_words = vec![0; columns];
        for row in all() {
            for (width, cell) in natural.iter_mut().zip(row) {
                *width = (*width).max(cell.text.width());
            }
        }
        for (floor, header) in header_words.iter_mut().zip(&header_cells) {
            *floor = header.text.split_whitespace().map(UnicodeWidthStr::width).max().unwrap_or(0);
        }
        let room = width.saturating_sub(indent + GAP * columns.saturating_sub(1));
        let widths = column_widths(&natural, &header_words, room);
        let mut out = String::new();
        let margin = " ".repeat(indent);
        for row in all() {
            let wrapped: Vec<Vec<String>> = widths
                .iter()
                .enumerate()
                .map(|(index, width)| wrap(row.get(index).map_or("", |c| c.text.as_str()), *width))
                .collect();
            let height = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1);
            for line_index in 0..height {
                let mut line = margin.clone();
                for (index, width) in widths.iter().enumerate() {
                    let piece = wrapped[index].get(line_index).map_or("", String::as_str);
                    let style = row.get(index).map_or(Style::new(), |c| c.style);
                    if !piece.is_empty() {
                        let _ = write!(line, "{}{piece}{}", style.render(), style.render_reset());
                    }
                    if index + 1 < columns {
                        line.push_str(&" ".repeat(width.saturating_sub(piece.width()) + GAP));
                    }
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        if self.rows.len() > MAX_ROWS {
            let _ =
                writeln!(out, "{margin}… {} more rows (--json shows them all)", self.rows.len() - MAX_ROWS);
        }
        out
    }
}

/// Each column's width: its `natural` width (its widest cell) when they all fit in `room`, else the
/// narrow columns keep theirs and the wide ones share the rest equally (never below the widest word
/// of their header, `header_words`, while that fits, nor below [`MIN_COLUMN_WIDTH`]).
fn column_widths(natural: &[usize], header_words: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let floors: Vec<usize> = {
        let with_headers: Vec<usize> = natural
            .iter()
            .zip(header_words)
            .map(|(natural, header)| (*header).max(MIN_COLUMN_WIDTH).min(*natural))
            .collect();
        if with_headers.iter().sum::<usize>() <= room {
            with_headers
        } else {
            natural.iter().map(|n| MIN_COLUMN_WIDTH.min(*n)).collect()
        }
    };
    // The largest cap such that every column at min(natural, max(cap, floor)) fits in the room.
    let fits = |cap: usize| -> usize {
        natural.iter().zip(&floors).map(|(natural, floor)| (*natural).min(cap.max(*floor))).sum()
    };
    let (mut low, mut high) = (0, natural.iter().copied().max().unwrap_or(0));
    while low < high {
        let middle = (low + high).div_ceil(2);
        if fits(middle) <= room { low = middle } else { high = middle - 1 }
    }
    let mut widths: Vec<usize> =
        natural.iter().zip(&floors).map(|(natural, floor)| (*natural).min(low.max(*floor))).collect();
    // What the cap left over goes, a column at a time, to the columns still narrower than their text.
    let mut left = room.saturating_sub(widths.iter().sum());
    for (width, natural) in widths.iter_mut().zip(natural) {
        if left == 0 {
            break;
        }
        if *width < *natural {
            *width += 1;
            left -= 1;
        }
    }
    widths
}

/// `text` as lines no wider than `width`: broken at spaces, a word wider than `width` split into
/// pieces of at most `width`. Runs of spaces between words become one space; an empty text is no
/// line at all.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_whitespace() {
        let wide = word.width();
        if used > 0 && used + 1 + wide <= width {
            line.push(' ');
            line.push_str(word);
            used += 1 + wide;
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if wide <= width {
            line.push_str(word);
            used = wide;
            continue;
        }
        // Longer than the column: cut into pieces as wide as it (a wide character that would pass
        // the edge starts the next piece).
        for c in word.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += w;
        }
    }
    if used > 0 || !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests;
