#!/usr/bin/env bash
# Issue 37's point 3 against its aims, from the logs scripts/gpu-run.sh leaves in a folder (one
# per step): Qwen2.5-0.5B-shaped batched sampling at 64 rows (aim 3,000 tokens/s), its LoRA
# training (aim 1,500 tokens/s), the standard 0.9M model's PPO step on WebGPU against wasm with
# every core (aim 2x). A step not run reads "not run".
#
#   bash scripts/gpu-run-summary.sh /tmp/gpu-run-out
set -u
dir=${1:?usage: gpu-run-summary.sh OUT_DIR (the folder scripts/gpu-run.sh wrote)}
# The first line of a step's log matching a pattern, trimmed; "not run" without the log.
line() {
  [ -f "$dir/$1.log" ] || { echo "not run"; return; }
  local found
  found=$(grep -m1 -E "$2" "$dir/$1.log" | sed 's/^ *//')
  echo "${found:-(no such line in $1.log)}"
}
# The number after a label on the first matching line.
number() { [ -f "$dir/$1.log" ] && grep -m1 -E "$2" "$dir/$1.log" | grep -oE "$2 *[0-9.]+" | grep -oE '[0-9.]+$'; }

echo "=== SUMMARY, issue 37 point 3 ($(date -u +%F), aims in brackets)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/device: /'
echo "Qwen2.5-0.5B shape, float32 base, decoding on the device:"
echo "  $(line sampling 'dispatches per layer')  [at most 8 + 4; 6 + 3 with the norms folded in]"
echo "  $(line sampling 'readbacks per step')  [1 readback, 0 pipelines]"
echo "  $(line sampling 'batched sampling')  [64 rows >= 3,000]"
echo "  GPU time: $(line sampling 'TurnLabTiledDecodeLinear')"
# The decoding linear kernel's time by layer, from profile64 (else sampling's profile).
split=profile64
[ -f "$dir/profile64.log" ] || split=sampling
if [ -f "$dir/$split.log" ] && grep -q 'TurnLabTiledDecodeLinear\[' "$dir/$split.log"; then
  echo "  by layer ($split.log, one rollout at the most rows):"
  grep -m5 'TurnLabTiledDecodeLinear\[' "$dir/$split.log" | sed 's/^ */    /'
fi
if [ -f "$dir/sweep.log" ]; then
  echo "  sweep, best tiling per layer:"
  grep -E '^  (qkv|o|gateup|down|head) ' "$dir/sweep.log" | sed 's/^ */    /'
fi
if [ -f "$dir/host.log" ] || [ -f "$dir/sampling-unrecorded.log" ]; then
  echo "  host, 1 row then 64: $(grep -E 'recorded step against' "$dir/host.log" 2>/dev/null | sed 's/^ *//' | tr '\n' ' ')"
  echo "  every step through tfjs (TURNLAB_DECODE_RECORDED=0): $(line sampling-unrecorded 'batched sampling')"
fi
echo "  LoRA $(line sampling 'training: [0-9.]+ tokens/s')  [>= 1,500]"
echo "16-bit base (--dtype auto, the default):"
echo "  $(line lora 'weights:')"
echo "  $(line lora 'batched sampling')"
echo "  LoRA $(line lora 'training: [0-9.]+ tokens/s')"
echo "Standard 0.9M model, PPO actor step:"
gpu=$(number model-webgpu 'TurnLab, 1 thread: ')
auto=$(number model-wasm 'TurnLab, workers auto \([0-9]+\): ')
every=$(number model-wasm 'TurnLab, every core \([0-9]+\): ')
one=$(number model-wasm 'TurnLab, 1 thread: ')
echo "  webgpu ${gpu:-not run} tokens/s; wasm 1 thread ${one:-not run}, workers auto ${auto:-not run}, every core ${every:-(auto is every core)}"
best=$(printf '%s\n' "${auto:-0}" "${every:-0}" "${one:-0}" | sort -g | tail -n 1)
if [ -n "${gpu:-}" ] && awk "BEGIN { exit !($best > 0) }"; then
  echo "  webgpu / best wasm: $(awk "BEGIN { printf \"%.2f\", $gpu / $best }")x  [>= 2]"
fi
echo "  $(line model-webgpu 'PPO actor step \(.*1 thread\): ')"
echo "  webgpu $(line model-webgpu '^batched sampling')"
