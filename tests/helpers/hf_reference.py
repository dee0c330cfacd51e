"""An independent float64 implementation of the Qwen2 / Qwen3 / Llama decoders, written from
the published architecture description (not from TurnLab's code), for the numerical tests.

usage: python3 hf_reference.py MODEL_DIR '[[ids...], ...]'
prints a JSON list, per row, of log p(ids[t] | ids[:t]) for t >= 1 at temperature 1.
"""
import json
import math
import os
import struct
import sys

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        chunk = raw[base + begin : base + end]
        if entry["dtype"] == "BF16":
            bits = np.frombuffer(chunk, dtype="<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32)
        elif entry["dtype"] == "F16":
            arr = np.frombuffer(chunk, dtype="<f2")
        elif entry["dtype"] == "F32":
            arr = np.frombuffer(chunk, dtype="<f4")
        else:
            raise ValueError(entry["dtype"])
        out[name] = arr.astype(np.float64).reshape(entry["shape"])
    return out


def read_weights(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        files = sorted(set(json.load(open(index))["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    weights = {}
    for f in files:
        weights.update(read_safetensors(os.path.join(folder, f)))
    return weights


def inv_freq(cfg, head_dim):
    theta = cfg.get("rope_theta", 10000.0)
    freqs = [theta ** (-(2 * i) / head_dim) for i in range(head_dim // 2)]
    scaling = cfg.get("rope_scaling")
    if scaling and (scaling.get("rope_type") or scaling.get("type")) == "llama3":
        factor = scaling["factor"]
        low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        out = []
        for f in freqs:
            wavelength = 2 * math.pi / f
            if wavelength < old / high:
                out.append(f)
            elif wavelength > old / low:
                out.append(f / factor)
            else:
                smooth = (old / wavelength - low) / (high - low)
                out.append((1 - smooth) * f / factor + smooth * f)
        freqs = out
    return np.array(freqs)


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def apply_rope(x, positions, freqs):
    # x: [heads, T, d]; "rotate half": pairs (i, i + d/2).
    half = x.shape[-1] // 2
    angles = positions[:, None] * freqs[None, :]
    cos = np.concatenate([np.cos(angles)] * 2, axis=-1)
    sin = np.concatenate([np.sin(angles)] * 2, axis=-1)
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def logprobs(folder, ids):
    cfg = json.load(open(os.path.join(folder, "config.json")))
    arch = cfg["architectures"][0]
    W = read_weights(folder)
    H = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads", nh)
    hd = cfg.get("head_dim") or H // nh
    eps = cfg.get("rms_norm_eps", 1e-6)
    bias = arch == "Qwen2ForCausalLM" or cfg.get("attention_bias", False)
    freqs = inv_freq(cfg, hd)
    T = len(ids)
    pos = np.arange(T, dtype=np.float64)
    x = W["model.embed_tokens.weight"][ids]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, W[p + "input_layernorm.weight"], eps)

        def proj(name):
            y = h @ W[p + f"self_attn.{name}.weight"].T
            if bias:
                y = y + W[p + f"self_attn.{name}.bias"]
            return y

        q = proj("q_proj").reshape(T, nh, hd).transpose(1, 0, 2)
        k = proj("k_proj").reshape(T, nkv, hd).transpose(1, 0, 2)
        v = proj("v_proj").reshape(T, nkv, hd).transpose(1, 0, 2)
        if arch == "Qwen3ForCausalLM":
            q = rms_norm(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, W[p + "self_attn.k_norm.weight"], eps)
        q = apply_rope(q, pos, freqs)
        k = apply_rope(k, pos, freqs)
        outs = []
        for head in range(nh):
            kv = head // (nh // nkv)
            s = q[head] @ k[kv].T / math.sqrt(hd)
            s = s + np.triu(np.full((T, T), -np.inf), 1)
            s = np.exp(s - s.max(axis=-1, keepdims=True))
            s = s / s.sum(axis=-1, keepdims=True)
            outs.append(s @ v[kv])
        attn = np.stack(outs, axis=1).reshape(T, nh * hd)
        x = x + attn @ W[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        gate = h @ W[p + "mlp.gate_proj.weight"].T
        up = h @ W[p + "mlp.up_proj.weight"].T
        x = x + (gate / (1 + np.exp(-gate)) * up) @ W[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else W["lm_head.weight"]
    logits = x @ head.T
    m = logits.max(axis=-1, keepdims=True)
    logz = m[:, 0] + np.log(np.exp(logits - m).sum(axis=-1))
    return [float(logits[t - 1, ids[t]] - logz[t - 1]) for t in range(1, T)]


if __name__ == "__main__":
    folder, rows = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps([logprobs(folder, row) for row in rows]))
