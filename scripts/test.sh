#!/usr/bin/env bash
# Runs COMMAND with every server the test suite needs, started before it and stopped after it,
# whatever happens: what `make test` runs (scripts/test.sh .venv/bin/pytest), and .ci/run.
#
#   scripts/test.sh COMMAND [ARG...]
#
# Made beside the servers' start: the test environment (`make install`; made already when `make
# test` runs this, not yet when .ci/run does), its search kernels compiled. Started: PostgreSQL,
# Elasticsearch (one node and a 3-node cluster), Debian's Chromium with axe-core, the team
# server's environment with Redis, and Agent Chat UI's build (the tests start the team server,
# `langgraph dev` and Agent Chat UI themselves). Their URLs reach the tests as SEARCHAIN_TEST_*
# variables. The first time, fetching and building them takes a few minutes.
#
# Settings (environment):
#   SEARCHAIN_TEST_SERVERS=none   run COMMAND alone: the tests that need a server skip (or, under
#                                 CI=true, fail)
#   ES_BASE                       where Elasticsearch is unpacked (shared by checkouts)
#   PG_BASE, ES_STATE             the servers' state (default: this checkout's, scripts/state.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
. scripts/state.sh

# Already inside a run of this script (.ci/run wraps `make test` and the floors check in one).
if [ "${SEARCHAIN_TEST_SERVERS:-}" = none ] || [ -n "${SEARCHAIN_TEST_SERVERS_UP:-}" ]; then
  exec "$@"
fi

ES_BASE="${ES_BASE:-/tmp/searchain-ci-es}"  # the unpacked server is reused; state is removed on stop
# This checkout's own servers: another checkout's tests on the same machine never touch them.
PG_BASE="${PG_BASE:-$(checkout_state)/test-pg}"  # a new cluster every run, removed on stop
ES_STATE="${ES_STATE:-$(checkout_state)/test-es}"
export ES_BASE PG_BASE ES_STATE
ES_CLUSTER_STATE="$(checkout_state)/test-es-cluster"  # 3 nodes beside the single one, same files
stop_all() {
  scripts/elasticsearch.sh stop || true
  ES_STATE="$ES_CLUSTER_STATE" scripts/elasticsearch.sh stop || true
  scripts/postgres.sh stop || true
}
trap stop_all EXIT

# The slow ones run beside each other (each waits mostly on pip, a JVM or npm), and beside the
# apt-get installs below: `make install`'s test environment (at once when made; what .ci/run
# needs first), then the three after them.
BESIDE="$(checkout_state)/test-setup"
rm -rf "$BESIDE" && mkdir -p "$BESIDE"
beside() {  # beside NAME COMMAND...: run it in the background, its stdout and status kept
  local name=$1; shift
  ( started=$SECONDS; status=0; "$@" >"$BESIDE/$name.out" || status=$?
    echo "$status $((SECONDS - started))" >"$BESIDE/$name.status" ) &
}
joined() {  # joined NAME WHAT: after `wait`, fail if NAME failed, else say how long it took
  local status seconds; read -r status seconds <"$BESIDE/$1.status"
  [ "$status" = 0 ] || { tail -n 20 "$BESIDE/$1.out" >&2; echo "test.sh: $2 failed (exit $status)" >&2; exit 1; }
  echo "$2: $seconds s"
}
test_environment() {  # each step checked: `beside` runs this where set -e does not apply
  make --no-print-directory install || return
  # numba caches the compiled kernels beside the sources, for every process of the suite (each
  # of the first ones compiled them at once, on both workers, while none was cached).
  .venv/bin/searchain index --demo --index "$BESIDE/kernels" 2>&1
}
setup_started=$SECONDS
beside venv test_environment

started=$SECONDS
SEARCHAIN_TEST_POSTGRES_URL="$(scripts/postgres.sh start)"
export SEARCHAIN_TEST_POSTGRES_URL
echo "PostgreSQL for the tests: $SEARCHAIN_TEST_POSTGRES_URL ($((SECONDS - started)) s to install and start)"

started=$SECONDS
SEARCHAIN_TEST_ES_URL="$(scripts/elasticsearch.sh start)"
export SEARCHAIN_TEST_ES_URL
echo "Elasticsearch for the tests: $SEARCHAIN_TEST_ES_URL ($((SECONDS - started)) s to fetch and start)"

started=$SECONDS
SEARCHAIN_TEST_AXE="$(scripts/browser.sh)"
export SEARCHAIN_TEST_AXE
echo "Chromium and axe-core for the page tests: $SEARCHAIN_TEST_AXE ($((SECONDS - started)) s to install)"

# The slow ones at once (each waits mostly on a JVM, pip or npm; none uses apt-get, which
# the ones above did): the cluster, the self-hosted server's environment (Python >= 3.12) and
# Redis, with the extras of the tests' deployments (tests/server.py: a scripted LLM, the llm
# reader), and Agent Chat UI's build.
started=$SECONDS
beside cluster env ES_STATE="$ES_CLUSTER_STATE" ES_HEAP=256m scripts/elasticsearch.sh start --nodes 3
beside server env SEARCHAIN_LLM=scripted: SEARCHAIN_READER=llm SEARCHAIN_LLM_CHOICES= \
  scripts/server.sh install
# docs/server.md's start, on an OpenAI-compatible server (test_server_start_page.py): its extras.
beside server-openai env SEARCHAIN_LLM=auto SEARCHAIN_READER=auto SEARCHAIN_LLM_CHOICES= \
  OPENAI_BASE_URL=http://127.0.0.1:9/v1 REDIS_URL=redis://installed-by-the-line-above \
  scripts/server.sh install
beside chat scripts/chat.sh build
wait
joined venv "The test environment (make install) and its search kernels"
joined cluster "Elasticsearch 3-node cluster for the tests, to start"
joined server "The self-hosted server's environment and Redis, to install"
joined server-openai "The self-hosted server's environment for an OpenAI-compatible LLM, to install"
joined chat "Agent Chat UI for the chat tests, to install and build"
echo "($((SECONDS - started)) s for the four at once; $((SECONDS - setup_started)) s for the whole set-up)"
SEARCHAIN_TEST_ES_CLUSTER="$(cat "$BESIDE/cluster.out")"
export SEARCHAIN_TEST_ES_CLUSTER SEARCHAIN_TEST_ES_CLUSTER_BASE="$ES_BASE" SEARCHAIN_TEST_ES_CLUSTER_STATE="$ES_CLUSTER_STATE"
echo "Elasticsearch 3-node cluster for the tests: $SEARCHAIN_TEST_ES_CLUSTER"

export SEARCHAIN_TEST_SERVERS_UP=1
"$@"
