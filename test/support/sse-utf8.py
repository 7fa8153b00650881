"""Read a Dify SSE stream as Dify's Python SDK does (requests, iter_lines(decode_unicode=True)).

Prints one JSON line: the response encoding requests chose, how many `data:` events parsed and failed, and
the text the End node streamed. Arguments: URL, app key, JSON body.
"""
import json
import sys

import requests

url, key, body = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
r = requests.post(url, json=body, headers={"Authorization": f"Bearer {key}"}, stream=True, timeout=60)
parsed, failed, text, events = 0, 0, "", []
for line in r.iter_lines(decode_unicode=True):
    if not line or not line.startswith("data:"):
        continue
    try:
        e = json.loads(line[5:])
    except ValueError:
        failed += 1
        continue
    parsed += 1
    events.append(e["event"])
    if e["event"] == "text_chunk":
        text += e["data"]["text"]
    if e["event"] == "workflow_finished":
        result = e["data"]["outputs"].get("result")
print(json.dumps({"encoding": r.encoding, "parsed": parsed, "failed": failed, "text": text,
                  "result": result, "events": events}, ensure_ascii=False))
