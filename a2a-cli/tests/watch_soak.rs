//! The soak of `a2a watch` (not CI: `scripts/soak-watch.sh` runs it): the built binary watching 50
//! scripted agents (honest ones and liars of each kind, two of them flipping between an honest and a
//! lying deployment every few minutes), its resident memory and open file descriptors sampled from
//! /proc while it runs, then checked for growth. The history keeps 20 entries per agent, so it is
//! full after ten minutes of 30 s intervals: from then on, memory must stay flat. Ignored by
//! default: it lasts `A2A_SOAK_SECS` (3600 by default).

mod common;

use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use a2a_testkit::{Capabilities, Lie, Script, ScriptedAgent};
use common::flippable;

/// One sample of the watch process.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at_s: u64,
    rss_kib: u64,
    fds: u64,
}

fn sample(pid: u32, started: Instant) -> Sample {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count() as u64);
    Sample { at_s: started.elapsed().as_secs(), rss_kib, fds }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a soak run: scripts/soak-watch.sh"]
async fn a_watch_over_fifty_agents_keeps_memory_and_descriptors_flat() {
    let seconds: u64 = std::env::var("A2A_SOAK_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3600);
    let every: u64 = std::env::var("A2A_SOAK_SAMPLE_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let interval = std::env::var("A2A_SOAK_INTERVAL").unwrap_or_else(|_| "30s".to_owned());
    let out = std::env::var("A2A_SOAK_OUT").unwrap_or_else(|_| "target/soak-watch.csv".to_owned());
    let lies = [
        None,
        Some(Lie::StreamingRefused),
        Some(Lie::StreamWithoutArtifact),
        Some(Lie::EmptyHistory),
        Some(Lie::SilentPush),
    ];
    let full =
        || Capabilities::none().with_streaming().with_push_notifications().with_state_transition_history();
    let mut agents = Vec::new();
    let mut urls = Vec::new();
    for i in 0..48 {
        let script =
            lies[i % lies.len()].clone().map_or_else(Script::honest, |lie| Script::honest().with(lie));
        let agent = ScriptedAgent::builder()
            .name(format!("agent-{i:02}"))
            .capabilities(full())
            .script(script)
            .spawn()
            .await
            .unwrap();
        urls.push(agent.base_url());
        agents.push(agent);
    }
    let mut switches = Vec::new();
    for i in 0..2 {
        let honest =
            ScriptedAgent::builder().name(format!("flip-{i}")).capabilities(full()).spawn().await.unwrap();
        let liar = ScriptedAgent::builder()
            .name(format!("flip-{i}"))
            .capabilities(full())
            .script(Script::honest().with(Lie::StreamingRefused))
            .spawn()
            .await
            .unwrap();
        let lying = Arc::new(AtomicBool::new(false));
        urls.push(flippable(&honest, &liar, Arc::clone(&lying), true).await);
        agents.push(honest);
        agents.push(liar);
        switches.push(lying);
    }
    let dir = std::env::temp_dir().join(format!("a2a-watch-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("agents.txt");
    std::fs::write(&file, urls.join("\n")).unwrap();
    let store = dir.join("history.redb");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(["watch", "--listen", "127.0.0.1:0", "--interval", &interval, "--jitter", "5s"])
        .args([
            "--card-check",
            "10s",
            "--min-interval",
            "10s",
            "--concurrency",
            "8",
            "--audit-timeout",
            "60s",
        ])
        .args(["--push-arrival-bound", "2s", "--keep", "20"])
        .arg("--store")
        .arg(&store)
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let page = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    std::thread::spawn(move || for _ in stderr.lines() {});
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut flipped_at = 0;
    let http = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(30)).build().unwrap();
    while started.elapsed() < Duration::from_secs(seconds) {
        tokio::time::sleep(Duration::from_secs(every)).await;
        // The page and the metrics are read as a person and Prometheus would.
        let _ = http.get(&page).send().await;
        let _ = http.get(format!("{page}metrics")).send().await;
        let now = sample(pid, started);
        eprintln!("{} s: rss {} KiB, {} fds", now.at_s, now.rss_kib, now.fds);
        samples.push(now);
        if now.at_s >= flipped_at + 300 {
            flipped_at = now.at_s;
            for lying in &switches {
                lying.fetch_xor(true, Ordering::SeqCst);
            }
        }
    }
    let metrics = http.get(format!("{page}metrics")).send().await.unwrap().text().await.unwrap();
    let total = |name: &str| -> f64 {
        metrics
            .lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    let (audits, errors) = (total("a2a_watch_audits_total{"), total("a2a_watch_audit_errors_total{"));
    let changes = total("a2a_watch_card_changes_total{");
    // The pictures of the page after the run (the README's), when asked for: the fleet ordered by
    // the last change (the two flipping agents first), and the first flipping agent's page.
    if let Ok(dir) = std::env::var("A2A_SOAK_SCREENSHOTS") {
        let browser = common::browser::Browser::start().await;
        browser.goto(&format!("{page}?sort=changed")).await;
        std::fs::write(format!("{dir}/watch.png"), browser.screenshot().await).unwrap();
        browser.goto(&format!("{page}agent?url={}", urls[48])).await;
        std::fs::write(format!("{dir}/watch-agent.png"), browser.screenshot().await).unwrap();
        browser.quit().await;
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut csv = String::from("seconds,rss_kib,fds\n");
    for s in &samples {
        csv.push_str(&format!("{},{},{}\n", s.at_s, s.rss_kib, s.fds));
    }
    std::fs::write(&out, csv).unwrap();
    // Flat: after the first tenth of the run (the store, pools and histories filling), the last
    // quarter's peak stays within 20% (and 8 MiB) of the second tenth's peak; descriptors likewise.
    let warm = samples.len() / 10;
    let peak = |range: &[Sample], f: fn(&Sample) -> u64| range.iter().map(f).max().unwrap_or(0);
    let early = &samples[warm..(2 * warm).max(warm + 1)];
    let late = &samples[samples.len() * 3 / 4..];
    let (early_rss, late_rss) = (peak(early, |s| s.rss_kib), peak(late, |s| s.rss_kib));
    let (early_fds, late_fds) = (peak(early, |s| s.fds), peak(late, |s| s.fds));
    eprintln!(
        "soak: {seconds} s, {} samples, {audits} audits, {errors} errors, {changes} card changes; \
         rss peak {early_rss} KiB early, {late_rss} KiB late; fds peak {early_fds} early, {late_fds} late; csv {out}",
        samples.len()
    );
    assert!(
        late_rss <= early_rss + (early_rss / 5).max(8 * 1024),
        "memory grew: {early_rss} -> {late_rss} KiB"
    );
    assert!(late_fds <= early_fds + 16, "descriptors grew: {early_fds} -> {late_fds}");
    let _ = std::fs::remove_dir_all(&dir);
    drop(agents);
}
