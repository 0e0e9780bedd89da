#!/usr/bin/env bash
# Run every method of SearChain's Table 1 on one data set split, then lay the results out as
# the papers do. Usage:
#   scripts/run_table1.sh OUT_DIR [DATASET] [SPLIT] [LIMIT] [LLM] [READER]
# e.g. scripts/run_table1.sh runs/local musique report 30 local llm
# METHODS="oner ircot" scripts/run_table1.sh ... runs just those methods (names as in Table 1).
# Results files are resumable: run it again to finish an interrupted run.
set -euo pipefail
out=${1:?give an output directory}
dataset=${2:-musique}
split=${3:-report}
limit=${4:-30}
llm=${5:-local}
reader=${6:-llm}
searchain=${SEARCHAIN:-searchain}
# Table 1's rows in its order, then IRCoT and plain ReAct: the methods' registry, as the CLI lists it.
mapfile -t all < <("$searchain" methods | cut -f1)
(( ${#all[@]} )) || { echo "$searchain methods listed no method" >&2; exit 2; }
read -ra methods <<< "${METHODS:-${all[*]}}"
for method in "${methods[@]}"; do  # every name checked before an hour of runs
  [[ " ${all[*]} " == *" $method "* ]] \
    || { echo "unknown method '$method' in METHODS: choose from ${all[*]}" >&2; exit 2; }
done
mkdir -p "$out"
for method in "${methods[@]}"; do
  "$searchain" eval --dataset "$dataset" --split "$split" --method "$method" --limit "$limit" \
    --llm "$llm" --reader "$reader" --out "$out/$dataset-$method.jsonl" \
    --index "${INDEX:-.searchain/pooled-index}"
done
"$searchain" report "$out"/*.jsonl --out "$out/report"
