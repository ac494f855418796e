# shellcheck shell=bash disable=SC2153 # STATE and the other paths come from common.sh
# Sourced by local-cluster.sh: bring the cluster up, take it down, change SlurmdTimeout or MinJobAge in place.

ensure_user() {
    local user
    for user in "$AR_TEST_USER" "$AR_OTHER_USER"; do
        if id -u "$user" >/dev/null 2>&1; then continue; fi
        useradd --create-home --shell /bin/bash "$user"
        log "created test user $user ($(id "$user"))"
    done
}

# cluster_up COUNT SLURMD_TIMEOUT CPUS POWER_SAVE(0|1) EXTRA_FILE RESUME(0|1) ACCOUNTING(0|1)
#            SHAPE(gpu|cpu-only) GPUS BACKUP(0|1)
cluster_up() {
    local count="$1" timeout="$2" cpus="$3" power="$4" extra="$5" resume="$6" accounting="$7"
    local shape="$8" gpus="$9" backup="${10}"
    local t0 newconf node name state pid started=0
    local -a powered
    t0="$(now)"

    if ! "$SCRIPT_DIR/install-deps.sh" --runtime-only --check --quiet 2>/dev/null; then
        "$SCRIPT_DIR/install-deps.sh" --runtime-only
    fi
    ensure_user
    restore_all_networks

    mkdir -p "$DIR"
    chmod 0755 "$DIR"
    touch "$MARKER"
    local previous db_release
    previous="$(recorded_release)"
    # slurmdbd cannot convert a schema two or more releases old ("Database schema is too old for
    # this version of Slurm to upgrade", seen going from 22.05 to 24.11), nor go back: the
    # database is kept only by the release that wrote it (one without a record is 22.05's).
    db_release="$(recorded_db_release)"
    if [ -d "$DB_DIR" ] && [ "${db_release:-22.05}" != "$RELEASE" ]; then
        log "the accounting database is Slurm ${db_release:-22.05}'s, the cluster is to run $RELEASE: it starts afresh"
        stop_cluster_daemons
        stop_accounting
        rm -rf "${DB_DIR:?}" "$DB_RELEASE_FILE"
    fi
    if [ -n "$previous" ] && [ "$previous" != "$RELEASE" ]; then
        log "Slurm release changes from $previous to $RELEASE: slurmctld state and spool start afresh"
        stop_cluster_daemons
        rm -rf "${CTLD_STATE:?}" "${SPOOL:?}"
    fi
    printf '%s\n' "$RELEASE" >"$RELEASE_FILE"
    mkdir -p "$ETC" "$PLUGSTACK_D" "$STATE" "$CTLD_STATE" "$SPOOL" "$LOGDIR" "$RUN" "$JOBS"
    chmod 0755 "$ETC" "$PLUGSTACK_D" "$SPOOL" "$LOGDIR" "$RUN"
    chmod 0700 "$STATE"
    chown "$AR_TEST_USER": "$JOBS"
    chmod 0755 "$JOBS"

    newconf="$(gen_conf "$count" "$timeout" "$cpus" "$power" "$extra" "$accounting" "$shape" "$gpus" "$backup" \
        | with_lifecycle_nodes "$count" "$cpus" "$shape" "$gpus")"
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
        log "wrote $CONF ($(hostlist "$count"), $cpus CPUs each, SlurmdTimeout=$timeout, shape $shape$(
            [ "$shape" = gpu ] && printf ' with %d GPUs each' "$gpus"))"
    fi
    write_shape_files "$shape" "$count" "$gpus"
    if [ "$shape" = gpu ] && [ "$resume" -eq 1 ]; then
        # A usable cluster has sound GPUs too: what gpu-fault injected is gone, as after a repair.
        for node in $(node_list "$count"); do clear_gpu_faults "$node" 0; done
    fi
    if [ "$resume" -eq 1 ]; then
        for node in $(node_list "$count"); do nhc_clear "$node"; done
    fi
    if [ ! -f "$PLUGSTACK" ] || [ "$(cat "$PLUGSTACK")" != "include $PLUGSTACK_D/*.conf" ]; then
        printf 'include %s/*.conf\n' "$PLUGSTACK_D" >"$PLUGSTACK"
    fi
    chmod 0644 "$PLUGSTACK"
    write_fake_reboot
    write_fake_nhc
    write_power_programs
    write_release_bin
    ensure_release_user
    build_release_plugins
    # /etc/slurm is the host's 22.05: another release's clients get SLURM_CONF (cluster.env).
    [ "$RELEASE" != 22.05 ] || link_system_conf
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
        printf '%s\n' "$RELEASE" >"$DB_RELEASE_FILE"
    else
        stop_accounting
    fi
    [ -n "$(ctld_pids)" ] || started=1
    start_ctld
    # Nodes that slurmctld keeps powered down (only with --power-save) get no slurmd here:
    # powering them up (wait_nodes_usable) runs ResumeProgram, which starts it.
    powered=()
    if [ "$power" -eq 1 ]; then
        while read -r name state _; do
            [[ "$name" =~ ^node[0-9]+$ ]] || continue
            powered+=("$name=$state")
        done < <(nodes_query --state "$POWER_SAVING_STATES" || true)
    fi
    for node in $(node_list "$count"); do
        if [[ " ${powered[*]} " == *" $node="* ]]; then
            continue
        fi
        if ! slurmd_running "$node"; then
            start_slurmd "$node"
            started=1
            log "started slurmd $node (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//'))"
        fi
    done
    chmod 0644 "$LOGDIR"/*.log 2>/dev/null || true

    # Each node-state query starts a JVM (0.5-1.5 s on a busy 2-core machine): when nothing
    # had to start, one query tells whether every wait of wait_nodes_usable would pass at once.
    if [ "$started" -eq 1 ] || [ "$resume" -eq 0 ] || [ "${#powered[@]}" -gt 0 ] || ! nodes_schedulable "$count"; then
        wait_nodes_usable "$count" "$resume" "${powered[@]}"
    fi
    write_env "$count" "$timeout" "$cpus" "$power" "$accounting" "$shape" "$gpus" "$backup"
    log "cluster $CLUSTER_NAME up ($shape shape): $(hostlist "$count") in partition $PARTITION ($(elapsed "$t0") s); env in $ENV_FILE"
}

# wait_nodes_usable COUNT RESUME(0|1) [NODE=STATE...]: wait until every node registered (or
# is powered down); with RESUME, power up the NODEs given (powered down when `up` began) and
# resume every node the scheduler would not use, then wait until all of them are usable.
wait_nodes_usable() {
    local count="$1" resume="$2" pair name state listed
    local -a unusable=()
    shift 2
    if ! wait_for "$UP_TIMEOUT" "nodes to register" nodes_registered_or_powered_down "$count"; then
        sinfo -N >&2 || true
        die "not all nodes registered within ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log and $LOGDIR/slurmd-<node>.log"
    fi
    [ "$resume" -eq 1 ] || return 0
    if [ "$#" -gt 0 ]; then
        for pair in "$@"; do
            name="${pair%%=*}"
            log "powering up $name (was ${pair#*=})"
            sc update nodename="$name" state=power_up || warn "could not power up $name"
        done
        if ! wait_for "$UP_TIMEOUT" "nodes to power up" nodes_responding "$count"; then
            sinfo -N >&2 || true
            die "not all nodes powered up within ${UP_TIMEOUT}s: see $LOGDIR/fake-power.log and $LOGDIR/slurmctld.log"
        fi
    fi
    if listed="$(nodes_query --schedulable=false)"; then
        while read -r name state _; do
            [[ "$name" =~ ^node[0-9]+$ ]] || continue
            unusable+=("$name")
            log "resuming $name (was $state)"
            sc update nodename="$name" state=resume || warn "could not resume $name"
        done <<<"$listed"
        # The query just found every node usable: the wait below would pass at once.
        [ "${#unusable[@]}" -gt 0 ] || return 0
    fi
    if ! wait_for "$UP_TIMEOUT" "nodes to become usable" nodes_schedulable "$count"; then
        sinfo -N >&2 || true
        die "not all nodes usable within ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log"
    fi
}

# cluster_down PURGE(0|1)
# wipe_jobs_and_state: `up --fresh`. Daemons stopped first (their jobs cancelled where slurmctld
# still answers); state saved by a slurmctld that is not running would otherwise be recovered,
# and its jobs run again, by the next one.
wipe_jobs_and_state() {
    [ -d "$DIR" ] || return 0
    [ -f "$MARKER" ] || die "refusing to wipe $DIR: it has no $MARKER"
    stop_cluster_daemons
    rm -rf "${CTLD_STATE:?}" "${SPOOL:?}"
    find "$JOBS" -mindepth 1 -delete 2>/dev/null || true
    log "fresh start: slurmctld state, slurmd spool and job files wiped"
}

cluster_down() {
    local purge="$1"
    agents_down
    if [ -f "$CONF" ]; then
        stop_cluster_daemons
    fi
    stop_accounting
    stop_munge_if_ours
    restore_all_networks
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

# set_seconds_in_place COMMAND PARAMETER SECONDS [ENV_KEY] (validated by the caller): writes
# PARAMETER=SECONDS into slurm.conf (and ENV_KEY into cluster.env), reconfigures, and waits until
# slurmctld reports the new value. COMMAND names the caller in errors.
set_seconds_in_place() {
    local cmd="$1" name="$2" seconds="$3" env_key="${4:-}" deadline current
    [ -f "$CONF" ] || die "$cmd: no cluster configured ($CONF missing); run 'up' first"
    ctld_up || die "$cmd: slurmctld does not answer; run 'up' first"
    sed "s/^$name=.*/$name=$seconds/" "$CONF" >"$CONF.tmp"
    chmod 0644 "$CONF.tmp"
    mv -f "$CONF.tmp" "$CONF"
    if [ -n "$env_key" ] && [ -f "$ENV_FILE" ]; then
        sed "s/^$env_key=.*/$env_key=$seconds/" "$ENV_FILE" >"$ENV_FILE.tmp"
        chmod 0644 "$ENV_FILE.tmp"
        mv -f "$ENV_FILE.tmp" "$ENV_FILE"
    fi
    sc reconfigure || die "$cmd: scontrol reconfigure failed"
    deadline=$(( $(date +%s) + 30 ))
    while :; do
        current="$(sc show config 2>/dev/null | awk -F' *= *' -v n="$name" '$1 == n { print $2 }')"
        [ "$current" = "$seconds sec" ] && break
        [ "$(date +%s)" -lt "$deadline" ] || die "$cmd: slurmctld still reports $name '$current' after 30 s"
        sleep 0.2
    done
    log "$name is now $seconds s"
}
