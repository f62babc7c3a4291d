"""The SDK clients every other part is built on: AWS (one session per container) and OpenAI's."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from engram.settings import Settings


class Clients:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def aws(self) -> Any:
        from engram.adapters.aws.clients import AwsClients

        return AwsClients(self.settings)

    @cached_property
    def openai_client(self) -> Any:
        """For the OpenAI embedder, the LLM and the chat proxy; the key from SSM when only its parameter is set."""
        from engram.adapters.openai.embedder import build_openai_client

        settings = self.settings
        if settings.openai_api_key is None and settings.openai_api_key_param:
            from pydantic import SecretStr

            param = self.aws.ssm.get_parameter(Name=settings.openai_api_key_param, WithDecryption=True)
            settings = settings.model_copy(update={"openai_api_key": SecretStr(param["Parameter"]["Value"])})
        return build_openai_client(settings)
