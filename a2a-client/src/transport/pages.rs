//! [`TaskPages`]: `ListTasks` page after page, as one stream of tasks that ends at the agent's last
//! page, at a page token met again, at a page holding more tasks than it was asked for, or at the
//! listing's page or task bound.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use a2a_typestate_types::{ListTasksRequest, ListTasksResponse, Task};
use futures::future::BoxFuture;
use futures::{FutureExt, Stream};

use crate::Error;
use crate::defaults::DEFAULT_LIST_PAGE_SIZE;
use crate::error::ListingFault;

/// The page sizes the spec allows (`ListTasksRequest.pageSize`).
const PAGE_SIZES: std::ops::RangeInclusive<i32> = 1..=100;

/// One `ListTasks` as the connection makes it (tenant filled, retried, bounded by the request
/// timeout): given to [`TaskPages::new`] so the listing does not name the connection above it.
pub(crate) type ListPage =
    Box<dyn Fn(ListTasksRequest) -> BoxFuture<'static, Result<ListTasksResponse, Error>> + Send + Sync>;

/// Every task a `ListTasks` request matches, page after page: the stream asks for the next page
/// (the request again, with the last page's `nextPageToken`) when the caller has read the tasks of
/// the one before, and ends after the page whose `nextPageToken` is empty.
///
/// # Bounds
/// - **Page size**: the request's `pageSize`, else [`DEFAULT_LIST_PAGE_SIZE`] (50, the spec's
///   default). The spec allows 1 to 100; any other value is a [`Misuse`](crate::ErrorKind::Misuse)
///   error before anything is sent.
/// - **Pages**: at most [`TaskPages::max_pages`] pages (by default the client's
///   [`TaskBudget::pages`](crate::TaskBudget::pages), 1,000). An agent that still names a next page
///   after the last one allowed ends the listing with [`ListingFault::PageBound`], after that
///   page's tasks.
/// - **Tasks**: at most [`TaskPages::max_tasks`] tasks, when the caller sets it (else the page
///   bound times the page size, by the two bounds above). The last page is asked for with only
///   the tasks left to read, and the listing ends there, without an error, whatever the agent
///   still names as its next page.
/// - **Tasks per page**: a page holding more tasks than its `pageSize` asked for is the agent
///   deviating: its first tasks, as many as were asked for, are read, the others dropped at once,
///   and the listing ends with [`ListingFault::OverfullPage`]. What a listing holds is bounded by
///   what it asked for, never by what the agent sends (each answer is read within the client's
///   document bounds before that).
/// - **Each page** is one call, retried on transport faults and bounded by the client's request
///   timeout and operation deadline, as every other call on the connection.
/// - **A page token met again** (one the agent already named in this listing, or the one the
///   request started from) ends the listing with [`ListingFault::RepeatedPageToken`], naming the
///   page that repeated it and the page that named it first, after that page's tasks: following it
///   would list the same pages forever.
///
/// A page that holds no task but names a next page is followed, within the page bound. Any error
/// ends the stream after it is yielded. Drop the stream to stop listing.
pub struct TaskPages {
    list_page: ListPage,
    request: ListTasksRequest,
    agent: String,
    max_pages: u32,
    pages: u32,
    /// The task bound the caller set; `None`: the page bound times the page size.
    max_tasks: Option<u64>,
    /// Tasks read so far, those buffered included.
    tasks: u64,
    /// The `pageSize` the page being asked for was asked with.
    asked: i32,
    total_size: Option<i32>,
    /// Each page token named so far, hashed (tokens are opaque and may be long), with the page that
    /// named it (`0`: the request's own).
    seen: HashMap<u64, u32>,
    pending: Option<BoxFuture<'static, Result<ListTasksResponse, Error>>>,
    buffered: VecDeque<Task>,
    /// What comes once the buffered tasks are read.
    then: Then,
}

/// What a listing does once the tasks it holds are read.
enum Then {
    /// Asks for the page the request's `page_token` names (the first: the caller's own, if any).
    NextPage,
    /// Ends with this error.
    Fail(Error),
    /// Ends.
    Finished,
}

impl fmt::Debug for TaskPages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPages")
            .field("agent", &self.agent)
            .field("page_size", &self.request.page_size)
            .field("max_pages", &self.max_pages)
            .field("pages_read", &self.pages)
            .finish_non_exhaustive()
    }
}

impl TaskPages {
    /// A listing of what `request` matches, at most `max_pages` pages (the client's
    /// [`TaskBudget::pages`](crate::TaskBudget::pages)); `agent` is the URL its own errors name.
    pub(crate) fn new(
        list_page: ListPage,
        mut request: ListTasksRequest,
        agent: &str,
        max_pages: u32,
    ) -> Self {
        let size = *request.page_size.get_or_insert(DEFAULT_LIST_PAGE_SIZE);
        let then = if PAGE_SIZES.contains(&size) {
            Then::NextPage
        } else {
            Then::Fail(
                Error::misuse(format!(
                    "ListTasksRequest.page_size {size} is outside 1..=100, the page sizes the spec allows"
                ))
                .with_url(agent),
            )
        };
        let mut seen = HashMap::new();
        if let Some(token) = request.page_token.as_deref().filter(|t| !t.is_empty()) {
            seen.insert(token_key(token), 0);
        }
        Self {
            list_page,
            request,
            agent: agent.to_owned(),
            max_pages: max_pages.max(1),
            pages: 0,
            max_tasks: None,
            tasks: 0,
            asked: size,
            total_size: None,
            seen,
            pending: None,
            buffered: VecDeque::new(),
            then,
        }
    }

    /// Sets how many pages this listing reads at most (the client's
    /// [`TaskBudget::pages`](crate::TaskBudget::pages) by default; at least one). An agent that
    /// names a next page after the last page allowed ends the listing with
    /// [`ListingFault::PageBound`].
    #[must_use]
    pub fn max_pages(mut self, pages: u32) -> Self {
        self.max_pages = pages.max(1);
        self
    }

    /// Sets how many tasks this listing reads at most (at least one; without it, the page bound
    /// times the page size): the last page is asked for with only the tasks left, and the listing
    /// ends after the last one allowed, without an error, whatever the agent still has.
    #[must_use]
    pub fn max_tasks(mut self, tasks: u64) -> Self {
        self.max_tasks = Some(tasks.max(1));
        self
    }

    /// The task bound of this listing, when one was set with [`TaskPages::max_tasks`].
    pub fn task_bound(&self) -> Option<u64> {
        self.max_tasks
    }

    /// The page bound of this listing.
    pub fn page_bound(&self) -> u32 {
        self.max_pages
    }

    /// The `pageSize` each page is asked with.
    pub fn page_size(&self) -> i32 {
        self.request.page_size.unwrap_or(DEFAULT_LIST_PAGE_SIZE)
    }

    /// How many pages the agent has answered so far.
    pub fn pages_read(&self) -> u32 {
        self.pages
    }

    /// The `totalSize` the last page gave (the agent's count of every task the request matches), if a
    /// page was read.
    pub fn total_size(&self) -> Option<i32> {
        self.total_size
    }

    /// The request for the next page: the listing's, asking for no more tasks than are left.
    fn next_request(&mut self) -> ListTasksRequest {
        let left = self.max_tasks.map_or(u64::MAX, |bound| bound.saturating_sub(self.tasks));
        self.asked = i32::try_from(left).unwrap_or(i32::MAX).clamp(1, self.page_size());
        let mut request = self.request.clone();
        request.page_size = Some(self.asked);
        request
    }

    /// Takes in one page's answer: its tasks, and what comes after them.
    fn on_page(&mut self, answer: Result<ListTasksResponse, Error>) {
        self.pages = self.pages.saturating_add(1);
        let mut page = match answer {
            Ok(page) => page,
            Err(error) => {
                self.then = Then::Fail(error);
                return;
            }
        };
        self.total_size = Some(page.total_size);
        // Never more than was asked for: the rest is dropped before it is held.
        let asked = usize::try_from(self.asked).unwrap_or(0);
        let answered = page.tasks.len();
        page.tasks.truncate(asked);
        page.tasks.shrink_to_fit();
        self.tasks = self.tasks.saturating_add(page.tasks.len() as u64);
        self.buffered.extend(page.tasks);
        if answered > asked {
            let fault = ListingFault::OverfullPage { page: self.pages, asked: self.asked, answered };
            self.then = Then::Fail(Error::from(fault).with_url(&self.agent));
            return;
        }
        let token = page.next_page_token;
        if token.is_empty() || self.max_tasks.is_some_and(|bound| self.tasks >= bound) {
            self.then = Then::Finished;
            return;
        }
        let key = token_key(&token);
        if let Some(&first_named_by) = self.seen.get(&key) {
            let fault = ListingFault::RepeatedPageToken { page: self.pages, first_named_by };
            self.then = Then::Fail(Error::from(fault).with_url(&self.agent));
            return;
        }
        self.seen.insert(key, self.pages);
        self.request.page_token = Some(token);
        self.then = if self.pages >= self.max_pages {
            Then::Fail(
                Error::from(ListingFault::PageBound { max_pages: self.max_pages }).with_url(&self.agent),
            )
        } else {
            Then::NextPage
        };
    }
}

/// The key a page token is remembered by.
fn token_key(token: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    token.hash(&mut hasher);
    hasher.finish()
}

impl Stream for TaskPages {
    type Item = Result<Task, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(task) = this.buffered.pop_front() {
                return Poll::Ready(Some(Ok(task)));
            }
            if let Some(pending) = this.pending.as_mut() {
                let answer = ready!(pending.poll_unpin(cx));
                this.pending = None;
                this.on_page(answer);
                continue;
            }
            match std::mem::replace(&mut this.then, Then::Finished) {
                Then::Finished => return Poll::Ready(None),
                Then::Fail(error) => return Poll::Ready(Some(Err(error))),
                Then::NextPage => {
                    let request = this.next_request();
                    this.pending = Some((this.list_page)(request));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::StreamExt;

    use super::*;
    use crate::ErrorKind;
    use crate::defaults::DEFAULT_MAX_LIST_PAGES;

    /// A scripted agent's pages: each answer names the tasks and the next token given for a token.
    fn agent(
        answer: impl Fn(Option<&str>) -> (usize, &'static str) + Send + Sync + 'static,
    ) -> (ListPage, Arc<Mutex<Vec<ListTasksRequest>>>) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&asked);
        let list: ListPage = Box::new(move |request: ListTasksRequest| {
            let (count, next) = answer(request.page_token.as_deref());
            log.lock().unwrap().push(request);
            let tasks = (0..count)
                .map(|i| {
                    serde_json::from_value::<Task>(serde_json::json!({
                        "id": format!("t{i}"),
                        "status": {"state": "TASK_STATE_COMPLETED"},
                    }))
                    .unwrap()
                })
                .collect();
            let page =
                ListTasksResponse { tasks, next_page_token: next.to_owned(), page_size: 2, total_size: 9 };
            Box::pin(async move { Ok(page) })
        });
        (list, asked)
    }

    async fn read(pages: TaskPages) -> (Vec<Result<Task, Error>>, u32) {
        let mut pages = pages;
        let mut items = Vec::new();
        while let Some(item) = pages.next().await {
            items.push(item);
        }
        (items, pages.pages_read())
    }

    #[tokio::test]
    async fn a_token_named_again_later_ends_the_listing_naming_both_pages() {
        // a -> b -> c -> b: a cycle of two pages.
        let (list, asked) = agent(|token| match token {
            None => (2, "a"),
            Some("a") => (2, "b"),
            Some("b") => (2, "c"),
            _ => (2, "b"),
        });
        let (items, pages) =
            read(TaskPages::new(list, ListTasksRequest::default(), "http://agent", DEFAULT_MAX_LIST_PAGES))
                .await;
        assert_eq!(pages, 4);
        assert_eq!(items.iter().filter(|i| i.is_ok()).count(), 8, "every page's tasks, then the error");
        let error = items.last().unwrap().as_ref().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Listing);
        let fault = ListingFault::RepeatedPageToken { page: 4, first_named_by: 2 };
        assert_eq!(error.listing_fault(), Some(&fault));
        assert!(fault.to_string().contains("page 4") && fault.to_string().contains("page 2"), "{fault}");
        assert_eq!(asked.lock().unwrap().len(), 4, "no page asked for after the repeat");
    }

    #[tokio::test]
    async fn the_token_a_listing_started_from_is_a_repeat_too() {
        let (list, _) = agent(|_| (1, "start"));
        let request = ListTasksRequest { page_token: Some("start".into()), ..Default::default() };
        let (items, _) = read(TaskPages::new(list, request, "http://agent", DEFAULT_MAX_LIST_PAGES)).await;
        let fault = items.last().unwrap().as_ref().unwrap_err().listing_fault().cloned();
        assert_eq!(fault, Some(ListingFault::RepeatedPageToken { page: 1, first_named_by: 0 }));
    }

    #[tokio::test]
    async fn empty_pages_that_name_a_next_page_are_followed_within_the_page_bound() {
        let (list, asked) = agent(|token| match token {
            None => (0, "1"),
            Some("1") => (0, "2"),
            Some("2") => (3, ""),
            _ => unreachable!(),
        });
        let (items, pages) =
            read(TaskPages::new(list, ListTasksRequest::default(), "http://agent", DEFAULT_MAX_LIST_PAGES))
                .await;
        assert_eq!((items.len(), pages), (3, 3));
        assert!(items.iter().all(Result::is_ok));
        assert!(asked.lock().unwrap().iter().all(|r| r.page_size == Some(DEFAULT_LIST_PAGE_SIZE)));

        // The same agent with a bound of two pages: the second still names a next page.
        let (list, asked) = agent(|token| match token {
            None => (0, "1"),
            _ => (0, "2"),
        });
        let pages = TaskPages::new(list, ListTasksRequest::default(), "http://agent", DEFAULT_MAX_LIST_PAGES)
            .max_pages(2);
        let (items, read_pages) = read(pages).await;
        assert_eq!(read_pages, 2);
        let error = items.last().unwrap().as_ref().unwrap_err();
        assert_eq!(error.listing_fault(), Some(&ListingFault::PageBound { max_pages: 2 }));
        assert_eq!(asked.lock().unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_page_size_the_spec_does_not_allow_is_refused_before_anything_is_sent() {
        let (list, asked) = agent(|_| (1, ""));
        let request = ListTasksRequest { page_size: Some(500), ..Default::default() };
        let (items, pages) =
            read(TaskPages::new(list, request, "http://agent", DEFAULT_MAX_LIST_PAGES)).await;
        assert_eq!((items.len(), pages), (1, 0));
        let error = items[0].as_ref().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Misuse);
        assert!(error.to_string().contains("500"), "{error}");
        assert!(asked.lock().unwrap().is_empty());
    }
}
