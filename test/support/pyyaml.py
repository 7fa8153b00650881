"""PyYAML as Dify runs it (safe_load), as an oracle for Weft's YAML reader.

Reads a JSON list of YAML texts on stdin; prints a JSON list with, for each, {"value": ...} or {"error": "..."}.
Timestamps keep their source text (Weft's documented choice: Dify cannot store datetimes); non-finite floats are
written as {"$float": "inf" | "-inf" | "nan"} because JSON has no spelling for them.
"""
import json
import math
import sys

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Oracle(Loader):
    pass


Oracle.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def plain(v):
    if isinstance(v, float) and not math.isfinite(v):
        return {"$float": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    if isinstance(v, dict):
        # json.dump spells non-string keys as JSON would (None -> "null", True -> "true", 1 -> "1"), as Dify does.
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


out = []
for text in json.load(sys.stdin):
    try:
        out.append({"value": plain(yaml.load(text, Loader=Oracle))})
    except yaml.YAMLError as e:
        out.append({"error": str(e).splitlines()[0]})
json.dump(out, sys.stdout, ensure_ascii=False)
