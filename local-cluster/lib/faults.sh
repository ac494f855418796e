# shellcheck shell=bash
# Sourced by local-cluster.sh: fault injection. kill-node makes a node die the way a crashed
# machine does (its slurmd, slurmstepd and tasks all at once); revive-node brings it back with
# the same hostname, as a replacement instance would.

# node_processes NODE: fills NODE_PROCS (pid -> what it is) with everything that runs as NODE:
# the tasks of its job steps, its slurmstepds and what they forked, its slurmd and its children.
declare -gA NODE_PROCS=()
node_processes() {
    local node="$1" job pid ppid
    NODE_PROCS=()
    local -a stepds=()
    # 1. Task pids of each job step, asked from the node's slurmd while it still answers.
    if ctld_up; then
        for job in $(timeout 20 squeue -h -w "$node" -t R,CG,S,CF -o %A 2>/dev/null || true); do
            [[ "$job" =~ ^[0-9_]+$ ]] || continue
            while read -r pid _; do
                [[ "$pid" =~ ^[0-9]+$ ]] || continue
                NODE_PROCS[$pid]="task of job $job"
                ppid="$(proc_ppid "$pid")"
                if [ -n "$ppid" ] && [ "$(proc_comm "$ppid")" = "slurmstepd" ]; then
                    NODE_PROCS[$ppid]="slurmstepd of job $job"
                fi
            done < <(timeout 10 scontrol listpids "$job" "$node" 2>/dev/null || true)
        done
    else
        warn "slurmctld does not answer: finding $node's processes by spool sockets only"
    fi
    # 2. Every slurmstepd of the node (found by its socket in the node's spool dir) and
    #    every process below them.
    mapfile -t stepds < <(stepd_pids "$node")
    for pid in "${stepds[@]}"; do NODE_PROCS[$pid]="slurmstepd"; done
    if [ "${#stepds[@]}" -gt 0 ]; then
        for pid in $(descendants "${stepds[@]}"); do
            [ -n "${NODE_PROCS[$pid]:-}" ] || NODE_PROCS[$pid]="step process"
        done
    fi
    # 3. The node's slurmd and whatever it forked.
    for pid in $(slurmd_pids "$node"); do
        NODE_PROCS[$pid]="slurmd"
        for ppid in $(descendants "$pid"); do NODE_PROCS[$ppid]="child of slurmd"; done
    done
}

# node_agent_pids NODE: the autoresume agents bound to NODE (`autoresume agent ... --node NODE`).
node_agent_pids() {
    local node="$1" proc pid
    local -a args
    for proc in /proc/[0-9]*; do
        pid="${proc#/proc/}"
        mapfile -t args < <(proc_args "$pid")
        local i is_agent=0 bound=0
        for ((i = 0; i < ${#args[@]}; i++)); do
            [ "${args[$i]}" = "agent" ] && is_agent=1
            if [ "${args[$i]}" = "--node" ] && [ "${args[$((i + 1))]:-}" = "$node" ]; then bound=1; fi
            [ "${args[$i]}" = "--node=$node" ] && bound=1
        done
        [ "$is_agent" -eq 1 ] && [ "$bound" -eq 1 ] && echo "$pid"
    done
    return 0
}

# kill_node NODE (validated by the caller): the node's processes and its bound agent, at once.
kill_node() {
    local node="$1" pid t0
    t0="$(now)"
    node_processes "$node"
    for pid in $(node_agent_pids "$node"); do NODE_PROCS[$pid]="autoresume agent"; done
    local -a all=()
    for pid in "${!NODE_PROCS[@]}"; do
        pid_alive "$pid" && all+=("$pid")
    done
    if [ "${#all[@]}" -eq 0 ]; then
        log "$node: nothing to kill (its slurmd is not running)"
        return 0
    fi
    local -a lines=()
    for pid in "${all[@]}"; do lines+=("$(printf '  %-22s %s' "${NODE_PROCS[$pid]}" "$(proc_desc "$pid")")"); done
    kill -STOP "${all[@]}" 2>/dev/null || true
    kill -KILL "${all[@]}" 2>/dev/null || true
    wait_for 10 "killed processes to vanish" all_dead "${all[@]}" \
        || warn "some killed processes still exist: ${all[*]}"
    log "killed $node at $(date '+%FT%T') ($(elapsed "$t0") s): ${#all[@]} processes"
    printf '%s\n' "${lines[@]}"
}

# freeze_node NODE (validated by the caller): every process of NODE, its agent included, is
# stopped (SIGSTOP) and stays: a hung machine whose kernel still completes TCP handshakes.
# The pids go to $DIR/frozen/NODE for thaw_node.
freeze_node() {
    local node="$1" pid t0 dir="$DIR/frozen"
    t0="$(now)"
    [ ! -s "$dir/$node" ] || die "$node is frozen already (thaw-node $node first)"
    node_processes "$node"
    for pid in $(node_agent_pids "$node"); do NODE_PROCS[$pid]="autoresume agent"; done
    local -a all=()
    for pid in "${!NODE_PROCS[@]}"; do
        pid_alive "$pid" && all+=("$pid")
    done
    [ "${#all[@]}" -gt 0 ] || die "$node: nothing to freeze (its slurmd is not running)"
    install -d -m 0700 -o root -g root "$dir"
    printf '%s\n' "${all[@]}" >"$dir/$node"
    kill -STOP "${all[@]}" 2>/dev/null || true
    log "froze $node at $(date '+%FT%T') ($(elapsed "$t0") s): ${#all[@]} processes"
    for pid in "${all[@]}"; do printf '  %-22s %s\n' "${NODE_PROCS[$pid]}" "$(proc_desc "$pid")"; done
}

# freeze_slurmd NODE (validated by the caller): NODE's slurmd alone is stopped (SIGSTOP): a
# hung slurmd on a live node. Its port still accepts connections and answers nothing; the
# running steps (their slurmstepds and tasks), the node's agent and the rest go on. The pid goes
# to $DIR/frozen/NODE, so thaw-node continues it.
freeze_slurmd() {
    local node="$1" dir="$DIR/frozen"
    local -a pids=()
    [ ! -s "$dir/$node" ] || die "$node is frozen already (thaw-node $node first)"
    mapfile -t pids < <(slurmd_pids "$node")
    [ "${#pids[@]}" -gt 0 ] || die "$node: its slurmd is not running"
    install -d -m 0700 -o root -g root "$dir"
    printf '%s\n' "${pids[@]}" >"$dir/$node"
    kill -STOP "${pids[@]}" 2>/dev/null || true
    log "froze the slurmd of $node at $(date '+%FT%T'): ${pids[*]}"
}

# step_task_pids JOB NODE: the pids of JOB's numbered steps' tasks on NODE, one a line (not the
# batch script, not the extern step), as that node's slurmd lists them.
step_task_pids() {
    local job="$1" node="$2" pid step
    while read -r pid _ step _; do
        [[ "$pid" =~ ^[0-9]+$ && "$step" =~ ^[0-9]+$ ]] && echo "$pid"
    done < <(timeout 10 scontrol listpids "$job" "$node" 2>/dev/null || true)
    return 0
}

# hang_step JOB (validated by the caller): the tasks of every step of JOB (not its batch script,
# not its extern step), on every node of the job, are stopped with SIGSTOP: a training run whose
# ranks all wait in a collective that never completes. The nodes and daemons stay up.
hang_step() {
    local job="$1" node
    local -a tasks=()
    for node in $(timeout 20 squeue -h -j "$job" -t R -o %N 2>/dev/null | xargs -r scontrol show hostnames 2>/dev/null || true); do
        validate_node "$node"
        mapfile -t -O "${#tasks[@]}" tasks < <(step_task_pids "$job" "$node")
    done
    [ "${#tasks[@]}" -gt 0 ] || die "hang-step: no step task of job $job runs"
    kill -STOP "${tasks[@]}" 2>/dev/null || true
    echo "hang-step: stopped ${#tasks[@]} task process(es) of job $job: ${tasks[*]}"
}

# thaw_node NODE: SIGCONT to what freeze_node stopped.
thaw_node() {
    local node="$1" file="$DIR/frozen/$1" pid
    local -a all=()
    [ -s "$file" ] || { log "$node is not frozen"; return 0; }
    while read -r pid; do
        [[ "$pid" =~ ^[0-9]+$ ]] && pid_alive "$pid" && all+=("$pid")
    done <"$file"
    [ "${#all[@]}" -eq 0 ] || kill -CONT "${all[@]}" 2>/dev/null || true
    rm -f "$file"
    log "thawed $node: ${#all[@]} processes continued"
}

# --- Network cuts ---------------------------------------------------------------------------
# Each simulated node has its own loopback address (127.0.0.K, its NodeAddr): everything sent to
# it (slurmctld's pings and RPCs, srun's step launches, the supervisors' and agents' probes of
# its slurmd and agent ports) arrives through the input hook with that destination, and every
# answer a process of the node sends from it carries that source. A cut drops both, silently,
# as a failed switch port or cable does: connections to the node time out (they are not
# refused), established ones stall. What the node's processes send to the others' addresses
# (127.0.0.1 for slurmctld) leaves from 127.0.0.1 on a shared loopback and still goes through,
# so a cut node can still talk out: the cut is of the node's own address, not of the machine.
# One nftables table per cut node, so restoring one leaves the others cut.
net_cut_table() {
    printf 'autoresume_cut_%s\n' "$1"
}

# node_address NODE: NODE's NodeAddr in the running configuration (127.0.0.K).
node_address() {
    local addr
    addr="$(sed -n "s/^NodeName=$1 .*NodeAddr=\([0-9.]*\) .*/\1/p" "$CONF" | head -n 1)"
    [[ "$addr" =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "$1 has no loopback NodeAddr of its own in $CONF: '$addr'"
    [ "$addr" != 127.0.0.1 ] || die "$1 shares 127.0.0.1 with slurmctld: cutting it would cut the controller"
    printf '%s\n' "$addr"
}

# cut_network NODE (validated by the caller)
cut_network() {
    local node="$1" addr table
    addr="$(node_address "$node")"
    table="$(net_cut_table "$node")"
    command -v nft >/dev/null || die "cut-network needs nft (apt-get install nftables)"
    if nft list table inet "$table" >/dev/null 2>&1; then
        log "$node ($addr) is cut off already"
        return 0
    fi
    nft -f - <<NFT || die "nft refused the cut of $node (is nf_tables available in this kernel?)"
table inet $table {
    chain input {
        type filter hook input priority -10; policy accept;
        ip daddr $addr drop
        ip saddr $addr drop
    }
}
NFT
    log "cut $node off the network at $(date '+%FT%T'): every packet to or from $addr is dropped"
}

# restore_network NODE (validated by the caller)
restore_network() {
    local node="$1" table
    table="$(net_cut_table "$node")"
    if ! command -v nft >/dev/null || ! nft list table inet "$table" >/dev/null 2>&1; then
        log "$node is not cut off"
        return 0
    fi
    nft delete table inet "$table"
    log "restored $node's network at $(date '+%FT%T')"
}

# restore_all_networks: what up and down do, so that no cut outlives the cluster it was made on.
restore_all_networks() {
    local table
    command -v nft >/dev/null || return 0
    for table in $(nft list tables inet 2>/dev/null | sed -n 's/^table inet \(autoresume_cut_node[0-9]*\)$/\1/p'); do
        nft delete table inet "$table" && log "removed the network cut $table"
    done
    return 0
}

# revive_node NODE FRESH(0|1) BOOT(0|1) TIMEOUT_S (validated by the caller)
revive_node() {
    local node="$1" fresh="$2" boot="$3" timeout="$4" since t0
    t0="$(now)"
    if slurmd_running "$node"; then
        log "$node: slurmd already running (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//'))"
        return 0
    fi
    ctld_up || die "slurmctld does not answer: run 'up' (see $LOGDIR/slurmctld.log)"
    # slurmctld keeps SlurmdStartTime to the second: the new slurmd's is not older than this.
    since="$(date '+%FT%T')"
    if [ "$fresh" -eq 1 ]; then
        rm -rf "${SPOOL:?}/$node"
        log "$node: wiped spool $SPOOL/$node"
        clear_gpu_faults "$node" 0
    elif [ "$boot" -eq 1 ]; then
        clear_gpu_faults "$node" 1
    fi
    if [ "$boot" -eq 1 ]; then start_slurmd "$node" -b; else start_slurmd "$node"; fi
    log "$node: started slurmd (pid $(slurmd_pids "$node" | tr '\n' ' ' | sed 's/ $//')), waiting for registration"
    if ! wait_for "$timeout" "registration" node_responding_since "$node" "$since"; then
        die "$node did not register within ${timeout}s (State=$(node_state "$node")): see $LOGDIR/slurmd-$node.log and $LOGDIR/slurmctld.log"
    fi
    log "$node: registered after $(elapsed "$t0") s, SlurmdStartTime=$REGISTERED_START_TIME State=$REGISTERED_STATE"
}

# Each simulated node's kernel log: a file of /dev/kmsg-format records that only root writes,
# which a per-node agent follows with --xid-source (all nodes share this machine's real kernel).
node_kernel_log() {
    local node="$1" dir="$DIR/kmsg"
    if [ ! -d "$dir" ]; then
        install -d -m 0755 -o root -g root "$dir"
    fi
    if [ ! -f "$dir/$node" ]; then
        install -m 0644 -o root -g root /dev/null "$dir/$node"
    fi
    printf '%s\n' "$dir/$node"
}

# gpu_fault NODE XID ADDR (validated by the caller): the NVIDIA driver's report of Xid XID on the
# GPU at PCI address ADDR, as a kernel record (facility 0, level 3) in NODE's kernel log.
gpu_fault() {
    local node="$1" xid="$2" addr="$3" log seq usec text
    log="$(node_kernel_log "$node")"
    seq="$(wc -l <"$log")"
    usec="$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)"
    case "$xid" in
        79) text="GPU has fallen off the bus." ;;
        48) text="An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer." ;;
        64) text="Row Remapper Error: All reserved rows for bank are remapped" ;;
        13) text="Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address" ;;
        *) text="injected by local-cluster.sh" ;;
    esac
    printf '3,%s,%s,-;NVRM: Xid (PCI:%s): %s, pid='"'"'<unknown>'"'"', name=<unknown>, %s\n' \
        "$seq" "$usec" "$addr" "$xid" "$text" >>"$log"
    if [ -d "$GPU_SIM_DIR/$node" ]; then
        printf '%s %s\n' "$addr" "$xid" >>"$(node_gpu_faults "$node")"
    fi
    echo "gpu-fault: Xid $xid on GPU PCI:$addr of $node, written to $log (record $seq) and to its stand-in nvidia-smi"
}

# crash_task NODE SIGNAL (validated by the caller): the tasks of every job step (not the batch
# script, not the extern step) on NODE die of SIGNAL while the node, its slurmd and slurmstepd
# stay up: what a CUDA error after a GPU fault does to a training process.
crash_task() {
    local node="$1" signal="$2" only="${3:-}" job jobs
    local -a tasks=()
    # With a job named, its pids come from the node's slurmd alone: no slurmctld needed.
    if [ -n "$only" ]; then jobs="$only"; else jobs="$(timeout 20 squeue -h -w "$node" -t R -o %A 2>/dev/null || true)"; fi
    for job in $jobs; do
        [[ "$job" =~ ^[0-9_]+$ ]] || continue
        mapfile -t -O "${#tasks[@]}" tasks < <(step_task_pids "$job" "$node")
    done
    [ "${#tasks[@]}" -gt 0 ] || die "crash-task: no step task runs on $node"
    kill -s "$signal" "${tasks[@]}" 2>/dev/null || true
    echo "crash-task: sent SIG$signal to ${#tasks[@]} task process(es) on $node: ${tasks[*]}"
}
