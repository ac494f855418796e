#!/usr/bin/env bash
# The EL packages, as far as a Debian machine can check them (no EL system here to run dnf on):
# build them with dist/src/rpm/build-rpms.sh against this machine's Slurm headers, then check
# what a dnf install would rely on and lay them out with rpm into a scratch root:
#   - both released 1.slurmMMmm for the Slurm they were built against; the plugin requires that
#     Slurm major.minor and nothing past it, and the toolkit at the same version-release;
#   - the configuration files are %config (an upgrade never overwrites an edited one);
#   - rpm installs both into an empty root (--root, no scripts: nothing of EL to run them with):
#     /usr/bin/autoresume, the plugin in /usr/lib64/slurm, its plugstack.conf.d snippet naming
#     both, the units running /usr/bin/autoresume and reading /etc/sysconfig; rpm -e removes
#     every file again.
# Usage: rpm-test.sh TARBALL
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
tarball="${1:?usage: rpm-test.sh TARBALL}"
work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
checks=0 failures=0
check() {
  local what="$1"; shift
  checks=$((checks + 1))
  if "$@"; then echo "rpm-test: ok: $what"; else echo "rpm-test: FAIL: $what" >&2; failures=$((failures + 1)); fi
}

bash "$here/../rpm/build-rpms.sh" --tarball "$tarball" --out "$work/rpms" --nodeps >/dev/null
number="$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' /usr/include/slurm/slurm_version.h)"
major=$((number >> 16)) minor=$(((number >> 8) & 255))
release="$(printf '%d.%02d' "$major" "$minor")" next="$(printf '%d.%02d' "$major" $((minor + 1)))"
tag="$(printf 'slurm%02d%02d' "$major" "$minor")"
toolkit="$(ls "$work"/rpms/slurm-autoresume-0*.rpm)"
plugin="$(ls "$work"/rpms/slurm-autoresume-plugin-*.rpm)"

check "both releases name Slurm $release ($tag)" \
  test "$(rpm -qp --qf '%{RELEASE} ' "$toolkit" "$plugin")" = "1.$tag 1.$tag "
requires="$(rpm -qpR "$plugin")"
check "the plugin requires slurm >= $release" grep -qx "slurm(x86-64) >= $release" <<<"$requires"
check "... and slurm < $next" grep -qx "slurm(x86-64) < $next" <<<"$requires"
check "... and the toolkit at its own version-release" \
  grep -qx "slurm-autoresume = $(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$plugin")" <<<"$requires"
check "the toolkit requires Java 17 or later" grep -qx "java-headless >= 1:17" <<<"$(rpm -qpR "$toolkit")"
check "both packages say Apache-2.0" test "$(rpm -qp --qf '%{LICENSE} ' "$toolkit" "$plugin")" = "Apache-2.0 Apache-2.0 "
check "... and ship the license text" \
  test "$(rpm -qpL "$toolkit" "$plugin" | grep -c '/LICENSE$')" = 2
configs="$(rpm -qpc "$toolkit" "$plugin")"
for file in /etc/autoresume/config.yaml /etc/autoresume/sweep-policy.yaml /etc/sysconfig/autoresume-agent \
    /etc/sysconfig/autoresume-sweep /etc/logrotate.d/autoresume /etc/nhc/scripts/autoresume.nhc \
    /etc/slurm/plugstack.conf.d/auto_resume.conf; do
  check "$file is a %config file" grep -qx "$file" <<<"$configs"
done

root="$work/root"
mkdir -p "$root"
rpm --root "$root" --dbpath /var/lib/rpm --initdb
rpm --root "$root" --dbpath /var/lib/rpm -i --nodeps --noscripts "$toolkit" "$plugin" 2>"$work/rpm-i.log" \
  || { cat "$work/rpm-i.log" >&2; echo "rpm-test: FAIL: rpm -i" >&2; exit 1; }
check "rpm installs /usr/bin/autoresume, a link to the launcher" test -L "$root/usr/bin/autoresume" -a -x "$root/usr/share/autoresume/bin/autoresume"
check "... the plugin in EL's Slurm plugin directory" test -f "$root/usr/lib64/slurm/auto_resume.so"
check "... a snippet naming both" grep -qx "optional /usr/lib64/slurm/auto_resume.so supervisor=/usr/share/autoresume/bin/autoresume" \
  "$root/etc/slurm/plugstack.conf.d/auto_resume.conf"
check "... units that run /usr/bin/autoresume" grep -q '^ExecStart=/usr/bin/autoresume agent ' "$root/usr/lib/systemd/system/autoresume-agent.service"
check "... and read /etc/sysconfig" grep -qx 'EnvironmentFile=-/etc/sysconfig/autoresume-agent' "$root/usr/lib/systemd/system/autoresume-agent.service"
check "... the man pages" test -f "$root/usr/share/man/man1/autoresume-sweep.1" -o -f "$root/usr/share/man/man1/autoresume-sweep.1.gz"
rpm --root "$root" --dbpath /var/lib/rpm -e --nodeps --noscripts slurm-autoresume-plugin slurm-autoresume 2>/dev/null
left="$(cd "$root" && find . -mindepth 1 \( -type f -o -type l \) ! -path './var/lib/rpm/*' | head)"
check "rpm -e removes every file again${left:+ (left: $left)}" test -z "$left"

if [[ $failures -ne 0 ]]; then
  echo "rpm-test: $failures of $checks checks failed" >&2
  exit 1
fi
echo "rpm-test: all $checks checks passed"
