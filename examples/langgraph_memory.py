"""A LangGraph graph whose long-term memory is Engram: one node saves what the user said, one recalls.

    make run                                                    # terminal 1: prints the local API key
    ENGRAM_API_KEY=<key> .venv/bin/python examples/langgraph_memory.py --user-id alice \
        "I love spicy ramen" "I have a dog called Rex" "what pet do I have?"

A message ending in "?" is a question: the graph searches the user's items (EngramStore) and a LangChain
retriever (EngramRetriever) over all the user's memories, and prints what each found. Any other message is
saved as an item in ("users", user_id, "notes"). No chat model is needed; put one in the `answer` node.
"""

from __future__ import annotations

import argparse
import uuid
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from engram_client import Engram
from engram_client.langchain_retriever import EngramRetriever
from engram_client.langgraph_store import EngramStore


class State(TypedDict):
    user_id: str
    message: str
    found: list[str]


def remember(state: State, runtime: Runtime[None]) -> dict[str, list[str]]:
    assert runtime.store is not None  # noqa: S101 - compiled with a store below
    namespace = ("users", state["user_id"], "notes")
    runtime.store.put(namespace, uuid.uuid4().hex, {"text": state["message"]})
    return {"found": []}


def recall(state: State, runtime: Runtime[None]) -> dict[str, list[str]]:
    assert runtime.store is not None  # noqa: S101 - compiled with a store below
    items = runtime.store.search(("users", state["user_id"]), query=state["message"], limit=3)
    return {"found": [str(item.value.get("text")) for item in items]}


def route(state: State) -> str:
    return "recall" if state["message"].rstrip().endswith("?") else "remember"


def build(store: EngramStore) -> Any:
    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_conditional_edges(START, route, ["remember", "recall"])
    graph.add_edge("remember", END)
    graph.add_edge("recall", END)
    return graph.compile(store=store)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--user-id", default="alice")
    parser.add_argument("messages", nargs="+")
    args = parser.parse_args()
    # ENGRAM_URL / ENGRAM_API_KEY; the items' "text" is what search ranks and the retriever shows
    with Engram() as client, EngramStore(client=client, index_fields=["text"]) as store:
        app = build(store)
        retriever = EngramRetriever(user_id=args.user_id, client=client, top_k=3)
        for message in args.messages:
            state = app.invoke({"user_id": args.user_id, "message": message, "found": []})
            if not state["found"]:
                print(f"saved: {message}")
                continue
            print(f"{message}\n  store: {state['found']}")
            print(f"  retriever: {[d.page_content for d in retriever.invoke(message)]}")


if __name__ == "__main__":
    main()
