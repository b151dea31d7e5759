import beeai_framework.adapters.a2a, beeai_framework.agents.requirement, a2a.types  # noqa
