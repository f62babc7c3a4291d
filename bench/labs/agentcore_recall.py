"""LoCoMo recall through AgentCore Memory's API beside Engram's own, on one local stack in one run.

Issue 45 asks that retrieval through the AgentCore API (boto3's `bedrock-agentcore` client, SigV4-signed
against ENGRAM_AGENTCORE_KEYS) be within 0.01 of the HTTP figure. The same conversations go in two ways:

- `http`: Engram's own API as `bench.labs.locomo_http` sends it: a POST /v1/memories per turn with
  `locomo_recall.turn_request`'s body (speaker as the message's `name` and in the text, `created_at` when it
  was said, infer=false, deduplicate=false), a POST /v1/memories/search (top_k=20) per question.
- `agentcore`: into another tenant, a CreateEvent per turn (actor = the conversation's user, session = the
  LoCoMo session, eventTimestamp = when it was said, one USER turn whose text keeps the "Speaker: " prefix,
  the speaker's name as the `speaker` metadata that names an event's USER turns, the turn's bookkeeping as
  event metadata), then per question a RetrieveMemoryRecords (topK=20) on each strategy's namespace path of
  the actor (a namespace path names one strategy), merged by score.
CreateEvent extracts (infer=true) where the HTTP figure stores raw turns, so two more rankings from the same
run tell what the read API changes:
- `agentcore, episodic only`: the `agentcore` arm's retrieval of the episodic path alone (turns kept as said);
- `agentcore events, /v1 search`: the memories the events made, searched through POST /v1/memories/search
  (the same memories, the other read API).
`--split` sends no event: it parts what an event is over /v1 instead, each arm another user of the `http`
tenant, the session as run_id: `v1, extracted, name` (the add CreateEvent submits for the lab's event),
`v1, extracted, no name` (the one it submitted before it read `speaker`), `v1, as said, no name` (infer and
deduplicate off); written as agentcore_recall_split.json in bench/results/.

Every hit counts for its memory's `dia_id` metadata; scoring is `locomo_recall`'s. `--conversations N` takes
the first N conversations (`--only conv-26` one of them), `--questions M` the first M scored questions of
each; `--out FILE` writes elsewhere. The figures are printed and
written to bench/results/agentcore_recall.json.

    LOCOMO_PATH=../shared/bench/locomo10.json python -m bench.labs.agentcore_recall --conversations 1
    LOCOMO_PATH=../shared/bench/locomo10.json python -m bench.labs.agentcore_recall --conversations 3 --split
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import boto3
import httpx
from botocore.config import Config

from bench.data.locomo_data import Conversation, Question, Turn, load
from bench.parts.locomo_recall import KS, _scores, said_at, turn_request
from bench.rig.procs import ROOT, LocalStack
from engram.agentcore.ids import EPISODIC, STRATEGIES, memory_id_of
from engram.agentcore.service import SPEAKER_KEY

TENANT = "agentcore-bench"
ACCESS_KEY, SECRET_KEY = "AKIAENGRAMBENCH00001", "bench/agentcore/secret/0000000000000000"
TENANT_API_KEY = "bench-agentcore-key-0123456789"  # /v1 for the AgentCore tenant, to search its memories
TOP_K = max(KS)
HTTP, AGENTCORE = "http", "agentcore"
EPISODIC_ONLY, EVENTS_V1 = "agentcore, episodic only", "agentcore events, /v1 search"
# --split: what an event is, parted over /v1 (infer, named): extracted or kept as said, with or without the
# speaker's name. NAMED is the add CreateEvent submits for `event_request`'s event; UNNAMED the one it
# submitted before it read the `speaker` metadata.
UNNAMED, NAMED, AS_SAID = "v1, extracted, no name", "v1, extracted, name", "v1, as said, no name"
SPLIT_ARMS = {UNNAMED: (True, False), NAMED: (True, True), AS_SAID: (False, False)}
Ranked = list[tuple[int, list[str], Sequence[str]]]


def session_of(turn: Turn) -> str:
    return f"session_{turn.session}"


def event_request(conv: Conversation, turn: Turn, memory_id: str) -> dict[str, Any]:
    """CreateEvent's arguments for one turn: said by the conversation's user at the turn's time, in its
    LoCoMo session, the text as the HTTP run stores it (speaker in front), the speaker's name as the
    `speaker` metadata (docs/agentcore.md: what names an event's USER turns), the bookkeeping as metadata."""
    said = said_at(turn)
    if said is None:
        raise ValueError(f"turn {turn.dia_id} has no date; an event needs its time")
    metadata = turn.metadata() | {SPEAKER_KEY: turn.speaker}
    return {
        "memoryId": memory_id,
        "actorId": conv.user_id,
        "sessionId": session_of(turn),
        "eventTimestamp": said,
        "payload": [{"conversational": {"content": {"text": turn.memory_text(dated=False)}, "role": "USER"}}],
        "metadata": {key: {"stringValue": str(value)} for key, value in metadata.items()},
    }


def v1_add(conv: Conversation, turn: Turn, user_id: str, infer: bool, named: bool) -> dict[str, Any]:
    """A /v1 body for one turn in the event's session: extracted (`infer`, deduplicate on) or kept as said
    (infer and deduplicate off, as the http arm), with the speaker as the message's `name` or without."""
    said = said_at(turn)
    if said is None:
        raise ValueError(f"turn {turn.dia_id} has no date; an event needs its time")
    message: dict[str, Any] = {"role": "user", "content": turn.memory_text(dated=False), "created_at": said.isoformat()}
    metadata = turn.metadata()
    if named:
        message["name"] = metadata[SPEAKER_KEY] = turn.speaker
    body: dict[str, Any] = {
        "user_id": user_id,
        "run_id": session_of(turn),
        "messages": [message],
        "metadata": {key: str(value) for key, value in metadata.items()},
        "infer": infer,
    }
    return body if infer else body | {"deduplicate": False}


def namespace_paths(actor_id: str) -> list[str]:
    """Every namespace of an actor, one path per built-in strategy (a path cannot span strategies)."""
    return [f"/strategies/{strategy}/actors/{actor_id}/" for strategy in STRATEGIES]


def merge_by_score(per_namespace: Iterable[Sequence[dict[str, Any]]], top_k: int) -> list[dict[str, Any]]:
    """The records of several retrievals as one ranking: highest score first (ties keep the calls'
    order), each record once, the first top_k."""
    seen: set[str] = set()
    merged: list[dict[str, Any]] = []
    for records in per_namespace:
        for record in records:
            if record["memoryRecordId"] not in seen:
                seen.add(record["memoryRecordId"])
                merged.append(record)
    merged.sort(key=lambda r: -float(r["score"]))
    return merged[:top_k]


def record_dia_id(record: dict[str, Any]) -> str:
    return str(record.get("metadata", {}).get("dia_id", {}).get("stringValue", "?"))


def memory_dia_id(memory: dict[str, Any]) -> str:
    return str((memory.get("metadata") or {}).get("dia_id", "?"))


def scored_questions(conv: Conversation, limit: int | None) -> list[Question]:
    questions = [q for q in conv.questions if q.evidence]
    return questions if limit is None else questions[:limit]


def _post(client: httpx.Client, body: dict[str, Any]) -> str:
    return str(client.post("/v1/memories", json=body).raise_for_status().json()["task_id"])


def _wait_tasks(client: httpx.Client, task_ids: Sequence[str]) -> int:
    """Waits for every add; returns how many failed."""
    failed = 0
    for task_id in task_ids:  # one user's tasks finish in order (FIFO)
        while (task := client.get(f"/v1/tasks/{task_id}").json())["status"] not in ("completed", "failed"):
            time.sleep(0.1)
        failed += task["status"] != "completed"
    return failed


def _wait_events(agentcore: Any, memory_id: str, conv: Conversation, timeout_s: float = 1800) -> int:
    """Waits until the memories of the conversation's last event are listed (one actor's adds are read in
    order: a FIFO group per user); returns the extraction jobs that failed."""
    last = conv.turns[-1]
    wanted = {
        "left": {"metadataKey": "dia_id"},
        "operator": "EQUALS_TO",
        "right": {"metadataValue": {"stringValue": last.dia_id}},
    }
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = agentcore.list_memory_records(
            memoryId=memory_id,
            namespacePath=f"/strategies/episodic/actors/{conv.user_id}/",
            metadataFilters=[wanted],
            maxResults=100,
        )["memoryRecordSummaries"]
        if found:
            break
        time.sleep(1.0)
    else:
        raise RuntimeError(f"the events of {conv.sample_id} were not read within {timeout_s} s")
    sessions = {session_of(turn) for turn in conv.turns}
    return sum(
        len(
            agentcore.list_memory_extraction_jobs(memoryId=memory_id, filter={"actorId": conv.user_id, "sessionId": s})[
                "jobs"
            ]
        )
        for s in sorted(sessions)
    )


def _ask(
    clients: dict[str, httpx.Client], agentcore: Any, memory_id: str, conv: Conversation, q: Question, split: bool
) -> dict[str, list[str]]:
    def search(tenant: str, user_id: str) -> list[str]:
        body = {"user_id": user_id, "query": q.question, "top_k": TOP_K}
        hits = clients[tenant].post("/v1/memories/search", json=body).raise_for_status().json()["results"]
        return [memory_dia_id(h) for h in hits]

    if split:
        return {HTTP: search("bench", conv.user_id)} | {
            arm: search("bench", f"{conv.user_id}-{i}") for i, arm in enumerate(SPLIT_ARMS)
        }
    paths = namespace_paths(conv.user_id)
    retrieved = [
        agentcore.retrieve_memory_records(
            memoryId=memory_id,
            namespacePath=path,
            searchCriteria={"searchQuery": q.question, "topK": TOP_K},
            maxResults=TOP_K,
        )["memoryRecordSummaries"]
        for path in paths
    ]
    episodic = retrieved[paths.index(f"/strategies/{EPISODIC}/actors/{conv.user_id}/")]
    return {
        HTTP: search("bench", conv.user_id),
        AGENTCORE: [record_dia_id(r) for r in merge_by_score(retrieved, TOP_K)],
        EPISODIC_ONLY: [record_dia_id(r) for r in episodic],
        EVENTS_V1: search(TENANT, conv.user_id),
    }


def run(
    conversations: Sequence[Conversation],
    questions: int | None,
    work: Path,
    split: bool = False,
    report: Callable[[dict[str, Any]], None] = lambda _: None,
) -> dict[str, Any]:
    """The figures of every conversation; `report` gets those of the conversations done so far after each."""
    memory_id = memory_id_of(TENANT)
    arms = [HTTP, *SPLIT_ARMS] if split else [HTTP, AGENTCORE, EPISODIC_ONLY, EVENTS_V1]
    ranked: dict[str, Ranked] = {arm: [] for arm in arms}
    failed = dict.fromkeys([HTTP, *SPLIT_ARMS] if split else [HTTP, AGENTCORE], 0)
    keys = {
        "ENGRAM_AGENTCORE_KEYS": f"{ACCESS_KEY}:{SECRET_KEY}:{TENANT}",
        "ENGRAM_LOCAL_API_KEYS": f"bench:{LocalStack.API_KEY},{TENANT}:{TENANT_API_KEY}",
    }
    with (
        LocalStack(work / "stack-agentcore-recall", env=keys) as stack,
        httpx.Client(base_url=stack.url, headers=stack.headers, timeout=60) as client,
        httpx.Client(base_url=stack.url, headers={"x-api-key": TENANT_API_KEY}, timeout=60) as tenant_client,
    ):
        clients = {"bench": client, TENANT: tenant_client}
        agentcore = boto3.client(
            "bedrock-agentcore",
            endpoint_url=stack.url,
            region_name="us-east-1",
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=Config(retries={"max_attempts": 3, "mode": "standard"}, read_timeout=60),
        )
        for conv in conversations:
            http_tasks = [_post(client, turn_request(conv, turn)) for turn in conv.turns]
            if split:
                split_tasks = {
                    arm: [_post(client, v1_add(conv, turn, f"{conv.user_id}-{i}", *how)) for turn in conv.turns]
                    for i, (arm, how) in enumerate(SPLIT_ARMS.items())
                }
            else:
                for turn in conv.turns:
                    agentcore.create_event(**event_request(conv, turn, memory_id))
            failed[HTTP] += _wait_tasks(client, http_tasks)
            if split:
                for arm, tasks in split_tasks.items():
                    failed[arm] += _wait_tasks(client, tasks)
            else:
                failed[AGENTCORE] += _wait_events(agentcore, memory_id, conv)
            for q in scored_questions(conv, questions):
                for arm, dia_ids in _ask(clients, agentcore, memory_id, conv, q, split).items():
                    ranked[arm].append((q.category, dia_ids, q.evidence))
            so_far = _summary(conversations[: conversations.index(conv) + 1], questions, ranked, failed, split)
            print(f"{conv.sample_id} done; recall@10 so far: {json.dumps(so_far['recall@10'])}", file=sys.stderr)
            report(so_far)
    return _summary(conversations, questions, ranked, failed, split)


def _summary(
    conversations: Sequence[Conversation],
    questions: int | None,
    ranked: dict[str, Ranked],
    failed: dict[str, int],
    split: bool,
) -> dict[str, Any]:
    results = {arm: _scores(rows) for arm, rows in ranked.items()}
    search = f"POST /v1/memories/search top_k={TOP_K}"
    http_method = f"POST /v1/memories per turn (locomo_recall.turn_request: infer=false, deduplicate=false), {search}"
    if split:
        method = {HTTP: http_method} | {
            arm: f"POST /v1/memories per turn, run_id = session, {arm.removeprefix('v1, ')}; {search}"
            for arm in SPLIT_ARMS
        }
        pairs = [(arm, HTTP) for arm in SPLIT_ARMS] + [(NAMED, UNNAMED), (AS_SAID, UNNAMED)]
    else:
        method = {
            HTTP: http_method,
            AGENTCORE: f"CreateEvent per turn (tenant {TENANT}, the speaker as metadata {SPEAKER_KEY!r}); "
            f"RetrieveMemoryRecords topK={TOP_K} on each of {', '.join(STRATEGIES)} namespace paths of the actor, "
            "merged by score",
            EPISODIC_ONLY: f"the agentcore arm's RetrieveMemoryRecords on /strategies/{EPISODIC}/actors/<actor>/ alone",
            EVENTS_V1: f"the agentcore arm's memories, {search}",
        }
        pairs = [(AGENTCORE, HTTP), (AGENTCORE, EVENTS_V1), (EPISODIC_ONLY, HTTP)]
    return {
        "sample": {
            "conversations": [c.sample_id for c in conversations],
            "turns": sum(len(c.turns) for c in conversations),
            "questions_per_conversation": "all scored" if questions is None else f"the first {questions} scored",
            "questions_scored": len(ranked[HTTP]),
        },
        "method": method,
        "failed_adds": dict(failed),
        "results": results,
        "recall@10": {arm: results[arm]["overall"]["recall@10"] for arm in results},
        "difference_recall@10": {
            f"{a} - {b}": round(results[a]["overall"]["recall@10"] - results[b]["overall"]["recall@10"], 4)
            for a, b in pairs
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1, help="the first N LoCoMo conversations")
    parser.add_argument("--questions", type=int, default=None, help="the first M scored questions of each")
    parser.add_argument("--split", action="store_true", help="no AgentCore arm: /v1 arms that part what an event is")
    parser.add_argument("--only", help="this LoCoMo conversation alone (its sample id, e.g. conv-26)")
    parser.add_argument("--out", type=Path, help="the JSON file to write (default bench/results/agentcore_recall.json)")
    args = parser.parse_args(argv)
    convs = [c for c in load() if c.sample_id == args.only] if args.only else load()[: args.conversations]
    default = "agentcore_recall_split.json" if args.split else "agentcore_recall.json"
    path = args.out or ROOT / "bench" / "results" / default

    def write(out: dict[str, Any]) -> None:
        """After each conversation: a run stopped early leaves the figures of those it finished."""
        if not args.split:
            out["goal"] = "agentcore within 0.01 of http (recall@10)"
            out["within_0.01"] = abs(out["difference_recall@10"][f"{AGENTCORE} - {HTTP}"]) <= 0.01
        path.write_text(json.dumps(out, indent=2) + "\n")

    # The stack may still be writing its files as it stops: a failed clean-up must not cost the figures.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        out = run(convs, args.questions, Path(tmp), args.split, write)
    write(out)
    print(json.dumps(out, indent=2))
    return 0 if args.split or out["within_0.01"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
