#!/usr/bin/env python3
"""Prints each failed test of this build's JUnit reports (surefire and failsafe) with its
message and the head of its trace, so that a CI log which keeps only its tail still says why
a run failed. Reads the XML reports under the given directory written since the given Unix
time (reports older than the run are another run's); prints nothing when all passed. Exits 0
either way: the test run's own status is what counts.

usage: failure-digest.py DIR [SINCE_EPOCH_SECONDS]"""
import pathlib
import sys
import xml.etree.ElementTree as ET

LINES_PER_FAILURE = 30
CHARS_PER_FAILURE = 3000


def failures(root, since):
    for report in sorted(root.glob("**/target/*-reports/**/TEST-*.xml")):
        if report.stat().st_mtime < since:
            continue
        try:
            tree = ET.parse(report)
        except ET.ParseError as e:
            yield report, "(unreadable report)", str(e)
            continue
        for case in tree.getroot().iter("testcase"):
            for kind in ("failure", "error"):
                for found in case.findall(kind):
                    name = f"{case.get('classname', '?').rsplit('.', 1)[-1]}.{case.get('name', '?')}"
                    text = (found.get("message") or "") + "\n" + (found.text or "")
                    yield report, name, text


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    since = float(sys.argv[2]) if len(sys.argv) > 2 else 0
    seen = list(failures(root, since))
    if not seen:
        return
    print(f"==> failed tests: {len(seen)} (from the JUnit reports; each message and its trace's head)")
    for report, name, text in seen:
        where = report.relative_to(root).parent
        print(f"--- {name}  [{where}]")
        lines = text.strip().splitlines()[:LINES_PER_FAILURE]
        print("\n".join(lines)[:CHARS_PER_FAILURE])


if __name__ == "__main__":
    main()
