#!/bin/sh
# A run whose verifiers are a remote worker: `adarl run` listens (port chosen by the
# system), a worker connects to the endpoint it prints, every batch is scored by the
# worker (local_after is long, so none is scored locally), and the run ends normally.
# curve: the same with CURVE, keys from `adarl worker keygen`, the worker on the run's
# client list.
# python-curve: the Python worker with CURVE.
#   remote_run.sh ADARL SOURCE_DIR OUT_DIR cxx|python|curve|python-curve
set -u
adarl=$1 src=$2 out=$3 kind=$4
python=""
case "$kind" in python*) needs_python=1 ;; *) needs_python="" ;; esac
if [ -n "$needs_python" ]; then
  for p in python3 /usr/bin/python3; do
    if "$p" -c "import zmq, msgpack" 2>/dev/null; then python=$p; break; fi
  done
  if [ -z "$python" ]; then echo "python3-zmq and python3-msgpack missing: skipped"; exit 77; fi
  if [ "$kind" = python-curve ] && ! "$python" -c "import zmq, sys; sys.exit(not zmq.has('curve'))"; then
    echo "pyzmq without CURVE: skipped"; exit 77
  fi
fi
rm -rf "$out" && mkdir -p "$out"
run="" worker=""
trap 'kill $run $worker 2>/dev/null' EXIT  # nothing outlives the test (ctest TIMEOUT too)
set --
server_key=""
if [ "$kind" = curve ] || [ "$kind" = python-curve ]; then
  server_key=$("$adarl" worker keygen --out "$out/run.keys") || exit 1
  "$adarl" worker keygen --out "$out/worker.keys" >"$out/clients" || exit 1
  set -- "actors.remote_verifiers.curve_keys=$out/run.keys" \
         "actors.remote_verifiers.curve_clients=$out/clients"
fi
"$adarl" run "$src/configs/sim-smoke.yaml" out="$out/run" \
  'actors.remote_verifiers.bind=tcp://127.0.0.1:*' actors.remote_verifiers.local_after=60 \
  "$@" >"$out/run.log" 2>&1 &
run=$!
endpoint=""
for _ in $(seq 300); do
  endpoint=$(sed -n 's/.*listening on \(tcp:[^ ]*\).*/\1/p' "$out/run.log")
  [ -n "$endpoint" ] && break
  sleep 0.1
done
if [ -z "$endpoint" ]; then cat "$out/run.log"; echo "no endpoint"; exit 1; fi
if [ -n "$server_key" ]; then  # Z85 keys hold *, [ and ?: always quoted
  set -- --server-key "$server_key" --keys "$out/worker.keys"
else
  set --
fi
if [ -n "$needs_python" ]; then
  "$python" "$src/scripts/remote_verifier.py" --connect "$endpoint" --name py1 "$@" \
    >"$out/worker.log" 2>&1 &
else
  "$adarl" worker verify --connect "$endpoint" --name w1 "$@" >"$out/worker.log" 2>&1 &
fi
worker=$!
wait $run
status=$?
kill -TERM $worker
wait $worker
run="" worker=""
cat "$out/run.log" "$out/worker.log"
echo "run exit status $status"
