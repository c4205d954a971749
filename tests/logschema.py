# The game log's JSON Schema (docs/log.schema.json) as a check for the tests.
"""Validate game-log records against docs/log.schema.json with jsonschema (Draft 2020-12).

``check(rec)`` raises AssertionError naming the record and what is wrong with it. The test
suite's conftest checks every record that the firmware prints through
shutbox_host.box.boxsim.parse (the scenario tests, whole games, the virtual Pico's game) and
the fuzzer checks every record it reads; tests/analysis/test_log_format.py checks the schema.
"""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "docs" / "log.schema.json"
_VALIDATOR: list = []


def validator():
    """Return the schema's validator (made once)."""
    if not _VALIDATOR:
        import jsonschema

        schema = json.loads(SCHEMA_PATH.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATOR.append(jsonschema.Draft202012Validator(schema))
    return _VALIDATOR[0]


def problem(rec) -> str | None:
    """Return what makes *rec* no record of the schema (one line), or None."""
    import jsonschema

    err = jsonschema.exceptions.best_match(validator().iter_errors(rec))
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path) or "the record"
    return "%s: %s" % (where, err.message)


def check(rec) -> None:
    """Raise AssertionError if *rec* does not follow docs/log.schema.json."""
    why = problem(rec)
    if why is not None:
        raise AssertionError("a log record that is not in docs/log.schema.json (%s): %s"
                             % (why, json.dumps(rec)))
