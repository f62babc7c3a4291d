"""Commands that need an optional extra (`tail`: events, `mcp`: mcp). Without it they print one line naming
the extra to install and exit 1, before their options are checked; `--help` works either way."""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperCommand

EXIT_MISSING_EXTRA = 1


def install_hint(extra: str) -> str:
    return f'pip install "engram-client[{extra}]"'


def needs(module: str, extra: str) -> type[TyperCommand]:
    """A command class that imports `module` first and, when it is missing, names `extra`."""

    class NeedsExtra(TyperCommand):
        # ctx: click's Context, which typer vendors in newer releases and imports in older ones.
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            if not any(arg in ctx.help_option_names for arg in args):
                try:
                    importlib.import_module(module)
                except ImportError as error:
                    typer.echo(
                        f"engram {self.name} needs the {extra!r} extra ({error}): {install_hint(extra)}", err=True
                    )
                    ctx.exit(EXIT_MISSING_EXTRA)
            return super().parse_args(ctx, args)

    return NeedsExtra
