# shellcheck shell=bash
# Sourced by local-cluster.sh: munged: start it when none runs, stop it only when this script started it.

munged_pid() {
    local pid
    pid="$(pidfile_daemon "$MUNGE_PIDFILE" munged)"
    if [ -n "$pid" ]; then echo "$pid"; return 0; fi
    for d in /proc/[0-9]*; do
        if [ "$(cat "$d/comm" 2>/dev/null || true)" = "munged" ] && pid_alive "${d#/proc/}" \
            && serves_default_socket "$d"; then
            echo "${d#/proc/}"
            return 0
        fi
    done
    return 0
}

# serves_default_socket /proc/PID: a munged of this host's own (not one in a chroot, not one
# started with --socket elsewhere, e.g. the Slurm 24.11 rootfs cluster's), which our clients use.
serves_default_socket() {
    local arg prev="" socket="$MUNGE_RUN_DIR/munge.socket.2"
    [ "$(readlink "$1/root" 2>/dev/null || true)" = "/" ] || return 1
    while IFS= read -r -d '' arg; do
        case "$prev|$arg" in
            *"|--socket="*) [ "${arg#--socket=}" = "$socket" ] || return 1 ;;
            "-S|"* | "--socket|"*) [ "$arg" = "$socket" ] || return 1 ;;
        esac
        prev="$arg"
    done <"$1/cmdline"
    return 0
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

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
