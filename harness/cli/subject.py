"""The subject a command judges: a registered subject or ``cmd:...`` started and greeted
(``--subject``, ``--expectations``), and the file name its report takes (decision
[0034](../../docs/decisions/0034-subject-folders-and-registry.md))."""

from __future__ import annotations

from pathlib import Path

from .arguments import UsageError


def start_subject(spec: str | None, expectations: Path | str | None = None) -> str | None:
    """The run spec to run (None: our reference; "" when a registered subject is
    unavailable here, said in one line). A spec that names nothing, a subject that does
    not start and a malformed expectations file are usage errors."""
    from ..runs import third_party

    if spec is None or spec == third_party.REFERENCE:
        return None
    from ..judge.expectations import ExpectationsError
    from ..subjects.process import SubjectStartError

    run = third_party.run_spec(spec, None if expectations is None else str(expectations))
    try:
        third_party.engine_for(run)  # starts the subject: it must say hello
    except third_party.SubjectUnavailableError as exc:
        if third_party.is_registered(spec):
            print(f"skipped: {exc}")
            return ""
        raise UsageError(str(exc)) from None
    except (SubjectStartError, ExpectationsError) as exc:
        raise UsageError(str(exc)) from None
    return run


def file_name(spec: str) -> str:
    """A report file name for a subject spec (``cmd:...`` becomes ``cmd``,
    ``tokenizers==X`` becomes ``tokenizers-X``)."""
    return "cmd" if spec.startswith("cmd:") else spec.replace("==", "-")
