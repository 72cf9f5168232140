#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""relay.py HOST PORT: one guest connection to the API server on the host's loopback.

qemu's user network runs this for every connection the guest opens to 10.0.2.100:6443
(`-nic user,guestfwd=tcp:10.0.2.100:6443-cmd:relay.py 127.0.0.1 PORT`): the connection is this
process's stdin and stdout. It copies bytes both ways until either side closes, then exits.
Nothing is ever written to stderr: qemu hands the same socket to it.
"""
import os
import selectors
import socket
import sys


def main():
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    except OSError:
        return 1
    s.settimeout(None)
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ, "in")
    sel.register(s, selectors.EVENT_READ, "sock")
    open_ends = 2
    while open_ends:
        for key, _ in sel.select():
            try:
                if key.data == "in":
                    data = os.read(0, 65536)
                    if not data:
                        sel.unregister(0)
                        s.shutdown(socket.SHUT_WR)
                        open_ends -= 1
                    else:
                        s.sendall(data)
                else:
                    data = s.recv(65536)
                    if not data:
                        sel.unregister(s)
                        open_ends -= 1
                        return 0
                    view = memoryview(data)
                    while view:
                        n = os.write(1, view)
                        view = view[n:]
            except OSError:
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
