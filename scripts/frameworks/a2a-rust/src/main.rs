//! The corpus agent on a2a-server-lf 0.5.3 (`a2a_server`, the a2aproject/a2a-rs server framework):
//! the smallest agent its helloworld example shows, an `AgentExecutor` answering every message with
//! one finished task, behind `DefaultRequestHandler` and an `InMemoryTaskStore`, JSON-RPC under
//! `/jsonrpc`, HTTP+JSON under `/rest`, the card at `/.well-known/agent-card.json`. The reply is
//! canned ("canned reply: " and the user's text): no model, no network. 127.0.0.1 only.
//!
//!   a2a-rust-agent --port PORT [--push]
//!
//! `--push` gives the handler an `InMemoryPushConfigStore` (`with_push_config_store`, which also
//! gives it the default `HttpPushSender`) and declares `pushNotifications: true` on the card.

use std::sync::Arc;

use a2a::{
    A2AError, AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Part, PartContent, Role,
    StreamResponse, TRANSPORT_PROTOCOL_HTTP_JSON, TRANSPORT_PROTOCOL_JSONRPC, Task, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use a2a_server::{
    AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryPushConfigStore, InMemoryTaskStore,
    StaticAgentCard,
};
use futures::stream::{self, BoxStream};

/// Answers with the text of the user's message behind a fixed prefix.
struct CannedExecutor;

fn user_text(message: Option<&Message>) -> String {
    let Some(message) = message else { return String::from("(no message)") };
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if texts.is_empty() { String::from("(no text)") } else { texts.join(" ") }
}

impl AgentExecutor for CannedExecutor {
    fn execute(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let reply = format!("canned reply: {}", user_text(ctx.message.as_ref()));
        let mut answer = Message::new(Role::Agent, vec![Part::text(reply)]);
        answer.task_id = Some(ctx.task_id.clone());
        answer.context_id = Some(ctx.context_id.clone());
        let task = Task {
            id: ctx.task_id,
            context_id: ctx.context_id,
            status: TaskStatus {
                state: TaskState::Completed,
                message: Some(answer),
                timestamp: Some(chrono::Utc::now()),
            },
            artifacts: None,
            history: None,
            metadata: None,
        };
        Box::pin(stream::iter([Ok(StreamResponse::Task(task))]))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let canceled = TaskStatusUpdateEvent {
            task_id: ctx.task_id,
            context_id: ctx.context_id,
            status: TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: Some(chrono::Utc::now()),
            },
            metadata: None,
        };
        Box::pin(stream::iter([Ok(StreamResponse::StatusUpdate(canceled))]))
    }
}

fn card(origin: &str, push: bool) -> AgentCard {
    AgentCard {
        name: String::from("Canned Agent"),
        description: String::from("Answers every message with a fixed reply (a2a-server-lf corpus agent)."),
        version: String::from("0.1.0"),
        supported_interfaces: vec![
            AgentInterface::new(format!("{origin}/jsonrpc"), TRANSPORT_PROTOCOL_JSONRPC),
            AgentInterface::new(format!("{origin}/rest"), TRANSPORT_PROTOCOL_HTTP_JSON),
        ],
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(push),
            extensions: None,
            extended_agent_card: None,
        },
        default_input_modes: vec![String::from("text/plain")],
        default_output_modes: vec![String::from("text/plain")],
        skills: vec![AgentSkill {
            id: String::from("canned"),
            name: String::from("Canned reply"),
            description: String::from("Replies with a fixed text."),
            tags: vec![String::from("canned")],
            examples: None,
            input_modes: None,
            output_modes: None,
            security_requirements: None,
        }],
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    }
}

fn usage() -> ! {
    eprintln!("usage: a2a-rust-agent --port PORT [--push]");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt().with_ansi(false).init();
    let mut port: Option<u16> = None;
    let mut push = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).or_else(|| usage()),
            "--push" => push = true,
            _ => usage(),
        }
    }
    let port = port.unwrap_or_else(|| usage());
    let origin = format!("http://127.0.0.1:{port}");

    let mut handler = DefaultRequestHandler::new(CannedExecutor, InMemoryTaskStore::new());
    if push {
        handler = handler.with_push_config_store(InMemoryPushConfigStore::new());
    }
    let handler = Arc::new(handler);
    let app = axum::Router::new()
        .nest("/jsonrpc", a2a_server::jsonrpc::jsonrpc_router(handler.clone()))
        .nest("/rest", a2a_server::rest::rest_router(handler))
        .merge(a2a_server::agent_card::agent_card_router(Arc::new(StaticAgentCard::new(card(
            &origin, push,
        )))));

    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("a2a-rust-agent: cannot listen on 127.0.0.1:{port}: {e}");
            std::process::exit(1);
        }
    };
    tracing::info!("a2a-rust agent on {origin} (card {origin}/.well-known/agent-card.json, push {push})");
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("a2a-rust-agent: {e}");
        std::process::exit(1);
    }
}
