#!/usr/bin/env bash
# Fair under load: another user's request latency while one user floods the agent.
# For each built tree given (e.g. a baseline, then the build under test), side by side in one run: the real
# `autoresume agent` is started as root on a socket in a temporary directory; the flooding user
# (default the test user artest) holds CONNECTIONS idle connections, opening again each one the
# agent closes a second later, and sends RATE complete requests a second; meanwhile another user
# (default nobody) sends up to PROBES requests one after another, 50 ms apart, and the latency
# of each answer is printed as p50/p99/max. First the same probe without a flood, as the
# baseline. The request is one the agent answers without Slurm (a node name it refuses), so no
# cluster and no lock are needed; it still goes through peer credentials, JSON, policy and audit.
# A request unanswered within TIMEOUT_MS (closed unanswered or too late) counts as TIMEOUT_MS.
#
#   benchmarks/scripts/agent-flood.sh TREE... (as root; env: CONNECTIONS=1000 RATE=100 PROBES=200
#                                              TIMEOUT_MS=10000 MAX_S=120 FLOODER=artest PROBER=nobody)
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 TREE..." >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "run as root: the agent runs as root and the two sides as other users" >&2; exit 2; }
connections="${CONNECTIONS:-1000}"
rate="${RATE:-100}"
probes="${PROBES:-200}"
timeout_ms="${TIMEOUT_MS:-10000}"
max_s="${MAX_S:-120}"
flooder="${FLOODER:-artest}"
prober="${PROBER:-nobody}"
here=$(cd "$(dirname "$0")/../.." && pwd)
classes="$here/benchmarks/target/classes/org/slurmautoresume/bench/AgentFlood.class"
[[ -f "$classes" ]] || { echo "build first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }

work=$(mktemp -d)
agent_pid=""
flood_pid=""
cleanup() {
  if [[ -n "$flood_pid" ]]; then kill "$flood_pid" 2>/dev/null || true; fi
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; fi
  rm -rf -- "$work"
}
trap cleanup EXIT
chmod 0755 "$work"
# Both sides run as other users: they get a world-readable copy of the one class they need.
mkdir -p "$work/cp/org/slurmautoresume/bench"
cp "$classes" "$work/cp/org/slurmautoresume/bench/"
chmod -R a+rX "$work/cp"
ulimit -n "$(ulimit -Hn)" # 1,000 connections on both ends

as_user() { local user="$1"; shift; setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups -- "$@"; }
bench() { java -XX:+UseSerialGC -cp "$work/cp" org.slurmautoresume.bench.AgentFlood "$@"; }

for tree in "$@"; do
  launcher="$tree/cli/target/autoresume/bin/autoresume"
  [[ -x "$launcher" ]] || { echo "build $tree first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
  dir="$work/agent"; mkdir -m 0755 "$dir"
  state=()
  # Builds with marks of their own keep them in a state directory: a temporary one, not the node's.
  if "$launcher" agent --help 2>&1 | grep -q -- --state-dir; then state=(--state-dir "$dir/state"); fi
  "$launcher" agent --socket "$dir/agent.sock" --audit-log "$dir/audit.log" "${state[@]}" >"$dir/agent.log" 2>&1 &
  agent_pid=$!
  for _ in $(seq 300); do [[ -S "$dir/agent.sock" ]] && break; sleep 0.1; done
  [[ -S "$dir/agent.sock" ]] || { echo "the agent of $tree did not start:"; cat "$dir/agent.log"; exit 1; }
  echo "== $tree ($(git -C "$tree" log -1 --format=%h 2>/dev/null || echo 'not a git tree'))"
  echo -n "no flood:   "; as_user "$prober" bash -c "ulimit -n 4096; $(declare -f bench); work='$work'; bench probe '$dir/agent.sock' 50 50 '$timeout_ms' '$max_s'"
  as_user "$flooder" bash -c "ulimit -n 4096; $(declare -f bench); work='$work'; exec java -XX:+UseSerialGC -cp '$work/cp' org.slurmautoresume.bench.AgentFlood flood '$dir/agent.sock' '$connections' '$rate' 3600" \
    >"$work/flood.out" 2>&1 &
  flood_pid=$!
  sleep 3 # the flood opens its connections and reaches its rate
  echo -n "flooded:    "; as_user "$prober" bash -c "ulimit -n 4096; $(declare -f bench); work='$work'; bench probe '$dir/agent.sock' '$probes' 50 '$timeout_ms' '$max_s'"
  kill "$flood_pid"; wait "$flood_pid" 2>/dev/null || true; flood_pid=""
  kill "$agent_pid"; wait "$agent_pid" 2>/dev/null || true; agent_pid=""
  echo "agent log: $(grep -c 'refused .* connection(s) over the limit' "$dir/agent.log" || true) refusal summaries;" \
       "audit lines: $(wc -l <"$dir/audit.log")"
  rm -rf -- "$dir"
done
