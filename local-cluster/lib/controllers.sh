# shellcheck shell=bash
# Sourced by local-cluster.sh: the backup controller (`up --backup-controller`) and the control
# plane outages fault injection makes: stop-controller, start-controller, fail-over, stop-dbd,
# start-dbd.
#
# Slurm tells a primary slurmctld from a backup only by its hostname (gethostname, matched against
# the SlurmctldHost lines: controller.c _controller_index), and every controller listens on the
# same SlurmctldPort. So with a backup each slurmctld runs in its own UTS and mount namespace: its
# own hostname, an /etc/hosts that resolves that name to its own loopback address, which
# CommunicationParameters=NoCtldInAddrAny makes it bind instead of INADDR_ANY, and its own
# directory behind SlurmctldPidFile (a starting slurmctld SIGTERMs the pid it finds in that file:
# controller.c _kill_old_slurmctld; two sharing one would kill each other).

PRIMARY_CTLD_HOST="arctld1"
PRIMARY_CTLD_ADDR="127.0.0.1"
BACKUP_CTLD_HOST="arctld2"
BACKUP_CTLD_ADDR="127.0.2.2" # away from the nodes' 127.0.0.K
CTLD_HOSTS_FILE="$ETC/controller-hosts"
CTLD_PID_DIR="$RUN/ctld" # SlurmctldPidFile's directory as each controller sees it
BACKUP_CTLD_LOG="$LOGDIR/slurmctld-backup.log"

backup_configured() { [ -r "$CONF" ] && [ "$(grep -c '^SlurmctldHost=' "$CONF")" -gt 1 ]; }

# ctld_conf BACKUP(0|1) HOST: the controller lines of slurm.conf.
ctld_conf() {
    if [ "$1" -eq 0 ]; then
        printf 'SlurmctldHost=%s(127.0.0.1)\n' "$2"
        return 0
    fi
    cat <<CONF
SlurmctldHost=$PRIMARY_CTLD_HOST($PRIMARY_CTLD_ADDR)
SlurmctldHost=$BACKUP_CTLD_HOST($BACKUP_CTLD_ADDR)
CommunicationParameters=NoCtldInAddrAny
CONF
}

ctld_pidfile() { if [ "$1" -eq 0 ]; then echo "$RUN/slurmctld.pid"; else echo "$CTLD_PID_DIR/slurmctld.pid"; fi; }

# ctld_role_pids primary|backup: the backup is the slurmctld started with its own log (-L).
ctld_role_pids() {
    local role="$1" pid is_backup
    for pid in $(ctld_pids); do
        is_backup=0
        proc_args "$pid" | grep -qxF "$BACKUP_CTLD_LOG" && is_backup=1
        if { [ "$role" = backup ] && [ "$is_backup" -eq 1 ]; } || { [ "$role" = primary ] && [ "$is_backup" -eq 0 ]; }; then
            echo "$pid"
        fi
    done
    return 0
}

# ctld_ping_state primary|backup: UP or DOWN as `scontrol ping` reports that controller. A backup
# in standby answers pings too: only ctld_in_control tells who serves requests.
ctld_ping_state() {
    timeout 10 scontrol ping 2>/dev/null | awk -v role="$1" '
        index($0, "Slurmctld(" role ")") == 1 { print $NF; found = 1 } END { if (!found) print "DOWN" }'
}

# ctld_in_control: a controller serves requests. With a backup configured, a client whose
# controllers are all in standby sleeps SlurmctldTimeout/2 and asks again
# (slurm_send_recv_controller_msg), so a bounded real request is the test, not a ping.
ctld_in_control() { timeout 5 scontrol -o show partition >/dev/null 2>&1; }

primary_in_control() {
    [ -n "$(ctld_role_pids primary)" ] && [ "$(ctld_ping_state primary)" = UP ] && ctld_in_control
}

# backup_in_control: no primary runs, so a request answered came from the backup.
backup_in_control() {
    [ -z "$(ctld_role_pids primary)" ] && [ -n "$(ctld_role_pids backup)" ] && ctld_in_control
}

backup_standing_by() { [ "$(ctld_ping_state backup)" = UP ]; }

write_ctld_hosts() {
    local tmp="$CTLD_HOSTS_FILE.tmp"
    {
        cat /etc/hosts
        printf '%s %s\n%s %s\n' "$PRIMARY_CTLD_ADDR" "$PRIMARY_CTLD_HOST" "$BACKUP_CTLD_ADDR" "$BACKUP_CTLD_HOST"
    } >"$tmp"
    chmod 0644 "$tmp"
    mv -f "$tmp" "$CTLD_HOSTS_FILE"
}

# ctld_listener ADDR: the process listening on SlurmctldPort at ADDR or on every address.
ctld_listener() {
    ss -Hltnp "sport = :$CTLD_PORT" 2>/dev/null | awk -v a="$1:$CTLD_PORT" -v p=":$CTLD_PORT" '
        $4 == a || $4 == "0.0.0.0" p || $4 == "*" p || $4 == "[::]" p { print; exit }'
}

# start_ctld_role primary|backup: one controller in its own namespaces (see the top of this file).
start_ctld_role() {
    local role="$1" host addr log owner
    if [ "$role" = primary ]; then
        host="$PRIMARY_CTLD_HOST" addr="$PRIMARY_CTLD_ADDR" log="$LOGDIR/slurmctld.log"
    else
        host="$BACKUP_CTLD_HOST" addr="$BACKUP_CTLD_ADDR" log="$BACKUP_CTLD_LOG"
    fi
    [ -z "$(ctld_role_pids "$role")" ] || return 0
    # A release in the rootfs: its slurmctld resolves names through the rootfs's /etc/hosts, in
    # the chroot that rootfs-run makes inside these namespaces, which inherits their mounts.
    local hosts_at=/etc/hosts
    [ "$RELEASE" = 22.05 ] || hosts_at="$ROOTFS_DIR/etc/hosts"
    owner="$(ctld_listener "$addr")"
    [ -z "$owner" ] || die "port $CTLD_PORT (SlurmctldPort) on $addr is taken: $owner"
    write_ctld_hosts
    mkdir -p "$CTLD_PID_DIR" "$RUN/ctld-$role"
    rm -f "$RUN/ctld-$role/slurmctld.pid"
    # A fixed script; the values reach it as arguments.
    # shellcheck disable=SC2016
    clean_exec unshare --uts --mount -- /bin/sh -c 'set -e
        hostname "$1"; mount --bind "$2" "$3"; mount --bind "$4" "$5"; shift 5; exec "$@"' \
        ctld-ns "$host" "$CTLD_HOSTS_FILE" "$hosts_at" "$RUN/ctld-$role" "$CTLD_PID_DIR" slurmctld -f "$CONF" -L "$log" \
        </dev/null >>"$LOGDIR/slurmctld-$role.out" 2>&1 \
        || die "slurmctld ($role) failed to start: see $log and $LOGDIR/slurmctld-$role.out"
}

# save_ctld_state_now: Slurm 26.05's slurmctld stops at start ("fatal: No Assoc usage file
# (.../assoc_usage) to recover") when StateSaveLocation holds state but no assoc_usage, which a
# primary killed before its first periodic save leaves behind: the backup's takeover and the
# primary's next start then both fail (24.11 went on without it). A reconfigure, a restart
# through a full state save since 24.05, writes it at once. Other releases start as before.
save_ctld_state_now() {
    [ "$RELEASE" = 26.05 ] && [ ! -e "$CTLD_STATE/assoc_usage" ] || return 0
    scontrol reconfigure >/dev/null 2>&1 || { warn "scontrol reconfigure failed: the state is saved later"; return 0; }
    wait_for 20 "slurmctld's saved state" test -e "$CTLD_STATE/assoc_usage" \
        || warn "slurmctld wrote no $CTLD_STATE/assoc_usage on reconfigure"
    wait_for "$UP_TIMEOUT" "primary slurmctld" primary_in_control \
        || die "the primary slurmctld does not serve requests after its reconfigure: see $LOGDIR/slurmctld.log"
}

# start_controllers: the primary (until it serves requests), then the backup (until it answers
# pings in standby).
start_controllers() {
    local t0
    t0="$(now)"
    if [ -z "$(ctld_role_pids primary)" ]; then
        start_ctld_role primary
        wait_for "$UP_TIMEOUT" "primary slurmctld" primary_in_control \
            || die "the primary slurmctld does not serve requests after ${UP_TIMEOUT}s: see $LOGDIR/slurmctld.log"
        save_ctld_state_now
        log "started the primary slurmctld $PRIMARY_CTLD_HOST ($PRIMARY_CTLD_ADDR:$CTLD_PORT, pid $(ctld_role_pids primary | tr '\n' ' ' | sed 's/ $//'), $(elapsed "$t0") s)"
    fi
    if [ -z "$(ctld_role_pids backup)" ]; then
        start_ctld_role backup
        wait_for "$UP_TIMEOUT" "backup slurmctld" backup_standing_by \
            || die "the backup slurmctld does not answer pings after ${UP_TIMEOUT}s: see $BACKUP_CTLD_LOG"
        log "started the backup slurmctld $BACKUP_CTLD_HOST ($BACKUP_CTLD_ADDR:$CTLD_PORT, pid $(ctld_role_pids backup | tr '\n' ' ' | sed 's/ $//'))"
    fi
}

slurmctld_timeout() { sed -n 's/^SlurmctldTimeout=\([0-9]*\)$/\1/p' "$CONF" | head -n1; }

# stop_controller primary|backup: SIGTERM, so slurmctld saves its state, and wait for the exit.
stop_controller() {
    local role="$1" pids t0
    t0="$(now)"
    [ -f "$CONF" ] || die "stop-controller: no cluster configured in $DIR"
    if [ "$role" = backup ] && ! backup_configured; then die "stop-controller --backup: no backup controller configured (up --backup-controller)"; fi
    pids="$(ctld_role_pids "$role" | tr '\n' ' ' | sed 's/ $//')"
    if [ -z "$pids" ]; then
        log "stop-controller: the $role slurmctld is not running"
        return 0
    fi
    # shellcheck disable=SC2086
    stop_pids 30 "slurmctld ($role)" $pids
    log "stop-controller: stopped the $role slurmctld (pid $pids, state saved) at $(date '+%FT%T') ($(elapsed "$t0") s)"
    if [ "$role" = primary ] && backup_configured && [ -n "$(ctld_role_pids backup)" ]; then
        log "stop-controller: the backup takes over after SlurmctldTimeout=$(slurmctld_timeout)s"
    fi
}

# start_controller primary|backup TIMEOUT_S: start it with its saved state and wait until it
# answers: the primary until it serves requests (a backup in control hands control back), the
# backup until it answers pings (standby, or in control when no primary runs).
start_controller() {
    local role="$1" timeout="$2" t0
    t0="$(now)"
    [ -f "$CONF" ] || die "start-controller: no cluster configured in $DIR (run 'up')"
    if [ "$role" = backup ] && ! backup_configured; then die "start-controller --backup: no backup controller configured (up --backup-controller)"; fi
    if [ -n "$(ctld_role_pids "$role")" ]; then
        log "start-controller: the $role slurmctld runs already (pid $(ctld_role_pids "$role" | tr '\n' ' ' | sed 's/ $//'))"
        return 0
    fi
    if ! backup_configured; then
        start_ctld
    elif [ "$role" = primary ]; then
        start_ctld_role primary
        wait_for "$timeout" "primary slurmctld" primary_in_control \
            || die "start-controller: the primary slurmctld does not serve requests after ${timeout}s: see $LOGDIR/slurmctld.log"
        [ -z "$(ctld_role_pids backup)" ] || backup_back_in_standby "$timeout"
    else
        start_ctld_role backup
        wait_for "$timeout" "backup slurmctld" backup_standing_by \
            || die "start-controller: the backup slurmctld does not answer after ${timeout}s: see $BACKUP_CTLD_LOG"
    fi
    log "start-controller: the $role slurmctld (pid $(ctld_role_pids "$role" | tr '\n' ' ' | sed 's/ $//')) answers, $(elapsed "$t0") s after its start"
}

# backup_back_in_standby TIMEOUT_S: after the primary took control back, the backup returns to
# standby. Slurm 22.05's backup sometimes never does: having saved its state it waits forever in
# sched_g_fini for the scheduler thread ("REQUEST_CONTROL reply but backup not completely done
# relinquishing control", then silence; docs/slurm-behaviour.md), answering no ping. Such a backup
# is killed and started again, as an administrator would restart it.
backup_back_in_standby() {
    local timeout="$1" pids
    # The primary waits CONTROL_TIMEOUT (30 s) for the hand-back; give the backup a little more.
    wait_for 45 "the backup slurmctld to return to standby" backup_standing_by && return 0
    pids="$(ctld_role_pids backup | tr '\n' ' ' | sed 's/ $//')"
    warn "start-controller: the backup slurmctld (pid $pids) hangs after handing control back (22.05, sched_g_fini): restarting it"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    # shellcheck disable=SC2086
    wait_for 10 "the hung backup to vanish" all_dead $pids || die "start-controller: the backup slurmctld ($pids) survived SIGKILL"
    start_ctld_role backup
    wait_for "$timeout" "backup slurmctld" backup_standing_by \
        || die "start-controller: the restarted backup slurmctld does not answer after ${timeout}s: see $BACKUP_CTLD_LOG"
}

# fail_over TIMEOUT_S: the primary dies at once (SIGKILL, no state saved on the way out) and the
# backup, after SlurmctldTimeout without an answer from it, takes over from the saved state.
fail_over() {
    local timeout="$1" pids t0
    backup_configured || die "fail-over: no backup controller configured (up --backup-controller)"
    [ -n "$(ctld_role_pids backup)" ] || die "fail-over: the backup slurmctld is not running (start-controller --backup)"
    pids="$(ctld_role_pids primary | tr '\n' ' ' | sed 's/ $//')"
    [ -n "$pids" ] || die "fail-over: the primary slurmctld is not running"
    t0="$(now)"
    # shellcheck disable=SC2086
    kill -KILL $pids
    # shellcheck disable=SC2086
    wait_for 10 "the primary slurmctld to vanish" all_dead $pids || die "fail-over: the primary slurmctld ($pids) survived SIGKILL"
    log "fail-over: killed the primary slurmctld (pid $pids) at $(date '+%FT%T')"
    wait_for "$timeout" "the backup to take over" backup_in_control \
        || die "fail-over: the backup slurmctld did not take over within ${timeout}s: see $BACKUP_CTLD_LOG"
    log "fail-over: the backup slurmctld $BACKUP_CTLD_HOST serves requests, $(elapsed "$t0") s after the kill (SlurmctldTimeout=$(slurmctld_timeout)s)"
}

# stop_dbd: slurmdbd stops (its MariaDB keeps running): accounting is unavailable.
stop_dbd() {
    local pid t0
    t0="$(now)"
    conf_has_accounting || die "stop-dbd: this cluster keeps no accounting (up without --no-accounting)"
    pid="$(dbd_pid)"
    if [ -z "$pid" ]; then
        log "stop-dbd: slurmdbd is not running"
        return 0
    fi
    stop_pids 20 slurmdbd "$pid"
    log "stop-dbd: stopped slurmdbd (pid $pid) at $(date '+%FT%T') ($(elapsed "$t0") s)"
}

# start_dbd: slurmdbd (and MariaDB if it stopped) starts and answers sacctmgr.
start_dbd() {
    local t0
    t0="$(now)"
    conf_has_accounting || die "start-dbd: this cluster keeps no accounting (up without --no-accounting)"
    if [ -n "$(dbd_pid)" ]; then
        log "start-dbd: slurmdbd runs already (pid $(dbd_pid))"
        return 0
    fi
    start_accounting
    log "start-dbd: slurmdbd (pid $(dbd_pid)) answers, $(elapsed "$t0") s after its start"
}

# controller_status_lines: one line per controller; status 3 when one is missing.
controller_status_lines() {
    local role pids ok=0 state
    for role in primary backup; do
        pids="$(ctld_role_pids "$role" | tr '\n' ' ' | sed 's/ $//')"
        if [ -z "$pids" ]; then
            printf '%-12s DOWN (%s)\n' "slurmctld" "$role"; ok=3; continue
        fi
        state="$(ctld_ping_state "$role")"
        if [ "$state" = UP ]; then
            printf '%-12s running  pid %s (%s, %s)\n' slurmctld "$pids" "$role" "$([ "$role" = primary ] && echo "$PRIMARY_CTLD_HOST $PRIMARY_CTLD_ADDR" || echo "$BACKUP_CTLD_HOST $BACKUP_CTLD_ADDR")"
        else
            printf '%-12s NOT ANSWERING pid %s (%s)\n' slurmctld "$pids" "$role"; ok=3
        fi
    done
    return "$ok"
}
