#!/usr/bin/env bash
# Installs slurm-autoresume from this unpacked tarball (as root), or removes it again.
#
# Usage: install.sh [--prefix DIR] [--plugstack-dir DIR] [--snippet NAME]
#                   [--systemd-dir DIR | --no-systemd] [--dry-run] [--uninstall] [--help]
#
#   --prefix DIR         where the toolkit goes (default /opt/autoresume): DIR/bin/autoresume,
#                        DIR/lib/*.jar, DIR/lib/slurm/auto_resume.so, DIR/share/autoresume/
#                        (examples, docs, the units, the logrotate file, the Prometheus
#                        rules and the NHC check as shipped, this script, the manifest),
#                        DIR/share/man/man1 (man autoresume, man autoresume-sweep, ...),
#                        DIR/share/bash-completion and DIR/share/zsh (completion)
#   --plugstack-dir DIR  the directory plugstack.conf includes (default
#                        /etc/slurm/plugstack.conf.d); the snippet written there reads
#                        `optional DIR/lib/slurm/auto_resume.so supervisor=DIR/bin/autoresume`
#   --snippet NAME       the snippet's file name (default auto_resume.conf)
#   --systemd-dir DIR    where the agent and sweep units go (default /etc/systemd/system),
#                        with the prefix's autoresume in ExecStart; never enabled or started
#                        here: the systemctl commands to do so are printed
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

prefix=/opt/autoresume
plugstack_dir=/etc/slurm/plugstack.conf.d
snippet_name=auto_resume.conf
systemd_dir=/etc/systemd/system
with_systemd=1
dry_run=0
uninstall=0

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
    --plugstack-dir) plugstack_dir="$(option_value "$@")"; shift ;;
    --plugstack-dir=*) plugstack_dir="${1#*=}" ;;
    --snippet) snippet_name="$(option_value "$@")"; shift ;;
    --snippet=*) snippet_name="${1#*=}" ;;
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
check_path --systemd-dir "$systemd_dir"
systemd_dir="${systemd_dir%/}"
[[ "$snippet_name" =~ ^[A-Za-z0-9._-]+\.conf$ ]] \
  || usage_error "--snippet must be a file name ending in .conf (plugstack.conf includes *.conf): $snippet_name"

if [[ "$dry_run" -eq 0 && "$(id -u)" -ne 0 ]]; then
  die "run as root (it writes under $prefix, $plugstack_dir and $systemd_dir), or see what it would do with --dry-run"
fi

share="$prefix/share/autoresume"
manifest="$share/install-manifest"
snippet="$plugstack_dir/$snippet_name"
units=(autoresume-agent.service autoresume-sweep.service autoresume-sweep.timer)

say() { printf '%s\n' "$*"; }

# "would " in a dry run, before each verb of the report.
would() {
  [[ "$dry_run" -eq 0 ]] || printf 'would '
}

installed=()     # every file this run placed, for the manifest
changed=0

# place SOURCE TARGET MODE: copies SOURCE to TARGET (root-owned, MODE) unless it is already
# identical; reports what it did.
place() {
  local source="$1" target="$2" mode="$3"
  installed+=("$target")
  if [[ -f "$target" ]] && cmp -s -- "$source" "$target" \
      && [[ "$(stat -c '%a' -- "$target")" == "$mode" ]]; then
    return 0
  fi
  changed=$((changed + 1))
  say "  $(would)$( [[ -e "$target" ]] && echo update || echo install ) $target"
  [[ "$dry_run" -eq 1 ]] || install -D -o root -g root -m "$mode" -- "$source" "$target"
}

# write_file TARGET MODE CONTENT: as place, for generated content (the snippet, the units).
write_file() {
  local target="$1" mode="$2" content="$3" temporary
  installed+=("$target")
  if [[ -f "$target" && "$(cat -- "$target")" == "$content" ]] \
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

remove_file() {
  local file="$1"
  if [[ -e "$file" || -L "$file" ]]; then
    say "  $(would)remove $file"
    [[ "$dry_run" -eq 1 ]] || rm -f -- "$file"
  fi
}

# Removes the directories that held FILE, up to the prefix, while they are empty: only those
# this install made (a shared prefix such as /usr/local keeps everything else).
remove_empty_parents() {
  local dir
  dir="$(dirname -- "$1")"
  [[ "$dry_run" -eq 0 ]] || return 0
  while [[ "$dir" == "$prefix" || "$dir" == "$prefix"/* ]]; do
    rmdir -- "$dir" 2>/dev/null || break
    dir="$(dirname -- "$dir")"
  done
}

do_uninstall() {
  [[ -f "$manifest" ]] || die "nothing to uninstall: $manifest is missing (was the toolkit installed with --prefix $prefix?)"
  say "Removing slurm-autoresume from $prefix$( [[ "$dry_run" -eq 1 ]] && echo ' (dry run: nothing is changed)')"
  local file unit_files=()
  while IFS= read -r file; do
    # The units under the systemd directory, not the shipped copies under the prefix.
    if [[ ("$file" == *.service || "$file" == *.timer) && "$file" != "$prefix"/* ]]; then
      unit_files+=("$file")
    fi
  done < <(previous_files)
  if [[ ${#unit_files[@]} -gt 0 ]]; then
    say "If the units are enabled, stop them first (this script does not touch systemd):"
    say "  systemctl disable --now autoresume-agent.service autoresume-sweep.timer"
  fi
  local files=()
  mapfile -t files < <(previous_files)
  for file in "${files[@]}"; do
    remove_file "$file"
  done
  remove_file "$manifest"
  for file in "${files[@]}" "$manifest"; do
    remove_empty_parents "$file"
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

do_install() {
  local file
  for file in bin/autoresume lib/slurm/auto_resume.so systemd/autoresume-agent.service; do
    [[ -f "$source_dir/$file" ]] \
      || die "$source_dir/$file is missing: run install.sh from an unpacked slurm-autoresume tarball"
  done
  compgen -G "$source_dir/lib/*.jar" >/dev/null || die "no jars in $source_dir/lib: the tarball is incomplete"

  say "Installing slurm-autoresume into $prefix$( [[ "$dry_run" -eq 1 ]] && echo ' (dry run: nothing is changed)')"
  place "$source_dir/bin/autoresume" "$prefix/bin/autoresume" 755
  for file in "$source_dir"/lib/*.jar; do
    place "$file" "$prefix/lib/${file##*/}" 644
  done
  place "$source_dir/lib/slurm/auto_resume.so" "$prefix/lib/slurm/auto_resume.so" 755
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
    write_file "$prefix/share/zsh/site-functions/_autoresume" 644 \
      "${zsh_completion//@AUTORESUME_BASH_COMPLETION@/$bash_completion}"
  fi
  place "$source_dir/install.sh" "$share/install.sh" 755
  while IFS= read -r -d '' file; do
    local relative="${file#"$source_dir"/}"
    place "$file" "$share/$relative" "$( [[ -x "$file" ]] && echo 755 || echo 644 )"
  done < <(find "$source_dir/examples" "$source_dir/docs" "$source_dir/systemd" "$source_dir/logrotate" \
             "$source_dir/monitoring" "$source_dir/nhc" -type f -print0 | sort -z)
  [[ ! -f "$source_dir/README.md" ]] || place "$source_dir/README.md" "$share/README.md" 644

  say "SPANK plugin: $snippet"
  write_file "$snippet" 644 "optional $prefix/lib/slurm/auto_resume.so supervisor=$prefix/bin/autoresume"
  warn_other_snippets

  if [[ "$with_systemd" -eq 1 ]]; then
    say "systemd units: $systemd_dir"
    local unit content
    for unit in "${units[@]}"; do
      content="$(cat -- "$source_dir/systemd/$unit")"
      # The units as shipped name /usr/local/bin/autoresume.
      content="${content//\/usr\/local\/bin\/autoresume/$prefix/bin/autoresume}"
      write_file "$systemd_dir/$unit" 644 "$content"
    done
  fi

  # Rewritten below by --dump-cds, with the Java it is for.
  installed+=("$prefix/lib/autoresume.jsa" "$prefix/lib/autoresume.jsa.java")

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
    if plugin_said="$("$prefix/bin/autoresume" plugin --plugin "$prefix/lib/slurm/auto_resume.so" 2>&1)"; then
      say "SPANK plugin: $plugin_said"
    else
      echo "$prog: warning: $plugin_said" >&2
    fi
  fi

  say "Class-data archive (shorter start-up for every supervised srun)"
  if [[ "$dry_run" -eq 1 ]]; then
    say "  would run $prefix/bin/autoresume --dump-cds"
  elif ! "$prefix/bin/autoresume" --dump-cds; then
    echo "$prog: warning: '$prefix/bin/autoresume --dump-cds' failed (is Java 17 installed?); autoresume works without the archive, run it again once Java is there" >&2
  fi

  if [[ "$dry_run" -eq 0 ]]; then
    install -d -m 0755 -- "$share"
    printf '%s\n' "# Files placed by install.sh; 'install.sh --uninstall --prefix $prefix' removes them." \
      "${installed[@]}" > "$manifest"
    chmod 0644 -- "$manifest"
  fi

  say "Done: $changed change(s)$( [[ "$dry_run" -eq 1 ]] && echo ' would be made')."
  say "Next steps (not done by this script):"
  say "  - Slurm's plugstack.conf must read the snippet: a line \"include $plugstack_dir/*.conf\";"
  say "    new sruns load the plugin, no daemon restart needed"
  say "  - put autoresume on users' PATH, e.g. ln -s $prefix/bin/autoresume /usr/local/bin/autoresume"
  say "  - its man pages and completion: MANPATH=$prefix/share/man (or link $prefix/share/man/man1/*.1"
  say "    into /usr/local/share/man/man1), ln -s $prefix/share/bash-completion/completions/autoresume"
  say "    /etc/bash_completion.d/autoresume; zsh: $prefix/share/zsh/site-functions on fpath"
  if [[ "$with_systemd" -eq 1 ]]; then
    say "  - on compute nodes, the privileged agent:"
    say "      systemctl daemon-reload && systemctl enable --now autoresume-agent.service"
    say "  - on the controller, the stuck-node sweep (policy: $share/examples/sweep-policy.yaml"
    say "    copied to /etc/autoresume/sweep-policy.yaml, see docs/admin.md):"
    say "      systemctl daemon-reload && systemctl enable --now autoresume-sweep.timer"
  fi
  say "  - the audit log's rotation by time (the agent caps its size itself):"
  say "      cp $share/logrotate/autoresume /etc/logrotate.d/autoresume"
  say "  - to remove: $share/install.sh --uninstall --prefix $prefix"
}

if [[ "$uninstall" -eq 1 ]]; then
  do_uninstall
else
  do_install
fi
