"""The body of an extraction queue message: a pointer to the stored task, never the input itself.

Written by the TaskQueue adapter, read by the extraction function: one contract for both ends."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TaskMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tenant_id: str
    task_id: str
    user_id: str
