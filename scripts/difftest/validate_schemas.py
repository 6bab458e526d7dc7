#!/usr/bin/env python3
"""Validates jwsinspect's JSON records against docs/schema with Python's jsonschema.

usage: validate_schemas.py [--every-type] SCHEMA_DIR FILE.jsonl...

Each line of each FILE is one record (as `--format jsonl` writes them). A record is checked
against docs/schema/RECORD.schema.json, RECORD being its `record` member; a record without
`record`, or whose `record` has no schema, fails. Every schema is first checked against the
2020-12 meta-schema. Prints one line per failure and a count; exits 1 if anything failed.
"""
import json
import pathlib
import sys
from collections import Counter

from jsonschema import Draft202012Validator
from referencing import Registry, Resource


def main(argv):
    every_type = "--every-type" in argv[1:2]
    if every_type:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    schema_dir = pathlib.Path(argv[1])
    schemas = {}
    resources = []
    for path in sorted(schema_dir.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        name = path.name[: -len(".schema.json")]
        if schema.get("$id") != f"urn:jwsinspect:schema:v1:{name}":
            print(f"{path}: $id is not urn:jwsinspect:schema:v1:{name}")
            return 1
        schemas[name] = schema
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry = Registry().with_resources(resources)
    validators = {
        name: Draft202012Validator(schema, registry=registry)
        for name, schema in schemas.items()
        if name != "common"
    }
    failures = 0
    seen = Counter()
    for file in argv[2:]:
        with open(file, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{file}:{number}"
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    print(f"{where}: not JSON: {error}")
                    failures += 1
                    continue
                kind = record.get("record") if isinstance(record, dict) else None
                validator = validators.get(kind) if isinstance(kind, str) else None
                if validator is None:
                    print(f"{where}: no schema for record {kind!r} (docs/schema/{kind}.schema.json)")
                    failures += 1
                    continue
                seen[kind] += 1
                errors = sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path))
                for error in errors[:5]:
                    path = "/".join(str(part) for part in error.absolute_path)
                    print(f"{where}: {kind} at /{path}: {error.message[:300]}")
                failures += 1 if errors else 0
    total = sum(seen.values())
    counts = ", ".join(f"{name} {count}" for name, count in sorted(seen.items()))
    print(f"schemas: {total} records validated ({counts}); {failures} failed")
    unused = sorted(set(validators) - set(seen))
    if unused and every_type:
        print(f"schemas: no record of type {', '.join(unused)} in the corpus")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
