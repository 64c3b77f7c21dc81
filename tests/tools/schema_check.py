"""Validate JSON Lines on stdin against the output schema (argv[1]) with the
reference validator (Python's jsonschema, Draft 2020-12). Also shows the
schema is not vacuous: a broken record must be rejected. Exit 1 on any
error, printing each with its line."""

import json
import sys

from jsonschema import Draft202012Validator

schema = json.load(open(sys.argv[1], encoding="utf-8"))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
errors = 0
lines = 0
for n, line in enumerate(sys.stdin, 1):
    lines += 1
    record = json.loads(line)
    for e in validator.iter_errors(record):
        errors += 1
        print(f"line {n}: {e.message} at {list(e.absolute_path)}: {line[:300]}")
broken = {"type": "coverage", "path": "x", "complete": "yes"}
if validator.is_valid(broken):
    errors += 1
    print(f"the schema accepts a broken record: {broken}")
print(f"{lines} records, {errors} errors")
sys.exit(1 if errors or not lines else 0)
