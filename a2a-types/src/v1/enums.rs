//! The enums of `a2a.proto`: `TaskState` and `Role`.

use crate::protojson::ProtoEnum;

/// The lifecycle state of a task (`lf.a2a.v1.TaskState`).
///
/// Written as `"TASK_STATE_WORKING"` and so on; read by name or by number. 0.3 agents spell these
/// in lowercase (`"input-required"`); the `v03` module maps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// `TASK_STATE_UNSPECIFIED` (0): unknown or not set.
    #[default]
    Unspecified,
    /// `TASK_STATE_SUBMITTED` (1): acknowledged, not yet started.
    Submitted,
    /// `TASK_STATE_WORKING` (2): in progress.
    Working,
    /// `TASK_STATE_COMPLETED` (3): terminal, finished successfully.
    Completed,
    /// `TASK_STATE_FAILED` (4): terminal, finished with an error.
    Failed,
    /// `TASK_STATE_CANCELED` (5): terminal, canceled before finishing.
    Canceled,
    /// `TASK_STATE_INPUT_REQUIRED` (6): interrupted, waits for a follow-up message from the client.
    InputRequired,
    /// `TASK_STATE_REJECTED` (7): terminal, the agent declined the task.
    Rejected,
    /// `TASK_STATE_AUTH_REQUIRED` (8): interrupted, waits for credentials.
    AuthRequired,
}

impl TaskState {
    /// `true` for the states a task never leaves: completed, failed, canceled, rejected.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Canceled | Self::Rejected)
    }

    /// `true` for the states where the agent waits for the client: input-required, auth-required.
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// The ProtoJSON name, such as `TASK_STATE_WORKING`: what JSON, metric labels and span
    /// attributes carry.
    pub fn as_str(self) -> &'static str {
        crate::protojson::enum_name(self)
    }

    /// The state as people write it, and as [`Display`](std::fmt::Display) shows it: `working`,
    /// `input-required`, `completed` (the 0.3 names, with `canceled` spelled as 1.0 does and
    /// `unspecified` for the unset state).
    pub fn word(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
            Self::InputRequired => "input-required",
            Self::Rejected => "rejected",
            Self::AuthRequired => "auth-required",
        }
    }
}

impl ProtoEnum for TaskState {
    const TYPE_NAME: &'static str = "TaskState";
    const EXAMPLE: &'static str = "TASK_STATE_WORKING";
    const UNSPECIFIED: Self = Self::Unspecified;
    const VALUES: &'static [(Self, &'static str, i32)] = &[
        (Self::Unspecified, "TASK_STATE_UNSPECIFIED", 0),
        (Self::Submitted, "TASK_STATE_SUBMITTED", 1),
        (Self::Working, "TASK_STATE_WORKING", 2),
        (Self::Completed, "TASK_STATE_COMPLETED", 3),
        (Self::Failed, "TASK_STATE_FAILED", 4),
        (Self::Canceled, "TASK_STATE_CANCELED", 5),
        (Self::InputRequired, "TASK_STATE_INPUT_REQUIRED", 6),
        (Self::Rejected, "TASK_STATE_REJECTED", 7),
        (Self::AuthRequired, "TASK_STATE_AUTH_REQUIRED", 8),
    ];
}
crate::proto_enum_serde!(TaskState);

impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// Who sent a message (`lf.a2a.v1.Role`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// `ROLE_UNSPECIFIED` (0).
    #[default]
    Unspecified,
    /// `ROLE_USER` (1): the client side.
    User,
    /// `ROLE_AGENT` (2): the remote agent.
    Agent,
}

impl ProtoEnum for Role {
    const TYPE_NAME: &'static str = "Role";
    const EXAMPLE: &'static str = "ROLE_USER";
    const UNSPECIFIED: Self = Self::Unspecified;
    const VALUES: &'static [(Self, &'static str, i32)] = &[
        (Self::Unspecified, "ROLE_UNSPECIFIED", 0),
        (Self::User, "ROLE_USER", 1),
        (Self::Agent, "ROLE_AGENT", 2),
    ];
}
crate::proto_enum_serde!(Role);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn task_state_reads_names_and_numbers() {
        assert_eq!(
            parse::from_str::<TaskState>("\"TASK_STATE_INPUT_REQUIRED\"").unwrap(),
            TaskState::InputRequired
        );
        assert_eq!(parse::from_str::<TaskState>("6").unwrap(), TaskState::InputRequired);
        assert_eq!(parse::from_str::<TaskState>("99").unwrap(), TaskState::Unspecified);
    }

    #[test]
    fn task_state_writes_names() {
        assert_eq!(serde_json::to_string(&TaskState::Canceled).unwrap(), "\"TASK_STATE_CANCELED\"");
        assert_eq!(serde_json::to_string(&Role::Agent).unwrap(), "\"ROLE_AGENT\"");
    }

    #[test]
    fn unknown_enum_name_is_an_error_naming_the_type() {
        let err = parse::from_str::<TaskState>("\"working\"").unwrap_err();
        assert!(err.to_string().contains("unknown TaskState \"working\""), "{err}");
    }
}
