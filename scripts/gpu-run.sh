#!/usr/bin/env bash
# Every check and benchmark of a lent GPU machine, in one call, so its minutes go to measuring
# (docs/benchmarks.md, "On a GPU"). The machine has no Node and reaches no registry: the checkout
# brings .device/pack.tar.xz (Node and the files of node_modules these commands open, made by
# scripts/gpu-pack.sh) and .gl/ (the Vulkan and EGL loaders, see the device tool's notes).
#
#   bash scripts/gpu-run.sh                   # on the GPU machine: what issue 37's point 3 measures, then a summary
#   GPU_RUN_SMALL=1 bash scripts/gpu-run.sh   # the same commands at tiny sizes (here, on llvmpipe)
#   GPU_RUN_STEPS="tests iteration" bash scripts/gpu-run.sh   # other steps: the GPU tests, point 4's iteration
#   GPU_RUN_STEPS="sweep sampling-tuned" bash scripts/gpu-run.sh   # tilings of the decoding kernel, then sampling with the best
#   GPU_RUN_STEPS="info profile64 sweep summary" bash scripts/gpu-run.sh   # where the 64-row step's GPU time goes, layer by layer, and every layer's tilings
#   GPU_RUN_STEPS="host sampling-unrecorded" bash scripts/gpu-run.sh   # the recorded decoding step's host time, and sampling without it
#
# The default steps (about 8 minutes on an H200, within one 10-minute call): sampling (Qwen2.5-0.5B
# shape, float32 base, device decoding at 1, 16 and 64 rows, and a LoRA step of 8 x 512), lora
# (the same with the 16-bit base users get by default), model-webgpu and model-wasm (the standard
# 0.9M model: its PPO step on WebGPU against wasm with workers auto and every core), summary (the
# figures against the issue's aims). Each step has its own time limit, so one that hangs cannot
# take the others' minutes; each step's output goes to $OUT/<step>.log and $OUT/gpu-run.log.
set -u
OUT=${OUT:-/tmp/gpu-run-out}
mkdir -p "$OUT"
LOG="$OUT/gpu-run.log"
small=${GPU_RUN_SMALL:-0}
steps=${GPU_RUN_STEPS:-"info sampling model lora summary"}

if [ -f .device/pack.tar.xz ] && [ ! -e node_modules ]; then
  mkdir -p /opt/turnlab && tar -xJf .device/pack.tar.xz -C /opt/turnlab && ln -s /opt/turnlab/node_modules node_modules
  # Files added to a pack already made, without packing Node again.
  [ -f .device/extra.tar.xz ] && tar -xJf .device/extra.tar.xz -C /opt/turnlab
  export PATH=/opt/turnlab/bin:$PATH
fi
tsx=(node node_modules/tsx/dist/cli.mjs)
vitest=(node node_modules/vitest/vitest.mjs)

step() {
  local name=$1 limit=$2
  shift 2
  echo "=== $name: $* ($(date -u +%T), limit ${limit}s)" | tee -a "$LOG"
  local start=$SECONDS
  timeout -k 5 "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  cat "$OUT/$name.log" >>"$LOG"
  echo "=== $name rc=$rc in $((SECONDS - start)) s" | tee -a "$LOG"
}
wants() { [[ " $steps " == *" $1 "* ]]; }
# The figures end up in output_tail too: print each step's last lines after it.
show() { grep -E "$1" "$LOG" | tail -n "${2:-30}"; }

if wants info; then
  {
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "no nvidia-smi"
    node --version
    nproc
    node trainer-core/webgpu-probe.mjs
  } >>"$LOG" 2>&1
  tail -n 8 "$LOG"
fi

if wants tests; then
  step tests ${LIMIT_TESTS:-130} "${vitest[@]}" run tests/backend/webgpu-fused-kernels.test.ts tests/backend/webgpu-decoding.test.ts tests/backend/webgpu-recorded-decoding.test.ts tests/backend/webgpu-decode-tiling.test.ts tests/backend/hf-webgpu.test.ts \
    tests/backend/webgpu-kernels.test.ts tests/backend/webgpu-half-weights.test.ts tests/backend/backend.test.ts tests/train/backends.test.ts
  show '✓|×|FAIL|Test Files|Tests |skipped' 25
fi

if [ "$small" = 1 ]; then
  llm_args=(--backend webgpu --presets tiny-qwen2 --rows 1,4 --lengths 16 --vocab 4096)
  llm_before_args=("${llm_args[@]}")
  sampling_args=(--backend webgpu --presets tiny-qwen2 --rows 1,4 --lengths 16 --vocab 4096 --dtype float32 --train-rows 2 --profile)
  lora_args=(--backend webgpu --presets tiny-qwen2 --rows 4 --lengths 16 --vocab 4096 --dtype auto --train-rows 2)
  model_args=(--small)
  tuned_args=(--backend webgpu --presets tiny-qwen2 --lengths 16 --vocab 4096 --dtype float32)
  sampling_rows=4
  sweep_small=(--width 128 --mlp 256 --vocab 4096)
  profile_args=(--backend webgpu --presets tiny-qwen2 --rows 4 --lengths 16 --vocab 4096 --dtype float32 --profile)
  model_dir=/tmp/gpu-run-models
  preset=tiny-qwen2
  ragen_size=(--small)
else
  llm_args=(--backend webgpu --presets qwen2.5-0.5b --rows 1,16,64 --lengths 128,512 --train-rows 8 --profile)
  llm_before_args=(--backend webgpu --presets qwen2.5-0.5b --rows 1,16,64 --lengths 128 --train-rows 8)
  # LoRA training at 8 x 512 (1,577 tokens/s at 04:40 on the H200; 8 x 128 pays the fixed cost of a step).
  sampling_args=(--backend webgpu --presets qwen2.5-0.5b --rows 1,16,64 --lengths 512 --dtype float32 --train-rows 8 --profile)
  lora_args=(--backend webgpu --presets qwen2.5-0.5b --rows 64 --lengths 512 --dtype auto --train-rows 8)
  model_args=()
  tuned_args=(--backend webgpu --presets qwen2.5-0.5b --lengths 128 --dtype float32 --profile)
  sampling_rows=64
  sweep_small=()
  profile_args=(--backend webgpu --presets qwen2.5-0.5b --rows 64 --lengths 16 --dtype float32 --profile)
  model_dir=/tmp/gpu-run-models
  preset=qwen2.5-0.5b
  ragen_size=()
fi

if wants llm; then
  step llm ${LIMIT_LLM:-170} "${tsx[@]}" bench/llm.ts "${llm_args[@]}"
  show 'tokens/s|dispatch|readback|pipeline|peak|rows' 40
fi

# Batched sampling on the device path: float32 weights (a model held 16-bit samples through
# forward passes), the tiled decoding kernel at every row count. sampling-before: the same rows
# with the kernels it replaced (the split kernel below 16 rows and tfjs's matmuls from 16).
if wants sampling; then
  step sampling ${LIMIT_SAMPLING:-180} env TURNLAB_DAWN_FLAGS="${DAWN_FLAGS:-}" "${tsx[@]}" bench/llm.ts "${sampling_args[@]}"
  show 'tokens/s|dispatch|readback|pipeline|TurnLab|BatchMatMul' 30
fi
# GPU time by kernel of one rollout at the sampling rows (prefill and 16 steps, every step through
# tfjs), the decoding linear kernel's split by layer (qkv, o, gated, down, head); Dawn's timestamps
# unquantized (trainer-core/dawn-flags.ts), so a dispatch's time is no longer in 0.0655 ms steps.
if wants profile64; then
  step profile64 ${LIMIT_PROFILE:-150} env TURNLAB_DAWN_FLAGS="${DAWN_FLAGS:-}" "${tsx[@]}" bench/llm.ts "${profile_args[@]}"
  show 'batched sampling|GPU time by kernel, one rollout|TurnLab|BatchMatMul|Error' 24
fi
# Host time of a decoding step by part (bench/decode-host-time.ts: Dawn's calls and tfjs's
# bookkeeping a dispatch, each step recorded with the device idle) at 1 and 64 rows, every step
# through tfjs and the recorded step (its last line: the two a dispatch, logits identical or
# not); then tfjs's path with one submit a step (TURNLAB_DECODE_SUBMIT_EVERY=1000).
# sampling-one-submit: the sampling rows that way, tfjs's path; sampling-unrecorded: the sampling
# rows with every step through tfjs (TURNLAB_DECODE_RECORDED=0), against the sampling step's
# recorded steps.
if wants host; then
  if [ "$small" = 1 ]; then host_layers=4; host_steps=6; else host_layers=24; host_steps=16; fi
  step host ${LIMIT_HOST:-120} bash -c "for rows in 1 64; do $(printf '%q ' "${tsx[@]}")bench/decode-host-time.ts --layers $host_layers --rows \$rows --steps $host_steps; done; for rows in 1 64; do TURNLAB_DECODE_SUBMIT_EVERY=1000 $(printf '%q ' "${tsx[@]}")bench/decode-host-time.ts --path tfjs --layers $host_layers --rows \$rows --steps $host_steps; done"
  show 'decoding step host|dispatches a step|step \(host|tfjs run|record|bind group|submit|outside|floor|rest \(|recorded step against|rollout wall' 64
fi
if wants sampling-one-submit; then
  step sampling-one-submit ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_RECORDED=0 TURNLAB_DECODE_SUBMIT_EVERY=1000 "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "1,$sampling_rows"
  show 'batched sampling|dispatches per layer|Error' 8
fi
if wants sampling-unrecorded; then
  step sampling-unrecorded ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_RECORDED=0 "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "1,16,$sampling_rows"
  show 'batched sampling|dispatches per layer|readbacks per step|Error' 8
fi
# The LM head through tfjs's tiled matmul from 16 rows (TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS), the
# other layers through the decoding kernel: the head is a quarter of a 64-row step's products.
if wants sampling-head-matmul; then
  step sampling-head-matmul ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_HEAD_MATMUL_FROM_ROWS=16 "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "$sampling_rows"
  show 'batched sampling|dispatches per layer|TurnLabTiledDecodeLinear|BatchMatMul|Error' 12
fi
# Every layer's products through tfjs's tiled matmul from 16 rows (TURNLAB_DECODE_MATMUL_FROM_ROWS,
# 15 dispatches a layer), the decoding kernel adding the rest: the route of 04:40, against today's kernel.
if wants sampling-matmul; then
  step sampling-matmul ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_MATMUL_FROM_ROWS=16 "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "$sampling_rows"
  show 'batched sampling|dispatches per layer|TurnLabTiledDecodeLinear|BatchMatMul|Error' 12
fi
# The same with the 16-bit base (--dtype auto, the default a BF16 checkpoint gets): 64-row
# sampling (the rollout borrows widened copies) and the LoRA step through the 16-bit products.
if wants lora; then
  step lora ${LIMIT_LORA:-150} "${tsx[@]}" bench/llm.ts "${lora_args[@]}"
  show 'weights:|batched sampling|training' 8
fi
# The tiled decoding kernel under many tilings at the sampling rows (bench/decode-linear-sweep.ts:
# q|k|v, o, gate/up, down and the LM head): each checked against tfjs, timed by GPU timestamps
# (unquantized); its last line is the best tiling per layer
# as DECODE_TILE="...". sampling-tuned: the sampling rows again with $DECODE_TILE (set by hand,
# else the sweep's winner from this log) as TURNLAB_DECODE_TILE. DAWN_FLAGS (e.g.
# enable-dawn-features=disable_robustness) goes to Dawn in both.
if wants sweep; then
  if [ "$small" = 1 ]; then sweep_args=(--rows "$sampling_rows" --quick "${sweep_small[@]}" --budget-s 60); else sweep_args=(--rows "$sampling_rows" --budget-s $(( ${LIMIT_SWEEP:-170} - 30 ))); fi
  step sweep ${LIMIT_SWEEP:-170} env TURNLAB_DAWN_FLAGS="${DAWN_FLAGS:-}" "${tsx[@]}" bench/decode-linear-sweep.ts --backend webgpu "${sweep_args[@]}"
  show 'limits:|best tiling|^  (qkv|o|gateup|down|head) |head: skipped|DECODE_TILE=|sweep took|WRONG|FAILED|Error' 16
fi
# What Dawn's bounds checks cost: the sweep's first four tilings per layer with them off.
if wants sweep-norobust; then
  step sweep-norobust ${LIMIT_SWEEP_NOROBUST:-60} env TURNLAB_DAWN_FLAGS=enable-dawn-features=disable_robustness "${tsx[@]}" bench/decode-linear-sweep.ts --backend webgpu --rows "$sampling_rows" --quick --repeats 30 --budget-s 45 "${sweep_small[@]}"
  show '^(qkv|o|gateup|down|head) |WRONG|FAILED|Error' 24
fi
if wants sampling-tuned; then
  tile=${DECODE_TILE:-$(grep -o 'DECODE_TILE="[^"]*"' "$LOG" | tail -n 1 | sed 's/^DECODE_TILE="//; s/"$//')}
  echo "=== sampling-tuned with TURNLAB_DECODE_TILE=\"$tile\" TURNLAB_DAWN_FLAGS=\"${DAWN_FLAGS:-}\"" | tee -a "$LOG"
  step sampling-tuned ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_TILE="$tile" TURNLAB_DAWN_FLAGS="${DAWN_FLAGS:-}" "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "$sampling_rows"
  show 'batched sampling|dispatches per layer|TurnLab|Error' 8
fi
if wants sampling-before; then
  step sampling-before ${LIMIT_SAMPLING:-150} env TURNLAB_DECODE_LINEAR=split TURNLAB_DECODE_MATMUL_FROM_ROWS=16 "${tsx[@]}" bench/llm.ts "${tuned_args[@]}" --rows "$sampling_rows"
  show 'batched sampling|dispatches per layer' 4
fi

if wants iteration; then
  # The issue's point 4: RAGEN's batch (8 groups x 16 Sokoban episodes of 5 turns) with the
  # Qwen2.5-0.5B shape (random weights, the real Qwen tokenizer) and LoRA, GRPO, two iterations,
  # each printed phase by phase (bench/iteration.ts --ragen). The limit covers writing the model
  # folder too (about 20 s on the H200; kept in $model_dir for the next call on a warm machine).
  # ITERATION_OVERRIDES="key=value ..." adds config overrides (e.g. a larger micro-batch to compare).
  step iteration ${LIMIT_ITERATION:-240} "${tsx[@]}" bench/iteration.ts --ragen "$preset" --models "$model_dir" ${ragen_size[@]+"${ragen_size[@]}"} ${ITERATION_OVERRIDES:-}
  show 'model folder|tokens sampled|ITERATION|PHASES|^  (rollout|reference|values|advantage|actor|critic|pipelines)|Error|exited' 45
fi

# The standard 0.9M model: its PPO actor step on WebGPU (and its dispatches per trained token,
# fused and not) against wasm with workers auto (at most 8) and with every core.
if wants model; then
  step model-webgpu ${LIMIT_MODEL:-90} "${tsx[@]}" bench/model.ts webgpu ${model_args[@]+"${model_args[@]}"}
  step model-wasm ${LIMIT_MODEL_WASM:-120} "${tsx[@]}" bench/model.ts wasm ${model_args[@]+"${model_args[@]}"}
  show 'tokens/s|GFLOP|dispatches' 24
fi

if wants llm-before; then
  step llm-before ${LIMIT_LLM_BEFORE:-90} env TURNLAB_FUSED_KERNELS=0 "${tsx[@]}" bench/llm.ts "${llm_before_args[@]}"
  show 'tokens/s|dispatch' 20
fi
# Issue 37's point 3 in a few lines, read from the steps' logs (a step not run reads "not run").
if wants summary; then
  bash scripts/gpu-run-summary.sh "$OUT" | tee -a "$LOG"
fi
echo "=== done ($(date -u +%T))" | tee -a "$LOG"
