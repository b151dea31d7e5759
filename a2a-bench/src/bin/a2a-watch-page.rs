//! The size and time of `a2a watch`'s page for a large fleet with a long history: writes a history
//! store of `--agents` agents audited every `--interval-min` minutes for `--days` days (a tenth of
//! them flipping between honest and lying every `--flip-hours` hours, with a card change at each
//! flip), starts the built `a2a watch` on it, and reads the fleet page, the fleet page ordered by
//! the time refused, and one flipping agent's page `--requests` times each, as a browser would.
//! Prints one JSON object: bytes and milliseconds to the last byte (median and worst) per page, and
//! the watch's peak resident memory.
//!
//! The watched URLs point at a closed port, so the audits the watch starts with fail at once and
//! add one "not audited" entry per agent at the end of the history; nothing else changes it.
//!
//! ```sh
//! cargo build --release -p a2a-typestate-cli -p a2a-bench --bin a2a --bin a2a-watch-page
//! target/release/a2a-watch-page --a2a target/release/a2a --agents 1000 --days 7
//! ```

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use serde_json::json;

#[derive(Debug, Parser)]
struct Args {
    /// The `a2a` binary to run.
    #[arg(long, default_value = "target/release/a2a")]
    a2a: std::path::PathBuf,
    #[arg(long, default_value_t = 1_000)]
    agents: usize,
    #[arg(long, default_value_t = 7)]
    days: u64,
    /// Minutes between two audits of one agent.
    #[arg(long, default_value_t = 30)]
    interval_min: u64,
    /// Hours between two flips of a flipping agent.
    #[arg(long, default_value_t = 4)]
    flip_hours: u64,
    /// Reads of each page.
    #[arg(long, default_value_t = 20)]
    requests: usize,
    /// Also writes the fleet page here, to look at.
    #[arg(long)]
    save: Option<std::path::PathBuf>,
}

/// The claims each audit reports: the three lifecycle ones and three card claims.
const CLAIMS: [&str; 6] =
    ["streaming", "pushNotifications", "stateTransitionHistory", "interfaces", "output-modes", "security"];

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

fn write_store(
    path: &std::path::Path,
    args: &Args,
    urls: &[String],
) -> Result<usize, Box<dyn std::error::Error>> {
    const ENTRIES: redb::TableDefinition<'_, (&str, u64), &[u8]> = redb::TableDefinition::new("entries");
    let database = redb::Database::create(path)?;
    let now = now_ms();
    let step = args.interval_min * 60_000;
    let start = now - args.days * 86_400_000;
    let flip = args.flip_hours * 3_600_000;
    let mut written = 0;
    let write = database.begin_write()?;
    {
        let mut table = write.open_table(ENTRIES)?;
        for (index, url) in urls.iter().enumerate() {
            let flips = index % 10 == 0;
            let mut seq = 0u64;
            let mut lying = false;
            let mut at = start + (index as u64 * 7_919) % step;
            while at < now {
                let lies_now = flips && (at - start) / flip % 2 == 1;
                if seq == 0 || lies_now != lying {
                    let card = json!({"kind": "card", "atMs": at, "etag": format!("W/\"{lies_now}\""),
                        "digest": format!("{index}-{lies_now}"), "first": seq == 0});
                    table.insert((url.as_str(), seq), serde_json::to_vec(&card)?.as_slice())?;
                    seq += 1;
                    lying = lies_now;
                }
                let claims: Vec<_> = CLAIMS
                    .iter()
                    .map(|claim| {
                        let verdict = if lying && *claim == "streaming" { "refused" } else { "verified" };
                        json!({"claim": claim, "verdict": verdict, "detail": format!("{claim} {verdict} on the probe's first transition")})
                    })
                    .collect();
                let audit = json!({"kind": "audit", "atMs": at, "durationMs": 40, "name": format!("agent-{index:04}"),
                    "claims": claims, "error": null, "evidence": null});
                table.insert((url.as_str(), seq), serde_json::to_vec(&audit)?.as_slice())?;
                seq += 1;
                written += 1;
                at += step;
            }
        }
    }
    write.commit()?;
    Ok(written)
}

/// Reads `url` `times` times: its size, and the median and worst milliseconds to its last byte.
async fn read(http: &reqwest::Client, url: &str, times: usize) -> Result<serde_json::Value, reqwest::Error> {
    let mut took = Vec::with_capacity(times);
    let mut bytes = 0;
    for _ in 0..times {
        let started = Instant::now();
        bytes = http.get(url).send().await?.error_for_status()?.bytes().await?.len();
        took.push(started.elapsed().as_secs_f64() * 1e3);
    }
    took.sort_by(f64::total_cmp);
    Ok(json!({"bytes": bytes, "medianMs": took[took.len() / 2], "worstMs": took[took.len() - 1]}))
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("a2a-watch-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let urls: Vec<String> = (0..args.agents).map(|i| format!("http://127.0.0.1:1/agent-{i:04}")).collect();
    let store = dir.join("history.redb");
    let audits = write_store(&store, &args, &urls)?;
    let file = dir.join("agents.txt");
    std::fs::write(&file, urls.join("\n"))?;
    let keep =
        (args.days * 1_440 / args.interval_min + 2 * args.days * 24 / args.flip_hours + 16).to_string();
    let mut child = std::process::Command::new(&args.a2a)
        .args([
            "watch",
            "--listen",
            "127.0.0.1:0",
            "--interval",
            "1440m",
            "--jitter",
            "1s",
            "--card-check",
            "1440m",
        ])
        .args(["--min-interval", "1440m", "--concurrency", "16", "--audit-timeout", "5s", "--keep", &keep])
        .arg("--keep-days")
        .arg((args.days + 1).to_string())
        .arg("--store")
        .arg(&store)
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let started = Instant::now();
    let mut stderr = BufReader::new(child.stderr.take().ok_or("no stderr")?);
    let mut line = String::new();
    stderr.read_line(&mut line)?;
    let opened = started.elapsed();
    let page = line.split_whitespace().find(|w| w.starts_with("http://")).ok_or(line.clone())?.to_owned();
    std::thread::spawn(move || for _ in stderr.lines() {});
    // The audits the watch starts with fail at once (a closed port); let them settle.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let http = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(120)).build()?;
    let fleet = read(&http, &page, args.requests).await?;
    if let Some(save) = &args.save {
        std::fs::write(save, http.get(&page).send().await?.bytes().await?)?;
    }
    let by_lies = read(&http, &format!("{page}?sort=lies"), args.requests).await?;
    let agent = read(&http, &format!("{page}agent?url={}", urls[0]), args.requests).await?;
    let rss = peak_rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{}",
        json!({
            "agents": args.agents, "days": args.days, "intervalMin": args.interval_min, "flipHours": args.flip_hours,
            "auditsStored": audits, "openedMs": opened.as_millis() as u64,
            "fleetPage": fleet, "fleetPageByLies": by_lies, "agentPage": agent, "watchPeakRssKiB": rss,
        })
    );
    Ok(())
}
