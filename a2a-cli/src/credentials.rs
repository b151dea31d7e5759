//! Credentials for `a2a audit` and `a2a card`, read from environment variables or files, never
//! from the command line itself (where they would sit in shell history and process lists).
//!
//! ```
//! use a2a_typestate_cli::credentials::CredentialArgs;
//!
//! assert!(CredentialArgs::default().apply(a2a_typestate_client::Client::builder(), &[]).unwrap().build().is_ok());
//!
//! // A variable that is not set is named, never guessed at.
//! let missing = CredentialArgs { api_key_env: Some("DOC_NOT_SET_ANYWHERE".into()), ..CredentialArgs::default() };
//! let err = missing.apply(a2a_typestate_client::Client::builder(), &[]).unwrap_err();
//! assert_eq!(err, "--api-key-env: environment variable DOC_NOT_SET_ANYWHERE is not set");
//! ```

use std::path::PathBuf;

use a2a_typestate_client::ClientBuilder;
use a2a_typestate_client::auth::{
    ApiKey, BearerToken, ClientIdentity, Credentials, OAuth2ClientCredentials, Secret,
};
use a2a_typestate_client::net::Certificate;
use clap::Args;
use serde::Deserialize;

/// Where the credentials come from.
#[derive(Debug, Clone, Default, Args)]
pub struct CredentialArgs {
    /// Environment variable holding a bearer token, sent to agents whose card asks for an HTTP bearer,
    /// OAuth 2.0 or OpenID Connect scheme.
    #[arg(long, value_name = "NAME")]
    pub bearer_env: Option<String>,
    /// Environment variable holding an API key, sent in the header, query parameter or cookie the
    /// card's API key scheme names.
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// A header sent to the agent (repeatable), as credentials are: only to its origin and those of
    /// --allow-credential-origin. `HEADER=NAME` takes its value from environment variable NAME; a
    /// bare `NAME` holds `Header-Name: value`.
    #[arg(long, value_name = "HEADER=NAME")]
    pub header_env: Vec<String>,
    /// JSON file with OAuth 2.0 client credentials: `{"clientId": "...", "clientSecret": "...",
    /// "tokenUrl": "..." (optional; else the card's), "scopes": [...] (optional)}`.
    #[arg(long, value_name = "FILE")]
    pub oauth2_client_credentials: Option<PathBuf>,
    /// PEM file with a client certificate chain and its private key, for mutual TLS.
    #[arg(long, value_name = "FILE")]
    pub client_identity: Option<PathBuf>,
    /// PEM file with a CA certificate to trust besides the built-in roots (repeatable).
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Vec<PathBuf>,
    /// An origin (scheme, host and port of URL) the credentials may also be sent to, besides the
    /// agent's own (repeatable): an identity provider's token endpoint, or an interface the card
    /// puts on another host or port. Without it such URLs get no credentials.
    #[arg(long, value_name = "URL", value_parser = crate::user_url::as_typed)]
    pub allow_credential_origin: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OAuthFile {
    client_id: String,
    client_secret: String,
    #[serde(default)]
    token_url: Option<String>,
    #[serde(default)]
    scopes: Option<Vec<String>>,
}

fn env_secret(flag: &str, name: &str) -> Result<Secret, String> {
    Secret::from_env(name).map_err(|e| format!("--{flag}: {}", config_message(&e)))
}

/// The message of a configuration error without its "invalid configuration" prefix.
fn config_message(err: &a2a_typestate_client::Error) -> String {
    let shown = err.to_string();
    shown.strip_prefix("invalid configuration: ").unwrap_or(&shown).to_owned()
}

fn read_file(flag: &str, path: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("--{flag}: cannot read {}: {e}", path.display()))
}

impl CredentialArgs {
    /// Whether any credential was asked for.
    pub fn is_empty(&self) -> bool {
        self.bearer_env.is_none()
            && self.api_key_env.is_none()
            && self.header_env.is_empty()
            && self.oauth2_client_credentials.is_none()
            && self.client_identity.is_none()
            && self.ca_cert.is_empty()
    }

    /// `builder` with the header `name: value` for the origins of `agents` and of
    /// `--allow-credential-origin`: a card naming an interface or a token endpoint on another origin
    /// does not get it sent there.
    pub(crate) fn header_for(
        &self,
        mut builder: ClientBuilder,
        agents: &[&str],
        name: &str,
        value: &Secret,
    ) -> ClientBuilder {
        for origin in agents.iter().copied().chain(self.allow_credential_origin.iter().map(String::as_str)) {
            builder = builder.origin_header(origin, name, value.clone());
        }
        builder
    }

    /// Adds the credentials to `builder`. `agents` are the URLs of the agents the command talks to:
    /// the headers go to their origins and the allowed ones only, as credentials do.
    ///
    /// # Errors
    /// A message naming the flag and the variable or file (never a value) when a variable is unset
    /// or a file cannot be read or parsed.
    pub fn apply(&self, mut builder: ClientBuilder, agents: &[&str]) -> Result<ClientBuilder, String> {
        let mut credentials = Credentials::new();
        if let Some(name) = &self.bearer_env {
            credentials = credentials.with(BearerToken::new(env_secret("bearer-env", name)?));
        }
        if let Some(name) = &self.api_key_env {
            credentials = credentials.with(ApiKey::new(env_secret("api-key-env", name)?));
        }
        if let Some(path) = &self.oauth2_client_credentials {
            let bytes = read_file("oauth2-client-credentials", path)?;
            // serde's messages may quote a value: report where the file is wrong and how, only.
            let file: OAuthFile = serde_json::from_slice(&bytes).map_err(|e| {
                let what = match e.classify() {
                    serde_json::error::Category::Data => "a field is missing, unknown or of the wrong type",
                    _ => "it is not JSON",
                };
                format!(
                    "--oauth2-client-credentials: {} at line {} column {}: {what} (expected clientId, clientSecret, \
                     and optionally tokenUrl and scopes)",
                    path.display(),
                    e.line(),
                    e.column()
                )
            })?;
            let mut oauth = OAuth2ClientCredentials::new(file.client_id, Secret::new(file.client_secret));
            if let Some(url) = file.token_url {
                oauth = oauth.token_url(url);
            }
            if let Some(scopes) = file.scopes {
                oauth = oauth.scopes(scopes);
            }
            credentials = credentials.with(oauth);
        }
        for spec in &self.header_env {
            let (header, value) = match spec.split_once('=') {
                Some((header, name)) => (header.trim().to_owned(), env_secret("header-env", name)?),
                None => {
                    let line = env_secret("header-env", spec)?;
                    let Some((header, value)) = line.expose().split_once(':') else {
                        return Err(format!(
                            "--header-env: environment variable {spec} must hold `Header-Name: value`"
                        ));
                    };
                    (header.trim().to_owned(), Secret::new(value.trim()))
                }
            };
            builder = self.header_for(builder, agents, &header, &value);
        }
        if let Some(path) = &self.client_identity {
            let pem = read_file("client-identity", path)?;
            let identity = ClientIdentity::from_pem(&pem)
                .map_err(|e| format!("--client-identity: {}: {}", path.display(), config_message(&e)))?;
            builder = builder.client_identity(identity);
        }
        for url in &self.allow_credential_origin {
            let fits = url.split_once("://").is_some_and(|(scheme, rest)| {
                matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") && !rest.is_empty()
            });
            if !fits {
                return Err(format!(
                    "--allow-credential-origin: {url} is not an http or https url (write it like https://login.example.com)"
                ));
            }
            builder = builder.allow_credential_origin(url.clone());
        }
        for path in &self.ca_cert {
            let pem = read_file("ca-cert", path)?;
            let roots = Certificate::bundle_from_pem(&pem)
                .map_err(|_| format!("--ca-cert: {} holds no PEM certificate", path.display()))?;
            for root in roots {
                builder = builder.add_root_certificate(root);
            }
        }
        Ok(builder.credentials(credentials))
    }
}
