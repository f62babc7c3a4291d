"""opensearch-py errors as domain errors: an unreachable, throttled or failing cluster is an index outage
(adds wait for it, a search answers 503); anything else is a plain EngramError naming the action."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engram.domain.errors import EngramError, IndexUnavailableError


def reason_of(exc: Any) -> str:
    """The most specific reason OpenSearch gave (root cause first), else the exception text."""
    info = getattr(exc, "info", None)
    if isinstance(info, dict) and isinstance(info.get("error"), dict):
        error = info["error"]
        causes = error.get("root_cause") or []
        if causes and isinstance(causes[0], dict) and causes[0].get("reason"):
            return f"{causes[0].get('type', '')}: {causes[0]['reason']}".lstrip(": ")
        if error.get("reason"):
            return str(error["reason"])
    return str(exc)


@contextmanager
def translated(action: str) -> Iterator[None]:
    """opensearch-py errors -> domain errors: unreachable, throttled or 5xx is an index outage (adds
    wait for it, a search answers 503)."""
    from opensearchpy import exceptions as os_errors

    try:
        yield
    except os_errors.SSLError as exc:  # a certificate problem is configuration, not bad luck
        raise EngramError(f"OpenSearch {action}: TLS failed: {exc}") from exc
    except os_errors.ConnectionError as exc:  # includes ConnectionTimeout
        raise IndexUnavailableError(f"OpenSearch {action}: {exc}") from exc
    except os_errors.TransportError as exc:
        status = exc.status_code
        if isinstance(status, int) and (status == 429 or status >= 500):
            raise IndexUnavailableError(f"OpenSearch {action} failed ({status}): {reason_of(exc)}") from exc
        raise EngramError(f"OpenSearch {action} failed ({status}): {reason_of(exc)}") from exc
    except os_errors.OpenSearchException as exc:
        raise EngramError(f"OpenSearch {action} failed: {exc}") from exc


def check_bulk(response: dict[str, Any], action: str, missing_ok: bool) -> None:
    """Bulk answers 200 even when items fail; raise for failed items (404 on delete is fine)."""
    if not response.get("errors"):
        return
    failures: list[tuple[int, str, str]] = []
    for item in response.get("items", []):
        result = next(iter(item.values()))
        status = int(result.get("status", 500))
        if status < 300 or (missing_ok and status == 404):
            continue
        error = result.get("error")
        reason = error.get("reason", str(error)) if isinstance(error, dict) else str(error)
        failures.append((status, str(result.get("_id")), reason))
    if not failures:
        return
    status, doc_id, reason = failures[0]
    message = f"OpenSearch bulk {action}: {len(failures)} item(s) failed, first {doc_id} ({status}): {reason}"
    if any(s == 429 or s >= 500 for s, _, _ in failures):
        raise IndexUnavailableError(message)
    raise EngramError(message)
