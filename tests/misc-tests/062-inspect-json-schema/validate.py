#!/usr/bin/python3
# validate.py MANPAGE JSON...: each JSON document must validate against the
# JSON Schema written in the man page between the json-schema-begin and
# json-schema-end comment lines.
import json
import sys

import jsonschema

lines = open(sys.argv[1]).read().split("\n")
begin = next(i for i, l in enumerate(lines) if "json-schema-begin" in l)
end = next(i for i, l in enumerate(lines) if "json-schema-end" in l)
schema = json.loads("\n".join(lines[begin + 1:end]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    for err in validator.iter_errors(doc):
        print("%s: %s at %s" % (path, err.message, "/".join(map(str, err.path))))
        bad += 1
sys.exit(1 if bad else 0)
