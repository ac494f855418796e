# shellcheck shell=bash
# Sourced by local-cluster.sh: slurmctld and one slurmd per node: start, find, stop (cancelling jobs first).

ctld_pids() { find_daemon slurmctld; }
slurmd_pids() { find_daemon slurmd "$1"; }
all_slurmd_pids() { find_daemon slurmd; }

# ctld_up: OUR slurmctld runs and answers (a slurmctld of another config on the same port
# must never be asked, let alone have its jobs cancelled). With a backup, one that answers pings
# may be in standby: a controller must serve a request.
ctld_up() {
    [ -n "$(ctld_pids)" ] && timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP' \
        && { ! backup_configured || ctld_in_control; }
}

start_ctld() {
    local pids owner
    if backup_configured; then
        start_controllers
        return 0
    fi
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
