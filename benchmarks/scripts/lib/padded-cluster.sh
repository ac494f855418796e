# shellcheck shell=bash
# Sourced by benchmarks/scripts/controller-cost.sh and recovery-scale.sh: the local cluster of a
# large site. Needs $repo.
#   padded_cluster_up NODES PADDING
#       brings the cluster up afresh, cpu-only, with NODES nodes and PADDING more in its table
#       (NodeName=pad[1-PADDING], DOWN, in no partition), then sources its cluster.env and the
#       toolkit installer (scripts/lib/toolkit-on-cluster.sh).

padded_cluster_up() {
  local nodes="$1" padding="$2" pad_conf
  pad_conf="$(mktemp)"
  if [[ "$padding" -gt 0 ]]; then
    # DOWN nodes whose address refuses at once (nothing listens on port 9): slurmctld's pings of
    # them cost it little, and they never come back.
    echo "NodeName=pad[1-$padding] NodeAddr=127.0.0.1 Port=9 CPUs=1 RealMemory=1000 State=DOWN" > "$pad_conf"
  fi
  "$repo/local-cluster/local-cluster.sh" up --fresh --cpu-only --nodes "$nodes" --extra-conf "$pad_conf" >/dev/null
  rm -f -- "$pad_conf"
  # shellcheck disable=SC1091
  source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"
  # shellcheck source=scripts/lib/toolkit-on-cluster.sh
  source "$repo/scripts/lib/toolkit-on-cluster.sh"
}
