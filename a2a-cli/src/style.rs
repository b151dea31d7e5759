//! The few styles the command line uses, named by what they mean.

use anstyle::{AnsiColor, Style};

/// Something that holds: verified, honest, completed.
pub(crate) const GOOD: Style = AnsiColor::Green.on_default();
/// A contradiction or failure: refused, over-declares, failed.
pub(crate) const BAD: Style = AnsiColor::Red.on_default().bold();
/// Worth a look but not wrong: fallback used, not exercised, unverifiable.
pub(crate) const NOTE: Style = AnsiColor::Yellow.on_default();
/// Section titles.
pub(crate) const TITLE: Style = Style::new().bold().underline();
/// Secondary detail.
pub(crate) const DIM: Style = Style::new().dimmed();

/// `text` wrapped in `style`'s codes (stripped later when the output is not a terminal).
pub(crate) fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}
