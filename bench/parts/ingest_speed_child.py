"""One ingest replay in a fresh process: `python -m bench.parts.ingest_speed_child '<json>'`, run by
bench.parts.ingest_speed.run_child().

The process that runs the whole bench holds collections of 100,000 memories and the earlier parts'
leftovers by the time it measures ingest, and a live add measured there cost half as much again as in
a fresh process. A fresh process per replay measures what an add costs a worker (mem0's side runs in
a process of its own too). Before the measured replay, the same Engram (one
Container, as one warm Lambda container) takes a few adds of another user, so the first-use costs
(imports, AWS and OpenAI clients, model, validators) are paid before it, and at least one of them
reaches the LLM.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace


def main(argv: list[str]) -> int:
    from bench.data.locomo_data import load
    from bench.parts.ingest_speed import MODES, WARM_UP_TURNS, replay
    from bench.rig.engram_env import engram_env, shared_embedder
    from bench.rig.procs import StubCounters
    from engram.adapters.recent_embeddings import RecentEmbeddings

    arg = json.loads(argv[0])
    every = load()
    llm = StubCounters(arg["llm_url"])
    mode = MODES[arg["mode"]]
    shared_embedder()
    # The warm-up says what no measured add says: the last turns of the last conversation.
    spare = replace(every[-1], sample_id="warm-up", turns=every[-1].turns[-WARM_UP_TURNS:])
    # The embedder as the bootstrap wires it (recent vectors answered from memory).
    env = engram_env(arg["moto"], arg["llm_url"], embedder=RecentEmbeddings(shared_embedder()))
    replay(env, llm, [spare], mode, WARM_UP_TURNS)
    measured = [every[i] for i in arg["conversations"]]
    if arg.get("profile"):  # bench/labs/profile_add.py: where the measured adds spend their CPU
        import cProfile
        import time

        profile = cProfile.Profile(time.process_time)  # CPU, not the wait on moto and the stub LLM
        row = profile.runcall(replay, env, llm, measured, mode, arg["turns"])
        profile.dump_stats(arg["profile"])
    else:
        row = replay(env, llm, measured, mode, arg["turns"])
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
