"""The router's case files (tests/data), named once for the tests that read them
(test_router_eval.py, test_router_multilingual.py): a new held-out set is added here."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"

# -- English -----------------------------------------------------------------------------
DEV = DATA / "routing_dev.jsonl"
HOLDOUT = DATA / "routing_holdout.jsonl"
PARAPHRASE = DATA / "routing_paraphrase.jsonl"

# -- six languages -------------------------------------------------------------------------
#: the tuning set in six languages
DEV_MULTILINGUAL = DATA / "routing_dev_multilingual.jsonl"
#: issue 36's held-out set, written and committed before any tuning
HELDOUT_MULTILINGUAL = DATA / "routing_multilingual.jsonl"
#: a second held-out set, written blind by someone who saw only the catalog's names and
#: descriptions (not the router, its docs or the other case files), committed before it was
#: routed once: issue 36's figures after the first held-out set had been routed too often
BLIND = DATA / "routing_multilingual_blind.jsonl"
#: a third, written the same way after the changes the blind set led to (and avoiding
#: every earlier set's targets), committed before it was routed once: the figure no
#: decision has seen
FRESH = DATA / "routing_multilingual_fresh.jsonl"
#: a fourth, written the same way (avoiding every earlier set's targets) and committed
#: before it was routed once, to judge the changes the fresh set had led to
FOURTH = DATA / "routing_multilingual_fourth.jsonl"
#: a fifth, the same way again, to see whether the phrase lists patched after each earlier
#: set hold on one they have not seen
FIFTH = DATA / "routing_multilingual_fifth.jsonl"
#: a sixth, the same way, to measure a stop's final code on requests nothing was tuned on
SIXTH = DATA / "routing_multilingual_sixth.jsonl"
#: a seventh, the same way, to judge reading a Chinese request word by word (rjieba)
SEVENTH = DATA / "routing_multilingual_seventh.jsonl"
#: an eighth, the same way, to measure that stop's final code
EIGHTH = DATA / "routing_multilingual_eighth.jsonl"
#: a ninth, the same way, to judge a skill named in full across languages
NINTH = DATA / "routing_multilingual_ninth.jsonl"
#: a tenth, written blind the same way but on targets drawn at random from the whole
#: catalog, with every equally right skill in `also`: the router as a person meets it
TENTH = DATA / "routing_multilingual_tenth.jsonl"
#: an eleventh, the same way as the tenth (another random draw), to measure a stop's final
#: code on a second set as a person meets it
ELEVENTH = DATA / "routing_multilingual_eleventh.jsonl"
#: a twelfth, a third random draw the same way
TWELFTH = DATA / "routing_multilingual_twelfth.jsonl"
#: a thirteenth, a fourth random draw, routed once to measure a stop's final code; the
#: small talk and edits it found routed were filled in other wordings, nothing else
THIRTEENTH = DATA / "routing_multilingual_thirteenth.jsonl"
#: a fourteenth, a fifth random draw, the same way (routed once, with the clear word lead
#: of `fused.clear_lead_first` already in)
FOURTEENTH = DATA / "routing_multilingual_fourteenth.jsonl"
#: a fifteenth, a sixth random draw, written after the clear word lead's final version
#: to judge it (routed once)
FIFTEENTH = DATA / "routing_multilingual_fifteenth.jsonl"
#: a sixteenth, a seventh random draw, written after small talk by meaning
#: (`chat_meaning`) to judge it (routed once)
SIXTEENTH = DATA / "routing_multilingual_sixteenth.jsonl"
#: a seventeenth, an eighth random draw, the same way (routed once)
SEVENTEENTH = DATA / "routing_multilingual_seventeenth.jsonl"
#: an eighteenth, a ninth random draw, written after the regex cache (routed once)
EIGHTEENTH = DATA / "routing_multilingual_eighteenth.jsonl"
#: a nineteenth, a tenth random draw, written after the eighteenth's gaps were filled to
#: judge them (routed once)
NINETEENTH = DATA / "routing_multilingual_nineteenth.jsonl"
#: a twentieth, an eleventh random draw, written after the nineteenth's gaps were filled
#: (routed once)
TWENTIETH = DATA / "routing_multilingual_twentieth.jsonl"
#: a twenty-first, a twelfth random draw, written after the twentieth's gaps were filled
#: (routed once)
TWENTYFIRST = DATA / "routing_multilingual_twentyfirst.jsonl"
#: a twenty-second, a thirteenth random draw, written after the twenty-first's gaps were
#: filled, to judge them (routed once)
TWENTYSECOND = DATA / "routing_multilingual_twentysecond.jsonl"
#: a twenty-third, a fourteenth random draw, written after the twenty-second's gaps were
#: filled, to judge them (routed once)
TWENTYTHIRD = DATA / "routing_multilingual_twentythird.jsonl"
#: a twenty-fourth, a fifteenth random draw, written after the twenty-third's gaps were
#: filled, to judge them (routed once)
TWENTYFOURTH = DATA / "routing_multilingual_twentyfourth.jsonl"
#: a twenty-fifth, a sixteenth random draw, written after the twenty-fourth's gaps were
#: filled, to judge them (routed once)
TWENTYFIFTH = DATA / "routing_multilingual_twentyfifth.jsonl"
#: a twenty-sixth, a seventeenth random draw, written after the twenty-fifth's gaps were
#: filled, to judge them (routed once)
TWENTYSIXTH = DATA / "routing_multilingual_twentysixth.jsonl"
#: a twenty-seventh, an eighteenth random draw, written after the twenty-sixth's gaps were
#: filled, to judge them (routed once)
TWENTYSEVENTH = DATA / "routing_multilingual_twentyseventh.jsonl"
#: a twenty-eighth, a nineteenth random draw, written after the twenty-seventh's gaps were
#: filled, to judge them (routed once)
TWENTYEIGHTH = DATA / "routing_multilingual_twentyeighth.jsonl"
#: a twenty-ninth, a twentieth random draw, written after the twenty-eighth's gaps were
#: filled, to judge them (routed once)
TWENTYNINTH = DATA / "routing_multilingual_twentyninth.jsonl"
#: a thirtieth, a twenty-first random draw, written after the twenty-ninth's gaps were
#: filled, to judge them (routed once)
THIRTIETH = DATA / "routing_multilingual_thirtieth.jsonl"
#: a thirty-first, a twenty-second random draw, written after the thirtieth's gaps were
#: filled, to judge them (routed once)
THIRTYFIRST = DATA / "routing_multilingual_thirtyfirst.jsonl"

#: the held-out sets in six languages, by name, in the order they were written
HELD_OUT_SETS = {
    "held_out": HELDOUT_MULTILINGUAL,
    "blind": BLIND,
    "fresh": FRESH,
    "fourth": FOURTH,
    "fifth": FIFTH,
    "sixth": SIXTH,
    "seventh": SEVENTH,
    "eighth": EIGHTH,
    "ninth": NINTH,
    "tenth": TENTH,
    "eleventh": ELEVENTH,
    "twelfth": TWELFTH,
    "thirteenth": THIRTEENTH,
    "fourteenth": FOURTEENTH,
    "fifteenth": FIFTEENTH,
    "sixteenth": SIXTEENTH,
    "seventeenth": SEVENTEENTH,
    "eighteenth": EIGHTEENTH,
    "nineteenth": NINETEENTH,
    "twentieth": TWENTIETH,
    "twentyfirst": TWENTYFIRST,
    "twentysecond": TWENTYSECOND,
    "twentythird": TWENTYTHIRD,
    "twentyfourth": TWENTYFOURTH,
    "twentyfifth": TWENTYFIFTH,
    "twentysixth": TWENTYSIXTH,
    "twentyseventh": TWENTYSEVENTH,
    "twentyeighth": TWENTYEIGHTH,
    "twentyninth": TWENTYNINTH,
    "thirtieth": THIRTIETH,
    "thirtyfirst": THIRTYFIRST,
}
