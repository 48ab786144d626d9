#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# pycheck.py DIR SCHEMA PID: the checks of lib.sh's json_check and
# json_check_each, and json_value's values, answered by one Python for
# the whole case (its start, with jsonschema, costs seconds in a TCG
# guest and several times that on the debug kernel; a case makes dozens
# of checks).
#
# A request is a line "MODE DOC EXPR OUT" on DIR/req (MODE one, each or value;
# DOC the document(s), EXPR the expression, OUT where the messages go:
# paths); the answer is the exit status json_check had, a line on
# DIR/resp. The caller holds DIR/lock around the two. It exits when the
# case's shell, PID, is gone, or when run.sh, after the case, signals the
# pid it left in DIR/pid.

import json
import math
import os
import re
import select
import sys

d_ir, schema_path, shell = sys.argv[1], sys.argv[2], int(sys.argv[3])
jsonschema = schema = None
with open(os.path.join(d_ir, "pid"), "w") as f:
    f.write("%d\n" % os.getpid())


def validate(d):
    """A run's document against the schema (jsonschema imported when first
    needed: most of the cost of a start). The schema is checked and its
    validator built once: jsonschema.validate() does both for every
    document, seconds a document in a debug guest."""
    global jsonschema, schema
    if jsonschema is None:
        import jsonschema as js
        jsonschema = js
        with open(schema_path) as f:
            doc = json.load(f)
        cls = js.validators.validator_for(doc)
        cls.check_schema(doc)
        schema = cls(doc)
    error = jsonschema.exceptions.best_match(schema.iter_errors(d))
    if error is not None:
        raise error
req = os.fdopen(os.open(os.path.join(d_ir, "req"), os.O_RDWR), "r")
resp = os.open(os.path.join(d_ir, "resp"), os.O_RDWR)


def evaluate(expr, d, **names):
    """An expression of a case's over document d (and @names)."""
    return eval("(" + expr + ")", {"d": d, "json": json, "math": math, "re": re, "sys": sys,
                                   **names})


def one(text, expr, out):
    """json_check: one document; a run's document validated first."""
    d = json.loads(text)
    if isinstance(d, dict) and "schema_version" in d:
        try:
            validate(d)
        except jsonschema.ValidationError as e:
            print("schema: %s at %s on %s" % (e.message, list(e.absolute_path), json.dumps(d)),
                  file=out)
            return 1
    ok = evaluate(expr, d)
    if not ok:
        print("json check failed: " + expr + " on " + json.dumps(d), file=out)
    return 0 if ok else 1


def value(text, expr, out):
    """json_value: the expression's value over one document, a line (a
    list or tuple: an item a line)."""
    v = evaluate(expr, json.loads(text))
    for item in v if isinstance(v, (list, tuple)) else [v]:
        print(item, file=out)
    return 0


def each(text, expr, out):
    """json_check_each: a document a line, every one must hold."""
    bad = n = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        d = json.loads(line)
        try:
            if "schema_version" in d:
                validate(d)
            ok = evaluate(expr, d, n=n, line=line)
        except (KeyError, getattr(jsonschema, "ValidationError", KeyError)) as e:
            ok = False
            print("document %d: %s" % (n, e), file=out)
        if not ok:
            bad += 1
            print("json check failed on document %d: %s" % (n, line.strip()), file=out)
    print("# %d documents, %d failed" % (n, bad), file=out)
    return 1 if bad else 0


while True:
    r, _, _ = select.select([req], [], [], 1.0)
    if not r:
        try:
            os.kill(shell, 0)
        except ProcessLookupError:
            sys.exit(0)
        continue
    line = req.readline()
    try:
        mode, doc, expr, outp = line.split()
        with open(doc) as f:
            text = f.read()
        with open(expr) as f:
            e = f.read()
        with open(outp, "w") as out:
            try:
                rc = {"one": one, "each": each, "value": value}[mode](text, e, out)
            except Exception as ex:  # a bad document or expression fails the check
                print("json check failed: %s: %s" % (type(ex).__name__, ex), file=out)
                rc = 1
    except Exception as ex:
        print("pycheck: bad request %r: %s" % (line, ex), file=sys.stderr)
        rc = 2
    os.write(resp, b"%d\n" % rc)
