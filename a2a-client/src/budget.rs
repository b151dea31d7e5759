//! The memory one [`Client`](crate::Client) gives to response bodies it is reading and parsing at once.
//!
//! Every body (an answer, a card, a token or key set) has a size limit, but a client reads many at
//! once: a fleet audit or an orchestrator with many tasks in flight would multiply the worst case by
//! its concurrency. So each read first reserves room from one budget per client: the body's
//! `Content-Length` when the agent sent one, else the body limit. The reservation is cut to the bytes
//! really read, and returned when the caller has parsed the body. A read that finds the budget spent
//! waits for room, within the bound of the exchange it is part of; a reservation is taken whole, so
//! readers never hold part of what they need while waiting for the rest.
//!
//! The default is [`DEFAULT_DOCUMENT_BUDGET`](crate::config::DEFAULT_DOCUMENT_BUDGET); set it with
//! [`ClientBuilder::document_budget`](crate::ClientBuilder::document_budget).

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The per-client budget (cheap to clone: clones share it).
#[derive(Clone)]
pub(crate) struct DocumentBudget {
    room: Arc<Semaphore>,
    bytes: usize,
}

impl fmt::Debug for DocumentBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocumentBudget")
            .field("bytes", &self.bytes)
            .field("free", &self.room.available_permits())
            .finish()
    }
}

impl DocumentBudget {
    /// A budget of `bytes` (at least one body of the largest limit, so every body can be read).
    pub(crate) fn new(bytes: usize) -> Self {
        let bytes = bytes.clamp(1, u32::MAX as usize);
        Self { room: Arc::new(Semaphore::new(bytes)), bytes }
    }

    /// Reserves room for a body of at most `bytes`, waiting while other reads hold the budget. A
    /// body larger than the whole budget reserves all of it.
    pub(crate) async fn reserve(&self, bytes: usize) -> Reservation {
        let wanted = bytes.clamp(1, self.bytes) as u32;
        // The semaphore is never closed, so acquiring can only wait.
        let permit = Arc::clone(&self.room).acquire_many_owned(wanted).await.ok();
        Reservation { permit }
    }
}

/// Room held in a [`DocumentBudget`]; returned when dropped.
#[derive(Debug)]
pub(crate) struct Reservation {
    permit: Option<OwnedSemaphorePermit>,
}

impl Reservation {
    /// Returns what was reserved beyond `bytes`.
    pub(crate) fn shrink_to(&mut self, bytes: usize) {
        if let Some(permit) = &mut self.permit {
            let excess = permit.num_permits().saturating_sub(bytes.max(1));
            drop(permit.split(excess));
        }
    }
}

/// A body read within the budget: the bytes, and the room they hold until this is dropped.
#[derive(Debug)]
pub(crate) struct Body {
    /// The bytes as read.
    pub(crate) bytes: Bytes,
    _room: Reservation,
}

impl Body {
    pub(crate) fn new(bytes: Bytes, mut room: Reservation) -> Self {
        room.shrink_to(bytes.len());
        Self { bytes, _room: room }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_read_waits_while_the_budget_is_spent_and_goes_on_when_room_is_returned() {
        let budget = DocumentBudget::new(10);
        let held = budget.reserve(8).await;
        let waiting = tokio::time::timeout(Duration::from_millis(50), budget.reserve(4)).await;
        assert!(waiting.is_err(), "4 bytes do not fit beside 8 of 10");
        drop(held);
        let granted = tokio::time::timeout(Duration::from_millis(50), budget.reserve(4)).await;
        assert!(granted.is_ok());
    }

    #[tokio::test]
    async fn a_reservation_is_cut_to_the_bytes_read() {
        let budget = DocumentBudget::new(10);
        let body = Body::new(Bytes::from_static(b"abc"), budget.reserve(10).await);
        assert_eq!(budget.room.available_permits(), 7);
        drop(body);
        assert_eq!(budget.room.available_permits(), 10);
    }

    #[tokio::test]
    async fn a_body_larger_than_the_budget_takes_all_of_it_and_still_reads() {
        let budget = DocumentBudget::new(10);
        let all = tokio::time::timeout(Duration::from_millis(50), budget.reserve(1_000)).await;
        assert!(all.is_ok());
        assert_eq!(budget.room.available_permits(), 0);
    }
}
