"""The training step of `npm run bench -- model` in PyTorch, for its tokens/s ratio.

The same model (pre-LayerNorm GPT-2 blocks with ReLU MLPs, learned positions, tied
embeddings, a value head) and the same PPO actor step: token-mean clipped policy loss with
clip_ratio_low/high 0.2/0.28 and dual clip 3, entropy bonus 0.01, gradient clipping at 1,
Adam. Random weights and tokens; one warm-up step, then `steps` timed ones.

python3 scripts/torch-ppo-step.py --rows 8 --length 128 --steps 2 [--threads 1]
Prints one JSON line: {"tokens_per_second": ..., "threads": ..., "torch": "..."}.
Needs Debian's python3-torch (with libopenblas0-pthread for speed); not part of the test suite.
"""
import argparse
import json
import math
import time

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, d, heads, d_mlp):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d, eps=1e-5)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d, eps=1e-5)
        self.up = torch.nn.Linear(d, d_mlp)
        self.down = torch.nn.Linear(d_mlp, d)

    def forward(self, x, causal):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, hd).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + causal
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.out(attended)
        return x + self.down(F.relu(self.up(self.ln2(x))))


class Model(torch.nn.Module):
    def __init__(self, vocab, context, d, layers, heads):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(context, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads, 4 * d) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d, eps=1e-5)
        self.value = torch.nn.Linear(d, 1)
        for p in self.parameters():
            if p.dim() > 1:
                torch.nn.init.normal_(p, std=0.02)

    def forward(self, tokens):
        t = tokens.shape[1]
        causal = torch.full((t, t), float('-inf')).triu(1)
        x = self.tok(tokens) + self.pos(torch.arange(t))
        for block in self.blocks:
            x = block(x, causal)
        return self.ln_f(x) @ self.tok.weight.T


def token_scores(model, tokens):
    """Log-probability and entropy of each token after the first, given those before it."""
    logp_all = model(tokens)[:, :-1].log_softmax(-1)
    logp = logp_all.gather(-1, tokens[:, 1:, None]).squeeze(-1)
    entropy = -(logp_all.exp() * logp_all).sum(-1)
    return logp, entropy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--rows', type=int, default=8)
    parser.add_argument('--length', type=int, default=128)
    parser.add_argument('--steps', type=int, default=2)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--vocab', type=int, default=512)
    parser.add_argument('--context', type=int, default=256)
    parser.add_argument('--d-model', type=int, default=128)
    parser.add_argument('--layers', type=int, default=4)
    parser.add_argument('--heads', type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    model = Model(args.vocab, args.context, args.d_model, args.layers, args.heads)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    tokens = torch.randint(2, args.vocab, (args.rows, args.length))
    with torch.no_grad():
        old_logp, _ = token_scores(model, tokens)
    advantages = torch.randn(old_logp.shape)

    def step():
        logp, entropy = token_scores(model, tokens)
        ratio = (logp - old_logp).exp()
        clipped = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - 0.2, 1 + 0.28))
        dual = torch.where(advantages < 0, torch.min(clipped, -advantages * 3.0), clipped)
        loss = dual.mean() - 0.01 * entropy.mean()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    step()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    seconds = time.perf_counter() - start
    tokens_trained = args.rows * (args.length - 1) * args.steps
    print(json.dumps({'tokens_per_second': tokens_trained / seconds, 'threads': args.threads, 'torch': torch.__version__}))


if __name__ == '__main__':
    main()
