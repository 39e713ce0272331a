"""The small-model task eval of scripts/local-eval.sh: fixed small tasks, each tried N times
per mode against a real llama.cpp server, scored by what the run left (the answer, the
files). One line per task and mode: right answers, tool calls (native / read from text),
loops detected, runs that hung, and the average time.

Modes: `native` (llama-server with --jinja and a chat template with tools: calls come in
the API's fields when the model writes them as the template says) and `prompted`
(llama-server as it starts by default, without --jinja: it refuses the `tools` parameter
and Paddock describes the tools in the prompt).

Nothing here reaches beyond 127.0.0.1.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def has_number(n):
    # A whole number, as a sentence may end with it ("...is 3."), never part of another
    # ("13", "3.5", "1.3").
    return lambda answer, ws: re.search(r"(?<!\d)(?<!\d\.)%d(?!\d|\.\d)" % n, answer) is not None


def file_is(path, want):
    def check(answer, ws):
        try:
            with open(os.path.join(ws, path), encoding="utf-8") as f:
                return f.read().strip() == want
        except OSError:
            return False

    return check


def file_has(path, *needles, without=()):
    def check(answer, ws):
        try:
            with open(os.path.join(ws, path), encoding="utf-8") as f:
                text = f.read()
        except OSError:
            return False
        return all(n in text for n in needles) and not any(w in text for w in without)

    return check


def says(*words):
    return lambda answer, ws: all(w.lower() in answer.lower() for w in words)


# name, preset, files, prompt, check(answer, workspace)
TASKS = [
    (
        "count_txt",
        "readonly",
        {"a.txt": "a\n", "b.txt": "b\n", "notes/c.txt": "c\n", "d.md": "d\n", "e.md": "e\n"},
        "How many .txt files are there in the workspace, in all folders? Answer with the number.",
        has_number(3),
    ),
    (
        "read_word",
        "readonly",
        {"notes.txt": "Shopping list\nThe secret word is: pineapple\nEnd\n"},
        "What is the secret word written in notes.txt?",
        says("pineapple"),
    ),
    (
        "create_file",
        "readwrite",
        {"readme.md": "# Project\n"},
        "Create a file named hello.txt whose whole content is: Hello, world",
        file_is("hello.txt", "Hello, world"),
    ),
    (
        "edit_line",
        "readwrite",
        {"config.ini": "[server]\nhost = localhost\nport = 8080\n"},
        "In config.ini, change the port from 8080 to 9090. Change nothing else.",
        file_has("config.ini", "port = 9090", "host = localhost", without=("8080",)),
    ),
    (
        "grep_symbol",
        "readonly",
        {
            "src/users.py": "def load_users(path):\n    return []\n",
            "src/billing.py": "def compute_total(items):\n    return sum(items)\n",
            "src/report.py": "from billing import compute_total\n\nprint(compute_total([1]))\n",
        },
        "Which file defines the function compute_total? Answer with its file name.",
        says("billing.py"),
    ),
    (
        "run_command",
        "full",
        {"data.txt": "1\n2\n3\n"},
        "Use the bash tool to run the command `wc -l data.txt` and tell me how many lines "
        "data.txt has.",
        has_number(3),
    ),
    (
        "fix_bug",
        "readwrite",
        {"calc.py": "def add(a, b):\n    return a - b\n"},
        "calc.py has a bug: add(a, b) must return the sum of a and b. Fix it.",
        file_has("calc.py", "a + b", without=("a - b",)),
    ),
    (
        "two_files",
        "readonly",
        {"apples.txt": "apples: 3\n", "pears.txt": "pears: 4\n"},
        "Read apples.txt and pears.txt. How many fruits are there in total? Answer with the "
        "number.",
        has_number(7),
    ),
    (
        "find_file",
        "readonly",
        {"deep/inside/target.cfg": "x=1\n", "other/a.cfg": "y\n", "top.txt": "z\n"},
        "Find the file named target.cfg and give its path.",
        says("deep/inside/target.cfg"),
    ),
    (
        "count_lines",
        "readonly",
        {"poem.txt": "roses are red\nviolets are blue\nsugar is sweet\nand so are you\n"},
        "How many lines does poem.txt have? Answer with the number.",
        has_number(4),
    ),
    (
        "append_line",
        "readwrite",
        {"todo.txt": "buy milk\n"},
        "Add the line 'walk the dog' at the end of todo.txt, keeping the line that is there.",
        file_has("todo.txt", "buy milk", "walk the dog"),
    ),
]


def project(task, base_url, tool_calling):
    name, preset, files, _, _ = task
    root = tempfile.mkdtemp(prefix=f"paddock-eval-{name}-")
    ws = os.path.join(root, ".agent-workspace")
    for rel, text in files.items():
        path = os.path.join(ws, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    settings = {
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": base_url,
        "model": "local",
        "preset": preset,
        "maxTurns": 8,
        "allowUnconfinedBash": True,
    }
    if tool_calling:
        settings["toolCalling"] = tool_calling
    os.makedirs(os.path.join(root, ".paddock"))
    with open(os.path.join(root, ".paddock", "settings.json"), "w", encoding="utf-8") as f:
        json.dump(settings, f)
    return root, ws


def run_once(paddock, task, base_url, timeout, tool_calling, home):
    root, ws = project(task, base_url, tool_calling)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "PADDOCK_OPENAI_COMPAT_API_KEY")
    }
    env.update(
        HOME=home,
        PADDOCK_DATA_DIR=os.path.join(home, "data"),
        XDG_DATA_HOME=os.path.join(home, "xdg-data"),
        XDG_CONFIG_HOME=os.path.join(home, "config"),
        PADDOCK_CONFIG_DIR=os.path.join(home, "config", "paddock"),
    )
    started = time.monotonic()
    hung = False
    try:
        out = subprocess.run(
            [paddock, "exec", "--json", "--trust", "--project", root, task[3]],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        stdout, code = out.stdout, out.returncode
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        code, hung = None, True
    took = time.monotonic() - started
    native = text = loops = 0
    answer = ""
    for line in stdout.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        kind = e.get("type")
        if kind == "tool_call_started":
            if e.get("call", {}).get("parsed_from_text"):
                text += 1
            else:
                native += 1
        elif kind == "loop_detected":
            loops += 1
        elif kind == "message":
            answer = e.get("text") or ""
    right = (not hung) and task[4](answer, ws)
    shutil.rmtree(root, ignore_errors=True)
    return {
        "task": task[0],
        "right": bool(right),
        "native": native,
        "text": text,
        "loops": loops,
        "hung": hung,
        "code": code,
        "seconds": round(took, 1),
        "answer": answer[:200],
    }


def wait_healthy(port, proc, seconds=240):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read()
            return True
        except OSError:
            time.sleep(0.5)
    return False


def serve(python, model, port, mode, template, ctx, logdir):
    cmd = [python, os.path.join(REPO, "tests/real-llama/serve.py"), "--model", model,
           "--port", str(port), "--ctx", str(ctx), "--predict", "-1", "--stdin"]
    if mode == "prompted":
        cmd.append("--no-jinja")
    elif template:
        cmd += ["--template", template]
    log = open(os.path.join(logdir, f"server-{mode}.log"), "w")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log, stderr=log)
    if not wait_healthy(port, proc):
        proc.kill()
        sys.exit(f"the {mode} server did not start; see {log.name}")
    return proc


def table(results, modes):
    rows = []
    head = f"{'mode':9} {'task':12} {'right':>6} {'calls n/t':>10} {'loops':>5} {'hung':>4} {'avg s':>6}"
    rows.append(head)
    rows.append("-" * len(head))
    for mode in modes:
        mine = [r for r in results if r["mode"] == mode]
        for name in dict.fromkeys(r["task"] for r in mine):
            rs = [r for r in mine if r["task"] == name]
            rows.append(line(mode, name, rs))
        if mine:
            rows.append(line(mode, "ALL", mine, percent=True))
    return "\n".join(rows)


def line(mode, name, rs, percent=False):
    right = sum(r["right"] for r in rs)
    score = f"{right}/{len(rs)}"
    if percent:
        score += f" ({round(100 * right / len(rs))} %)"
    calls = f"{sum(r['native'] for r in rs)}/{sum(r['text'] for r in rs)}"
    avg = sum(r["seconds"] for r in rs) / len(rs)
    return (f"{mode:9} {name:12} {score:>6} {calls:>10} {sum(r['loops'] for r in rs):>5} "
            f"{sum(r['hung'] for r in rs):>4} {avg:>6.1f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--paddock", required=True)
    p.add_argument("--python", required=True, help="the venv's python, with xllamacpp")
    p.add_argument("--model", required=True)
    p.add_argument("--template", help="chat template with tools for native mode")
    p.add_argument("--modes", default="native prompted")
    p.add_argument("--tries", type=int, default=5)
    p.add_argument("--tasks", default="", help="comma-separated task names (default all)")
    p.add_argument("--port", type=int, default=18290)
    p.add_argument("--ctx", type=int, default=8192)
    p.add_argument("--timeout", type=int, default=300, help="a run taking longer has hung")
    p.add_argument("--tool-calling", default="", help="the toolCalling setting, if any")
    p.add_argument("--out", help="write every run's result here (JSON)")
    a = p.parse_args()
    modes = a.modes.split()
    tasks = [t for t in TASKS if not a.tasks or t[0] in a.tasks.split(",")]
    results = []
    for mode in modes:
        # A home (and data folder) per mode: what auto tool calling learns of the server in
        # one mode is remembered by base URL and model, and the port is the same.
        home = tempfile.mkdtemp(prefix=f"paddock-eval-home-{mode}-")
        server = serve(a.python, a.model, a.port, mode, a.template, a.ctx, home)
        base = f"http://127.0.0.1:{a.port}/v1"
        try:
            for task in tasks:
                for n in range(a.tries):
                    r = run_once(a.paddock, task, base, a.timeout, a.tool_calling, home)
                    r["mode"] = mode
                    results.append(r)
                    mark = "ok" if r["right"] else ("HUNG" if r["hung"] else "no")
                    print(f"  {mode} {task[0]} #{n + 1}: {mark} ({r['seconds']} s, "
                          f"calls {r['native']}/{r['text']}, exit {r['code']}) "
                          f"{r['answer'][:70]!r}", flush=True)
        finally:
            server.stdin.close()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
            shutil.rmtree(home, ignore_errors=True)
    print()
    print(table(results, modes))
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
