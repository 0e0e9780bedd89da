#!/usr/bin/env bash
# A real, throw-away PostgreSQL for tests and CI, on 127.0.0.1.
#
#   scripts/postgres.sh start   # prints the URL; state in $PG_BASE/current (PG_BASE defaults to
#                               # this checkout's own folder under $TMPDIR: scripts/state.sh)
#   scripts/postgres.sh stop
#   scripts/postgres.sh url
#
# The server comes from Debian's `postgresql` package (installed here with apt-get when missing,
# which needs root). The cluster is new on every start (initdb, trust auth on loopback only) and
# is removed on stop. PostgreSQL will not run as root, so as root it runs as the user `postgres`
# that the package creates.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/state.sh"

PG_BASE="${PG_BASE:-$(checkout_state)/pg}"  # this checkout's own (scripts/state.sh)
PG_USER="${PG_USER:-postgres}"
STATE="$PG_BASE/current"

log() { echo "postgres.sh: $*" >&2; }
die() { log "$*"; exit 1; }

bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$dir" ]; then
    [ "$(id -u)" = 0 ] || { log "PostgreSQL is not installed: apt-get install postgresql (as root)"; exit 1; }
    log "installing Debian's postgresql package"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    dir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  fi
  echo "$dir"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# True when this state's server is running and answers (not only when its files are there: a
# session or CI run killed before its stop leaves them behind, naming a port nobody listens on).
running() {
  [ -f "$STATE/url" ] && [ -f "$STATE/data/postmaster.pid" ] || return 1
  kill -0 "$(head -n 1 "$STATE/data/postmaster.pid")" 2>/dev/null || return 1
  local url; url="$(cat "$STATE/url")"
  local port="${url##*:}"; port="${port%%/*}"
  "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$port" -t 10
}

start() {
  if running; then
    cat "$STATE/url"; return
  fi
  stop  # what a killed run left behind
  local bin; bin="$(bindir)"
  rm -rf "$STATE"
  # The folders made here are opened to others (the server runs as $PG_USER under root); a
  # folder above them is never touched (making PG_BASE's parent 755 once closed /tmp itself).
  local made=() up="$STATE"
  while [ ! -e "$up" ]; do made+=("$up"); up="$(dirname "$up")"; done
  mkdir -p "$STATE/data"
  local run=()
  if [ "$(id -u)" = 0 ]; then
    chmod 755 "${made[@]}"
    chown -R "$PG_USER" "$STATE"
    run=(runuser -u "$PG_USER" --)
    "${run[@]}" test -x "$STATE" \
      || die "$PG_USER cannot enter $STATE (a folder above it is closed to others): set PG_BASE under a folder others may enter"
  fi
  "${run[@]}" "$bin/initdb" -D "$STATE/data" -U searchain -A trust -E UTF8 --no-sync >/dev/null
  local port; port="$(free_port)"
  "${run[@]}" "$bin/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -t 120 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$STATE" \
    start >/dev/null
  local url="postgresql://searchain@127.0.0.1:$port/postgres"
  echo "$url" > "$STATE/url"
  log "ready at $url"
  echo "$url"
}

stop() {
  if [ -f "$STATE/data/postmaster.pid" ]; then
    local bin; bin="$(bindir)"
    local run=()
    [ "$(id -u)" = 0 ] && run=(runuser -u "$PG_USER" --)
    "${run[@]}" "$bin/pg_ctl" -D "$STATE/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) running && cat "$STATE/url" ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
