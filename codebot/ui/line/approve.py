"""Line mode's approval question: the answers it takes and asking until one is clear.

`y` allow once, `a` allow for this session, `A` (or `always`, `!`) always allow, which
saves the rule the question names to the project's config, `n` deny, `n <reason>` deny
and tell the model why, `r` deny and be asked for the reason on the next line. Capital
`A` is always and lower-case `a` the session: the answer that writes a file takes the
shift key. "Always" is refused (and asked again) when the request does not offer it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest, clean_reason
from codebot.ui.approval_reason import command_question

if TYPE_CHECKING:
    from codebot.ui.line.render import Sink


class Asker(Protocol):
    """What asks the person a question (`PromptReader`, `PlainReader`)."""

    async def ask(self, question: str) -> str: ...


__all__ = ["ANSWERS", "QUESTION", "ask_answer", "parse_answer", "parse_reply", "question_for"]

ANSWERS = {
    "y": ApprovalAnswer.ALLOW_ONCE,
    "yes": ApprovalAnswer.ALLOW_ONCE,
    "once": ApprovalAnswer.ALLOW_ONCE,
    "a": ApprovalAnswer.ALLOW_SESSION,
    "session": ApprovalAnswer.ALLOW_SESSION,
    "always": ApprovalAnswer.ALLOW_ALWAYS,
    "!": ApprovalAnswer.ALLOW_ALWAYS,
    "n": ApprovalAnswer.DENY,
    "no": ApprovalAnswer.DENY,
    "deny": ApprovalAnswer.DENY,
}
#: Words that deny and take the rest of the line as the reason (`r` alone asks for it).
REASON_WORDS = ("n", "no", "deny", "r", "reason")
#: The question with every answer offered (`question_for` leaves out what is not).
QUESTION = (
    "Allow? [y]es once / [a] this session / [A]lways / [n]o (n <reason> tells the model why): "
)
REASON_QUESTION = "Why not? (the model is told): "


def parse_answer(text: str) -> ApprovalAnswer | None:
    """The answer alone (see `parse_reply` for a denial's reason)."""
    reply = parse_reply(text)
    return reply[0] if reply else None


def parse_reply(text: str) -> tuple[ApprovalAnswer, str | None] | None:
    """An approval answer and, for a denial, the reason typed after it (reason None: `r`,
    ask for it). None when the answer is not clear."""
    text = text.strip()
    if text == "A":
        return ApprovalAnswer.ALLOW_ALWAYS, ""
    word, _, rest = text.partition(" ")
    if word.lower() in REASON_WORDS and rest.strip():
        return ApprovalAnswer.DENY, rest.strip()
    if text.lower() in ("r", "reason"):
        return ApprovalAnswer.DENY, None
    answer = ANSWERS.get(text.lower())
    return (answer, "") if answer is not None else None


def question_for(request: ApprovalRequest) -> str:
    """QUESTION without what this request does not offer; for a command, the question says
    how many lines it has (`Run this command? (122 lines, 120 of them empty) [y]es ...`)."""
    if request.tool == "SkillOutcome":  # a skill's question: yes or no (and why)
        return "Go ahead? [y]es / [n]o (n <answer> tells the model what you want): "
    always = "/ [A]lways " if request.always else ""
    why = " (n <reason> tells the model why)" if request.takes_reason else ""
    ask = command_question(request) or "Allow?"
    return f"{ask} [y]es once / [a] this session {always}/ [n]o{why}: "


async def ask_answer(reader: Asker, sink: Sink, request: ApprovalRequest) -> ApprovalAnswer:
    """Ask until the answer is clear; a denial's reason goes on the request (cleaned).
    Raises what `reader.ask` raises (EOFError, KeyboardInterrupt)."""
    while True:
        reply = parse_reply(await reader.ask(question_for(request)))
        if reply is None:
            sink.line(
                "please answer y (once), a (this session)"
                + (", A (always)" if request.always else "")
                + ", n (no)"
                + (" or n and your reason" if request.takes_reason else "")
            )
            continue
        answer, reason = reply
        if answer is ApprovalAnswer.ALLOW_ALWAYS and not request.always:
            sink.line(
                "always allow is not offered here: "
                f"{request.always_unavailable or 'no rule fits this call'}"
            )
            continue
        if answer is ApprovalAnswer.DENY and request.takes_reason:
            if reason is None:
                reason = await reader.ask(REASON_QUESTION)
            request.denial = clean_reason(reason)
        return answer
