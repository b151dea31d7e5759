"""Reads a JUnit XML file with junitparser and prints one JSON summary on stdout:
{"suites": [{"name", "tests", "failures", "errors", "skipped",
             "cases": [{"classname", "name", "result", "message"}]}]}
"""
import json
import sys

from junitparser import JUnitXml, TestSuite


def results_of(case):
    found = case.result
    if found is None:
        return []
    if not isinstance(found, list):
        found = [found]
    return found


def main(path):
    xml = JUnitXml.fromfile(path)
    suites = [xml] if isinstance(xml, TestSuite) else list(xml)
    out = []
    for suite in suites:
        cases = []
        for case in suite:
            results = results_of(case)
            kind = type(results[0]).__name__.lower() if results else "passed"
            message = results[0].message if results else None
            cases.append({"classname": case.classname, "name": case.name, "result": kind, "message": message})
        out.append({
            "name": suite.name,
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
            "cases": cases,
        })
    json.dump({"suites": out}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
