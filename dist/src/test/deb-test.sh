#!/usr/bin/env bash
# The Debian packages, end to end, on a Debian root with its own Slurm (as root):
#
#   deb-test.sh --tarball FILE [--root DIR] [--nodes N]
#
#   --root DIR   the Debian root to test on (default /, this machine: bookworm and Slurm 22.05;
#                the trixie rootfs of local-cluster/slurm-rootfs.sh gives Slurm 24.11). It is
#                never changed: everything happens in an overlay on top of it, in a private copy
#                that goes when the test ends.
#
# What it does, failing at the first thing that is not as it should be:
#  1. builds the SPANK plugin inside the root (against that Slurm's headers), then the two
#     packages from the tarball (dist/src/deb/build-debs.sh) twice: revision 1, and revision 2
#     as the newer build to upgrade to; lintian reports nothing on either (errors or warnings);
#  2. `apt-get install ./slurm-autoresume*.deb` in the root: the dependencies hold there, the
#     plugin's release matches that Slurm (`autoresume plugin`), the conffiles are in /etc, the
#     units are installed and not enabled, man autoresume renders, bash completes, the class-data
#     archive is there;
#  3. starts a 3-node Slurm cluster inside the root whose plugstack.conf is the distribution's
#     own (include plugstack.conf.d/*.conf), submits a job as the ordinary user whose step is the
#     demo's training step from the examples the package installed (`srun -N2 --auto-resume=1
#     entry.sh python3 train.py`) on a 3-node allocation, with the package's agent on each node;
#  4. while that step runs, upgrades both packages to revision 2;
#  5. kills node2 (its slurmd, slurmstepds, tasks and agent) and checks the running step, supervised by
#     the copy installed before the upgrade, is re-run on node1 and node3, resumes from its
#     checkpoint and trains every step, and the job completes;
#  6. purges both packages and checks that nothing they installed or made is left: no file of
#     theirs, nothing under /etc/autoresume, /var/lib/autoresume or /var/log/autoresume, and no
#     change in the root but the test's own (Slurm's files, dpkg's records and logs).
set -euo pipefail
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

PROG="deb-test"
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd -- "$here/../../.." && pwd)"
export REPO_DIR
log() { printf '%s: %s\n' "$PROG" "$*"; }
failure=""
die() { failure="$*"; printf '%s: FAIL: %s\n' "$PROG" "$*" >&2; exit 1; }
pass() { printf '%s: ok: %s\n' "$PROG" "$*"; }

tarball="" lower="/" nodes=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tarball) tarball="${2:-}"; shift ;;
    --root) lower="${2:-}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$PROG: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -f "$tarball" ]] || die "--tarball must name the distribution tarball: '$tarball'"
tarball="$(readlink -f -- "$tarball")"
[[ -d "$lower/usr/include/slurm" ]] || die "$lower has no Slurm headers (libslurm-dev)"
if [[ "$(id -u)" -ne 0 ]]; then
  # A developer's build as an ordinary user; CI runs as root, and there this never passes.
  [[ "${CI:-}" != true ]] || die "runs as root (overlay mounts, packages, Slurm daemons), and CI=true"
  log "not root: the package test needs root (overlay mounts, packages, Slurm daemons); not run"
  exit 0
fi
for tool in lintian dpkg-deb; do
  command -v "$tool" >/dev/null || die "$tool is missing (local-cluster/install-deps.sh installs it)"
done
test_user="${AR_TEST_USER:-artest}"
id -u "$test_user" >/dev/null 2>&1 || die "no test user $test_user (local-cluster.sh up creates it)"

# What the test must leave alone on this machine, checked at the end: the file /etc/slurm/slurm.conf
# leads to (the local cluster links it to its own configuration).
host_conf="$(readlink -f -- "$lower/etc/slurm/slurm.conf" 2>/dev/null || true)"
host_conf_sum="$( [[ -f "$host_conf" ]] && sha256sum -- "$host_conf" || true)"

# --- the overlay: a private, writable copy of the root ----------------------------------------
t="$(mktemp -d /var/tmp/autoresume-deb-test.XXXXXX)"
merged="$t/root"
mkdir -p "$t/layers" "$merged" "$t/debs1" "$t/debs2"
# The writable layer on a file system of its own: overlayfs refuses an upper directory inside
# its lower one, and the lower one may be /.
mount -t tmpfs -o size=4g,mode=0755 autoresume-deb-test "$t/layers"
mkdir "$t/layers/upper" "$t/layers/work"
mount -t overlay autoresume-deb-test -o "lowerdir=$lower,upperdir=$t/layers/upper,workdir=$t/layers/work" "$merged"

export AR_ROOTFS_DIR="$merged" AR_ROOTFS_PLUGIN_FROM=package AR_ROOTFS_CLUSTER_NAME=autoresumedeb
export AR_ROOTFS_SLURMCTLD_PORT="${AR_DEB_TEST_CTLD_PORT:-26917}" AR_ROOTFS_SLURMD_PORT_BASE="${AR_DEB_TEST_SLURMD_PORT_BASE:-27101}"
# shellcheck source=../../../local-cluster/lib/rootfs.sh
source "$REPO_DIR/local-cluster/lib/rootfs.sh"
# shellcheck source=../../../local-cluster/lib/rootfs-cluster.sh
source "$REPO_DIR/local-cluster/lib/rootfs-cluster.sh"
# shellcheck source=../../../local-cluster/lib/processes.sh
source "$REPO_DIR/local-cluster/lib/processes.sh"

cleanup() {
  local rc=$?
  if [[ $rc -ne 0 && -d "$merged$R_LOG" ]]; then
    for file in "$merged$R_LOG"/*.log "$merged"/var/tmp/debtest/*.log "$merged/var/tmp/debtest/job.out"; do
      [[ -f "$file" ]] && { echo "--- tail of ${file#"$merged"}"; tail -n 25 "$file"; }
    done >&2
  fi
  rootfs_cluster_down >/dev/null 2>&1 || true
  umount "$merged" 2>/dev/null || umount -l "$merged" || true
  umount "$t/layers" 2>/dev/null || umount -l "$t/layers" || true
  rm -rf -- "$t"
  # Last, below the logs: what failed.
  [[ $rc -eq 0 || -z "$failure" ]] || printf '%s: FAIL: %s\n' "$PROG" "$failure" >&2
  exit "$rc"
}
trap cleanup EXIT
# A build stopped under the test (Maven killed, ^C) still unmounts the overlay and stops its daemons.
trap 'exit 143' TERM
trap 'exit 130' INT
in_root() { rootfs_exec "$@"; }
as_user() { rootfs_exec runuser -u "$test_user" -- "$@"; }
# major.minor of the Slurm whose slurm_version.h is given.
headers_release() {
  awk '$2 == "SLURM_VERSION_NUMBER" { printf "%d.%02d", rshift(strtonum($3), 16), and(rshift(strtonum($3), 8), 255) }' "$1"
}
release="$(headers_release "$lower/usr/include/slurm/slurm_version.h")"
# 22.05's slurmd needs a cgroup file system even with proctrack/linuxproc (23.02 and later are
# told CgroupPlugin=disabled instead): the host's, as the 22.05 local cluster uses it.
[[ "$release" > "23" ]] || export ROOTFS_CGROUP=1
log "root $lower: $(in_root sh -c '. /etc/os-release; echo "$PRETTY_NAME"'), Slurm $release headers"

# --- 1. the plugin built there, the packages, lintian -------------------------------------------
cp -r "$REPO_DIR/spank-shim" "$merged/tmp/spank-shim"
rm -rf "$merged/tmp/spank-shim/build"
in_root make -s -C /tmp/spank-shim >/dev/null
cp "$merged/tmp/spank-shim/build/auto_resume.so" "$t/auto_resume.so"
rm -rf "$merged/tmp/spank-shim"
for revision in 1 2; do
  bash "$REPO_DIR/dist/src/deb/build-debs.sh" --tarball "$tarball" --out "$t/debs$revision" \
    --plugin "$t/auto_resume.so" --slurm-root "$lower" --revision "$revision" >/dev/null
done
tag="slurm${release/./}"
compgen -G "$t/debs1/slurm-autoresume-plugin_*+${tag}_*.deb" >/dev/null \
  || die "the plugin package's release does not name Slurm $release: $(ls "$t/debs1")"
pass "built $(cd "$t/debs1" && echo *.deb)"
lintian_rc=0
lintian_out="$(lintian --fail-on error,warning "$t"/debs1/*.deb 2>&1)" || lintian_rc=$?
lintian_out="$(grep -v 'running with root privileges' <<<"$lintian_out" || true)"
[[ $lintian_rc -eq 0 && -z "$lintian_out" ]] || die "lintian (exit $lintian_rc): $lintian_out"
pass "lintian: no error, no warning (overrides in the package say why for each they hide)"

# --- 2. install -------------------------------------------------------------------------------
mkdir -p "$merged/tmp/debs1" "$merged/tmp/debs2"
cp "$t"/debs1/*.deb "$merged/tmp/debs1/"
cp "$t"/debs2/*.deb "$merged/tmp/debs2/"
apt_install() { # DIR: apt installs the packages there, needing nothing the root lacks
  local simulated
  simulated="$(in_root sh -c 'apt-get install -s -q --no-install-recommends "$1"/slurm-autoresume_*.deb "$1"/slurm-autoresume-plugin_*.deb' apt "$1" \
    | awk '$1 == "Inst" { print $2 }' | sort | tr '\n' ' ')"
  [[ "$simulated" == "slurm-autoresume slurm-autoresume-plugin " ]] \
    || die "installing the packages would install more than them: $simulated"
  in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "$1"/slurm-autoresume_*.deb "$1"/slurm-autoresume-plugin_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }' apt "$1"
}
apt_install /tmp/debs1 || die "apt-get install of revision 1 failed"
installed_version() { in_root dpkg-query -W -f '${Version}' "$1"; }
[[ "$(installed_version slurm-autoresume)" == *-1 ]] || die "slurm-autoresume is not at revision 1"
pass "installed $(installed_version slurm-autoresume) and $(installed_version slurm-autoresume-plugin)"
for conffile in /etc/autoresume/config.yaml /etc/autoresume/sweep-policy.yaml /etc/default/autoresume-agent /etc/default/autoresume-sweep \
    /etc/logrotate.d/autoresume /etc/nhc/scripts/autoresume.nhc /etc/slurm/plugstack.conf.d/auto_resume.conf; do
  [[ -f "$merged$conffile" ]] || die "$conffile is missing"
done
for unit in autoresume-agent.service autoresume-sweep.service autoresume-sweep.timer; do
  [[ -f "$merged/usr/lib/systemd/system/$unit" ]] || die "$unit is not installed"
  grep -q '^ExecStart=/usr/bin/autoresume ' "$merged/usr/lib/systemd/system/$unit" 2>/dev/null \
    || [[ "$unit" == *.timer ]] || die "$unit does not run /usr/bin/autoresume"
done
if find "$merged/etc/systemd/system" -name 'autoresume-*' 2>/dev/null | grep -q .; then
  die "a unit was enabled: $(find "$merged/etc/systemd/system" -name 'autoresume-*')"
fi
[[ -s "$merged/usr/share/man/man1/autoresume-sweep.1.gz" ]] || die "no man page autoresume-sweep(1)"
# The installed page renders (this machine's man, on the root's file: a minimal root has no man-db),
# and the installed bash completion completes.
MANWIDTH=80 man -l "$merged/usr/share/man/man1/autoresume.1.gz" 2>/dev/null | grep -q 'autoresume - ' \
  || die "man autoresume does not render from the package's page"
completed="$(bash -c 'source "$1"; COMP_WORDS=(autoresume sw); COMP_CWORD=1; _complete_autoresume; echo "${COMPREPLY[*]}"' \
  _ "$merged/usr/share/bash-completion/completions/autoresume")"
[[ "$completed" == sweep ]] || die "the package's bash completion completes 'autoresume sw' to '$completed', not sweep"
[[ -s "$merged/usr/share/autoresume/lib/autoresume.jsa" ]] || die "postinst made no class-data archive"
[[ -s "$merged/usr/share/autoresume/lib/autoresume-cli.jsa" ]] || die "postinst made no class-data archive for the commands"
grep -qx 'include /etc/slurm/plugstack.conf.d/\*.conf' "$merged/etc/slurm/plugstack.conf" \
  || die "the root's plugstack.conf does not include plugstack.conf.d: $(cat "$merged/etc/slurm/plugstack.conf")"
pass "conffiles in /etc, units installed and not enabled, man pages that render, bash completion, class-data archive"
# One install layout whatever the route: `lifecycle apply` run from the installed package leaves
# the package's snippet and units to it (they would otherwise load the plugin twice).
mkdir -p "$merged/tmp/lifecycle"
cp "$REPO_DIR/local-cluster/provisioning_parameters.json" "$REPO_DIR/local-cluster/resource_config.json" "$merged/tmp/lifecycle/"
applied="$(in_root autoresume lifecycle apply --dry-run --json --node node1 --provisioning /tmp/lifecycle/provisioning_parameters.json \
  --resource-config /tmp/lifecycle/resource_config.json --slurm-conf /tmp/lifecycle/slurm.conf)" \
  || die "lifecycle apply --dry-run from the package: $applied"
python3 - "$applied" <<'PY' || die "lifecycle apply from the package would write what the package owns: $applied"
import json, sys
view = json.loads(sys.argv[1])
paths = [f["path"] for f in view["files"]]
assert not any(p.endswith("plugstack.conf.d/auto_resume.conf") or "/systemd/" in p for p in paths), paths
assert view["unitsToEnable"] == ["autoresume-agent.service"], view["unitsToEnable"]
assert any("are the slurm-autoresume packages'" in n for n in view["notes"]), view["notes"]
PY
rm -rf "$merged/tmp/lifecycle"
pass "lifecycle apply from the package writes slurm.conf's block and leaves the package's snippet and units alone"

# --- 3. a protected step, through the installed copy ------------------------------------------
# The root's own munged starts in the overlay. Where the root is this machine and /run is no mount
# of its own, the overlay shows the host's munged's pid file and socket (a socket file that
# leads nowhere from here): hidden, in the overlay only.
rm -rf "$merged/run/munge"
rootfs_cluster_up "$nodes" >/dev/null
pass "Slurm $(in_root scontrol --version | awk '{print $2}') up in the root: node[1-$nodes], plugstack.conf as the distribution ships it"
# The release check every route runs (install.sh, the agent, health, the sweep) finds the
# package's plugin through that plugstack.conf and agrees it loads here.
plugin_said="$(in_root autoresume plugin 2>&1)" || die "autoresume plugin: $plugin_said"
[[ "$plugin_said" == *"built for Slurm $release"* ]] || die "autoresume plugin: $plugin_said"
pass "autoresume plugin: $plugin_said"
# A plugin package for another Slurm release.
# The tarball's plugin was built against this machine's Slurm. On a root with another release
# (the trixie root), that package must not install, and the check every route runs must name
# the rebuild: what a Slurm upgrade that leaves the plugin behind would otherwise break silently.
host_release="$(headers_release /usr/include/slurm/slurm_version.h)"
if [[ "$host_release" != "$release" ]]; then
  bash "$REPO_DIR/dist/src/deb/build-debs.sh" --tarball "$tarball" --out "$t/foreign" >/dev/null
  mkdir -p "$merged/tmp/foreign"
  cp "$t"/foreign/slurm-autoresume-plugin_*.deb "$merged/tmp/foreign/"
  refused=0
  refusal="$(in_root sh -c 'apt-get install -s -q "$1"/slurm-autoresume-plugin_*.deb 2>&1' apt /tmp/foreign)" || refused=1
  [[ $refused -eq 1 && "$refusal" == *"slurm-autoresume-plugin : Depends: slurm-client (<"* ]] \
    || die "apt would install the Slurm $host_release plugin package on Slurm $release: $refusal"
  pass "apt refuses the plugin package for Slurm $host_release here: $(grep -o 'Depends: slurm-client[^,]*' <<<"$refusal" | head -n 1)"
  in_root dpkg-deb -x "$(cd "$merged" && echo tmp/foreign/slurm-autoresume-plugin_*.deb | sed 's#^#/#')" /tmp/foreign/x
  foreign_so="/tmp/foreign/x/usr/lib/$(in_root dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/slurm-wlm/auto_resume.so"
  checked=0
  verdict="$(in_root autoresume plugin --json --plugin "$foreign_so" 2>&1)" || checked=$?
  [[ $checked -eq 1 ]] || die "autoresume plugin --plugin (a Slurm $host_release plugin on $release) exited $checked: $verdict"
  python3 - "$verdict" "$host_release" "$release" <<'PY' || die "autoresume plugin --json: $verdict"
import json, sys
views = json.loads(sys.argv[1])
assert len(views) == 1, views
view = views[0]
assert view["loads"] is False, view
assert view["builtFor"].startswith(sys.argv[2]), view
assert view["running"].startswith(sys.argv[3]), view
assert view["problem"], view
PY
  rm -rf "$merged/tmp/foreign"
  pass "autoresume plugin: a Slurm $host_release plugin on Slurm $release does not load (exit 1, its problem named)"
fi
install -d -m 0777 "$merged/var/tmp/debtest"
# The root agent on every node, as autoresume-agent.service runs it (its default socket, audit log
# and state directory for node1, where the job's supervisor runs), each bound to its node as the
# local cluster's agents are: several nodes share this host.
start_agent() { # NODE SOCKET STATE-DIR AUDIT-LOG
  install -d -m 0755 "$merged/run/debtest-kmsg"
  : > "$merged/run/debtest-kmsg/$1"
  in_root sh -c 'install -d -m 0755 "${2%/*}"
    setsid autoresume agent --node "$1" --socket "$2" --state-dir "$3" --audit-log "$4" \
      --xid-source "/run/debtest-kmsg/$1" </dev/null >>"/var/tmp/debtest/agent-$1.log" 2>&1 &' \
    agent "$@"
}
start_agent node1 /run/autoresume/agent.sock /var/lib/autoresume/agent /var/log/autoresume/agent-audit.log
for k in $(seq 2 "$nodes"); do
  start_agent "node$k" "/run/autoresume/node$k/agent.sock" "/var/lib/autoresume/node$k" "/var/log/autoresume/node$k-audit.log"
done
agents_listening() { local k; for k in $(seq 2 "$nodes"); do [[ -S "$merged/run/autoresume/node$k/agent.sock" ]] || return 1; done
  [[ -S "$merged/run/autoresume/agent.sock" ]]; }
rootfs_wait 60 "the agents' sockets" agents_listening
pass "an agent on each node (node1's at /run/autoresume/agent.sock)"
# The demo's training step (scripts/demo.sh), from the examples the package installed: entry.sh
# asks the installed autoresume for the nodes and the master, train.py checkpoints every step.
steps=60
cat > "$merged/var/tmp/debtest/job.sh" <<JOB
#!/bin/bash
#SBATCH -N3 --output=/var/tmp/debtest/job.out
examples=/usr/share/doc/slurm-autoresume/examples/sbatch
export CKPT_DIR=/var/tmp/debtest/ckpt STEPS=$steps STEP_SECONDS=0.5
srun -N2 --ntasks-per-node=1 --auto-resume=1 "\$examples/entry.sh" python3 "\$examples/train.py"
JOB
chmod 0755 "$merged/var/tmp/debtest/job.sh"
job="$(as_user sbatch --parsable -D /var/tmp/debtest /var/tmp/debtest/job.sh)"
[[ "$job" =~ ^[0-9]+$ ]] || die "sbatch said: $job"
said() { grep -qF -- "$1" "$merged/var/tmp/debtest/job.out" 2>/dev/null; }
steps_done() { if [[ -f "$merged/var/tmp/debtest/ckpt/steps.log" ]]; then wc -l < "$merged/var/tmp/debtest/ckpt/steps.log"; else echo 0; fi; }
training_on_1_and_2() { said "rank 0/2 on node1: attempt 1" && said "rank 1/2 on node2: attempt 1" && [[ "$(steps_done)" -ge 1 ]]; }
rootfs_wait 60 "the training step to run on node1 and node2" training_on_1_and_2
pass "job $job: the demo's training step (the package's examples) runs on node1 and node2"

# --- 4. upgrade under the running step ---------------------------------------------------------
apt_install /tmp/debs2 || die "apt-get install of revision 2 (the upgrade) failed"
[[ "$(installed_version slurm-autoresume)" == *-2 ]] || die "the upgrade did not install revision 2"
[[ "$(installed_version slurm-autoresume-plugin)" == *-2+$tag ]] || die "the plugin was not upgraded"
[[ "$(steps_done)" -lt "$steps" ]] || die "the training finished before the upgrade did: no step left to protect"
pass "upgraded to $(installed_version slurm-autoresume) and $(installed_version slurm-autoresume-plugin) with the step running (step $(steps_done) of $steps)"

# --- 5. node2 dies; the step that started before the upgrade is re-run -------------------------
SPOOL="$R_SPOOL"   # processes.sh finds a node's slurmstepds by their sockets under SPOOL/NODE/
node2=()
mapfile -t node2 < <(
  cat "$merged$R_RUN/slurmd-node2.pid"
  stepds=()
  mapfile -t stepds < <(stepd_pids node2)
  printf '%s\n' "${stepds[@]}"
  [[ ${#stepds[@]} -eq 0 ]] || descendants "${stepds[@]}"
)
for pid in $(rootfs_pids); do
  [[ "$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" == *" agent --node node2 "* ]] && node2+=("$pid")
done
[[ ${#node2[@]} -ge 4 ]] || die "found too few of node2's processes to kill: ${node2[*]}"
kill -KILL "${node2[@]}" 2>/dev/null || true   # a task may have ended meanwhile
pass "killed node2: slurmd, slurmstepds, tasks and its agent (${#node2[@]} processes)"
rerun_on_1_and_3() { said "rank 0/2 on node1: attempt 2" && said "rank 1/2 on node3: attempt 2"; }
rootfs_wait 120 "the step re-run on node1 and node3" rerun_on_1_and_3
job_state() { in_root scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
job_done() { [[ "$(job_state)" =~ ^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL)$ ]]; }
rootfs_wait 120 "job $job to end" job_done
[[ "$(job_state)" == COMPLETED ]] || die "job $job ended $(job_state), not COMPLETED"
exit_code="$(in_root scontrol -o show job "$job" | grep -o ' ExitCode=[0-9:]*' | cut -d= -f2)"
[[ "$exit_code" == 0:0 ]] || die "job $job exit code $exit_code"
# Every step trained, the last ones by attempt 2, which resumed from the newest checkpoint.
steps_log="$(cat "$merged/var/tmp/debtest/ckpt/steps.log")"
for k in $(seq 1 "$steps"); do
  grep -q "^step=$k " <<<"$steps_log" || die "step $k is missing from the training's steps.log: $steps_log"
done
[[ "$(tail -n 1 <<<"$steps_log")" == "step=$steps attempt=2 node=node1 "* ]] \
  || die "the training did not finish in attempt 2 on node1: $(tail -n 3 <<<"$steps_log")"
node2_record="$(in_root scontrol -o show node node2)"
[[ "$node2_record" =~ State=[A-Z+]*(DOWN|FAIL) && "$node2_record" == *"Reason=Action:Replace"* ]] \
  || die "node2 is not marked for replacement by the agent: $node2_record"
pass "the agent marked node2 $(grep -o 'State=[A-Z+_]*' <<<"$node2_record") Action:Replace; the training resumed on node1 and node3 from its checkpoint (attempt 2) and job $job COMPLETED 0:0 with all $steps steps"

# --- 6. purge: nothing left --------------------------------------------------------------------
rootfs_cluster_down >/dev/null
owned="$(in_root dpkg-query -L slurm-autoresume slurm-autoresume-plugin)"
in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q slurm-autoresume-plugin slurm-autoresume >/tmp/apt.log 2>&1 \
  || { cat /tmp/apt.log; exit 1; }' || die "apt-get purge failed"
[[ -z "$(in_root dpkg-query -W -f '${db:Status-Status}' slurm-autoresume 2>/dev/null || true)" ]] \
  || in_root dpkg-query -W -f '${db:Status-Status}' slurm-autoresume | grep -qx not-installed \
  || die "slurm-autoresume is still known to dpkg after purge"
left=()
while IFS= read -r path; do
  [[ -n "$path" && ! -d "$merged$path" ]] || continue   # directories may be shared (/usr/bin)
  [[ ! -e "$merged$path" && ! -L "$merged$path" ]] || left+=("$path")
done <<<"$owned"
for path in /etc/autoresume /etc/nhc/scripts/autoresume.nhc /var/lib/autoresume /var/log/autoresume /usr/share/autoresume \
    /usr/share/doc/slurm-autoresume /etc/slurm/plugstack.conf.d/auto_resume.conf; do
  [[ ! -e "$merged$path" ]] || left+=("$path")
done
[[ ${#left[@]} -eq 0 ]] || die "left after purge: ${left[*]}"
# Every change the overlay holds is the test's own: Slurm's config and state, dpkg's and apt's
# records and logs, /tmp and the job's directory, the test user (the trixie root gets one).
own_changes='^(tmp/|run/|root/|var/tmp/debtest/|var/lib/dpkg/|var/log/(dpkg\.log|apt/|alternatives\.log)|var/cache/(apt|debconf|ldconfig|man)/|var/lib/(apt|autoresume2411|munge|systemd/deb-systemd-helper)|var/log/munge/|etc/slurm/(slurm|cgroup)\.conf$|etc/hosts$|etc/(passwd|group|shadow|gshadow|subuid|subgid)-?$|home/'"$test_user"'/|etc/ld\.so\.cache$|etc/\.pwd\.lock$)'
unexpected="$(cd "$t/layers/upper" && find . -mindepth 1 \( -type f -o -type l \) -printf '%P\n' | grep -Ev "$own_changes" || true)"
# Whiteouts (character devices 0/0) are what the root held before and no longer does: only the
# agent's state and logs a purge removes (from an agent this root ran before the package).
unexpected+="$(cd "$t/layers/upper" && find . -mindepth 1 -type c -printf '%P\n' \
  | grep -Ev "$own_changes|^var/(lib|log)/autoresume$" || true)"
[[ -z "$unexpected" ]] || die "purge left changes in the root: $unexpected"
pass "purged: no file of either package, no /etc/autoresume, /var/lib/autoresume or /var/log/autoresume, no other change"
[[ "$( [[ -f "$host_conf" ]] && sha256sum -- "$host_conf" || true)" == "$host_conf_sum" ]] \
  || die "$host_conf changed: the test wrote outside its overlay"
pass "the root's own Slurm configuration ($host_conf) is as it was"
log "PASS on $lower (Slurm $release)"
