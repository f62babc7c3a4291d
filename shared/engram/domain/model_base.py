"""The base of the project's pydantic models: validators built on first use, not at import.

Building a model's validator and serializer (its core schema) is most of a model class's cost, and
a function imports some sixty models of which a request uses a handful: deferring the build keeps
a cold start from paying for the routes this container never serves. Validation is unchanged.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    model_config = ConfigDict(defer_build=True)
