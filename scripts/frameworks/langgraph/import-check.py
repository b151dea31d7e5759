import langgraph.graph, langgraph_api.cli, langchain_core.language_models.fake_chat_models  # noqa
