#!/usr/bin/python3
# man_schema.py MANPAGE DOC.json...: validate JSON documents against the
# JSON Schema printed in a man page between the lines
#   .\" json-schema-begin   and   .\" json-schema-end
# (python3-jsonschema when installed, else a small validator of the
# keywords the pages use: type, enum, required, properties, items).
import json
import sys


def schema_from_man(path):
    text = open(path).read()
    begin = text.index('.\\" json-schema-begin')
    end = text.index('.\\" json-schema-end')
    lines = [l for l in text[begin:end].splitlines()[1:] if not l.startswith(".")]
    return json.loads("\n".join(lines))


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(v, s, where, errors):
    t = s.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(type_ok(v, x) for x in ts):
            errors.append("%s: %r is not of type %s" % (where, v, t))
            return
    if "enum" in s and v not in s["enum"]:
        errors.append("%s: %r not in %s" % (where, v, s["enum"]))
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errors.append("%s: %s is required" % (where, k))
        for k, sub in s.get("properties", {}).items():
            if k in v:
                check(v[k], sub, where + "." + k, errors)
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            check(x, s["items"], "%s[%d]" % (where, i), errors)


def main():
    schema = schema_from_man(sys.argv[1])
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    bad = 0
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        if jsonschema:
            errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(doc)]
        else:
            errors = []
        mine = []
        check(doc, schema, "$", mine)
        for e in errors + mine:
            print("%s: %s" % (path, e))
        bad += len(errors) + len(mine)
    print("%d documents, %d schema errors (%s)" %
          (len(sys.argv) - 2, bad, "jsonschema and built-in" if jsonschema else "built-in"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
