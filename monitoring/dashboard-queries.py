#!/usr/bin/env python3
"""Every query of the Grafana dashboard returns data for the metrics a recovery leaves behind.

Writes, into the directory given, a rule file with one alert per dashboard query
(`count(QUERY) > 0`, labelled with its panel and refId) and a promtool test that feeds the
agents' series as one recovery leaves them (a step started, a node fault detected by the
agents' verdict, the node marked Action:Replace after a reset-class Xid and a failed GPU check,
the step recovered on a repaired allocation and its goodput counted, a refused request, a step given up) and expects
every one of those alerts to fire: a query that names a metric or label the toolkit does not
export, or a recording rule that does not exist, returns nothing and fails the test.
Usage: dashboard-queries.py DASHBOARD.json RULES.yml OUT_DIR; then promtool test rules OUT_DIR/dashboard.test.yml
"""
import json
import os
import shutil
import sys

dashboard, rules, out = sys.argv[1], sys.argv[2], sys.argv[3]
queries = []
for panel in json.load(open(dashboard))["panels"]:
    for target in panel["targets"]:
        queries.append((panel["id"], target["refId"], target["expr"]))
if not queries:
    sys.exit("dashboard-queries: no queries in " + dashboard)

AGENT = 'job="autoresume-agent", instance="node1:9400"'
# name{labels}: values, one sample a minute: what one agent's /metrics says over 90 minutes.
SERIES = {
    'up{%s}' % AGENT: "1x90",
    'autoresume_build_info{%s, version="0.1.0", java_version="17.0.13+11"}' % AGENT: "1x90",
    'jvm_memory_used_bytes{%s, area="heap"}' % AGENT: "30000000x90",
    'process_cpu_seconds_total{%s}' % AGENT: "0+0.5x90",
    # The sweep's textfile, read by node_exporter on the controller.
    'autoresume_sweep_last_pass_timestamp_seconds{job="node", instance="ctl1:9100"}': "0+60x90",
    'autoresume_sweep_last_pass_actions{job="node", instance="ctl1:9100", kind="resume-if-healthy", result="done"}': "0x60 1x30",
    'autoresume_sweep_last_pass_held_back{job="node", instance="ctl1:9100", kind="mark-replace"}': "0x70 1x20",
    'autoresume_jobs_started_total{%s}' % AGENT: "0x30 1x60",
    'autoresume_jobs_successful_total{%s}' % AGENT: "0x60 1x30",
    'autoresume_jobs_failed_total{%s}' % AGENT: "0x70 1x20",
    'autoresume_jobs_restart_budget_low_total{%s}' % AGENT: "0x50 1x40",
    'autoresume_jobs_restarted_total{%s, level="recover"}' % AGENT: "0x40 1x50",
    'autoresume_jobs_restart_latency_seconds_bucket{%s, level="recover", le="5"}' % AGENT: "0x40 1x50",
    'autoresume_jobs_restart_latency_seconds_bucket{%s, level="recover", le="+Inf"}' % AGENT: "0x40 1x50",
    'autoresume_jobs_fault_detection_latency_seconds_bucket{%s, source="agent-verdict", le="2.5"}' % AGENT: "0x40 1x50",
    'autoresume_jobs_fault_detection_latency_seconds_bucket{%s, source="agent-verdict", le="+Inf"}' % AGENT: "0x40 1x50",
    'autoresume_nodes_marked_total{%s, action="replace"}' % AGENT: "0x40 1x50",
    'autoresume_agent_xids_total{%s, class="reset"}' % AGENT: "0x39 1x51",
    'autoresume_agent_gpu_checks_total{%s, check="gpu", result="failed"}' % AGENT: "0x39 1x51",
    'autoresume_agent_requests_total{%s, op="mark", outcome="refused"}' % AGENT: "0x45 1x45",
    # The recovered step's goodput: its attempts' time, settled at each end and relaunch.
    'autoresume_jobs_productive_seconds_total{%s}' % AGENT: "0x40 2400x50",
    'autoresume_jobs_lost_seconds_total{%s, cause="detection"}' % AGENT: "0x40 3x50",
    'autoresume_jobs_lost_seconds_total{%s, cause="recovery"}' % AGENT: "0x40 12x50",
    'autoresume_jobs_lost_seconds_total{%s, cause="restart"}' % AGENT: "0x40 14x50",
    'autoresume_jobs_lost_seconds_total{%s, cause="redone"}' % AGENT: "0x40 300x50",
    'autoresume_jobs_unattributed_seconds_total{%s}' % AGENT: "0x90",
}

os.makedirs(out, exist_ok=True)
shutil.copy(rules, os.path.join(out, "autoresume.rules.yml"))
with open(os.path.join(out, "dashboard.rules.yml"), "w") as f:
    f.write("groups:\n  - name: dashboard-queries\n    rules:\n")
    for panel, ref, expr in queries:
        f.write("      - alert: DashboardQuery\n")
        f.write("        expr: %s\n" % json.dumps("count(%s) > 0" % expr))
        f.write("        labels: {panel: \"%d\", ref: %s}\n" % (panel, ref))
with open(os.path.join(out, "dashboard.test.yml"), "w") as f:
    f.write("rule_files: [autoresume.rules.yml, dashboard.rules.yml]\nevaluation_interval: 1m\n")
    f.write("tests:\n  - interval: 1m\n    input_series:\n")
    for series, values in SERIES.items():
        f.write("      - series: %s\n        values: '%s'\n" % (json.dumps(series), values))
    f.write("    alert_rule_test:\n      - eval_time: 90m\n        alertname: DashboardQuery\n        exp_alerts:\n")
    for panel, ref, _ in queries:
        f.write("          - exp_labels: {panel: \"%d\", ref: %s}\n" % (panel, ref))
print("dashboard-queries: %d queries of %s" % (len(queries), dashboard))
