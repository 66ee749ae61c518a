"""The skill system: parse, discover, catalog, policy, listing, invocation, routing.

Pure Python on top of pyyaml/jinja2/pathspec; never imports `codebot.agent` or `codebot.ui`.
"""
