#!/usr/bin/env bash
# What supervision costs a step that does nothing: `srun -N2 true` against
# `srun --auto-resume=1 -N2 true`, alternated in one allocation so both see the same machine
# state. The script installs the freshly built plugin (spank-shim/build/auto_resume.so) into the
# local cluster's plugstack.conf.d for the run, pointing at the launcher, and removes it after.
# Prints each median, the difference and the supervised command's peak RSS (GNU time: the
# largest single process, which is the supervisor's JVM).
#
#   mvn -B -ntp -q package -DskipTests
#   sudo benchmarks/scripts/supervise-overhead.sh [ROUNDS]      (default 20; local cluster up)
set -euo pipefail

rounds="${1:-20}"
env_file="${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
[[ -r "$env_file" ]] || { echo "no local cluster ($env_file): run local-cluster/local-cluster.sh up" >&2; exit 2; }
# shellcheck disable=SC1090
source "$env_file"
launcher="${AUTORESUME:-$AR_CLUSTER_DIR/dist/bin/autoresume}"
[[ -x "$launcher" ]] || { echo "no launcher at $launcher (set AUTORESUME=...)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time is needed: apt-get install time" >&2; exit 2; }

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
plugin_src="$repo/spank-shim/build/auto_resume.so"
[[ -r "$plugin_src" ]] || { echo "build the plugin first: mvn package (or make -C spank-shim)" >&2; exit 2; }
plugin_dir="$AR_CLUSTER_DIR/bench-plugin-$$"
snippet="$AR_PLUGSTACK_DIR/70-bench-auto_resume.conf"
cleanup() { rm -f "$snippet"; rm -rf "$plugin_dir"; }
trap cleanup EXIT
install -d -m 0755 "$plugin_dir"
install -m 0755 "$plugin_src" "$plugin_dir/auto_resume.so"
echo "optional $plugin_dir/auto_resume.so supervisor=$launcher" > "$snippet"
chmod 0644 "$snippet"
supervised=(srun --auto-resume=1 -N2 true)
how="srun --auto-resume=1 -N2 true (plugin execs $launcher)"

inner=$(cat <<'INNER'
set -euo pipefail
rounds="$1"; shift
ms() { echo $(( $(date +%s%N) / 1000000 )); }
srun -N2 true; "$@" >/dev/null 2>&1 || true   # warm both paths once
for ((i = 0; i < rounds; i++)); do
  t0=$(ms); srun -N2 true; t1=$(ms)
  /usr/bin/time -f 'RSS %M' -o rss.txt "$@" 2>/dev/null; t2=$(ms)
  echo "PLAIN $((t1 - t0))"; echo "SUPERVISED $((t2 - t1))"; sed -n 's/^RSS /RSS /p' rss.txt
done
INNER
)
cd "$AR_JOBS_DIR"
out=$(runuser -u "$AR_TEST_USER" -- env PATH="$(dirname "$launcher"):$PATH" \
        salloc -Q -N2 --exclusive bash -c "$inner" bench "$rounds" "${supervised[@]}")

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
plain=$(grep '^PLAIN ' <<<"$out" | awk '{print $2}' | median)
sup=$(grep '^SUPERVISED ' <<<"$out" | awk '{print $2}' | median)
rss=$(grep '^RSS ' <<<"$out" | awk '{print $2}' | sort -n | tail -1)
echo "supervised form:            $how"
echo "rounds:                     $rounds"
echo "median srun -N2 true:       ${plain} ms"
echo "median supervised:          ${sup} ms"
echo "median overhead:            $(awk -v a="$sup" -v b="$plain" 'BEGIN { print a - b }') ms (ratio $(awk -v a="$sup" -v b="$plain" 'BEGIN { printf "%.2f", a / b }'))"
echo "peak RSS of the supervised command (GNU time, KiB): $rss"
