//! Headless Chromium for the page tests (`chromium` and `chromium-driver`, installed by
//! scripts/chromium/install.sh on first use).

use std::time::Duration;

use serde_json::{Value, json};

use super::stderr;

/// The longest any wait of the browser lasts.
const PATIENCE: Duration = Duration::from_secs(120);

/// Headless Chromium driven over WebDriver (chromedriver), one session.
pub struct Browser {
    http: reqwest::Client,
    session: String,
    _driver: tokio::process::Child,
}

impl Browser {
    pub async fn start() -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/chromium/install.sh");
        let installed = tokio::process::Command::new("bash").arg(script).output().await.unwrap();
        let paths = String::from_utf8_lossy(&installed.stdout).into_owned();
        assert!(installed.status.success(), "scripts/chromium/install.sh failed: {}", stderr(&installed));
        let mut lines = paths.lines();
        let (browser, driver) = (lines.next().unwrap().to_owned(), lines.next().unwrap().to_owned());
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let child = tokio::process::Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let http = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(60)).build().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while http.get(format!("{base}/status")).send().await.is_err() {
            assert!(tokio::time::Instant::now() < deadline, "chromedriver did not answer");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,720"]}}}});
        let session = command(&http, &format!("{base}/session"), &capabilities).await;
        let id = session["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {session}"));
        Self { http, session: format!("{base}/session/{id}"), _driver: child }
    }

    pub async fn goto(&self, url: &str) {
        let answer = command(&self.http, &format!("{}/url", self.session), &json!({"url": url})).await;
        assert!(answer["value"].is_null(), "navigation failed: {answer}");
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        let body = json!({"script": script, "args": []});
        let answer = command(&self.http, &format!("{}/execute/sync", self.session), &body).await;
        answer["value"].clone()
    }

    /// Waits until `script` returns `expected`, the page left as it is (live updates only).
    pub async fn until(&self, script: &str, expected: &Value) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let value = self.eval(script).await;
            if &value == expected {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "`{script}` stayed {value}, never {expected}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let answer: Value =
            self.http.get(format!("{}/screenshot", self.session)).send().await.unwrap().json().await.unwrap();
        base64::engine::general_purpose::STANDARD.decode(answer["value"].as_str().unwrap()).unwrap()
    }

    pub async fn quit(self) {
        let _ = self.http.delete(&self.session).send().await;
    }
}

/// One WebDriver command: `body` POSTed to `url`, the JSON answer.
async fn command(http: &reqwest::Client, url: &str, body: &Value) -> Value {
    http.post(url).json(body).send().await.unwrap().json().await.unwrap()
}
