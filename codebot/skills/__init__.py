"""The skill system, one subpackage per stage of the flow (DESIGN §1):

    files/    a file -> Spec or diagnostics (frontmatter, coercion, arguments, openai.yaml)
    catalog/  roots, bounded scan, folder cache, persistent index, snapshot, `paths:` activation
    watch/    hot reload
    invoke/   policy, expansion, escaping, process_invocation
    route/    the router, its index and caches, evaluation
    prompt/   usage, the listing and its budget, reminders, SkillSearch cards

plus `validate` and `trace`, which consume several stages. A stage imports only the
stages before it in this list; nothing here imports `codebot.agent`, `codebot.ui` or
`codebot.config` (tests/test_imports.py checks). Pure Python on top of
pyyaml/jinja2/pathspec; importing this package imports none of its stages.
"""
