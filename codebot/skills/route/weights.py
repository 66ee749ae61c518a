"""How much each request word counts: names written as names count more, what a request
moves away from counts less, where it moves things counts more (see docs/routing.md).

A pure function of the index, the request and the config, called by `Router.route`
between tokenizing and scoring; `shape` finds the words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.index import Index
from codebot.skills.route.shape import left_behind, written_as_names

KINDS = ("emphasized", "left_behind", "destination")


def term_weights(
    idx: Index,
    request: str,
    surface: Mapping[str, str],
    known: Sequence[int],
    cfg: RouterConfig,
    dest: frozenset[str],
) -> tuple[dict[int, float], dict[str, tuple[str, ...]]]:
    """Request words that count more or less than one: (term id -> weight, and for the
    explanation the words of each kind: "emphasized", "left_behind", "destination").

    - Only in what the request moves away from ("off requirements.txt onto uv"):
      `left_behind_weight`.
    - Where the request moves things (`dest`: "onto uv", "into airflow"): `destination_weight`.
    - Written as a name (`NVDA`, `VoiceOver`, `Kafka` in mid-sentence) and rare in the
      catalog (worth at least `name_case_worth`): `name_case_weight`. Common acronyms
      (`API`, `CI`) are written as names too but say little, hence the rarity.

    A word of several kinds gets the last of these.
    """
    weight: dict[int, float] = {}
    got: dict[str, tuple[str, str]] = {}  # term -> (kind, the word as written)
    if known:
        lex, keep = idx.lexicon, set(known)
        names = written_as_names(request) if cfg.name_case_weight != 1.0 else {}
        rules = (
            ("left_behind", cfg.left_behind_weight, left_behind(request), lambda i: True),
            ("destination", cfg.destination_weight, dest, lambda i: True),
            (
                "emphasized",
                cfg.name_case_weight,
                names,
                lambda i: idx.idf[i] >= cfg.name_case_worth * idx.max_idf,
            ),
        )
        for kind, w, found, rare_enough in rules:
            if w == 1.0 or not found:
                continue
            for t, word in surface.items():
                i = lex.get(t)
                if word in found and i in keep and rare_enough(i):
                    weight[i] = w
                    got[t] = (kind, names.get(word, word) if kind == "emphasized" else word)
    kinds = {k: tuple(w for kk, w in got.values() if kk == k) for k in KINDS}
    return weight, kinds
