"""One Lambda invocation in this fresh process, as `sam local invoke` runs one in a fresh container.

    python lambda_invoke.py <code dir> <handler> <result file>  < event.json

The code dir comes first on sys.path (Lambda's /var/task), the handler module is imported (the cold
start), called once with the event from stdin and a context, and its return value, or Lambda's
error shape {"errorType", "errorMessage"}, is written to the result file (stdout is the function's log).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any


class Context:
    def __init__(self) -> None:
        self.function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
        region = os.environ["AWS_REGION"]
        self.invoked_function_arn = f"arn:aws:lambda:{region}:123456789012:function:{self.function_name}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "$LATEST"
        self._deadline = time.monotonic() + int(os.environ["AWS_LAMBDA_FUNCTION_TIMEOUT"])

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main(code_dir: str, handler: str, result_file: str) -> int:
    sys.path.insert(0, code_dir)
    os.chdir(code_dir)
    module_name, attribute = handler.rsplit(".", 1)
    event = json.load(sys.stdin)
    outcome: Any
    try:
        function = getattr(importlib.import_module(module_name), attribute)
        outcome = function(event, Context())
        code = 0
    except Exception as err:  # reported, as Lambda reports a failed invocation, not swallowed
        outcome = {"errorType": type(err).__name__, "errorMessage": str(err)}
        code = 1
    Path(result_file).write_text(json.dumps(outcome), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
