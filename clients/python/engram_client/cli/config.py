"""`engram config get|set`: the tenant's memory policy (instructions, include/exclude, custom prompts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from engram_client.client import Engram

config_app = typer.Typer(help="The tenant's memory policy: instructions, include/exclude, custom prompts.")
STEPS = ("extraction", "reconcile", "graph")


def _client(ctx: typer.Context) -> Engram:
    # the parent command's --url / --api-key (engram_client/cli/app.py `connect`)
    root = ctx.find_root().obj or {}
    return Engram(root.get("url"), root.get("api_key"))


@config_app.command("get")
def get(ctx: typer.Context) -> None:
    """Print the tenant's configuration as JSON."""
    with _client(ctx) as engram:
        typer.echo(json.dumps(engram.get_config().model_dump(), indent=2))


@config_app.command("set")
def set_config(
    ctx: typer.Context,
    file: Annotated[Path | None, typer.Option("--file", "-f", help="a whole configuration as JSON")] = None,
    instructions: Annotated[str | None, typer.Option(help="free text the LLM prompts include")] = None,
    include: Annotated[list[str] | None, typer.Option(help="a bank or topic to keep only (repeat it)")] = None,
    exclude: Annotated[list[str] | None, typer.Option(help="a bank or topic never to store (repeat it)")] = None,
    prompt: Annotated[
        list[str] | None, typer.Option(help="STEP=FILE: a custom prompt for extraction, reconcile or graph")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="start from an empty configuration")] = False,
) -> None:
    """Change the configuration: the options given replace those fields; the rest stays as it is."""
    with _client(ctx) as engram:
        if file is not None:
            config: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
        else:
            config = {} if clear else engram.get_config().model_dump()
        if instructions is not None:
            config["instructions"] = instructions
        for name, given in (("include", include), ("exclude", exclude)):
            if given is not None:
                config[name] = [entry for entry in given if entry.strip()]  # `--include ""` empties it
        for item in prompt or []:
            step, _, path = item.partition("=")
            if step not in STEPS or not path:
                raise typer.BadParameter(f"--prompt takes STEP=FILE with STEP one of {', '.join(STEPS)}")
            config.setdefault("prompts", {})[step] = Path(path).read_text(encoding="utf-8")
        typer.echo(json.dumps(engram.put_config(config).model_dump(), indent=2))
