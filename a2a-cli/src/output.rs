//! Writing a command's report: pretty JSON for machines (`--json`) or tables for people.

use std::io::Write;

use serde::Serialize;

/// Writes `report` to `out` as pretty JSON when `json` is set, else as the text `table` renders.
pub(crate) fn write_report<T: Serialize>(
    out: &mut dyn Write,
    json: bool,
    report: &T,
    table: impl FnOnce(&T) -> String,
) -> std::io::Result<()> {
    if json {
        let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
        writeln!(out, "{text}")
    } else {
        write!(out, "{}", table(report))
    }
}
