//! [`ListingFault`]: why a listing that pages for the caller ([`crate::TaskPages`]) stopped before
//! the agent's last page.

use std::fmt;

/// Why [`TaskPages`](crate::TaskPages) stopped before the last page: the agent named a page token
/// it had already named (following it again would list the same pages forever), answered a page
/// with more tasks than it was asked for, or the listing ran past its page bound. None is
/// retryable: the same request would stop the same way.
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
    /// The answer to page `page` (1-based) held `answered` tasks where its `pageSize` asked for
    /// `asked`: the listing kept the first `asked` and stopped (an agent that ignores the page size
    /// would otherwise choose what the listing holds).
    OverfullPage {
        /// The page whose answer held too many tasks.
        page: u32,
        /// The `pageSize` that page was asked with.
        asked: i32,
        /// How many tasks it held.
        answered: usize,
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
            Self::OverfullPage { page, asked, answered } => write!(
                f,
                "the ListTasks answer to page {page} holds {answered} tasks where its pageSize asked for \
                 {asked}: the first {asked} were kept and the listing stopped there"
            ),
        }
    }
}

impl std::error::Error for ListingFault {}
