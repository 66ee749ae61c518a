"""A skill's outcome contract (issue 35): `outputs:` (a JSON Schema its `data` must match)
and `outcome: required | optional`.

Both are read from the frontmatter keys the parser keeps in `Spec.extra`, so the parser
and the `Spec` fields stay as they are. `contract_of(spec)` is what the agent reads;
`problems` is what `skills validate` reports (with the field it belongs to).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codebot.skills.files.spec import Spec

#: The frontmatter keys read here (folded as the parser folds keys).
KEYS = ("outputs", "outcome")
_OUTCOME_VALUES = ("required", "optional")


@dataclass(frozen=True)
class Contract:
    """`schema`: the checked `outputs:` schema (None when absent or invalid); `required`:
    `outcome: required`, or any `outputs:`; `problems`: (field, message) pairs."""

    schema: Mapping[str, object] | None = None
    required: bool = False
    problems: tuple[tuple[str, str], ...] = ()

    @property
    def wants_outcome(self) -> bool:
        return self.required or self.schema is not None


NONE = Contract()


def _field(spec: Spec, name: str) -> tuple[bool, object]:
    from codebot.skills.files.frontmatter import unwrap_numbers

    for key, value in spec.extra.items():
        if key.strip().lower().replace("_", "-") == name:
            return True, unwrap_numbers(value)  # `minimum: 1` is the number 1 again
    return False, None


def schema_problem(value: object) -> str | None:
    """Why `value` is not a usable JSON Schema for `outputs:`, or None."""
    if not isinstance(value, Mapping):
        return f"outputs must be a JSON Schema mapping, not {type(value).__name__}"
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(dict(value))
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return f"outputs is not a valid JSON Schema{' at ' + where if where else ''}: {exc.message}"
    except RecursionError:
        return "outputs nests too deeply to be checked"
    from codebot.skills.files.schemas import refused

    problem = refused(value)
    return f"outputs is refused: {problem}" if problem else None


def contract_of(spec: Spec) -> Contract:
    """The skill's outcome contract, from its frontmatter; never raises."""
    has_outputs, outputs = _field(spec, "outputs")
    has_outcome, outcome = _field(spec, "outcome")
    if not has_outputs and not has_outcome:
        return NONE
    problems: list[tuple[str, str]] = []
    schema: Mapping[str, object] | None = None
    if has_outputs:
        problem = schema_problem(outputs)
        if problem is None and isinstance(outputs, Mapping):
            schema = {str(k): v for k, v in outputs.items()}
        else:
            problems.append(("outputs", problem or "outputs is not a mapping"))
    required = False
    if has_outcome:
        word = str(outcome).strip().lower() if isinstance(outcome, str | bool) else ""
        word = {"true": "required", "false": "optional"}.get(word, word)
        if word in _OUTCOME_VALUES:
            required = word == "required"
        else:
            problems.append(
                ("outcome", f"outcome must be 'required' or 'optional', not {outcome!r}")
            )
    return Contract(schema, required or has_outputs, tuple(problems))
