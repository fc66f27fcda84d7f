"""Runs inside the smoke's fresh python3.12 process (-S: no site-packages), the way Lambda's
bootstrap does: the task root and /opt/python on sys.path, `app` imported once (the init), then
each event through app.handler. Prints one JSON object: init time, peak memory, and each result with its time.

    python3.12 -S invoke.py TASK_ROOT OPT EVENTS.json
"""

import json
import resource
import sys
import time

task_root, opt, events_path = sys.argv[1:4]
sys.path[:0] = [task_root, f"{opt}/python"]


class Context:
    function_name = "smoke"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:ap-southeast-1:123456789012:function:smoke"
    aws_request_id = "00000000-0000-4000-8000-000000000000"

    def __init__(self) -> None:
        self._deadline = time.monotonic() + 29  # the template's Timeout

    def get_remaining_time_in_millis(self) -> int:
        return int((self._deadline - time.monotonic()) * 1000)


with open(events_path, encoding="utf-8") as handle:
    events = json.load(handle)
start = time.perf_counter()
import app  # noqa: E402  (the init: imports, the runtime, the index unpacked into /tmp)

init_ms = (time.perf_counter() - start) * 1000
results = []
for name, event in events:
    start = time.perf_counter()
    try:
        output, error = app.handler(event, Context()), None
    except Exception as err:  # a direct invoke's raised error is its result, as Lambda reports it
        output, error = None, f"{type(err).__name__}: {err}"
    elapsed = (time.perf_counter() - start) * 1000
    results.append({"name": name, "ms": elapsed, "output": output, "error": error})
max_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
summary = {"init_ms": init_ms, "max_rss_mb": max_rss_mb, "results": results}
print(json.dumps(summary, ensure_ascii=False, default=str))
