#!/usr/bin/env bash
# supervise-overhead.sh for two builds side by side: `srun -N2 true` plain, then supervised by
# build A and by build B (their order swapped every round), in one allocation, so all three see
# the same machine state. A build is a built source tree: its cli/target/autoresume launcher and
# spank-shim/build/auto_resume.so are copied for the run, each launcher gets its own class-data
# archive (`--dump-cds`), and a plugstack snippet loads whichever build a symlink points at.
# Prints per build the median supervised time, its overhead over the plain median, the ratio
# of the two overheads (noise moves both alike) and the supervised command's peak RSS.
#
#   mvn -B -ntp -q package -DskipTests        (in both trees)
#   sudo benchmarks/scripts/supervise-overhead-ab.sh OLD_TREE NEW_TREE [ROUNDS]   (local cluster up)
set -euo pipefail

[[ $# -ge 2 ]] || { echo "usage: $0 TREE_A TREE_B [ROUNDS]" >&2; exit 2; }
tree_a="$(cd -- "$1" && pwd)"
tree_b="$(cd -- "$2" && pwd)"
rounds="${3:-20}"
env_file="${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
[[ -r "$env_file" ]] || { echo "no local cluster ($env_file): run local-cluster/local-cluster.sh up" >&2; exit 2; }
# shellcheck disable=SC1090
source "$env_file"
[[ -x /usr/bin/time ]] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }

bench="$AR_CLUSTER_DIR/bench-ab-$$"
snippet="$AR_PLUGSTACK_DIR/70-bench-auto_resume.conf"
cleanup() { rm -f "$snippet"; rm -rf "$bench"; }
trap cleanup EXIT
for side in a b; do
  tree="$tree_a"; [[ "$side" == b ]] && tree="$tree_b"
  [[ -x "$tree/cli/target/autoresume/bin/autoresume" && -r "$tree/spank-shim/build/auto_resume.so" ]] \
    || { echo "build $tree first: mvn -B -ntp -q package -DskipTests" >&2; exit 2; }
  install -d -m 0755 "$bench/$side"
  cp -r "$tree/cli/target/autoresume/." "$bench/$side/"
  rm -f "$bench/$side/lib/autoresume.jsa"
  install -m 0755 "$tree/spank-shim/build/auto_resume.so" "$bench/$side/auto_resume.so"
  "$bench/$side/bin/autoresume" --dump-cds >/dev/null
  git -C "$tree" rev-parse --short HEAD >"$bench/$side/commit" 2>/dev/null || echo "?" >"$bench/$side/commit"
done
chmod -R a+rX "$bench"
chown "$AR_TEST_USER" "$bench"   # the rounds switch the symlink as the test user
ln -sfn a "$bench/current"
echo "optional $bench/current/auto_resume.so supervisor=$bench/current/bin/autoresume" >"$snippet"
chmod 0644 "$snippet"

inner=$(cat <<'INNER'
set -euo pipefail
bench="$1"; rounds="$2"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
supervised() {
  ln -sfn "$1" "$bench/current"
  local t0; t0=$(ms)
  /usr/bin/time -f 'RSS %M' -o rss.txt srun --auto-resume=1 -N2 true 2>/dev/null
  echo "SUP_$1 $(( $(ms) - t0 ))"; sed -n "s/^RSS /RSS_$1 /p" rss.txt
}
srun -N2 true; supervised a >/dev/null; supervised b >/dev/null   # warm every path once
for ((i = 0; i < rounds; i++)); do
  t0=$(ms); srun -N2 true; echo "PLAIN $(( $(ms) - t0 ))"
  if (( i % 2 )); then supervised b; supervised a; else supervised a; supervised b; fi
done
INNER
)
cd "$AR_JOBS_DIR"
out=$(runuser -u "$AR_TEST_USER" -- salloc -Q -N2 --exclusive bash -c "$inner" bench "$bench" "$rounds")

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
plain=$(grep '^PLAIN ' <<<"$out" | awk '{print $2}' | median)
echo "rounds:                 $rounds (plain, then A and B supervised, order swapped every round)"
echo "load average:           $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median srun -N2 true:   ${plain} ms"
for side in a b; do
  tree="$tree_a"; [[ "$side" == b ]] && tree="$tree_b"
  sup=$(grep "^SUP_$side " <<<"$out" | awk '{print $2}' | median)
  rss=$(grep "^RSS_$side " <<<"$out" | awk '{print $2}' | sort -n | tail -1)
  over=$(awk -v a="$sup" -v b="$plain" 'BEGIN { print a - b }')
  declare "over_$side=$over"
  echo "${side^^} $tree ($(cat "$bench/$side/commit")): median supervised ${sup} ms, overhead ${over} ms, peak RSS ${rss} KiB"
done
echo "overhead B / A:         $(awk -v a="$over_a" -v b="$over_b" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
