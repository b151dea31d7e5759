//! TLS and HTTP settings: mutual TLS with generated certificates, custom roots, a proxy, an HTTP
//! client brought from elsewhere, and interceptors around each request.

mod auth_common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_testkit::{Binding, Guard, RunningAgent, ScriptedAgent, TestPki};
use a2a_typestate_client::auth::{
    BearerToken, ClientIdentity, Credentials, Interceptor, RequestContext, ResponseInfo, Secret,
};
use a2a_typestate_client::net::{Certificate, Proxy};
use a2a_typestate_client::{ErrorKind, RetryPolicy};
use a2a_typestate_types::discovery::ProtocolBinding;
use futures::future::BoxFuture;

use auth_common::*;

async fn mtls_agent(pki: &TestPki) -> RunningAgent {
    ScriptedAgent::builder().guard(Guard::MutualTls).tls(pki.clone()).spawn().await.unwrap()
}

#[tokio::test]
async fn mutual_tls_authenticates_with_a_client_certificate_of_the_agents_ca() {
    let pki = TestPki::generate().unwrap();
    let agent = mtls_agent(&pki).await;
    assert!(agent.base_url().starts_with("https://127.0.0.1:"));
    let root = Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let client = builder()
        .add_root_certificate(root)
        .client_identity(ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
}

#[tokio::test]
async fn mutual_tls_without_a_client_identity_fails_at_connect_and_a_foreign_one_never_gets_through() {
    let pki = TestPki::generate().unwrap();
    let agent = mtls_agent(&pki).await;
    let root = || Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    // The TLS server asks every connection for a certificate, so without one even discovery
    // fails; with the card cached by a client that has one, connect itself names the mtls scheme.
    let shared_cache =
        a2a_typestate_client::DiscoveryCache::new(Duration::from_secs(60), Duration::from_secs(60));
    let with_identity = builder()
        .add_root_certificate(root())
        .client_identity(ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap())
        .discovery_cache(shared_cache.clone())
        .build()
        .unwrap();
    with_identity.discover(&agent.base_url()).await.unwrap();
    let without = builder().add_root_certificate(root()).discovery_cache(shared_cache).build().unwrap();
    let err = without.connect(&agent.base_url()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Auth);
    assert!(err.to_string().contains("mtls (mutual tls)"), "{err}");

    let seen = agent.requests().len();
    let foreign = builder()
        .retry_policy(RetryPolicy::no_retry())
        .add_root_certificate(root())
        .client_identity(ClientIdentity::from_pem(pki.untrusted_client_identity_pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    assert!(foreign.discover(&agent.base_url()).await.is_err());
    assert_eq!(agent.requests().len(), seen, "no request passed the handshake with a foreign certificate");
}

#[tokio::test]
async fn grpc_over_tls_is_checked_with_the_added_root_and_presents_the_client_identity() {
    let pki = TestPki::generate().unwrap();
    let agent = ScriptedAgent::builder()
        .guard(Guard::MutualTls)
        .tls(pki.clone())
        .bindings([Binding::Grpc])
        .spawn()
        .await
        .unwrap();
    let root = || Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let identity = || ClientIdentity::from_pem(pki.client_identity_pem.as_bytes()).unwrap();
    let client = builder().add_root_certificate(root()).client_identity(identity()).build().unwrap();
    let connection = client.connect(&agent.base_url()).await.unwrap();
    assert_eq!(connection.interface().binding, ProtocolBinding::Grpc);
    completes(&connection).await;
    assert_eq!(agent.requests_for("SendMessage")[0].path, "/lf.a2a.v1.A2AService/SendMessage");

    // The card cached, a client that trusts only other roots never gets a call through.
    let cache = a2a_typestate_client::DiscoveryCache::new(Duration::from_secs(60), Duration::from_secs(60));
    let sharing =
        builder().add_root_certificate(root()).client_identity(identity()).discovery_cache(cache.clone());
    sharing.build().unwrap().discover(&agent.base_url()).await.unwrap();
    let untrusting = builder()
        .retry_policy(RetryPolicy::no_retry())
        .only_added_root_certificates()
        .client_identity(identity())
        .discovery_cache(cache)
        .build()
        .unwrap();
    let seen = agent.requests_for("SendMessage").len();
    let connection = untrusting.connect(&agent.base_url()).await.unwrap();
    assert!(connection.send_message(text("hi")).await.is_err());
    assert_eq!(agent.requests_for("SendMessage").len(), seen);
}

#[tokio::test]
async fn an_agent_over_https_is_reached_with_a_custom_root_and_refused_without_it() {
    let pki = TestPki::generate().unwrap();
    let agent = ScriptedAgent::builder().tls(pki.clone()).spawn().await.unwrap();
    let root = Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let trusting = builder().add_root_certificate(root).build().unwrap();
    completes(&trusting.connect(&agent.base_url()).await.unwrap()).await;
    let err =
        builder().retry_policy(RetryPolicy::no_retry()).build().unwrap().discover(&agent.base_url()).await;
    assert!(err.is_err(), "an unknown CA is not trusted");
}

#[tokio::test]
async fn trusting_only_added_roots_with_none_added_refuses_https_with_a_clear_reason() {
    let pki = TestPki::generate().unwrap();
    let agent = ScriptedAgent::builder().tls(pki.clone()).spawn().await.unwrap();
    let client =
        builder().retry_policy(RetryPolicy::no_retry()).only_added_root_certificates().build().unwrap();
    let err = client.discover(&agent.base_url()).await.unwrap_err();
    let mut chain = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        chain.push_str(&format!(" | {cause}"));
        source = cause.source();
    }
    assert!(chain.contains("no root certificate to verify the agent with"), "{chain}");
    assert!(agent.requests().is_empty());
}

#[tokio::test]
async fn a_shared_http_client_is_used_and_cannot_be_combined_with_tls_settings() {
    let agent = guarded(Guard::bearer("tok-own")).await;
    let first = builder().default_header("X-Stack", Secret::new("first")).build().unwrap();
    let own = first.http_client().clone();
    let client = builder()
        .http_client(own.clone())
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-own"))))
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.header("x-stack"), Some("first"), "the shared stack's own headers are sent");
    let err = builder().http_client(own.clone()).no_proxy().build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    let err = builder().http_client(own).only_added_root_certificates().build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
}

#[tokio::test]
async fn a_configured_proxy_carries_every_request() {
    // The "proxy" is a second agent: it answers what it is sent, so the target never sees a request.
    let target = ScriptedAgent::builder().spawn().await.unwrap();
    let proxy = ScriptedAgent::builder().spawn().await.unwrap();
    let client = builder().proxy(Proxy::http(&proxy.base_url()).unwrap()).build().unwrap();
    client.discover(&target.base_url()).await.unwrap();
    assert!(target.requests().is_empty(), "the target was reached directly");
    let through = proxy.requests();
    assert_eq!(through.len(), 1);
    assert_eq!(through[0].path, "/.well-known/agent-card.json");
    assert_eq!(through[0].header("host"), Some(target.addr().to_string().as_str()));
}

#[tokio::test]
async fn a_proxy_with_user_info_is_sent_proxy_authorization_on_plain_http() {
    let target = ScriptedAgent::builder().spawn().await.unwrap();
    let proxy = ScriptedAgent::builder().spawn().await.unwrap();
    let via = format!("http://proxy-user:proxy-pass@{}", proxy.addr());
    let client = builder().proxy(Proxy::all(&via).unwrap()).build().unwrap();
    client.discover(&target.base_url()).await.unwrap();
    let through = proxy.requests();
    assert_eq!(through.len(), 1);
    // base64("proxy-user:proxy-pass")
    assert_eq!(through[0].header("proxy-authorization"), Some("Basic cHJveHktdXNlcjpwcm94eS1wYXNz"));
    assert!(target.requests().is_empty());
}

/// A `CONNECT` proxy: records each request head, then joins the client to the target it names.
async fn tunnel_proxy() -> (std::net::SocketAddr, Arc<Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && client.read_exact(&mut byte).await.is_ok() {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                seen.lock().unwrap().push(head.clone());
                let Some(target) = head.strip_prefix("CONNECT ").and_then(|rest| rest.split(' ').next())
                else {
                    return;
                };
                let Ok(mut upstream) = tokio::net::TcpStream::connect(target).await else { return };
                if client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
            });
        }
    });
    (addr, heads)
}

#[tokio::test]
async fn https_through_a_proxy_runs_in_a_connect_tunnel_verified_end_to_end() {
    let pki = TestPki::generate().unwrap();
    let agent = ScriptedAgent::builder().tls(pki.clone()).spawn().await.unwrap();
    let (proxy, heads) = tunnel_proxy().await;
    let root = || Certificate::from_pem(pki.ca_pem.as_bytes()).unwrap();
    let via = format!("http://tunnel:secret@{proxy}");
    let client = builder().add_root_certificate(root()).proxy(Proxy::https(&via).unwrap()).build().unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    let heads = heads.lock().unwrap().clone();
    assert!(!heads.is_empty());
    let target = agent.addr().to_string();
    for head in &heads {
        assert!(head.starts_with(&format!("CONNECT {target} HTTP/1.1")), "{head}");
        let auth = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("proxy-authorization").then(|| value.trim().to_owned())
        });
        // base64("tunnel:secret")
        assert_eq!(auth.as_deref(), Some("Basic dHVubmVsOnNlY3JldA=="), "{head}");
    }
    // Without the agent's root the tunnel opens but the handshake through it is refused.
    let untrusting =
        builder().retry_policy(RetryPolicy::no_retry()).proxy(Proxy::https(&via).unwrap()).build().unwrap();
    assert!(untrusting.discover(&agent.base_url()).await.is_err());
}

#[derive(Debug, Default)]
struct Recorder {
    seen: Mutex<Vec<(u32, Option<u16>, bool)>>,
    before: AtomicU32,
}

impl Interceptor for Recorder {
    fn before<'a>(
        &'a self,
        request: &'a mut a2a_typestate_client::net::Request,
        context: &'a RequestContext<'a>,
    ) -> BoxFuture<'a, Result<(), a2a_typestate_client::Error>> {
        self.before.fetch_add(1, Ordering::Relaxed);
        let credentials_attached = request.headers().contains_key("authorization");
        request.headers_mut().insert(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".parse().unwrap(),
        );
        request
            .headers_mut()
            .insert("x-saw-auth", if credentials_attached { "yes" } else { "no" }.parse().unwrap());
        let _ = context.agent();
        Box::pin(async { Ok(()) })
    }

    fn after(&self, response: &ResponseInfo<'_>) {
        assert!(!response.url().contains('?'));
        self.seen.lock().unwrap().push((
            response.attempt(),
            response.status(),
            response.elapsed() > Duration::ZERO,
        ));
    }
}

#[tokio::test]
async fn interceptors_run_after_the_auth_layer_and_see_status_and_timing() {
    let agent = guarded(Guard::bearer("tok-i")).await;
    let recorder = Arc::new(Recorder::default());
    #[derive(Debug)]
    struct Shared(Arc<Recorder>);
    impl Interceptor for Shared {
        fn before<'a>(
            &'a self,
            request: &'a mut a2a_typestate_client::net::Request,
            context: &'a RequestContext<'a>,
        ) -> BoxFuture<'a, Result<(), a2a_typestate_client::Error>> {
            self.0.before(request, context)
        }
        fn after(&self, response: &ResponseInfo<'_>) {
            self.0.after(response);
        }
    }
    let client = builder()
        .credentials(Credentials::new().with(BearerToken::new(Secret::new("tok-i"))))
        .interceptor(Shared(recorder.clone()))
        .default_header("X-Team", Secret::new("blue"))
        .build()
        .unwrap();
    completes(&client.connect(&agent.base_url()).await.unwrap()).await;
    let sent = &agent.requests_for("SendMessage")[0];
    assert_eq!(sent.header("x-saw-auth"), Some("yes"), "the auth layer ran first");
    assert!(sent.header("traceparent").is_some());
    assert_eq!(sent.header("x-team"), Some("blue"), "default headers reach every request");
    assert_eq!(*recorder.seen.lock().unwrap(), vec![(1, Some(200), true)]);
}
