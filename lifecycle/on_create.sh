#!/usr/bin/env bash
# on_create.sh: the lifecycle entry point (LifeCycleConfig.OnCreate) of slurm-autoresume.
#
# Finds provisioning_parameters.json beside this script and resource_config.json where the
# platform writes it ($SAGEMAKER_RESOURCE_CONFIG_PATH, else /opt/ml/config/resource_config.json),
# then lets `autoresume lifecycle apply` find this node's role and write its Slurm, plugstack and
# systemd files. Arguments are passed on to apply (e.g. --dry-run, --node NAME, --slurm-conf PATH).
#
# Environment: AUTORESUME (the command, default: autoresume on PATH, else /usr/local/bin/autoresume),
#              PROVISIONING_PARAMETERS_PATH, SAGEMAKER_RESOURCE_CONFIG_PATH, PROVISION_LOG.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_FILE="${PROVISION_LOG:-/var/log/provision/provisioning.log}"
DEFAULT_RESOURCE_CONFIG="/opt/ml/config/resource_config.json"
SYSTEMD_DIR="/etc/systemd/system"

log() { printf 'on_create: %s\n' "$*" | tee -a "$LOG_FILE" >&2; }

mkdir -p "$(dirname "$LOG_FILE")"
touch "$LOG_FILE"

provisioning="${PROVISIONING_PARAMETERS_PATH:-$SCRIPT_DIR/provisioning_parameters.json}"
if [ ! -f "$provisioning" ]; then
    log "no provisioning parameters at $provisioning"
    exit 1
fi

if [ -z "${SAGEMAKER_RESOURCE_CONFIG_PATH:-}" ]; then
    resource_config="$DEFAULT_RESOURCE_CONFIG"
    if [ ! -f "$resource_config" ]; then
        log "SAGEMAKER_RESOURCE_CONFIG_PATH is unset and $resource_config does not exist: not a provisioned cluster, nothing to do"
        exit 0
    fi
else
    resource_config="$SAGEMAKER_RESOURCE_CONFIG_PATH"
    if [ ! -f "$resource_config" ]; then
        log "SAGEMAKER_RESOURCE_CONFIG_PATH is set but $resource_config does not exist"
        exit 1
    fi
fi

autoresume="${AUTORESUME:-}"
if [ -z "$autoresume" ]; then
    autoresume="$(command -v autoresume || true)"
    autoresume="${autoresume:-/usr/local/bin/autoresume}"
fi
if [ ! -x "$autoresume" ]; then
    log "the autoresume command is not installed at $autoresume (set AUTORESUME)"
    exit 1
fi

log "applying $provisioning and $resource_config"
"$autoresume" lifecycle apply --provisioning "$provisioning" --resource-config "$resource_config" "$@" \
    2>&1 | tee -a "$LOG_FILE"

dry_run=0
for arg in "$@"; do
    if [ "$arg" = "--dry-run" ]; then dry_run=1; fi
done
if [ "$dry_run" -eq 0 ] && command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload
    for unit in autoresume-agent.service autoresume-sweep.timer; do
        if [ -f "$SYSTEMD_DIR/$unit" ]; then
            log "enabling $unit"
            systemctl enable --now "$unit"
        fi
    done
fi
