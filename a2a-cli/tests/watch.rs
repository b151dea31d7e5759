//! `a2a watch` end to end: a watch over scripted agents, one of them flipped from honest to lying
//! while it runs, read through `/metrics` and through the page in headless Chromium (Debian's
//! `chromium` and `chromium-driver`, installed by scripts/chromium/install.sh on first use).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use a2a_typestate::Deployment;
use a2a_typestate_cli::watch::{Retention, Watch, WatchOptions};
use a2a_typestate_client::audit::AuditOptions;
use common::browser::Browser;
use common::{a2a, flippable, stderr};
use serde_json::json;

/// A card name that would script the page if any of it were written as markup.
const HOSTILE_NAME: &str =
    "<script>document.title='pwned'</script>\"'><img src=x onerror=\"document.title='pwned'\"></td>";

/// The longest any wait in these tests lasts.
const PATIENCE: Duration = Duration::from_secs(120);

fn options(interval: Duration, store: Option<std::path::PathBuf>) -> WatchOptions {
    WatchOptions {
        interval,
        jitter: Duration::from_millis(200),
        card_check: Duration::from_millis(500),
        min_interval: Duration::from_millis(500),
        concurrency: 4,
        audit_timeout: Duration::from_secs(60),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        allowed_hosts: Vec::new(),
        store,
        retention: Retention { keep: 50, max_age: Duration::from_secs(3600) },
        redis: None,
        audit: AuditOptions { push_arrival_bound: Duration::from_secs(1), ..AuditOptions::default() },
        credentials: Default::default(),
    }
}

async fn get(url: &str, token: Option<&str>) -> reqwest::Response {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut request = http.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn metrics(watch: &Watch) -> String {
    get(&format!("{}metrics", watch.url()), None).await.text().await.unwrap()
}

/// The value of the sample whose name and labels start with `prefix`.
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines().find(|l| l.starts_with(prefix)).and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// Polls `/metrics` until `prefix`'s sample is at least `value`; returns the exposition then.
async fn metrics_until(watch: &Watch, prefix: &str, value: f64) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let text = metrics(watch).await;
        if sample(&text, prefix).is_some_and(|v| v >= value) {
            return text;
        }
        assert!(tokio::time::Instant::now() < deadline, "{prefix} never became {value}:\n{text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The verdict text shown for `claim` in the row of agent `row`.
fn cell(row: usize, claim: &str) -> String {
    format!(
        "var c=document.querySelector('tr[data-agent=\"{row}\"] td[data-claim=\"{claim}\"] .v');return c?c.textContent:null;"
    )
}

/// A streaming agent behind one URL (`front`) that is honest until `lying` is set and refuses
/// streaming while it is (its card's ETag changes with it), and an honest neighbour whose card name
/// is hostile.
struct Flipping {
    front: String,
    lying: Arc<AtomicBool>,
    hostile: a2a_testkit::RunningAgent,
    /// The honest and the lying deployment: bound for as long as the test runs.
    _deployments: [a2a_testkit::RunningAgent; 2],
}

async fn flipping(name: &str) -> Flipping {
    let streaming = || Capabilities::none().with_streaming();
    let honest = ScriptedAgent::builder().name(name).capabilities(streaming()).spawn().await.unwrap();
    let liar = ScriptedAgent::builder()
        .name(name)
        .capabilities(streaming())
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let lying = Arc::new(AtomicBool::new(false));
    let front = flippable(&honest, &liar, Arc::clone(&lying), true).await;
    let hostile =
        ScriptedAgent::builder().name(HOSTILE_NAME).capabilities(streaming()).spawn().await.unwrap();
    Flipping { front, lying, hostile, _deployments: [honest, liar] }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_flipped_to_lying_is_shown_refused_on_the_page_and_in_metrics_within_one_interval() {
    let Flipping { front, lying, hostile, _deployments } = flipping("flipper").await;
    let dir = std::env::temp_dir().join(format!("a2a-watch-flip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let agents = vec![(front.clone(), Deployment::Direct), (hostile.base_url(), Deployment::Direct)];
    let interval = Duration::from_secs(3);
    let watch = Watch::start(agents, options(interval, Some(dir.join("history.redb")))).await.unwrap();

    let verified = format!(
        "a2a_watch_claim_verdict{{agent=\"flipper\",url=\"{front}\",claim=\"streaming\",verdict=\"verified\"}}"
    );
    let refused = format!(
        "a2a_watch_claim_verdict{{agent=\"flipper\",url=\"{front}\",claim=\"streaming\",verdict=\"refused\"}}"
    );
    let audits = format!("a2a_watch_audits_total{{agent=\"flipper\",url=\"{front}\"}}");
    metrics_until(&watch, &verified, 1.0).await;

    let browser = Browser::start().await;
    browser.goto(&watch.url()).await;
    browser.until(&cell(0, "streaming"), &json!("verified")).await;
    browser.until("return document.getElementById('live').textContent;", &json!("live")).await;

    let before = sample(&metrics(&watch).await, &audits).unwrap();
    lying.store(true, Ordering::SeqCst);
    let after = metrics_until(&watch, &refused, 1.0).await;
    // Within one interval: at most the audit under way at the flip and the next one ran before the
    // refusal showed (the flip also changed the card's ETag, which asks for an audit at once).
    let ran = sample(&after, &audits).unwrap() - before;
    assert!(ran <= 2.0, "{ran} audits ran before the refusal showed:\n{after}");
    assert_eq!(sample(&after, &verified), Some(0.0), "{after}");
    assert_eq!(
        sample(&after, &format!("a2a_watch_marks_active{{agent=\"flipper\",url=\"{front}\"}}")),
        Some(1.0)
    );

    // The open page changed by itself (server-sent events), without a reload.
    browser.until(&cell(0, "streaming"), &json!("refused")).await;
    browser
        .until("return document.getElementById('refused').textContent;", &json!("1 claim(s) refused"))
        .await;
    // The hostile name is text: no element of its own, no script run, shown as written.
    assert_eq!(browser.eval("return document.title;").await, json!("a2a watch"));
    assert_eq!(browser.eval("return document.querySelectorAll('img').length;").await, json!(0));
    assert_eq!(browser.eval("return document.querySelectorAll('script').length;").await, json!(1));
    let shown = browser.eval("return document.querySelector('tr[data-agent=\"1\"] a').textContent;").await;
    assert_eq!(shown, json!(HOSTILE_NAME));
    // The pictures in the docs come from here (docs/images/watch.png, watch-agent.png).
    if let Ok(path) = std::env::var("A2A_WATCH_SCREENSHOT") {
        std::fs::write(path, browser.screenshot().await).unwrap();
    }

    // The agent's timeline holds the refusal's evidence, from the probe's own timeline.
    browser.goto(&format!("{}agent?url={}", watch.url(), front)).await;
    let timeline = browser.eval("return document.getElementById('timeline').textContent;").await;
    let timeline = timeline.as_str().unwrap_or_default();
    assert!(timeline.contains("evidence of the refusal"), "{timeline}");
    assert!(timeline.contains("refuses streaming"), "{timeline}");
    assert!(timeline.contains("card changed"), "{timeline}");
    if let Ok(path) = std::env::var("A2A_WATCH_SCREENSHOT_AGENT") {
        std::fs::write(path, browser.screenshot().await).unwrap();
    }
    browser.goto(&format!("{}agent?url={}", watch.url(), hostile.base_url())).await;
    assert_eq!(browser.eval("return document.querySelector('h1').textContent;").await, json!(HOSTILE_NAME));
    assert_eq!(browser.eval("return document.querySelectorAll('img').length;").await, json!(0));
    // The title is the name as text too (a script that ran would have replaced it).
    assert_eq!(browser.eval("return document.title;").await, json!(format!("{HOSTILE_NAME} - a2a watch")));
    browser.quit().await;
    watch.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bands of `claim`'s strip in the row of agent `row` on the fleet page: `[class, from, to]`.
fn strip_bands(row: usize, claim: &str) -> String {
    format!(
        "return Array.from(document.querySelectorAll('tr[data-agent=\"{row}\"] svg.strip[data-claim=\"{claim}\"] rect'))\
.map(function(r){{return [r.getAttribute('class'), Number(r.dataset.from), Number(r.dataset.to)];}});"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_that_flipped_twice_shows_both_flips_on_its_strip_at_the_audits_times() {
    let Flipping { front, lying, hostile, _deployments } = flipping("twice").await;
    // The flipping agent listed second, so that ordering by the time refused has to move it.
    let agents = vec![(hostile.base_url(), Deployment::Direct), (front.clone(), Deployment::Direct)];
    let watch = Watch::start(agents, options(Duration::from_secs(2), None)).await.unwrap();
    let gauge = |verdict: &str| {
        format!(
            "a2a_watch_claim_verdict{{agent=\"twice\",url=\"{front}\",claim=\"streaming\",verdict=\"{verdict}\"}}"
        )
    };
    metrics_until(&watch, &gauge("verified"), 1.0).await;
    lying.store(true, Ordering::SeqCst);
    metrics_until(&watch, &gauge("refused"), 1.0).await;
    lying.store(false, Ordering::SeqCst);
    metrics_until(&watch, &gauge("verified"), 1.0).await;

    // The audits' times as the agent's timeline lists them, oldest first, with what each said.
    let browser = Browser::start().await;
    browser.goto(&format!("{}agent?url={}", watch.url(), front)).await;
    let audits = browser
        .eval(
            "return Array.from(document.querySelectorAll('#timeline li')).filter(function(li){\
return li.textContent.indexOf(' audit (') >= 0;}).map(function(li){\
var v=li.querySelector('.v[data-claim=\"streaming\"]');return [Number(li.dataset.at), v ? v.textContent : null];}).reverse();",
        )
        .await;
    let audits: Vec<(u64, String)> = serde_json::from_value(audits).unwrap();
    let first_refused = audits.iter().find(|(_, v)| v == "refused").map(|(at, _)| *at).unwrap();
    let back =
        audits.iter().find(|(at, v)| *at > first_refused && v == "verified").map(|(at, _)| *at).unwrap();

    browser.goto(&watch.url()).await;
    let bands: Vec<(String, u64, u64)> =
        serde_json::from_value(browser.eval(&strip_bands(1, "streaming")).await).unwrap();
    let refused: Vec<&(String, u64, u64)> = bands.iter().filter(|(class, ..)| class == "s-refused").collect();
    assert_eq!(refused.len(), 1, "one refused stretch between the two flips: {bands:?}");
    assert_eq!(
        (refused[0].1, refused[0].2),
        (first_refused, back),
        "{bands:?} against the timeline {audits:?}"
    );
    let at = bands.iter().position(|(class, ..)| class == "s-refused").unwrap();
    assert_eq!(bands[at - 1].0, "s-verified", "verified before the first flip: {bands:?}");
    assert_eq!(bands[at + 1].0, "s-verified", "verified again after the second: {bands:?}");
    // The card changed at each flip (the ETag of the other deployment): a tick on the strip each time.
    let ticks = browser
        .eval(
            "return document.querySelectorAll('tr[data-agent=\"1\"] svg.strip[data-claim=\"streaming\"] line.card-change').length;",
        )
        .await;
    assert_eq!(ticks, json!(2), "{bands:?}");
    // Ordered by the time refused, the flipped agent leads; its hostile neighbour's name is text.
    browser.goto(&format!("{}?sort=lies", watch.url())).await;
    assert_eq!(
        browser.eval("return document.querySelector('#fleet tr[data-agent]').dataset.agent;").await,
        json!("1")
    );
    let shown = browser.eval("return document.querySelector('tr[data-agent=\"0\"] a').textContent;").await;
    assert_eq!(shown, json!(HOSTILE_NAME));
    assert_eq!(browser.eval("return document.querySelectorAll('script').length;").await, json!(1));
    // The pictures in the docs come from here when asked for.
    if let Ok(path) = std::env::var("A2A_WATCH_SCREENSHOT_STRIPS") {
        std::fs::write(path, browser.screenshot().await).unwrap();
    }
    browser.quit().await;
    watch.stop().await;
}

#[tokio::test]
async fn a_token_is_asked_for_every_path_when_one_is_set() {
    let agent = ScriptedAgent::builder().name("guarded").spawn().await.unwrap();
    let mut options = options(Duration::from_secs(60), None);
    options.token = Some("s3cret".into());
    let watch = Watch::start(vec![(agent.base_url(), Deployment::Direct)], options).await.unwrap();
    for path in ["", "metrics", "events", "agent?url=x"] {
        let url = format!("{}{path}", watch.url());
        assert_eq!(get(&url, None).await.status(), 401, "{url}");
        assert_eq!(get(&url, Some("wrong")).await.status(), 401, "{url}");
    }
    assert_eq!(get(&format!("{}metrics", watch.url()), Some("s3cret")).await.status(), 200);
    assert_eq!(get(&format!("{}?token=s3cret", watch.url()), None).await.status(), 200);
    watch.stop().await;
}

#[tokio::test]
async fn a_watch_bound_beyond_loopback_without_a_token_refuses_to_start() {
    let output = a2a(&[
        "watch",
        "--listen",
        "0.0.0.0:0",
        "--store",
        "/nonexistent/never-opened",
        "http://127.0.0.1:9",
    ])
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not a loopback address: give a token (--token-env NAME)"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn a_stuck_agent_is_abandoned_at_the_audit_timeout_while_the_others_go_on() {
    // A port that accepts and never answers.
    let stuck = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stuck_url = format!("http://{}", stuck.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = stuck.accept().await {
            held.push(socket);
        }
    });
    let fine = ScriptedAgent::builder().name("fine").spawn().await.unwrap();
    let mut options = options(Duration::from_secs(2), None);
    options.concurrency = 1;
    options.audit_timeout = Duration::from_secs(1);
    let agents = vec![(stuck_url.clone(), Deployment::Direct), (fine.base_url(), Deployment::Direct)];
    let watch = Watch::start(agents, options).await.unwrap();
    // With one audit at a time, the healthy agent is audited again and again while the stuck one's
    // audits are cut off at the timeout.
    let fine_audits = format!("a2a_watch_audits_total{{agent=\"fine\",url=\"{}\"}}", fine.base_url());
    metrics_until(&watch, &fine_audits, 2.0).await;
    let text = metrics_until(
        &watch,
        &format!(
            "a2a_watch_audit_errors_total{{agent=\"{stuck_url}\",url=\"{stuck_url}\",kind=\"timeout\"}}"
        ),
        1.0,
    )
    .await;
    assert!(text.contains("a2a_watch_audit_duration_seconds_count"), "{text}");
    watch.stop().await;
}

#[tokio::test]
async fn a_mark_replicas_share_through_redis_is_shown_on_the_agent_page_and_in_metrics() {
    use a2a_typestate_client::shared::redis::RedisBackend;
    use a2a_typestate_client::{AgentBaseUrl, Capability, Client, DiscoveryCache};
    // An empty variable means unset, as in a shell's `${A2A_TEST_REDIS_URL:-}`.
    let Some(url) = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty()) else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must set A2A_TEST_REDIS_URL");
        eprintln!("skipped: A2A_TEST_REDIS_URL names no redis-server");
        return;
    };
    let prefix = format!("a2a-watch-test-{}", std::process::id());
    let agent = ScriptedAgent::builder().name("marked").spawn().await.unwrap();
    let backend = RedisBackend::builder(url.clone()).key_prefix(prefix.clone()).build().unwrap();
    let cache = DiscoveryCache::new(Duration::from_secs(300), Duration::from_secs(300))
        .with_backend(backend)
        .unwrap();
    let replica = Client::builder().replica_name("replica-a").discovery_cache(cache).build().unwrap();
    let base = AgentBaseUrl::parse(&agent.base_url()).unwrap();
    replica.discovery_cache().mark_suspect(&base, Capability::Streaming, "the stream answered -32004");

    let mut options = options(Duration::from_secs(60), None);
    options.redis = Some((url, prefix));
    let watch = Watch::start(vec![(agent.base_url(), Deployment::Direct)], options).await.unwrap();
    let shared = format!("a2a_watch_shared_marks_active{{agent=\"marked\",url=\"{}\"}}", agent.base_url());
    metrics_until(&watch, &shared, 1.0).await;
    let page =
        get(&format!("{}agent?url={}", watch.url(), agent.base_url()), None).await.text().await.unwrap();
    assert!(page.contains("Marks the replicas hold"), "{page}");
    assert!(page.contains("the stream answered -32004"), "{page}");
    assert!(page.contains("replica-a"), "{page}");
    watch.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_breaker_and_a_takeover_the_replicas_share_through_redis_are_shown_and_neither_is_a_mark() {
    use a2a_testkit::{Fault, Times};
    use a2a_typestate_client::journal::Journal;
    use a2a_typestate_client::negotiate::Negotiation;
    use a2a_typestate_client::shared::redis::RedisBackend;
    use a2a_typestate_client::{Breaker, Client, DiscoveryCache, Message, RetryPolicy};
    // An empty variable means unset, as in a shell's `${A2A_TEST_REDIS_URL:-}`.
    let Some(url) = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty()) else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must set A2A_TEST_REDIS_URL");
        eprintln!("skipped: A2A_TEST_REDIS_URL names no redis-server");
        return;
    };
    let prefix = format!("a2a-watch-breaker-{}", std::process::id());
    // Down for its first three operations; the card stays readable.
    let agent = ScriptedAgent::builder()
        .name("down")
        .script(
            Script::honest()
                .step_delay(Duration::from_millis(200))
                .with_fault(Fault::ServiceUnavailable(Times::First(3))),
        )
        .spawn()
        .await
        .unwrap();
    let replica = |name: &str, lease: Duration| {
        let backend = RedisBackend::builder(url.clone()).key_prefix(prefix.clone()).build().unwrap();
        let cache = DiscoveryCache::default().with_backend(backend).unwrap();
        let journal =
            Journal::redis(url.clone()).key_prefix(prefix.clone()).replica_lease(lease).build().unwrap();
        Client::builder()
            .replica_name(name)
            .discovery_cache(cache)
            .journal(journal)
            .retry_policy(RetryPolicy::no_retry())
            .availability_breaker(Breaker::after(3).cool_down(Duration::from_secs(60)))
            .build()
            .unwrap()
    };
    let lease = Duration::from_millis(300);
    let opener = replica("replica-a", lease);
    for _ in 0..3 {
        opener
            .run_task(&agent.base_url(), Message::user("hello"), &Negotiation::default())
            .await
            .unwrap_err();
    }
    // A replica dies with a task in flight (to an agent of its own, so the breaker does not stand
    // in the way); another takes it over once its lease ran out.
    let slow = ScriptedAgent::builder()
        .script(Script::honest().step_delay(Duration::from_millis(300)))
        .spawn()
        .await
        .unwrap();
    let dying = replica("replica-b", lease);
    let run = {
        let (dying, url) = (dying.clone(), slow.base_url());
        tokio::spawn(async move { dying.run_task(&url, Message::user("hi"), &Negotiation::default()).await })
    };
    while slow.executions() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    run.abort();
    drop(dying);
    tokio::time::sleep(lease + Duration::from_millis(200)).await;
    assert_eq!(opener.take_over().await.unwrap().len(), 1);

    let mut options = options(Duration::from_secs(60), None);
    options.redis = Some((url, prefix));
    let watch = Watch::start(vec![(agent.base_url(), Deployment::Direct)], options).await.unwrap();
    let held = format!("a2a_watch_shared_unavailable{{agent=\"down\",url=\"{}\"}}", agent.base_url());
    metrics_until(&watch, &held, 1.0).await;
    let marks = format!("a2a_watch_shared_marks_active{{agent=\"down\",url=\"{}\"}}", agent.base_url());
    assert_eq!(sample(&metrics(&watch).await, &marks), Some(0.0), "a breaker is never a mark");
    let page =
        get(&format!("{}agent?url={}", watch.url(), agent.base_url()), None).await.text().await.unwrap();
    assert!(page.contains("Held unavailable by the replicas"), "{page}");
    assert!(page.contains("3 tasks in a row reached nothing on replica-a"), "{page}");
    assert!(!page.contains("Marks the replicas hold"), "{page}");
    let fleet = get(&watch.url(), None).await.text().await.unwrap();
    assert!(fleet.contains("Replicas (Redis journal)"), "{fleet}");
    assert!(fleet.contains("<td>replica-a</td><td>replica-b (its lease ran out)</td><td>1</td>"), "{fleet}");
    watch.stop().await;
    slow.shutdown().await;
}

#[tokio::test]
async fn an_agent_is_never_audited_twice_within_the_minimum_interval_however_short_the_schedule() {
    let agent = ScriptedAgent::builder().name("rested").spawn().await.unwrap();
    let mut options = options(Duration::from_millis(50), None);
    options.jitter = Duration::ZERO;
    options.min_interval = Duration::from_secs(3);
    let watch = Watch::start(vec![(agent.base_url(), Deployment::Direct)], options).await.unwrap();
    let audits = format!("a2a_watch_audits_total{{agent=\"rested\",url=\"{}\"}}", agent.base_url());
    metrics_until(&watch, &audits, 1.0).await;
    let first = tokio::time::Instant::now();
    // The schedule asks every 50 ms; for the next two seconds the minimum interval must hold it back
    // (a slow machine can only make fewer audits, never more).
    while first.elapsed() < Duration::from_secs(2) {
        assert_eq!(sample(&metrics(&watch).await, &audits), Some(1.0), "audited again within 3 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // And the agent is audited again once it has rested.
    metrics_until(&watch, &audits, 2.0).await;
    watch.stop().await;
}

#[tokio::test]
async fn a_card_whose_body_alone_changed_is_audited_again_before_the_interval() {
    let before = ScriptedAgent::builder().name("before").spawn().await.unwrap();
    let after = ScriptedAgent::builder().name("after").spawn().await.unwrap();
    let changed = Arc::new(AtomicBool::new(false));
    // No ETag: the change is seen in the body only.
    let front = flippable(&before, &after, Arc::clone(&changed), false).await;
    // An hour between scheduled audits: a second audit within the test can only come from the change.
    let watch =
        Watch::start(vec![(front.clone(), Deployment::Direct)], options(Duration::from_secs(3600), None))
            .await
            .unwrap();
    metrics_until(&watch, &format!("a2a_watch_audits_total{{agent=\"before\",url=\"{front}\"}}"), 1.0).await;
    // The card's first read is the baseline the change is measured against.
    let page = format!("{}agent?url={front}", watch.url());
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !get(&page, None).await.text().await.unwrap().contains("card first read") {
        assert!(tokio::time::Instant::now() < deadline, "the card was never read after the audit");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    changed.store(true, Ordering::SeqCst);
    let text =
        metrics_until(&watch, &format!("a2a_watch_audits_total{{agent=\"after\",url=\"{front}\"}}"), 2.0)
            .await;
    assert_eq!(
        sample(&text, &format!("a2a_watch_card_changes_total{{agent=\"after\",url=\"{front}\"}}")),
        Some(1.0)
    );
    watch.stop().await;
}

#[tokio::test]
async fn the_history_kept_in_redis_is_read_back_by_the_next_watch() {
    let Some(url) = std::env::var("A2A_TEST_REDIS_URL").ok().filter(|url| !url.is_empty()) else {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI must set A2A_TEST_REDIS_URL");
        eprintln!("skipped: A2A_TEST_REDIS_URL names no redis-server");
        return;
    };
    let prefix = format!("a2a-watch-history-{}", std::process::id());
    let agent = ScriptedAgent::builder()
        .name("remembered")
        .capabilities(Capabilities::none().with_streaming())
        .script(Script::honest().with(Lie::StreamingRefused))
        .spawn()
        .await
        .unwrap();
    let agents = vec![(agent.base_url(), Deployment::Direct)];
    let mut options = options(Duration::from_secs(3600), None);
    options.redis = Some((url.clone(), prefix.clone()));
    let first = Watch::start(agents.clone(), options.clone()).await.unwrap();
    let refused = format!(
        "a2a_watch_claim_verdict{{agent=\"remembered\",url=\"{}\",claim=\"streaming\",verdict=\"refused\"}}",
        agent.base_url()
    );
    metrics_until(&first, &refused, 1.0).await;
    let page = format!("{}agent?url={}", first.url(), agent.base_url());
    let seen = get(&page, None).await.text().await.unwrap();
    first.stop().await;
    let since = seen
        .split("<td>")
        .find(|cell| cell.ends_with(" UTC</td>"))
        .unwrap_or_else(|| panic!("{seen}"))
        .to_owned();

    // The next watch knows the refusal and since when before it audits anything itself (its first
    // audit is an hour away: the jitter is the only delay before it, so only read the claim table).
    options.jitter = Duration::from_secs(3600);
    let next = Watch::start(agents, options).await.unwrap();
    let text = metrics(&next).await;
    assert_eq!(sample(&text, &refused), Some(1.0), "{text}");
    assert_eq!(
        sample(
            &text,
            &format!("a2a_watch_audits_total{{agent=\"remembered\",url=\"{}\"}}", agent.base_url())
        ),
        Some(0.0)
    );
    let shown =
        get(&format!("{}agent?url={}", next.url(), agent.base_url()), None).await.text().await.unwrap();
    assert!(shown.contains(&since), "{since} not in {shown}");
    assert!(shown.contains("evidence of the refusal"), "{shown}");
    next.stop().await;
}
