"""`engram` commands: add, search, list, show, history, forget, import, export, tail, mcp.

The server and key come from --url / --api-key, ENGRAM_URL / ENGRAM_API_KEY, or the config file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from engram_client.cli.config import config_app
from engram_client.cli.export import export_user
from engram_client.cli.extras import needs
from engram_client.cli.sources import SourceError, read_units
from engram_client.cli.transfer import Importer, ImportState, target_key
from engram_client.client import Engram
from engram_client.config import resolve
from engram_client.errors import EngramError
from engram_client.events import event_stream
from engram_client.models import Memory, Task

app = typer.Typer(
    help="Engram: long-term memory for AI assistants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(config_app, name="config")  # engram config get|set (cli/config.py)
out = Console()
err = Console(stderr=True)

UserOption = Annotated[str, typer.Option("--user-id", "-u", help="whose memories")]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]


@app.callback()
def connect(
    ctx: typer.Context,
    url: Annotated[str | None, typer.Option(envvar="ENGRAM_URL", help="server, e.g. http://127.0.0.1:3000")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="ENGRAM_API_KEY", help="API key")] = None,
) -> None:
    ctx.obj = {"url": url, "api_key": api_key}


def client(ctx: typer.Context) -> Engram:
    return Engram(ctx.obj["url"], ctx.obj["api_key"])


WideOption = Annotated[bool, typer.Option("--wide", help="every column, text whole (wider than the terminal)")]
WITH_BANK = 100  # columns from which a table of memories shows each one's bank
WITH_UPDATED = 120  # and from which it shows when each was last updated


def memory_table(memories: list[Memory], title: str, wide: bool = False) -> Table:
    """One line a memory, fitted to the terminal: ids whole (they are what show, history and forget
    take), the text cut with an ellipsis, bank and update time only where there is room. --wide shows
    every column and the text whole (wrapped); --json everything."""
    banked, dated = wide or out.width >= WITH_BANK, wide or out.width >= WITH_UPDATED
    scored = any(m.score is not None for m in memories)
    widths = [max((len(m.id) for m in memories), default=2)]
    widths += [min(14, max((len(m.memory_bank) for m in memories), default=4))] if banked else []
    widths += [16] if dated else []
    widths += [5] if scored else []
    # What is left for the text: each column takes its width, 2 of padding and 1 of border, plus 1.
    text_width = max(12, out.width - sum(widths) - 3 * (len(widths) + 1) - 1)
    cut = not wide and any(len(m.memory) > text_width for m in memories)
    table = Table(title=title, caption="text cut to fit: --wide or --json for all of it" if cut else None)
    table.add_column("id", no_wrap=True, min_width=widths[0])
    if wide:
        table.add_column("memory", min_width=40, overflow="fold")
    else:
        table.add_column("memory", no_wrap=True, overflow="ellipsis", max_width=text_width)
    if banked:
        table.add_column("bank", overflow="ellipsis", no_wrap=True, max_width=14)
    if dated:
        table.add_column("updated", no_wrap=True)
    if scored:
        table.add_column("score", justify="right", no_wrap=True)
    for m in memories:
        row = [m.id, m.memory]
        row += [m.memory_bank] if banked else []
        row += [m.updated_at.strftime("%Y-%m-%d %H:%M") if m.updated_at else ""] if dated else []
        table.add_row(*row, *([f"{m.score:.3f}"] if m.score is not None else []))
    return table


def show_table(table: Table, wide: bool) -> None:
    """--wide: as wide as the table needs (the terminal wraps the lines), else fitted to it."""
    out.print(table, width=max(out.width, out.measure(table).maximum) if wide else None, crop=not wide)


def emit(data: Any) -> None:
    out.print_json(json.dumps(data, default=str))


@app.command()
def add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="what the user said")],
    user_id: UserOption,
    metadata: Annotated[str | None, typer.Option(help="JSON object stored with the memories")] = None,
    infer: Annotated[bool, typer.Option(help="extract facts (--no-infer stores the text as given)")] = True,
    wait: Annotated[bool, typer.Option(help="wait for extraction and show what changed")] = True,
    as_json: JsonOption = False,
) -> None:
    """Remember what the user said."""
    with client(ctx) as engram:
        task = engram.add(
            text, user_id=user_id, metadata=json.loads(metadata) if metadata else None, infer=infer, wait=wait
        )
    if as_json:
        emit(task.model_dump(mode="json"))
        return
    out.print(f"task {task.task_id}: {task.status}", highlight=False)
    for result in task.results:
        out.print(f"  {result.event} {result.id}: {escape(result.memory)}", highlight=False)
    if task.status == "completed" and not any(r.event in ("ADD", "UPDATE", "DELETE") for r in task.results):
        out.print(f"  {escape(nothing_stored(task))}", highlight=False)


def nothing_stored(task: Task) -> str:
    """The server's reason, or one read from the counts where an older server gives none."""
    if task.note:
        return task.note
    found = task.counts.get("facts")
    return "no memory changed" + (f": {found} facts found, {task.counts.get('NONE', 0)} already known" if found else "")


@app.command()
def search(
    ctx: typer.Context,
    query: str,
    user_id: UserOption,
    top_k: Annotated[int, typer.Option(help="how many")] = 10,
    as_json: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Find the user's memories relevant to a query."""
    with client(ctx) as engram:
        found = engram.search(query, user_id=user_id, top_k=top_k)
    if as_json:
        emit(found.model_dump(mode="json"))
    else:
        show_table(memory_table(found.results, f"{len(found.results)} memories for {query!r}", wide), wide)


@app.command("list")
def list_memories(
    ctx: typer.Context,
    user_id: UserOption,
    limit: Annotated[int, typer.Option(help="at most this many")] = 100,
    as_json: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """List the user's current memories."""
    with client(ctx) as engram:
        memories = [m for _, m in zip(range(limit), engram.list(user_id, page_size=min(limit, 100)), strict=False)]
    if as_json:
        emit([m.model_dump(mode="json") for m in memories])
    else:
        show_table(memory_table(memories, f"{len(memories)} memories of {user_id}", wide), wide)


@app.command()
def show(ctx: typer.Context, memory_id: str, as_json: JsonOption = False) -> None:
    """Show one memory with every field."""
    with client(ctx) as engram:
        memory = engram.get(memory_id)
    if as_json:
        emit(memory.model_dump(mode="json"))
        return
    table = Table(show_header=False)
    for key, value in memory.model_dump(mode="json", exclude_none=True).items():
        table.add_row(key, value if isinstance(value, str) else json.dumps(value))
    out.print(table)


@app.command()
def history(ctx: typer.Context, memory_id: str, as_json: JsonOption = False, wide: WideOption = False) -> None:
    """How a memory changed: every event, oldest first."""
    with client(ctx) as engram:
        events = engram.history(memory_id)
    if as_json:
        emit([e.model_dump(mode="json") for e in events])
        return
    table = Table(title=f"history of {memory_id}")
    for column in ("version", "event", "old", "new", "actor", "when", "note"):
        cut = not wide and column in ("old", "new", "note")  # one line an event: texts cut to fit
        table.add_column(
            column, no_wrap=cut or not wide, overflow="ellipsis" if cut else "fold", ratio=1 if cut else None
        )
    for e in events:
        when = e.created_at.strftime("%Y-%m-%d %H:%M:%S") if e.created_at else ""
        table.add_row(
            str(e.version), e.event, e.old_memory or "", e.new_memory or "", e.actor or "", when, e.note or ""
        )
    show_table(table, wide)


@app.command()
def forget(
    ctx: typer.Context,
    memory_id: Annotated[str | None, typer.Argument(help="the memory to forget")] = None,
    user_id: Annotated[str | None, typer.Option("--user-id", "-u", help="with --all: whose")] = None,
    everything: Annotated[bool, typer.Option("--all", help="forget every memory of --user-id")] = False,
) -> None:
    """Forget one memory, or --all of a user's (their history stays as the audit trail)."""
    if everything == (memory_id is not None) or (everything and not user_id):
        raise typer.BadParameter("give a MEMORY_ID, or --all with --user-id")
    with client(ctx) as engram:
        if memory_id is not None:
            engram.delete(memory_id)
            out.print(f"forgot {memory_id}")
        else:
            assert user_id is not None  # noqa: S101 - type narrowing: the options check made it required
            out.print(f"forgot {engram.delete_all(user_id).deleted} memories of {user_id}")


@app.command("import")
def import_file(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="export JSONL, messages JSONL or LoCoMo JSON")
    ],
    user_id: Annotated[str | None, typer.Option("--user-id", "-u", help="store under this user")] = None,
    batch: Annotated[int, typer.Option(min=1, max=500, help="messages per add call (messages JSONL)")] = 20,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="tasks in flight")] = 4,
    infer: Annotated[bool, typer.Option(help="extract facts (--no-infer stores every message as given)")] = True,
) -> None:
    """Import a file; rerun it to resume after an interruption (parts done for the same server, key and
    user are skipped). An export is written as it was, without extraction."""
    try:
        units = read_units(file, user_id, batch)
    except (SourceError, ValueError, KeyError) as error:
        raise typer.BadParameter(str(error), param_hint="FILE") from error
    settings = resolve(ctx.obj["url"], ctx.obj["api_key"])
    state = ImportState.load(file, target_key(settings.url, settings.api_key, user_id))
    columns = (TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with client(ctx) as engram, Progress(*columns, console=err) as progress:
        bar = progress.add_task("import", total=len(units))
        importer = Importer(engram, infer, concurrency, on_done=lambda n: progress.advance(bar, n))
        report = importer.run(units, state)
    before = f" ({report.parts_done_before} done before)"
    if units and (units[0].memory is not None or units[0].relation is not None):
        out.print(
            f"imported {report.memories} memories in {report.parts} parts{before}: "
            f"{report.added} added, {report.skipped} skipped (held already)"
        )
        if report.relations:
            out.print(
                f"imported {report.relations} graph relations: {report.relations_added} added, "
                f"{report.relations_skipped} skipped (held already)"
            )
    else:
        done = report.parts - report.parts_done_before - len(report.failed)
        out.print(f"imported {done} of {report.parts} parts{before}: {report.added} memories added")
    for failure in report.failed:
        err.print(f"[red]failed[/red] {escape(str(failure))}")
    if report.failed:
        raise typer.Exit(1)


@app.command("export")
def export_memories(
    ctx: typer.Context,
    user_id: UserOption,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="file (default: standard output)")] = None,
    content: Annotated[bool, typer.Option(help="include attachment bytes (base64)")] = True,
) -> None:
    """Write every version of the user's memories (current and closed), every field of each, as JSON
    Lines (format version 3)."""
    with client(ctx) as engram:
        if output is None:
            count = export_user(engram, user_id, sys.stdout, content)
        else:
            with output.open("w", encoding="utf-8") as handle:
                count = export_user(engram, user_id, handle, content)
    err.print(f"exported {count} memory versions of {user_id}")


@app.command(cls=needs("websockets.sync.client", "events"))
def tail(
    ctx: typer.Context,
    user_id: Annotated[str | None, typer.Option("--user-id", "-u", help="only this user's tasks")] = None,
    as_json: JsonOption = False,
) -> None:
    """Follow extraction tasks live (queued, processing, completed, failed) until Ctrl-C (the events extra)."""
    settings = resolve(ctx.obj["url"], ctx.obj["api_key"])
    try:
        with event_stream(settings.url, settings.api_key, user_id) as events:
            err.print(f"following task events of {user_id or 'every user'} (Ctrl-C to stop)")
            for event in events:
                if as_json:
                    out.print(json.dumps(event), soft_wrap=True, highlight=False)
                    continue
                detail = event.get("error") or (f"{event['facts_count']} facts" if "facts_count" in event else "")
                out.print(
                    f"{event.get('at', '')} {event.get('type', '?'):32} {event.get('user_id', '')} "
                    f"{event.get('task_id', '')} {detail}",
                    highlight=False,
                )
    except KeyboardInterrupt:
        return


@app.command(cls=needs("mcp.server.mcpserver", "mcp"))
def mcp(
    ctx: typer.Context,
    user_id: Annotated[
        str, typer.Option("--user-id", "-u", envvar="ENGRAM_USER_ID", help="whose memory the tools use")
    ],
    transport: Annotated[str, typer.Option(help="stdio, or streamable-http")] = "stdio",
    host: Annotated[str, typer.Option(help="with streamable-http")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="with streamable-http")] = 8765,
) -> None:
    """Serve the memory tools over MCP (stdio for a desktop host; streamable HTTP at /mcp; the mcp extra)."""
    from engram_client.mcp_server import serve  # the mcp package loads only for this command

    if transport not in ("stdio", "streamable-http"):
        raise typer.BadParameter("stdio or streamable-http", param_hint="--transport")
    serve(user_id, "stdio" if transport == "stdio" else "streamable-http", host, port, client(ctx))


def main() -> None:
    try:
        app()
    except EngramError as error:
        # Escaped: a message such as pip install "engram-client[events]" is text, not rich markup.
        err.print(f"[red]error:[/red] {escape(str(error))}", soft_wrap=True)
        sys.exit(1)
