# shellcheck shell=bash
# Sourced by local-cluster.sh: finding, describing and stopping processes through /proc.

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
proc_args() { { tr '\0' '\n' <"/proc/$1/cmdline"; } 2>/dev/null || true; }

proc_comm() { local c=""; { read -r c <"/proc/$1/comm"; } 2>/dev/null || true; printf '%s\n' "$c"; }

# comm_is PID NAME: whether the process's command name is NAME, with no fork (loops over
# /proc call it for every process of the host).
comm_is() { local c=""; { read -r c <"/proc/$1/comm"; } 2>/dev/null || true; [ "$c" = "$2" ]; }

proc_ppid() { # PID -> parent pid (field 4 of /proc/PID/stat, after the "(comm)" that may hold blanks)
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    stat="${stat##*) }"
    stat="${stat#* }"
    echo "${stat%% *}"
}

proc_desc() { # PID -> "comm: args"
    local args
    args="$({ tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null | sed 's/[[:space:]]*$//' || true)"
    printf '%s[%s] %s' "$(proc_comm "$1")" "$1" "$args"
}

# find_daemon COMM [NODE]: pids of COMM processes started with -f $CONF (and -N NODE).
find_daemon() {
    local comm="$1" node="${2:-}" d pid arg prev has_conf has_node
    for d in /proc/[0-9]*; do
        pid="${d#/proc/}"
        # No fork per process: with a cat for each, a call cost seconds beside 33 slurmd.
        comm_is "$pid" "$comm" || continue
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
        comm_is "$p" slurmstepd && echo "$p"
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

pidfile_daemon() { # PIDFILE COMM -> the pid when it names a live COMM process
    local pid
    [ -r "$1" ] || return 0
    pid="$(tr -dc '0-9' <"$1")"
    if pid_alive "$pid" && [ "$(proc_comm "$pid")" = "$2" ]; then echo "$pid"; fi
}

port_owner() { # PORT -> description of the listener, empty when free
    ss -Hltnp "sport = :$1" 2>/dev/null | head -n1
}
