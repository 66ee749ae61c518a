"""Units codebot converts between without a tokenizer: the one place they are written.

Below every layer, because the skill listing (skills), compaction (agent) and the status
bar (ui) all turn characters into tokens and back, and the skills layer may not import
the agent.
"""

from __future__ import annotations

#: Characters a token, for English prose and code (within about 15% of OpenAI's and
#: Anthropic's tokenizers): `estimate_tokens`, the listing budget, compaction's cuts.
CHARS_PER_TOKEN = 4
#: A conservative rate for old conversation text sent to be summarized: code and JSON
#: tokenize denser than prose, so fewer characters a token keeps the request in budget.
DENSE_CHARS_PER_TOKEN = 3
