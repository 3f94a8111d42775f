#!/usr/bin/env bash
# Upload flood (not a test): builds the service, runs it on a fresh SQLite
# store in sandbox mode, and sends UPLOADS (150) photo uploads of 10 MiB at
# once, two thirds junk and one third junk behind a JPEG signature. It prints
# how the uploads were answered and the server's resident memory before, at
# its peak and a few seconds after (from /proc: VmRSS, VmHWM).
#
#   scripts/uploadflood.sh
#   UPLOADS=300 scripts/uploadflood.sh
#   BIN=/path/to/marketplace scripts/uploadflood.sh   another build (to compare)
set -euo pipefail

cd "$(dirname "$0")/.."
UPLOADS=${UPLOADS:-150}
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

if [ -n "${BIN:-}" ]; then
	cp "$BIN" "$work/marketplace"
else
	go build -o "$work/marketplace" ./cmd/marketplace
fi
port=$(( 20000 + RANDOM % 20000 ))
B=http://127.0.0.1:$port
MARKETPLACE_ADDR=127.0.0.1:$port MARKETPLACE_DATA_DIR="$work/data" MARKETPLACE_METRICS_ADDR= MARKETPLACE_LOG_LEVEL=warn \
	"$work/marketplace" 2>"$work/log" &
pid=$!
for _ in $(seq 50); do curl -fs "$B/api/v1/health" >/dev/null 2>&1 && break; sleep 0.2; done

rss() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$pid/status"; }
TOKEN=$(curl -s -X POST "$B/api/v1/auth/register" -H 'Content-Type: application/json' \
	-d '{"email":"flood@example.com","password":"correct horse battery","displayName":"Flood","acceptedTerms":true}' |
	sed -n 's/.*"accessToken":"\([^"]*\)".*/\1/p')
: >"$work/urls"
while [ "$(wc -l <"$work/urls")" -lt "$UPLOADS" ]; do
	curl -s -X POST "$B/api/v1/listings/photos/upload-urls" -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' -d '{"count":12}' | grep -o '"uploadUrl":"[^"]*"' |
		sed 's/"uploadUrl":"\(.*\)"/\1/' >>"$work/urls"
done
head -c $((10 << 20)) /dev/urandom >"$work/junk"
{ printf '\377\330\377\340'; head -c $(((10 << 20) - 4)) /dev/urandom; } >"$work/fake.jpg"

before=$(rss VmRSS)
i=0
while read -r url; do
	file=junk
	[ $((i % 3)) -eq 0 ] && file=fake.jpg
	curl -s -o /dev/null -w '%{http_code}\n' -X PUT "$url" -H 'Content-Type: image/jpeg' \
		--data-binary @"$work/$file" >>"$work/codes" 2>/dev/null &
	i=$((i + 1))
done < <(head -n "$UPLOADS" "$work/urls")
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
peak=$(rss VmHWM)
sleep 3
after=$(rss VmRSS)
echo "answers: $(sort "$work/codes" | uniq -c | awk '{printf "%s x %s  ", $1, $2}')"
echo "server RSS: before $((before / 1024)) MiB, peak $((peak / 1024)) MiB, 3 s after $((after / 1024)) MiB"
