//! [`Secret`]: a credential value that never shows itself.

use std::fmt;

/// A token, key, password or client secret. Its `Debug` and `Display` print `[redacted]`, so a
/// secret inside a struct, an error or a log line never shows; read it with [`Secret::expose`] only
/// where it is put on the wire.
///
/// ```
/// use a2a_typestate_client::auth::Secret;
///
/// let token = Secret::new("s3cr3t-value");
/// assert_eq!(format!("{token:?} {token}"), "Secret([redacted]) [redacted]");
/// assert_eq!(token.expose(), "s3cr3t-value");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// Reads a secret from the environment variable `name`.
    ///
    /// # Errors
    /// [`crate::ErrorKind::Config`] naming the variable (never its value) when it is unset, empty or
    /// not UTF-8.
    pub fn from_env(name: &str) -> Result<Self, crate::Error> {
        match std::env::var(name) {
            Ok(value) if !value.is_empty() => Ok(Self(value)),
            Ok(_) => Err(crate::Error::config(format!("environment variable {name} is empty"))),
            Err(std::env::VarError::NotPresent) => {
                Err(crate::Error::config(format!("environment variable {name} is not set")))
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(crate::Error::config(format!("environment variable {name} is not utf-8")))
            }
        }
    }

    /// The value, for the one place that writes it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}
