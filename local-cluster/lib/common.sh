# shellcheck shell=bash disable=SC2034 # the other libraries use these settings
# Sourced by local-cluster.sh: settings, paths, messages and small helpers shared by every command.

AR_CLUSTER_DIR="${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}"
AR_TEST_USER="${AR_TEST_USER:-artest}"
# A second ordinary user: whose jobs share nodes with the test user's in the tests that check no
# request of one user reaches another user's job.
AR_OTHER_USER="${AR_OTHER_USER:-arother}"
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
MUNGE_SOCKET="" # the default socket; a release in a rootfs has its own (lib/release.sh)

log() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

if [[ ! "$AR_CLUSTER_DIR" =~ ^/[A-Za-z0-9._/-]*[A-Za-z0-9._-]$ ]] || [[ "$AR_CLUSTER_DIR" == *..* ]]; then
    die "AR_CLUSTER_DIR must be an absolute path of [A-Za-z0-9._/-] without '..' and not '/': '$AR_CLUSTER_DIR'"
fi
[[ "$AR_TEST_USER" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || die "AR_TEST_USER is not a valid user name: '$AR_TEST_USER'"
[[ "$AR_OTHER_USER" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || die "AR_OTHER_USER is not a valid user name: '$AR_OTHER_USER'"
[[ "$AR_OTHER_USER" != "$AR_TEST_USER" ]] || die "AR_OTHER_USER must differ from AR_TEST_USER (both are '$AR_TEST_USER')"
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
FAKE_NHC="$ETC/fake-nhc.sh"
# What the stand-in NHC reads: fail/NODE (a failing check, its message) and drained/NODE (it drained NODE).
NHC_DIR="$DIR/nhc"
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
DB_RELEASE_FILE="$DIR/db.slurm-release" # the Slurm release whose slurmdbd made the database
DB_PASS_FILE="$STATE/slurmdbd.pass"
DB_SOCK="$RUN/mariadb.sock"
DB_PIDFILE="$RUN/mariadb.pid"
export SLURM_CONF="$CONF"

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
