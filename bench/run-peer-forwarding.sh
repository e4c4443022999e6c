#!/usr/bin/env bash
# What forwarding between hub replicas costs a live read: two hub replicas in one JVM on one
# PostgreSQL and Temporal's test server (PeerForwardingIT), a test agent whose stream replica a
# holds and which answers every read at once, and the same inspection
# (GET /api/v2/clusters/{id}/resources/core/v1/ConfigMap/demo/bench) sent to a (the stream is
# here) and to b (forwarded over hub.v1.HubPeer), interleaved round by round; the same through the
# AgentGateway's Java API, without HTTP and authentication.
#
#   bench/run-peer-forwarding.sh [--rounds 500] [--warmup 50]
#
# Uses the test database GITOPSHQ_TEST_DB_URL (default gitopshq_bench_peer on 127.0.0.1, created
# when missing) and the offline Maven repository, like the tests. Prints the table (in the test's
# output) and writes bench/results/peer-forwarding-<UTC time>.json. See bench/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rounds=500
warmup=50
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--warmup N]" >&2; exit 2 ;;
  esac
done

export GITOPSHQ_TEST_DB_URL="${GITOPSHQ_TEST_DB_URL:-jdbc:postgresql://127.0.0.1:5432/gitopshq_bench_peer}"
db="${GITOPSHQ_TEST_DB_URL##*/}"
db="${db%%\?*}"
tools/dev/postgres.sh "${db}" >/dev/null
mkdir -p bench/results
out="${PWD}/bench/results/peer-forwarding-$(date -u +%Y%m%dT%H%M%SZ).json"
rm -rf api/target/failsafe-reports
tools/mvn.sh -q -o -pl api -am verify -Dtest=NONE -Dit.test=PeerForwardingIT \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dgitopshq.bench.peer.rounds="${rounds}" -Dgitopshq.bench.peer.warmup="${warmup}" \
  -Dgitopshq.bench.peer.out="${out}"
grep -h -A5 "live read latency" api/target/failsafe-reports/*PeerForwardingIT-output.txt 2>/dev/null || true
echo "results: ${out}"
cat "${out}"
