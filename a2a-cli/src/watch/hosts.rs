//! Which `Host` the watch's server answers: the names of the address it is bound to, and the names
//! the user allows (`--allowed-host`).
//!
//! Why: a page on another site can make the browser that shows it send requests to the watch's
//! address by DNS rebinding (the site's own name re-pointed at `127.0.0.1`), and then read the
//! answers as its own, the fleet included. Such a request carries that site's name as its `Host`,
//! so a server that answers only its own names answers it nothing (421). The names:
//!
//! - bound to a loopback address: `127.0.0.1:PORT`, `localhost:PORT` and `[::1]:PORT`, and the
//!   bound address itself;
//! - bound to an unspecified address (`0.0.0.0`, `[::]`): those loopback names too (it listens
//!   there as well), and the bound address;
//! - bound elsewhere: the bound address (`10.0.0.5:PORT`);
//! - and every `--allowed-host` name, with the server's port when it names none
//!   (`watch.example.com` allows `watch.example.com:PORT`).
//!
//! On port 80 each name is also answered without its port, as a browser sends it. Names are
//! compared without case.

use std::net::SocketAddr;

/// The `Host` values the server answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct AllowedHosts {
    /// Lowercase `name:port` (and `name` alone on port 80).
    names: Vec<String>,
}

impl AllowedHosts {
    /// The names of `bound` and the `allowed` ones (each a name, or a `name:port`, as
    /// `--allowed-host` reads them: [`crate::cli::parse_allowed_host`]).
    pub(super) fn new(bound: SocketAddr, allowed: &[String]) -> Self {
        let port = bound.port();
        let mut hosts: Vec<String> = vec![bound.to_string()];
        if bound.ip().is_loopback() || bound.ip().is_unspecified() {
            hosts.extend([format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")]);
        }
        for name in allowed {
            hosts.push(if crate::cli::names_port(name) { name.clone() } else { format!("{name}:{port}") });
        }
        let mut names = Vec::new();
        for host in hosts {
            let host = host.to_ascii_lowercase();
            if let Some(bare) = host.strip_suffix(":80") {
                names.push(bare.to_owned());
            }
            names.push(host);
        }
        names.sort();
        names.dedup();
        Self { names }
    }

    /// Whether a request naming `host` (its `Host` header, or its absolute URI's authority) is
    /// answered.
    pub(super) fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        self.names.contains(&host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(bound: &str, allowed: &[&str]) -> AllowedHosts {
        let allowed: Vec<String> = allowed.iter().map(|a| (*a).to_owned()).collect();
        AllowedHosts::new(bound.parse().unwrap(), &allowed)
    }

    #[test]
    fn a_loopback_watch_answers_the_loopback_names_with_its_port_and_nothing_else() {
        let port = 9464;
        let loopback = hosts(&format!("127.0.0.1:{port}"), &[]);
        for name in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("LocalHost:{port}")] {
            assert!(loopback.allows(&name), "{name}");
        }
        assert!(loopback.allows(&format!("[::1]:{port}")));
        for foreign in [
            format!("evil.example:{port}"),
            "evil.example".to_owned(),
            format!("localhost:{}", port + 1),
            "localhost".to_owned(),
            format!("127.0.0.1.evil.example:{port}"),
            String::new(),
        ] {
            assert!(!loopback.allows(&foreign), "{foreign:?}");
        }
    }

    #[test]
    fn a_watch_bound_elsewhere_answers_its_address_and_the_allowed_names() {
        let bound = hosts("10.0.0.5:9464", &["watch.example.com", "proxy.example:8443"]);
        for name in ["10.0.0.5:9464", "watch.example.com:9464", "proxy.example:8443"] {
            assert!(bound.allows(name), "{name}");
        }
        for foreign in ["localhost:9464", "127.0.0.1:9464", "watch.example.com", "proxy.example:9464"] {
            assert!(!bound.allows(foreign), "{foreign}");
        }
        let everywhere = hosts("0.0.0.0:9464", &[]);
        assert!(everywhere.allows("localhost:9464") && everywhere.allows("0.0.0.0:9464"));
    }

    #[test]
    fn on_port_80_a_name_is_answered_without_its_port_too() {
        let web = hosts("127.0.0.1:80", &["watch.example.com"]);
        for name in ["localhost", "localhost:80", "watch.example.com", "[::1]"] {
            assert!(web.allows(name), "{name}");
        }
    }

    #[test]
    fn an_allowed_host_that_no_host_header_can_hold_is_refused_saying_why() {
        for good in ["watch.example.com", "10.0.0.5:9464", "[fd00::5]:9464", "[::1]"] {
            assert_eq!(crate::cli::parse_allowed_host(good).as_deref(), Ok(good));
        }
        for (bad, says) in [
            ("http://watch.example.com", "'/'"),
            ("user@host", "'@'"),
            ("host:99999", "no port number"),
            ("fd00::5", "brackets"),
            ("", "empty"),
            ("two words", "' '"),
        ] {
            let error = crate::cli::parse_allowed_host(bad).unwrap_err();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
    }
}
