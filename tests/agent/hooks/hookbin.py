"""A hook for the tests: logs the JSON it was given, then does what its argument says.

hookbin.py LOG MODE     MODE: ok | print:TEXT | exit2:REASON | exit:N:TEXT | json:{...}
                              | sleep:SECONDS | stop-once:REASON | pid:FILE
"""

import json
import os
import sys
import time

log, mode = sys.argv[1], sys.argv[2]
data = json.loads(sys.stdin.read() or "{}")
data["_env_plugin_root"] = os.environ.get("CLAUDE_PLUGIN_ROOT")
data["_env_secret"] = os.environ.get("OPENAI_API_KEY")
with open(log, "a") as fh:
    fh.write(json.dumps(data) + "\n")
kind, _, arg = mode.partition(":")
if kind == "print":
    print(arg)
elif kind == "exit2":
    print(arg, file=sys.stderr)
    sys.exit(2)
elif kind == "exit":
    code, _, text = arg.partition(":")
    print(text, file=sys.stderr)
    sys.exit(int(code))
elif kind == "json":
    print(arg)
elif kind == "sleep":
    with open(log + ".pid", "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(float(arg))
elif kind == "stop-once" and not data.get("stop_hook_active"):
    print(arg, file=sys.stderr)
    sys.exit(2)
