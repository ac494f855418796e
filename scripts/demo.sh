#!/usr/bin/env bash
# The demo on a fresh Debian machine: installs what is missing, builds the toolkit, starts
# the local 4-node Slurm cluster, installs the SPANK plugin for the demo's duration, and runs a
# 2-node batch job with `sbatch --auto-resume=1`, as the ordinary user `artest`: its srun is
# supervised, and its script learns its nodes and master from `autoresume env`. Needs root.
set -euo pipefail

repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$repo/lifecycle/local-cluster/local-cluster.sh"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "scripts/demo.sh: run as root (it installs packages and starts Slurm daemons): sudo $0" >&2
  exit 2
fi

say() { printf '\n==> %s\n' "$*"; }

say "Installing what is missing (JDK, Maven, munge, Slurm)"
"$repo/lifecycle/local-cluster/install-deps.sh"

say "Building slurm-autoresume"
(cd "$repo" && mvn -B -ntp -q package -DskipTests)

say "Starting the local Slurm cluster"
"$cluster" up --nodes 4
# shellcheck disable=SC1091
source "${AR_CLUSTER_DIR:-/var/tmp/autoresume-cluster}/cluster.env"

say "Installing the autoresume launcher where the test user can run it"
dist="$AR_CLUSTER_DIR/dist"
rm -rf "$dist"
cp -r "$repo/cli/target/autoresume" "$dist"
chmod -R a+rX "$dist"
"$dist/bin/autoresume" --dump-cds
export PATH="$dist/bin:$PATH"
sinfo

say "Installing the auto-resume SPANK plugin for this demo"
plugin_dir="$AR_CLUSTER_DIR/demo-plugin"
snippet="$AR_PLUGSTACK_DIR/50-demo-auto_resume.conf"
remove_plugin() { rm -f -- "$snippet"; }
trap remove_plugin EXIT
rm -rf -- "$plugin_dir"
make -s -C "$repo/spank-shim" install LIBDIR="$plugin_dir" PLUGSTACK_DIR="$plugin_dir" \
     SUPERVISOR="$dist/bin/autoresume"
mv -- "$plugin_dir/auto_resume.conf" "$snippet"
chmod -R a+rX "$plugin_dir"
cat "$snippet"

say "Submitting examples/sbatch/show-env.sh with --auto-resume=1 as $AR_TEST_USER on 2 nodes"
script="$AR_JOBS_DIR/demo-show-env.sh"
install -m 0755 "$repo/examples/sbatch/show-env.sh" "$script"
job=$(runuser -u "$AR_TEST_USER" -- env PATH="$PATH" sbatch --parsable -N2 --exclusive --auto-resume=1 \
        --output="$AR_JOBS_DIR/%j.out" --chdir="$AR_JOBS_DIR" "$script")
echo "submitted job $job"

say "Waiting for job $job to end"
status=0
autoresume job "$job" --wait --timeout 120 || status=$?
say "Job $job's output:"
cat "$AR_JOBS_DIR/$job.out"

say "What the toolkit sees of the nodes"
autoresume nodes
if [[ "$status" -ne 0 ]]; then
  echo "The demo job did not complete (autoresume job exited $status)." >&2
  exit 1
fi
echo
echo "Demo finished. The plugin is removed again; the cluster keeps running; stop it with: $cluster down"
