# SPDX-License-Identifier: GPL-2.0-or-later
"""What the real kubelet says at -v=5 about the configuration it loaded.

With -v=5 the kubelet logs its configuration after loading, merging and validating it and before it
touches the node (kubernetes/kubernetes cmd/kubelet/app/server.go, NewKubeletCommand's RunE: the
V(5) line "KubeletConfiguration" with the internal type as JSON, in v1.31 and v1.36 alike, its
lines tab-indented up to " >"). A kubelet that refuses its flags or configuration exits before that
line with "command failed" and the error, on one line or as "err=<" and lines up to " >".
Used by tests/k8s/kubelet-differential.py (the host) and tests/e2e/guest/k3s (k3s-agent in the VM).
"""
import json

CONFIG_LINE = '"KubeletConfiguration" configuration=<'


def read(stream, copy=None):
    """Reads the kubelet's stderr from stream up to the end of its configuration or of the stream
    (each line also written to copy, when given). Returns (config, error, lines): the configuration
    as a dict or None, the "command failed" line with its error or None, and the lines read."""
    block, inside, error, error_lines, lines = [], False, None, [], []
    for line in stream:
        lines.append(line)
        if copy is not None:
            copy.write(line)
        if not inside and CONFIG_LINE in line:
            inside = True
            continue
        if inside:
            if line.rstrip("\n") == " >":
                break
            block.append(line[1:] if line.startswith("\t") else line)
            continue
        if error is not None and error.endswith("err=<"):
            error_lines.append(line.strip())       # a multi-line error, up to " >"
            if line.rstrip("\n") == " >":
                error = error + " " + " ".join(error_lines)
            continue
        if '"command failed"' in line:
            error = line.strip()
    if error is not None and error.endswith("err=<"):
        error = error + " " + " ".join(error_lines)
    return (json.loads("".join(block)) if block else None), error, lines
