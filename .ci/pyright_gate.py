"""Read pyright's --outputjson report on stdin; print its errors; exit 1 unless it checked
codebot/ (pyright exits 0 when it finds no file: a stray pyrightconfig.json above the
checkout is enough) and found no error."""

import json
import sys

report = json.load(sys.stdin)
summary = report["summary"]
for d in report.get("generalDiagnostics", []):
    if d.get("severity") == "error":
        line = d.get("range", {}).get("start", {}).get("line", -1) + 1
        print(f"{d.get('file')}:{line}: {d.get('message')} ({d.get('rule', '')})")
print(f"pyright: {summary['filesAnalyzed']} files, {summary['errorCount']} errors")
sys.exit(0 if summary["filesAnalyzed"] > 100 and summary["errorCount"] == 0 else 1)
