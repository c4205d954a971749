# The one error type for user mistakes: the CLI prints it as one line and exits non-zero.
"""User-facing errors of the host tools."""


class UserError(Exception):
    """A mistake the user can fix (bad flag, missing port); printed as one line, no traceback."""


def read_json(path) -> tuple:
    """(text, data) of the JSON file *path*; UserError (one line) when it cannot be read or
    is not JSON."""
    import json
    from pathlib import Path

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError("%s: not valid JSON (line %d: %s)" % (path, exc.lineno,
                                                              exc.msg)) from None
