# shellcheck shell=bash
# Sourced by local-cluster.sh: `status`, one line per daemon, then sinfo.

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

# cluster_status: exit 0 when everything runs and slurmctld answers, 3 otherwise.
cluster_status() {
    local ok=0 count pids node
    if [ ! -f "$CONF" ]; then
        echo "no cluster configured in $DIR"
        return 3
    fi
    count="$(configured_count)"
    shape_line
    printf 'Slurm %s (%s)\n' "$RELEASE" "$RELEASE_BIN"
    status_line munged "$(munged_pid)" munge_works || ok=3
    pids="$(ctld_pids | tr '\n' ' ' | sed 's/ $//')"
    if backup_configured; then
        controller_status_lines || ok=3
        ctld_in_control || { printf '%-12s none serves requests\n' slurmctld; ok=3; }
    elif [ -n "$pids" ] && ctld_up; then
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
        elif node_powered_down "$node"; then
            printf '%-12s powered down (power saving)\n' "slurmd $node"
        else
            printf '%-12s DOWN\n' "slurmd $node"; ok=3
        fi
    done
    if [ "$(env_get AR_AGENTS)" = 1 ]; then # up --agents
        for node in $(node_list "$count"); do
            pids="$(agent_pid "$node")"
            if [ -n "$pids" ]; then
                printf '%-12s running  pid %s\n' "agent $node" "$pids"
            else
                printf '%-12s DOWN\n' "agent $node"; ok=3
            fi
        done
    fi
    if ctld_up; then
        echo
        timeout 20 sinfo -N -l || ok=3
    fi
    return "$ok"
}
