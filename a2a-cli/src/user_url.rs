//! URLs a person typed: read as meant when the scheme is left out, and made fit to print (a
//! password typed into a URL is never shown).
//!
//! The rule, one for every command: `scheme://user:password@host` is shown as
//! `scheme://user:***@host` (the user names an account; the password is the secret), and a user
//! part alone, `scheme://token@host` (where tokens are put), as `scheme://***@host`. Everything
//! else is kept as typed.
//!
//! Where it applies: an agent URL is masked where it enters a command, as its argument is parsed
//! ([`agent_url`], [`as_typed`], and [`crate::audit::read_agent_file`] for agents files). The client refuses a
//! base URL that carries credentials anyway, so the command loses nothing, and no later output
//! (tables, errors, `--json`, JUnit, HTML, `a2a watch`'s page, metrics and store) can hold the
//! password. A URL whose credentials must reach a server (`--redis`) is kept whole and masked with
//! [`shown`] wherever it is written.

/// `url` with its user info masked as the module docs say; a text without `scheme://` is returned
/// as it is.
pub(crate) fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((user_info, host)) => {
            let masked = match user_info.split_once(':') {
                Some((user, _password)) => format!("{user}:***"),
                None => "***".to_owned(),
            };
            format!("{scheme}://{masked}@{host}{}", &rest[authority_end..])
        }
        None => url.to_owned(),
    }
}

/// Reads an agent URL given on the command line: the URL, its user info masked ([`shown`]). A URL
/// typed without a scheme is read as the person meant it: `http://` for a loopback host
/// (`localhost`, `127.0.0.1`, `[::1]`: a local agent, which rarely has TLS), `https://` for any
/// other, with a note on stderr saying how it was read.
///
/// # Errors
/// A message naming the text when it is, without a scheme, no host (a space, a path, user info).
pub(crate) fn agent_url(given: &str) -> Result<String, String> {
    let given = given.trim();
    if given.contains("://") {
        return Ok(shown(given));
    }
    let url = with_scheme(given)?;
    let mut err = anstream::stderr();
    let _ = std::io::Write::write_fmt(
        &mut err,
        format_args!(
            "note: `{given}` has no scheme: read as {url} (loopback hosts as http://, others as https://)\n"
        ),
    );
    Ok(url)
}

/// Reads a URL taken as typed, its user info masked: an agent URL or a file name (`a2a watch
/// FILE|URL`), or an origin credentials may go to (which must name its scheme).
///
/// # Errors
/// None: every text is accepted here, and judged by the command that uses it.
pub(crate) fn as_typed(given: &str) -> Result<String, std::convert::Infallible> {
    Ok(shown(given))
}

/// `given`, a host with an optional port and path but no scheme, with the scheme it was meant with.
fn with_scheme(given: &str) -> Result<String, String> {
    let example = "write it like https://agent.example or localhost:8000";
    if given.contains('@') {
        // User info with no scheme: not echoed, since it may hold a password.
        return Err(format!("an agent URL with user info needs its scheme: {example}"));
    }
    let authority_end = given.find(['/', '?', '#']).unwrap_or(given.len());
    let authority = &given[..authority_end];
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(':') && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    };
    let host_like = |host: &str| {
        (host.starts_with('[') && host.ends_with(']') && host.len() > 2)
            || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)))
    };
    if !host_like(host) {
        return Err(format!("`{}` is no URL: {example}", a2a_typestate_client::text::message(given)));
    }
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.to_ascii_lowercase().ends_with(".localhost")
        || host == "[::1]"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback());
    let scheme = if loopback { "http" } else { "https" };
    Ok(format!("{scheme}://{given}"))
}

/// Writes a URL that must stay whole inside the program (it holds what a server needs) as
/// [`shown`] in a report.
pub(crate) fn serialize_shown<S: serde::Serializer>(url: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(url) => s.serialize_some(&shown(url)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_a_url_is_masked_and_the_rest_kept() {
        assert_eq!(
            shown("http://alice:pw@agent.example:8080/a2a?x=1"),
            "http://alice:***@agent.example:8080/a2a?x=1"
        );
        assert_eq!(shown("redis://:s3cret@127.0.0.1:6379/0"), "redis://:***@127.0.0.1:6379/0");
        assert_eq!(shown("redis://app:s3cret@host/0"), "redis://app:***@host/0");
        // A password holding `@` or `:` is masked whole: the host is what follows the last `@`.
        assert_eq!(shown("https://bob:p@ss:w@host/"), "https://bob:***@host/");
    }

    #[test]
    fn a_user_part_alone_is_masked_whole_since_tokens_go_there() {
        assert_eq!(shown("https://ghp_token123@agent.example/"), "https://***@agent.example/");
    }

    #[test]
    fn a_url_typed_without_a_scheme_is_read_as_meant_loopback_as_http_others_as_https() {
        for (typed, read) in [
            ("localhost:8000", "http://localhost:8000"),
            ("127.0.0.1:9999/a2a", "http://127.0.0.1:9999/a2a"),
            ("127.1.2.3", "http://127.1.2.3"),
            ("[::1]:8080", "http://[::1]:8080"),
            ("agent.localhost", "http://agent.localhost"),
            ("agent.example", "https://agent.example"),
            ("agent.example:8443/v1?x=1", "https://agent.example:8443/v1?x=1"),
            ("10.0.0.5:80", "https://10.0.0.5:80"),
        ] {
            assert_eq!(with_scheme(typed).as_deref(), Ok(read), "{typed}");
        }
    }

    #[test]
    fn a_text_without_a_scheme_that_is_no_host_is_named_and_user_info_never_echoed() {
        for typed in ["agent example", "", "/path/only", ":8000", "host:port"] {
            let err = with_scheme(typed).unwrap_err();
            assert!(err.contains("is no URL") && err.contains("https://agent.example"), "{typed}: {err}");
        }
        let err = with_scheme("alice:s3cret@agent.example").unwrap_err();
        assert!(!err.contains("s3cret") && err.contains("scheme"), "{err}");
    }

    #[test]
    fn a_url_without_user_info_and_a_text_that_is_no_url_are_kept() {
        for kept in ["redis://127.0.0.1:6379/", "http://agent.example/path@v2", "agents.txt", "me@host"] {
            assert_eq!(shown(kept), kept);
        }
    }
}
