#!/usr/bin/env bash
# local-cluster.sh: a multi-node Slurm 22.05 cluster on one machine (loopback),
# used by the end-to-end tests and the demo of slurm-autoresume.
#
# Several slurmd run on this host, one per node name (slurmd -N nodeK), each on
# its own port of 127.0.0.1; one slurmctld; munged from the munge package.
# Everything the cluster writes lives under ${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}.
set -euo pipefail

PROG="local-cluster"
# Daemons and fake Reboot/Suspend/ResumePrograms call this script with a minimal PATH.
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"
SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
SCRIPT_DIR="$(dirname "$SCRIPT_PATH")"
# The built launcher: `up` writes the node and partition lines through `autoresume lifecycle apply`.
AUTORESUME="${AR_AUTORESUME:-$(cd "$SCRIPT_DIR/.." && pwd)/cli/target/autoresume/bin/autoresume}"

usage() {
    cat <<'USAGE'
Usage: local-cluster.sh COMMAND [OPTIONS]

A multi-node Slurm cluster on loopback for tests and the demo. State, config,
spool, logs and pid files live in $AR_CLUSTER_DIR (default /var/tmp/autoresume-cluster):
  etc/      slurm.conf, lifecycle/ (resource_config.json and provisioning_parameters.json that
            `autoresume lifecycle apply` turned into its node lines), plugstack.conf, plugstack.conf.d/ (drop SPANK snippets here),
            fake-reboot.sh (RebootProgram: `scontrol reboot` restarts only that node's slurmd
            with -b), fake-suspend.sh / fake-resume.sh (with --power-save)
  state/    slurmctld StateSaveLocation (state/slurmctld), the accounting database's
            generated password
  db/       MariaDB datadir for slurmdbd (owned by mysql)
  spool/    one SlurmdSpoolDir per node (spool/nodeK)
  log/      slurmctld.log, slurmd-nodeK.log, daemon start output
  run/      pid files
  jobs/     owned by the test user; tests write sbatch output here (emptied when a new
            configuration wipes slurmctld state: job ids then start again at 1)
  cluster.env  KEY=VALUE lines describing the running cluster (readable by all)

Commands:
  up [--nodes N] [--slurmd-timeout S] [--cpus C] [--power-save] [--extra-conf FILE] [--no-resume]
     [--no-accounting]
        As root: install missing packages (install-deps.sh --runtime-only), create the
        test user ($AR_TEST_USER, default artest), write etc/slurm.conf (ClusterName=arlocal;
        its node and partition lines, debug with node[1-N], are written by the built
        `autoresume lifecycle apply` from a resource_config.json and
        provisioning_parameters.json describing the local nodes: build first), link
        /etc/slurm/slurm.conf to it when that path is free, start munged (if none runs),
        slurmdbd and its MariaDB, slurmctld and one slurmd per node, and wait until every
        node is usable (idle, or mixed/allocated when jobs run).
          --nodes N            number of nodes node1..nodeN (default 4)
          --slurmd-timeout S   SlurmdTimeout in seconds (default 300, production's usual value:
                               node-fault detection in the tests is the toolkit's own)
          --cpus C             CPUs per node (default 4; config_overrides lets a 2-core
                               host declare more)
          --power-save         enable Slurm power saving with fake programs: SuspendProgram
                               kills the node (kill-node), ResumeProgram revives it, so
                               `scontrol update node=X state=power_down|power_up` works
                               (SuspendTime=86400: idle nodes are not suspended on their own)
          --extra-conf FILE    append FILE's lines to slurm.conf (e.g. HealthCheckProgram)
          --no-accounting      AccountingStorageType=accounting_storage/none. By default the
                               cluster keeps accounting like production ones: slurmdbd
                               (DbdPort $AR_SLURMDBD_PORT, default 16819) on its own MariaDB
                               (db/, 127.0.0.1:$AR_DB_PORT, default 16306)
          --no-resume          leave nodes that are DOWN/DRAIN/FAIL as they are (default:
                               `scontrol update state=resume` them so the cluster is usable)
        Idempotent: a second `up` with the same options starts only what is missing. When
        the requested config differs from the current one, everything is stopped (jobs are
        cancelled), slurmctld state and spool are wiped and the cluster starts afresh.
  down [--purge]
        Cancel all jobs, stop every slurmd and slurmctld (and munged if this script started
        it), wait for them to exit. Logs are kept; --purge also removes $AR_CLUSTER_DIR
        (and the /etc/slurm/slurm.conf link if it points there). Idempotent.
  status
        Show munged, slurmctld and each slurmd with its pid, and `sinfo -N`.
        Exit 0 when everything runs and slurmctld answers, 3 otherwise.
  kill-node NODE
        Fault injection: simulate NODE dying. First collect the pids of every job step on
        NODE (`scontrol listpids JOB NODE` while its slurmd still answers, plus the
        slurmstepd of each step found by its socket in spool/NODE and all their children),
        then SIGSTOP and SIGKILL that node's slurmd, the slurmstepd and the tasks together.
        Prints what was killed.
  revive-node NODE [--fresh] [--boot] [--timeout S]
        Bring NODE back as a replacement with the same hostname: start its slurmd again and
        wait (default 60 s) until slurmctld sees it registered (new SlurmdStartTime, state
        without `*`). --fresh wipes spool/NODE first, like a new instance; --boot starts
        slurmd with -b (reports a reboot, i.e. a new BootTime).
  set-slurmd-timeout S
        Change SlurmdTimeout of the running cluster in place (`scontrol reconfigure`; jobs
        and node states are kept) and wait until slurmctld uses it. For tests of
        slurmctld's own not-responding verdict, which comes only at SlurmdTimeout: set a
        short one, and set it back. The next `up` with other options restarts afresh.
  logs
        Print the log directory path.
  help, --help, -h
        This text.

Environment:
  AR_CLUSTER_DIR       state directory (default /var/tmp/autoresume-cluster)
  AR_TEST_USER         ordinary user for tests (default artest)
  AR_SLURMCTLD_PORT    SlurmctldPort (default 16817)
  AR_SLURMD_PORT_BASE  port of node1; nodeK uses base+K-1 (default 17001)
  AR_UP_TIMEOUT        seconds `up` waits for daemons and nodes (default 90)

Client commands find the cluster through /etc/slurm/slurm.conf when it is our link,
otherwise export SLURM_CONF from cluster.env.
USAGE
}

# ---------------------------------------------------------------- settings

AR_CLUSTER_DIR="${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}"
AR_TEST_USER="${AR_TEST_USER:-artest}"
CTLD_PORT="${AR_SLURMCTLD_PORT:-16817}"
SLURMD_PORT_BASE="${AR_SLURMD_PORT_BASE:-17001}"
DBD_PORT="${AR_SLURMDBD_PORT:-16819}"
DB_PORT="${AR_DB_PORT:-16306}"
UP_TIMEOUT="${AR_UP_TIMEOUT:-90}"
CLUSTER_NAME="arlocal"
PARTITION="debug"
SYSTEM_CONF="/etc/slurm/slurm.conf"
MUNGE_RUN_DIR="/run/munge"
MUNGE_PIDFILE="$MUNGE_RUN_DIR/munged.pid"
MUNGE_KEY="/etc/munge/munge.key"

log() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

if [[ ! "$AR_CLUSTER_DIR" =~ ^/[A-Za-z0-9._/-]*[A-Za-z0-9._-]$ ]] || [[ "$AR_CLUSTER_DIR" == *..* ]]; then
    die "AR_CLUSTER_DIR must be an absolute path of [A-Za-z0-9._/-] without '..' and not '/': '$AR_CLUSTER_DIR'"
fi
[[ "$AR_TEST_USER" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || die "AR_TEST_USER is not a valid user name: '$AR_TEST_USER'"
[[ "$CTLD_PORT" =~ ^[0-9]{2,5}$ ]] || die "AR_SLURMCTLD_PORT must be a port number: '$CTLD_PORT'"
[[ "$SLURMD_PORT_BASE" =~ ^[0-9]{2,5}$ ]] || die "AR_SLURMD_PORT_BASE must be a port number: '$SLURMD_PORT_BASE'"
[[ "$DBD_PORT" =~ ^[0-9]{2,5}$ ]] || die "AR_SLURMDBD_PORT must be a port number: '$DBD_PORT'"
[[ "$DB_PORT" =~ ^[0-9]{2,5}$ ]] || die "AR_DB_PORT must be a port number: '$DB_PORT'"
[[ "$UP_TIMEOUT" =~ ^[0-9]{1,5}$ ]] || die "AR_UP_TIMEOUT must be a number of seconds: '$UP_TIMEOUT'"

DIR="$AR_CLUSTER_DIR"
ETC="$DIR/etc"
CONF="$ETC/slurm.conf"
PLUGSTACK="$ETC/plugstack.conf"
PLUGSTACK_D="$ETC/plugstack.conf.d"
FAKE_REBOOT="$ETC/fake-reboot.sh"
FAKE_SUSPEND="$ETC/fake-suspend.sh"
FAKE_RESUME="$ETC/fake-resume.sh"
STATE="$DIR/state"
CTLD_STATE="$STATE/slurmctld"
SPOOL="$DIR/spool"
LOGDIR="$DIR/log"
RUN="$DIR/run"
JOBS="$DIR/jobs"
ENV_FILE="$DIR/cluster.env"
MARKER="$DIR/.autoresume-local-cluster"
MUNGE_MARK="$RUN/munged.started-by-local-cluster"
DBD_CONF="$ETC/slurmdbd.conf"
DBD_PIDFILE="$RUN/slurmdbd.pid"
DB_DIR="$DIR/db" # not under state/ (0700 root): mariadbd runs as mysql
DB_PASS_FILE="$STATE/slurmdbd.pass"
DB_SOCK="$RUN/mariadb.sock"
DB_PIDFILE="$RUN/mariadb.pid"
export SLURM_CONF="$CONF"

# ---------------------------------------------------------------- helpers

need_root() { [ "$(id -u)" -eq 0 ] || die "'$1' must run as root"; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# wait_for TIMEOUT_S DESCRIPTION COMMAND... : poll COMMAND every 0.2 s until it succeeds.
wait_for() {
    local timeout="$1" what="$2" start
    shift 2
    start="$(date +%s)"
    until "$@"; do
        if [ $(( $(date +%s) - start )) -ge "$timeout" ]; then
            return 1
        fi
        sleep 0.2
    done
}

# clean_exec CMD ARGS...: run CMD with an empty signal mask, default signal handlers and no
# inherited descriptor above 2. A daemon started from a fake Reboot/Suspend/ResumeProgram
# would otherwise inherit slurmctld's or slurmd's blocked signals (SIGTERM included) and
# ignore `down`; one started under `flock LOCK local-cluster.sh up` would hold the lock for
# as long as it runs. With CLEAN_DETACH=1 CMD runs in a new session in the background (for
# daemons that stay in the foreground) and clean_exec returns at once.
clean_exec() {
    CLEAN_DETACH="${CLEAN_DETACH:-0}" perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die "sigprocmask: $!\n";
        $SIG{$_} = "DEFAULT" for grep { $_ ne "KILL" && $_ ne "STOP" && $_ ne "ZERO" } keys %SIG;
        opendir(my $fds, "/proc/self/fd") or die "/proc/self/fd: $!\n";
        my @open = grep { /^\d+$/ && $_ > 2 } readdir($fds);
        closedir($fds);
        POSIX::close($_) for @open;
        if ($ENV{CLEAN_DETACH} eq "1") {
            my $pid = fork() // die "fork: $!\n";
            exit 0 if $pid;
            POSIX::setsid();
        }
        delete $ENV{CLEAN_DETACH};
        exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"' "$@"
}

# pid_alive PID: the process exists and is not a zombie.
pid_alive() {
    local stat
    [ -n "${1:-}" ] || return 1
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    [ -n "$stat" ] || return 1
    stat="${stat##*) }"
    [ "${stat%% *}" != "Z" ]
}

all_dead() {
    local q
    for q in "$@"; do
        if pid_alive "$q"; then return 1; fi
    done
    return 0
}

# proc_args PID: the process's argv, one per line (empty when it is gone).
proc_args() { tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null || true; }

proc_comm() { cat "/proc/$1/comm" 2>/dev/null || true; }

proc_ppid() { # PID -> parent pid (field 4 of /proc/PID/stat, after the "(comm)" that may hold blanks)
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    stat="${stat##*) }"
    stat="${stat#* }"
    echo "${stat%% *}"
}

proc_desc() { # PID -> "comm: args"
    local args
    args="$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | sed 's/[[:space:]]*$//' || true)"
    printf '%s[%s] %s' "$(proc_comm "$1")" "$1" "$args"
}

# find_daemon COMM [NODE]: pids of COMM processes started with -f $CONF (and -N NODE).
find_daemon() {
    local comm="$1" node="${2:-}" d pid arg prev has_conf has_node
    for d in /proc/[0-9]*; do
        pid="${d#/proc/}"
        [ "$(cat "$d/comm" 2>/dev/null || true)" = "$comm" ] || continue
        has_conf=0; has_node=0; prev=""
        while IFS= read -r arg; do
            if [ "$prev" = "-f" ] && [ "$arg" = "$CONF" ]; then has_conf=1; fi
            if [ "$prev" = "-N" ] && [ "$arg" = "$node" ]; then has_node=1; fi
            prev="$arg"
        done < <(proc_args "$pid")
        [ "$has_conf" -eq 1 ] || continue
        if [ -n "$node" ] && [ "$has_node" -eq 0 ]; then continue; fi
        echo "$pid"
    done
}

ctld_pids() { find_daemon slurmctld; }
slurmd_pids() { find_daemon slurmd "$1"; }
all_slurmd_pids() { find_daemon slurmd; }

munged_pid() {
    local pid
    pid="$(pidfile_daemon "$MUNGE_PIDFILE" munged)"
    if [ -n "$pid" ]; then echo "$pid"; return 0; fi
    for d in /proc/[0-9]*; do
        if [ "$(cat "$d/comm" 2>/dev/null || true)" = "munged" ] && pid_alive "${d#/proc/}"; then
            echo "${d#/proc/}"
            return 0
        fi
    done
    return 0
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

# env_get KEY: value of KEY in cluster.env (never sourced: parsed line by line).
env_get() {
    local key="$1" line
    [ -r "$ENV_FILE" ] || return 0
    while IFS= read -r line; do
        if [ "${line%%=*}" = "$key" ]; then echo "${line#*=}"; return 0; fi
    done <"$ENV_FILE"
}

# Node count of the written config (cluster.env, else slurm.conf).
configured_count() {
    local n
    n="$(env_get AR_NODE_COUNT)"
    if [ -z "$n" ] && [ -r "$CONF" ]; then
        n="$(sed -n 's/^# AR_NODE_COUNT=\([0-9]*\)$/\1/p' "$CONF" | head -n1)"
    fi
    echo "${n:-0}"
}

node_list() { # COUNT -> node1 node2 ...
    local i
    for ((i = 1; i <= $1; i++)); do echo "node$i"; done
}

hostlist() { # COUNT -> node[1-N]
    if [ "$1" -eq 1 ]; then echo "node1"; else echo "node[1-$1]"; fi
}

validate_node() {
    local node="$1" count idx
    [[ "$node" =~ ^node([1-9][0-9]{0,3})$ ]] || die "not a node name of this cluster: '$node' (expected nodeK)"
    idx="${BASH_REMATCH[1]}"
    count="$(configured_count)"
    [ "$count" -gt 0 ] || die "no cluster configured in $DIR (run 'up' first)"
    [ "$idx" -le "$count" ] || die "unknown node '$node': this cluster has $(hostlist "$count")"
}

sc() { timeout 20 scontrol "$@"; }

# ctld_up: OUR slurmctld runs and answers (a slurmctld of another config on the same port
# must never be asked, let alone have its jobs cancelled).
ctld_up() { [ -n "$(ctld_pids)" ] && timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; }

# node_field NODE KEY: one field of `scontrol -o show node NODE` (values without blanks only).
node_field() {
    local line
    line="$(sc -o show node "$1" 2>/dev/null || true)"
    if [[ " $line " =~ [[:space:]]$2=([^[:space:]]*) ]]; then echo "${BASH_REMATCH[1]}"; fi
}

# node_states: "NAME STATE" for each node slurmctld knows.
node_states() {
    local line name state
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        name=""; state=""
        if [[ "$line" =~ ^NodeName=([^[:space:]]+) ]]; then name="${BASH_REMATCH[1]}"; fi
        if [[ "$line" =~ [[:space:]]State=([^[:space:]]+) ]]; then state="${BASH_REMATCH[1]}"; fi
        echo "$name $state"
    done < <(sc -o show node 2>/dev/null || true)
}

state_responding() {
    [[ "$1" != *'*'* ]] && [[ "$1" != UNKNOWN* ]] && [[ "$1" != *NOT_RESPONDING* ]] \
        && [[ "$1" != *POWERED_DOWN* ]] && [[ "$1" != *POWERING_* ]] && [[ "$1" != *POWER_UP* ]]
}
state_powered_down() { [[ "$1" == *POWERED_DOWN* ]] || [[ "$1" == *POWERING_DOWN* ]]; }
state_responding_or_powered_down() { state_responding "$1" || state_powered_down "$1"; }
state_usable() {
    state_responding "$1" || return 1
    case "$1" in
        *DOWN*|*DRAIN*|*FAIL*|*REBOOT*|*POWER*|*MAINT*|*FUTURE*|*RESERVED*) return 1 ;;
    esac
    case "$1" in
        IDLE*|MIXED*|ALLOCATED*|COMPLETING*) return 0 ;;
    esac
    return 1
}

# all_nodes PREDICATE COUNT: every configured node is known and satisfies PREDICATE.
all_nodes() {
    local pred="$1" count="$2" seen=0 name state
    while read -r name state; do
        [[ "$name" =~ ^node[0-9]+$ ]] || continue
        "$pred" "$state" || return 1
        seen=$((seen + 1))
    done < <(node_states)
    [ "$seen" -eq "$count" ]
}

# Pids of every process below the given pids (children, grandchildren, ...).
descendants() {
    local -a queue=("$@")
    local -A kids=()
    local pid ppid p
    while read -r pid ppid; do
        kids[$ppid]="${kids[$ppid]:-} $pid"
    done < <(ps -e -o pid=,ppid=)
    while [ "${#queue[@]}" -gt 0 ]; do
        p="${queue[0]}"
        queue=("${queue[@]:1}")
        for pid in ${kids[$p]:-}; do
            echo "$pid"
            queue+=("$pid")
        done
    done
}

# Pids of processes holding a unix socket whose path starts with PREFIX (slurmstepd
# listens on <SlurmdSpoolDir>/<node>_<job>.<step>).
socket_holders() {
    local prefix="$1" inode path
    local -A inodes=()
    while read -r _ _ _ _ _ _ inode path; do
        [ -n "${path:-}" ] || continue
        case "$path" in "$prefix"*) inodes[$inode]=1 ;; esac
    done < <(tail -n +2 /proc/net/unix)
    [ "${#inodes[@]}" -gt 0 ] || return 0
    # "/proc/PID/fd socket:[INODE]" for every socket of every process
    find /proc/[0-9]*/fd -maxdepth 1 -lname 'socket:*' -printf '%h %l\n' 2>/dev/null \
        | while read -r d link; do
            if [[ "$link" =~ ^socket:\[([0-9]+)\]$ ]] && [ -n "${inodes[${BASH_REMATCH[1]}]:-}" ]; then
                d="${d#/proc/}"
                echo "${d%/fd}"
            fi
        done | sort -un
}

# stepd_pids NODE: slurmstepd processes of NODE (or of every node when NODE is empty).
stepd_pids() {
    local prefix="$SPOOL/"
    [ -z "${1:-}" ] || prefix="$SPOOL/$1/"
    socket_holders "$prefix" | while read -r p; do
        [ "$(proc_comm "$p")" = "slurmstepd" ] && echo "$p"
    done
    return 0
}

# stop_pids TIMEOUT WHAT PID...: SIGTERM, wait, then SIGKILL what is left.
stop_pids() {
    local timeout="$1" what="$2" p left
    shift 2
    [ "$#" -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    if wait_for "$timeout" "$what" all_dead "$@"; then
        return 0
    fi
    left=""
    for p in "$@"; do pid_alive "$p" && left="$left $p"; done
    warn "$what did not exit within ${timeout}s after SIGTERM, sending SIGKILL to:$left"
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    wait_for 10 "$what" all_dead "$@" \
        || die "$what still alive after SIGKILL:$left"
}

# ---------------------------------------------------------------- config

# One line per node, each with its own loopback address (127.0.0.K) and slurmd port, so that
# NodeAddr, and so MASTER_ADDR, tells nodes apart as on a real cluster.
# lifecycle_json COUNT CPUS DIR: the local cluster described the way a platform describes
# one, for `autoresume lifecycle apply`: DIR/resource_config.json (a controller and nodeK on
# 127.0.0.K, slurmd port base+K-1) and DIR/provisioning_parameters.json (partition, CPUs).
lifecycle_json() {
    local count="$1" cpus="$2" dir="$3" k sep=""
    {
        printf '{\n  "ClusterConfig": { "ClusterName": "%s" },\n  "InstanceGroups": [\n' "$CLUSTER_NAME"
        printf '    { "Name": "controller", "InstanceType": "local", "Instances": [\n'
        printf '        { "InstanceName": "controller", "InstanceId": "local-controller", "CustomerIpAddress": "127.0.0.1" } ] },\n'
        printf '    { "Name": "nodes", "InstanceType": "local", "Instances": [\n'
        for ((k = 1; k <= count; k++)); do
            printf '%s        { "InstanceName": "node%d", "InstanceId": "local-node%d", "CustomerIpAddress": "127.0.0.%d",\n' \
                "$sep" "$k" "$k" "$k"
            printf '          "Autoresume": { "NodeHostname": "localhost", "Port": %d } }' $((SLURMD_PORT_BASE + k - 1))
            sep=$',\n'
        done
        printf ' ] }\n  ]\n}\n'
    } >"$dir/resource_config.json"
    cat >"$dir/provisioning_parameters.json" <<JSON
{
  "version": "1.0.0",
  "workload_manager": "slurm",
  "controller_group": "controller",
  "worker_groups": [
    {
      "instance_group_name": "nodes",
      "partition_name": "$PARTITION",
      "autoresume": {
        "node_options": "CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=2048"
      }
    }
  ],
  "autoresume": { "health_check_interval": 0 }
}
JSON
}

# with_lifecycle_nodes COUNT CPUS: reads a slurm.conf without nodes on stdin and prints it
# with the node and partition lines that `autoresume lifecycle apply` writes for the
# controller (dogfood: the tests' cluster is configured through the product's own path).
with_lifecycle_nodes() {
    local count="$1" cpus="$2" work rc=0
    [ -x "$AUTORESUME" ] || die "$AUTORESUME is missing: build the toolkit first (mvn -B -ntp -q package -DskipTests); 'up' configures the nodes through 'autoresume lifecycle apply'"
    work="$(mktemp -d)"
    mkdir -p "$work/root" "$ETC/lifecycle"
    cat >"$work/root/slurm.conf"
    lifecycle_json "$count" "$cpus" "$ETC/lifecycle" # kept: the cluster as the platform would describe it
    "$AUTORESUME" lifecycle apply --provisioning "$ETC/lifecycle/provisioning_parameters.json" \
        --resource-config "$ETC/lifecycle/resource_config.json" --node controller --root "$work/root" \
        --slurm-conf /slurm.conf >"$work/apply.out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && [ -f "$work/root/slurm.conf" ]; then
        cat "$work/root/slurm.conf"
    else
        cat "$work/apply.out" >&2
    fi
    rm -rf "$work"
    [ "$rc" -eq 0 ] || die "autoresume lifecycle apply failed (exit $rc) for the local cluster's JSON files"
}

gen_conf() { # COUNT TIMEOUT CPUS POWER_SAVE(0|1) EXTRA_FILE ACCOUNTING(0|1)
    local count="$1" timeout="$2" cpus="$3" power="$4" extra="$5" accounting="$6" host storage
    host="$(uname -n)"
    host="${host%%.*}"
    if [ "$accounting" -eq 1 ]; then
        storage="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT"
    else
        storage="AccountingStorageType=accounting_storage/none"
    fi
    cat <<CONF
# Generated by local-cluster/local-cluster.sh up: do not edit, run 'up' again.
# Nodes and partitions: the managed block at the end, written by autoresume lifecycle apply.
# AR_NODE_COUNT=$count
ClusterName=$CLUSTER_NAME
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$storage
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=permit_job_expansion,sched_interval=5
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=$timeout
SlurmctldTimeout=30
MessageTimeout=5
KillWait=5
InactiveLimit=0
WaitTime=0
MinJobAge=600
JobRequeue=1
ResumeTimeout=60
RebootProgram=$FAKE_REBOOT
PlugStackConfig=$PLUGSTACK
StateSaveLocation=$CTLD_STATE
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmctldDebug=info
SlurmdSpoolDir=$SPOOL/%n
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmdLogFile=$LOGDIR/slurmd-%n.log
SlurmdDebug=info
CONF
    if [ "$power" -eq 1 ]; then
        cat <<CONF
# --- power saving (--power-save): fake programs kill / revive the node's slurmd
SuspendProgram=$FAKE_SUSPEND
ResumeProgram=$FAKE_RESUME
SuspendTime=86400
SuspendTimeout=5
CONF
    fi
    if [ -n "$extra" ]; then
        echo "# --- extra configuration from $extra"
        cat "$extra"
    fi
}

write_fake_reboot() {
    local tmp="$FAKE_REBOOT.tmp"
    cat >"$tmp" <<REBOOT
#!/usr/bin/env bash
# RebootProgram of the local cluster (generated by local-cluster.sh). slurmd runs it for
# 'scontrol reboot': instead of rebooting this machine it "reboots" only the node whose
# slurmd called it: kill-node, then revive-node --boot (slurmd -b reports a new boot).
set -euo pipefail
node=""
p="\$PPID"
while [ "\$p" -gt 1 ]; do
    if [ "\$(cat "/proc/\$p/comm" 2>/dev/null || true)" = "slurmd" ]; then
        prev=""
        while IFS= read -r a; do
            if [ "\$prev" = "-N" ]; then node="\$a"; fi
            prev="\$a"
        done < <(tr '\\0' '\\n' <"/proc/\$p/cmdline")
        break
    fi
    p="\$(awk '{ print \$4 }' "/proc/\$p/stat" 2>/dev/null || echo 1)"
done
logf="$LOGDIR/fake-reboot.log"
echo "\$(date '+%FT%T') fake reboot requested for node '\$node' (slurmd pid \$p)" >>"\$logf"
[[ "\$node" =~ ^node[0-9]+\$ ]] || { echo "no node name found" >>"\$logf"; exit 1; }
AR_CLUSTER_DIR="$DIR" setsid -f bash -c 'sleep 1; "\$0" kill-node "\$1" && "\$0" revive-node "\$1" --boot' \\
    "$SCRIPT_PATH" "\$node" </dev/null >>"\$logf" 2>&1
exit 0
REBOOT
    chmod 0755 "$tmp"
    mv -f "$tmp" "$FAKE_REBOOT"
}

# SuspendProgram / ResumeProgram for --power-save: slurmctld runs them with a hostlist.
write_power_programs() {
    local prog action tmp
    for prog in "$FAKE_SUSPEND" "$FAKE_RESUME"; do
        # Resuming restarts slurmd with -b: slurmctld accepts a powered-up node only when
        # its BootTime is newer than the power-up request (a leftover slurmd is killed first).
        if [ "$prog" = "$FAKE_SUSPEND" ]; then action="kill-node"; else action="revive-node"; fi
        tmp="$prog.tmp"
        cat >"$tmp" <<POWER
#!/usr/bin/env bash
# $(basename "$prog"): power-saving program of the local cluster (generated by local-cluster.sh).
# slurmctld runs it with a hostlist; each node gets '$action' in the background.
# A resumed node's slurmd starts with -b (new BootTime), as slurmctld requires.
set -euo pipefail
logf="$LOGDIR/fake-power.log"
echo "\$(date '+%FT%T') \$(basename "\$0") \$*" >>"\$logf"
for node in \$(SLURM_CONF="$CONF" scontrol show hostnames "\$1"); do
    [[ "\$node" =~ ^node[0-9]+\$ ]] || continue
    if [ "$action" = "kill-node" ]; then
        AR_CLUSTER_DIR="$DIR" setsid -f "$SCRIPT_PATH" kill-node "\$node" </dev/null >>"\$logf" 2>&1
    else
        AR_CLUSTER_DIR="$DIR" setsid -f bash -c '"\$0" kill-node "\$1" && "\$0" revive-node "\$1" --boot' \\
            "$SCRIPT_PATH" "\$node" </dev/null >>"\$logf" 2>&1
    fi
done
exit 0
POWER
        chmod 0755 "$tmp"
        mv -f "$tmp" "$prog"
    done
}

write_env() { # COUNT TIMEOUT CPUS POWER_SAVE ACCOUNTING
    local tmp="$ENV_FILE.tmp"
    {
        echo "AR_CLUSTER_DIR=$DIR"
        echo "SLURM_CONF=$CONF"
        echo "AR_TEST_USER=$AR_TEST_USER"
        echo "AR_NODES=$(hostlist "$1")"
        echo "AR_NODE_COUNT=$1"
        echo "AR_PARTITION=$PARTITION"
        echo "AR_SLURMD_TIMEOUT=$2"
        echo "AR_CPUS_PER_NODE=$3"
        echo "AR_CLUSTER_NAME=$CLUSTER_NAME"
        echo "AR_SLURMCTLD_PORT=$CTLD_PORT"
        echo "AR_SLURMD_PORT_BASE=$SLURMD_PORT_BASE"
        echo "AR_JOBS_DIR=$JOBS"
        echo "AR_LOG_DIR=$LOGDIR"
        echo "AR_PLUGSTACK_DIR=$PLUGSTACK_D"
        echo "AR_POWER_SAVE=$4"
        echo "AR_ACCOUNTING=$5"
        echo "AR_SLURMDBD_PORT=$DBD_PORT"
    } >"$tmp"
    chmod 0644 "$tmp"
    mv -f "$tmp" "$ENV_FILE"
}

link_system_conf() {
    local target
    if [ -L "$SYSTEM_CONF" ]; then
        target="$(readlink "$SYSTEM_CONF")"
        if [ "$target" = "$CONF" ]; then return 0; fi
        if [ -e "$SYSTEM_CONF" ]; then
            warn "$SYSTEM_CONF is a link to $target, left alone: export SLURM_CONF=$CONF (see $ENV_FILE)"
            return 0
        fi
        warn "replacing dangling link $SYSTEM_CONF -> $target"
        rm -f "$SYSTEM_CONF"
    elif [ -e "$SYSTEM_CONF" ]; then
        warn "$SYSTEM_CONF is a real file, left alone: export SLURM_CONF=$CONF (see $ENV_FILE)"
        return 0
    fi
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -s "$CONF" "$SYSTEM_CONF"
    log "linked $SYSTEM_CONF -> $CONF"
}

# ---------------------------------------------------------------- daemons

ensure_user() {
    if id -u "$AR_TEST_USER" >/dev/null 2>&1; then return 0; fi
    useradd --create-home --shell /bin/bash "$AR_TEST_USER"
    log "created test user $AR_TEST_USER ($(id "$AR_TEST_USER"))"
}

start_munge() {
    local pid
    pid="$(munged_pid)"
    if [ -n "$pid" ]; then
        wait_for 15 munged munge_works \
            || die "munged (pid $pid) runs but 'munge -n | unmunge' fails: see /var/log/munge/munged.log"
        return 0
    fi
    if [ ! -s "$MUNGE_KEY" ]; then
        log "creating munge key $MUNGE_KEY"
        mkdir -p "$(dirname "$MUNGE_KEY")"
        chown munge:munge "$(dirname "$MUNGE_KEY")"
        if command -v mungekey >/dev/null 2>&1; then
            runuser -u munge -- mungekey --create --keyfile="$MUNGE_KEY"
        else
            create-munge-key -f
        fi
    fi
    chown munge:munge "$MUNGE_KEY"
    chmod 0600 "$MUNGE_KEY"
    mkdir -p "$MUNGE_RUN_DIR" /var/log/munge /var/lib/munge
    chown munge:munge "$MUNGE_RUN_DIR" /var/log/munge /var/lib/munge
    chmod 0755 "$MUNGE_RUN_DIR"
    rm -f "$MUNGE_PIDFILE"
    clean_exec runuser -u munge -- munged </dev/null >>"$LOGDIR/munged.out" 2>&1 \
        || die "munged failed to start: see $LOGDIR/munged.out and /var/log/munge/munged.log"
    wait_for 20 munged munge_works \
        || die "munged does not answer ('munge -n | unmunge' fails): see /var/log/munge/munged.log"
    pid="$(munged_pid)"
    echo "$pid" >"$MUNGE_MARK"
    log "started munged (pid $pid)"
}

# ---------------------------------------------------------------- accounting
# slurmdbd with its own MariaDB (datadir in state/, TCP on 127.0.0.1 only): production
# clusters keep accounting, and Slurm 22.05 without it refuses every change to a job once
# it has been grown (docs/slurm-behaviour.md), so a job could be repaired only once.

pidfile_daemon() { # PIDFILE COMM -> the pid when it names a live COMM process
    local pid
    [ -r "$1" ] || return 0
    pid="$(tr -dc '0-9' <"$1")"
    if pid_alive "$pid" && [ "$(proc_comm "$pid")" = "$2" ]; then echo "$pid"; fi
}

db_pid() { pidfile_daemon "$DB_PIDFILE" mariadbd; }
dbd_pid() { pidfile_daemon "$DBD_PIDFILE" slurmdbd; }
db_answers() { mariadb --socket="$DB_SOCK" -e 'SELECT 1' >/dev/null 2>&1; }
dbd_answers() { timeout 10 sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1; }
conf_has_accounting() { [ -r "$CONF" ] && grep -qx 'AccountingStorageType=accounting_storage/slurmdbd' "$CONF"; }

start_db() {
    local owner pass
    if [ -z "$(db_pid)" ]; then
        if [ ! -d "$DB_DIR/mysql" ]; then
            rm -rf "${DB_DIR:?}"
            mkdir -p "$DB_DIR"
            chown mysql:mysql "$DB_DIR"
            chmod 0700 "$DB_DIR"
            mariadb-install-db --user=mysql --datadir="$DB_DIR" --auth-root-authentication-method=socket \
                --skip-test-db >>"$LOGDIR/mariadb-install.out" 2>&1 \
                || die "mariadb-install-db failed: see $LOGDIR/mariadb-install.out"
            log "created the accounting database directory $DB_DIR"
        fi
        owner="$(port_owner "$DB_PORT")"
        [ -z "$owner" ] || die "port $DB_PORT (MariaDB for slurmdbd, AR_DB_PORT) is taken: $owner"
        rm -f "$DB_PIDFILE" "$DB_SOCK"
        chown mysql:mysql "$RUN" 2>/dev/null || true
        chmod 0755 "$RUN"
        # mariadbd stays in the foreground: detached from this script's session and output.
        CLEAN_DETACH=1 clean_exec mariadbd --user=mysql --datadir="$DB_DIR" --socket="$DB_SOCK" \
            --port="$DB_PORT" --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$DB_PIDFILE" \
            --log-error="$LOGDIR/mariadb.log" --innodb-buffer-pool-size=64M --innodb-lock-wait-timeout=900 \
            </dev/null >>"$LOGDIR/mariadb.out" 2>&1 || die "MariaDB failed to start: see $LOGDIR/mariadb.out"
        wait_for 60 MariaDB db_answers || die "MariaDB does not answer on $DB_SOCK after 60 s: see $LOGDIR/mariadb.log"
        log "started MariaDB for slurmdbd (pid $(db_pid), 127.0.0.1:$DB_PORT)"
    fi
    if [ ! -s "$DB_PASS_FILE" ]; then
        (umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$DB_PASS_FILE")
    fi
    pass="$(tr -dc '0-9a-f' <"$DB_PASS_FILE")"
    mariadb --socket="$DB_SOCK" -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
        ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" \
        || die "could not create the slurmdbd database user: see $LOGDIR/mariadb.log"
}

write_dbd_conf() {
    local pass tmp="$DBD_CONF.tmp"
    pass="$(tr -dc '0-9a-f' <"$DB_PASS_FILE")"
    (umask 077; cat >"$tmp" <<DBD
# Generated by local-cluster/local-cluster.sh up: do not edit.
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
LogFile=$LOGDIR/slurmdbd.log
PidFile=$DBD_PIDFILE
DBD
    )
    if [ -f "$DBD_CONF" ] && cmp -s "$tmp" "$DBD_CONF"; then
        rm -f "$tmp"
    else
        mv -f "$tmp" "$DBD_CONF"
    fi
}

start_accounting() {
    local owner
    start_db
    write_dbd_conf
    if [ -z "$(dbd_pid)" ]; then
        owner="$(port_owner "$DBD_PORT")"
        [ -z "$owner" ] || die "port $DBD_PORT (DbdPort, AR_SLURMDBD_PORT) is taken: $owner"
        rm -f "$DBD_PIDFILE"
        # slurmdbd reads slurmdbd.conf next to $SLURM_CONF, and daemonizes itself.
        clean_exec slurmdbd </dev/null >>"$LOGDIR/slurmdbd.out" 2>&1 \
            || die "slurmdbd failed to start: see $LOGDIR/slurmdbd.log and $LOGDIR/slurmdbd.out"
        wait_for 60 slurmdbd dbd_answers || die "slurmdbd does not answer after 60 s: see $LOGDIR/slurmdbd.log"
        log "started slurmdbd (pid $(dbd_pid), 127.0.0.1:$DBD_PORT)"
    fi
    if ! timeout 10 sacctmgr -n -P show cluster format=cluster 2>/dev/null | grep -qx "$CLUSTER_NAME"; then
        timeout 20 sacctmgr -i add cluster "$CLUSTER_NAME" >/dev/null \
            || die "could not add cluster $CLUSTER_NAME to slurmdbd: see $LOGDIR/slurmdbd.log"
        log "added cluster $CLUSTER_NAME to the accounting database"
    fi
}

stop_accounting() {
    local pid
    pid="$(dbd_pid)"
    if [ -n "$pid" ]; then
        stop_pids 20 slurmdbd "$pid"
        log "stopped slurmdbd: $pid"
    fi
    pid="$(db_pid)"
    if [ -n "$pid" ]; then
        stop_pids 60 MariaDB "$pid"
        log "stopped MariaDB: $pid"
    fi
}

port_owner() { # PORT -> description of the listener, empty when free
    ss -Hltnp "sport = :$1" 2>/dev/null | head -n1
}

start_ctld() {
    local pids owner
    pids="$(ctld_pids)"
    if [ -n "$pids" ]; then
        return 0
    fi
    owner="$(port_owner "$CTLD_PORT")"
    [ -z "$owner" ] || die "port $CTLD_PORT (SlurmctldPort) is taken: $owner"
    rm -f "$RUN/slurmctld.pid"
    clean_exec slurmctld -f "$CONF" </dev/null >>"$LOGDIR/slurmctld.out" 2>&1 \
        || die "slurmctld failed to start: see $LOGDIR/slurmctld.log and $LOGDIR/slurmctld.out"
    if ! wait_for "$UP_TIMEOUT" slurmctld ctld_up; then
        die "slurmctld does not answer 'scontrol ping' after ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log"
    fi
    log "started slurmctld (pid $(ctld_pids | tr '\n' ' ' | sed 's/ $//'))"
}

start_slurmd() { # NODE [extra slurmd args...]
    local node="$1" idx port owner pids
    shift
    pids="$(slurmd_pids "$node")"
    [ -z "$pids" ] || return 0
    idx="${node#node}"
    port=$((SLURMD_PORT_BASE + idx - 1))
    owner="$(port_owner "$port")"
    [ -z "$owner" ] || die "port $port of $node is taken: $owner"
    mkdir -p "$SPOOL/$node"
    chmod 0755 "$SPOOL/$node"
    rm -f "$RUN/slurmd-$node.pid"
    clean_exec slurmd -f "$CONF" -N "$node" "$@" </dev/null >>"$LOGDIR/slurmd-$node.out" 2>&1 \
        || die "slurmd for $node failed to start: see $LOGDIR/slurmd-$node.log and $LOGDIR/slurmd-$node.out"
    wait_for 20 "slurmd $node" slurmd_running "$node" \
        || die "slurmd for $node exited right after start: see $LOGDIR/slurmd-$node.log"
}

slurmd_running() { [ -n "$(slurmd_pids "$1")" ]; }
no_stepds() { [ -z "$(stepd_pids "")" ]; }

no_active_jobs() { [ -z "$(timeout 10 squeue -h -t R,CG,S,CF -o %A 2>/dev/null)" ]; }

# Cancel every job and make sure no slurmstepd of this cluster is left.
cancel_all_jobs() {
    local jobs stepds
    if ctld_up; then
        jobs="$(timeout 20 squeue -h -o %A 2>/dev/null | tr '\n' ' ' || true)"
        if [ -n "${jobs// /}" ]; then
            log "cancelling jobs: $jobs"
            # shellcheck disable=SC2086
            timeout 20 scancel $jobs 2>/dev/null || true
            wait_for 20 "jobs to end" no_active_jobs \
                || warn "jobs still running or completing after 20s: $(squeue -h -t R,CG,S,CF -o %A | tr '\n' ' ')"
        fi
    fi
    if [ -d "$SPOOL" ]; then
        wait_for 10 "slurmstepd to exit" no_stepds || true
        stepds="$(stepd_pids "")"
        if [ -n "$stepds" ]; then
            local all
            # shellcheck disable=SC2086
            all="$(printf '%s\n' $stepds; descendants $stepds)"
            all="$(printf '%s' "$all" | tr '\n' ' ')"
            warn "killing leftover slurmstepd and tasks: $all"
            # shellcheck disable=SC2086
            kill -KILL $all 2>/dev/null || true
        fi
    fi
}

stop_cluster_daemons() {
    local slurmds ctlds
    cancel_all_jobs
    # slurmd and slurmctld each take about 2 s to shut down: stop them together.
    slurmds="$(all_slurmd_pids | tr '\n' ' ' | sed 's/ *$//')"
    ctlds="$(ctld_pids | tr '\n' ' ' | sed 's/ *$//')"
    if [ -n "$slurmds$ctlds" ]; then
        # shellcheck disable=SC2086
        stop_pids 20 "slurmd/slurmctld" $slurmds $ctlds
        [ -z "$slurmds" ] || log "stopped slurmd: $slurmds"
        [ -z "$ctlds" ] || log "stopped slurmctld: $ctlds"
    fi
    stop_accounting # after slurmctld, which sends its last records to slurmdbd
}

stop_munge_if_ours() {
    local ours pid
    [ -r "$MUNGE_MARK" ] || return 0
    ours="$(tr -dc '0-9' <"$MUNGE_MARK")"
    pid="$(munged_pid)"
    if [ -n "$pid" ] && [ "$pid" = "$ours" ]; then
        stop_pids 15 munged "$pid"
        log "stopped munged (pid $pid)"
    elif [ -n "$pid" ]; then
        log "munged (pid $pid) was not started by this script: left running"
    fi
    rm -f "$MUNGE_MARK"
}

# ---------------------------------------------------------------- commands

cmd_up() {
    local count=4 timeout=300 cpus=4 power=0 extra="" resume=1 accounting=1 t0 newconf node name state
    local -a unusable powered
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --nodes) count="${2:-}"; shift ;;
            --nodes=*) count="${1#*=}" ;;
            --slurmd-timeout) timeout="${2:-}"; shift ;;
            --slurmd-timeout=*) timeout="${1#*=}" ;;
            --cpus) cpus="${2:-}"; shift ;;
            --cpus=*) cpus="${1#*=}" ;;
            --extra-conf) extra="${2:-}"; shift ;;
            --extra-conf=*) extra="${1#*=}" ;;
            --power-save) power=1 ;;
            --no-resume) resume=0 ;;
            --no-accounting) accounting=0 ;;
            -h|--help) usage; exit 0 ;;
            *) die "up: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    if [[ ! "$count" =~ ^[1-9][0-9]{0,2}$ ]] || [ "$count" -gt 128 ]; then
        die "--nodes must be 1..128: '$count'"
    fi
    if [[ ! "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$timeout" -lt 3 ]; then
        die "--slurmd-timeout must be >= 3 seconds: '$timeout'"
    fi
    [[ "$cpus" =~ ^[1-9][0-9]{0,3}$ ]] || die "--cpus must be a positive number: '$cpus'"
    if [ -n "$extra" ]; then
        [ -r "$extra" ] || die "--extra-conf file not readable: '$extra'"
        extra="$(cd "$(dirname "$extra")" && pwd)/$(basename "$extra")"
    fi
    need_root up
    t0="$(now)"

    if ! "$SCRIPT_DIR/install-deps.sh" --runtime-only --check --quiet 2>/dev/null; then
        "$SCRIPT_DIR/install-deps.sh" --runtime-only
    fi
    ensure_user

    mkdir -p "$DIR"
    chmod 0755 "$DIR"
    touch "$MARKER"
    mkdir -p "$ETC" "$PLUGSTACK_D" "$STATE" "$CTLD_STATE" "$SPOOL" "$LOGDIR" "$RUN" "$JOBS"
    chmod 0755 "$ETC" "$PLUGSTACK_D" "$SPOOL" "$LOGDIR" "$RUN"
    chmod 0700 "$STATE"
    chown "$AR_TEST_USER": "$JOBS"
    chmod 0755 "$JOBS"

    newconf="$(gen_conf "$count" "$timeout" "$cpus" "$power" "$extra" "$accounting" | with_lifecycle_nodes "$count" "$cpus")"
    if [ ! -f "$CONF" ] || [ "$(cat "$CONF")" != "$newconf" ]; then
        if [ -f "$CONF" ]; then
            if [ -n "$(ctld_pids)$(all_slurmd_pids)" ]; then
                log "requested configuration differs from the running one: restarting the cluster"
                stop_cluster_daemons
            else
                log "configuration changed"
            fi
            log "wiping slurmctld state, slurmd spool and old job output (new configuration)"
            rm -rf "${CTLD_STATE:?}" "${SPOOL:?}"
            # Job ids start again at 1: an old jobs/24.out or 24.ready would pass for the new job 24's.
            find "$JOBS" -mindepth 1 -delete 2>/dev/null || true
            mkdir -p "$CTLD_STATE" "$SPOOL"
            chmod 0755 "$SPOOL"
        fi
        printf '%s\n' "$newconf" >"$CONF.tmp"
        chmod 0644 "$CONF.tmp"
        mv -f "$CONF.tmp" "$CONF"
        log "wrote $CONF ($(hostlist "$count"), $cpus CPUs each, SlurmdTimeout=$timeout)"
    fi
    if [ ! -f "$PLUGSTACK" ] || [ "$(cat "$PLUGSTACK")" != "include $PLUGSTACK_D/*.conf" ]; then
        printf 'include %s/*.conf\n' "$PLUGSTACK_D" >"$PLUGSTACK"
    fi
    chmod 0644 "$PLUGSTACK"
    write_fake_reboot
    write_power_programs
    link_system_conf
    # A node missing from the new config must not keep a slurmd around.
    for pid in $(all_slurmd_pids); do
        name="$(proc_args "$pid" | awk 'p { print; exit } $0 == "-N" { p = 1 }')"
        if [[ ! "$name" =~ ^node([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -gt "$count" ]; then
            warn "stopping slurmd of unconfigured node '$name' (pid $pid)"
            stop_pids 15 slurmd "$pid"
        fi
    done

    start_munge
    if [ "$accounting" -eq 1 ]; then
        start_accounting
    else
        stop_accounting
    fi
    start_ctld
    # Nodes that slurmctld keeps powered down (--power-save) get no slurmd here: powering
    # them up (below) runs ResumeProgram, which starts it.
    powered=()
    while read -r name state; do
        [[ "$name" =~ ^node[0-9]+$ ]] || continue
        if state_powered_down "$state"; then powered+=("$name"); fi
    done < <(node_states)
    for node in $(node_list "$count"); do
        if [[ " ${powered[*]} " == *" $node "* ]]; then
            continue
        fi
        if ! slurmd_running "$node"; then
            start_slurmd "$node"
            log "started slurmd $node (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//'))"
        fi
    done
    chmod 0644 "$LOGDIR"/*.log 2>/dev/null || true

    if ! wait_for "$UP_TIMEOUT" "nodes to register" all_nodes state_responding_or_powered_down "$count"; then
        sinfo -N >&2 || true
        die "not all nodes registered within ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log and $LOGDIR/slurmd-<node>.log"
    fi
    if [ "$resume" -eq 1 ] && [ "${#powered[@]}" -gt 0 ]; then
        for name in "${powered[@]}"; do
            log "powering up $name (was $(node_field "$name" State))"
            sc update nodename="$name" state=power_up || warn "could not power up $name"
        done
        if ! wait_for "$UP_TIMEOUT" "nodes to power up" all_nodes state_responding "$count"; then
            sinfo -N >&2 || true
            die "not all nodes powered up within ${UP_TIMEOUT}s: see $LOGDIR/fake-power.log and $LOGDIR/slurmctld.log"
        fi
    fi
    if [ "$resume" -eq 1 ]; then
        unusable=()
        while read -r name state; do
            [[ "$name" =~ ^node[0-9]+$ ]] || continue
            state_usable "$state" || unusable+=("$name")
        done < <(node_states)
        for name in "${unusable[@]}"; do
            log "resuming $name (was $(node_field "$name" State))"
            sc update nodename="$name" state=resume || warn "could not resume $name"
        done
        if ! wait_for "$UP_TIMEOUT" "nodes to become usable" all_nodes state_usable "$count"; then
            sinfo -N >&2 || true
            die "not all nodes usable within ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log"
        fi
    fi
    write_env "$count" "$timeout" "$cpus" "$power" "$accounting"
    log "cluster $CLUSTER_NAME up: $(hostlist "$count") in partition $PARTITION ($(elapsed "$t0") s); env in $ENV_FILE"
}

cmd_down() {
    local purge=0 target
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --purge) purge=1 ;;
            -h|--help) usage; exit 0 ;;
            *) die "down: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    need_root down
    if [ -f "$CONF" ]; then
        stop_cluster_daemons
    fi
    stop_accounting
    stop_munge_if_ours
    if [ "$purge" -eq 1 ] && [ -d "$DIR" ]; then
        [ -f "$MARKER" ] || die "refusing to purge $DIR: it has no $MARKER"
        if [ -L "$SYSTEM_CONF" ] && [ "$(readlink "$SYSTEM_CONF")" = "$CONF" ]; then
            rm -f "$SYSTEM_CONF"
            log "removed link $SYSTEM_CONF"
        fi
        rm -rf "${DIR:?}"
        log "purged $DIR"
    fi
    log "cluster down"
}

# status_line NAME PIDS [CHECK...]: "running" when PIDS is set and CHECK (if given) succeeds,
# else "DOWN" and status 3.
status_line() {
    local name="$1" pids="$2"
    shift 2
    if [ -n "$pids" ] && { [ "$#" -eq 0 ] || "$@"; }; then
        printf '%-12s running  pid %s\n' "$name" "$pids"
        return 0
    fi
    printf '%-12s DOWN\n' "$name"
    return 3
}

cmd_status() {
    local ok=0 count pid pids node
    [ "$#" -eq 0 ] || die "status takes no arguments"
    if [ ! -f "$CONF" ]; then
        echo "no cluster configured in $DIR"
        return 3
    fi
    count="$(configured_count)"
    status_line munged "$(munged_pid)" munge_works || ok=3
    pids="$(ctld_pids | tr '\n' ' ' | sed 's/ $//')"
    if [ -n "$pids" ] && ctld_up; then
        printf '%-12s running  pid %s\n' slurmctld "$pids"
    elif [ -n "$pids" ]; then
        printf '%-12s NOT ANSWERING pid %s (see %s)\n' slurmctld "$pids" "$LOGDIR/slurmctld.log"; ok=3
    else
        printf '%-12s DOWN\n' slurmctld; ok=3
    fi
    if conf_has_accounting; then
        status_line MariaDB "$(db_pid)" db_answers || ok=3
        status_line slurmdbd "$(dbd_pid)" || ok=3
    fi
    for node in $(node_list "$count"); do
        pids="$(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//')"
        if [ -n "$pids" ]; then
            printf '%-12s running  pid %s\n' "slurmd $node" "$pids"
        elif state_powered_down "$(node_field "$node" State)"; then
            printf '%-12s powered down (power saving)\n' "slurmd $node"
        else
            printf '%-12s DOWN\n' "slurmd $node"; ok=3
        fi
    done
    if ctld_up; then
        echo
        timeout 20 sinfo -N -l || ok=3
    fi
    return "$ok"
}

cmd_kill_node() {
    local node="${1:-}" job pid ppid t0
    [ "$#" -eq 1 ] || die "usage: kill-node NODE"
    validate_node "$node"
    need_root kill-node
    t0="$(now)"
    local -A victims=()
    local -a stepds=()
    # 1. Task pids of each job step, asked from the node's slurmd while it still answers.
    if ctld_up; then
        for job in $(timeout 20 squeue -h -w "$node" -t R,CG,S,CF -o %A 2>/dev/null || true); do
            [[ "$job" =~ ^[0-9_]+$ ]] || continue
            while read -r pid _; do
                [[ "$pid" =~ ^[0-9]+$ ]] || continue
                victims[$pid]="task of job $job"
                ppid="$(proc_ppid "$pid")"
                if [ -n "$ppid" ] && [ "$(proc_comm "$ppid")" = "slurmstepd" ]; then
                    victims[$ppid]="slurmstepd of job $job"
                fi
            done < <(timeout 10 scontrol listpids "$job" "$node" 2>/dev/null || true)
        done
    else
        warn "slurmctld does not answer: killing by spool sockets only"
    fi
    # 2. Every slurmstepd of the node (found by its socket in the node's spool dir) and
    #    every process below them.
    mapfile -t stepds < <(stepd_pids "$node")
    for pid in "${stepds[@]}"; do victims[$pid]="slurmstepd"; done
    if [ "${#stepds[@]}" -gt 0 ]; then
        for pid in $(descendants "${stepds[@]}"); do
            [ -n "${victims[$pid]:-}" ] || victims[$pid]="step process"
        done
    fi
    # 3. The node's slurmd and whatever it forked.
    for pid in $(slurmd_pids "$node"); do
        victims[$pid]="slurmd"
        for ppid in $(descendants "$pid"); do victims[$ppid]="child of slurmd"; done
    done
    local -a all=()
    for pid in "${!victims[@]}"; do
        pid_alive "$pid" && all+=("$pid")
    done
    if [ "${#all[@]}" -eq 0 ]; then
        log "$node: nothing to kill (its slurmd is not running)"
        return 0
    fi
    local -a lines=()
    for pid in "${all[@]}"; do lines+=("$(printf '  %-22s %s' "${victims[$pid]}" "$(proc_desc "$pid")")"); done
    kill -STOP "${all[@]}" 2>/dev/null || true
    kill -KILL "${all[@]}" 2>/dev/null || true
    wait_for 10 "killed processes to vanish" all_dead "${all[@]}" \
        || warn "some killed processes still exist: ${all[*]}"
    log "killed $node at $(date '+%FT%T') ($(elapsed "$t0") s): ${#all[@]} processes"
    printf '%s\n' "${lines[@]}"
}

cmd_revive_node() {
    local node="" fresh=0 boot=0 timeout=60 old new state t0
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --fresh) fresh=1 ;;
            --boot) boot=1 ;;
            --timeout) timeout="${2:-}"; shift ;;
            --timeout=*) timeout="${1#*=}" ;;
            -h|--help) usage; exit 0 ;;
            -*) die "revive-node: unknown option '$1'" ;;
            *) [ -z "$node" ] || die "revive-node takes one NODE"; node="$1" ;;
        esac
        shift
    done
    [ -n "$node" ] || die "usage: revive-node NODE [--fresh] [--boot] [--timeout S]"
    [[ "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || die "--timeout must be seconds: '$timeout'"
    validate_node "$node"
    need_root revive-node
    t0="$(now)"
    if slurmd_running "$node"; then
        log "$node: slurmd already running (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//'))"
        return 0
    fi
    ctld_up || die "slurmctld does not answer: run 'up' (see $LOGDIR/slurmctld.log)"
    old="$(node_field "$node" SlurmdStartTime)"
    if [ "$fresh" -eq 1 ]; then
        rm -rf "${SPOOL:?}/$node"
        log "$node: wiped spool $SPOOL/$node"
    fi
    if [ "$boot" -eq 1 ]; then start_slurmd "$node" -b; else start_slurmd "$node"; fi
    log "$node: started slurmd (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//')), waiting for registration"
    registered() {
        new="$(node_field "$node" SlurmdStartTime)"
        state="$(node_field "$node" State)"
        [ -n "$new" ] && [ "$new" != "None" ] && [ "$new" != "$old" ] && state_responding "$state"
    }
    if ! wait_for "$timeout" "registration" registered; then
        die "$node did not register within ${timeout}s (State=$(node_field "$node" State)): see $LOGDIR/slurmd-$node.log and $LOGDIR/slurmctld.log"
    fi
    log "$node: registered after $(elapsed "$t0") s, SlurmdStartTime=$new State=$state"
}

cmd_set_slurmd_timeout() {
    local timeout="${1:-}" deadline current
    if [[ ! "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$timeout" -lt 3 ]; then
        die "set-slurmd-timeout: SlurmdTimeout must be >= 3 seconds: '$timeout'"
    fi
    need_root set-slurmd-timeout
    [ -f "$CONF" ] || die "set-slurmd-timeout: no cluster configured ($CONF missing); run 'up' first"
    ctld_up || die "set-slurmd-timeout: slurmctld does not answer; run 'up' first"
    sed "s/^SlurmdTimeout=.*/SlurmdTimeout=$timeout/" "$CONF" >"$CONF.tmp"
    chmod 0644 "$CONF.tmp"
    mv -f "$CONF.tmp" "$CONF"
    if [ -f "$ENV_FILE" ]; then
        sed "s/^AR_SLURMD_TIMEOUT=.*/AR_SLURMD_TIMEOUT=$timeout/" "$ENV_FILE" >"$ENV_FILE.tmp"
        chmod 0644 "$ENV_FILE.tmp"
        mv -f "$ENV_FILE.tmp" "$ENV_FILE"
    fi
    sc reconfigure || die "set-slurmd-timeout: scontrol reconfigure failed"
    deadline=$(( $(date +%s) + 30 ))
    while :; do
        current="$(sc show config 2>/dev/null | awk -F' *= *' '$1 == "SlurmdTimeout" { print $2 }')"
        [ "$current" = "$timeout sec" ] && break
        [ "$(date +%s)" -lt "$deadline" ] || die "set-slurmd-timeout: slurmctld still reports SlurmdTimeout '$current' after 30 s"
        sleep 0.2
    done
    log "SlurmdTimeout is now $timeout s"
}

cmd_logs() {
    echo "$LOGDIR"
}

main() {
    local cmd="${1:-}"
    [ "$#" -eq 0 ] || shift
    case "$cmd" in
        up) cmd_up "$@" ;;
        down) cmd_down "$@" ;;
        status) cmd_status "$@" ;;
        kill-node) cmd_kill_node "$@" ;;
        revive-node) cmd_revive_node "$@" ;;
        set-slurmd-timeout) cmd_set_slurmd_timeout "$@" ;;
        logs) cmd_logs ;;
        help|-h|--help) usage ;;
        "") usage >&2; exit 2 ;;
        *) printf '%s: unknown command: %s\n\n' "$PROG" "$cmd" >&2; usage >&2; exit 2 ;;
    esac
}

main "$@"
