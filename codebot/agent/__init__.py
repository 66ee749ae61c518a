"""The agent, grouped like the skill system, in this order:

    model/        ModelClient protocol, litellm client (lazy), errors, providers, offline and
                  scripted models
    tools/        Read, Write, Edit, Glob, Grep, Bash, and the meta tools' schemas
    permissions/  rule patterns, shell-parsed Bash decisions, approvals
    session/      the turn loop, turn state, sub-agents, agents, transcripts, events, setup

A stage imports only the stages before it; the agent imports `codebot.skills` and
`codebot.config`, never `codebot.ui`. It emits typed events (`session.events`) and knows
nothing about any UI. litellm is imported only inside `model.litellm_wire`, lazily.
"""
