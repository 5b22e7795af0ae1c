#!/bin/bash
# A "host" of its own for the network red team's rows that must change the machine's network: run as
# `unshare --net [--mount] bash THIS` (root: toolgate then runs as $TG_USER; a non-root user: `unshare --user
# --map-root-user` in front, toolgate runs as that mapped root). In the fresh network namespace it brings up
# loopback, gives it the public test addresses $OWN_V4 and $OWN_V6 (as a server or an IPv6 laptop has on an
# interface), starts a canary listening on the wildcard address (every address of this "host") that logs each
# connection to $OUT/canary.log, optionally a DNS server that never answers (logging each query name to
# $OUT/dns.log, marked "after" once $WS/ended exists), then runs `toolgate call --batch $CALLS --json`.
set -euo pipefail
ip link set lo up
ip addr add "$OWN_V4/32" dev lo
ip -6 addr add "$OWN_V6/128" dev lo nodad
python3 - "$OUT/canary.log" "$CANARY_PORT" <<'PY' &
import socket, sys
server = socket.create_server(("::", int(sys.argv[2])), family=socket.AF_INET6, dualstack_ipv6=True)
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "a", buffering=1) as log:
    while True:
        conn, peer = server.accept()
        log.write(f"{peer[0]}\n")
        conn.sendall(b"HTTP/1.0 200 OK\r\ncontent-length: 20\r\n\r\nown-address-reached\n")
        conn.close()
PY
if [ "${DNS_BLACKHOLE:-}" = 1 ]; then
  printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$OUT/resolv.conf"
  mount --bind "$OUT/resolv.conf" /etc/resolv.conf
  python3 - "$OUT/dns.log" "$WS/ended" <<'PY' &
import os, socket, sys
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 53))
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "a", buffering=1) as log:
    while True:
        data, _ = sock.recvfrom(4096)
        labels, i = [], 12
        while i < len(data) and data[i] != 0:
            labels.append(data[i + 1 : i + 1 + data[i]].decode("latin1"))
            i += 1 + data[i]
        log.write(f"{'after' if os.path.exists(sys.argv[2]) else 'before'} {'.'.join(labels)}\n")
PY
fi
# Wait until the canary listens (and the DNS server, when there is one), not for a fixed time.
until [ -e "$OUT/canary.log.ready" ] && { [ "${DNS_BLACKHOLE:-}" != 1 ] || [ -e "$OUT/dns.log.ready" ]; }; do
  sleep 0.05
done
run=(node "$TG_MAIN" call --batch "$CALLS" --json --workspace "$WS" --policy "$POLICY" --config "$CONFIG")
if [ -n "${TG_USER:-}" ]; then
  runuser -u "$TG_USER" -- env HOME="$TG_HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "${run[@]}" || true
else
  env HOME="$TG_HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "${run[@]}" || true
fi
kill $(jobs -p) 2>/dev/null || true
