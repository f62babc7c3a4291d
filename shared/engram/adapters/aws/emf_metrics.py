"""Metrics on Powertools Metrics: CloudWatch Embedded Metric Format lines in the function's log.

Powertools' metrics module is imported on the first metric, not at import or wiring time, so a
request that records nothing (most API calls) adds nothing to the cold start. Namespace and service
come from POWERTOOLS_METRICS_NAMESPACE and POWERTOOLS_SERVICE_NAME (template.yaml)."""

from __future__ import annotations

from typing import Any


class EmfMetrics:
    def __init__(self, namespace: str | None = None) -> None:
        self._namespace = namespace
        self._metrics: Any = None
        self._dirty = False

    def add(self, name: str, value: float, unit: str = "Count") -> None:
        if self._metrics is None:
            from aws_lambda_powertools.metrics import Metrics

            self._metrics = Metrics(namespace=self._namespace)
        self._metrics.add_metric(name=name, unit=unit, value=value)
        self._dirty = True

    def flush(self) -> None:
        if self._dirty:  # Powertools warns on an empty flush
            self._dirty = False
            self._metrics.flush_metrics()
