# shellcheck shell=bash
# Sourced by scripts/demo.sh and benchmarks/scripts/recovery-timeline.sh: installs the toolkit
# on the running local cluster from the packaged artifact, the way a site does (the tarball
# and its install.sh), for the caller's duration. Needs root, $repo, a built tree (mvn
# package) and cluster.env sourced. Functions:
#   install_toolkit NAME  unpacks dist/target/slurm-autoresume-*.tar.gz and runs its install.sh
#                         with --prefix $AR_CLUSTER_DIR/NAME-toolkit, the cluster's plugstack
#                         directory (snippet 50-NAME-auto_resume.conf) and no systemd units;
#                         puts the prefix's bin first on PATH
#   start_agent DIR [OPTION...]
#                         starts a root agent on DIR/agent.sock (options go to `autoresume
#                         agent`, e.g. --node NODE for a node's own agent), waits until it listens;
#                         may be called once per node
#   toolkit_cleanup       stops the agents and uninstalls (install.sh --uninstall); for an EXIT trap

toolkit_prefix=""
toolkit_agent_pids=()

install_toolkit() {
  local name="$1" unpack tarballs installers
  toolkit_prefix="$AR_CLUSTER_DIR/$name-toolkit"
  tarballs=("$repo"/dist/target/slurm-autoresume-*.tar.gz)
  if [[ ${#tarballs[@]} -ne 1 || ! -f "${tarballs[0]}" ]]; then
    echo "expected one dist/target/slurm-autoresume-*.tar.gz (run mvn package), found: ${tarballs[*]}" >&2
    return 1
  fi
  # An earlier run that died before its cleanup left an installation behind: replace it.
  if [[ -f "$toolkit_prefix/share/autoresume/install-manifest" ]]; then
    "$toolkit_prefix/share/autoresume/install.sh" --uninstall --prefix "$toolkit_prefix" \
        --sysconf-dir "$toolkit_prefix/etc" >/dev/null
  fi
  unpack="$(mktemp -d)"
  tar xzf "${tarballs[0]}" -C "$unpack"
  installers=("$unpack"/slurm-autoresume-*/install.sh)
  # The tarball's plugin is built against the host's Slurm 22.05; a SPANK plugin loads only in
  # the release it was built for, so on another release the cluster's own build goes in its
  # place, as a site rebuilds the plugin against its Slurm.
  if [[ -n "${AR_SLURM_RELEASE:-}" && "$AR_SLURM_RELEASE" != 22.05 ]]; then
    install -m 0755 "$AR_SPANK_BUILD_DIR/auto_resume.so" "$(dirname "${installers[0]}")/lib/slurm/auto_resume.so"
  fi
  # The packages' layout under the prefix, the plugin and the site files in it too: the host's
  # Slurm plugin directory and /etc stay as they are.
  "${installers[0]}" --prefix "$toolkit_prefix" --plugin-dir "$toolkit_prefix/lib/slurm" \
      --sysconf-dir "$toolkit_prefix/etc" --plugstack-dir "$AR_PLUGSTACK_DIR" \
      --snippet "50-$name-auto_resume.conf" --no-systemd
  rm -rf -- "$unpack"
  export PATH="$toolkit_prefix/bin:$PATH"
}

start_agent() {
  local agent_dir="$1"
  shift # further arguments go to `autoresume agent`
  install -d -m 0755 "$agent_dir"
  "$toolkit_prefix/bin/autoresume" agent --socket "$agent_dir/agent.sock" --audit-log "$agent_dir/audit.log" "$@" \
      > "$agent_dir/agent.log" 2>&1 &
  toolkit_agent_pids+=("$!")
  # Out of the shell's job table: an agent killed on purpose (kill-node takes a node's agent with
  # it) is then not reported as a "Killed" line in the caller's output; cleanup kills it by pid.
  disown "$!"
  for _ in $(seq 1 120); do [[ -S "$agent_dir/agent.sock" ]] && break; sleep 0.25; done
  [[ -S "$agent_dir/agent.sock" ]] || { echo "the agent did not start: $agent_dir/agent.log" >&2; return 1; }
}

toolkit_cleanup() {
  local pid
  for pid in "${toolkit_agent_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [[ -n "$toolkit_prefix" && -f "$toolkit_prefix/share/autoresume/install-manifest" ]]; then
    "$toolkit_prefix/share/autoresume/install.sh" --uninstall --prefix "$toolkit_prefix" \
        --sysconf-dir "$toolkit_prefix/etc" >/dev/null || true
    # install.sh never removes the sysconf dir itself (it is /etc elsewhere); here it is ours.
    rmdir -- "$toolkit_prefix/etc" "$toolkit_prefix" 2>/dev/null || true
  fi
}
