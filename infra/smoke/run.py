"""`make smoke`: the three functions run here the way Lambda runs them, from what `make build`'s
Makefiles produce.

    python infra/smoke/run.py [--python python3.12] [--source FORMULARY] [--keep DIR]

1. Builds the core layer for this machine's architecture (`shared/Makefile`, LAYER_ARCH=uname -m),
   the data layer (`infra/data/Makefile`: the index of --source, `make build`'s DUOCTHU_SOURCE,
   else the sample, packed) and the three functions. The question and the drug it asks about
   come from the built pack's catalogue, so what was built is what is smoked.
2. Lays the layers out as Lambda mounts them: one /opt with python/ and duocthu/ (read-only).
3. Runs each function's app.handler in a fresh python3.12 process without site-packages, with the
   template's default environment, a fresh empty /tmp of its own, and every other mount read-only
   (a private mount namespace: `unshare --mount`), through real API Gateway v2 events and direct
   invokes. The chat function starts twice on the same /tmp: the second init reuses the index.
4. Checks /health 200, a chat turn ANSWERABLE with its citation, the other routes and invokes,
   and that nothing was written outside /tmp; prints init and first-turn times. Exit 1 on a failure.
5. Builds the optional layers (qdrant-client, cohere) too, lays all three out in one /opt and
   checks, in a fresh python3.12 -S, that a Qdrant-server store and the Cohere reranker are
   constructed from them (no network: nothing is called). --no-optional skips it (it is the slow
   part the first time: pip downloads numpy, grpc, tokenizers).

Where no mount namespace can be made (no root, no user namespaces; --no-namespace to try it), it
says so and runs without one: /opt, the task roots and HOME are then checked by comparing their
files before and after, and a write to the real /tmp (the X-Ray SDK's /tmp/.aws-xray) goes unseen.
Sessions go to files under /tmp: the stack's DynamoDB table is not here (CONVERSATION_TABLE="").
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backports.zstd import ZstdFile

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "infra"))
from check_build import read_template  # noqa: E402

FUNCTIONS = {"chat": "ChatFunction", "understand": "UnderstandFunction", "retrieve": "RetrieveFunction"}
SECTION_KEY = "chong_chi_dinh"
PSEUDO = {"AWS::Region": "ap-southeast-1", "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}


@dataclass(frozen=True)
class Probe:
    """The drug the smoke asks about, from the built pack's catalogue."""

    drug_id: str
    title: str

    @property
    def question(self) -> str:
        return f"Chống chỉ định của {self.title} là gì?"

    @property
    def section(self) -> dict[str, str]:
        return {"drug_id": self.drug_id, "section_key": SECTION_KEY}


SAMPLE_PROBE = Probe("amoxicilin", "Amoxicilin")


def pack_probe(pack: Path) -> Probe:
    """A drug of the pack's catalogue with a contraindication section and a one-word title (a
    title naming two drugs would make /v1/drugs answer both): the sample's amoxicilin when there."""
    with ZstdFile(pack) as raw, tarfile.open(fileobj=raw, mode="r|") as stream:
        for member in stream:
            if member.name.endswith("/catalog.json"):
                handle = stream.extractfile(member)
                drugs = json.load(handle)["drugs"] if handle else []
                break
        else:
            raise SystemExit(f"smoke: {pack} holds no catalog.json")
    usable = sorted(
        (d for d in drugs if SECTION_KEY in d.get("section_keys", ()) and len(d["title"].split()) == 1),
        key=lambda d: (d["drug_id"] != SAMPLE_PROBE.drug_id, d["drug_id"]),
    )
    if not usable:
        raise SystemExit(f"smoke: no drug of {pack} has a one-word title and a {SECTION_KEY} section")
    return Probe(usable[0]["drug_id"], usable[0]["title"])


def work_folder(keep: Path | None) -> Path:
    """Where the smoke builds and runs: never under /tmp, which the jail replaces with a fresh
    one (a checkout under /tmp works in ~/.cache instead)."""
    if keep is not None:
        return keep.resolve()
    inside = (ROOT / ".duocthu" / "smoke").resolve()
    if not inside.is_relative_to("/tmp"):
        return inside
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (cache / "duocthu-smoke").resolve()


# Inside the namespace: the fresh folder becomes /tmp, the layers /opt, every other mount read-only.
JAIL = r"""
set -e
[ -d /opt ] || mkdir /opt  # the mount point (Lambda's layers live there)
mount --make-rprivate /
mount --bind "$SMOKE_OPT" /opt
mount --bind "$SMOKE_TMP" /tmp
findmnt -rn -o TARGET | while read -r mp; do
  case "$mp" in /proc*|/sys*|/dev*|/tmp) ;; *) mount -o remount,bind,ro "$mp" 2>/dev/null || true ;; esac
done
for probe in /opt/.probe "$SMOKE_TASK/.probe" "$HOME/.probe"; do
  if touch "$probe" 2>/dev/null; then echo "smoke: $probe is writable" >&2; exit 97; fi
done
exec "$@"
"""


def _run(*cmd: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:  # pip's resolver notes about other environments are noise otherwise
        raise SystemExit(f"smoke: {' '.join(cmd)} failed:\n{done.stderr[-3000:]}")


def build(work: Path, python312: str, source: str = "") -> tuple[Path, dict[str, Path]]:
    """The layers merged into one /opt, and each function's task root."""
    layers, arch = work / "layers", platform.machine()
    duocthu = str(Path(sys.executable).with_name("duocthu"))
    _run(
        "make",
        "-s",
        "-C",
        str(ROOT / "shared"),
        "build-SharedLayer",
        f"ARTIFACTS_DIR={layers / 'SharedLayer'}",
        f"LAYER_ARCH={arch}",
        f"LAYER_PYTHON={python312}",
    )
    data = layers / "DataLayer"
    _run("make", "-s", "-C", str(ROOT / "infra" / "data"), "build-DataLayer",
         f"ARTIFACTS_DIR={data}", f"DUOCTHU={duocthu}", f"DUOCTHU_SOURCE={source}")  # fmt: skip
    opt = work / "opt"
    for layer in ("SharedLayer", "DataLayer"):  # Lambda extracts the layers, in order, into /opt
        shutil.copytree(layers / layer, opt, dirs_exist_ok=True)
    tasks = {}
    for name, resource in FUNCTIONS.items():
        tasks[name] = work / "task" / name
        tasks[name].mkdir(parents=True)
        _run("make", "-s", "-C", str(ROOT / "functions" / name), f"build-{resource}",
             f"ARTIFACTS_DIR={tasks[name]}")  # fmt: skip
    return opt, tasks


# What QdrantUrl / RerankProvider=cohere make a function construct at start, from the layers alone.
OPTIONAL_PROBE = """
import sys
sys.path.insert(0, sys.argv[1] + "/python")
from duocthu.providers.rerank import get_reranker
from duocthu.settings import Settings
from duocthu.store import open_store
store = open_store(Settings(qdrant_url="http://127.0.0.1:9"))
reranker = get_reranker(Settings(rerank_provider="cohere", cohere_api_key="smoke"))
outside = [m.__file__ for n in ("qdrant_client", "numpy", "grpc", "cohere", "tokenizers")
           if not (m := sys.modules[n]).__file__.startswith(sys.argv[1])]
assert not outside, outside
print(type(store).__name__, type(reranker).__name__)
"""


def check_optional_layers(work: Path, python312: str) -> list[str]:
    """The optional layers, merged over the core as Lambda merges them, import and construct."""
    layers, arch = work / "layers", platform.machine()
    opt = work / "opt-optional"
    shutil.copytree(layers / "SharedLayer", opt)
    for layer in ("QdrantLayer", "CohereLayer"):
        target = layers / layer
        _run("make", "-s", "-C", str(ROOT / "shared"), f"build-{layer}",
             f"ARTIFACTS_DIR={target}", f"LAYER_ARCH={arch}", f"LAYER_PYTHON={python312}")  # fmt: skip
        shutil.copytree(target, opt, dirs_exist_ok=True)
    probe = [python312, "-S", "-B", "-c", OPTIONAL_PROBE, str(opt)]
    done = subprocess.run(probe, capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    print(f"optional layers: {done.stdout.strip() or 'failed'}")
    return [] if done.returncode == 0 else [f"optional layers: {done.stderr.strip()[-1500:]}"]


def _evaluate(value: Any, template: dict[str, Any]) -> Any:
    """A template value with every parameter at its default (Ref, If, Sub, Equals, Not, And)."""
    params = {k: str(v.get("Default", "")) for k, v in template.get("Parameters", {}).items()}
    if not isinstance(value, dict):
        return value
    ((op, arg),) = value.items()
    if op == "Ref":
        return params.get(arg, PSEUDO.get(arg, f"<{arg}>"))
    if op == "Condition":
        return _evaluate(template["Conditions"][arg], template)
    if op == "Fn::If":
        return _evaluate(arg[1] if _evaluate({"Condition": arg[0]}, template) else arg[2], template)
    if op == "Fn::Equals":
        return _evaluate(arg[0], template) == _evaluate(arg[1], template)
    if op == "Fn::Not":
        return not _evaluate(arg[0], template)
    if op == "Fn::And":
        return all(_evaluate(a, template) for a in arg)
    if op == "Fn::Sub":
        return "" if "${" in arg else arg
    raise ValueError(f"cannot evaluate {op}")


def template_environment(template: dict[str, Any]) -> dict[str, str]:
    """The functions' environment as a deploy with the default parameters sets it."""
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    env = {k: str(_evaluate(v, template)) for k, v in variables.items()}
    env["CONVERSATION_TABLE"] = ""  # the stack's table is not here: sessions go to files in /tmp
    # what Lambda tells a function of its memory, which decides how a cold start uses its CPUs
    memory = _evaluate(template["Globals"]["Function"]["MemorySize"], template)
    env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(memory)
    return env


def http_event(method: str, path: str, body: Any = None, query: str = "") -> dict[str, Any]:
    base = json.loads((ROOT / "infra" / "events" / "apiGatewayProxyV2Event.json").read_text("utf-8"))
    event = copy.deepcopy(base)
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["rawQueryString"] = query
    if query:
        event["queryStringParameters"] = dict(p.split("=", 1) for p in query.split("&"))
    event["body"] = None if body is None else json.dumps(body, ensure_ascii=False)
    return event


def events(function: str, probe: Probe = SAMPLE_PROBE) -> list[tuple[str, Any]]:
    return {
        "chat": [
            ("POST /v1/chat", http_event("POST", "/v1/chat", {"message": probe.question})),
            ("GET /health", http_event("GET", "/health")),
            ("GET /v1/drugs", http_event("GET", "/v1/drugs", query=f"q={probe.title.lower()}")),
        ],
        "understand": [
            ("POST /v1/understand", http_event("POST", "/v1/understand", {"message": probe.question})),
            ("direct", {"message": probe.question}),
        ],
        "retrieve": [
            ("POST /v1/retrieve", http_event("POST", "/v1/retrieve", probe.section)),
            ("direct", probe.section),
        ],
    }[function]


def _response(result: dict[str, Any]) -> tuple[int | None, Any]:
    output = result["output"]
    if isinstance(output, dict) and "statusCode" in output:
        return output["statusCode"], json.loads(output.get("body") or "null")
    return None, output


def _answers_from(body: Any, drug_id: str) -> bool:
    bundle = body.get("bundle", body) if isinstance(body, dict) else {}
    drugs = {item.get("drug_id") for item in bundle.get("evidence", [])}
    return bundle.get("decision") == "ANSWERABLE" and drugs == {drug_id}


def problems(function: str, results: list[dict[str, Any]], probe: Probe = SAMPLE_PROBE) -> list[str]:
    """What in a function's results is not what a working deployment answers."""
    drug = probe.drug_id
    found = []
    for result in results:
        name = f"{function} {result['name']}"
        if result["error"]:
            found.append(f"{name}: raised {result['error']}")
            continue
        status, body = _response(result)
        if result["name"] != "direct" and status != 200:
            found.append(f"{name}: HTTP {status} {str(body)[:300]}")
        elif result["name"] == "POST /v1/chat" and not (_answers_from(body, drug) and body.get("citations")):
            found.append(f"{name}: not ANSWERABLE with its citation: {str(body)[:300]}")
        elif (result["name"] == "GET /health" and body.get("status") != "ok") or (
            result["name"] == "GET /v1/drugs" and [d["drug_id"] for d in body["drugs"]] != [drug]
        ):
            found.append(f"{name}: {body}")
        elif function == "understand" and drug not in body.get("frame", body).get("drugs", []):
            # over HTTP the frame; a direct invoke (the state machine's Understand) the frame and its plan
            found.append(f"{name}: the frame names no {drug}: {str(body)[:300]}")
        elif function == "retrieve" and not _answers_from(body, drug):
            found.append(f"{name}: not ANSWERABLE from {drug}: {str(body)[:300]}")
    return found


def can_jail() -> bool:
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False)
    return probe.returncode == 0


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns)
        for folder in folders
        for p in folder.rglob("*")
        if not p.is_symlink()
    }


def invoke(
    function: str, task: Path, opt: Path, tmp: Path, env: dict[str, str], jailed: bool, probe: Probe
) -> Any:
    events_file = tmp.parent / f"{function}-events.json"
    events_file.write_text(json.dumps(events(function, probe), ensure_ascii=False), encoding="utf-8")
    handler_env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TZ": ":UTC",
        "HOME": str(tmp.parent / "home"),
        "LAMBDA_TASK_ROOT": str(task),
        "AWS_LAMBDA_FUNCTION_NAME": f"duocthu-{function}",
        "AWS_REGION": "ap-southeast-1",
        "AWS_DEFAULT_REGION": "ap-southeast-1",
        "AWS_ACCESS_KEY_ID": "smoke",  # no AWS call is made on the default path; none may succeed
        "AWS_SECRET_ACCESS_KEY": "smoke",
        "_X_AMZN_TRACE_ID": "Root=1-65f0c0de-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0",
        **env,
    }
    script = str(tmp.parent / "invoke.py")  # in the work folder: the checkout may be under /tmp
    shutil.copyfile(Path(__file__).with_name("invoke.py"), script)
    if jailed:
        command = ["unshare", "--mount", "sh", "-c", JAIL, "jail",
                   env["PYTHON"], "-S", script, str(task), "/opt", str(events_file)]  # fmt: skip
        handler_env.update(SMOKE_TMP=str(tmp), SMOKE_OPT=str(opt), SMOKE_TASK=str(task))
    else:  # the template's /tmp and /opt paths moved into the work folder; no bytecode written
        command = [env["PYTHON"], "-S", "-B", script, str(task), str(opt), str(events_file)]
        handler_env.update(
            TMPDIR=str(tmp),
            DUOCTHU_DATA_DIR=env["DUOCTHU_DATA_DIR"].replace("/tmp", str(tmp), 1),
            DUOCTHU_PACKED_INDEX=env["DUOCTHU_PACKED_INDEX"].replace("/opt", str(opt), 1),
        )
    done = subprocess.run(command, env=handler_env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"smoke: {function} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3.12", help="the Lambda runtime's Python (3.12)")
    parser.add_argument(
        "--source",
        default=os.environ.get("DUOCTHU_SOURCE", ""),
        help="the formulary to build (default: DUOCTHU_SOURCE, else the sample)",
    )
    parser.add_argument(
        "--keep", type=Path, help="work in this folder (not under /tmp) and keep it (default: .duocthu/smoke)"
    )
    parser.add_argument("--memory", type=int, help="MiB, as FunctionMemoryMiB sets it (default: template)")
    parser.add_argument("--no-optional", action="store_true", help="skip the qdrant-client and cohere layers")
    parser.add_argument("--no-namespace", action="store_true", help="as where no mount namespace can be made")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    work = work_folder(args.keep)  # not under /tmp: inside the namespace a fresh one hides it
    shutil.rmtree(work, ignore_errors=True)
    (work / "home").mkdir(parents=True)
    source = str(Path(args.source).resolve()) if args.source else ""
    opt, tasks = build(work, args.python, source)
    probe = pack_probe(opt / "duocthu" / "index.tar.zst")
    print(f"smoke: {source or 'the sample'}; asking about {probe.drug_id}: {probe.question}")
    built = time.perf_counter() - started
    jailed = not args.no_namespace and can_jail()
    if not jailed:
        print("smoke: no mount namespace here (unshare --mount); writes checked by comparing files only")
    env = {**template_environment(read_template(ROOT / "template.yaml")), "PYTHON": args.python}
    if args.memory:
        env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(args.memory)
    print(f"smoke: functions at {env['AWS_LAMBDA_FUNCTION_MEMORY_SIZE']} MB")
    before = snapshot(opt, work / "task", work / "home")
    failures: list[str] = []
    runs = [("chat", "chat"), ("chat", "chat (second init, same /tmp)"), ("understand", ""), ("retrieve", "")]
    for function, label in runs:
        tmp = work / f"tmp-{function}"
        tmp.mkdir(exist_ok=True)  # a fresh, empty /tmp per container; the second chat init reuses it
        out = invoke(function, tasks[function], opt, tmp, env, jailed, probe)
        failures += problems(function, out["results"], probe)
        first = out["results"][0]
        print(f"{label or function}: init {out['init_ms']:.0f} ms, first turn ({first['name']}) "
              f"{first['ms']:.0f} ms, peak RSS {out['max_rss_mb']:.0f} MB; "
              f"/tmp holds {sorted(p.name for p in tmp.iterdir())}")  # fmt: skip
    if snapshot(opt, work / "task", work / "home") != before:
        failures.append("files changed outside /tmp (in /opt, a task root or HOME)")
    if not args.no_optional:
        failures += check_optional_layers(work, args.python)
    total = time.perf_counter() - started
    mode = "read-only mounts" if jailed else "no namespace"
    print(f"smoke: build {built:.0f} s, total {total:.0f} s, {mode}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print("smoke: " + ("FAILED" if failures else "all checks passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
