"""How much each request word counts: a rare word written as a name counts more (see
docs/routing.md). A pure function of the index, the request and the config, called by
`Router.route` between tokenizing and scoring; `shape` finds the words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.index import Index
from codebot.skills.route.shape import written_as_names

KINDS = ("emphasized", "left_behind", "destination")


def term_weights(
    idx: Index,
    request: str,
    surface: Mapping[str, str],
    known: Sequence[int],
    cfg: RouterConfig,
    dest: frozenset[str],
    similar: Mapping[str, float] | None = None,
) -> tuple[dict[int, float], dict[str, tuple[str, ...]]]:
    """Request words that count more than one: (term id -> weight, and for the
    explanation the words of each kind: "emphasized", and "destination", where the request
    moves things, which weigh one but can anchor a choice; "left_behind" stays empty).

    Written as a name (`NVDA`, `VoiceOver`, `Kafka` in mid-sentence) and rare in the
    catalog (worth at least `rare_worth`): `name_case_weight`. Common acronyms (`API`,
    `CI`) are written as names too but say little, hence the rarity.

    A term read from a word in another language (`similar`: term -> similarity, from
    `translate`) counts as much as the two are alike.
    """
    weight: dict[int, float] = {}
    emphasized: list[str] = []
    w = cfg.decision.name_case_weight
    if known and w != 1.0:
        lex, keep = idx.lexicon, set(known)
        names = written_as_names(request)
        rare = cfg.decision.rare_worth * idx.max_idf
        for t, word in surface.items():
            i = lex.get(t)
            if word in names and i in keep and idx.idf[i] >= rare:
                weight[i] = w
                emphasized.append(names[word])
    for t, sim in (similar or {}).items():
        i = idx.lexicon[t]
        weight[i] = weight.get(i, 1.0) * sim
    moved = tuple(word for word in surface.values() if word in dest)
    return weight, {"emphasized": tuple(emphasized), "left_behind": (), "destination": moved}
