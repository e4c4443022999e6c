#!/usr/bin/env bash
# Keeps the demo cluster's container logs growing: one realistic line a second
# per namespace, in the CRI log format kwok serves through the real API server
# (`<RFC3339Nano> stdout F <line>`), so `kubectl logs -f`, the hub's log
# streaming, the UI and the CLI have something live to show.
#
#   pod-logs.sh DIR     appends to DIR/<namespace>.log until killed
#
# A file stops growing at 64 MiB (about a week of lines), so a forgotten stack
# cannot fill the disk.
set -euo pipefail
dir=$1
readonly MAX_BYTES=$((64 * 1024 * 1024))
mkdir -p "$dir"
paths=(/ /healthz /api/orders /api/orders/42 /static/app.js /api/payments)
codes=(200 200 200 200 201 204 304 404 500)
n=0
while :; do
  n=$((n + 1))
  ts=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
  path=${paths[$((RANDOM % ${#paths[@]}))]}
  code=${codes[$((RANDOM % ${#codes[@]}))]}
  ms=$((RANDOM % 250 + 1))
  for ns in demo payments shop-dev; do
    f="$dir/$ns.log"
    [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -lt "$MAX_BYTES" ] || continue
    if [ $((n % 17)) -eq 0 ]; then
      printf '%s stderr F level=warn msg="slow upstream" upstream=%s-db latency_ms=%d\n' "$ts" "$ns" $((ms * 7)) >>"$f"
    else
      printf '%s stdout F level=info method=GET path=%s status=%s duration_ms=%d request=%d\n' \
        "$ts" "$path" "$code" "$ms" "$n" >>"$f"
    fi
  done
  sleep 1
done
