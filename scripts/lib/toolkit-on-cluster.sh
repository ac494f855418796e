# Sourced by scripts/demo.sh and benchmarks/scripts/recovery-timeline.sh: puts the built
# toolkit on the running local cluster for the caller's duration. Needs root, $repo, and
# cluster.env sourced. Functions:
#   install_dist              copies cli/target/autoresume to $AR_CLUSTER_DIR/dist (readable by
#                             all), writes its class-data archive, puts it first on PATH
#   install_plugin NAME       installs auto_resume.so and its plugstack.conf.d snippet NAME
#   start_agent DIR           starts the root agent on DIR/agent.sock, waits until it listens
#   toolkit_cleanup           removes the snippet and stops the agent (call from an EXIT trap)

dist="$AR_CLUSTER_DIR/dist"
toolkit_snippet=""
toolkit_agent_pid=""

install_dist() {
  rm -rf -- "$dist"
  cp -r "$repo/cli/target/autoresume" "$dist"
  chmod -R a+rX "$dist"
  "$dist/bin/autoresume" --dump-cds
  export PATH="$dist/bin:$PATH"
}

install_plugin() {
  local name="$1" plugin_dir="$AR_CLUSTER_DIR/$1-plugin"
  toolkit_snippet="$AR_PLUGSTACK_DIR/50-$name-auto_resume.conf"
  rm -rf -- "$plugin_dir"
  make -s -C "$repo/spank-shim" install LIBDIR="$plugin_dir" PLUGSTACK_DIR="$plugin_dir" \
       SUPERVISOR="$dist/bin/autoresume"
  mv -- "$plugin_dir/auto_resume.conf" "$toolkit_snippet"
  chmod -R a+rX "$plugin_dir"
}

start_agent() {
  local agent_dir="$1"
  install -d -m 0755 "$agent_dir"
  "$dist/bin/autoresume" agent --socket "$agent_dir/agent.sock" --audit-log "$agent_dir/audit.log" \
      > "$agent_dir/agent.log" 2>&1 &
  toolkit_agent_pid=$!
  for _ in $(seq 1 120); do [[ -S "$agent_dir/agent.sock" ]] && break; sleep 0.25; done
  [[ -S "$agent_dir/agent.sock" ]] || { echo "the agent did not start: $agent_dir/agent.log" >&2; return 1; }
}

toolkit_cleanup() {
  if [[ -n "$toolkit_snippet" ]]; then rm -f -- "$toolkit_snippet"; fi
  if [[ -n "$toolkit_agent_pid" ]]; then kill "$toolkit_agent_pid" 2>/dev/null || true; fi
}
