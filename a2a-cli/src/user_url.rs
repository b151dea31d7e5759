//! URLs a person typed, made fit to print: a password typed into a URL is never shown.
//!
//! The rule, one for every command: `scheme://user:password@host` is shown as
//! `scheme://user:***@host` (the user names an account; the password is the secret), and a user
//! part alone, `scheme://token@host` (where tokens are put), as `scheme://***@host`. Everything
//! else is kept as typed.
//!
//! Where it applies: an agent URL is masked where it enters a command, as its argument is parsed
//! ([`agent_url`], and [`crate::audit::read_agent_file`] for agents files). The client refuses a
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

/// Reads an agent URL given on the command line: the URL, its user info masked ([`shown`]).
///
/// # Errors
/// None: every text is accepted here, and judged by the command that uses it.
pub(crate) fn agent_url(given: &str) -> Result<String, std::convert::Infallible> {
    Ok(shown(given))
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
    fn a_url_without_user_info_and_a_text_that_is_no_url_are_kept() {
        for kept in ["redis://127.0.0.1:6379/", "http://agent.example/path@v2", "agents.txt", "me@host"] {
            assert_eq!(shown(kept), kept);
        }
    }
}
