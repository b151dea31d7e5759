//! `settle_*`: ask the verifier about one claim and move the typed handle accordingly.

use a2a_typestate::{
    Claims, Elapsed, HistoryClaimed, HistorySlot, HistoryVerified, PushClaimed, PushSlot, PushVerified,
    Refusal, Settlement, StreamingClaimed, StreamingSlot, StreamingVerified, Task,
};

use super::{Session, TypedRefusal, TypedTask};

/// What a `settle_*` call of [`TypedTask`] returns: the upgraded handle, the same handle still
/// pending, or a [`TypedRefusal`] carrying the downgraded one.
pub type TypedSettleResult<V, U> = Result<Settlement<TypedTask<V>, U>, TypedRefusal>;

impl<C: a2a_typestate::ClaimSet> TypedTask<C> {
    /// Puts the typestate's settlement back on this handle's connection and clock.
    fn resettle<V: a2a_typestate::ClaimSet>(
        session: Session,
        settled: Result<Settlement<Task<V>, Task<C>>, Refusal>,
    ) -> TypedSettleResult<V, Self> {
        match settled {
            Ok(Settlement::Verified(task)) => Ok(Settlement::Verified(TypedTask { session, task })),
            Ok(Settlement::Pending(task, why)) => Ok(Settlement::Pending(TypedTask { session, task }, why)),
            Err(refusal) => Err(TypedRefusal::new(session, refusal)),
        }
    }
}

impl<H: HistorySlot, P: PushSlot> TypedTask<Claims<StreamingClaimed, H, P>> {
    /// Asks the verifier about the streaming claim at `now` (normally [`TypedTask::elapsed`]).
    ///
    /// # Errors
    /// A [`TypedRefusal`] (the handle downgraded to `TypedTask<SingleShot>`) when all three
    /// refusal conditions held.
    pub fn settle_streaming(self, now: Elapsed) -> TypedSettleResult<Claims<StreamingVerified, H, P>, Self> {
        let settled = self.task.settle_streaming(now);
        Self::resettle(self.session, settled)
    }
}

impl<S: StreamingSlot, P: PushSlot> TypedTask<Claims<S, HistoryClaimed, P>> {
    /// Asks the verifier about the state-transition history claim at `now`.
    ///
    /// # Errors
    /// A [`TypedRefusal`] when all three refusal conditions held (its advice: abandon the task).
    pub fn settle_history(self, now: Elapsed) -> TypedSettleResult<Claims<S, HistoryVerified, P>, Self> {
        let settled = self.task.settle_history(now);
        Self::resettle(self.session, settled)
    }
}

impl<S: StreamingSlot, H: HistorySlot> TypedTask<Claims<S, H, PushClaimed>> {
    /// Asks the verifier about the push claim at `now` (past the arrival bound, an absent callback
    /// is a refusal).
    ///
    /// # Errors
    /// A [`TypedRefusal`] when all three refusal conditions held.
    pub fn settle_push(self, now: Elapsed) -> TypedSettleResult<Claims<S, H, PushVerified>, Self> {
        let settled = self.task.settle_push(now);
        Self::resettle(self.session, settled)
    }
}
