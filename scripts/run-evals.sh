#!/usr/bin/env bash
# Runs every labelled routing evaluation set against its registry (offline
# unless LLM_* is set). Extra arguments go to each `switchboard eval` run,
# e.g. `scripts/run-evals.sh --json`. Exit 1 when any run fails.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
run() {
  local set=$1 config=$2
  shift 2
  echo "== $set (registry $config)"
  npx tsx src/cli/main.ts eval "$set" --config "$config" "$@" || status=1
  echo
}

run examples/travel/eval.jsonl agents_config.yaml "$@"
run examples/ecommerce/eval.jsonl examples/ecommerce/agents_config.yaml "$@"
run examples/assistant/eval.jsonl examples/assistant/agents_config.yaml "$@"
exit "$status"
