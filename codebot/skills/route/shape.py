"""Reading sentences rather than words: what a skill says it is *not* for
(`split_negative`) and what kind of request a text is (`request_shape`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from codebot import regex_cache

_CLAUSE = regex_cache.compile(r"(?<=[.;!?])\s+|\s+[—–]\s+|\s+-\s+|\n+")
#: Cues that start a negative span running to the end of the clause.
_NEG_START = regex_cache.compile(
    r"\b(?:not\s+(?:for|to\s+be\s+used|intended|meant|suitable|when|if|a\s+replacement)|"
    r"do\s+not\s+use|don'?t\s+use|never\s+use|shouldn'?t\s+be\s+used|should\s+not\s+be\s+used|"
    r"avoid\s+(?:using\s+)?(?:it|this)|except\s+for|doesn'?t\s+(?:cover|handle)|does\s+not\s+(?:cover|handle)|"
    r"rather\s+than|unlike)\b|\bNOT\b",
    re.IGNORECASE,
)
#: Cues that make the whole clause negative ("for X, use the Y skill instead").
_NEG_CLAUSE = regex_cache.compile(
    r"\binstead\b|\bis\s+handled\s+by\b|\bbelongs?\s+(?:in|to)\b", re.IGNORECASE
)


_NEG_KEYS = (
    "not",
    "n't",
    "never",
    "avoid",
    "except",
    "rather",
    "unlike",
    "instead",
    "handled",
    "belong",
)


def split_negative(text: str) -> tuple[str, str]:
    """(what the skill is for, what it says it is not for)."""
    if not text:
        return "", ""
    low = text.lower()
    if not any(k in low for k in _NEG_KEYS) or (
        not _NEG_START.search(text) and not _NEG_CLAUSE.search(text)
    ):
        return text, ""
    pos: list[str] = []
    neg: list[str] = []
    for clause in _CLAUSE.split(text):
        if not clause:
            continue
        if _NEG_CLAUSE.search(clause):
            neg.append(clause)
            continue
        m = _NEG_START.search(clause)
        if m is None or (m.group(0) == "NOT" and not clause[m.end() :].strip()):
            pos.append(clause)
            continue
        pos.append(clause[: m.start()])
        neg.append(clause[m.start() :])
    return " ".join(pos), " ".join(neg)


_GREETING = regex_cache.compile(
    r"^\s*(?:hi|hello|hey|yo|hiya|howdy|good\s+(?:morning|afternoon|evening|night)|thanks|thank\s+you|"
    r"cheers|bye|goodbye|see\s+you)\b[\s!,.]*(?:there|all|again|so\s+much|a\s+lot|everyone|folks)?[\s!,.]*",
    re.IGNORECASE,
)
_SMALL_TALK = regex_cache.compile(
    r"^\s*(?:how\s+are\s+you|how'?s\s+(?:it|your\s+day|life|everything)\s+going|how\s+is\s+your\s+day|"
    r"what'?s\s+up|tell\s+me\s+(?:a\s+)?jokes?|that'?s\s+(?:all|it|great|fine)|who\s+are\s+you|"
    r"are\s+you\s+(?:there|a\s+bot|human))\b",
    re.IGNORECASE,
)
_CONCEPT = regex_cache.compile(
    r"^\s*(?:(?:so|and|ok|okay|quick\s+(?:one|question))[,:\s]+)?(?:what(?:'s|s)?|why|who|whom|"
    r"whose|which|is|are|was|were|does|do\s+you|"
    r"did|can\s+you\s+explain|explain|meaning\s+of|difference\s+between|when\s+(?:is|was|did|should))\b",
    re.IGNORECASE,
)
_FACT = regex_cache.compile(
    r"^\s*(?:(?:so|and|ok|okay)[,\s]+)?how\s+(?:many|much|come|long|old|big)\b", re.IGNORECASE
)
_HOWTO = regex_cache.compile(
    r"^\s*(?:(?:so|and|ok|okay)[,\s]+)?how\s+(?:do|does|can|could|should|would|to)\b", re.IGNORECASE
)
_PROJECT_REF = regex_cache.compile(
    r"\b(?:my|our)\b|\b(?:this|the)\s+(?:repo|repository|project|codebase|app|application|"
    r"service|site|website|pr|branch|pipeline|cluster)\b",
    re.IGNORECASE,
)

SHAPES = ("task", "howto", "concept", "chat", "edit")


#: verbs of work that, opening the sentence after a question, make the question a task's
#: setting ("… in? Update its plan.md …"); not "show", "explain" or "give me", which ask
#: for the answer in some form ("… ? just a quick summary", "… ? show it in python")
_WORK_VERBS = frozenset(
    [
        "add",
        "audit",
        "build",
        "bump",
        "change",
        "check",
        "clean",
        "commit",
        "convert",
        "create",
        "delete",
        "deploy",
        "draft",
        "export",
        "fix",
        "generate",
        "grab",
        "implement",
        "install",
        "merge",
        "migrate",
        "move",
        "open",
        "plot",
        "port",
        "prepare",
        "pull",
        "push",
        "refactor",
        "remove",
        "rename",
        "replace",
        "review",
        "run",
        "schedule",
        "set",
        "split",
        "tag",
        "test",
        "update",
        "upgrade",
        "write",
    ]
)


def _then_asks(text: str) -> bool:
    """Does a sentence that opens with a verb of work follow the first question ("Which
    Conductor track is the refactor in? Update its plan.md to add the email step")? Then
    the question only sets up a job: it is a task, not a question to answer."""
    marks = [i for i in (text.find("?"), text.find("？")) if i >= 0]
    if not marks:
        return False
    tail = text[min(marks) + 1 :].split(maxsplit=1)
    return bool(tail) and tail[0].strip(",.;:!").lower() in _WORK_VERBS


# -- words that count more or less than the others (see weights) -----------------------
# Each function is linear in the text's length, and the router gives them only the edges of
# a long request (`edges`): the ask is written around a pasted log, not inside it.

EDGE_CHARS = 4000


def edges(text: str, n: int = EDGE_CHARS) -> str:
    """The first and last `n` characters of a long text (the whole of a short one)."""
    return text if len(text) <= 2 * n else text[:n] + "\n" + text[-n:]


_WORDS = regex_cache.compile(r"[a-z][a-z0-9]*", re.IGNORECASE)
#: A word with a capital letter in it (the only ones that can be written as names)
_CAPITALISED = regex_cache.compile(r"(?<![A-Za-z0-9])(?=[a-z0-9]*[A-Z])[A-Za-z][A-Za-z0-9]*")
#: What may stand between a sentence's end and its first word: spaces, quotes, brackets, bullets
_LEAD_IN = frozenset(" \t\r\"'([{*-#>`")


def _starts_sentence(text: str, i: int) -> bool:
    """Is the word at `i` the first of a sentence, a line or the text?"""
    k = i
    while k > 0 and text[k - 1] in _LEAD_IN:
        k -= 1
    if k == 0 or text[k - 1] == "\n":
        return True
    return text[k - 1] in ".!?:" and k < i and text[k] in " \t\r"


def written_as_names(text: str) -> dict[str, str]:
    """Words the person wrote as names (lower case -> as written): with two or more capitals
    (`NVDA`, `VoiceOver`, `PyPI`, `DOIs`) or capitalised in mid-sentence (`Slack`, `Kafka`).

    A name says which tool, format or service is meant; the everyday words around it
    ("form", "team", "support") say less. Lower-case writing is simply not emphasised.
    """
    out: dict[str, str] = {}
    seen: set[str] = set()  # as written: a sentence's capitalised first word may come back
    for m in _CAPITALISED.finditer(text):
        w = m.group(0)
        if w in seen or len(w) < 2:
            continue
        if sum(1 for ch in w if ch.isupper()) >= 2 or (
            w[0].isupper() and not _starts_sentence(text, m.start())
        ):
            seen.add(w)
            out.setdefault(w.lower(), w)
    return out


_ASCII_WORD = regex_cache.compile(r"[a-z0-9]+")


def writes_name(text: str, name: str) -> bool:
    """Does `text` write the whole of a skill's name of two words or more, its words in a
    row ("Loki Mode an", "mit loki-mode", "Trigger.dev")? A one-word name does not count:
    `loop`, `fix` or a German noun is as often an everyday word.

    Both are read after NFKC and case folding (a full-width "Ｌｏｋｉ" is "loki"), word by
    word in Latin letters and digits, so a name glued to Chinese text still counts."""
    parts = _ASCII_WORD.findall(unicodedata.normalize("NFKC", name).casefold())
    if len(parts) < 2:
        return False
    words = _ASCII_WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    n = len(parts)
    return any(words[i : i + n] == parts for i, w in enumerate(words) if w == parts[0])


_SENTENCE = regex_cache.compile(r"(?<=[.!?;])\s+|\n+")
_MOVE_VERB = regex_cache.compile(
    r"\b(?:mov(?:e|es|ed|ing)|migrat(?:e|es|ed|ing)|switch(?:es|ed|ing)?|port(?:s|ed|ing)?|"
    r"convert(?:s|ed|ing)?|transition(?:s|ed|ing)?)\b",
    re.IGNORECASE,
)
#: Where what is left behind starts: "instead of X", "rather than X", "no longer X" always;
#: "off X", "away from X", "from X" in a sentence with a moving verb
_INSTEAD = regex_cache.compile(r"\b(?:instead\s+of|rather\s+than|no\s+longer)\s+", re.IGNORECASE)
_FROM = regex_cache.compile(r"\b(?:off(?=\s)|away\s+from|from)\s+", re.IGNORECASE)
#: ... and where it ends: the destination ("onto uv", "to playwright") or the clause
_SPAN_END = regex_cache.compile(
    r"\b(?:onto|into|to|towards?|for|with|so|but|because|after|while)\b|[.;,!?:](?=\s|$)|[()\n]",
    re.IGNORECASE,
)
#: Where things are moved to, after the moving verb ...
_TO = regex_cache.compile(r"\b(?:onto|into|to|over\s+to)\s+", re.IGNORECASE)
#: ... up to the end of that clause
_DEST_END = regex_cache.compile(
    r"\b(?:so|but|because|with|and|for|after|while|instead)\b|[.;,!?:](?=\s|$)|[()\n]",
    re.IGNORECASE,
)


def left_behind(text: str) -> frozenset[str]:
    """Lower-cased words of what the request moves away from: "move us off requirements.txt
    onto uv", "migrate the tests from jest to vitest", "kafka instead of rabbitmq".

    The skill wanted is the one for the destination. The router no longer weighs these
    words differently (issue 36 §3: `left_behind_weight` moved no held-out case); the
    function stays for callers that show them. A word also used elsewhere in the request
    is not left behind.
    """
    moving = _MOVE_VERB.search(text) is not None
    if not _INSTEAD.search(text) and not (moving and _FROM.search(text)):
        return frozenset()
    low = text.lower()
    inside: set[str] = set()
    outside: set[str] = set()
    for sentence in _SENTENCE.split(low):
        starts = [m.end() for m in _INSTEAD.finditer(sentence)]
        if moving and _MOVE_VERB.search(sentence):
            starts += [m.end() for m in _FROM.finditer(sentence)]
        if not starts:
            outside.update(_WORDS.findall(sentence))
            continue
        ends = [m.start() for m in _SPAN_END.finditer(sentence)] + [len(sentence)]
        prev = 0
        for a in sorted(starts):
            if a < prev:  # inside the previous span
                continue
            b = ends[bisect.bisect_left(ends, a)]
            outside.update(_WORDS.findall(sentence, prev, a))
            inside.update(_WORDS.findall(sentence, a, b))
            prev = b
        outside.update(_WORDS.findall(sentence, prev))
    return frozenset(inside - outside)


def destination(text: str) -> frozenset[str]:
    """Lower-cased words of where a request moves something: "onto uv", "to Playwright",
    "into airflow" (in a sentence with a moving verb, after it)."""
    out: set[str] = set()
    for sentence in _SENTENCE.split(text):
        v = _MOVE_VERB.search(sentence)
        m = _TO.search(sentence, v.end()) if v else None
        if m:
            end = _DEST_END.search(sentence, m.end())
            out.update(
                w.lower()
                for w in _WORDS.findall(sentence, m.end(), end.start() if end else len(sentence))
            )
    return frozenset(out)


def request_shape(text: str) -> str:
    """What kind of request this is: `task` (do something), `howto` (how do I …?),
    `concept` (what is / why …?), `chat` (greetings, thanks, jokes) or `edit` (a small,
    local edit: rename, bump, typo, delete an import, change a colour or a port).

    Skills are workflows. A knowledge or syntax question is better answered directly, so
    a concept question is answered, not routed, a how-to question needs `min_terms`
    words, and small talk never
    routes. A question about the person's own project ("how do I set up tests in our
    repo?", "warum schlägt unser Build fehl?", "为什么我们的服务启动这么慢？") is treated as
    a task. Greetings, thanks, small edits and questions about code
    are recognised in English, Chinese, Japanese, Spanish, German and French (`smalltalk`,
    `edits`);
    an edit routes only to a skill whose description claims that kind of edit.
    """
    from codebot.skills.route.smalltalk import is_apology, is_chat

    if is_chat(text) or is_apology(text):
        return "chat"
    rest = text.strip()
    for _ in range(3):  # "hi there! thanks a lot"
        stripped = _GREETING.sub("", rest, count=1)
        if stripped == rest:
            break
        rest = stripped
    if not rest.strip(" !.?,") or _SMALL_TALK.match(rest):
        return "chat"
    # after small talk: a greeting's process need not compile the edit patterns (about 10 ms)
    from codebot.skills.route.edits import (
        PROJECT_REF,
        asks_what_returns,
        edit_kind,
        is_code_question,
    )

    if edit_kind(rest) is not None:
        return "edit"
    if (is_code_question(rest) and not PROJECT_REF.search(rest)) or asks_what_returns(rest):
        return "concept"
    if _PROJECT_REF.search(rest):
        return "task"
    if (_CONCEPT.match(rest) or _FACT.match(rest)) and not _then_asks(rest):
        return "concept"
    if _HOWTO.match(rest):
        return "howto"
    return "task"
