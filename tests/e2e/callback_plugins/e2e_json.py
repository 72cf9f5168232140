# SPDX-License-Identifier: GPL-2.0-or-later
# stdout callback for tests/e2e/ansible-checks.sh: one JSON document per run with every task's
# result per host (name, status, the module's result: stdout, msg, diff ...) and the recap.
# ansible-core has no JSON stdout callback of its own (that one is in the ansible.posix collection).
from __future__ import annotations

import json

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: e2e_json
type: stdout
short_description: every task result and the recap as one JSON document
description: For the nodeswap e2e tests.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "e2e_json"

    def __init__(self):
        super().__init__()
        self.tasks = []

    def _add(self, result, status):
        self.tasks.append({
            "name": result._task.name,
            "host": result._host.get_name(),
            "status": status,
            "result": result._result,
        })

    def v2_runner_on_ok(self, result, **kwargs):
        self._add(result, "changed" if result._result.get("changed") else "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False, **kwargs):
        self._add(result, "ignored" if ignore_errors else "failed")

    def v2_runner_on_skipped(self, result, **kwargs):
        self._add(result, "skipped")

    def v2_runner_on_unreachable(self, result, **kwargs):
        self._add(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        recap = {h: stats.summarize(h) for h in sorted(stats.processed)}
        self._display.display(json.dumps({"tasks": self.tasks, "stats": recap}, default=str))
