//! [`ListingFault`]: why a listing that pages for the caller ([`crate::TaskPages`]) stopped before
//! the agent's last page.

use std::fmt;

/// Why [`TaskPages`](crate::TaskPages) stopped before the last page: the agent named a page token
/// it had already named (following it again would list the same pages forever), or the listing ran
/// past its page bound. Neither is retryable: the same request would stop the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListingFault {
    /// The answer to page `page` (1-based) named, as its `nextPageToken`, the token that page
    /// `first_named_by` named already (`0`: the token the caller's own request started from).
    RepeatedPageToken {
        /// The page whose answer repeated the token.
        page: u32,
        /// The page that named the token first; `0` for the caller's starting `pageToken`.
        first_named_by: u32,
    },
    /// The agent still had a next page after `max_pages` pages: the listing stopped at its bound
    /// ([`TaskPages::max_pages`](crate::TaskPages::max_pages)).
    PageBound {
        /// The bound that ran out.
        max_pages: u32,
    },
}

impl fmt::Display for ListingFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RepeatedPageToken { page, first_named_by: 0 } => write!(
                f,
                "the ListTasks answer to page {page} names the page token the listing started from as its \
                 next page: following it would list the same pages again"
            ),
            Self::RepeatedPageToken { page, first_named_by } => write!(
                f,
                "the ListTasks answer to page {page} names the same next page token as page {first_named_by}: \
                 following it would list the same pages again"
            ),
            Self::PageBound { max_pages } => write!(
                f,
                "the agent still has tasks after {max_pages} ListTasks pages, the bound of this listing"
            ),
        }
    }
}

impl std::error::Error for ListingFault {}
