#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""node-feature-discovery's rules for a local feature file, as its documentation states them.

Written from NFD's documentation, not from nodeswap's code, so that a test holds every file
nodeswap writes to the rules the reader on the other side applies:

- kubernetes-sigs/node-feature-discovery docs/usage/customization-guide.md, "Feature files":
  nfd-worker reads the files in /etc/kubernetes/node-feature-discovery/features.d/; a file whose
  name starts with a dot is ignored ("hidden files"); a file over the size limit (64 KiB,
  MaxFeatureFileSize = 65536 in source/local/local.go) is ignored whole; one feature per line,
  "<name>[=<value>]", the value "true" when it is left out; lines starting with "#" are
  comments; "# +" starts a directive: "# +expiry-time=<RFC3339>", "# +no-label",
  "# +no-feature"; a namespace is given as "<namespace>/<name>".
- docs/reference/feature-labels / "Label namespaces": labels in kubernetes.io and its
  subdomains are denied, except feature.node.kubernetes.io and profile.node.kubernetes.io (and
  their subdomains), which nfd-master allows by default; unprefixed names get
  feature.node.kubernetes.io/.
- Kubernetes' label rules (k8s.io/apimachinery pkg/util/validation, IsQualifiedName() and
  IsValidLabelValue()): a name is an optional DNS-1123 subdomain prefix (at most 253
  characters) and "/", then at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends;
  a value is empty or the same 63-character shape.

Usage: nfd-local-check.py FILE...
Prints each file's labels as NAME=VALUE lines, sorted by name; exits 1 (naming file, line and
rule) when a file breaks a rule, and also when it holds no label or a name twice (nfd-worker
logs an override; a writer that repeats itself has a bug).
"""
import os
import re
import sys
from datetime import datetime

MAX_SIZE = 65536
DEFAULT_NS = "feature.node.kubernetes.io"
ALLOWED_KUBERNETES_NS = ("feature.node.kubernetes.io", "profile.node.kubernetes.io")
NAME_RE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DIRECTIVES = ("no-label", "no-feature")


def dns_subdomain(s):
    return 0 < len(s) <= 253 and all(DNS_LABEL_RE.match(p) for p in s.split("."))


def ns_allowed(ns):
    if ns == "kubernetes.io" or ns.endswith(".kubernetes.io"):
        return any(ns == a or ns.endswith("." + a) for a in ALLOWED_KUBERNETES_NS)
    return True


def check_file(path):
    errors = []
    labels = {}
    base = os.path.basename(path)
    if base.startswith("."):
        errors.append(f"{path}: a hidden file: nfd-worker ignores it")
    st = os.lstat(path)
    if not os.path.isfile(path) or os.path.islink(path):
        errors.append(f"{path}: not a regular file")
        return labels, errors
    if st.st_size > MAX_SIZE:
        errors.append(f"{path}: {st.st_size} bytes, over the {MAX_SIZE}-byte limit: ignored whole")
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        errors.append(f"{path}: not UTF-8")
        return labels, errors
    for n, line in enumerate(text.split("\n"), 1):
        where = f"{path}:{n}"
        if line == "":
            continue
        if line.startswith("# +"):
            d = line[3:]
            if d.startswith("expiry-time="):
                try:
                    datetime.fromisoformat(d[len("expiry-time="):].replace("Z", "+00:00"))
                except ValueError:
                    errors.append(f"{where}: expiry-time is not RFC 3339: {d!r}")
            elif d not in DIRECTIVES:
                errors.append(f"{where}: unknown directive {line!r}")
            continue
        if line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            value = "true"
        ns, slash, name = key.rpartition("/")
        if not slash:
            ns, name = DEFAULT_NS, key
        if not dns_subdomain(ns):
            errors.append(f"{where}: {ns!r} is no DNS subdomain")
        elif not ns_allowed(ns):
            errors.append(f"{where}: namespace {ns!r} is denied by nfd-master")
        if len(name) > 63 or not NAME_RE.match(name):
            errors.append(f"{where}: label name {name!r} breaks Kubernetes' rules")
        if value and (len(value) > 63 or not NAME_RE.match(value)):
            errors.append(f"{where}: label value {value!r} breaks Kubernetes' rules")
        full = f"{ns}/{name}"
        if full in labels:
            errors.append(f"{where}: {full} given twice")
        labels[full] = value
    if not labels:
        errors.append(f"{path}: no label")
    return labels, errors


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = False
    for path in argv[1:]:
        labels, errors = check_file(path)
        for e in errors:
            print(f"NFD: {e}", file=sys.stderr)
        bad = bad or bool(errors)
        for k in sorted(labels):
            print(f"{k}={labels[k]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
