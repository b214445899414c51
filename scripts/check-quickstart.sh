#!/usr/bin/env bash
# Runs README.md's native quick start and day-one tour exactly as written, as a newcomer would, in the
# current directory (meant to be a fresh clone): the code blocks after the <!-- quickstart:setup -->,
# <!-- quickstart:start -->, <!-- quickstart:requests --> and <!-- quickstart:tour --> markers, in that
# order, then every block after a <!-- quickstart:client --> marker (JavaScript, run by node as an ES
# module from the clone, so the official clients in node_modules resolve), with no provider key in the
# environment. The start block (which runs in the foreground for a newcomer) runs in the background here;
# once /readyz answers, every curl of the requests and tour blocks must answer 2xx with no "error" in its
# body, and every client block must exit 0. The service is stopped and this run's Redis keys deleted at
# the end, whatever happened.
#
# Environment: DATABASE_URL (required: a database this run may create, use and leave to its caller to drop;
# never a real one), REDIS_PREFIX (required: a prefix of its own), REDIS_URL and PORT (default: a free port).
set -euo pipefail

: "${DATABASE_URL:?DATABASE_URL must name a throwaway database}"
: "${REDIS_PREFIX:?REDIS_PREFIX must be a prefix of this run only}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
PORT="${PORT:-$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')}"
README=README.md
# How long the build and start may take before /readyz must answer, in seconds (on a loaded 2-core machine,
# npm ci, the build and the start took 220 s together).
READY_TIMEOUT_S=600

say() { printf 'quickstart: %s\n' "$*" >&2; }

# The lines of the ```-fenced block after the N-th line (default: the first) that is exactly the marker.
block() {
  awk -v marker="<!-- quickstart:$1 -->" -v want="${2:-1}" '
    $0 == marker { seen++; if (seen == want) found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$README"
}

setup=$(block setup)
start=$(block start)
requests=$(block requests)
tour=$(block tour)
clients=$(grep -c '^<!-- quickstart:client -->$' "$README" || true)
for part in setup start requests tour; do
  [ -n "${!part}" ] || { say "README.md has no code block after <!-- quickstart:$part -->"; exit 1; }
done

# A newcomer's shell: no provider keys, no settings but where PostgreSQL, Redis and the port are.
newcomer=(env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}"
  DATABASE_URL="$DATABASE_URL" REDIS_URL="$REDIS_URL" REDIS_PREFIX="$REDIS_PREFIX" PORT="$PORT")
work=$(mktemp -d)
service_pid=
cleanup() {
  if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then
    kill -TERM -- "-$service_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$service_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$service_pid" 2>/dev/null || true
  fi
  "${newcomer[@]}" npx --no-install tsx scripts/redis-keys.ts "$REDIS_URL" "$REDIS_PREFIX" 2>/dev/null || say "could not delete Redis keys under $REDIS_PREFIX"
  rm -rf "$work"
}
trap cleanup EXIT

say "setup block:"; printf '%s\n' "$setup" >&2
"${newcomer[@]}" bash -euo pipefail -c "$setup" | tee "$work/setup.out"
bootstrap=$(grep '^{"org_id"' "$work/setup.out" | tail -n 1) || { say "the setup block printed no bootstrap JSON"; exit 1; }
KEY=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).api_key)' "$bootstrap")
APP=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).app_id)' "$bootstrap")

say "start block, in the background on port $PORT:"; printf '%s\n' "$start" >&2
"${newcomer[@]}" setsid bash -euo pipefail -c "$start" >"$work/service.log" 2>&1 &
service_pid=$!
deadline=$((SECONDS + READY_TIMEOUT_S))
until curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz"; do
  if ! kill -0 "$service_pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    say "the service did not become ready; its output:"; tail -n 50 "$work/service.log" >&2
    exit 1
  fi
  sleep 1
done
say "ready after ${SECONDS}s in all"

# Each curl of the block must answer 2xx, and a body or stream event carrying an error object fails too
# (`metadata.error` of a good answer is an empty string, not an object).
check_curl='
curl() {
  local body status
  body=$(mktemp)
  status=$(command curl -o "$body" -w "%{http_code}" "$@") || { rm -f "$body"; return 1; }
  cat "$body"; echo
  if [[ $status != 2* ]] || grep -qE "\"error\" *: *\{" "$body"; then
    echo "quickstart: HTTP $status from: curl $*" >&2; rm -f "$body"; return 1
  fi
  rm -f "$body"; echo "$status" >>"$STATUSES"
}'
say "requests block:"; printf '%s\n' "$requests" >&2
env SY="http://127.0.0.1:$PORT" KEY="$KEY" APP="$APP" STATUSES="$work/statuses" bash -euo pipefail -c "$check_curl
$requests"
say "$(wc -l <"$work/statuses") example requests answered: $(tr '\n' ' ' <"$work/statuses")"

say "tour block:"; printf '%s\n' "$tour" >&2
: >"$work/statuses"
env SY="http://127.0.0.1:$PORT" KEY="$KEY" APP="$APP" STATUSES="$work/statuses" timeout 300 bash -euo pipefail -c "$check_curl
$tour"
say "the tour's $(wc -l <"$work/statuses") requests answered"

[ "$clients" -gt 0 ] || { say "README.md has no <!-- quickstart:client --> block"; exit 1; }
for n in $(seq 1 "$clients"); do
  code=$(block client "$n")
  say "client block $n:"; printf '%s\n' "$code" >&2
  env SY="http://127.0.0.1:$PORT" KEY="$KEY" timeout 120 node --input-type=module -e "$code"
done
say "$clients client blocks ran"
