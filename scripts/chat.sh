#!/usr/bin/env bash
# LangChain's Agent Chat UI (MIT) in front of a running searchain server: a person asks, follows
# the rounds and approves corrections in a browser (docs/chat.md).
#
#   scripts/chat.sh start http://127.0.0.1:2024 [searchain]   # prints the URL to open
#   scripts/chat.sh stop
#   scripts/chat.sh build     # only install and build it (as .ci/run does before the tests)
#   scripts/chat.sh source DIR  # only fetch and unpack its source into DIR
#
# Where its source comes from: CHAT_UI_TARBALL when that file exists (a `git archive` of
# langchain-ai/agent-chat-ui; the tests use one at a pinned commit), else the npm registry's
# create-agent-chat-app at a pinned version, whose `nextjs` template is Agent Chat UI.
#
# Settings (environment):
#   CHAT_UI_TARBALL  a .tar.gz of the source (default ../shared/peers/agent-chat-ui.tar.gz)
#   CHAT_UI_NPM      the npm package and version used without one (create-agent-chat-app@0.1.6)
#   CHAT_UI_HOME     where it is unpacked and built, once per source (default /tmp/searchain-chat-ui)
#   CHAT_PORT        port on 127.0.0.1 (default: a free one)
#   CHAT_UI_STATE    where the running one keeps its pid, log and URL (default: this checkout's
#                    own folder, scripts/state.sh)
# Its dependencies come from the npm registry. The one change to its source: the Inter font, which
# `next/font/google` downloads at build time, becomes the system's sans-serif.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/state.sh"

TARBALL="${CHAT_UI_TARBALL:-$ROOT/../shared/peers/agent-chat-ui.tar.gz}"
NPM_SPEC="${CHAT_UI_NPM:-create-agent-chat-app@0.1.6}"
HOME_DIR="${CHAT_UI_HOME:-/tmp/searchain-chat-ui}"  # builds, shared by checkouts (one per source)
STATE="${CHAT_UI_STATE:-$(checkout_state)/chat-ui}"

log() { echo "chat.sh: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The source, unpacked into $1: the tarball, else the npm package's Agent Chat UI template.
source_tree() {
  if [ -f "$TARBALL" ]; then
    tar -xzf "$TARBALL" -C "$1" --strip-components=1; return
  fi
  log "no Agent Chat UI tarball at $TARBALL: fetching $NPM_SPEC from the npm registry"
  local pack; pack="$(mktemp -d)"
  (cd "$pack" && npm pack "$NPM_SPEC" --silent >/dev/null) \
    || die "could not fetch $NPM_SPEC from the npm registry (set CHAT_UI_TARBALL to a .tar.gz of Agent Chat UI instead)"
  tar -xzf "$pack"/*.tgz -C "$pack"
  [ -f "$pack/package/templates/nextjs/package.json" ] || die "$NPM_SPEC holds no templates/nextjs"
  cp -R "$pack/package/templates/nextjs/." "$1"
  rm -rf "$pack"
}

# What names a build: the tarball's checksum, or the npm package and version.
source_key() {
  if [ -f "$TARBALL" ]; then sha256sum "$TARBALL" | cut -c1-16; else printf '%s' "$NPM_SPEC" | sha256sum | cut -c1-16; fi
}

# Unpacked, installed and built once per source; built beside its final place and moved there
# whole, so two builds at once never mix.
build() {
  command -v npm >/dev/null || die "no npm on PATH: install Node.js (>= 20) and npm"
  APP="$HOME_DIR/app-$(source_key)"
  if [ -f "$APP/.built" ]; then return; fi
  log "installing and building Agent Chat UI in $APP (npm install and next build: a few minutes)"
  mkdir -p "$HOME_DIR"
  local tmp; tmp="$(mktemp -d "$APP.tmp.XXXX")"
  source_tree "$tmp"
  # The one offline change: no font download at build time.
  perl -0pi -e 's/import \{ Inter \} from "next\/font\/google";\n//; s/const inter = Inter\(\{.*?\}\);\n//s; s/\{inter\.className\}/"font-sans"/' \
    "$tmp/src/app/layout.tsx"
  ! grep -q "next/font/google" "$tmp/src/app/layout.tsx" || die "could not replace the Inter font in src/app/layout.tsx"
  (cd "$tmp" && npm install --no-audit --no-fund --loglevel=error >&2 \
    && NEXT_TELEMETRY_DISABLED=1 npx next build >"$tmp/build.log" 2>&1) \
    || { tail -n 30 "$tmp/build.log" >&2 2>/dev/null; die "building Agent Chat UI failed (in $tmp)"; }
  touch "$tmp/.built"
  if [ -f "$APP/.built" ]; then rm -rf "$tmp"; else rm -rf "$APP"; mv "$tmp" "$APP"; fi
}

running() {
  [ -f "$STATE/url" ] && [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null
}

start() {
  local api_url="${1:-}" assistant="${2:-searchain}"
  [ -n "$api_url" ] || die "usage: $0 start SERVER_URL [ASSISTANT_OR_GRAPH]"
  if running; then cat "$STATE/url"; return; fi
  if [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
    die "an Agent Chat UI of this checkout (pid $(cat "$STATE/pid")) is starting: wait, or scripts/chat.sh stop"
  fi
  curl -s -o /dev/null "$api_url/health" || curl -s -o /dev/null "$api_url/ok" \
    || die "no server answers at $api_url: start one (langgraph dev, or scripts/server.sh start)"
  build
  rm -rf "$STATE"; mkdir -p "$STATE"
  local port="${CHAT_PORT:-$(free_port)}"
  (cd "$APP" && NEXT_TELEMETRY_DISABLED=1 exec setsid npx next start -H 127.0.0.1 -p "$port" \
    >"$STATE/log" 2>&1) &
  echo $! > "$STATE/pid"
  local deadline=$((SECONDS + 120))
  until curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1; do
    if ! kill -0 "$(cat "$STATE/pid")" 2>/dev/null || [ $SECONDS -gt $deadline ]; then
      tail -n 20 "$STATE/log" >&2; stop; die "Agent Chat UI did not start (log: $STATE/log)"
    fi
    sleep 0.5
  done
  local encoded; encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$api_url")"
  local url="http://127.0.0.1:$port/?apiUrl=$encoded&assistantId=$assistant"
  echo "$url" > "$STATE/url"
  log "Agent Chat UI for $api_url ($assistant); for a team server, open it without"
  log "  &assistantId=...: its form takes the assistant and your API key"
  echo "$url"
}

stop() {
  if [ -f "$STATE/pid" ]; then
    local pid; pid="$(cat "$STATE/pid")"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.25; done
    log "stopped Agent Chat UI"
  else
    log "no Agent Chat UI was running (state: $STATE)"
  fi
  rm -rf "$STATE"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  build) build; echo "$APP" ;;
  source) [ -n "${2:-}" ] || die "usage: $0 source DIR"; mkdir -p "$2"; source_tree "$2" ;;
  *) echo "usage: $0 start SERVER_URL [ASSISTANT]|stop|build|source DIR" >&2; exit 2 ;;
esac
