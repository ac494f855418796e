#!/usr/bin/env bash
# local-cluster.sh: a multi-node Slurm 22.05 cluster on one machine (loopback),
# used by the end-to-end tests and the demo of slurm-autoresume.
#
# Several slurmd run on this host, one per node name (slurmd -N nodeK), each on
# its own port of 127.0.0.1; one slurmctld; munged from the munge package.
# Everything the cluster writes lives under ${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}.
#
# This file is the interface: usage, each command's options and their checks. The work is
# in lib/, one file per idea, sourced below.
set -euo pipefail

PROG="local-cluster"
# Daemons and fake Reboot/Suspend/ResumePrograms call this script with a minimal PATH.
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"
SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
SCRIPT_DIR="$(dirname "$SCRIPT_PATH")"
# The built launcher: `up` writes the node and partition lines through `autoresume lifecycle apply`.
AUTORESUME="${AR_AUTORESUME:-$(cd "$SCRIPT_DIR/.." && pwd)/cli/target/autoresume/bin/autoresume}"

usage() {
    cat <<'USAGE'
Usage: local-cluster.sh COMMAND [OPTIONS]

A multi-node Slurm cluster on loopback for tests and the demo. State, config,
spool, logs and pid files live in $AR_CLUSTER_DIR (default /var/tmp/autoresume-cluster):
  etc/      slurm.conf, gres.conf (GPU shape), lifecycle/ (resource_config.json and provisioning_parameters.json that
            `autoresume lifecycle apply` turned into its node lines), plugstack.conf, plugstack.conf.d/ (drop SPANK snippets here),
            fake-reboot.sh (RebootProgram: `scontrol reboot` restarts only that node's slurmd
            with -b), fake-suspend.sh / fake-resume.sh (with --power-save)
  state/    slurmctld StateSaveLocation (state/slurmctld), the accounting database's
            generated password
  db/       MariaDB datadir for slurmdbd (owned by mysql)
  spool/    one SlurmdSpoolDir per node (spool/nodeK)
  dev/      GPU shape: each node's GPU device files (dev/nodeK/nvidiaI, character devices)
  log/      slurmctld.log, slurmd-nodeK.log, daemon start output
  run/      pid files
  jobs/     owned by the test user; tests write sbatch output here (emptied when a new
            configuration wipes slurmctld state: job ids then start again at 1)
  cluster.env  KEY=VALUE lines describing the running cluster (readable by all)

Commands:
  up [--nodes N] [--slurmd-timeout S] [--cpus C] [--gpus G | --cpu-only] [--power-save]
     [--extra-conf FILE] [--no-resume] [--no-accounting] [--backup-controller] [--fresh] [--agents]
        As root: install missing packages (install-deps.sh --runtime-only), create the
        test users ($AR_TEST_USER, default artest, and $AR_OTHER_USER, default arother), write etc/slurm.conf (ClusterName=arlocal;
        its node and partition lines, debug with node[1-N], are written by the built
        `autoresume lifecycle apply` from a resource_config.json and
        provisioning_parameters.json describing the local nodes: build first), link
        /etc/slurm/slurm.conf to it when that path is free, start munged (if none runs),
        slurmdbd and its MariaDB, slurmctld and one slurmd per node, and wait until every
        node is usable (idle, or mixed/allocated when jobs run).
          --nodes N            number of nodes node1..nodeN (default 4)
          --slurmd-timeout S   SlurmdTimeout in seconds (default 300, production's usual value:
                               node-fault detection in the tests is the toolkit's own)
          --cpus C             CPUs per node (default 4; config_overrides lets a 2-core
                               host declare more)
          --gpus G             the GPU shape (the default, a production GPU partition):
                               every node Gres=gpu:G (default 4) backed by its own character
                               devices dev/nodeK/nvidia0..G-1 named in etc/gres.conf,
                               GresTypes=gpu, PrologFlags=Contain (an extern step in every
                               job), AccountingStorageTRES=gres/gpu with accounting
          --cpu-only           no GRES, no gres.conf, no PrologFlags=Contain: the shape in
                               which job expansion works (AR_CLUSTER_SHAPE=cpu-only does the
                               same; AR_CLUSTER_SHAPE=gpu asks for the default)
          --power-save         enable Slurm power saving with fake programs: SuspendProgram
                               kills the node (kill-node), ResumeProgram revives it, so
                               `scontrol update node=X state=power_down|power_up` works
                               (SuspendTime=86400: idle nodes are not suspended on their own)
          --extra-conf FILE    append FILE's lines to slurm.conf
          --no-accounting      AccountingStorageType=accounting_storage/none. By default the
                               cluster keeps accounting like production ones: slurmdbd
                               (DbdPort $AR_SLURMDBD_PORT, default 16819) on its own MariaDB
                               (db/, 127.0.0.1:$AR_DB_PORT, default 16306)
          --slurm RELEASE      the Slurm release: 22.05 (default: the host's packages),
                               24.11 (Debian trixie's) or 26.05 (Debian forky's), each in the
                               rootfs `AR_SLURM_RELEASE=RELEASE slurm-rootfs.sh build` makes;
                               its daemons run there, its clients through wrappers in
                               $AR_CLUSTER_DIR/slurm-RELEASE/bin, AR_SLURM_BIN in cluster.env).
                               AR_SLURM_RELEASE does the same. Another release on a running
                               cluster dir: 'down' first
          --backup-controller  a second slurmctld as the backup (SlurmctldHost twice, shared
                               StateSaveLocation): the primary arctld1 on 127.0.0.1, the
                               backup arctld2 on 127.0.2.2, each in its own UTS and mount
                               namespace (hostname, /etc/hosts, pid file) with
                               CommunicationParameters=NoCtldInAddrAny. SlurmctldTimeout=30
                               (production's default: 120). Slurm 22.05 only
          --fresh              start with no job: stop what runs, wipe slurmctld state (job
                               ids start again at 1), slurmd spool and job files; accounting
                               keeps its rows. The test suite starts this way, so a machine's
                               earlier jobs (a snapshot's, an interrupted run's) cannot hold nodes
          --no-resume          leave nodes that are DOWN/DRAIN/FAIL as they are (default:
                               `scontrol update state=resume` them so the cluster is usable)
          --agents             also run the privileged agent on every node, bound to it, as
                               production does (`autoresume agent --node nodeK`, from the
                               built launcher): each watches its node's kernel-log file for
                               Xids, its stand-in GPU tools and its slurmd, and answers the
                               other nodes' liveness probes and fresh-check requests on the
                               node's address. Sockets in run/agents/nodeK/, logs and audit
                               logs in log/agent-nodeK*.log; cluster.env gets AR_AGENTS=1 and
                               AR_AGENT_SOCKET (node1's, for AUTORESUME_AGENT_SOCKET in jobs).
                               kill-node kills a node's agent with it; revive-node starts it
                               again. Without --agents, `up` stops them: the tests start
                               agents of their own on the same ports
        Idempotent: a second `up` with the same options starts only what is missing. When
        the requested config differs from the current one, everything is stopped (jobs are
        cancelled), slurmctld state and spool are wiped and the cluster starts afresh.
  down [--purge]
        Cancel all jobs, stop every slurmd and slurmctld (and munged if this script started
        it), wait for them to exit. Logs are kept; --purge also removes $AR_CLUSTER_DIR
        (and the /etc/slurm/slurm.conf link if it points there). Idempotent.
  status
        Show the shape (gpu or cpu-only), munged, slurmctld, each slurmd with its pid
        (and each agent after `up --agents`), and `sinfo -N`.
        Exit 0 when everything runs and slurmctld answers, 3 otherwise.
  kill-node NODE
        Fault injection: simulate NODE dying. First collect the pids of every job step on
        NODE (`scontrol listpids JOB NODE` while its slurmd still answers, plus the
        slurmstepd of each step found by its socket in spool/NODE and all their children),
        then SIGSTOP and SIGKILL that node's slurmd, the slurmstepd, the tasks and the
        autoresume agent bound to NODE (`agent --node NODE`) together, as a machine that dies
        takes its agent with it. Prints what was killed.
  revive-node NODE [--fresh] [--boot] [--timeout S]
        Bring NODE back as a replacement with the same hostname: start its slurmd again and
        wait (default 60 s) until slurmctld sees it registered (new SlurmdStartTime, state
        without `*`). --fresh wipes spool/NODE first, like a new instance; --boot starts
        slurmd with -b (reports a reboot, i.e. a new BootTime).
  freeze-node NODE
        Fault injection: every process of NODE (its slurmd, slurmstepds, tasks and the
        autoresume agent bound to it with --node NODE) is stopped with SIGSTOP and stays
        stopped: a hung machine whose kernel still completes TCP handshakes. Slurm notices
        only at SlurmdTimeout. thaw-node NODE continues them.
  freeze-slurmd NODE
        Fault injection: NODE's slurmd alone is stopped with SIGSTOP: a hung slurmd on a live
        node. Its port accepts connections and answers nothing; running steps, tasks and the
        node's agent go on. Slurm notices only at SlurmdTimeout. thaw-node NODE continues it.
  thaw-node NODE
        SIGCONT to the processes freeze-node or freeze-slurmd stopped.
  cut-network NODE
        Fault injection: NODE's address (its NodeAddr, 127.0.0.K) is cut off: every packet to
        or from it is dropped (nftables), as by a failed switch port. Connections to its slurmd
        and agent time out instead of being refused; its processes run on. Slurm notices at
        SlurmdTimeout. What NODE's processes send to other addresses still leaves (a shared
        loopback cannot tell its source). restore-network NODE lifts it; up and down lift all.
  restore-network NODE
        Lift the cut of NODE's address.
  hang-step JOBID
        Fault injection: the tasks of every step of job JOBID (not its batch script, not its
        extern step), on all its nodes, are stopped with SIGSTOP: ranks hung in a collective.
        Nodes and daemons stay up; only a heartbeat or a log rule can tell.
  gpu-fault NODE XID [--gpu ADDR]
        Fault injection: the NVIDIA driver reports Xid XID (79 fallen off the bus, 48 double-bit
        ECC, 64 row remap failure, 13 an application's fault, ...) on the GPU at PCI address
        ADDR (default 0000:3b:00) of NODE: one kernel record appended to NODE's kernel log,
        which an agent started with --xid-source `kernel-log NODE` follows, and the state of
        NODE's stand-in nvidia-smi and dcgmi (`gpu-tools NODE`): 79 loses the GPU (nvidia-smi
        fails), 48 and 95 count an uncorrected ECC error (48: page retirement pending), 63
        leaves a row remap pending, 64 a failed one; DCGM's health watches report all of
        these and 74 (NVLink), which nvidia-smi does not show; others change nothing there. `up` (unless
        --no-resume) and `revive-node --fresh` clear them, `revive-node --boot` all but 64.
        The node's processes are untouched: a real job would see CUDA errors, kill its tasks
        to model that.
  nhc-fail NODE MESSAGE
        Fault injection: the cluster's HealthCheckProgram, a stand-in for LBNL NHC (slurmd runs
        it every 5 s), fails NODE's check from its next run: it drains NODE with reason
        "NHC: MESSAGE", as NHC does, unless another reason is set. The node runs on.
  nhc-pass NODE
        NODE's check passes again: a node the stand-in drained returns to service on its next
        run if its reason is still NHC's. `up` (unless --no-resume) clears every nhc-fail.
  crash-task NODE [--signal SIG] [--job JOB]
        Fault injection: the tasks of every job step on NODE (not batch scripts, not extern
        steps) get SIG (default KILL) while the node, its slurmd and slurmstepd stay up.
        --job JOB: only JOB's steps, found through NODE's slurmd alone, so this works while
        slurmctld is away (without it the jobs on NODE are asked of slurmctld).
  kernel-log NODE
        Print the path of NODE's simulated kernel log (created empty, root-only, if missing).
  gpu-tools NODE
        Print the directory holding NODE's stand-in nvidia-smi and dcgmi (GPU shape), for an
        agent's --gpu-tools: they list NODE's GPUs (GPU 0 on PCI 0000:3b:00) with what
        gpu-fault injected, in the form of the real ones' answers (docs/health-checks.md);
        dcgmi answers `health -c` only.
  gpu-repair NODE
        A technician reset or swapped NODE's GPUs: its stand-in tools forget every
        fault gpu-fault injected (the node's state in Slurm is left as it is).
  set-slurmd-timeout S
        Change SlurmdTimeout of the running cluster in place (`scontrol reconfigure`; jobs
        and node states are kept) and wait until slurmctld uses it. For tests of
        slurmctld's own not-responding verdict, which comes only at SlurmdTimeout: set a
        short one, and set it back. The next `up` with other options restarts afresh.
  set-min-job-age S
        Change MinJobAge (300 s, Slurm's default) in place the same way: how long slurmctld
        keeps an ended job's record. For tests that wait for slurmctld's own purge: set a
        short one, and set it back (300).
  stop-controller [--backup]
        Stop the primary slurmctld (SIGTERM: it saves its state) and wait until it exited.
        With a backup running, the backup takes over after SlurmctldTimeout. --backup stops
        the backup instead.
  start-controller [--backup] [--timeout S]
        Start the primary slurmctld again with its saved state and wait (default 120 s) until
        it serves requests (a backup in control hands control back). --backup starts the
        backup and waits until it answers pings.
  fail-over [--timeout S]
        Kill the primary slurmctld (SIGKILL) and wait (default 120 s) until the backup
        serves requests as the controller. Needs up --backup-controller.
  stop-dbd
        Stop slurmdbd (accounting unavailable; its MariaDB keeps running), wait until it exited.
  start-dbd
        Start slurmdbd again and wait until it answers sacctmgr.
  logs
        Print the log directory path.
  help, --help, -h
        This text.

Environment:
  AR_CLUSTER_DIR       state directory (default /var/tmp/autoresume-cluster)
  AR_TEST_USER         ordinary user for tests (default artest)
  AR_OTHER_USER        a second ordinary user, whose jobs share nodes with the test user's (default arother)
  AR_SLURMCTLD_PORT    SlurmctldPort (default 16817)
  AR_SLURMD_PORT_BASE  port of node1; nodeK uses base+K-1 (default 17001)
  AR_UP_TIMEOUT        seconds `up` waits for daemons and nodes (default 90)
  AR_SLURM_RELEASE     22.05 (default), 24.11 or 26.05: the release `up` brings up without --slurm
  AR_SLURMDBD_PORT, AR_DB_PORT   slurmdbd's and its MariaDB's ports (default 16819, 16306)
  AR_CLUSTER_SHAPE     gpu (default) or cpu-only: the shape `up` brings up when neither
                       --gpus nor --cpu-only is given (how the e2e harness chooses)

Client commands find the cluster through /etc/slurm/slurm.conf when it is our link,
otherwise export SLURM_CONF from cluster.env. For 24.11 and 26.05, also put AR_SLURM_BIN from
cluster.env first on PATH (22.05: it is /usr/bin); /etc/slurm is never written then.
USAGE
}

# Order matters only for common.sh (settings checked on load); the rest define functions.
# shellcheck source=lib/common.sh
source "$SCRIPT_DIR/lib/common.sh"
# shellcheck source=lib/release.sh
source "$SCRIPT_DIR/lib/release.sh"
# shellcheck source=lib/processes.sh
source "$SCRIPT_DIR/lib/processes.sh"
# shellcheck source=lib/node-state.sh
source "$SCRIPT_DIR/lib/node-state.sh"
# shellcheck source=lib/config.sh
source "$SCRIPT_DIR/lib/config.sh"
# shellcheck source=lib/gpu-shape.sh
source "$SCRIPT_DIR/lib/gpu-shape.sh"
# shellcheck source=lib/fake-programs.sh
source "$SCRIPT_DIR/lib/fake-programs.sh"
# shellcheck source=lib/munge.sh
source "$SCRIPT_DIR/lib/munge.sh"
# shellcheck source=lib/accounting.sh
source "$SCRIPT_DIR/lib/accounting.sh"
# shellcheck source=lib/agents.sh
source "$SCRIPT_DIR/lib/agents.sh"
# shellcheck source=lib/daemons.sh
source "$SCRIPT_DIR/lib/daemons.sh"
# shellcheck source=lib/up.sh
source "$SCRIPT_DIR/lib/up.sh"
# shellcheck source=lib/status.sh
source "$SCRIPT_DIR/lib/status.sh"
# shellcheck source=lib/faults.sh
source "$SCRIPT_DIR/lib/faults.sh"
# shellcheck source=lib/controllers.sh
source "$SCRIPT_DIR/lib/controllers.sh"

cmd_up() {
    local count=4 timeout=300 cpus=4 power=0 extra="" resume=1 accounting=1 gpus=4 backup=0 fresh=0 agents=0
    local shape="${AR_CLUSTER_SHAPE:-gpu}" release="${AR_SLURM_RELEASE:-22.05}" recorded
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --nodes) count="${2:-}"; shift ;;
            --nodes=*) count="${1#*=}" ;;
            --slurmd-timeout) timeout="${2:-}"; shift ;;
            --slurmd-timeout=*) timeout="${1#*=}" ;;
            --cpus) cpus="${2:-}"; shift ;;
            --cpus=*) cpus="${1#*=}" ;;
            --extra-conf) extra="${2:-}"; shift ;;
            --extra-conf=*) extra="${1#*=}" ;;
            --gpus) gpus="${2:-}"; shape=gpu; shift ;;
            --gpus=*) gpus="${1#*=}"; shape=gpu ;;
            --cpu-only) shape=cpu-only ;;
            --power-save) power=1 ;;
            --no-resume) resume=0 ;;
            --no-accounting) accounting=0 ;;
            --backup-controller) backup=1 ;;
            --fresh) fresh=1 ;;
            --agents) agents=1 ;;
            --slurm) release="${2:-}"; shift ;;
            --slurm=*) release="${1#*=}" ;;
            -h|--help) usage; exit 0 ;;
            *) die "up: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    if [[ ! "$count" =~ ^[1-9][0-9]{0,2}$ ]] || [ "$count" -gt 128 ]; then
        die "--nodes must be 1..128: '$count'"
    fi
    if [[ ! "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$timeout" -lt 3 ]; then
        die "--slurmd-timeout must be >= 3 seconds: '$timeout'"
    fi
    [[ "$cpus" =~ ^[1-9][0-9]{0,3}$ ]] || die "--cpus must be a positive number: '$cpus'"
    [[ "$gpus" =~ ^[1-9][0-9]?$ ]] || die "--gpus must be 1..99: '$gpus'"
    case "$shape" in
        gpu|cpu-only) ;;
        *) die "AR_CLUSTER_SHAPE must be gpu or cpu-only: '$shape'" ;;
    esac
    if [ -n "$extra" ]; then
        [ -r "$extra" ] || die "--extra-conf file not readable: '$extra'"
        extra="$(cd "$(dirname "$extra")" && pwd)/$(basename "$extra")"
    fi
    [[ " $SLURM_RELEASES " == *" $release "* ]] || die "--slurm must be one of: $SLURM_RELEASES: '$release'"
    need_root up
    recorded="$(recorded_release)"
    if [ -n "$recorded" ] && [ "$recorded" != "$release" ] && [ -n "$(ctld_pids)$(all_slurmd_pids)" ]; then
        die "the cluster in $DIR runs Slurm $recorded: 'down' it before 'up --slurm $release' (or use another AR_CLUSTER_DIR)"
    fi
    use_release "$release"
    if [ "$fresh" -eq 1 ]; then
        wipe_jobs_and_state
    fi
    if [ "$agents" -eq 0 ]; then
        agents_down # the tests' own agents bind the same ports
    fi
    cluster_up "$count" "$timeout" "$cpus" "$power" "$extra" "$resume" "$accounting" "$shape" "$gpus" "$backup"
    if [ "$agents" -eq 1 ]; then
        agents_up "$count" "$shape"
        printf 'AR_AGENTS=1\nAR_AGENT_SOCKET=%s\n' "$(agent_dir node1)/agent.sock" >>"$ENV_FILE"
        log "one agent per node runs; jobs reach node1's with AUTORESUME_AGENT_SOCKET=$(agent_dir node1)/agent.sock"
    fi
}

cmd_down() {
    local purge=0
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --purge) purge=1 ;;
            -h|--help) usage; exit 0 ;;
            *) die "down: unknown option '$1' (see --help)" ;;
        esac
        shift
    done
    need_root down
    cluster_down "$purge"
}

cmd_status() {
    [ "$#" -eq 0 ] || die "status takes no arguments"
    cluster_status
}

cmd_kill_node() {
    local node="${1:-}"
    [ "$#" -eq 1 ] || die "usage: kill-node NODE"
    validate_node "$node"
    need_root kill-node
    kill_node "$node"
}

cmd_revive_node() {
    local node="" fresh=0 boot=0 timeout=60
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --fresh) fresh=1 ;;
            --boot) boot=1 ;;
            --timeout) timeout="${2:-}"; shift ;;
            --timeout=*) timeout="${1#*=}" ;;
            -h|--help) usage; exit 0 ;;
            -*) die "revive-node: unknown option '$1'" ;;
            *) [ -z "$node" ] || die "revive-node takes one NODE"; node="$1" ;;
        esac
        shift
    done
    [ -n "$node" ] || die "usage: revive-node NODE [--fresh] [--boot] [--timeout S]"
    [[ "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || die "--timeout must be seconds: '$timeout'"
    validate_node "$node"
    need_root revive-node
    revive_node "$node" "$fresh" "$boot" "$timeout"
    if [ "$(env_get AR_AGENTS)" = 1 ]; then
        agent_up "$node" "$(env_get AR_CLUSTER_SHAPE)" # a machine that boots starts its agent
    fi
}

cmd_gpu_fault() {
    local node="" xid="" addr="0000:3b:00"
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --gpu) addr="${2:-}"; shift ;;
            --gpu=*) addr="${1#*=}" ;;
            -*) die "gpu-fault: unknown option '$1'" ;;
            *) if [ -z "$node" ]; then node="$1"; elif [ -z "$xid" ]; then xid="$1"; else die "usage: gpu-fault NODE XID [--gpu ADDR]"; fi ;;
        esac
        shift
    done
    [ -n "$node" ] && [ -n "$xid" ] || die "usage: gpu-fault NODE XID [--gpu ADDR]"
    validate_node "$node"
    [[ "$xid" =~ ^[1-9][0-9]{0,3}$ ]] || die "gpu-fault: XID must be a number: '$xid'"
    [[ "$addr" =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}$ ]] || die "gpu-fault: --gpu must be a PCI address like 0000:3b:00: '$addr'"
    need_root gpu-fault
    gpu_fault "$node" "$xid" "$addr"
}

cmd_nhc_fail() {
    [ "$#" -eq 2 ] || die "usage: nhc-fail NODE MESSAGE"
    validate_node "$1"
    [[ "$2" =~ ^[[:print:]]{1,200}$ ]] || die "nhc-fail: MESSAGE must be one printable line of at most 200 characters"
    need_root nhc-fail
    [ -x "$FAKE_NHC" ] || die "nhc-fail: no stand-in NHC at $FAKE_NHC: run 'up'"
    rm -f "$NHC_DIR/drained/$1"
    printf '%s\n' "$2" >"$NHC_DIR/fail/$1.tmp"
    mv -f "$NHC_DIR/fail/$1.tmp" "$NHC_DIR/fail/$1"
    echo "nhc-fail: $1's health check fails from its next run (within 5 s): NHC: $2"
}

cmd_nhc_pass() {
    [ "$#" -eq 1 ] || die "usage: nhc-pass NODE"
    validate_node "$1"
    need_root nhc-pass
    rm -f "$NHC_DIR/fail/$1"
    echo "nhc-pass: $1's health check passes again"
}

cmd_crash_task() {
    local node="" signal="KILL" job=""
    local usage="usage: crash-task NODE [--signal SIG] [--job JOB]"
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --signal) signal="${2:-}"; shift ;;
            --signal=*) signal="${1#*=}" ;;
            --job) job="${2:-}"; shift ;;
            --job=*) job="${1#*=}" ;;
            -*) die "crash-task: unknown option '$1'" ;;
            *) [ -z "$node" ] || die "$usage"; node="$1" ;;
        esac
        shift
    done
    [ -n "$node" ] || die "$usage"
    validate_node "$node"
    [[ "$signal" =~ ^(KILL|ABRT|SEGV|TERM|BUS)$ ]] || die "crash-task: --signal must be one of KILL ABRT SEGV TERM BUS: '$signal'"
    [[ -z "$job" || "$job" =~ ^[0-9]+$ ]] || die "crash-task: --job must be a job id: '$job'"
    need_root crash-task
    crash_task "$node" "$signal" "$job"
}

# one_node_command NAME FUNCTION ARGS...: a fault command that takes one node of this cluster,
# as root: checks both and runs FUNCTION NODE.
one_node_command() {
    local name="$1" function="$2"
    shift 2
    [ "$#" -eq 1 ] || die "usage: $name NODE"
    validate_node "$1"
    need_root "$name"
    "$function" "$1"
}

cmd_freeze_node() {
    one_node_command freeze-node freeze_node "$@"
}

cmd_freeze_slurmd() {
    one_node_command freeze-slurmd freeze_slurmd "$@"
}

cmd_cut_network() {
    one_node_command cut-network cut_network "$@"
}

cmd_restore_network() {
    one_node_command restore-network restore_network "$@"
}

cmd_thaw_node() {
    one_node_command thaw-node thaw_node "$@"
}

cmd_hang_step() {
    [ "$#" -eq 1 ] || die "usage: hang-step JOBID"
    [[ "$1" =~ ^[1-9][0-9]{0,9}$ ]] || die "hang-step: not a job id: '$1'"
    need_root hang-step
    hang_step "$1"
}

cmd_kernel_log() {
    [ "$#" -eq 1 ] || die "usage: kernel-log NODE"
    validate_node "$1"
    need_root kernel-log
    node_kernel_log "$1"
}

cmd_gpu_tools() {
    [ "$#" -eq 1 ] || die "usage: gpu-tools NODE"
    validate_node "$1"
    [ -x "$(node_gpu_tools "$1")/nvidia-smi" ] || die "gpu-tools: $1 has no stand-in nvidia-smi (a GPU-shaped cluster's nodes have one: run 'up')"
    node_gpu_tools "$1"
}

cmd_gpu_repair() {
    [ "$#" -eq 1 ] || die "usage: gpu-repair NODE"
    validate_node "$1"
    need_root gpu-repair
    clear_gpu_faults "$1" 0
    echo "gpu-repair: $1's stand-in nvidia-smi reports sound GPUs again"
}

cmd_set_slurmd_timeout() {
    local timeout="${1:-}"
    if [[ ! "$timeout" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$timeout" -lt 3 ]; then
        die "set-slurmd-timeout: SlurmdTimeout must be >= 3 seconds: '$timeout'"
    fi
    need_root set-slurmd-timeout
    set_seconds_in_place set-slurmd-timeout SlurmdTimeout "$timeout" AR_SLURMD_TIMEOUT
}

cmd_set_min_job_age() {
    local age="${1:-}"
    if [[ ! "$age" =~ ^[1-9][0-9]{0,4}$ ]] || [ "$age" -lt 2 ]; then
        die "set-min-job-age: MinJobAge must be >= 2 seconds: '$age'"
    fi
    need_root set-min-job-age
    set_seconds_in_place set-min-job-age MinJobAge "$age"
}

# controller_role_args COMMAND ARGS...: sets ROLE (primary|backup) and TIMEOUT from the options.
controller_role_args() {
    local cmd="$1"
    shift
    ROLE=primary TIMEOUT=120
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --backup) [ "$cmd" != fail-over ] || die "fail-over: unknown option '$1'"; ROLE=backup ;;
            --timeout) TIMEOUT="${2:-}"; shift ;;
            --timeout=*) TIMEOUT="${1#*=}" ;;
            *) die "$cmd: unknown argument '$1' (see --help)" ;;
        esac
        shift
    done
    [[ "$TIMEOUT" =~ ^[1-9][0-9]{0,4}$ ]] || die "$cmd: --timeout must be seconds: '$TIMEOUT'"
}

cmd_stop_controller() {
    controller_role_args stop-controller "$@"
    need_root stop-controller
    stop_controller "$ROLE"
}

cmd_start_controller() {
    controller_role_args start-controller "$@"
    need_root start-controller
    start_controller "$ROLE" "$TIMEOUT"
}

cmd_fail_over() {
    controller_role_args fail-over "$@"
    need_root fail-over
    fail_over "$TIMEOUT"
}

cmd_dbd() { # stop|start
    local action="$1"
    shift
    [ "$#" -eq 0 ] || die "$action-dbd takes no arguments"
    need_root "$action-dbd"
    if [ "$action" = stop ]; then stop_dbd; else start_dbd; fi
}

cmd_logs() {
    echo "$LOGDIR"
}

main() {
    local cmd="${1:-}" recorded
    [ "$#" -eq 0 ] || shift
    # Every command but up works on the release the cluster was brought up with.
    case "$cmd" in
        up|help|-h|--help|"") ;;
        *)
            recorded="$(recorded_release)"
            use_release "${recorded:-22.05}"
            use_recorded_ports
            ;;
    esac
    case "$cmd" in
        up) cmd_up "$@" ;;
        down) cmd_down "$@" ;;
        status) cmd_status "$@" ;;
        kill-node) cmd_kill_node "$@" ;;
        revive-node) cmd_revive_node "$@" ;;
        freeze-node) cmd_freeze_node "$@" ;;
        freeze-slurmd) cmd_freeze_slurmd "$@" ;;
        thaw-node) cmd_thaw_node "$@" ;;
        cut-network) cmd_cut_network "$@" ;;
        restore-network) cmd_restore_network "$@" ;;
        hang-step) cmd_hang_step "$@" ;;
        gpu-fault) cmd_gpu_fault "$@" ;;
        kernel-log) cmd_kernel_log "$@" ;;
        gpu-tools) cmd_gpu_tools "$@" ;;
        gpu-repair) cmd_gpu_repair "$@" ;;
        nhc-fail) cmd_nhc_fail "$@" ;;
        nhc-pass) cmd_nhc_pass "$@" ;;
        crash-task) cmd_crash_task "$@" ;;
        set-slurmd-timeout) cmd_set_slurmd_timeout "$@" ;;
        set-min-job-age) cmd_set_min_job_age "$@" ;;
        stop-controller) cmd_stop_controller "$@" ;;
        start-controller) cmd_start_controller "$@" ;;
        fail-over) cmd_fail_over "$@" ;;
        stop-dbd) cmd_dbd stop "$@" ;;
        start-dbd) cmd_dbd start "$@" ;;
        logs) cmd_logs ;;
        help|-h|--help) usage ;;
        "") usage >&2; exit 2 ;;
        *) printf '%s: unknown command: %s\n\n' "$PROG" "$cmd" >&2; usage >&2; exit 2 ;;
    esac
}

main "$@"
