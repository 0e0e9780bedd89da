#!/usr/bin/env bash
# searchain served to many users: Aegra (an open Agent Protocol server, no licence key) with
# several worker processes, threads in PostgreSQL, runs queued in Redis, API keys per user.
#
#   SEARCHAIN_API_KEYS_FILE=keys.toml scripts/server.sh start   # prints the base URL
#   scripts/server.sh stop
#   scripts/server.sh url
#   scripts/server.sh install   # only its environment and Redis (as .ci/run does before the tests)
#
# Settings (environment):
#   SEARCHAIN_API_KEYS_FILE  required: the TOML key file (docs/server.md; searchain-server-key)
#   DATABASE_URL             PostgreSQL; unset: a throw-away one from scripts/postgres.sh
#   REDIS_URL                Redis; unset: a throw-away redis-server (Debian's package) on loopback
#   SERVER_WORKERS           worker processes (default 2)
#   SERVER_PORT              port on 127.0.0.1 (default: a free one)
#   SERVER_PYTHON            Python >= 3.12 for the server's environment (Aegra needs it)
#   SERVER_EXTRAS            extras to install beyond those the settings need (comma-separated)
#   SERVER_VENV              that environment (default .venv-server/EXTRAS, kept between starts)
#   AEGRA_CONFIG             Aegra's configuration (default aegra.json: the graphs, keys, MCP)
#   SEARCHAIN_*              the graphs' default settings (index, llm, reader, ...)
#   SERVER_BASE              its state (default: this checkout's own folder under $TMPDIR)
# State (pids, logs, url) in $SERVER_BASE/current; the server's log is $SERVER_BASE/current/log;
# its throw-away PostgreSQL, when DATABASE_URL is unset, in $SERVER_BASE/pg (stopped with it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/state.sh"

SERVER_BASE="${SERVER_BASE:-$(checkout_state)/server}"
STATE="$SERVER_BASE/current"
FAILED="$SERVER_BASE/failed"  # the state of the last start that failed, for its logs
WORKERS="${SERVER_WORKERS:-2}"
export PG_BASE="$SERVER_BASE/pg"  # the server's own cluster, never the tests' or another's

log() { echo "server.sh: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

server_python() {
  if [ -n "${SERVER_PYTHON:-}" ]; then echo "$SERVER_PYTHON"; return; fi
  local candidate
  for candidate in python3.13 python3.12 \
      $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[23]*/bin/python 2>/dev/null | sort -rV); do
    # Run it: a pyenv shim exists for versions that are not selected, and fails when run.
    if "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' >/dev/null 2>&1; then
      echo "$candidate"; return
    fi
  done
  die "the server needs Python >= 3.12 (Aegra does): install one, or set SERVER_PYTHON"
}

# The extras the deployment's settings need (searchain/server/extras.py: an openai: LLM needs
# openai, local needs local, dpr needs models, ...), and SERVER_EXTRAS. One environment per set
# of extras, rebuilt when pyproject.toml changes: a start with other settings never replaces the
# environment a running server uses.
extras() {
  PYTHONPATH="$ROOT" "$(server_python)" -m searchain.server.extras
}

environment() {
  EXTRAS="$(extras)" || exit 1
  VENV="${SERVER_VENV:-$ROOT/.venv-server/${EXTRAS//,/-}}"
  local stamp; stamp="$( (cat "$ROOT/pyproject.toml"; echo "$EXTRAS") | sha256sum | cut -c1-16)"
  if [ -f "$VENV/.stamp" ] && [ "$(cat "$VENV/.stamp")" = "$stamp" ]; then return; fi
  local python; python="$(server_python)"
  log "installing the server's environment in $VENV (aegra-api, searchain[$EXTRAS]; a minute or"
  log "  two, longer the first time an extra compiles: local builds llama.cpp)"
  rm -rf "$VENV"
  "$python" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip >&2
  PYTHONWARNINGS="ignore:Editable installation" \
    "$VENV/bin/pip" install -q -e "$ROOT[$EXTRAS]" >&2
  echo "$stamp" > "$VENV/.stamp"
}

redis_server() {
  command -v redis-server >/dev/null 2>&1 && return
  [ "$(id -u)" = 0 ] || die "Redis is not installed: apt-get install redis-server (as root), or set REDIS_URL"
  log "installing Debian's redis-server package"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
}

redis() {
  if [ -n "${REDIS_URL:-}" ]; then echo "$REDIS_URL"; return; fi
  redis_server
  local port; port="$(free_port)"
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --daemonize yes \
    --pidfile "$STATE/redis.pid" --logfile "$STATE/redis.log" --dir "$STATE" >/dev/null 9>&-
  echo "redis://127.0.0.1:$port/0"
}

# A PostgreSQL database of the server's own (never the database other tests write threads to).
database() {
  if [ -n "${DATABASE_URL:-}" ]; then echo "$DATABASE_URL"; return; fi
  local cluster; cluster="$("$ROOT/scripts/postgres.sh" start 9>&-)"  # the lock is not its
  "$VENV/bin/python" - "$cluster" <<'EOF' >&2
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'searchain_server'").fetchone():
        conn.execute("CREATE DATABASE searchain_server")
EOF
  echo "${cluster%/*}/searchain_server"
}

live() {  # a process of this state is alive (a killed session leaves its files behind)
  [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null
}

running() {  # this state's server is running and was said to be ready
  [ -f "$STATE/url" ] && live
}

# One start or stop of this state at a time: a second waits for the first.
locked() {
  mkdir -p "$SERVER_BASE"
  exec 9>"$SERVER_BASE/lock"
  flock 9
}

start() {
  locked
  if running; then
    cat "$STATE/url"; return
  fi
  live && die "a server of this state ($STATE, pid $(cat "$STATE/pid")) runs but never said it was ready: scripts/server.sh stop first"
  [ -n "${SEARCHAIN_API_KEYS_FILE:-}" ] \
    || die "set SEARCHAIN_API_KEYS_FILE to a TOML file of API keys (searchain-server-key makes one)"
  # The workers run in the state directory: a path given relative to here must still name it,
  # and the index's default is the CLI's (searchain-index, here).
  SEARCHAIN_API_KEYS_FILE="$(realpath -m -- "$SEARCHAIN_API_KEYS_FILE")"
  SEARCHAIN_INDEX="$(realpath -m -- "${SEARCHAIN_INDEX:-searchain-index}")"
  SEARCHAIN_CALIBRATION="$(realpath -m -- "${SEARCHAIN_CALIBRATION:-.searchain/calibration.json}")"
  export SEARCHAIN_API_KEYS_FILE SEARCHAIN_INDEX SEARCHAIN_CALIBRATION
  environment
  "$VENV/bin/searchain-server-key" "$SEARCHAIN_API_KEYS_FILE" >/dev/null || exit 1
  stop_processes  # what a killed start left behind: nothing of it answers (running said so)
  rm -rf "$STATE"; mkdir -p "$STATE"
  # Ready means it can answer: the deployment's LLM, reader, verifier and index load here, once,
  # before anything is started (searchain/server/ready.py), read as the workers will read them.
  local checked
  if ! checked="$(cd "$STATE" && "$VENV/bin/python" -m searchain.server.ready 2>"$STATE/ready.log")"; then
    local last; last="$(tail -n 1 "$STATE/ready.log")"
    case "$last" in
      error:*) give_up "cannot serve this deployment: ${last#error: } (its environment, $VENV, has searchain[$EXTRAS]; SERVER_EXTRAS=NAME,... adds extras)" ;;
      *) tail -n 5 "$STATE/ready.log" >&2; give_up "loading the deployment's models failed (log: $FAILED/ready.log)" ;;
    esac
  fi
  local db; db="$(database)"
  local port="${SERVER_PORT:-$(free_port)}"
  export DATABASE_URL="$db" AEGRA_CONFIG="${AEGRA_CONFIG:-$ROOT/aegra.json}" RUN_MIGRATIONS_ON_STARTUP=false \
    LANGGRAPH_STRICT_MSGPACK=true LOG_LEVEL="${LOG_LEVEL:-INFO}" PORT="$port"
  # Callers set only their own settings (docs/server.md); MCP's runs go to this address.
  export SEARCHAIN_SERVER_INTERNAL_URL="http://127.0.0.1:$port"
  # No crons (their routes are refused too) and no Agent Protocol v2 streams: routes this server
  # does not serve (searchain/server/routes.py) start nothing of their own either.
  export CRON_ENABLED=false FF_V2_EVENT_STREAMING=false
  # The database's tables once, before the workers (started together on an empty database,
  # they race to create them and one dies).
  if ! (cd "$STATE" && "$VENV/bin/python" -m searchain.server.prepare) >"$STATE/prepare.log" 2>&1; then
    local last; last="$(tail -n 1 "$STATE/prepare.log")"
    case "$last" in
      error:*) give_up "${last#error: }" ;;
      *) tail -n 5 "$STATE/prepare.log" >&2; give_up "preparing the database failed (log: $FAILED/prepare.log)" ;;
    esac
  fi
  export REDIS_URL; REDIS_URL="$(redis)"
  export REDIS_BROKER_ENABLED=true
  trap 'stop_processes; rm -rf "$STATE"' ERR
  (cd "$STATE" && exec setsid "$VENV/bin/uvicorn" searchain.server.front:app --host 127.0.0.1 \
    --port "$port" --workers "$WORKERS" --timeout-graceful-shutdown 60 >"$STATE/log" 2>&1 9>&-) &
  echo $! > "$STATE/pid"
  local url="http://127.0.0.1:$port"
  local deadline=$((SECONDS + 180))
  # Ready when every worker has said it started (one may fail after another answers; the
  # line is logged at INFO, so a quieter LOG_LEVEL waits for an answer only) and one answers.
  local started=$WORKERS
  case "$LOG_LEVEL" in INFO|DEBUG|info|debug) ;; *) started=0 ;; esac
  until [ "$(grep -c "Application startup complete" "$STATE/log")" -ge "$started" ] \
      && curl -sf "$url/health" >/dev/null 2>&1; do
    if ! kill -0 "$(cat "$STATE/pid")" 2>/dev/null || [ $SECONDS -gt $deadline ]; then
      tail -n 20 "$STATE/log" >&2
      give_up "the server did not start (log: $FAILED/log)"
    fi
    sleep 0.5
  done
  # Fail closed: a server that answers a keyless request is never reported ready.
  local path code
  for path in /assistants/search /docs /openapi.json /info; do
    if [ "$path" = /assistants/search ]; then  # a route of the API itself (POST, a JSON body)
      code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' -d '{}' "$url$path")"
    else
      code="$(curl -s -o /dev/null -w '%{http_code}' "$url$path")"
    fi
    if [ "$code" != 401 ]; then
      tail -n 20 "$STATE/log" >&2
      give_up "the server answered $path without a key ($code, not 401): its authentication did not load (its log above)"
    fi
  done
  echo "$url" > "$STATE/url"
  # What the defaults stood for (the reader auto chose, θ), said once it is ready: a start
  # refused later says why in one line.
  [ -z "$checked" ] || while IFS= read -r line; do log "$line"; done <<<"$checked"
  log "ready at $url ($WORKERS workers)"
  echo "$url"
}

stop() {
  locked
  stop_processes
  rm -rf "$STATE"
}

# A start that failed: everything it started is stopped and its state moved to $FAILED (its
# logs kept there, replaced by the next failure), so nothing of it is taken for a server.
give_up() {
  stop_processes
  rm -rf "$FAILED"; mv "$STATE" "$FAILED"
  die "$*"
}

# The server, its Redis and its own PostgreSQL, each stopped if it runs.
stop_processes() {
  if [ -f "$STATE/pid" ]; then
    local pid; pid="$(cat "$STATE/pid")"
    # SIGTERM: each worker stops taking work and lets running questions finish (60 s at most).
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 140); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.25; done
  fi
  # Redis writes its last log lines into the state directory as it exits: wait for it, so the
  # directory is not removed while something still writes there.
  if [ -f "$STATE/redis.pid" ]; then
    local redis_pid; redis_pid="$(cat "$STATE/redis.pid")"
    kill "$redis_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$redis_pid" 2>/dev/null || break; sleep 0.25; done
  fi
  "$ROOT/scripts/postgres.sh" stop
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) running && cat "$STATE/url" ;;
  install) environment; [ -n "${REDIS_URL:-}" ] || redis_server; echo "$VENV" ;;
  *) echo "usage: $0 start|stop|url|install" >&2; exit 2 ;;
esac
