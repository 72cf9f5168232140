#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""kubeapi.py: the e2e scenarios' client for the API server and the kubelet (no kubectl here).

  kubeapi.py api METHOD PATH [JSON_FILE]   a request to the API server (https://10.0.2.100:6443,
                                           qemu's guestfwd to the host's loopback); prints the body
  kubeapi.py kubelet PATH                  GET from the kubelet's port 10250 (its self-signed
                                           serving certificate is not checked); prints the body

Both authenticate with the run's admin certificate (/etc/nodeswap-e2e/kube/admin.pem, made by the
harness, system:masters). Exit 0 on a 2xx answer, 1 otherwise (the status and body on stderr).
"""
import json
import ssl
import sys
import urllib.error
import urllib.request

ADMIN = "/etc/nodeswap-e2e/kube/admin.pem"
CA = "/etc/kubernetes/pki/ca.crt"
API = "https://10.0.2.100:6443"


def request(url, ctx, method="GET", body=None):
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=60) as r:
            sys.stdout.write(r.read().decode())
            return 0
    except urllib.error.HTTPError as e:
        sys.stderr.write("%s %s: HTTP %d: %s\n" % (method, url, e.code, e.read().decode()[:400]))
    except (urllib.error.URLError, OSError) as e:
        sys.stderr.write("%s %s: %s\n" % (method, url, e))
    return 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "api":
        ctx = ssl.create_default_context(cafile=CA)
        ctx.load_cert_chain(ADMIN)
        body = None
        if len(sys.argv) == 5:
            body = json.dumps(json.load(open(sys.argv[4]))).encode()
        return request(API + sys.argv[3], ctx, sys.argv[2], body)
    if len(sys.argv) == 3 and sys.argv[1] == "kubelet":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.load_cert_chain(ADMIN)
        return request("https://127.0.0.1:10250" + sys.argv[2], ctx)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
