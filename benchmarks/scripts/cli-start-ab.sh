#!/usr/bin/env bash
# How fast the everyday commands start, for two built trees side by side: `autoresume --version`,
# `autoresume nodes --json` (a stand-in scontrol answers two node records, so Slurm's own time is
# left out), `autoresume health` (every check; those without their tool or device skip),
# `autoresume health --check disk` (the check HealthCheckProgram runs on every
# node, without GPUs) and `health --mark` (what HealthCheckProgram runs: every check, then the
# node read from the stand-in), each against `java -version` timed in the same round. Each tree runs from
# a copy with its own class-data archive (`--dump-cds`, as the packages make at install). Rounds
# alternate the trees' order. Prints each command's median in ms and its ratio to `java -version`.
#
#   benchmarks/scripts/cli-start-ab.sh OLD_TREE NEW_TREE [ROUNDS]
set -euo pipefail

[[ $# -ge 2 ]] || { echo "usage: $0 TREE_A TREE_B [ROUNDS]" >&2; exit 2; }
rounds="${3:-15}"
# shellcheck source=lib/ab-trees.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/ab-trees.sh"
ab_setup "$1" "$2"
cat >"$work/bin/scontrol" <<'SCONTROL'
#!/bin/sh
case "$*" in
  --version) echo "slurm 22.05.8" ;;
  "-o show node"|"-o show node node1") for n in 1 2; do
      echo "NodeName=node$n Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=1 CPULoad=0.00 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.$n NodeHostName=node$n Port=6818 Version=22.05.8 RealMemory=1 AllocMem=0 FreeMem=1 Sockets=1 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug BootTime=2026-01-01T00:00:00 SlurmdStartTime=2026-01-01T00:00:00 LastBusyTime=2026-01-01T00:00:00 CfgTRES=cpu=1 AllocTRES="
    done ;;
  *) exit 1 ;;
esac
SCONTROL
chmod 0755 "$work/bin/scontrol"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
timed() { # LABEL COMMAND...: one run, its exit status checked, its time printed
  local label=$1 t0; shift; t0=$(ms)
  env PATH="$work/bin:$PATH" TMPDIR="$work" "$@" >/dev/null 2>"$work/err" \
      || { echo "$label failed: $(cat "$work/err")" >&2; exit 1; }
  echo "$label $(( $(ms) - t0 ))"
}
commands() { # SIDE
  timed "VERSION_$1" "${launcher[$1]}" --version
  timed "NODES_$1" "${launcher[$1]}" nodes --json
  timed "BARE_$1" "${launcher[$1]}" health
  timed "HEALTH_$1" "${launcher[$1]}" health --check disk
  # What HealthCheckProgram runs: every check (those without their tool or device are skipped),
  # then the node read from the stand-in scontrol to look for the disk check's own drain.
  timed "MARK_$1" env SLURMD_NODENAME=node1 "${launcher[$1]}" health --mark
}
out=$(
  commands a >/dev/null; commands b >/dev/null   # warm the page cache for both
  for ((i = 0; i < rounds; i++)); do
    timed JAVA java -version
    if (( i % 2 )); then commands b; commands a; else commands a; commands b; fi
  done
)
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
java_ms=$(grep '^JAVA ' <<<"$out" | awk '{print $2}' | median)
echo "rounds: $rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg); median java -version: ${java_ms} ms"
printf '%-32s %12s %12s\n' "command" "A (ratio)" "B (ratio)"
for cmd in VERSION:--version NODES:"nodes --json" BARE:health HEALTH:"health --check disk" MARK:"health --mark"; do
  key=${cmd%%:*}
  line=$(printf '%-32s' "autoresume ${cmd#*:}")
  for side in a b; do
    m=$(grep "^${key}_$side " <<<"$out" | awk '{print $2}' | median)
    line+=$(printf ' %6s (%4s)' "$m" "$(awk -v a="$m" -v b="$java_ms" 'BEGIN { printf "%.1f", a / b }')")
  done
  echo "$line"
done
echo "A: $1"
echo "B: $2"
