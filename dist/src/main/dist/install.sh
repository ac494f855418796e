#!/usr/bin/env bash
# Installs slurm-autoresume from this unpacked tarball (as root), or removes it again, in the
# layout of the Debian and EL packages, for a site that does not use them.
#
# Usage: install.sh [--prefix DIR] [--plugin-dir DIR] [--plugstack-dir DIR] [--snippet NAME]
#                   [--sysconf-dir DIR] [--systemd-dir DIR | --no-systemd]
#                   [--dry-run] [--uninstall] [--help]
#
#   --prefix DIR         default /usr: DIR/share/autoresume/bin/autoresume and its jars in
#                        DIR/share/autoresume/lib, DIR/bin/autoresume (a link to it), and
#                        in DIR/share/autoresume/ as shipped: examples, docs, the units, the
#                        logrotate file, the Prometheus rules and dashboard, the NHC check, this
#                        script and the manifest of what it placed; DIR/share/man/man1 (man
#                        autoresume, man autoresume-sweep, ...), DIR/share/bash-completion and
#                        DIR/share/zsh/vendor-completions (site-functions where the prefix's zsh
#                        has no vendor-completions) for completion
#   --plugin-dir DIR     where auto_resume.so goes (default: Slurm's own plugin directory, the
#                        PluginDir of slurm.conf ($SLURM_CONF, else /etc/slurm/slurm.conf), else
#                        the directory that holds this node's Slurm plugins: Debian's
#                        /usr/lib/<multiarch>/slurm-wlm, EL's /usr/lib64/slurm, ...)
#   --plugstack-dir DIR  the directory plugstack.conf includes (default
#                        /etc/slurm/plugstack.conf.d); the snippet written there reads
#                        `optional PLUGIN-DIR/auto_resume.so supervisor=DIR/share/autoresume/bin/autoresume`
#   --snippet NAME       the snippet's file name (default auto_resume.conf)
#   --sysconf-dir DIR    default /etc: the site's files, placed only where none is (an edited one
#                        is never overwritten, and --uninstall keeps it): DIR/autoresume/config.yaml
#                        and sweep-policy.yaml, the units' options DIR/default/autoresume-agent and
#                        autoresume-sweep (DIR/sysconfig/ on EL), DIR/logrotate.d/autoresume and
#                        DIR/nhc/scripts/autoresume.nhc
#   --systemd-dir DIR    where the agent and sweep units go (default /usr/lib/systemd/system),
#                        with DIR/bin/autoresume in ExecStart; never enabled or started here:
#                        the systemctl commands to do so are printed
#   --no-systemd         install no units
#   --dry-run            print what would be done; change nothing (root not needed)
#   --uninstall          remove what an earlier install into --prefix placed (read from
#                        PREFIX/share/autoresume/install-manifest), snippet and units included
#
# Idempotent: running it again changes only what differs, and files an earlier install placed
# that this version no longer ships (an old jar) are removed. Each node that runs srun (login
# and compute nodes) needs the plugin and the snippet; compute nodes also run the agent; the
# controller runs the sweep timer. Java 17 must be on the nodes (JAVA_HOME or PATH).
set -euo pipefail
umask 022   # what it installs is readable by every user who runs srun

prog="install.sh"
source_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

prefix=/usr
plugin_dir=""
plugstack_dir=/etc/slurm/plugstack.conf.d
snippet_name=auto_resume.conf
sysconf_dir=/etc
systemd_dir=/usr/lib/systemd/system
with_systemd=1
dry_run=0
uninstall=0
# install.sh's prefix before it took the packages' layout: an install there is in the way.
old_default_prefix=/opt/autoresume

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

die() {
  echo "$prog: $*" >&2
  exit 1
}

usage_error() {
  echo "$prog: $* (try --help)" >&2
  exit 2
}

# The value of an option that takes one; refuses a missing value or another option in its place.
option_value() {
  if [[ $# -lt 2 || -z "$2" || "$2" == --* ]]; then
    usage_error "$1 needs a value"
  fi
  printf '%s' "$2"
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix="$(option_value "$@")"; shift ;;
    --prefix=*) prefix="${1#*=}" ;;
    --plugin-dir) plugin_dir="$(option_value "$@")"; shift ;;
    --plugin-dir=*) plugin_dir="${1#*=}" ;;
    --plugstack-dir) plugstack_dir="$(option_value "$@")"; shift ;;
    --plugstack-dir=*) plugstack_dir="${1#*=}" ;;
    --snippet) snippet_name="$(option_value "$@")"; shift ;;
    --snippet=*) snippet_name="${1#*=}" ;;
    --sysconf-dir) sysconf_dir="$(option_value "$@")"; shift ;;
    --sysconf-dir=*) sysconf_dir="${1#*=}" ;;
    --systemd-dir) systemd_dir="$(option_value "$@")"; shift ;;
    --systemd-dir=*) systemd_dir="${1#*=}" ;;
    --no-systemd) with_systemd=0 ;;
    --dry-run|-n) dry_run=1 ;;
    --uninstall) uninstall=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage_error "unknown argument: $1" ;;
  esac
  shift
done

# Paths end up in a plugstack.conf line (split on blanks) and in unit files: absolute, and
# nothing that either format would split or misread.
check_path() {
  local what="$1" path="$2"
  [[ "$path" == /* ]] || usage_error "$what must be an absolute path: $path"
  [[ "$path" =~ ^[A-Za-z0-9._/+@-]+$ ]] \
    || usage_error "$what may hold only letters, digits and . _ / + @ -: $path"
}
check_path --prefix "$prefix"
[[ "$prefix" != / ]] || usage_error "--prefix must not be /"
prefix="${prefix%/}"
check_path --plugstack-dir "$plugstack_dir"
plugstack_dir="${plugstack_dir%/}"
check_path --sysconf-dir "$sysconf_dir"
[[ "$sysconf_dir" != / ]] || usage_error "--sysconf-dir must not be /"
sysconf_dir="${sysconf_dir%/}"
check_path --systemd-dir "$systemd_dir"
systemd_dir="${systemd_dir%/}"
if [[ -n "$plugin_dir" ]]; then
  check_path --plugin-dir "$plugin_dir"
  plugin_dir="${plugin_dir%/}"
fi
[[ "$snippet_name" =~ ^[A-Za-z0-9._-]+\.conf$ ]] \
  || usage_error "--snippet must be a file name ending in .conf (plugstack.conf includes *.conf): $snippet_name"

if [[ "$dry_run" -eq 0 && "$(id -u)" -ne 0 ]]; then
  die "run as root (it writes under $prefix, $sysconf_dir, $plugstack_dir and Slurm's plugin directory), or see what it would do with --dry-run"
fi

share="$prefix/share/autoresume"      # the installation's home: bin/autoresume finds lib/ beside it
launcher="$share/bin/autoresume"
command_link="$prefix/bin/autoresume"
manifest="$share/install-manifest"
snippet="$plugstack_dir/$snippet_name"
units=(autoresume-agent.service autoresume-sweep.service autoresume-sweep.timer)
# The units' options where the distribution keeps its daemons' (Slurm's units read the same).
defaults_dir="$sysconf_dir/default"
if [[ ! -d "$defaults_dir" && -d "$sysconf_dir/sysconfig" ]]; then
  defaults_dir="$sysconf_dir/sysconfig"
fi
zsh_dir="$prefix/share/zsh/vendor-completions"
[[ -d "$zsh_dir" ]] || zsh_dir="$prefix/share/zsh/site-functions"

say() { printf '%s\n' "$*"; }

# "would " in a dry run, before each verb of the report.
would() {
  [[ "$dry_run" -eq 0 ]] || printf 'would '
}

# Slurm's plugin directory: slurm.conf's PluginDir (its first entry), else the first directory
# where this node's Slurm keeps its plugins. Empty when neither is found.
slurm_plugin_dir() {
  local conf="${SLURM_CONF:-/etc/slurm/slurm.conf}" dir
  if [[ -r "$conf" ]]; then
    dir="$(sed -n 's/^[[:space:]]*[Pp][Ll][Uu][Gg][Ii][Nn][Dd][Ii][Rr][[:space:]]*=[[:space:]]*\([^[:space:]#]*\).*/\1/p' \
      -- "$conf" | tail -n 1)"
    dir="${dir%%:*}"
    if [[ -n "$dir" ]]; then
      printf '%s' "$dir"
      return 0
    fi
  fi
  for dir in /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm /usr/local/lib64/slurm; do
    if compgen -G "$dir/select_*.so" >/dev/null; then
      printf '%s' "$dir"
      return 0
    fi
  done
}

installed=()     # every file this run placed, for the manifest
configs=()       # site files placed when absent: "TARGET SHIPPED-COPY" (uninstall removes an unedited one)
changed=0

# place SOURCE TARGET MODE: copies SOURCE to TARGET (root-owned, MODE) unless it is already
# identical; reports what it did.
place() {
  local source="$1" target="$2" mode="$3"
  installed+=("$target")
  if [[ -f "$target" && ! -L "$target" ]] && cmp -s -- "$source" "$target" \
      && [[ "$(stat -c '%a' -- "$target")" == "$mode" ]]; then
    return 0
  fi
  changed=$((changed + 1))
  say "  $(would)$( [[ -e "$target" ]] && echo update || echo install ) $target"
  [[ "$dry_run" -eq 1 ]] || install -D -o root -g root -m "$mode" -- "$source" "$target"
}

# place_link TARGET LINK: LINK made a symbolic link to TARGET (a relative path) unless it is one.
place_link() {
  local target="$1" link="$2"
  installed+=("$link")
  if [[ -L "$link" && "$(readlink -- "$link")" == "$target" ]]; then
    return 0
  fi
  if [[ -e "$link" && ! -L "$link" ]] && ! previous_files | grep -qxF -- "$link"; then
    die "$link exists and is not a link: remove it, or choose another --prefix"
  fi
  changed=$((changed + 1))
  say "  $(would)link $link -> $target"
  [[ "$dry_run" -eq 1 ]] || { install -d -m 0755 -- "$(dirname -- "$link")"; ln -sfn -- "$target" "$link"; }
}

# place_config SOURCE TARGET: a site file, placed only where there is none; SOURCE is the copy
# under the installation's share directory that an unedited TARGET equals.
place_config() {
  local source="$1" target="$2"
  if [[ -e "$target" || -L "$target" ]]; then
    if [[ -f "$target" && ! -L "$target" ]] && cmp -s -- "$source" "$target"; then
      configs+=("$target ${source#"$share"/}")
    else
      say "  keep $target (the site's; the shipped one is $source)"
    fi
    return 0
  fi
  configs+=("$target ${source#"$share"/}")
  changed=$((changed + 1))
  say "  $(would)install $target"
  [[ "$dry_run" -eq 1 ]] || install -D -o root -g root -m 0644 -- "$source" "$target"
}

# write_file TARGET MODE CONTENT: as place, for generated content (the snippet, the units).
write_file() {
  local target="$1" mode="$2" content="$3" temporary
  installed+=("$target")
  if [[ -f "$target" && ! -L "$target" && "$(cat -- "$target")" == "$content" ]] \
      && [[ "$(stat -c '%a' -- "$target")" == "$mode" ]]; then
    return 0
  fi
  changed=$((changed + 1))
  say "  $(would)$( [[ -e "$target" ]] && echo update || echo write ) $target"
  if [[ "$dry_run" -eq 1 ]]; then
    # The lines that depend on the options: the snippet, and the units' ExecStart.
    printf '%s\n' "$content" | grep -E '^(optional|ExecStart=)' | sed 's/^/    | /' || true
    return 0
  fi
  install -d -m 0755 -- "$(dirname -- "$target")"
  # Replaced in one step: a srun starting meanwhile reads the old snippet or the new, never half.
  temporary="$(mktemp -- "$(dirname -- "$target")/.autoresume-install.XXXXXX")"
  printf '%s\n' "$content" > "$temporary"
  chmod "$mode" -- "$temporary"
  mv -f -- "$temporary" "$target"
}

# Files listed in the manifest of an earlier install, one absolute path a line.
previous_files() {
  if [[ -f "$manifest" ]]; then
    grep -E '^/' -- "$manifest" || true
  fi
}

# Site files of an earlier install: "TARGET SHIPPED-COPY" a line.
previous_configs() {
  if [[ -f "$manifest" ]]; then
    sed -n 's/^config //p' -- "$manifest"
  fi
}

remove_file() {
  local file="$1"
  if [[ -e "$file" || -L "$file" ]]; then
    say "  $(would)remove $file"
    [[ "$dry_run" -eq 1 ]] || rm -f -- "$file"
  fi
}

# remove_empty_parents FILE TOP [THROUGH]: removes the directories that held FILE while they
# are empty, up to TOP, and TOP itself when THROUGH is 1: the prefix goes when empty (a shared
# prefix such as /usr keeps everything else), the sysconf dir never does. Slurm's and systemd's
# directories stay, empty or not.
remove_empty_parents() {
  local dir top="$2" through="${3:-0}"
  [[ "$dry_run" -eq 0 ]] || return 0
  dir="$(dirname -- "$1")"
  while [[ "$dir" == "$top"/* || ( "$through" -eq 1 && "$dir" == "$top" ) ]]; do
    rmdir -- "$dir" 2>/dev/null || return 0
    dir="$(dirname -- "$dir")"
  done
}

do_uninstall() {
  [[ -f "$manifest" ]] || die "nothing to uninstall: $manifest is missing (was the toolkit installed with --prefix $prefix?)"
  say "Removing slurm-autoresume from $prefix$( [[ "$dry_run" -eq 1 ]] && echo ' (dry run: nothing is changed)')"
  local file shipped unit_files=()
  while IFS= read -r file; do
    # The units under the systemd directory, not the shipped copies under the prefix.
    if [[ ("$file" == *.service || "$file" == *.timer) && "$file" != "$share"/* ]]; then
      unit_files+=("$file")
    fi
  done < <(previous_files)
  if [[ ${#unit_files[@]} -gt 0 ]]; then
    say "If the units are enabled, stop them first (this script does not touch systemd):"
    say "  systemctl disable --now autoresume-agent.service autoresume-sweep.timer"
  fi
  # Before the shipped copies go: a site file is removed only as it was shipped.
  local config_files=()
  while read -r file shipped; do
    if [[ -f "$file" && ! -L "$file" ]] && cmp -s -- "$share/$shipped" "$file"; then
      config_files+=("$file")
      remove_file "$file"
    elif [[ -e "$file" ]]; then
      say "  keep $file (changed since it was installed)"
    fi
  done < <(previous_configs)
  local files=()
  mapfile -t files < <(previous_files)
  for file in "${files[@]}"; do
    remove_file "$file"
  done
  remove_file "$manifest"
  for file in "${files[@]}" "$manifest"; do
    remove_empty_parents "$file" "$prefix" 1
  done
  for file in "${config_files[@]}"; do
    remove_empty_parents "$file" "$sysconf_dir"
  done
  if [[ ${#unit_files[@]} -gt 0 ]]; then
    say "Then: systemctl daemon-reload"
  fi
  say "Done."
}

# Two snippets that load auto_resume.so (another prefix's, or the /usr/local one that
# `autoresume lifecycle apply` and `make install` write) register --auto-resume twice: say so.
warn_other_snippets() {
  local other
  [[ -d "$plugstack_dir" ]] || return 0
  for other in "$plugstack_dir"/*.conf; do
    [[ -f "$other" && "$other" != "$snippet" ]] || continue
    if grep -qE '^[[:space:]]*(optional|required)[[:space:]]+[^[:space:]]*auto_resume\.so' -- "$other"; then
      echo "$prog: warning: $other also loads auto_resume.so; keep one of the two snippets" >&2
    fi
  done
}

# Another installation where this one goes, or one that writes the same snippet: stop, and say
# how to remove it, rather than leave two toolkits whose uninstalls remove each other's files.
refuse_other_installations() {
  if [[ ! -f "$manifest" && ( -e "$launcher" || -e "$command_link" ) ]]; then
    die "$( [[ -e "$launcher" ]] && echo "$launcher" || echo "$command_link" ) belongs to another installation (the slurm-autoresume package?): remove that one first, or choose another --prefix"
  fi
  local old="$old_default_prefix/share/autoresume/install-manifest"
  if [[ "$prefix" != "$old_default_prefix" && -f "$old" ]] && grep -qxF -- "$snippet" "$old"; then
    die "an earlier install.sh placed slurm-autoresume in $old_default_prefix (its default then) with the same snippet $snippet: remove it first with $old_default_prefix/share/autoresume/install.sh --uninstall --prefix $old_default_prefix"
  fi
}

do_install() {
  local file
  for file in bin/autoresume lib/slurm/auto_resume.so systemd/autoresume-agent.service defaults/autoresume-agent; do
    [[ -f "$source_dir/$file" ]] \
      || die "$source_dir/$file is missing: run install.sh from an unpacked slurm-autoresume tarball"
  done
  compgen -G "$source_dir/lib/*.jar" >/dev/null || die "no jars in $source_dir/lib: the tarball is incomplete"
  if [[ -z "$plugin_dir" ]]; then
    plugin_dir="$(slurm_plugin_dir)"
    [[ -n "$plugin_dir" ]] || die "cannot find Slurm's plugin directory (no PluginDir in ${SLURM_CONF:-/etc/slurm/slurm.conf}, no Slurm plugins in /usr/lib/*/slurm-wlm, /usr/lib64/slurm, /usr/lib/slurm, /usr/local/lib/slurm): install Slurm first, or name it with --plugin-dir"
    check_path "Slurm's plugin directory" "$plugin_dir"
  fi
  local plugin="$plugin_dir/auto_resume.so"
  refuse_other_installations

  say "Installing slurm-autoresume into $prefix$( [[ "$dry_run" -eq 1 ]] && echo ' (dry run: nothing is changed)')"
  place "$source_dir/bin/autoresume" "$launcher" 755
  for file in "$source_dir"/lib/*.jar; do
    place "$file" "$share/lib/${file##*/}" 644
  done
  place_link ../share/autoresume/bin/autoresume "$command_link"
  place "$source_dir/lib/slurm/auto_resume.so" "$plugin" 755
  # Man pages and completion, generated from the same picocli model as --help.
  for file in "$source_dir"/share/man/man1/*.1; do
    [[ ! -f "$file" ]] || place "$file" "$prefix/share/man/man1/${file##*/}" 644
  done
  local bash_completion="$prefix/share/bash-completion/completions/autoresume"
  if [[ -f "$source_dir/share/bash-completion/completions/autoresume" ]]; then
    place "$source_dir/share/bash-completion/completions/autoresume" "$bash_completion" 644
  fi
  if [[ -f "$source_dir/share/zsh/site-functions/_autoresume" ]]; then
    local zsh_completion
    zsh_completion="$(cat -- "$source_dir/share/zsh/site-functions/_autoresume")"
    write_file "$zsh_dir/_autoresume" 644 "${zsh_completion//@AUTORESUME_BASH_COMPLETION@/$bash_completion}"
  fi
  place "$source_dir/install.sh" "$share/install.sh" 755
  while IFS= read -r -d '' file; do
    local relative="${file#"$source_dir"/}"
    place "$file" "$share/$relative" "$( [[ -x "$file" ]] && echo 755 || echo 644 )"
  done < <(find "$source_dir/examples" "$source_dir/docs" "$source_dir/systemd" "$source_dir/logrotate" \
             "$source_dir/monitoring" "$source_dir/nhc" "$source_dir/defaults" -type f -print0 | sort -z)
  [[ ! -f "$source_dir/README.md" ]] || place "$source_dir/README.md" "$share/README.md" 644
  [[ ! -f "$source_dir/LICENSE" ]] || place "$source_dir/LICENSE" "$share/LICENSE" 644

  say "Site files (placed where there are none; yours are kept):"
  place_config "$share/examples/config/site.yaml" "$sysconf_dir/autoresume/config.yaml"
  place_config "$share/examples/sweep-policy.yaml" "$sysconf_dir/autoresume/sweep-policy.yaml"
  place_config "$share/defaults/autoresume-agent" "$defaults_dir/autoresume-agent"
  place_config "$share/defaults/autoresume-sweep" "$defaults_dir/autoresume-sweep"
  place_config "$share/logrotate/autoresume" "$sysconf_dir/logrotate.d/autoresume"
  place_config "$share/nhc/autoresume.nhc" "$sysconf_dir/nhc/scripts/autoresume.nhc"

  say "SPANK plugin: $snippet"
  write_file "$snippet" 644 "optional $plugin supervisor=$launcher"
  warn_other_snippets

  if [[ "$with_systemd" -eq 1 ]]; then
    say "systemd units: $systemd_dir"
    local unit content
    for unit in "${units[@]}"; do
      content="$(cat -- "$source_dir/systemd/$unit")"
      # The units as shipped name /usr/local/bin/autoresume.
      content="${content//\/usr\/local\/bin\/autoresume/$command_link}"
      write_file "$systemd_dir/$unit" 644 "$content"
    done
  fi

  # Rewritten below by --dump-cds, with the Java it is for.
  installed+=("$share/lib/autoresume.jsa" "$share/lib/autoresume.jsa.java" "$share/lib/autoresume-cli.jsa")

  # What an earlier install placed and this one does not (an old version's jar, the units after
  # --no-systemd) goes, so the launcher's lib/* never mixes versions.
  local old keep header=0
  while IFS= read -r old; do
    keep=0
    for file in "${installed[@]}" "$manifest"; do
      [[ "$old" == "$file" ]] && { keep=1; break; }
    done
    if [[ "$keep" -eq 0 ]]; then
      [[ "$header" -eq 1 ]] || { say "Left by an earlier install, no longer part of this one:"; header=1; }
      remove_file "$old"
      changed=$((changed + 1))
    fi
  done < <(previous_files)

  # srun loads a SPANK plugin only into the Slurm release it was built for: say now, not at the
  # first srun --auto-resume=1, when this node runs another one.
  if [[ "$dry_run" -eq 0 ]] && command -v scontrol >/dev/null 2>&1; then
    local plugin_said
    if plugin_said="$("$launcher" plugin --plugin "$plugin" 2>&1)"; then
      say "SPANK plugin: $plugin_said"
    else
      echo "$prog: warning: $plugin_said" >&2
    fi
  fi

  say "Class-data archive (shorter start-up for every supervised srun)"
  if [[ "$dry_run" -eq 1 ]]; then
    say "  would run $launcher --dump-cds"
  elif ! "$launcher" --dump-cds; then
    echo "$prog: warning: '$launcher --dump-cds' failed (is Java 17 installed?); autoresume works without the archive, run it again once Java is there" >&2
  fi

  if [[ "$dry_run" -eq 0 ]]; then
    install -d -m 0755 -- "$share"
    {
      printf '%s\n' "# Files placed by install.sh; '$share/install.sh --uninstall --prefix $prefix' removes them." \
        "# 'config TARGET COPY': a site file, removed only while it equals the shipped COPY under $share." \
        "${installed[@]}"
      [[ ${#configs[@]} -eq 0 ]] || printf 'config %s\n' "${configs[@]}"
    } > "$manifest"
    chmod 0644 -- "$manifest"
  fi

  say "Done: $changed change(s)$( [[ "$dry_run" -eq 1 ]] && echo ' would be made')."
  say "Next steps (not done by this script):"
  say "  - Slurm's plugstack.conf must read the snippet: a line \"include $plugstack_dir/*.conf\";"
  say "    new sruns load the plugin, no daemon restart needed"
  if [[ "$with_systemd" -eq 1 ]]; then
    say "  - on compute nodes, the privileged agent (its options: $defaults_dir/autoresume-agent):"
    say "      systemctl daemon-reload && systemctl enable --now autoresume-agent.service"
    say "  - on the controller, the stuck-node sweep (its policy: $sysconf_dir/autoresume/sweep-policy.yaml,"
    say "    see docs/admin.md):"
    say "      systemctl daemon-reload && systemctl enable --now autoresume-sweep.timer"
  fi
  say "  - to remove: $share/install.sh --uninstall --prefix $prefix"
}

if [[ "$uninstall" -eq 1 ]]; then
  do_uninstall
else
  do_install
fi
