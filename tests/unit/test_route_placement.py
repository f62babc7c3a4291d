"""One place for routes: every HTTP route is declared in an engram/http/*_routes.py router, and the API
function includes every one of them. A route declared in a handler or elsewhere fails here."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTTP = ROOT / "shared" / "engram" / "http"
API = ROOT / "functions" / "api" / "app.py"
VERBS = {"get", "post", "put", "patch", "delete", "head", "options", "route"}
ROUTERS = sorted(p.stem for p in HTTP.glob("*_routes.py"))


def route_decorators(path: Path) -> Iterator[str]:
    """`name.verb("/path", ...)` decorators: the way a Powertools resolver or Router declares a route."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr in VERBS
                    and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)
                    and str(decorator.args[0].value).startswith("/")
                ):
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    yield f"{where} {decorator.func.attr.upper()} {decorator.args[0].value}"


def test_the_api_function_declares_no_route() -> None:
    assert list(route_decorators(API)) == []


def test_no_route_is_declared_outside_the_routers() -> None:
    runtime = [*(ROOT / "shared" / "engram").rglob("*.py"), *(ROOT / "functions").glob("*/app.py")]
    outside = [p for p in runtime if not (p.parent == HTTP and p.name.endswith("_routes.py"))]
    assert [found for path in outside for found in route_decorators(path)] == []


def test_every_router_declares_routes_and_the_api_function_imports_it() -> None:
    imported = {
        alias.name
        for node in ast.walk(ast.parse(API.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "engram.http"
        for alias in node.names
    }
    assert ROUTERS and [r for r in ROUTERS if r not in imported] == []
    assert [r for r in ROUTERS if not list(route_decorators(HTTP / f"{r}.py"))] == []
