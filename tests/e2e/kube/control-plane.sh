# SPDX-License-Identifier: GPL-2.0-or-later
# The e2e node's control plane on the host (sourced by tests/e2e/run-e2e.sh; tests/e2e/README.md,
# "The real node"): certificates made for this run, etcd and kube-apiserver on the host's loopback
# only, reached from the guest through qemu's guestfwd (kube_guestfwd), stopped by kube_stop from
# the harness's EXIT trap, pass or fail. No scheduler and no controller manager: the scenario sets
# spec.nodeName itself and creates the default ServiceAccount.
#
# Needs: KUBE_BIN (etcd, kube-apiserver-v$KUBE_VERSION), KUBE_DIR (this run's directory, 0700),
# openssl and python3 on the host.

KUBE_NODE=nodeswap-e2e          # the VM's hostname: the kubelet registers under it
KUBE_GUEST_ADDR=10.0.2.100      # the address qemu's guestfwd answers on in the guest
KUBE_GUEST_PORT=6443
KUBE_SERVICE_CIDR=10.96.0.0/24
KUBE_PIDS=()
KUBE_PORT=

kube_log() { echo "e2e: kube: $*"; }

# kube_cert NAME SUBJ [SAN]: NAME.crt and NAME.key signed by the run's CA (one day)
kube_cert() {
        local pki=$KUBE_DIR/pki ext=
        openssl req -new -newkey rsa:2048 -nodes -keyout "$pki/$1.key" -subj "$2" \
                -out "$pki/$1.csr" 2>/dev/null || return 1
        if [[ -n ${3:-} ]]; then
                printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3" >"$pki/$1.ext"
        else
                printf 'extendedKeyUsage=clientAuth\n' >"$pki/$1.ext"
        fi
        ext=$pki/$1.ext
        openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
                -days 1 -sha256 -extfile "$ext" -out "$pki/$1.crt" 2>/dev/null || return 1
        rm -f "$pki/$1.csr" "$pki/$1.ext"
}

# kube_certs: the CA, the API server's certificate (the guest's address in it), the clients'
# (the kubelet as system:node:NODE in system:nodes, for the Node authorizer; the scenario's admin in
# system:masters) and the service account signing key
kube_certs() {
        local pki=$KUBE_DIR/pki
        install -d -m 0700 "$pki"
        openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -subj /CN=nodeswap-e2e-ca \
                -days 1 -sha256 -out "$pki/ca.crt" 2>/dev/null &&
        kube_cert apiserver /CN=kube-apiserver \
                "IP:$KUBE_GUEST_ADDR,IP:127.0.0.1,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc" &&
        kube_cert kubelet "/O=system:nodes/CN=system:node:$KUBE_NODE" &&
        kube_cert admin /O=system:masters/CN=nodeswap-e2e-admin &&
        kube_cert serving-kubelet "/CN=$KUBE_NODE" "IP:10.0.2.15,IP:127.0.0.1,DNS:$KUBE_NODE" &&
        openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null &&
        openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

kube_free_port() {
        local p
        for _ in $(seq 50); do
                p=$(( 20000 + RANDOM % 30000 ))
                ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
        done
        return 1
}

# kube_ready URL: 0 once URL answers 200 with the admin's certificate (up to 180 s)
kube_ready() {
        python3 - "$1" "$KUBE_DIR/pki" <<'PY'
import ssl, sys, time, urllib.request
url, pki = sys.argv[1], sys.argv[2]
ctx = ssl.create_default_context(cafile=pki + "/ca.crt")
ctx.load_cert_chain(pki + "/admin.crt", pki + "/admin.key")
end = time.time() + 180
while time.time() < end:
    try:
        with urllib.request.urlopen(url, context=ctx, timeout=5) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(1)
sys.exit(1)
PY
}

# kube_start: etcd and kube-apiserver on loopback (kube_certs made the certificates before), 0 once
# the API server is ready
kube_start() {
        local ep pp t0=$SECONDS
        ep=$(kube_free_port) && pp=$(kube_free_port) && KUBE_PORT=$(kube_free_port) || return 1
        install -d -m 0700 "$KUBE_DIR/etcd" "$KUBE_DIR/apiserver"
        # etcd: plain HTTP on loopback, its data in the run's directory, no fsync (thrown away)
        setsid "$KUBE_BIN/etcd" --name e2e --data-dir "$KUBE_DIR/etcd" \
                --listen-client-urls "http://127.0.0.1:$ep" --advertise-client-urls "http://127.0.0.1:$ep" \
                --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
                --initial-cluster "e2e=http://127.0.0.1:$pp" --unsafe-no-fsync \
                </dev/null >"$KUBE_DIR/etcd.log" 2>&1 &
        KUBE_PIDS+=($!)
        setsid "$KUBE_BIN/kube-apiserver-v$KUBE_VERSION" --bind-address=127.0.0.1 --secure-port="$KUBE_PORT" \
                --advertise-address="$KUBE_GUEST_ADDR" --etcd-servers="http://127.0.0.1:$ep" \
                --cert-dir="$KUBE_DIR/apiserver" \
                --client-ca-file="$KUBE_DIR/pki/ca.crt" \
                --tls-cert-file="$KUBE_DIR/pki/apiserver.crt" --tls-private-key-file="$KUBE_DIR/pki/apiserver.key" \
                --service-account-issuer=https://kubernetes.default.svc \
                --service-account-key-file="$KUBE_DIR/pki/sa.pub" \
                --service-account-signing-key-file="$KUBE_DIR/pki/sa.key" \
                --service-cluster-ip-range="$KUBE_SERVICE_CIDR" \
                --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
                --endpoint-reconciler-type=none --profiling=false \
                </dev/null >"$KUBE_DIR/apiserver.log" 2>&1 &
        KUBE_PIDS+=($!)
        if ! kube_ready "https://127.0.0.1:$KUBE_PORT/readyz"; then
                echo "FAIL e2e: kube: the API server was not ready within 180 s"
                tail -n 20 "$KUBE_DIR/etcd.log" "$KUBE_DIR/apiserver.log" | sed 's/^/  | /'
                return 1
        fi
        kube_log "etcd and kube-apiserver v$KUBE_VERSION ready on 127.0.0.1:$KUBE_PORT in $(( SECONDS - t0 )) s"
}

# kube_guestfwd: the -nic option that gives the guest 10.0.2.100:6443, one relay a connection
# (the cmd: form; a tcp: target would be one connection for the VM's life). qemu's option parser
# splits at commas: the command has none.
kube_guestfwd() {
        # the interpreter itself, not a wrapper on PATH: one starts for every connection
        local py
        py=$(python3 -c 'import sys; print(sys.executable)')
        echo ",guestfwd=tcp:$KUBE_GUEST_ADDR:$KUBE_GUEST_PORT-cmd:$py $KUBE_RELAY 127.0.0.1 $KUBE_PORT"
}

# kube_stop: every process kube_start started, by its pid (TERM, then KILL after 10 s)
kube_stop() {
        local pid
        for pid in "${KUBE_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
        for pid in "${KUBE_PIDS[@]}"; do
                for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
                kill -9 "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        done
        KUBE_PIDS=()
}

# kube_guest_files ROOT: what the node needs of this run's control plane, where kubeadm puts it
# (the CA, the kubelet's client certificate and its kubeconfig: kubeadm's kubelet.conf names
# /var/lib/kubelet/pki/kubelet-client-current.pem, certificate and key in one file) and where k3s's
# agent has it (/var/lib/rancher/k3s/agent: client-ca.crt and serving-kubelet.crt/.key, which its
# 00-k3s-defaults.conf names, server-ca.crt, client-kubelet.crt/.key and kubelet.kubeconfig; k3s's
# kubeconfig goes to its local load balancer, this one to the API server itself), and the
# scenario's own client (admin.pem, 0600) for the API and the kubelet's /configz.
kube_guest_files() {
        local root=$1 pki=$KUBE_DIR/pki
        install -D -m 0644 "$pki/ca.crt" "$root/etc/kubernetes/pki/ca.crt"
        install -d -m 0700 "$root/var/lib/kubelet/pki" "$root/etc/nodeswap-e2e/kube"
        (umask 077; cat "$pki/kubelet.crt" "$pki/kubelet.key" >"$root/var/lib/kubelet/pki/kubelet-client-current.pem"
         cat "$pki/admin.crt" "$pki/admin.key" >"$root/etc/nodeswap-e2e/kube/admin.pem")
        cat >"$root/etc/kubernetes/kubelet.conf" <<EOF
apiVersion: v1
clusters:
- cluster:
    certificate-authority: /etc/kubernetes/pki/ca.crt
    server: https://$KUBE_GUEST_ADDR:$KUBE_GUEST_PORT
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: system:node:$KUBE_NODE
  name: system:node:$KUBE_NODE@kubernetes
current-context: system:node:$KUBE_NODE@kubernetes
kind: Config
preferences: {}
users:
- name: system:node:$KUBE_NODE
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
EOF
        chmod 0600 "$root/etc/kubernetes/kubelet.conf"
        local a=$root/var/lib/rancher/k3s/agent
        install -d -m 0755 "$a" "$a/pod-manifests"
        install -m 0644 "$pki/ca.crt" "$a/client-ca.crt"
        install -m 0644 "$pki/ca.crt" "$a/server-ca.crt"
        install -m 0644 "$pki/serving-kubelet.crt" "$a/serving-kubelet.crt"
        install -m 0600 "$pki/serving-kubelet.key" "$a/serving-kubelet.key"
        install -m 0644 "$pki/kubelet.crt" "$a/client-kubelet.crt"
        install -m 0600 "$pki/kubelet.key" "$a/client-kubelet.key"
        (umask 077; cat >"$a/kubelet.kubeconfig" <<EOF
apiVersion: v1
clusters:
- cluster:
    certificate-authority: /var/lib/rancher/k3s/agent/server-ca.crt
    server: https://$KUBE_GUEST_ADDR:$KUBE_GUEST_PORT
  name: local
contexts:
- context:
    cluster: local
    namespace: default
    user: user
  name: Default
current-context: Default
kind: Config
preferences: {}
users:
- name: user
  user:
    client-certificate: /var/lib/rancher/k3s/agent/client-kubelet.crt
    client-key: /var/lib/rancher/k3s/agent/client-kubelet.key
EOF
        )
}
