#!/usr/bin/env bash
# A whole cluster on this machine: a coordinator (adarl run) and GENERATORS generator
# workers and VERIFIERS verifier workers (separate processes, on 127.0.0.1), running
# CONFIG to its end. Every generator is remote (actors.generators=0); the run's local
# verifiers stay as the fallback of the remote ones.
#   scripts/cluster-local.sh [CONFIG] [GENERATORS] [VERIFIERS] [key.path=value ...]
# defaults: configs/quickstart.yaml, 2 generators, 1 verifier. Builds adarl if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-configs/quickstart.yaml}
generators=${2:-2}
verifiers=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
[ -x build/adarl ] || bash scripts/build.sh adarl_cli
name=$(basename "$config" .yaml)
out=runs/cluster-$name
logs=$out-logs
rm -rf "$out" "$logs"
mkdir -p "$logs"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
gen_port=$(free_port)
ver_port=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

echo "cluster-local: coordinator log  $logs/coordinator.log (metrics in $out)"
./build/adarl run "$config" out="$out" progress=false actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$gen_port" \
  "actors.remote_verifiers.bind=tcp://127.0.0.1:$ver_port" "$@" \
  > "$logs/coordinator.log" 2>&1 &
coordinator=$!
for i in $(seq 1 "$generators"); do
  ./build/adarl worker generate --connect "tcp://127.0.0.1:$gen_port" --name "generator-$i" \
    > "$logs/generator-$i.log" 2>&1 &
  pids+=($!)
  echo "cluster-local: generator $i log $logs/generator-$i.log"
done
for i in $(seq 1 "$verifiers"); do
  ./build/adarl worker verify --connect "tcp://127.0.0.1:$ver_port" --name "verifier-$i" \
    > "$logs/verifier-$i.log" 2>&1 &
  pids+=($!)
  echo "cluster-local: verifier $i log  $logs/verifier-$i.log"
done
status=0
wait "$coordinator" || status=$?
cleanup
wait 2>/dev/null || true
grep -E "^run: |^remote (generators|verifiers): [0-9]" "$logs/coordinator.log" || true
echo "cluster-local: coordinator exit status $status"
exit "$status"
