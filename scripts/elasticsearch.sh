#!/usr/bin/env bash
# A real, throw-away Elasticsearch for tests, CI and benchmarks, on 127.0.0.1.
#
#   scripts/elasticsearch.sh start             # one node; prints its URL; state in $ES_STATE
#                                              # (default: this checkout's own, scripts/state.sh)
#   scripts/elasticsearch.sh start --nodes 3   # a 3-node cluster; prints the URLs, comma-separated
#   scripts/elasticsearch.sh stop
#   scripts/elasticsearch.sh url
#   scripts/elasticsearch.sh kill-node I       # SIGKILL node I (1-based), as a crash would
#   scripts/elasticsearch.sh start-node I      # start node I again on its data (after kill-node)
#   scripts/elasticsearch.sh state             # prints the state folder (nodes' pids and logs)
#
# ES_HEAP sets each node's heap (512m by default); ES_HEAP=auto lets Elasticsearch size it
# itself from the machine's memory, as it recommends for production.
#
# The integration-test distribution (no bundled JDK; security switched off) comes from Maven Central
# through Maven (cached in ~/.m2) and runs on the machine's JDK (17 or newer). Elasticsearch will
# not run as root, so as root it runs as the system user `searchain-es`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/scripts/state.sh"

ES_VERSION="${ES_VERSION:-8.19.21}"
ES_BASE="${ES_BASE:-/tmp/searchain-es}"  # the unpacked server, shared: state is per checkout
ES_HEAP="${ES_HEAP:-512m}"
ES_USER="${ES_USER:-searchain-es}"
DIST="$ES_BASE/elasticsearch-$ES_VERSION"
STATE="${ES_STATE:-$(checkout_state)/es}"  # a second cluster beside the first: another ES_STATE

log() { echo "elasticsearch.sh: $*" >&2; }

fetch() {
  [ -x "$DIST/bin/elasticsearch" ] && return
  mkdir -p "$ES_BASE"
  local zip_dir
  zip_dir="$(mktemp -d "$ES_BASE/zip.XXXX")"
  log "fetching org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION from Maven Central"
  mvn -q -B dependency:copy \
    -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
    -DoutputDirectory="$zip_dir" >&2
  local unpack
  unpack="$(mktemp -d "$ES_BASE/unpack.XXXX")"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$zip_dir"/elasticsearch-*.zip "$unpack"
  chmod +x "$unpack"/elasticsearch-*/bin/* "$unpack"/elasticsearch-*/lib/platform/*/* 2>/dev/null || true
  mv "$unpack/elasticsearch-$ES_VERSION" "$DIST"
  rm -rf "$zip_dir" "$unpack"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

node_dir() { echo "$STATE/node-$1"; }

launch() {  # launch node $1 with the settings saved in its directory; returns at once
  local dir; dir="$(node_dir "$1")"
  local run=()
  [ "$(id -u)" = 0 ] && run=(runuser -u "$ES_USER" --)
  local java_home="${ES_JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  local heap=()
  [ "$ES_HEAP" != auto ] && heap=(ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP")
  local settings=()
  mapfile -t settings < "$dir/settings"
  "${run[@]}" env "${heap[@]}" ES_JAVA_HOME="$java_home" \
    "$DIST/bin/elasticsearch" -d -p "$dir/pid" "${settings[@]}" > "$dir/logs/console.log" 2>&1
}

start() {
  local nodes=1
  if [ "${1:-}" = --nodes ]; then nodes="${2:?--nodes N}"; fi
  if [ -f "$STATE/url" ] && curl -sf --max-time 10 "$(cut -d, -f1 "$STATE/url")" >/dev/null 2>&1; then
    cat "$STATE/url"; return
  fi
  if alive_nodes; then  # running but slow to answer: never wipe the data of a live node
    local first; first="$(cut -d, -f1 "$STATE/url" 2>/dev/null || true)"
    if [ -n "$first" ] && wait_green "$first" "$(ls -d "$STATE"/node-* | wc -l)" 180; then
      cat "$STATE/url"; return
    fi
    log "a node at $STATE is running but not answering: scripts/elasticsearch.sh stop, then start"
    exit 1
  fi
  command -v java >/dev/null || { log "no java on PATH: install a JDK 17+"; exit 1; }
  fetch
  rm -rf "$STATE"; mkdir -p "$STATE"
  local ports=() transports=() names=() i
  for i in $(seq 1 "$nodes"); do
    ports+=("$(free_port)"); transports+=("$(free_port)"); names+=("node-$i")
  done
  local seeds; seeds="$(printf '127.0.0.1:%s,' "${transports[@]}")"
  for i in $(seq 1 "$nodes"); do
    local dir; dir="$(node_dir "$i")"
    mkdir -p "$dir/data" "$dir/logs"
    {
      if [ "$nodes" = 1 ]; then
        echo "-Ediscovery.type=single-node"
      else
        echo "-Ecluster.name=searchain-$nodes-nodes"
        echo "-Enode.name=node-$i"
        echo "-Ediscovery.seed_hosts=${seeds%,}"
        echo "-Ecluster.initial_master_nodes=$(IFS=,; echo "${names[*]}")"
      fi
      echo "-Enetwork.host=127.0.0.1"
      echo "-Ehttp.port=${ports[$((i - 1))]}"
      echo "-Etransport.port=${transports[$((i - 1))]}"
      echo "-Epath.data=$dir/data"
      echo "-Epath.logs=$dir/logs"
      echo "-Ecluster.routing.allocation.disk.threshold_enabled=false"
      echo "-Eaction.destructive_requires_name=false"
      echo "-Expack.security.enabled=false"
      echo "-Expack.ml.enabled=false"
    } > "$dir/settings"
  done
  if [ "$(id -u)" = 0 ]; then
    id "$ES_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"
    chown -R "$ES_USER" "$DIST" "$STATE"
    chmod 755 "$ES_BASE"
  fi
  for i in $(seq 1 "$nodes"); do launch "$i"; done
  local urls; urls="$(printf 'http://127.0.0.1:%s,' "${ports[@]}")"; urls="${urls%,}"
  if wait_green "${urls%%,*}" "$nodes" 300; then
    echo "$urls" > "$STATE/url"
    log "green at $urls"
    echo "$urls"; return
  fi
  log "not green after 300 s; last log lines:"; tail -n 20 "$STATE"/node-*/logs/*.log >&2 || true
  stop; exit 1
}

alive_nodes() {  # true when a node process of $STATE is running
  local pid_file
  for pid_file in "$STATE"/node-*/pid; do
    [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null && return 0
  done
  return 1
}

wait_green() {  # URL NODES SECONDS
  for _ in $(seq 1 "$3"); do
    if curl -sf "$1/_cluster/health?wait_for_status=green&wait_for_nodes=$2&timeout=1s" >/dev/null 2>&1; then
      return 0
    fi
    sleep 1
  done
  return 1
}

kill_node() {
  local pid_file; pid_file="$(node_dir "${1:?node number}")/pid"
  [ -f "$pid_file" ] || { log "node $1 is not running"; exit 1; }
  kill -9 "$(cat "$pid_file")" 2>/dev/null || true
  rm -f "$pid_file"
}

start_node() {
  local i="${1:?node number}"
  [ -f "$(node_dir "$i")/settings" ] || { log "no node $i: start the cluster first"; exit 1; }
  launch "$i"
  local urls; urls="$(cat "$STATE/url")"
  local nodes; nodes="$(ls -d "$STATE"/node-* | wc -l)"
  wait_green "$(echo "$urls" | cut -d, -f"$i")" "$nodes" 180 || { log "node $i did not rejoin"; exit 1; }
}

stop() {
  local pid_file
  for pid_file in "$STATE"/node-*/pid; do
    [ -f "$pid_file" ] || continue
    local pid; pid="$(cat "$pid_file")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$STATE"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  url) alive_nodes && cat "$STATE/url" ;;
  kill-node) kill_node "${2:-}" ;;
  start-node) start_node "${2:-}" ;;
  state) echo "$STATE" ;;
  *) echo "usage: $0 start [--nodes N]|stop|url|kill-node I|start-node I" >&2; exit 2 ;;
esac
