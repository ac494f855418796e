#!/usr/bin/env bash
# Builds the EL packages with rpmbuild and dist/src/rpm/slurm-autoresume.spec: slurm-autoresume
# (the toolkit) and slurm-autoresume-plugin (the SPANK plugin, compiled from spank-shim/ against
# this machine's Slurm headers), both released as 1.slurmMMmm<dist>.
#
# Usage: build-rpms.sh --tarball FILE --out DIR [--nodeps]
#
#   --tarball FILE   slurm-autoresume-VERSION.tar.gz (the dist module makes it)
#   --out DIR        where the .rpm files go
#   --nodeps         do not ask rpm for the build dependencies (gcc, make, slurm-devel) by
#                    package name: on a machine whose Slurm headers are not from an rpm (the
#                    Debian test machine), /usr/include/slurm is used as it is
#
# On an EL build host with slurm-devel for the cluster's Slurm: build-rpms.sh --tarball ... --out ...
set -euo pipefail
prog="build-rpms.sh"
die() { echo "$prog: $*" >&2; exit 1; }
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd -- "$here/../../.." && pwd)"

tarball="" out="" nodeps=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tarball) tarball="${2:-}"; shift ;;
    --out) out="${2:-}"; shift ;;
    --nodeps) nodeps=(--nodeps) ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$prog: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ -f "$tarball" ]] || die "--tarball must name the distribution tarball: '$tarball'"
[[ -n "$out" ]] || die "--out DIR is required"
command -v rpmbuild >/dev/null 2>&1 || die "rpmbuild is missing (EL: dnf install rpm-build; Debian: apt-get install rpm)"
[[ -r /usr/include/slurm/slurm_version.h ]] || die "no /usr/include/slurm/slurm_version.h: install Slurm's headers (slurm-devel)"

name="$(basename -- "$tarball" .tar.gz)"
tarball_version="${name#slurm-autoresume-}"
[[ "$tarball_version" =~ ^[0-9][A-Za-z0-9.-]*$ ]] || die "unexpected tarball name: $name"
top="$(mktemp -d)"
trap 'rm -rf -- "$top"' EXIT
mkdir -p "$top"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
cp -- "$tarball" "$top/SOURCES/"
# The plugin's sources, built by the spec against the Slurm headers of the build host.
tar -czf "$top/SOURCES/spank-shim-$tarball_version.tar.gz" -C "$repo" --exclude=spank-shim/build \
  --exclude=spank-shim/pom.xml spank-shim
sed "s/^Version: .*/Version:        ${tarball_version//-/\~}/" "$here/slurm-autoresume.spec" > "$top/SPECS/slurm-autoresume.spec"
rpmbuild -bb --quiet "${nodeps[@]}" --define "_topdir $top" --define "tarball_version $tarball_version" \
  "$top/SPECS/slurm-autoresume.spec" >"$top/build.log" 2>&1 || { tail -n 40 "$top/build.log" >&2; die "rpmbuild failed"; }
mkdir -p -- "$out"
find "$top/RPMS" -name '*.rpm' -exec cp -- {} "$out/" \;
for rpm in "$out"/*.rpm; do echo "$prog: built $rpm"; done
