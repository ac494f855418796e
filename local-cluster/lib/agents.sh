# shellcheck shell=bash disable=SC2153 # RUN, LOGDIR and the other paths come from common.sh
# Sourced by local-cluster.sh: one `autoresume agent` per node, bound to it, as production runs
# one per machine (`up --agents`). Each watches its own node (its kernel-log file for Xids, its
# stand-in nvidia-smi and dcgmi on the GPU shape, its slurmd) and answers other nodes' liveness
# probes and fresh-check requests on its node's address; `kill-node` kills it with the node and
# `revive-node` starts it again. The tests start agents of their own (on the same ports), so
# an `up` without --agents stops these.

# agent_dir NODE: its socket and pid file.
agent_dir() { printf '%s\n' "$RUN/agents/$1"; }

# agent_pid NODE: the pid of the agent `up --agents` started for NODE, when it still runs
# (the pid file's process, checked by its command line: a recycled pid is not it).
agent_pid() {
    local node="$1" pid cmdline
    pid="$(cat "$(agent_dir "$node")/agent.pid" 2>/dev/null)" || return 0
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    cmdline="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || return 0
    [[ "$cmdline" == *" agent "*"--node $node "* ]] && printf '%s\n' "$pid"
    return 0
}

# agent_up NODE SHAPE: start NODE's agent unless it runs; wait until its socket is there.
agent_up() {
    local node="$1" shape="$2" dir pid
    local -a args
    dir="$(agent_dir "$node")"
    if [ -n "$(agent_pid "$node")" ]; then
        return 0
    fi
    [ -x "$AUTORESUME" ] || die "--agents: $AUTORESUME is missing: build the toolkit first (mvn -B -ntp -q package -DskipTests)"
    install -d -m 0755 "$RUN/agents" "$dir"
    rm -f "$dir/agent.sock"
    # The lemon rule off: the tests mark these nodes many times a day, and a node would soon be held
    # for good instead of resumed. LemonIT turns it on for its own agent.
    printf 'lemonMarks: 0\n' >"$STATE/lemon-off.yaml"
    args=(agent --node "$node" --socket "$dir/agent.sock" --state-dir "$STATE/agent-$node"
          --audit-log "$LOGDIR/agent-$node-audit.log" --xid-source "$(node_kernel_log "$node")"
          --lemon-policy "$STATE/lemon-off.yaml")
    if [ "$shape" = gpu ]; then
        args+=(--gpu-tools "$(node_gpu_tools "$node")")
    fi
    setsid "$AUTORESUME" "${args[@]}" </dev/null >>"$LOGDIR/agent-$node.log" 2>&1 &
    pid=$!
    printf '%s\n' "$pid" >"$dir/agent.pid"
    if ! wait_for 30 "agent of $node" test -S "$dir/agent.sock"; then
        die "the agent of $node did not start in 30 s: $LOGDIR/agent-$node.log"
    fi
    log "started the agent of $node (pid $pid, socket $dir/agent.sock)"
}

# agents_up COUNT SHAPE: every node's agent (node1..nodeCOUNT).
agents_up() {
    local node
    for node in $(node_list "$1"); do
        agent_up "$node" "$2"
    done
}

# agents_down: stop every agent `up --agents` started (SIGTERM: each removes its socket).
agents_down() {
    local dir node pid
    for dir in "$RUN"/agents/*/; do
        [ -d "$dir" ] || continue
        node="$(basename "$dir")"
        pid="$(agent_pid "$node")"
        if [ -n "$pid" ]; then
            kill -TERM "$pid" 2>/dev/null || true
            if ! wait_for 15 "agent of $node to stop" test ! -e "/proc/$pid"; then
                kill -KILL "$pid" 2>/dev/null || true
            fi
            log "stopped the agent of $node (pid $pid)"
        fi
        rm -rf "${dir:?}"
    done
}
