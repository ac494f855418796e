#!/usr/bin/env bash
# Builds the Debian packages from the distribution tarball (the same files install.sh places):
#
#   slurm-autoresume_VERSION_all.deb
#       the autoresume command and its jars, man pages, completion, the systemd units (never
#       enabled by a package), /etc/autoresume/{config.yaml,sweep-policy.yaml},
#       /etc/default/autoresume-{agent,sweep} and /etc/logrotate.d/autoresume as conffiles, the Prometheus
#       rules and Grafana dashboard, the examples and the docs
#   slurm-autoresume-plugin_VERSION+slurmMMmm_ARCH.deb
#       the SPANK plugin in Slurm's plugin directory and its plugstack.conf.d snippet. A SPANK
#       plugin loads only into the Slurm major.minor it was built for, so this package's
#       release names that release and it depends on it: apt refuses a Slurm upgrade that would
#       leave the plugin behind, instead of every srun --auto-resume=1 failing afterwards
#
# Usage: build-debs.sh --tarball FILE --out DIR [--plugin FILE --slurm-root DIR] [--revision N]
#                      [--if-debian]
#
#   --tarball FILE     slurm-autoresume-VERSION.tar.gz (the dist module's package phase makes it)
#   --out DIR          where the .deb files go (made if missing)
#   --plugin FILE      the auto_resume.so to package (default: the tarball's, built against
#                      this machine's Slurm headers)
#   --slurm-root DIR   the root whose Slurm headers the plugin was built against (default /): its
#                      usr/include/slurm/slurm_version.h gives the release the package names
#   --revision N       the Debian revision (default 1); a rebuild of the same version that must
#                      upgrade an installed one takes a higher N
#   --if-debian        on a machine without dpkg (an EL build host), say so and build nothing
#                      instead of failing (the Maven build passes it)
#
# Needs dpkg-deb, gzip, strip and objdump (binutils). Builds as any user: ownership is set to
# root in the packages themselves (dpkg-deb --root-owner-group).
set -euo pipefail
umask 022

prog="build-debs.sh"
die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

tarball="" out="" plugin="" slurm_root="/" revision=1 if_debian=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tarball) tarball="${2:-}"; shift ;;
    --out) out="${2:-}"; shift ;;
    --plugin) plugin="${2:-}"; shift ;;
    --slurm-root) slurm_root="${2:-}"; shift ;;
    --revision) revision="${2:-}"; shift ;;
    --if-debian) if_debian=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$prog: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if [[ $if_debian -eq 1 ]] && ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "$prog: no dpkg-deb on this machine: no Debian packages built" >&2
  exit 0
fi
[[ -f "$tarball" ]] || die "--tarball must name the distribution tarball: '$tarball'"
[[ -n "$out" ]] || die "--out DIR is required"
[[ "$revision" =~ ^[1-9][0-9]{0,5}$ ]] || die "--revision must be a positive number: '$revision'"
for tool in dpkg-deb gzip strip objdump; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install dpkg-dev binutils)"
done

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
tar -xzf "$tarball" -C "$work"
src="$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm-autoresume-*' | head -n 1)"
[[ -n "$src" && -x "$src/bin/autoresume" ]] || die "$tarball is not a slurm-autoresume tarball"
[[ -n "$plugin" ]] || plugin="$src/lib/slurm/auto_resume.so"
[[ -f "$plugin" ]] || die "no plugin at $plugin"

# Maven's 0.1.0-SNAPSHOT becomes 0.1.0~SNAPSHOT: a snapshot sorts before its release.
maven_version="${src##*/slurm-autoresume-}"
upstream="${maven_version//-/\~}"
[[ "$upstream" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "unexpected version in the tarball's name: $maven_version"
version="$upstream-$revision"

version_h="${slurm_root%/}/usr/include/slurm/slurm_version.h"
[[ -r "$version_h" ]] || die "no $version_h: the plugin's Slurm release is read from the headers it was built against"
number="$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$version_h")"
[[ "$number" =~ ^0x[0-9a-fA-F]{6}$ ]] || die "no SLURM_VERSION_NUMBER in $version_h"
slurm_major=$(( number >> 16 )) slurm_minor=$(( (number >> 8) & 0xff ))
slurm_release="$(printf '%d.%02d' "$slurm_major" "$slurm_minor")"
slurm_tag="$(printf 'slurm%02d%02d' "$slurm_major" "$slurm_minor")"
# The release after this one: 22.05 is followed by 23.02, but any 22.x above 22.05 is already
# another ABI, so the bound is the next minor number.
slurm_next="$(printf '%d.%02d' "$slurm_major" $((slurm_minor + 1)))"
plugin_version="$version+$slurm_tag"

arch="$(dpkg --print-architecture)"
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
plugin_dir="/usr/lib/$multiarch/slurm-wlm"     # Debian's PluginDir for slurm-wlm
home="/usr/share/autoresume"                    # bin/autoresume and lib/*.jar, as in the tarball
maintainer="slurm-autoresume maintainers <maintainers@users.noreply.a-seed-91af88d3.example>"
date_rfc="$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(stat -c %Y "$tarball")}")"

# --- shared pieces --------------------------------------------------------------------------

write_copyright() { # DIR
  install -d "$1"
  cat > "$1/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: slurm-autoresume

Files: *
Copyright: 2026 the slurm-autoresume authors
License: Apache-2.0
Comment: The bundled third-party jars keep their own licenses (picocli, Jackson, JNA,
 Apache Commons Exec, Logback, SLF4J, SnakeYAML, Prometheus client): Apache-2.0 or MIT or
 EPL-1.0/LGPL-2.1 (Logback), as their jars state.

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this
 software except in compliance with the License. You may obtain a copy of the License at
 .
 http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software distributed under the
 License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
 either express or implied. See the License for the specific language governing permissions
 and limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be found in
 "/usr/share/common-licenses/Apache-2.0".
COPYRIGHT
}

write_changelog() { # DIR PACKAGE VERSION
  install -d "$1"
  printf '%s (%s) unstable; urgency=medium\n\n  * Built from slurm-autoresume %s.\n\n -- %s  %s\n' \
    "$2" "$3" "$maven_version" "$maintainer" "$date_rfc" | gzip -9n > "$1/changelog.Debian.gz"
}

# md5sums over every file but DEBIAN/, and the package itself; files and directories as
# Debian wants them (0644/0755 unless executable), owned by root whoever builds.
finish_package() { # ROOT OUTPUT
  local root="$1" output="$2"
  find "$root" -path "$root/DEBIAN" -prune -o -type d -exec chmod 0755 {} +
  (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z \
     | xargs -0 -r md5sum) > "$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"
  [[ ! -f "$root/DEBIAN/conffiles" ]] || chmod 0644 "$root/DEBIAN/conffiles"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$output" >/dev/null
  echo "$prog: built $output"
}

installed_size() { du -sk --exclude=DEBIAN "$1" | cut -f1; }

# --- slurm-autoresume (the toolkit) ----------------------------------------------------------

root="$work/toolkit"
doc="$root/usr/share/doc/slurm-autoresume"
install -d "$root/DEBIAN" "$root/usr/bin" "$root$home/bin" "$root$home/lib"
install -m 0755 "$src/bin/autoresume" "$root$home/bin/autoresume"
install -m 0644 "$src"/lib/*.jar "$root$home/lib/"
ln -s "../share/autoresume/bin/autoresume" "$root/usr/bin/autoresume"
# Man pages compressed as Debian's tools do; completion where bash-completion and zsh look.
install -d "$root/usr/share/man/man1"
for page in "$src"/share/man/man1/*.1; do
  gzip -9n < "$page" > "$root/usr/share/man/man1/${page##*/}.gz"
done
# A completion file is sourced, never run: no #! line (picocli writes one).
install -d "$root/usr/share/bash-completion/completions"
sed '1{/^#!/d}' "$src/share/bash-completion/completions/autoresume" \
  > "$root/usr/share/bash-completion/completions/autoresume"
install -d "$root/usr/share/zsh/vendor-completions"
sed 's#@AUTORESUME_BASH_COMPLETION@#/usr/share/bash-completion/completions/autoresume#' \
  "$src/share/zsh/site-functions/_autoresume" > "$root/usr/share/zsh/vendor-completions/_autoresume"
# Units name /usr/bin/autoresume; a package never enables them (see postinst).
install -d "$root/usr/lib/systemd/system"
for unit in "$src"/systemd/*.service "$src"/systemd/*.timer; do
  sed 's#/usr/local/bin/autoresume#/usr/bin/autoresume#g' "$unit" \
    > "$root/usr/lib/systemd/system/${unit##*/}"
done
install -D -m 0644 "$src/examples/config/site.yaml" "$root/etc/autoresume/config.yaml"
install -D -m 0644 "$src/examples/sweep-policy.yaml" "$root/etc/autoresume/sweep-policy.yaml"
install -D -m 0644 "$src/logrotate/autoresume" "$root/etc/logrotate.d/autoresume"
# For sites whose HealthCheckProgram is LBNL NHC: enabled by a line in their nhc.conf.
install -D -m 0644 "$src/nhc/autoresume.nhc" "$root/etc/nhc/scripts/autoresume.nhc"
install -D -m 0644 "$src/defaults/autoresume-agent" "$root/etc/default/autoresume-agent"
install -D -m 0644 "$src/defaults/autoresume-sweep" "$root/etc/default/autoresume-sweep"
cp -r "$src/monitoring" "$root$home/monitoring"
install -d "$doc"
# Scripts users copy into their jobs, where Debian keeps examples; a file without a #! line
# (the heartbeat module, imported) is not executable.
cp -r "$src/examples" "$doc/examples"
find "$doc/examples" -type f -perm -u+x -print0 | while IFS= read -r -d '' file; do
  head -c 2 "$file" | grep -q '^#!' || chmod 0644 "$file"
done
for file in "$src"/README.md "$src"/docs/*.md; do
  gzip -9n < "$file" > "$doc/${file##*/}.gz"
done
write_copyright "$doc"
write_changelog "$doc" slurm-autoresume "$version"
# Each tag lintian reports that is right for this package, with the reason.
install -d "$root/usr/share/lintian/overrides"
cat > "$root/usr/share/lintian/overrides/slurm-autoresume" <<'OVERRIDES'
# Built by the project for sites' own repositories, not uploaded to Debian: no ITP bug to close.
slurm-autoresume: initial-upload-closes-no-bugs
OVERRIDES
find "$root/usr/share" "$root/etc" -type f ! -perm -u+x -exec chmod 0644 {} +

cat > "$root/DEBIAN/conffiles" <<'CONFFILES'
/etc/autoresume/config.yaml
/etc/autoresume/sweep-policy.yaml
/etc/default/autoresume-agent
/etc/default/autoresume-sweep
/etc/logrotate.d/autoresume
/etc/nhc/scripts/autoresume.nhc
CONFFILES

# The class-data archive is made on the node for the Java installed there (the launcher's
# --dump-cds), so dpkg does not own it: postinst writes it, prerm removes it.
cat > "$root/DEBIAN/postinst" <<POSTINST
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
    # A shorter start for every supervised srun; autoresume works without it.
    $home/bin/autoresume --dump-cds >/dev/null 2>&1 \\
        || echo "slurm-autoresume: '$home/bin/autoresume --dump-cds' failed; autoresume runs without the archive" >&2
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload >/dev/null || true
        # A running agent keeps the jars it loaded until it restarts; an upgrade restarts it.
        if [ -n "\$2" ]; then
            deb-systemd-invoke try-restart autoresume-agent.service >/dev/null || true
        fi
    fi
fi
exit 0
POSTINST
cat > "$root/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
if [ "\$1" = remove ] && [ -d /run/systemd/system ]; then
    deb-systemd-invoke stop autoresume-agent.service autoresume-sweep.timer autoresume-sweep.service >/dev/null || true
fi
if [ "\$1" = remove ] || [ "\$1" = upgrade ]; then
    rm -f $home/lib/autoresume.jsa $home/lib/autoresume.jsa.java $home/lib/autoresume-cli.jsa
fi
exit 0
PRERM
# Purge: what the agent and the sweep wrote (audit log, mark ledger), and any enabling an
# administrator did, so that nothing of the toolkit is left.
cat > "$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ "$1" = purge ]; then
    rm -rf /var/log/autoresume /var/lib/autoresume
    rmdir /etc/autoresume 2>/dev/null || true
    for unit in autoresume-agent.service autoresume-sweep.timer; do
        rm -f "/etc/systemd/system/multi-user.target.wants/$unit" "/etc/systemd/system/timers.target.wants/$unit"
    done
fi
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
exit 0
POSTRM
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"

cat > "$root/DEBIAN/control" <<CONTROL
Package: slurm-autoresume
Version: $version
Architecture: all
Maintainer: $maintainer
Installed-Size: $(installed_size "$root")
Depends: default-jre-headless (>= 2:1.17) | java17-runtime-headless, slurm-client
Recommends: slurm-autoresume-plugin
Suggests: prometheus, logrotate
Section: admin
Priority: optional
Description: auto-resume for Slurm training jobs: supervisor, node agent, admin tools
 slurm-autoresume re-runs only the failed job step of a multi-node training job
 (srun --auto-resume=1), on an allocation repaired by replacing the faulty node,
 with freshly resolved NODE_LIST and MASTER_ADDR.
 .
 This package holds the autoresume command: the step supervisor the SPANK plugin
 hands each protected srun to, the root agent for every compute node, the
 stuck-node sweep and the admin node commands, with their systemd units (not
 enabled), man pages, shell completion, a Prometheus rules file and a Grafana
 dashboard. The plugin itself is in slurm-autoresume-plugin.
CONTROL
install -d "$out"
finish_package "$root" "$out/slurm-autoresume_${version}_all.deb"

# --- slurm-autoresume-plugin (the SPANK plugin, per Slurm release) ------------------------

root="$work/plugin"
doc="$root/usr/share/doc/slurm-autoresume-plugin"
install -d "$root/DEBIAN" "$root$plugin_dir"
install -m 0644 "$plugin" "$root$plugin_dir/auto_resume.so"
# The debugging symbols stay in the build; plugin_version stays in .dynsym, where
# `autoresume plugin` reads the release the file was built for.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root$plugin_dir/auto_resume.so"
install -d "$root/etc/slurm/plugstack.conf.d"
cat > "$root/etc/slurm/plugstack.conf.d/auto_resume.conf" <<SNIPPET
# slurm-autoresume: srun --auto-resume=1 (and sbatch/salloc --auto-resume=1 as a job's default).
# optional: a plugin that cannot load (built for another Slurm release) is skipped rather than
# failing every srun; \`autoresume plugin\` and \`autoresume health\` say when that happens.
optional $plugin_dir/auto_resume.so supervisor=$home/bin/autoresume
SNIPPET
chmod 0644 "$root/etc/slurm/plugstack.conf.d/auto_resume.conf"
write_copyright "$doc"
write_changelog "$doc" slurm-autoresume-plugin "$plugin_version"
echo /etc/slurm/plugstack.conf.d/auto_resume.conf > "$root/DEBIAN/conffiles"
# The newest glibc symbol version the plugin needs, as dpkg-shlibdeps would work it out.
glibc="$(objdump -T "$root$plugin_dir/auto_resume.so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
[[ -n "$glibc" ]] || die "objdump found no glibc symbol version in $plugin"
# Said once at install: whether the running Slurm is the release this plugin was built for.
cat > "$root/DEBIAN/postinst" <<POSTINST
#!/bin/sh
set -e
if [ "\$1" = configure ] && command -v scontrol >/dev/null 2>&1; then
    autoresume plugin --plugin $plugin_dir/auto_resume.so >&2 || true
fi
exit 0
POSTINST
chmod 0755 "$root/DEBIAN/postinst"

cat > "$root/DEBIAN/control" <<CONTROL
Package: slurm-autoresume-plugin
Version: $plugin_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(installed_size "$root")
Depends: libc6 (>= $glibc), slurm-autoresume (= $version), slurm-client (>= $slurm_release), slurm-client (<< $slurm_next)
Section: admin
Priority: optional
Description: auto-resume for Slurm training jobs: SPANK plugin for Slurm $slurm_release
 slurm-autoresume re-runs only the failed job step of a multi-node training job
 (srun --auto-resume=1), on an allocation repaired by replacing the faulty node.
 .
 This package holds the SPANK plugin that adds --auto-resume to srun, sbatch and
 salloc and hands a protected step to the autoresume supervisor, with its
 plugstack.conf.d snippet. It is built for Slurm $slurm_release only: SPANK has no
 stable ABI, so upgrading Slurm to another release needs this package rebuilt
 against that release first.
CONTROL
finish_package "$root" "$out/slurm-autoresume-plugin_${plugin_version}_${arch}.deb"
