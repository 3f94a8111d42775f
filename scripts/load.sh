#!/usr/bin/env bash
# Load benchmark (not a test): builds the service, runs it on a fresh store in
# sandbox mode on 127.0.0.1 and measures endpoints with hey.
#
#   scripts/load.sh [auth]          an agent-authenticated read and the health
#                                   check: 50,000 requests each, 50 concurrent
#   scripts/load.sh listings        seeds LISTINGS (100,000) synthetic listings,
#                                   then text search with a filter and a
#                                   listing read: 20 concurrent
#   ENGINE=postgres scripts/load.sh listings
#                                   the same on PostgreSQL (PG_URL, default the
#                                   local server; a fresh database is made)
#   N=20000 C=50 scripts/load.sh    fewer requests, other concurrency
#   LOG_LEVEL=warn scripts/load.sh  without the per-request access log
#
# Traffic goes to 127.0.0.1 only. Needs curl; installs hey if missing.
set -euo pipefail

cd "$(dirname "$0")/.."

SUITE=${1:-auth}
case "$SUITE" in
auth) C=${C:-50} ;;
listings) C=${C:-20} ;;
*) echo "load: unknown suite $SUITE (auth or listings)" >&2; exit 2 ;;
esac
ENGINE=${ENGINE:-sqlite}
LISTINGS=${LISTINGS:-100000}
N=${N:-50000}   # requests per endpoint
WARM=${WARM:-2000}
TIMEOUT=${TIMEOUT:-120} # seconds, per hey run

die() { printf 'load: %s\n' "$*" >&2; exit 1; }

command -v curl >/dev/null || die "curl is required"
command -v ss >/dev/null || die "ss (iproute2) is required"
if ! command -v hey >/dev/null; then
	echo "installing hey" >&2
	if ! { apt-get install -y hey >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y hey >/dev/null 2>&1; }; }; then
		go install github.com/rakyll/hey@latest
		PATH="$(go env GOPATH)/bin:$PATH"
	fi
fi
command -v hey >/dev/null || die "hey could not be installed"

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "building" >&2
go build -o "$work/marketplace" ./cmd/marketplace
go build -o "$work/searchload" ./scripts/searchload

db_url=
if [ "$ENGINE" = postgres ]; then
	command -v psql >/dev/null || die "psql is required for ENGINE=postgres"
	pg=${PG_URL:-postgres://postgres@127.0.0.1:5432}
	name="marketplace_load_$$"
	psql "$pg/postgres" -qc "CREATE DATABASE $name" >/dev/null || die "cannot create database $name"
	db_url="$pg/$name?sslmode=disable"
	drop_db() { psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1 || true; }
	trap 'cleanup; drop_db' EXIT INT TERM
fi

if [ "$SUITE" = listings ]; then
	echo "seeding $LISTINGS listings on $ENGINE" >&2
	MARKETPLACE_DATA_DIR="$work/data" MARKETPLACE_DATABASE_URL="$db_url" MARKETPLACE_LOG_LEVEL=warn \
		"$work/marketplace" seed --listings "$LISTINGS" --seed 7 | tail -n1 >&2
	# Write the seeded data out now, not in a checkpoint during the runs.
	if [ "$ENGINE" = postgres ]; then psql "$pg/postgres" -qc "CHECKPOINT" >/dev/null; fi
	sync
fi

# Port 0: the kernel picks a free port; ss tells which one the server got.
# The log level is the service's default (info: one access-log line per
# request), as it runs; LOG_LEVEL=warn measures without the access log.
MARKETPLACE_ADDR="127.0.0.1:0" MARKETPLACE_DATA_DIR="$work/data" MARKETPLACE_MODE=sandbox \
	MARKETPLACE_DATABASE_URL="$db_url" MARKETPLACE_REDIS_URL= MARKETPLACE_LOG_LEVEL="${LOG_LEVEL:-info}" \
	"$work/marketplace" serve >"$work/server.log" 2>&1 &
pid=$!

base=
for _ in $(seq 1 100); do
	addr=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$pid," 'index($0, p) && $4 ~ /^127\.0\.0\.1:/ {print $4; exit}')
	if [ -n "$addr" ] && curl -fsS "http://$addr/api/v1/health" >/dev/null 2>&1; then
		base="http://$addr"
		break
	fi
	kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; die "the server exited"; }
	sleep 0.1
done
[ -n "$base" ] || { cat "$work/server.log" >&2; die "the server did not start answering within 10s"; }

# json_field KEY reads the first "KEY":"value" string out of stdin.
json_field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -n1; }

echo "seeding" >&2
token=$(curl -fsS -X POST "$base/api/v1/auth/register" -H 'Content-Type: application/json' \
	-d '{"email":"load@example.com","password":"load-test-password-1","displayName":"Load","username":"loadtest","acceptedTerms":true}' |
	json_field accessToken)
[ -n "$token" ] || die "register returned no token"
key=$(curl -fsS -X POST "$base/api/v1/agent-keys" -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
	-d '{"label":"load","scope":"buy_sell","acceptedAgentTerms":true}' | json_field key)
[ -n "$key" ] || die "agent key creation returned no key"
curl -fsS "$base/api/v1/auth/me" -H "X-Agent-Key: $key" >/dev/null || die "the agent key does not authenticate"

# cpu_ticks prints the server's user+system CPU time so far, in clock ticks.
# Per request it is a figure that other work on the machine hardly moves.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)

# bench NAME URL [hey args...] prints one row: name, req/s, p50, p99,
# server CPU per request, non-2xx.
bench() {
	local name=$1 url=$2
	shift 2
	timeout 60 hey -n "$WARM" -c "$C" "$@" "$url" >/dev/null
	local out t0 t1
	t0=$(cpu_ticks)
	out=$(timeout "$TIMEOUT" hey -n "$N" -c "$C" "$@" "$url")
	t1=$(cpu_ticks)
	local rps p50 p99 ok cpu
	rps=$(awk '/Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")
	p50=$(awk '/ 50% in / {printf "%.2f", $3*1000}' <<<"$out")
	p99=$(awk '/ 99% in / {printf "%.2f", $3*1000}' <<<"$out")
	ok=$(awk '/\[2[0-9][0-9]\]/ {s+=$2} END {print s+0}' <<<"$out")
	cpu=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$N" 'BEGIN {printf "%.0f", d / hz * 1e6 / n}')
	printf '| %-28s | %8s | %8s | %8s | %11s | %7s |\n' "$name" "$rps" "$p50" "$p99" "$cpu" "$((N - ok))"
}

echo
echo "$N requests per endpoint, $C concurrent, after $WARM warm-up requests; $ENGINE, sandbox;" \
	"$(nproc) cores shared by server and hey; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '| %-28s | %8s | %8s | %8s | %11s | %7s |\n' "endpoint" "req/s" "p50 ms" "p99 ms" "server us/req" "non-2xx"
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------" "----------" "----------" "----------" "---------------" "---------"
if [ "$SUITE" = auth ]; then
	bench "GET /api/v1/auth/me (agent)" "$base/api/v1/auth/me" -H "X-Agent-Key: $key"
	bench "GET /api/v1/health" "$base/api/v1/health"
	exit 0
fi
# varied NAME PATH [key]: every request a different query (searchload), so
# no answer comes from the search cache.
varied() {
	"$work/searchload" -base "$base" -path "$2" -key "${3:-}" -n 2000 -c "$C" -seed 99 >/dev/null
	local t0 t1 out
	t0=$(cpu_ticks)
	out=$("$work/searchload" -base "$base" -path "$2" -key "${3:-}" -n "$N" -c "$C")
	t1=$(cpu_ticks)
	read -r rps p50 p99 failed <<<"$out"
	cpu=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$N" 'BEGIN {printf "%.0f", d / hz * 1e6 / n}')
	printf '| %-28s | %8s | %8s | %8s | %11s | %7s |\n' "$1" "$rps" "$p50" "$p99" "$cpu" "$failed"
}
id=$(curl -fsS "$base/api/v1/listings?limit=1&sortBy=price_desc" | grep -o '"data":\[{"id":"[^"]*"' | cut -d'"' -f6)
[ -n "$id" ] || die "search found no listing to read"
varied "search: varied q + filters" /api/v1/listings
varied "search (B): varied, total" /v1/search "$key"
bench "search: one query, repeated" "$base/api/v1/listings?q=vintage+lamp&condition=good"
bench "GET /api/v1/listings/{id}" "$base/api/v1/listings/$id"
