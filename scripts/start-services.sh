#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis that the integration tests (*.int.test.ts)
# use, each only if it is not already answering. Safe to run any number of times.
#   PostgreSQL: 127.0.0.1:5432 (trust auth)   Redis: 127.0.0.1:6379
set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=5432
REDIS_PORT=6379

wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 50); do
    if "$@" >/dev/null 2>&1; then
      echo "$what is up"
      return 0
    fi
    sleep 0.2
  done
  echo "$what did not come up" >&2
  return 1
}

if pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
  echo "PostgreSQL already answering on $PG_HOST:$PG_PORT"
else
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  wait_for PostgreSQL pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
fi

if [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]; then
  echo "Redis already answering on 127.0.0.1:$REDIS_PORT"
else
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis sh -c "[ \"\$(redis-cli -h 127.0.0.1 -p $REDIS_PORT ping)\" = PONG ]"
fi
