//! The HTTP stacks a test's client can send through: the built-in hyper-util pool, and (feature
//! `reqwest`, on in this workspace's test runs) a user's reqwest client through `ReqwestService`.
//! A test that loops over [`HttpStack::each`] or [`each_stack`] runs its one body on every stack.
#![allow(dead_code)]

use std::fmt;

use a2a_typestate_client::{Client, ClientBuilder};

/// Which HTTP stack a client sends through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpStack {
    /// The built-in hyper-util pool.
    HyperUtil,
    /// A reqwest client of the user's, through the adapter.
    #[cfg(feature = "reqwest")]
    Reqwest,
}

impl HttpStack {
    /// Every stack, each announced on stderr as it is handed out, so that a failure's captured
    /// output says which stack it happened on.
    pub fn each() -> impl Iterator<Item = HttpStack> {
        let all = [
            HttpStack::HyperUtil,
            #[cfg(feature = "reqwest")]
            HttpStack::Reqwest,
        ];
        all.into_iter().inspect(|stack| eprintln!("-- over the {stack} stack"))
    }

    /// A client builder sending through this stack.
    pub fn builder(self) -> ClientBuilder {
        self.with(Client::builder())
    }

    /// `builder`, sending through this stack.
    pub fn with(self, builder: ClientBuilder) -> ClientBuilder {
        match self {
            HttpStack::HyperUtil => builder,
            #[cfg(feature = "reqwest")]
            HttpStack::Reqwest => {
                builder.http_service(a2a_typestate_client::net::ReqwestService::new(reqwest_client()))
            }
        }
    }
}

/// A reqwest client as the adapter's documentation asks for it: redirects left to the a2a client.
#[cfg(feature = "reqwest")]
pub fn reqwest_client() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

impl fmt::Display for HttpStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HttpStack::HyperUtil => "hyper-util",
            #[cfg(feature = "reqwest")]
            HttpStack::Reqwest => "reqwest adapter",
        })
    }
}

/// Each of `cases` on each stack (every case on the first stack, then every case on the next).
pub fn each_stack<T: Clone + fmt::Debug>(
    cases: impl IntoIterator<Item = T>,
) -> impl Iterator<Item = (HttpStack, T)> {
    let cases: Vec<T> = cases.into_iter().collect();
    HttpStack::each().flat_map(move |stack| cases.clone().into_iter().map(move |case| (stack, case)))
}
