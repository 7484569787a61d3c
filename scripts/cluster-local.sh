#!/usr/bin/env bash
# A whole cluster on this machine: a coordinator (adarl run) and GENERATORS generator
# workers and VERIFIERS verifier workers (separate processes, on 127.0.0.1), running
# CONFIG to its end. Every generator is remote (actors.generators=0); the run's local
# verifiers stay as the fallback of the remote ones.
#   scripts/cluster-local.sh [--resume] [CONFIG] [GENERATORS] [VERIFIERS] [key.path=value ...]
# defaults: configs/quickstart.yaml, 2 generators, 1 verifier. Builds adarl if needed.
# The run goes to runs/cluster-NAME, the processes' logs to runs/cluster-NAME-logs. A
# fresh start refuses a directory that holds a run (as adarl run does); --resume
# continues it from its last checkpoint.
# Ctrl-C or SIGTERM stops everything the script started: the signal goes once to the
# coordinator, which drains, writes a checkpoint and exits 130; then the workers are
# stopped (SIGTERM, SIGKILL after 10 s); the script prints the command that continues
# the run and exits 130. Each process runs in its own process group, so a Ctrl-C at the
# terminal reaches the script only and the coordinator sees one signal, not two (a
# second one ends it at once, without a checkpoint).
# Environment: ADARL, the executable (default build/adarl, built if missing);
# CLUSTER_OUT, the run's directory (default runs/cluster-NAME). Relative paths are
# relative to the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
resume=""
if [ "${1:-}" = "--resume" ]; then
  resume=1
  shift
fi
config=${1:-configs/quickstart.yaml}
generators=${2:-2}
verifiers=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
adarl=${ADARL:-build/adarl}
[ -n "${ADARL:-}" ] || [ -x build/adarl ] || bash scripts/build.sh adarl_cli
name=$(basename "$config" .yaml)
out=${CLUSTER_OUT:-runs/cluster-$name}
logs=$out-logs
again=(scripts/cluster-local.sh --resume "$config" "$generators" "$verifiers" "$@")
again_text=$(printf '%q ' "${again[@]}")
[ -z "${CLUSTER_OUT:-}" ] || again_text="CLUSTER_OUT=$(printf '%q' "$CLUSTER_OUT") $again_text"
[ -z "${ADARL:-}" ] || again_text="ADARL=$(printf '%q' "$ADARL") $again_text"
resume_args=()
if [ -n "$resume" ]; then
  if [ ! -s "$out/metrics.jsonl" ] && [ ! -e "$out/checkpoints" ]; then
    echo "cluster-local: --resume: $out holds no run to continue" >&2
    exit 2
  fi
  resume_args=(--resume "$out")
elif [ -s "$out/metrics.jsonl" ]; then
  echo "cluster-local: $out holds a run: continue it with ${again_text}or remove $out and" \
       "$logs to start over" >&2
  exit 2
else
  rm -rf "$out" "$logs"
fi
mkdir -p "$logs"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
gen_port=$(free_port)
ver_port=$(free_port)
pids=()
coordinator=""
stopped_by=""
forwarded=""
stop_workers() {
  local p i alive
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for i in $(seq 100); do
    alive=""
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  pids=()
}
on_signal() {  # on_signal INT|TERM: passed on to the coordinator, which stops cleanly
  stopped_by=$1
  echo "cluster-local: SIG$1: stopping the coordinator (it writes a checkpoint)," \
       "then the workers" >&2
  if [ -n "$coordinator" ]; then
    kill -"$1" "$coordinator" 2>/dev/null || true
    forwarded=1
  fi
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'stop_workers; [ -z "$coordinator" ] || kill -KILL "$coordinator" 2>/dev/null || true' EXIT

[ -z "$stopped_by" ] || exit 130  # stopped before anything started
set -m  # a process group of its own for each process started below
echo "cluster-local: coordinator log  $logs/coordinator.log (metrics in $out)"
"$adarl" run "$config" out="$out" progress=false actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$gen_port" \
  "actors.remote_verifiers.bind=tcp://127.0.0.1:$ver_port" "$@" "${resume_args[@]}" \
  >> "$logs/coordinator.log" 2>&1 &
coordinator=$!
# A signal that came before $coordinator was set.
if [ -n "$stopped_by" ] && [ -z "$forwarded" ]; then
  kill -"$stopped_by" "$coordinator" 2>/dev/null || true
  forwarded=1
fi
for i in $(seq 1 "$generators"); do
  "$adarl" worker generate --connect "tcp://127.0.0.1:$gen_port" --name "generator-$i" \
    >> "$logs/generator-$i.log" 2>&1 &
  pids+=($!)
  echo "cluster-local: generator $i log $logs/generator-$i.log"
done
for i in $(seq 1 "$verifiers"); do
  "$adarl" worker verify --connect "tcp://127.0.0.1:$ver_port" --name "verifier-$i" \
    >> "$logs/verifier-$i.log" 2>&1 &
  pids+=($!)
  echo "cluster-local: verifier $i log  $logs/verifier-$i.log"
done
set +m
status=0
# A trapped signal interrupts `wait` (status > 128) while the coordinator still runs.
while :; do
  status=0
  wait "$coordinator" || status=$?
  kill -0 "$coordinator" 2>/dev/null || break
done
coordinator=""
stop_workers
grep -E "^run: |^remote (generators|verifiers): [0-9]" \
  "$logs/coordinator.log" || true
echo "cluster-local: coordinator exit status $status"
if [ -n "$stopped_by" ]; then
  echo "cluster-local: stopped by SIG$stopped_by; continue with: ${again_text% }"
  exit 130
fi
exit "$status"
