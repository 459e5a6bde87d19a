#!/usr/bin/env bash
# Runs every benchmark (`bench/run-all.ts`: registry reload, model calls per
# turn, replicas). The replicas bench needs PostgreSQL and Redis, so they are
# started first when not answering.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/start-services.sh
exec npx tsx bench/run-all.ts
