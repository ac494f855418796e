#!/usr/bin/env bash
# The supervisor's own share of supervise-overhead-ab.sh, without Slurm: `autoresume supervise --
# sleep 0.05` (a step about as long as `srun -N2 true` on the local cluster) as if inside job 1,
# with a stand-in scontrol that prints a canned job record (as `--dump-cds` trains with), for two
# built trees, alternated; the bare `sleep 0.05` is timed each round too. Needs no cluster and no
# lock, so it also runs where the cluster is busy; the stand-in answers faster than slurmctld
# does, so it understates what an scontrol before srun costs. Prints medians, each build's
# overhead over the bare step, their ratio and each build's peak RSS.
#
#   benchmarks/scripts/supervise-start-ab.sh OLD_TREE NEW_TREE [ROUNDS]
set -euo pipefail

[[ $# -ge 2 ]] || { echo "usage: $0 TREE_A TREE_B [ROUNDS]" >&2; exit 2; }
rounds="${3:-20}"
[[ -x /usr/bin/time ]] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }
# shellcheck source=lib/ab-trees.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/ab-trees.sh"
ab_setup "$1" "$2"
cat >"$work/bin/scontrol" <<'SCONTROL'
#!/bin/sh
case "$*" in
  "-o show job 1") echo "JobId=1 JobName=bench UserId=bench(4242) GroupId=bench(4242) JobState=RUNNING Reason=None Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:0 SubmitTime=2026-01-01T00:00:00 StartTime=2026-01-01T00:00:00 EndTime=Unknown Partition=debug NodeList=node[1-2] BatchHost=node1 NumNodes=2 NumCPUs=2 NumTasks=2 WorkDir=/tmp" ;;
  *) exit 1 ;;
esac
SCONTROL
chmod 0755 "$work/bin/scontrol"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
in_job() { env PATH="$work/bin:$PATH" TMPDIR="$work" SLURM_JOB_ID=1 AUTORESUME_SLURM_VERSION=22.05.8 \
               AUTORESUME_AGENT_SOCKET="$work/no-agent.sock" "$@"; }
supervised() {
  local t0; t0=$(ms)
  in_job /usr/bin/time -f '%M' -o "$work/rss" "${launcher[$1]}" supervise -- sleep 0.05 2>/dev/null
  echo "SUP_$1 $(( $(ms) - t0 ))"; echo "RSS_$1 $(cat "$work/rss")"
}
out=$(
  supervised a >/dev/null; supervised b >/dev/null   # the once-per-job preflight, and warm caches
  for ((i = 0; i < rounds; i++)); do
    t0=$(ms); sleep 0.05; echo "BARE $(( $(ms) - t0 ))"
    if (( i % 2 )); then supervised b; supervised a; else supervised a; supervised b; fi
  done
)
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
bare=$(grep '^BARE ' <<<"$out" | awk '{print $2}' | median)
echo "rounds: $rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg); median bare sleep 0.05: ${bare} ms"
for side in a b; do
  tree="$1"; [[ "$side" == b ]] && tree="$2"
  sup=$(grep "^SUP_$side " <<<"$out" | awk '{print $2}' | median)
  rss=$(grep "^RSS_$side " <<<"$out" | awk '{print $2}' | sort -n | tail -1)
  over=$(awk -v a="$sup" -v b="$bare" 'BEGIN { print a - b }')
  declare "over_$side=$over"
  echo "${side^^} $tree ($(git -C "$tree" rev-parse --short HEAD 2>/dev/null || echo '?')): median ${sup} ms, overhead ${over} ms, peak RSS ${rss} KiB"
done
echo "overhead B / A: $(awk -v a="$over_a" -v b="$over_b" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
