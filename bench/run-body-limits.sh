#!/usr/bin/env bash
# Memory and time of the hub under oversized request bodies (issue: bodies bounded before they
# are read). Starts the whole stack of a checkout with tools/dev/run.sh on free loopback ports,
# sends the unauthenticated image-update webhook PARALLEL bodies of SIZE_MB each at once, and
# reports the hub's resident memory before and at its peak, the answers, and the time to the
# answer of one body alone. Loopback only; bounded in count and time.
#
#   bench/run-body-limits.sh [REPO_DIR]     (default: this checkout; its jars must be built)
#
# Env knobs: SIZE_MB (100), PARALLEL (5).
set -euo pipefail
repo=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
size_mb=${SIZE_MB:-100}
parallel=${PARALLEL:-5}
state=$(mktemp -d /tmp/gitopshq-body-bench.XXXXXX)
db=gitopshq_bodybench
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
hub=$(port)

runuser -u postgres -- psql -qAtc "drop database if exists ${db} with (force)" >/dev/null 2>&1 || true
GITOPSHQ_STATE_DIR="$state" GITOPSHQ_DEV_DB="$db" GITOPSHQ_SKIP_JAVA_BUILD=1 GITOPSHQ_DEMO_FLUX=off \
  GITOPSHQ_HUB_PORT="$hub" GITOPSHQ_GRPC_PORT="$(port)" GITOPSHQ_TEMPORAL_PORT="$(port)" \
  GITOPSHQ_TEMPORAL_UI_PORT="$(port)" GITOPSHQ_OPA_PORT="$(port)" GITOPSHQ_DEV_IDP_PORT="$(port)" \
  setsid "$repo/tools/dev/run.sh" >"$state/run.log" 2>&1 </dev/null &
stack=$!
trap 'kill -TERM $stack 2>/dev/null; sleep 3; kill -KILL -- -$stack 2>/dev/null; rm -rf "$state"' EXIT
for _ in $(seq 1 300); do grep -q "dev stack is running" "$state/run.log" && break; sleep 1; done
grep -q "dev stack is running" "$state/run.log" || { tail -20 "$state/run.log"; exit 1; }

pid=$(ss -Hltnp "sport = :${hub}" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
rss() { awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status"; }
body="$state/body.json"
head -c $((size_mb * 1024 * 1024)) /dev/zero | tr '\0' 'a' | sed 's/^/{"x":"/; s/$/"}/' >"$body"
url="http://127.0.0.1:${hub}/api/v2/webhooks/image-update"
send() { curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
  -H 'X-GitOpsHQ-Signature: sha256=00' --max-time 120 --data-binary @"$body" "$url" || echo "000 failed"; }

before=$(rss)
peak=$before
senders=()
for i in $(seq 1 "$parallel"); do send >"$state/answer.$i" & senders+=($!); done
running() { local p; for p in "${senders[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while running; do
  r=$(rss); [ "$r" -gt "$peak" ] && peak=$r
  sleep 0.2
done
wait "${senders[@]}"
alone=$(send)
echo "checkout: $(git -C "$repo" log --oneline -1)"
echo "hub RSS before: ${before} MiB, peak during ${parallel} x ${size_mb} MiB bodies: ${peak} MiB"
echo "answers (status, seconds): $(cat "$state"/answer.* | sort | uniq -c | tr '\n' ';')"
echo "one body alone: ${alone}"
