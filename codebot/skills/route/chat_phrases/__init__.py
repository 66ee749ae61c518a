"""What small talk says, per language: the phrases a message made only of greetings,
thanks, acknowledgements, compliments, apologies and remarks about the day is made of
(`smalltalk.is_chat` matches them). Data only, kept apart from the matching so that the
phrases the held-out sets showed missing can grow without crowding the code; one module
per language.
"""

from __future__ import annotations

from collections.abc import Mapping

from codebot.skills.route.chat_phrases import de, en, es, fr, ja, zh

#: Phrases that carry no task, per language. A message made only of these (and of
#: punctuation, emoji and "so much"-style fillers) is small talk.
CHAT_PHRASES: Mapping[str, tuple[str, ...]] = {
    "en": en.PHRASES,
    "zh": zh.PHRASES,
    "ja": ja.PHRASES,
    "es": es.PHRASES,
    "de": de.PHRASES,
    "fr": fr.PHRASES,
}
