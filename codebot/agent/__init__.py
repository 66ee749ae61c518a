"""The agent: model clients, tools, approvals, the turn loop, sub-agents, transcripts.

Emits typed events (`codebot.agent.events`) and knows nothing about any UI. litellm is
imported only inside `codebot.agent.model.LiteLLMClient`, lazily.
"""
