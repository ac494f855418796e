# shellcheck shell=bash
# Sourced by local-cluster.sh: what slurmctld says about the nodes, read through the built
# `autoresume nodes --json`, so that scontrol's text is parsed in one place (the Java
# NodeState) and not again here. What stays here is which states each wait accepts.

# Not registered yet: silent, never heard from since slurmctld started, or still powering up.
REGISTERING_STATES="not_responding,unknown,powering_up,power_up"
# Kept down by power saving: `up` powers these up instead of starting their slurmd.
POWER_SAVING_STATES="powered_down,powering_down"

# nodes_query [HOSTLIST] [FILTER...]: "NAME STATE SLURMD_START_TIME" for each node that
# `autoresume nodes` lists with these filters (SLURMD_START_TIME is None before the first
# registration). Fails when the launcher is missing or slurmctld does not answer.
nodes_query() {
    local json
    if [ ! -x "$AUTORESUME" ]; then
        warn "$AUTORESUME is missing: build the toolkit first (mvn -B -ntp -q package -DskipTests)"
        return 1
    fi
    json="$("$AUTORESUME" nodes --json "$@" 2>/dev/null)" || return 1
    # Java prints 12:00 for 12:00:00; re-format so the time reads as scontrol prints it.
    python3 -c 'import datetime, json, sys
for node in json.load(sys.stdin):
    started = node.get("slurmdStartTime")
    started = datetime.datetime.fromisoformat(started).isoformat() if started else "None"
    print(node["name"], node["state"], started)' <<<"$json"
}

# nodes_all COUNT [FILTER...]: every node of node[1-COUNT] passes the filters.
nodes_all() {
    local count="$1" listed
    shift
    listed="$(nodes_query "$(hostlist "$count")" "$@")" || return 1
    [ "$(grep -c . <<<"$listed")" -eq "$count" ]
}

# nodes_none COUNT [FILTER...]: slurmctld knows every node of node[1-COUNT] (an unknown
# name makes the query fail) and none of them passes the filters.
nodes_none() {
    local count="$1" listed
    shift
    listed="$(nodes_query "$(hostlist "$count")" "$@")" || return 1
    [ -z "$listed" ]
}

nodes_registered_or_powered_down() {
    nodes_none "$1" --state "$REGISTERING_STATES" --not-state "$POWER_SAVING_STATES"
}
nodes_responding() { nodes_none "$1" --state "$REGISTERING_STATES,$POWER_SAVING_STATES"; }
nodes_schedulable() { nodes_all "$1" --schedulable; }

# node_powered_down NODE: power saving keeps NODE down (no slurmd expected).
node_powered_down() { [ -n "$(nodes_query "$1" --state "$POWER_SAVING_STATES")" ]; }

# node_state NODE: its state as scontrol prints it (empty when slurmctld does not answer).
node_state() {
    local state
    read -r _ state _ < <(nodes_query "$1" || true) || true
    echo "${state:-}"
}

# node_responding_since NODE SINCE: NODE answers with a slurmd started at SINCE (scontrol's
# YYYY-MM-DDTHH:MM:SS) or later; sets REGISTERED_STATE and REGISTERED_START_TIME for the caller.
node_responding_since() {
    REGISTERED_STATE=""
    REGISTERED_START_TIME=""
    # shellcheck disable=SC2034 # REGISTERED_STATE is for the caller's log line
    read -r _ REGISTERED_STATE REGISTERED_START_TIME \
        < <(nodes_query "$1" --not-state "$REGISTERING_STATES,$POWER_SAVING_STATES" || true) || return 1
    # ISO times of one clock compare as text.
    [ "$REGISTERED_START_TIME" != "None" ] && [[ ! "$REGISTERED_START_TIME" < "$2" ]]
}
