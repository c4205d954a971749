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
_BY_KIND: dict = {}


def validator():
    """Return the schema's validator (made once)."""
    if not _VALIDATOR:
        import jsonschema

        schema = json.loads(SCHEMA_PATH.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATOR.append(jsonschema.Draft202012Validator(schema))
        # the same schema for one kind: the root's fields and that kind's definition (the
        # root's allOf of twenty if/then tries every kind: ten times slower)
        for kind in schema["properties"]["ev"]["enum"]:
            part = dict(schema["$defs"][kind])
            part["properties"] = dict(part["properties"], **schema["properties"])
            _BY_KIND[kind] = jsonschema.Draft202012Validator(_inline(part, schema["$defs"]))
    return _VALIDATOR[0]


def _inline(node, defs):
    """Return *node* with every ``{"$ref": "#/$defs/x", ...}`` replaced by x's definition and
    the keys beside the reference (the same constraints: they never share a key here)."""
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
    ref = node.get("$ref")
    if ref is not None:
        base = _inline(defs[ref.rsplit("/", 1)[1]], defs)
        assert not set(base) & set(out), (ref, out)
        out = dict(base, **out)
    return out


def problem(rec, whole=False) -> str | None:
    """Return what makes *rec* no record of the schema (one line), or None. A record of a
    known kind is checked against that kind's part (the same answer, faster), unless
    *whole*."""
    import jsonschema

    full = validator()
    kind = rec.get("ev") if isinstance(rec, dict) else None
    v = full if whole or not isinstance(kind, str) or kind not in _BY_KIND else _BY_KIND[kind]
    if v.is_valid(rec):
        return None
    err = jsonschema.exceptions.best_match(v.iter_errors(rec))
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
