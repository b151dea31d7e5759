//! Generators of valid 0.3 messages, tasks and stream results (shared by the property tests).

use a2a_typestate_types::v03::{
    APIKeySecurityScheme, AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface,
    AgentProvider, AgentSkill, Artifact, ClientCredentialsOAuthFlow, DataPart, FileContent, FilePart,
    FileSource, HTTPAuthSecurityScheme, Message, MessageSendConfiguration, MessageSendParams,
    MutualTLSSecurityScheme, OAuth2SecurityScheme, OAuthFlows, OpenIdConnectSecurityScheme, Part,
    PushNotificationAuthenticationInfo, PushNotificationConfig, Role, SecurityScheme, StreamResult, Task,
    TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState, TaskStatus, TaskStatusUpdateEvent,
    TextPart,
};
use a2a_typestate_types::{JsonText, Metadata};
use proptest::prelude::*;
use serde_json::{Map, Value};

pub fn id() -> impl Strategy<Value = String> {
    "[a-z0-9-]{1,8}"
}

pub fn metadata() -> impl Strategy<Value = Option<Metadata>> {
    prop::option::of(prop::collection::btree_map("[a-z]{1,4}", any::<i32>(), 0..3).prop_map(|m| {
        m.into_iter().map(|(k, v)| (k, JsonText::from_value(&Value::from(v)))).collect::<Metadata>()
    }))
}

pub fn part() -> impl Strategy<Value = Part> {
    let text = (".{0,12}", metadata()).prop_map(|(text, metadata)| Part::Text(TextPart { text, metadata }));
    let source = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..16).prop_map(FileSource::Bytes),
        "https://[a-z]{1,6}\\.example/[a-z]{0,6}".prop_map(FileSource::Uri),
    ];
    let file =
        (source, prop::option::of("[a-z]+/[a-z]+"), prop::option::of("[a-z]{1,6}\\.[a-z]{2,3}"), metadata())
            .prop_map(|(source, mime_type, name, metadata)| {
                Part::File(FilePart { file: FileContent { source, mime_type, name }, metadata })
            });
    let data = (prop::collection::btree_map("[a-z]{1,4}", any::<i32>(), 0..3), metadata()).prop_map(
        |(data, metadata)| {
            let data = data.into_iter().map(|(k, v)| (k, Value::from(v))).collect::<Map<String, Value>>();
            Part::Data(DataPart { data, metadata })
        },
    );
    prop_oneof![text, file, data]
}

pub fn message() -> impl Strategy<Value = Message> {
    (
        id(),
        prop::option::of(id()),
        prop::option::of(id()),
        prop_oneof![Just(Role::User), Just(Role::Agent)],
        prop::collection::vec(part(), 1..3),
        metadata(),
        prop::collection::vec("https://ext\\.example/[a-z]{1,4}", 0..2),
        prop::collection::vec(id(), 0..2),
    )
        .prop_map(|(message_id, context_id, task_id, role, parts, metadata, extensions, refs)| Message {
            message_id: message_id.into(),
            context_id: context_id.map(Into::into),
            task_id: task_id.map(Into::into),
            role,
            parts,
            metadata,
            extensions,
            reference_task_ids: refs.into_iter().map(Into::into).collect(),
        })
}

pub fn state() -> impl Strategy<Value = TaskState> {
    prop::sample::select(vec![
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::AuthRequired,
        TaskState::Unknown,
    ])
}

pub fn status() -> impl Strategy<Value = TaskStatus> {
    (state(), prop::option::of(message()), prop::option::of(Just("2026-11-29T20:03:15.579653Z".to_owned())))
        .prop_map(|(state, message, timestamp)| TaskStatus { state, message, timestamp })
}

pub fn artifact() -> impl Strategy<Value = Artifact> {
    (
        id(),
        prop::option::of("[a-z ]{1,8}"),
        prop::option::of("[a-z ]{1,8}"),
        prop::collection::vec(part(), 1..3),
        metadata(),
    )
        .prop_map(|(artifact_id, name, description, parts, metadata)| Artifact {
            artifact_id: artifact_id.into(),
            name,
            description,
            parts,
            metadata,
            extensions: Vec::new(),
        })
}

pub fn stream_result() -> impl Strategy<Value = StreamResult> {
    let task = (
        id(),
        id(),
        status(),
        prop::collection::vec(artifact(), 0..2),
        prop::collection::vec(message(), 0..2),
        metadata(),
    )
        .prop_map(|(id, context_id, status, artifacts, history, metadata)| {
            StreamResult::Task(Task {
                id: id.into(),
                context_id: context_id.into(),
                status,
                artifacts,
                history,
                metadata,
            })
        });
    let status_update =
        (id(), id(), status(), metadata()).prop_map(|(task_id, context_id, status, metadata)| {
            let is_final = status.state.ends_stream();
            StreamResult::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task_id.into(),
                context_id: context_id.into(),
                status,
                is_final,
                metadata,
            })
        });
    let artifact_update = (id(), id(), artifact(), any::<bool>(), any::<bool>(), metadata()).prop_map(
        |(task_id, context_id, artifact, append, last_chunk, metadata)| {
            StreamResult::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: task_id.into(),
                context_id: context_id.into(),
                artifact,
                append,
                last_chunk,
                metadata,
            })
        },
    );
    prop_oneof![task, message().prop_map(StreamResult::Message), status_update, artifact_update]
}

pub fn push_config() -> impl Strategy<Value = TaskPushNotificationConfig> {
    let authentication = (prop::collection::vec("[A-Za-z]{1,8}", 0..2), prop::option::of(id()))
        .prop_map(|(schemes, credentials)| PushNotificationAuthenticationInfo { schemes, credentials });
    (
        id(),
        "https://[a-z]{1,6}\\.example/[a-z]{0,6}",
        prop::option::of(id()),
        prop::option::of(id()),
        prop::option::of(authentication),
    )
        .prop_map(|(task_id, url, id, token, authentication)| TaskPushNotificationConfig {
            task_id: task_id.into(),
            push_notification_config: PushNotificationConfig { url, id, token, authentication },
        })
}

pub fn message_send_params() -> impl Strategy<Value = MessageSendParams> {
    let configuration = (
        prop::collection::vec("[a-z]+/[a-z]+", 0..2),
        prop::option::of(any::<bool>()),
        prop::option::of(0..8_i32),
        prop::option::of(push_config().prop_map(|c| c.push_notification_config)),
    )
        .prop_map(|(accepted_output_modes, blocking, history_length, push_notification_config)| {
            MessageSendConfiguration {
                accepted_output_modes,
                blocking,
                history_length,
                push_notification_config,
            }
        });
    (message(), prop::option::of(configuration), metadata())
        .prop_map(|(message, configuration, metadata)| MessageSendParams { message, configuration, metadata })
}

fn scheme() -> impl Strategy<Value = SecurityScheme> {
    let description = || prop::option::of("[a-z ]{1,8}");
    let flow = (
        "https://[a-z]{1,6}\\.example/token",
        prop::collection::btree_map("[a-z]{1,4}", "[a-z ]{0,6}", 0..2),
    )
        .prop_map(|(token_url, scopes)| OAuthFlows {
            client_credentials: Some(ClientCredentialsOAuthFlow { token_url, refresh_url: None, scopes }),
            ..OAuthFlows::default()
        });
    prop_oneof![
        (description(), prop::sample::select(vec!["header", "query", "cookie"]), "[A-Za-z-]{1,8}").prop_map(
            |(description, location, name)| SecurityScheme::ApiKey(APIKeySecurityScheme {
                description,
                location: location.to_owned(),
                name,
            })
        ),
        (description(), prop::option::of("JWT")).prop_map(|(description, bearer_format)| {
            SecurityScheme::Http(HTTPAuthSecurityScheme {
                description,
                scheme: "Bearer".to_owned(),
                bearer_format,
            })
        }),
        (description(), flow).prop_map(|(description, flows)| SecurityScheme::OAuth2(OAuth2SecurityScheme {
            description,
            flows,
            oauth2_metadata_url: None,
        })),
        (description(), "https://[a-z]{1,6}\\.example/oidc").prop_map(
            |(description, open_id_connect_url)| {
                SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
                    description,
                    open_id_connect_url,
                })
            }
        ),
        description()
            .prop_map(|description| SecurityScheme::MutualTls(MutualTLSSecurityScheme { description })),
    ]
}

fn skill() -> impl Strategy<Value = AgentSkill> {
    (
        id(),
        "[a-z ]{1,8}",
        prop::collection::vec("[a-z]{1,6}", 0..3),
        prop::collection::vec("[a-z ]{1,8}", 0..2),
    )
        .prop_map(|(id, name, tags, examples)| AgentSkill {
            id,
            description: name.clone(),
            name,
            tags,
            input_modes: examples.iter().map(|_| "text/plain".to_owned()).collect(),
            output_modes: Vec::new(),
            examples,
            security: Vec::new(),
        })
}

/// A 0.3 card with every kind of member the schema has (no unknown members: they are kept as
/// written, `null` included, so they would not read as left out).
pub fn agent_card() -> impl Strategy<Value = AgentCard> {
    let capabilities = (
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::collection::vec(
            ("https://ext\\.example/[a-z]{1,4}", prop::option::of(any::<bool>())).prop_map(
                |(uri, required)| AgentExtension { uri, description: None, required, params: None },
            ),
            0..2,
        ),
    )
        .prop_map(|(streaming, push_notifications, state_transition_history, extensions)| {
            AgentCapabilities {
                streaming,
                push_notifications,
                state_transition_history,
                extensions,
                extra: Default::default(),
            }
        });
    let interfaces = prop::collection::vec(
        (
            "https://[a-z]{1,6}\\.example/[a-z]{0,4}",
            prop::sample::select(vec!["JSONRPC", "HTTP+JSON", "GRPC"]),
        )
            .prop_map(|(url, transport)| AgentInterface { url, transport: transport.to_owned() }),
        0..3,
    );
    (
        (id(), "[a-z ]{1,12}", "https://[a-z]{1,6}\\.example/a2a", prop::option::of("HTTP+JSON|JSONRPC")),
        (interfaces, prop::option::of("0\\.3\\.0"), "[0-9]\\.[0-9]"),
        (
            prop::option::of(("[a-z]{1,6}", "https://[a-z]{1,6}\\.example")),
            prop::option::of("https://docs\\.example/[a-z]{1,4}"),
            capabilities,
        ),
        (prop::collection::btree_map("[a-z]{1,6}", scheme(), 0..3), prop::collection::vec(skill(), 0..3)),
        (
            prop::collection::vec("[a-z]+/[a-z]+", 0..2),
            prop::collection::vec(("[A-Za-z0-9_-]{4,8}", "[A-Za-z0-9_-]{4,8}"), 0..2),
            prop::option::of(any::<bool>()),
        ),
    )
        .prop_map(
            |(
                (name, description, url, preferred_transport),
                (additional_interfaces, protocol_version, version),
                (provider, documentation_url, capabilities),
                (security_schemes, skills),
                (modes, signatures, supports_authenticated_extended_card),
            )| {
                let security = security_schemes
                    .keys()
                    .map(|name| std::collections::BTreeMap::from([(name.clone(), modes.clone())]))
                    .collect();
                AgentCard {
                    name,
                    description,
                    url,
                    preferred_transport,
                    additional_interfaces,
                    protocol_version,
                    version,
                    provider: provider.map(|(organization, url)| AgentProvider { organization, url }),
                    documentation_url,
                    icon_url: None,
                    capabilities,
                    security_schemes,
                    security,
                    default_input_modes: modes.clone(),
                    default_output_modes: modes,
                    skills,
                    signatures: signatures
                        .into_iter()
                        .map(|(protected, signature)| AgentCardSignature {
                            protected,
                            signature,
                            header: None,
                        })
                        .collect(),
                    supports_authenticated_extended_card,
                    extra: Default::default(),
                }
            },
        )
}
