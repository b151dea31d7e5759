//! `a2a tasks list|get|cancel|subscribe URL [ID]`: an agent's tasks, read and followed with the raw
//! operations of a connection ([`AgentConnection`]); nothing here is a claim check.
//!
//! `list` pages through every task with
//! [`AgentConnection::list_all_tasks`](a2a_typestate_client::AgentConnection::list_all_tasks), each
//! page as one table (id, state, context) once it is read, or one JSON object per task as its page
//! arrives; `subscribe` shows each event as it arrives,
//! and follows a task the agent does not stream with
//! [`AgentConnection::follow_task`](a2a_typestate_client::AgentConnection::follow_task) instead.
//! Exit status ([`crate::exit`]): 0 done, 2 the agent answered with an error, could not be reached,
//! or the listing stopped early (the tasks read until then are shown).

use std::io::Write;
use std::process::ExitCode;

use a2a_typestate_client::{AgentConnection, Error};
use a2a_typestate_types::{
    CancelTaskRequest, ContextId, GetTaskRequest, ListTasksRequest, StreamResponse, SubscribeToTaskRequest,
    TaskId,
};
use futures::StreamExt;

use crate::cli::{AgentArgs, TaskArgs, TasksCommand, TasksListArgs};
use crate::exit::Exit;
use crate::style::{self, paint};
use crate::table::{Cell, MAX_ROWS, Table};
use crate::talk;
use a2a_typestate_client::text;

/// Runs one `a2a tasks` command.
pub async fn run(command: &TasksCommand, out: &mut dyn Write, err_out: &mut dyn Write) -> ExitCode {
    let (url, agent, json) = match command {
        TasksCommand::List(args) => (&args.url, &args.agent, args.json),
        TasksCommand::Get(args) | TasksCommand::Cancel(args) | TasksCommand::Subscribe(args) => {
            (&args.url, &args.agent, args.json)
        }
    };
    let connection = match open(url, agent, err_out).await {
        Ok(connection) => connection,
        Err(status) => return status.into(),
    };
    let result = match command {
        TasksCommand::List(args) => list(&connection, args, out).await,
        TasksCommand::Get(args) => get(&connection, args, out).await,
        TasksCommand::Cancel(args) => cancel(&connection, args, out).await,
        TasksCommand::Subscribe(args) => subscribe(&connection, args, out, err_out).await,
    };
    match result {
        Ok(()) => Exit::Done.into(),
        Err(e) => {
            if json {
                let _ = talk::json_error(out, &text::one_line(&e));
            }
            let _ = writeln!(err_out, "error: {}", text::describe(&e));
            Exit::NoResult.into()
        }
    }
}

/// The client the arguments describe and the connection to the agent at `url`.
async fn open(url: &str, agent: &AgentArgs, err_out: &mut dyn Write) -> Result<AgentConnection, Exit> {
    let client = talk::client(agent, url).map_err(|e| {
        let _ = writeln!(err_out, "error: {e}");
        Exit::NoResult
    })?;
    talk::connect(&client, url).await.map_err(|e| {
        let base = a2a_typestate_client::discovery::base_url_of(url);
        let _ = writeln!(
            err_out,
            "error: {}",
            a2a_typestate_client::text::card_fetch_error(base, &e, text::describe)
        );
        Exit::NoResult
    })
}

async fn list(connection: &AgentConnection, args: &TasksListArgs, out: &mut dyn Write) -> Result<(), Error> {
    let request = ListTasksRequest {
        page_size: Some(args.page_size),
        context_id: args.context_id.clone().map(ContextId::new),
        ..ListTasksRequest::default()
    };
    let mut pages = connection.list_all_tasks(request);
    if let Some(max_pages) = args.max_pages {
        pages = pages.max_pages(max_pages);
    }
    if let Some(limit) = args.limit {
        pages = pages.max_tasks(limit);
    }
    let mut count: u64 = 0;
    let mut failure = None;
    // For people, each page is one table, written once the page is read (its columns fit its own
    // tasks, so a page is not held back for the ones after it).
    let mut page = PageTable::default();
    while let Some(task) = pages.next().await {
        let task = match task {
            Ok(task) => task,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        count += 1;
        if args.json {
            let _ = talk::json_line(out, &serde_json::json!({ "type": "task", "task": task }));
        } else {
            page.add(out, pages.pages_read(), &task);
        }
    }
    page.flush(out);
    let (pages_read, total) = (pages.pages_read(), pages.total_size());
    if args.json {
        let summary = serde_json::json!({
            "type": "summary", "tasks": count, "pages": pages_read, "totalSize": total,
            "complete": failure.is_none(),
        });
        let _ = talk::json_line(out, &summary);
    } else {
        let total = total.map(|t| format!(", the agent counts {t}")).unwrap_or_default();
        let _ =
            writeln!(out, "{} {count} task(s) in {pages_read} page(s){total}", paint(style::DIM, "listed"));
    }
    failure.map_or(Ok(()), Err)
}

/// The tasks of the page being read, shown as one table.
#[derive(Default)]
struct PageTable {
    table: Option<Table>,
    rows: usize,
    page: u32,
}

impl PageTable {
    /// Adds `task`, read on page `page`: the table of the page before is written first.
    fn add(&mut self, out: &mut dyn Write, page: u32, task: &a2a_typestate_types::Task) {
        if page != self.page || self.rows == MAX_ROWS {
            self.flush(out);
        }
        self.page = page;
        let context = task.context_id.as_ref().map_or("-", |c| c.as_str());
        self.table.get_or_insert_with(|| Table::new(&["ID", "STATE", "CONTEXT"])).row([
            Cell::plain(task.id.as_str()),
            Cell::plain(task.state().word()),
            Cell::plain(context),
        ]);
        self.rows += 1;
    }

    /// Writes the table held, if any.
    fn flush(&mut self, out: &mut dyn Write) {
        if let Some(table) = self.table.take() {
            let _ = write!(out, "{}", table.render(0));
        }
        self.rows = 0;
    }
}

async fn get(connection: &AgentConnection, args: &TaskArgs, out: &mut dyn Write) -> Result<(), Error> {
    let task = connection.get_task(GetTaskRequest::new(TaskId::new(args.id.as_str()))).await?;
    write_task(out, args.json, &task)
}

async fn cancel(connection: &AgentConnection, args: &TaskArgs, out: &mut dyn Write) -> Result<(), Error> {
    let request = CancelTaskRequest { id: TaskId::new(args.id.as_str()), ..CancelTaskRequest::default() };
    let task = connection.cancel_task(request).await?;
    write_task(out, args.json, &task)
}

fn write_task(out: &mut dyn Write, json: bool, task: &a2a_typestate_types::Task) -> Result<(), Error> {
    if json {
        let _ = talk::json_line(out, task);
        return Ok(());
    }
    let _ = writeln!(out, "{}", talk::describe_task(task));
    if let Some(context) = &task.context_id {
        let _ = writeln!(out, "  context {}", text::message(context.as_str()));
    }
    for artifact in &task.artifacts {
        let _ = writeln!(out, "  {}", talk::describe_artifact(artifact));
    }
    let _ = writeln!(out, "  {} message(s) of history", task.history.len());
    Ok(())
}

async fn subscribe(
    connection: &AgentConnection,
    args: &TaskArgs,
    out: &mut dyn Write,
    err_out: &mut dyn Write,
) -> Result<(), Error> {
    let id = TaskId::new(args.id.as_str());
    // Written as each arrives; our own output failing (a closed pipe) does not stop the follow.
    let write = |out: &mut dyn Write, update: &StreamResponse| {
        let _ = if args.json {
            talk::json_line(out, &serde_json::json!({ "type": "update", "update": update }))
        } else {
            writeln!(out, "  {}", talk::describe_update(update))
        };
    };
    match connection.subscribe_to_task(SubscribeToTaskRequest { tenant: None, id: id.clone() }).await {
        Ok(mut events) => {
            while let Some(event) = events.next().await {
                write(out, &event?);
            }
            Ok(())
        }
        // Not streamed (the agent does not stream, or the task already ended): followed by polling.
        Err(e) if e.protocol_error().is_some_and(|p| p.is_unsupported_operation()) => {
            let said = text::one_line(&e);
            if !args.json {
                let _ = writeln!(
                    err_out,
                    "note: the agent does not stream this task ({said}); following it with GetTask"
                );
            }
            let mut states = connection.follow_task(&id);
            while let Some(task) = states.next().await {
                write(out, &StreamResponse::Task(task?));
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}
