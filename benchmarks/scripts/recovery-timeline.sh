#!/usr/bin/env bash
# Recovery timeline on the local cluster, side by side in one run. Two modes:
#
# Spare pool (default; needs `local-cluster.sh up --cpu-only`, as job expansion does):
#   1. auto-resume: a 2-node `srun --auto-resume=1` step on node[1-2], node4 the hot spare;
#      node2 is killed; every line the job prints is stamped as it arrives, and the phases
#      (detect, diagnose+mark, step ended, replace, expand, relaunch, running) are measured
#      from the kill;
#   2. native requeue: the same step with plain srun in a `--requeue` job; node2 is killed and
#      the time until the batch script runs again is measured (SlurmdTimeout, then requeue).
#
# --in-job-spare (needs the default GPU shape, `local-cluster.sh up --nodes 4`: GRES gpu on
# every node, PrologFlags=Contain):
#   1. auto-resume: `sbatch -N3 --gpus-per-node=2` around `srun --auto-resume=1 -N2`, so the
#      job's own node3 is the spare (no spare pool, no expansion), with an agent on every node;
#      node2 is killed (its agent with it); the phases
#      come from the job's timeline (`autoresume history --json`), the agent's audit log and the
#      tasks' own clocks, not from log wording;
#   2. native requeue: the same GPU job shape with plain srun in an `sbatch --requeue -N2` job.
#
# Needs root, a built tree (mvn package) and the cluster up. Prints a table;
# docs/recovery-benchmark.md records what it printed. Usage:
#   benchmarks/scripts/recovery-timeline.sh [--in-job-spare] [--skip-native]
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cluster="$repo/local-cluster/local-cluster.sh"
skip_native=0 in_job_spare=0 audit_from=1
for arg in "$@"; do
  case "$arg" in
    --skip-native) skip_native=1 ;;
    --in-job-spare) in_job_spare=1 ;;
    *) echo "usage: recovery-timeline.sh [--in-job-spare] [--skip-native]" >&2; exit 2 ;;
  esac
done
[[ "$(id -u)" -eq 0 ]] || { echo "recovery-timeline.sh: run as root" >&2; exit 2; }
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
# Each mode times the path that works on its shape: expansion needs cpu-only, in-job spares are for GRES.
case "$in_job_spare:${AR_CLUSTER_SHAPE:-}" in
  1:cpu-only) echo "--in-job-spare needs the GPU-shaped cluster: local-cluster.sh up --nodes 4" >&2; exit 2 ;;
  0:gpu) echo "the spare-pool mode needs job expansion: local-cluster.sh up --cpu-only (or pass --in-job-spare)" >&2; exit 2 ;;
esac
# shellcheck source=scripts/lib/toolkit-on-cluster.sh
source "$repo/scripts/lib/toolkit-on-cluster.sh"

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
restore() {
  [[ -n "${job:-}" ]] && scancel "$job" 2>/dev/null
  "$cluster" revive-node node2 --fresh >/dev/null 2>&1 || true
  for node in node2 node3 node4; do
    [[ "$(sinfo -h -n "$node" -o %T)" =~ drain|down|fail ]] && scontrol update nodename="$node" state=resume
  done
  return 0
}
finish() { toolkit_cleanup; [[ -n "${stamper:-}" ]] && kill "$stamper" 2>/dev/null; restore; }
trap finish EXIT
trap 'exit 143' TERM INT # so that a timeout still cleans up

install_toolkit bench >/dev/null
if [[ "$in_job_spare" -eq 1 ]]; then
  # As production runs it: an agent on every node, each answering liveness probes for its own
  # node; the supervisor talks to the batch host's (node1). kill-node kills node2's with node2.
  start_agent "$AR_CLUSTER_DIR/bench-agent" --node node1
  for node in node2 node3 node4; do start_agent "$AR_CLUSTER_DIR/bench-agent-$node" --node "$node"; done
else
  start_agent "$AR_CLUSTER_DIR/bench-agent"
fi
slurmd_timeout=$(scontrol show config | awk -F= '/^SlurmdTimeout/ { gsub(/[^0-9]/, "", $2); print $2 }')

# Each task prints when it starts and which GPUs Slurm gave it; attempt 1 then waits to be killed.
step='echo "TASK attempt=$AUTO_RESUME_ATTEMPT node=$SLURMD_NODENAME gpus=${CUDA_VISIBLE_DEVICES-none} t=$(date +%s.%N)"
      if [ "${AUTO_RESUME_ATTEMPT:-1}" = 1 ] && [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then sleep 600; fi'
wait_for() { # FILE PATTERN SECONDS
  for _ in $(seq 1 $(( $3 * 10 ))); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "timed out waiting for '$2' in $1" >&2; return 1
}
row() { printf '%-52s %8s\n' "$1" "$2"; }
task_clock() { grep -m1 -- "$1" "$2" | sed 's/.* t=//'; } # PATTERN FILE: the task's own start time
later() { printf '%s\n' "$@" | sort -n | tail -1; }
sbatch_as_user() { # [NAME=VALUE...] SBATCH_ARGS...: submits as the test user, with the agent's socket
  local -a vars=()
  while [[ "${1:-}" =~ ^[A-Z_]+= ]]; do vars+=("$1"); shift; done
  runuser -u "$AR_TEST_USER" -- env PATH="$PATH" AUTORESUME_AGENT_SOCKET="$AR_CLUSTER_DIR/bench-agent/agent.sock" \
    "${vars[@]}" sbatch --parsable --output="$AR_JOBS_DIR/bench-%j.out" --chdir="$AR_JOBS_DIR" "$@"
}
iso() { # an event's ISO-8601 time as epoch seconds; an absent one is an error, not midnight
  [[ -n "${1:-}" ]] || { echo "a timestamp is missing" >&2; return 1; }
  date -d "$1" +%s.%N
}

# Spare pool: node4 joins the job by expansion; phases from the job's output, stamped as it arrives.
spare_pool_auto_resume() {
  echo "== auto-resume, spare pool (SlurmdTimeout=${slurmd_timeout}s; detection is the supervisor's own probe)"
  local script="$AR_JOBS_DIR/bench-auto.sh" out stamped killed detect marked ended replaced expanded relaunch running
  printf '#!/bin/bash\nsrun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c %q\n' "$step" > "$script"
  chmod 0755 "$script"
  job=$(sbatch_as_user AUTORESUME_SPARE_NODES=node4 -N2 -w 'node[1-2]' --exclusive "$script")
  out="$AR_JOBS_DIR/bench-$job.out" stamped="$AR_JOBS_DIR/bench-$job.stamped"
  # not created here: the job, as the test user, must create its own output file
  tail -n +1 -F "$out" 2>/dev/null | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done > "$stamped" &
  stamper=$!
  wait_for "$stamped" "TASK attempt=1 node=node2" 60
  wait_for "$stamped" "TASK attempt=1 node=node1" 60
  sleep 1 # the supervisor's probes are under way
  killed=$(now)
  "$cluster" kill-node node2 >/dev/null
  wait_for "$stamped" "TASK attempt=2 node=node4" 120
  wait_for "$stamped" "TASK attempt=2 node=node1" 30
  at() { grep -m1 -- "$1" "$stamped" | cut -d' ' -f1; }
  detect=$(at "probes in a row") marked=$(at "marked fail with reason") ended=$(at "node fault: ")
  replaced=$(at "replacement obtained") expanded=$(at "job expansion complete") relaunch=$(at "retrying step, attempt 2")
  running=$(later "$(task_clock "TASK attempt=2 node=node4" "$stamped")" "$(task_clock "TASK attempt=2 node=node1" "$stamped")")
  row "phase (ms after the kill)" "ms"
  row "detect: 3 probes missed in a row" "$(ms "$killed" "$detect")"
  row "diagnose + mark (agent: fail, Action:Replace)" "$(ms "$killed" "$marked")"
  row "old step ended (scancel, srun stopped)" "$(ms "$killed" "$ended")"
  row "replacement obtained (hot spare)" "$(ms "$killed" "$replaced")"
  row "job expansion complete" "$(ms "$killed" "$expanded")"
  row "relaunch (srun started again)" "$(ms "$killed" "$relaunch")"
  row "step running again (both tasks started)" "$(ms "$killed" "$running")"
  row "toolkit's own share (detect -> relaunch)" "$(ms "$detect" "$relaunch")"
  kill "$stamper" 2>/dev/null || true; stamper=""
  scancel "$job" 2>/dev/null || true
  auto_total=$(ms "$killed" "$running")
}

# In-job spare: the job holds node[1-3] with GPUs, the step runs on two of them, node3 waits.
# Phases come from structured records: the job's timeline, the agent's audit log, the tasks' clocks.
in_job_spare_auto_resume() {
  echo "== auto-resume, in-job spare (GPU shape, gpu:${AR_GPUS_PER_NODE:-?} per node, PrologFlags=Contain;" \
       "SlurmdTimeout=${slurmd_timeout}s; detection is the supervisor's own probe)"
  local script="$AR_JOBS_DIR/bench-in-job.sh" audit="$AR_CLUSTER_DIR/bench-agent/audit.log" out history
  local killed killed_done refused detect marked ended replaced relaunch running watcher
  printf '#!/bin/bash\nsrun --auto-resume=1 -N2 --ntasks-per-node=1 bash -c %q\n' "$step" > "$script"
  chmod 0755 "$script"
  audit_from=$(( $(wc -l < "$audit" 2>/dev/null || echo 0) + 1 )) # earlier runs' answers do not count
  job=$(sbatch_as_user -N3 -w 'node[1-3]' --exclusive --gpus-per-node=2 "$script")
  out="$AR_JOBS_DIR/bench-$job.out"
  wait_for "$out" "TASK attempt=1 node=node2" 300
  wait_for "$out" "TASK attempt=1 node=node1" 60
  # The agent's "watch" answer is the probe thread's first act: from then on node2 is probed.
  for _ in $(seq 1 300); do
    audit_time watch "$audit" >/dev/null && break; sleep 0.1
  done
  audit_time watch "$audit" >/dev/null || { echo "the supervisor never started probing (no watch in $audit)" >&2; return 1; }
  # kill-node first asks the node's slurmd for the step's pids, then SIGKILLs: the moment the
  # probes can notice is when node2's slurmd port refuses connections, so that is timed too.
  port_refused_at "$(sinfo -h -n node2 -o %o)" $(( AR_SLURMD_PORT_BASE + 1 )) "$AR_JOBS_DIR/bench-$job.refused" &
  watcher=$!
  killed=$(now)
  "$cluster" kill-node node2 >/dev/null
  killed_done=$(now)
  wait "$watcher"
  refused=$(cat "$AR_JOBS_DIR/bench-$job.refused")
  wait_for "$out" "TASK attempt=2 node=node3" 120
  wait_for "$out" "TASK attempt=2 node=node1" 30
  # The timeline is in the test user's own state directory: read it as that user.
  history=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" autoresume history --json "$job")
  event() { # EVENT ATTEMPT FIELD: a field of the first such event
    jq -r --arg e "$1" --argjson a "$2" --arg f "$3" \
      '[.[] | select(.event == $e and .attempt == $a)][0] | if . == null then "" else (.[$f] // .details[$f] // "") end' <<< "$history"
  }
  local path spares latency_replace latency_launch
  path=$(event replacement 1 path) spares=$(event replacement 1 spares)
  [[ "$path" == in-job-spare && "$spares" == node3 ]] || {
    echo "the re-run did not take the in-job spare (path=$path spares=$spares): $history" >&2; return 1; }
  detect=$(iso "$(event detection 1 at)")
  ended=$(iso "$(event attempt-ended 1 at)")
  replaced=$(iso "$(event replacement 1 at)")
  relaunch=$(iso "$(event launch 2 at)")
  marked=$(iso "$(audit_time mark "$audit" || true)")
  latency_replace=$(event replacement 1 latencyMs) latency_launch=$(event launch 2 latencyMs)
  running=$(later "$(task_clock "TASK attempt=2 node=node3" "$out")" "$(task_clock "TASK attempt=2 node=node1" "$out")")
  two() { printf '%-52s %8s %9s\n' "$1" "$(ms "$killed" "$2")" "$(ms "$refused" "$2")"; }
  printf '%-52s %8s %9s\n' "phase (ms after: kill-node started | port refused)" "kill" "refused"
  two "kill-node returned (pids found, SIGKILL done)" "$killed_done"
  two "node2's slurmd port refuses connections" "$refused"
  two "detect: 3 probes missed in a row (timeline)" "$detect"
  two "diagnose + mark (agent's audit: fail, Action:Replace)" "$marked"
  two "old step ended (scancel, shrink, srun stopped)" "$ended"
  two "in-job spare node3 takes node2's place (timeline)" "$replaced"
  two "re-run: srun started again (timeline launch 2)" "$relaunch"
  two "step running again (both tasks' own clocks)" "$running"
  row "toolkit's own share (detect -> srun started again)" "$(ms "$detect" "$relaunch")"
  row "  of which detect -> marked (agent's diagnosis)" "$(ms "$detect" "$marked")"
  row "  of which marked -> old step ended" "$(ms "$marked" "$ended")"
  row "  of which old step ended -> srun started (launch)" "$latency_launch"
  row "  (replacement's own latency after the step ended)" "$latency_replace"
  row "Slurm's launch (srun started -> both tasks running)" "$(ms "$relaunch" "$running")"
  echo "re-run's tasks: $(grep "TASK attempt=2" "$out" | sed 's/ t=.*//' | sort | tr '\n' ';')"
  scancel "$job" 2>/dev/null || true
  auto_total=$(ms "$killed" "$running")
}
port_refused_at() { # ADDR PORT FILE: writes when ADDR:PORT first refuses a TCP connection (bash's /dev/tcp)
  while true 3<>"/dev/tcp/$1/$2"; do sleep 0.01; done 2>/dev/null # a builtin: no fork per try
  now > "$3"
}
audit_time() { # OP FILE: when the agent last answered OP for $job (its audit log is JSON lines)
  local t
  t=$(tail -n "+$audit_from" "$2" 2>/dev/null \
      | jq -r --arg j "$job" --arg op "$1" 'select(.request.op? == $op and .request.jobId? == $j and .ok) | .time' \
      | tail -n 1)
  [[ -n "$t" ]] && echo "$t"
}

native_requeue() { # EXTRA_SBATCH_OPTIONS...
  echo "== native requeue (plain srun, sbatch --requeue $*; Slurm notices at SlurmdTimeout=${slurmd_timeout}s)"
  local script="$AR_JOBS_DIR/bench-native.sh" out killed restarted running
  printf '#!/bin/bash\necho "SCRIPT restart=${SLURM_RESTART_COUNT:-0} t=$(date +%%s.%%N)"\nsrun -N2 --ntasks-per-node=1 bash -c %q\n' \
    "$step" > "$script"
  chmod 0755 "$script"
  # Placed on node[1-2] without -w (a requeued job keeps its -w list and would wait for the dead
  # node forever): node3 and node4 are drained until the job runs.
  scontrol update nodename='node[3-4]' state=drain reason=recovery-benchmark-placement
  job=$(runuser -u "$AR_TEST_USER" -- sbatch --parsable -N2 --exclusive --requeue --open-mode=append "$@" \
          --output="$AR_JOBS_DIR/bench-%j.out" --chdir="$AR_JOBS_DIR" "$script")
  out="$AR_JOBS_DIR/bench-$job.out"
  wait_for "$out" "TASK attempt= node=node2" 300
  scontrol update nodename='node[3-4]' state=resume
  killed=$(now)
  "$cluster" kill-node node2 >/dev/null
  # The requeued job needs two nodes again: node2 is dead, so it runs on two of node[1,3-4].
  wait_for "$out" "SCRIPT restart=1" $(( slurmd_timeout + 600 ))
  restarted=$(grep -m1 "SCRIPT restart=1" "$out" | sed 's/.* t=//')
  for _ in $(seq 1 1200); do [[ "$(grep -c "TASK attempt=" "$out")" -ge 4 ]] && break; sleep 0.1; done
  running=$(grep "TASK attempt=" "$out" | tail -n 2 | sed 's/.* t=//' | sort -n | tail -1)
  row "batch script restarted (requeue)" "$(ms "$killed" "$restarted")"
  row "step running again" "$(ms "$killed" "$running")"
  echo "requeued run's tasks: $(grep "TASK attempt=" "$out" | tail -n 2 | sed 's/ t=.*//' | sort | tr '\n' ';')"
  scancel "$job" 2>/dev/null || true
  echo "== ratio native / auto-resume (node death -> step running): $(awk -v n="$(ms "$killed" "$running")" \
       -v a="$auto_total" 'BEGIN { printf "%.0f", n / a }')x"
}

if [[ "$in_job_spare" -eq 1 ]]; then
  in_job_spare_auto_resume
  restore
  [[ "$skip_native" -eq 1 ]] || native_requeue --gpus-per-node=2
else
  spare_pool_auto_resume
  restore
  [[ "$skip_native" -eq 1 ]] || native_requeue
fi
