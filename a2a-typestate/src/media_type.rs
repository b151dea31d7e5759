//! Media types compared by meaning: the one reading every rule uses (see [`crate::rules`]).

/// `true` when the media range `range` covers media type `media_type`, by meaning: case and
/// parameters ignored (`Text/Plain; charset=utf-8` is `text/plain`), `*` or `*/*` covers anything,
/// and a subtype of `*` or none at all (`text/*`, or `text` as cards in the wild write it) covers
/// every subtype of its type. Only `range`'s wildcards widen: `*/*` as the `media_type` is not
/// covered by `application/json`.
pub fn media_type_covers(range: &str, media_type: &str) -> bool {
    let (r_kind, r_sub) = essence(range);
    let (m_kind, m_sub) = essence(media_type);
    let any = |part: &str| part.is_empty() || part == "*";
    !r_kind.is_empty()
        && !m_kind.is_empty()
        && (any(&r_kind) || r_kind == m_kind)
        && (any(&r_sub) || r_sub == m_sub)
}

/// `true` when media types or ranges `a` and `b` share a media type: either covers the other
/// ([`media_type_covers`]). What "accepted `*/*`" and "declares `text/plain`" have in common.
pub fn media_type_matches(a: &str, b: &str) -> bool {
    media_type_covers(a, b) || media_type_covers(b, a)
}

/// A media type's type and subtype, lowercased, parameters dropped (`""` for a missing subtype).
fn essence(media_type: &str) -> (String, String) {
    let base = media_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match base.split_once('/') {
        Some((kind, sub)) => (kind.trim().to_owned(), sub.trim().to_owned()),
        None => (base, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::{media_type_covers, media_type_matches};

    #[test]
    fn media_types_match_by_meaning() {
        assert!(media_type_matches("text/plain", "Text/Plain; charset=utf-8"));
        assert!(media_type_matches("*/*", "image/png"));
        assert!(media_type_matches("*", "image/png"));
        assert!(media_type_matches("text/*", "text/markdown"));
        assert!(media_type_matches("text", "text/plain"));
        assert!(media_type_matches("text/plain", "text"));
        assert!(media_type_matches("TEXT", "text/plain"));
        assert!(!media_type_matches("text/*", "application/json"));
        assert!(!media_type_matches("text/plain", "text/html"));
        assert!(!media_type_matches("text/plain", "image/png"));
        assert!(!media_type_matches("text", "image/png"));
        assert!(!media_type_matches("", "text/plain"));
        assert!(!media_type_matches("text/plain", ""));
    }

    #[test]
    fn only_the_range_widens_when_covering() {
        assert!(media_type_covers("text", "text/plain"));
        assert!(media_type_covers("*/*", "application/json"));
        assert!(!media_type_covers("application/json", "*/*"));
        assert!(!media_type_covers("text/plain", "text/*"));
        assert!(media_type_matches("application/json", "*/*"));
    }
}
