#!/usr/bin/env bash
# Checks the tarball the build produced: what it holds, and install.sh run from it (help, bad
# arguments, --dry-run, an install into a temporary root, a second install that changes
# nothing, an old version's jar removed on upgrade, --no-systemd, --uninstall that leaves what
# it did not place). Run by Maven (dist module, integration-test phase) with the tarball's path.
# Installing needs root: as another user this fails in CI (CI=true) and is skipped with a
# notice on a developer's machine, as the end-to-end tests are without a cluster.
set -euo pipefail

tarball="${1:?usage: install-test.sh TARBALL}"
[[ -f "$tarball" ]] || { echo "install-test: no tarball at $tarball" >&2; exit 1; }

if [[ "$(id -u)" -ne 0 ]]; then
  if [[ "${CI:-}" == true ]]; then
    echo "install-test: must run as root in CI (install.sh installs as root)" >&2
    exit 1
  fi
  echo "install-test: SKIPPED: not root (install.sh installs as root; scripts/test.sh runs this as root)"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
failures=0
checks=0

check() {
  local what="$1"
  shift
  checks=$((checks + 1))
  if "$@"; then
    return 0
  fi
  echo "install-test: FAILED: $what" >&2
  failures=$((failures + 1))
}

contains() { grep -qF -- "$2" <<<"$1"; }
absent() { ! grep -qF -- "$2" <<<"$1"; }
is_elf() { [[ "$(head -c 4 -- "$1" | od -An -c | tr -d ' ')" == '177ELF' ]]; }
contains_all() {
  local text="$1" word
  shift
  for word in "$@"; do contains "$text" "$word" || return 1; done
}

# --- what the tarball holds ---------------------------------------------------------------
name="$(basename -- "$tarball" .tar.gz)"
listing="$(tar tzvf "$tarball")"
for entry in install.sh README.md LICENSE bin/autoresume lib/autoresume-cli.jar lib/autoresume-supervisor.jar lib/autoresume-agent.jar lib/autoresume-slurm-client.jar \
    lib/autoresume-lifecycle.jar lib/picocli.jar lib/slurm/auto_resume.so \
    systemd/autoresume-agent.service systemd/autoresume-sweep.service systemd/autoresume-sweep.timer \
    examples/sweep-policy.yaml examples/sbatch/batch.sh examples/sbatch/train.py examples/sbatch/salloc.sh \
    examples/sbatch/torchrun.sh examples/sbatch/entry.sh docs/admin.md docs/lifecycle.md; do
  check "the tarball holds $name/$entry" contains "$listing" " $name/$entry"
done
for executable in install.sh bin/autoresume lib/slurm/auto_resume.so examples/sbatch/batch.sh; do
  check "$executable is executable in the tarball" \
    grep -qE "^-rwxr-xr-x .* $name/$executable\$" <<<"$listing"
done
check "no class-data archive ships (it is made per installation)" absent "$listing" ".jsa"

tar xzf "$tarball" -C "$work"
src="$work/$name"
check "auto_resume.so is an ELF object" is_elf "$src/lib/slurm/auto_resume.so"

# --- help and bad arguments --------------------------------------------------------------------
out="$("$src/install.sh" --help)"
check "--help explains every option" contains_all "$out" --prefix --plugin-dir --plugstack-dir --snippet --sysconf-dir \
  --systemd-dir --no-systemd --dry-run --uninstall
for bad in "--prefix relative/dir" "--prefix /has space" "--frobnicate" "--prefix" "--snippet ../x.conf" "--systemd-dir /etc/\$x" \
    "--plugin-dir lib/slurm" "--sysconf-dir /"; do
  read -r -a argv <<<"$bad"
  status=0
  err="$("$src/install.sh" "${argv[@]}" 2>&1 >/dev/null)" || status=$?
  check "install.sh $bad exits 2 (got $status)" test "$status" -eq 2
  check "install.sh $bad says why and points at --help ($err)" contains "$err" "(try --help)"
done

# --- the default layout is the packages' -------------------------------------------------------
# install.sh --dry-run with no options names what it would place; every file of the Debian
# packages built beside the tarball that install.sh also places must be among them.
default_out="$("$src/install.sh" --dry-run)"
for path in /usr/bin/autoresume /usr/share/autoresume/bin/autoresume /usr/share/autoresume/lib/autoresume-cli.jar \
    /usr/lib/systemd/system/autoresume-agent.service /etc/autoresume/config.yaml /etc/autoresume/sweep-policy.yaml \
    /etc/default/autoresume-agent /etc/logrotate.d/autoresume /etc/nhc/scripts/autoresume.nhc \
    /etc/slurm/plugstack.conf.d/auto_resume.conf; do
  check "install.sh's default layout places $path" contains "$default_out" " $path"
done
check "install.sh's default puts the plugin into Slurm's plugin directory" \
  grep -qE " /usr/lib(/[a-z0-9_-]+|64)?/slurm(-wlm)?/auto_resume.so\$" <<<"$default_out"
debs=("$(dirname -- "$tarball")"/debs/*.deb)
if [[ -f "${debs[0]}" ]]; then
  for deb in "${debs[@]}"; do
    while read -r path; do
      case "$path" in
        /usr/bin/*|/usr/share/autoresume/bin/*|/usr/share/autoresume/lib/*|/usr/lib/systemd/system/*|/etc/autoresume/*|\
        /etc/default/*|/etc/logrotate.d/*|/etc/nhc/*|/etc/slurm/plugstack.conf.d/*|*/auto_resume.so)
          check "install.sh places $path, as ${deb##*/} does" contains "$default_out" " $path" ;;
      esac
    done < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
  done
fi

root="$work/root"
prefix="$root/usr"
home="$prefix/share/autoresume"
plugin_dir="$root/usr/lib/slurm"
plugstack="$root/etc/slurm/plugstack.conf.d"
units="$root/usr/lib/systemd/system"
options=(--prefix "$prefix" --plugin-dir "$plugin_dir" --plugstack-dir "$plugstack" --sysconf-dir "$root/etc" \
  --systemd-dir "$units")

# --- dry run ----------------------------------------------------------------------------------
out="$("$src/install.sh" "${options[@]}" --dry-run)"
check "--dry-run changes nothing" test ! -e "$root"
check "--dry-run shows the snippet line" contains "$out" \
  "optional $plugin_dir/auto_resume.so supervisor=$home/bin/autoresume"
check "--dry-run shows the agent's ExecStart" contains "$out" "ExecStart=$prefix/bin/autoresume agent"
check "--dry-run says it would install the launcher" contains "$out" "would install $home/bin/autoresume"
check "--dry-run says it would link the command to it" contains "$out" \
  "would link $prefix/bin/autoresume -> ../share/autoresume/bin/autoresume"

# --- install ----------------------------------------------------------------------------------
install -d -m 0755 "$plugstack"
echo "optional /other/plugin.so" > "$plugstack/other.conf"
out="$("$src/install.sh" "${options[@]}")"
check "the launcher is installed" test -x "$home/bin/autoresume"
check "the command is a link to it, as the packages make it" test \
  "$(readlink "$prefix/bin/autoresume")" == "../share/autoresume/bin/autoresume"
check "the plugin is installed in Slurm's plugin directory" test -x "$plugin_dir/auto_resume.so"
check "the jars are installed" test -f "$home/lib/autoresume-cli.jar"
check "the examples are installed" test -x "$home/examples/sbatch/batch.sh"
check "the snippet names the plugin and the launcher itself (no link to resolve at each srun)" test \
  "$(cat "$plugstack/auto_resume.conf")" == "optional $plugin_dir/auto_resume.so supervisor=$home/bin/autoresume"
for site_file in autoresume/config.yaml autoresume/sweep-policy.yaml default/autoresume-agent default/autoresume-sweep \
    logrotate.d/autoresume nhc/scripts/autoresume.nhc; do
  check "the site file /etc/$site_file is placed" test -f "$root/etc/$site_file"
done
for unit in autoresume-agent.service autoresume-sweep.service autoresume-sweep.timer; do
  check "$unit is installed" test -f "$units/$unit"
done
check "the units run the prefix's autoresume" grep -q "^ExecStart=$prefix/bin/autoresume agent " "$units/autoresume-agent.service"
check "the agent's unit takes the site's options from /etc/default, as Slurm's units do" \
  grep -qxF "EnvironmentFile=-/etc/default/autoresume-agent" "$units/autoresume-agent.service"
check "... and passes them on" grep -q '^ExecStart=.* \$AUTORESUME_AGENT_OPTIONS$' "$units/autoresume-agent.service"
check "systemctl reload reopens the audit log" grep -qxF 'ExecReload=/bin/kill -HUP $MAINPID' "$units/autoresume-agent.service"
check "no unit names /usr/local/bin/autoresume any more" absent "$(cat -- "$units"/*)" "/usr/local/bin/autoresume"
check "--dump-cds ran" test -f "$home/lib/autoresume.jsa"
check "--dump-cds made the other commands' archive too" test -f "$home/lib/autoresume-cli.jsa"
check "the next steps name systemctl enable, not run it" contains "$out" "systemctl enable --now autoresume-agent.service"
version_out="$("$prefix/bin/autoresume" --help 2>&1)" || true
check "the installed autoresume runs ($version_out)" contains "$version_out" "env"
check "the Prometheus rules are installed" test -f "$home/monitoring/prometheus/autoresume.rules.yml"
check "the Grafana dashboard is installed" test -f "$home/monitoring/grafana/autoresume-dashboard.json"

# --- install.sh says when the plugin it installed will not load into this node's Slurm ------
upgraded="$work/upgraded-slurm"
mkdir -p "$upgraded"
printf '#!/bin/sh\n[ "$1" = --version ] && echo "slurm 99.11.2" && exit 0\nexit 1\n' > "$upgraded/scontrol"
chmod 0755 "$upgraded/scontrol"
built="$("$prefix/bin/autoresume" plugin --json --plugin "$plugin_dir/auto_resume.so" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["builtFor"])')" || true
warned="$(PATH="$upgraded:$PATH" "$src/install.sh" "${options[@]}" 2>&1 >/dev/null)" || true
check "install.sh warns that the plugin built for Slurm $built will not load into 99.11.2" contains "$warned" \
  "warning: $plugin_dir/auto_resume.so was built for Slurm $built and this node runs 99.11.2"
check "... and names what to rebuild" contains "$warned" "Rebuild it against Slurm 99.11"
# This machine's own Slurm (install-deps.sh installs it), which the plugin was built against.
said="$("$src/install.sh" "${options[@]}")"
check "on this node's own Slurm it says the plugin loads" contains "$said" \
  "SPANK plugin: $plugin_dir/auto_resume.so (built for Slurm $built"

# --- the NHC check: NHC sources the file and calls the function; NHC's own log is stubbed -------
nhc_script="$root/etc/nhc/scripts/autoresume.nhc"
check "the NHC check script is installed where NHC reads its scripts" test -f "$nhc_script"
mkdir -p "$work/nhc-bin"
cat > "$work/nhc-bin/autoresume" <<'FAKE'
#!/bin/sh
echo "$*" >> "$NHC_TEST_CALLS"
[ -n "$NHC_TEST_EXIT" ] || exit 0
echo "gpu FAILED: Xid 79"; exit "$NHC_TEST_EXIT"
FAKE
chmod 0755 "$work/nhc-bin/autoresume"
nhc_run() { # EXIT CHECKS...: NHC's way: source, call; prints what the check logged, then its status
  ( export NHC_TEST_CALLS="$work/nhc-calls" NHC_TEST_EXIT="$1" AUTORESUME_BIN="$work/nhc-bin/autoresume"; shift
    log() { echo "LOG: $*"; }
    die() { echo "DIE: $*"; return 1; }
    # shellcheck disable=SC1090
    source "$nhc_script"
    check_autoresume "$@"; echo "STATUS $?" )
}
: > "$work/nhc-calls"
out="$(nhc_run "")"
check "check_autoresume runs autoresume health --mark with the default checks ($out)" \
  grep -qx -- "health --mark --check gpu,neuron,efa,disk" "$work/nhc-calls"
out="$(nhc_run 8 gpu)"
check "an unhealthy node is left to autoresume's mark: the check passes in NHC's eyes ($out)" contains "$out" "STATUS 0"
check "... and NHC's log says what autoresume found" contains "$out" "LOG: check_autoresume: unhealthy, marked by autoresume: gpu FAILED: Xid 79"
check "... and it never calls NHC's die" absent "$out" "DIE:"
out="$(nhc_run "" 'gpu;reboot')"
check "checks that are not names are refused, not run ($out)" contains "$out" "checks must be names"

# --- the audit log's logrotate file ----------------------------------------------------------
rotate_conf="$root/etc/logrotate.d/autoresume"
check "the logrotate file is installed" test -f "$rotate_conf"
rotated="$(logrotate -d -s "$work/logrotate.state" "$rotate_conf" 2>&1)"
check "logrotate reads the logrotate file without an error ($rotated)" absent "$rotated" "error"
check "logrotate sees the audit log in it" contains "$rotated" "/var/log/autoresume/agent-audit.log"

# --- diagnostics as JSON lines for a collector (AUTORESUME_LOG_FORMAT=json) ------------------
cat >"$work/failing-scontrol" <<'SCONTROL'
#!/bin/sh
echo "scontrol: error: not reachable" >&2
exit 1
SCONTROL
mkdir -p "$work/failing" && mv "$work/failing-scontrol" "$work/failing/scontrol" && chmod 0755 "$work/failing/scontrol"
json_err="$(PATH="$work/failing:$PATH" AUTORESUME_LOG_FORMAT=json "$prefix/bin/autoresume" nodes 2>&1 >/dev/null)" || true
check "AUTORESUME_LOG_FORMAT=json: each diagnostic is one JSON object with its level and message" python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{")]
assert any(l["level"] == "WARN" and "Slurm" in l["formattedMessage"] for l in lines), lines
' "$json_err"
text_err="$(PATH="$work/failing:$PATH" AUTORESUME_LOG_FORMAT=yaml "$prefix/bin/autoresume" nodes 2>&1 >/dev/null)" || true
check "an unknown AUTORESUME_LOG_FORMAT is said and text is used" contains "$text_err" "autoresume: WARN"
check "... and named" contains "$text_err" "AUTORESUME_LOG_FORMAT must be text or json, not 'yaml'"

# --- man pages and completion, from the picocli model ---------------------------------------
man1="$prefix/share/man/man1"
check "man autoresume renders" contains "$(MANWIDTH=80 man -l "$man1/autoresume.1" 2>&1)" "autoresume - "
for sub in sweep agent supervise node-replace lifecycle-apply; do
  check "man autoresume-$sub renders with its options" contains \
    "$(MANWIDTH=80 man -l "$man1/autoresume-$sub.1" 2>&1)" "OPTIONS"
done
# Every command --help lists has its page.
for sub in $("$prefix/bin/autoresume" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
  check "autoresume-$sub has a man page" test -f "$man1/autoresume-$sub.1"
done
completion="$prefix/share/bash-completion/completions/autoresume"
completed="$(bash -c 'source "$1"; COMP_WORDS=(autoresume sw); COMP_CWORD=1; _complete_autoresume; echo "${COMPREPLY[*]}"' \
  _ "$completion")"
check "bash completes 'autoresume sw' to sweep ($completed)" test "$completed" == "sweep"
completed="$(bash -c 'source "$1"; COMP_WORDS=(autoresume node re); COMP_CWORD=2; _complete_autoresume; echo "${COMPREPLY[*]}"' \
  _ "$completion")"
check "bash completes 'autoresume node re' ($completed)" test "$completed" == "replace resume reboot" -o \
  "$(tr ' ' '\n' <<<"$completed" | sort | tr '\n' ' ')" == "reboot replace resume "
check "the zsh completion sources the installed bash one" \
  grep -qxF "source $completion" "$prefix/share/zsh/site-functions/_autoresume"

# --- the launcher asks for the job's node records while the JVM starts ----------------------
# A stand-in scontrol answers and says what it was asked; a stand-in Java says which descriptor
# the launcher named and what is on it.
standin="$work/standin"
mkdir -p "$standin"
cat >"$standin/scontrol" <<'SCONTROL'
#!/bin/sh
echo "NodeName=node7 NodeAddr=10.1.2.7 asked: $*"
SCONTROL
cat >"$standin/java" <<'JAVA'
#!/bin/bash
fd="${AUTORESUME_NODE_RECORDS_FD:-}"
if [[ -n "$fd" ]]; then echo "fd=$fd: $(cat "/proc/self/fd/$fd")"; else echo "no fd"; fi
JAVA
chmod 0755 "$standin/scontrol" "$standin/java"
piped="$(PATH="$standin:$PATH" AUTORESUME_JAVA="$standin/java" SLURM_JOB_ID=5 SLURM_JOB_NODELIST='node[7-8]' \
  SLURM_JOB_NUM_NODES=2 "$prefix/bin/autoresume" supervise -- srun true)"
check "a supervised step's launcher leaves scontrol's answer for the job's nodes on a pipe" \
  contains "$piped" "NodeAddr=10.1.2.7 asked: -o show node node[7-8]"
unpiped="$(PATH="$standin:$PATH" AUTORESUME_JAVA="$standin/java" SLURM_JOB_ID=5 SLURM_JOB_NODELIST='node[1-300]' \
  SLURM_JOB_NUM_NODES=300 "$prefix/bin/autoresume" supervise -- srun true)"
check "a job of over 256 nodes is left to the supervisor" test "$unpiped" == "no fd"
other="$(PATH="$standin:$PATH" AUTORESUME_JAVA="$standin/java" SLURM_JOB_NODELIST='node[7-8]' SLURM_JOB_NUM_NODES=2 \
  "$prefix/bin/autoresume" nodes)"
check "other commands ask nothing ahead" test "$other" == "no fd"
# nodes and health (with or without --mark): Slurm's release, asked while the JVM starts; the JVM
# reads only the launcher's own pipe, never a descriptor named by the caller's environment.
cat >"$standin/release-java" <<'JAVA'
#!/bin/bash
fd="${AUTORESUME_SLURM_VERSION_FD:-}"
if [[ -n "$fd" ]]; then echo "release: $(cat "/proc/self/fd/$fd")"; else echo "no release fd"; fi
JAVA
chmod 0755 "$standin/release-java"
release_of() { PATH="$standin:$PATH" AUTORESUME_JAVA="$standin/release-java" "$@"; }
for words in "nodes --json" "health --mark" "health" "health --check disk"; do
  # shellcheck disable=SC2086 # split on purpose
  got="$(release_of "$prefix/bin/autoresume" $words)"
  check "$words: the launcher leaves scontrol --version's answer on a pipe ($got)" contains "$got" "asked: --version"
done
got="$(release_of "$prefix/bin/autoresume" env --job 1)"
check "other commands ask nothing ahead ($got)" test "$got" == "no release fd"
got="$(release_of env AUTORESUME_SLURM_VERSION=24.11.5 "$prefix/bin/autoresume" nodes --json)"
check "under the plugin, which names the release, nothing is asked ahead ($got)" test "$got" == "no release fd"
got="$(release_of env AUTORESUME_SLURM_VERSION_FD=0 "$prefix/bin/autoresume" --version)"
check "a descriptor named by the caller is not passed on ($got)" test "$got" == "no release fd"

# Native access: granted only to a Java of 22 or later (its home's release file says), which
# otherwise prints JNA's four warnings into every supervised step's stderr; 17 takes the option
# too but loses its archived module graph with it. Java homes of stand-ins that print their options.
for release in 25.0.1 22 21.0.5 17.0.15 none; do
  mkdir -p "$standin/jdk-$release/bin"
  printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' >"$standin/jdk-$release/bin/java"
  chmod 0755 "$standin/jdk-$release/bin/java"
  [[ "$release" == none ]] || printf 'IMPLEMENTOR="x"\nJAVA_VERSION="%s"\n' "$release" >"$standin/jdk-$release/release"
done
for release in 25.0.1 22; do
  got="$(AUTORESUME_JAVA="$standin/jdk-$release/bin/java" "$prefix/bin/autoresume" nodes)"
  check "a Java $release is granted native access" contains "$got" "--enable-native-access=ALL-UNNAMED"
done
for release in 21.0.5 17.0.15 none; do
  got="$(AUTORESUME_JAVA="$standin/jdk-$release/bin/java" "$prefix/bin/autoresume" nodes)"
  check "a Java $release (none: no release file) is not" absent "$got" "--enable-native-access"
done

# --- lifecycle apply run from the installation leaves its snippet and units alone -------------
# Both would write plugstack.conf.d/auto_resume.conf: apply must not point it back at /usr/local.
# A node as install.sh leaves it, under apply's --root: the snippet naming the plugin in Slurm's
# plugin directory and this installation's launcher.
repo="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../../.." && pwd)"
apply_root="$work/apply-root"
mkdir -p "$apply_root/etc/slurm/plugstack.conf.d"
: >"$apply_root/etc/slurm/slurm.conf"
install -D -m 0755 "$plugin_dir/auto_resume.so" "$apply_root/usr/lib/slurm/auto_resume.so"
node_snippet="optional /usr/lib/slurm/auto_resume.so supervisor=$home/bin/autoresume"
echo "$node_snippet" >"$apply_root/etc/slurm/plugstack.conf.d/auto_resume.conf"
apply_out="$("$prefix/bin/autoresume" lifecycle apply --node controller --root "$apply_root" \
  --provisioning "$repo/local-cluster/provisioning_parameters.json" \
  --resource-config "$repo/local-cluster/resource_config.json" 2>&1)" || true
check "lifecycle apply from the installation keeps install.sh's snippet ($apply_out)" test \
  "$(cat "$apply_root/etc/slurm/plugstack.conf.d/auto_resume.conf" 2>/dev/null)" == "$node_snippet"
check "... and writes no units of its own" test -z "$(find "$apply_root" -name 'autoresume-*.service' -print -quit)"
# Started through a symlinked parent directory (the launcher then keeps the path it was given),
# apply still names the installation by its real path, and so still finds its own snippet.
ln -s "$home" "$work/linked-home"
apply_out="$("$work/linked-home/bin/autoresume" lifecycle apply --node controller --root "$apply_root" \
  --provisioning "$repo/local-cluster/provisioning_parameters.json" \
  --resource-config "$repo/local-cluster/resource_config.json" 2>&1)" || true
check "lifecycle apply through a symlinked home keeps install.sh's snippet ($apply_out)" test \
  "$(cat "$apply_root/etc/slurm/plugstack.conf.d/auto_resume.conf" 2>/dev/null)" == "$node_snippet"
rm -f -- "$work/linked-home"

# --- a second snippet loading the plugin is reported -------------------------------------------
echo "optional /usr/local/lib/slurm/auto_resume.so supervisor=/usr/local/bin/autoresume" > "$plugstack/60-old.conf"
err="$("$src/install.sh" "${options[@]}" 2>&1 >/dev/null)"
check "another snippet loading auto_resume.so is reported ($err)" contains "$err" "$plugstack/60-old.conf also loads auto_resume.so"
rm -f -- "$plugstack/60-old.conf"

# --- idempotent -------------------------------------------------------------------------------
out="$("$src/install.sh" "${options[@]}")"
check "a second install changes nothing ($out)" contains "$out" "Done: 0 change(s)."

# --- upgrade: what the old version had and this one does not goes ------------------------------
echo "old" > "$home/lib/old-dependency.jar"
echo "$home/lib/old-dependency.jar" >> "$home/install-manifest"
echo "site file" > "$home/lib/site-notes.txt"
echo "# the site's own" >> "$root/etc/autoresume/config.yaml"
site_config="$(cat "$root/etc/autoresume/config.yaml")"
out="$("$src/install.sh" "${options[@]}" --no-systemd)"
check "an old version's jar is removed on upgrade" test ! -e "$home/lib/old-dependency.jar"
check "--no-systemd removes the units an earlier install placed" test ! -e "$units/autoresume-agent.service"
check "a file install.sh did not place is kept" test -f "$home/lib/site-notes.txt"
check "an edited site file is never overwritten ($out)" test "$(cat "$root/etc/autoresume/config.yaml")" == "$site_config"
check "... and install.sh says it kept it" contains "$out" "keep $root/etc/autoresume/config.yaml"

# --- uninstall ------------------------------------------------------------------------------
out="$("$home/install.sh" --uninstall --prefix "$prefix" --sysconf-dir "$root/etc" --dry-run)"
check "--uninstall --dry-run changes nothing" test -f "$plugstack/auto_resume.conf" -a -x "$prefix/bin/autoresume"
out="$("$home/install.sh" --uninstall --prefix "$prefix" --sysconf-dir "$root/etc")"
check "--uninstall removes the snippet" test ! -e "$plugstack/auto_resume.conf"
check "--uninstall removes the plugin" test ! -e "$plugin_dir/auto_resume.so"
check "--uninstall removes the command, the launcher and the jars" \
  test ! -e "$prefix/bin" -a ! -e "$home/bin" -a ! -e "$home/lib/autoresume-cli.jar"
check "--uninstall removes all it placed under share ($(find "$prefix/share" -type f))" \
  test "$(find "$prefix/share" -type f)" == "$home/lib/site-notes.txt"
check "--uninstall removes the site files as they were shipped" \
  test ! -e "$root/etc/autoresume/sweep-policy.yaml" -a ! -e "$root/etc/default/autoresume-agent" -a ! -e "$root/etc/nhc"
check "--uninstall keeps an edited site file" test "$(cat "$root/etc/autoresume/config.yaml")" == "$site_config"
check "--uninstall keeps other plugins' snippets" test -f "$plugstack/other.conf"
check "--uninstall keeps files it did not place" test -f "$home/lib/site-notes.txt"
status=0
"$src/install.sh" --uninstall --prefix "$prefix" >/dev/null 2>&1 || status=$?
check "a second --uninstall says there is nothing to remove (exit 1)" test "$status" -eq 1

if [[ "$failures" -ne 0 ]]; then
  echo "install-test: $failures of $checks checks failed" >&2
  exit 1
fi
echo "install-test: all $checks checks passed ($(du -h "$tarball" | cut -f1) tarball)"
