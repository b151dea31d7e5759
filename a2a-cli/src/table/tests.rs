//! The table layout: fixed examples, then the wrapping rules as properties over random cells and
//! widths.

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
    let shown = strip(&table.render_within(2, 80));
    assert_eq!(shown, "  AGENT        STATE\n  a            ok\n  longer-name  refused\n");
}

#[test]
fn agent_text_cannot_add_rows_or_escape_sequences() {
    let mut table = Table::new(&["AGENT", "VERDICT"]);
    table.row([Cell::plain("liar\n  honest-agent  verified\u{1b}[2J"), Cell::plain("refused")]);
    let shown = table.render_within(0, 200);
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
    let shown = table.render_within(0, 80);
    assert_eq!(shown.lines().count(), MAX_ROWS + 2);
    assert!(shown.ends_with("… 5 more rows (--json shows them all)\n"), "{shown}");
}

#[test]
fn short_rows_are_padded_and_trailing_spaces_trimmed() {
    let mut table = Table::new(&["A", "B", "C"]);
    table.row([Cell::plain("x")]);
    assert_eq!(strip(&table.render_within(0, 80)), "A  B  C\nx\n");
}

#[test]
fn a_long_cell_wraps_at_word_boundaries_under_its_column_and_keeps_its_end() {
    let detail = "the card's interface answered 404: pass the card's own URL, ending in agent-card.json";
    let mut table = Table::new(&["AGENT", "DETAIL"]);
    table.row([Cell::plain("weather"), Cell::plain(detail)]);
    let width = 40;
    let shown = strip(&table.render_within(2, width));
    let column = shown.lines().next().and_then(|header| header.find("DETAIL")).unwrap_or_default();
    let mut rebuilt = Vec::new();
    for line in shown.lines().skip(1) {
        assert!(line.chars().count() <= width, "{line:?} is wider than {width}");
        assert!(line[..column].trim().is_empty() || line.starts_with("  weather"), "{line:?}");
        rebuilt.push(line[column..].to_owned());
    }
    assert!(rebuilt.len() > 1, "wrapped: {shown}");
    assert_eq!(rebuilt.join(" "), detail);
}

#[test]
fn a_word_longer_than_its_column_is_split_into_pieces_as_wide_as_the_column() {
    assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    assert_eq!(wrap("ab 天天天", 4), ["ab", "天天", "天"]);
    assert!(wrap("   ", 4).is_empty(), "nothing to show is no line");
}

mod properties {
    //! The wrapping rules as properties: whatever the cells and the width, every word of every cell
    //! is shown (a word wider than its column in pieces, in order), no line is wider than the width,
    //! and every line's text sits in the columns the header line sets out.
    //!
    //! Each row's first cell is a label (`r0`, `r1`...), so that the lines of one row can be told from
    //! the next; the widths leave room for each header on one line (a table with less room than that
    //! is laid out wider than the width, as the module docs say). Cell texts stay below the flood
    //! bound of `sanitize`, which is the one place text is cut.

    use proptest::collection::vec;
    use proptest::prelude::*;
    use unicode_width::UnicodeWidthChar;

    use super::{strip, *};

    /// A word: letters, digits, URL punctuation, accented and wide (CJK) characters; now and then
    /// longer than any column.
    fn word() -> impl Strategy<Value = String> {
        prop_oneof![4 => "[a-zA-Z0-9é天:/._-]{1,12}", 1 => "[a-z0-9天/]{20,70}"]
    }

    /// A cell's text: words separated by runs of spaces, possibly none at all.
    fn text() -> impl Strategy<Value = String> {
        (vec(word(), 0..14), vec(1usize..4, 14)).prop_map(|(words, gaps)| {
            let mut text = String::new();
            for (word, gap) in words.iter().zip(gaps) {
                text.push_str(word);
                text.push_str(&" ".repeat(gap));
            }
            text
        })
    }

    /// The line as (display column, character) pairs.
    fn placed(line: &str) -> Vec<(usize, char)> {
        let mut at = 0;
        line.chars()
            .map(|c| {
                let here = at;
                at += c.width().unwrap_or(0);
                (here, c)
            })
            .collect()
    }

    fn display_width(line: &str) -> usize {
        line.chars().map(|c| c.width().unwrap_or(0)).sum()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn every_word_is_shown_no_line_is_wider_than_the_width_and_the_columns_line_up(
            header_words in vec("[A-Z]{1,9}", 1..6),
            cells in vec(vec(text(), 6), 1..7),
            indent in 0usize..5,
            slack in 0usize..140,
        ) {
            let headers: Vec<String> =
                header_words.iter().enumerate().map(|(i, w)| format!("C{i}{w}")).collect();
            let columns = headers.len();
            let rows: Vec<Vec<String>> = cells
                .iter()
                .enumerate()
                .map(|(i, texts)| {
                    std::iter::once(format!("r{i}")).chain(texts.iter().take(columns - 1).cloned()).collect()
                })
                .collect();
            let width = indent + headers.iter().map(String::len).sum::<usize>() + 2 * (columns - 1) + slack;
            let mut table = Table::new(&headers.iter().map(String::as_str).collect::<Vec<_>>());
            for row in &rows {
                table.row(row.iter().map(|t| Cell::plain(t.clone())));
            }
            let shown = strip(&table.render_within(indent, width));
            let lines: Vec<&str> = shown.lines().collect();

            for line in &lines {
                prop_assert!(display_width(line) <= width, "{line:?} is wider than {width}:\n{shown}");
            }
            // Where each column starts: where its header is on the first line.
            let mut starts = Vec::new();
            let mut from = 0;
            for header in &headers {
                let at = lines[0][from..].find(header.as_str()).map(|at| at + from);
                prop_assert!(at.is_some(), "header {header} not on the first line:\n{shown}");
                let at = at.unwrap_or_default();
                starts.push(at);
                from = at + header.len();
            }
            prop_assert_eq!(starts[0], indent);
            // Each line cut at those columns; the two columns before the next column's start are
            // blank, and a column's text starts where its header does.
            let mut read: Vec<Vec<Vec<String>>> = Vec::new();
            for line in &lines[1..] {
                let chars = placed(line);
                let mut pieces = Vec::new();
                for (column, start) in starts.iter().enumerate() {
                    let end = starts.get(column + 1).copied().unwrap_or(usize::MAX);
                    let piece: String =
                        chars.iter().filter(|(at, _)| *at >= *start && *at < end).map(|(_, c)| *c).collect();
                    let piece = piece.trim_end().to_owned();
                    if let Some(next) = starts.get(column + 1) {
                        let gap = chars.iter().filter(|(at, _)| *at + 2 >= *next && *at < *next);
                        prop_assert!(gap.clone().all(|(_, c)| *c == ' '), "no gap before column {}: {line:?}", column + 1);
                    }
                    prop_assert!(!piece.starts_with(' '), "column {column} does not start under its header: {line:?}");
                    pieces.push(piece);
                }
                if !pieces[0].is_empty() {
                    read.push(Vec::new());
                }
                prop_assert!(!read.is_empty(), "a line before the first row's label: {line:?}");
                if let Some(row) = read.last_mut() {
                    row.push(pieces);
                }
            }
            prop_assert_eq!(read.len(), rows.len(), "one label per row:\n{}", shown);
            for (row, (given, lines_of_row)) in rows.iter().zip(&read).enumerate() {
                prop_assert_eq!(&lines_of_row[0][0], &format!("r{row}"));
                for (column, text) in given.iter().enumerate().skip(1) {
                    let pieces: Vec<&str> = lines_of_row.iter().map(|l| l[column].as_str()).collect();
                    // Nothing dropped, nothing added, in order.
                    let squeezed = |t: &str| t.split_whitespace().collect::<String>();
                    prop_assert_eq!(squeezed(&pieces.join(" ")), squeezed(text), "row {} column {}:\n{}", row, column, shown);
                    // A word that fits its column is shown whole, on one line.
                    let room = starts.get(column + 1).map_or(width, |next| next - 2) - starts[column];
                    for word in text.split_whitespace().filter(|w| display_width(w) <= room) {
                        prop_assert!(
                            pieces.iter().any(|p| p.split(' ').any(|shown| shown == word)),
                            "{word:?} (fits in {room}) is not whole in row {row} column {column}:\n{shown}"
                        );
                    }
                }
            }
        }
    }
}
