#!/usr/bin/env bash
# Checks what monitoring/ ships: the Prometheus rules (`promtool check rules` for syntax, PromQL
# and templates; `promtool test rules` for each alert firing where its test says, not before,
# and for the recording rules' values), and the Grafana dashboard, each of whose queries must
# return data for the series a recovery leaves (dashboard-queries.py). Run by the dist module's
# integration-test phase; promtool comes with Debian's prometheus package (install-deps.sh).
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
command -v promtool >/dev/null || { echo "test-rules: promtool is missing: apt-get install prometheus (install-deps.sh does)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
cd "$here/prometheus"
promtool check rules autoresume.rules.yml
promtool test rules autoresume.rules.test.yml
python3 "$here/dashboard-queries.py" "$here/grafana/autoresume-dashboard.json" "$here/prometheus/autoresume.rules.yml" "$work"
promtool check rules "$work/dashboard.rules.yml"
promtool test rules "$work/dashboard.test.yml"
