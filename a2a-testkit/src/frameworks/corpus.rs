//! Which framework agents the corpus holds: one [`Framework`] per directory of
//! `scripts/frameworks/`, one [`CorpusAgent`] per line of its `agents.tsv`.

use std::fmt;

/// A third-party A2A framework of the corpus: a directory of `scripts/frameworks/`, what
/// `install.sh` takes. Its `TRUTH.md` says what its agent's card claims and what the agent does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Framework {
    /// FastA2A 2.1.1 with the pydantic-ai bridge: a 1.0 JSON-RPC card.
    FastA2A,
    /// Agno 3.1.10 (AgentOS, a2a-sdk 0.3 types): a 0.3 card full of JSON nulls.
    Agno,
    /// BeeAI Framework 0.1.85 (a2a-sdk 0.3.26): a 0.3 card, JSON-RPC or HTTP+JSON.
    BeeAI,
    /// Microsoft Agent Framework (agent-framework-a2a 1.0.0b261022, a2a-sdk 1.3.0).
    Msaf,
    /// Strands Agents 1.62.0 (a2a-sdk 0.3.26): a 0.3 card.
    Strands,
    /// Google ADK 2.13.0 (a2a-sdk 1.3.0): a clean 1.0 card.
    Adk,
    /// AG2 1.2.1 (a2a-sdk 1.3.0): a 1.0 card that declares push once a config store is given.
    Ag2,
    /// python-a2a 0.5.10 (Flask): a 0.3 card over an endpoint that speaks no JSON-RPC.
    PythonA2A,
    /// LangGraph 1.2.24 on langgraph-api 0.16.7 (`langgraph dev`, in memory).
    LangGraph,
    /// Mastra (@mastra/core 1.71.0, @mastra/deployer 1.69.0, Node): a card negotiated by header.
    Mastra,
    /// VoltAgent (@voltagent/core 2.10.0, @voltagent/a2a-server 2.0.3, Node): a 0.3 card whose
    /// stream writes every event behind a record separator (0x1E).
    VoltAgent,
    /// PraisonAI Agents 1.7.17 (`praisonaiagents`, its own server): a 0.3 card without the members
    /// 0.3 requires, whose stream events are bare results.
    PraisonAI,
    /// a2a-server-lf 0.5.3 (`a2a_server`, the a2aproject/a2a-rs server framework, Rust, built with
    /// cargo): a clean 1.0 card, JSON-RPC and HTTP+JSON.
    A2ARust,
}

impl Framework {
    /// Every framework of the corpus, in the order of `scripts/frameworks/README.md`.
    pub const ALL: [Framework; 13] = [
        Framework::FastA2A,
        Framework::Agno,
        Framework::BeeAI,
        Framework::Msaf,
        Framework::Strands,
        Framework::Adk,
        Framework::Ag2,
        Framework::PythonA2A,
        Framework::LangGraph,
        Framework::Mastra,
        Framework::VoltAgent,
        Framework::PraisonAI,
        Framework::A2ARust,
    ];

    /// Its directory under `scripts/frameworks/`: what `install.sh` and `start.sh` take.
    pub fn name(self) -> &'static str {
        match self {
            Framework::FastA2A => "fasta2a",
            Framework::Agno => "agno",
            Framework::BeeAI => "beeai",
            Framework::Msaf => "msaf",
            Framework::Strands => "strands",
            Framework::Adk => "adk",
            Framework::Ag2 => "ag2",
            Framework::PythonA2A => "python-a2a",
            Framework::LangGraph => "langgraph",
            Framework::Mastra => "mastra",
            Framework::VoltAgent => "voltagent",
            Framework::PraisonAI => "praisonai",
            Framework::A2ARust => "a2a-rust",
        }
    }

    /// Its position in [`Framework::ALL`].
    pub(crate) fn index(self) -> usize {
        Framework::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

impl fmt::Display for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One agent of the corpus: a line of `scripts/frameworks/agents.tsv` (a framework and the
/// arguments its agent is started with).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CorpusAgent {
    /// FastA2A's agent.
    FastA2A,
    /// Agno's agent, under `/a2a/agents/canned-agent`.
    Agno,
    /// BeeAI's agent over JSON-RPC.
    BeeAI,
    /// BeeAI's agent over HTTP+JSON (`--protocol http_json`).
    BeeAIHttpJson,
    /// Microsoft Agent Framework's documented hosting sample, with push declared.
    Msaf,
    /// Strands' agent, streaming the "legacy" way (chunks as status messages).
    Strands,
    /// Strands' agent with `--compliant-streaming` (chunks as artifact updates).
    StrandsCompliantStreaming,
    /// Google ADK's agent.
    Adk,
    /// AG2's agent with a push config store and no push sender.
    Ag2,
    /// AG2's agent with a push sender too (`--push-sender`).
    Ag2PushSender,
    /// python-a2a's agent, with a card claiming streaming, push and history.
    PythonA2A,
    /// python-a2a's agent with the card its `@agent` decorator writes (`--decorator-card`).
    PythonA2ADecoratorCard,
    /// LangGraph's default assistant, under `/a2a/{assistant_id}`.
    LangGraph,
    /// Mastra's agent, whose card is at `/api/.well-known/canned-agent/agent-card.json`.
    Mastra,
    /// VoltAgent's agent, whose card is at `/.well-known/support-agent/agent-card.json`.
    VoltAgent,
    /// PraisonAI's agent, whose card is at `/.well-known/agent.json`.
    PraisonAI,
    /// The a2a-server-lf agent, push declared false.
    A2ARust,
    /// The a2a-server-lf agent with a push config store (`--push`), push declared true.
    A2ARustPush,
}

impl CorpusAgent {
    /// Every line of `agents.tsv`, in its order.
    pub const ALL: [CorpusAgent; 18] = [
        CorpusAgent::FastA2A,
        CorpusAgent::Agno,
        CorpusAgent::BeeAI,
        CorpusAgent::BeeAIHttpJson,
        CorpusAgent::Msaf,
        CorpusAgent::Strands,
        CorpusAgent::StrandsCompliantStreaming,
        CorpusAgent::Adk,
        CorpusAgent::Ag2,
        CorpusAgent::Ag2PushSender,
        CorpusAgent::PythonA2A,
        CorpusAgent::PythonA2ADecoratorCard,
        CorpusAgent::LangGraph,
        CorpusAgent::Mastra,
        CorpusAgent::VoltAgent,
        CorpusAgent::PraisonAI,
        CorpusAgent::A2ARust,
        CorpusAgent::A2ARustPush,
    ];

    /// The framework it is built on (what has to be installed).
    pub fn framework(self) -> Framework {
        match self {
            CorpusAgent::FastA2A => Framework::FastA2A,
            CorpusAgent::Agno => Framework::Agno,
            CorpusAgent::BeeAI | CorpusAgent::BeeAIHttpJson => Framework::BeeAI,
            CorpusAgent::Msaf => Framework::Msaf,
            CorpusAgent::Strands | CorpusAgent::StrandsCompliantStreaming => Framework::Strands,
            CorpusAgent::Adk => Framework::Adk,
            CorpusAgent::Ag2 | CorpusAgent::Ag2PushSender => Framework::Ag2,
            CorpusAgent::PythonA2A | CorpusAgent::PythonA2ADecoratorCard => Framework::PythonA2A,
            CorpusAgent::LangGraph => Framework::LangGraph,
            CorpusAgent::Mastra => Framework::Mastra,
            CorpusAgent::VoltAgent => Framework::VoltAgent,
            CorpusAgent::PraisonAI => Framework::PraisonAI,
            CorpusAgent::A2ARust | CorpusAgent::A2ARustPush => Framework::A2ARust,
        }
    }

    /// The variant's label in `agents.tsv`; `None` for the framework's default agent.
    pub fn variant(self) -> Option<&'static str> {
        match self {
            CorpusAgent::BeeAIHttpJson => Some("http_json"),
            CorpusAgent::StrandsCompliantStreaming => Some("compliant-streaming"),
            CorpusAgent::Ag2PushSender => Some("push-sender"),
            CorpusAgent::PythonA2ADecoratorCard => Some("decorator-card"),
            CorpusAgent::A2ARustPush => Some("push"),
            _ => None,
        }
    }

    /// What the agent is started with after `--port N`.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            CorpusAgent::BeeAIHttpJson => &["--protocol", "http_json"],
            CorpusAgent::StrandsCompliantStreaming => &["--compliant-streaming"],
            CorpusAgent::Ag2PushSender => &["--push-sender"],
            CorpusAgent::PythonA2ADecoratorCard => &["--decorator-card"],
            CorpusAgent::A2ARustPush => &["--push"],
            _ => &[],
        }
    }

    /// Its base path on the server, as `agents.tsv` writes it: the agent's base URL is
    /// `http://127.0.0.1:PORT` with this path, and its card is under it at
    /// `/.well-known/agent-card.json`, unless the path is the card's own (it ends in `.json`).
    pub fn base_path(self) -> &'static str {
        match self {
            CorpusAgent::Agno => "/a2a/agents/canned-agent",
            CorpusAgent::LangGraph => "/a2a/fe096781-5601-53d2-b2f6-0d3403f7e9ca",
            CorpusAgent::Mastra => "/api/.well-known/canned-agent/agent-card.json",
            CorpusAgent::VoltAgent => "/.well-known/support-agent/agent-card.json",
            CorpusAgent::PraisonAI => "/.well-known/agent.json",
            _ => "/",
        }
    }

    /// The path of its Agent Card on the server.
    pub fn card_path(self) -> String {
        let base = self.base_path();
        if base.ends_with(".json") {
            base.to_owned()
        } else {
            format!("{}/.well-known/agent-card.json", base.trim_end_matches('/'))
        }
    }

    /// `framework` or `framework-variant`: how logs and messages name it.
    pub fn label(self) -> String {
        match self.variant() {
            Some(variant) => format!("{}-{variant}", self.framework().name()),
            None => self.framework().name().to_owned(),
        }
    }
}

impl fmt::Display for CorpusAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::Layout;
    use super::*;

    /// `agents.tsv` is what `check.sh` reads; this enum must say the same, line for line.
    #[test]
    fn every_line_of_agents_tsv_is_a_corpus_agent_with_the_same_path_and_arguments() {
        let layout = Layout::discover().expect("the workspace has scripts/frameworks");
        let tsv = layout.scripts_dir().join("agents.tsv");
        let text = std::fs::read_to_string(&tsv).expect("scripts/frameworks/agents.tsv is readable");
        let lines: Vec<(String, String, String, String)> = text
            .lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .map(|line| {
                let mut columns = line.split('\t').map(str::to_owned);
                let mut next = || columns.next().unwrap_or_default();
                (next(), next(), next(), next())
            })
            .collect();
        let ours: Vec<(String, String, String, String)> = CorpusAgent::ALL
            .iter()
            .map(|agent| {
                (
                    agent.framework().name().to_owned(),
                    agent.variant().unwrap_or("-").to_owned(),
                    agent.base_path().to_owned(),
                    agent.args().join(" "),
                )
            })
            .collect();
        assert_eq!(ours, lines);
    }

    #[test]
    fn every_framework_has_a_directory_with_pins_and_a_truth() {
        let layout = Layout::discover().expect("the workspace has scripts/frameworks");
        for framework in Framework::ALL {
            let dir = layout.scripts_dir().join(framework.name());
            let pinned = ["requirements.txt", "package-lock.json", "Cargo.lock"]
                .iter()
                .any(|pin| dir.join(pin).is_file());
            assert!(pinned, "{framework}: no pins in {}", dir.display());
            assert!(dir.join("TRUTH.md").is_file(), "{framework}: no TRUTH.md");
            assert_eq!(Framework::ALL[framework.index()], framework);
        }
    }

    #[test]
    fn card_paths_follow_the_base_path_unless_it_is_the_card() {
        assert_eq!(CorpusAgent::FastA2A.card_path(), "/.well-known/agent-card.json");
        assert_eq!(CorpusAgent::Agno.card_path(), "/a2a/agents/canned-agent/.well-known/agent-card.json");
        assert_eq!(CorpusAgent::Mastra.card_path(), "/api/.well-known/canned-agent/agent-card.json");
        assert_eq!(CorpusAgent::Ag2PushSender.label(), "ag2-push-sender");
    }
}
