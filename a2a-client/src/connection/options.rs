//! Views of a connection whose calls carry [`CallOptions`], and the extensions asked for and
//! activated.

use std::sync::Arc;

use super::Inner;
use crate::config::{CallOptions, CallScope};
use crate::extensions::ActivatedExtensions;
use crate::{AgentConnection, Error, SuspectClaim};

impl AgentConnection {
    /// A view of this connection whose calls carry `options`: extra headers, a timeout, a history
    /// length, extensions (see [`CallOptions`]). Cheap: the view shares this connection's
    /// interface, credentials, card, HTTP connections and logs, and every call of the connection is
    /// there, task handles included (`view.dyn_task(..)`,
    /// [`Client::run_task_on`](crate::Client::run_task_on)`(&view, ..)`). The options replace any
    /// this connection was given by an earlier `with_options`; the connection itself is unchanged.
    ///
    /// The view keeps its own record of the extensions the agent activated
    /// ([`AgentConnection::activated_extensions`]), so a view made for one call reads exactly what
    /// the answers to that call said.
    ///
    /// ```
    /// use std::time::Duration;
    /// use a2a_typestate_client::{CallOptions, Client};
    /// use a2a_typestate_client::types::{Message, SendMessageRequest};
    /// # use a2a_testkit::ScriptedAgent;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let agent = ScriptedAgent::builder().extension("https://example.com/ext/citations/v1").spawn().await?;
    /// # let url = agent.base_url();
    /// let client = Client::builder().build()?;
    /// let agent = client.connect(&url).await?;
    ///
    /// let call = agent.with_options(
    ///     CallOptions::new()
    ///         .header("X-Request-Id", "req-42")
    ///         .timeout(Duration::from_secs(5))
    ///         .extension("https://example.com/ext/citations/v1"),
    /// )?;
    /// call.send_message(SendMessageRequest::new(Message::user("hello"))).await?;
    /// assert!(call.activated_extensions().contains("https://example.com/ext/citations/v1"));
    /// assert!(agent.activated_extensions().is_empty(), "the connection itself asked for none");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) for a header name or value that cannot be
    /// sent, a header the client writes itself, a zero timeout, or an extension URI the
    /// extensions header cannot carry.
    pub fn with_options(&self, options: CallOptions) -> Result<AgentConnection, Error> {
        let scope = CallScope::with_options(self.client().config(), &options)?;
        let inner = Inner {
            endpoint: self.endpoint().scoped(scope),
            losses: self.inner.losses.clone(),
            deviations: self.inner.deviations.clone(),
            public_card: self.inner.public_card.clone(),
            extended_card_error: self.inner.extended_card_error.as_ref().map(Error::duplicate),
        };
        Ok(Self { inner: Arc::new(inner) }.without_marked_extensions())
    }

    /// The extensions this connection's calls ask for: the client's
    /// ([`ClientBuilder::extension`](crate::ClientBuilder::extension)), then this view's
    /// ([`CallOptions::extension`]).
    pub fn requested_extensions(&self) -> &[String] {
        self.endpoint().scope.extensions()
    }

    /// The extensions the agent said it activated on the answers made through this connection (or
    /// this view of it) so far; clones share them. Empty when it named none, which is also what an
    /// agent that does not echo them gives. See [`crate::extensions`].
    pub fn activated_extensions(&self) -> ActivatedExtensions {
        self.endpoint().scope.activated.snapshot()
    }

    /// Fails, before anything is sent, when the card marks an extension required that this
    /// connection's calls do not ask for.
    pub(super) fn check_required_extensions(&self) -> Result<(), Error> {
        crate::extensions::missing_required(self.card().card(), self.requested_extensions())
    }

    /// This connection without the extensions it asks for that are marked suspect: the fallback
    /// of an extension the agent does not activate is to go on without it while the mark holds.
    /// One the card marks required is still asked for: the agent refuses calls without it (-32008)
    /// whether or not it activates it, and the mark already says not to rely on it.
    pub(super) fn without_marked_extensions(self) -> Self {
        let required = crate::extensions::required_uris(self.card().card());
        let required = |uri: &String| required.contains(uri.as_str());
        let dropped: Vec<String> = self
            .requested_extensions()
            .iter()
            .filter(|uri| !required(uri))
            .filter(|uri| self.held_mark(&SuspectClaim::Extension { uri: (*uri).clone() }).is_some())
            .cloned()
            .collect();
        if dropped.is_empty() {
            return self;
        }
        tracing::debug!(agent = %self.agent().as_str(), ?dropped, "extensions marked suspect are not asked for");
        let scope = self.endpoint().scope.without_extensions(&dropped);
        self.rescoped(scope)
    }

    /// This connection with its calls made within `scope` (the options of another view).
    pub(super) fn rescoped(&self, scope: CallScope) -> Self {
        let inner = Inner {
            endpoint: self.endpoint().scoped(scope),
            losses: self.inner.losses.clone(),
            deviations: self.inner.deviations.clone(),
            public_card: self.inner.public_card.clone(),
            extended_card_error: self.inner.extended_card_error.as_ref().map(Error::duplicate),
        };
        Self { inner: Arc::new(inner) }
    }

    /// Fills a request's unset `historyLength` from the call options.
    pub(super) fn fill_history_length(&self, history_length: &mut Option<i32>) {
        self.endpoint().scope.fill_history_length(history_length);
    }
}
