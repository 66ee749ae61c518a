"""Measuring the router (`codebot skills eval`, bench/route.py, bench/route_recall.py):
`cases` (labelled requests read from JSONL), `report` (`evaluate`: hit@1, precision,
recall, abstention, near misses, recall@k and MRR) and `baseline` (plain BM25 over name +
description, the yardstick, used only here).

May import: `skills.files` through `skills.invoke`, and `route.result` (what a route
returns). The router never imports this package; callers pass it a route function.
Nothing is imported here: its public names are exported by `codebot.skills.route`.
"""
