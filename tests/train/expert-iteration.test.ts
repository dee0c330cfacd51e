import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { ConfigError, loadRunConfig } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { createContextManager, type EpisodeRecord, type GeneratedResponse, type GenerateOptions, type ResponseGenerator } from '../../trainer-core/rollout/rollout-loop';
import type { Tokenizer } from '../../trainer-core/rollout/tokenizer';
import { bestSolved, keptTurns, playSolvedEpisodes } from '../../trainer-core/train/expert-iteration';
import { fitRunTokenizer } from '../../trainer-core/train/models';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

const SOKOBAN_RL = join(import.meta.dirname, '../../configs/sokoban-rl.yaml');
const SOKOBAN = join(import.meta.dirname, '../../configs/sokoban.yaml');
const LAKE = join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml');
const tmp = tempDir('expert-iteration');
afterAll(() => tmp.cleanup());
const MOVES = ['Up', 'Down', 'Left', 'Right'];

beforeAll(async () => {
  await selectBackend('wasm');
});

/** A learner that writes a seeded random move each turn: it solves the easy rooms now and then. */
class RandomMoves implements ResponseGenerator {
  readonly played: string[] = [];
  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly rng: Rng,
  ) {}
  async generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]> {
    return prompts.map((_, i) => {
      const move = this.rng.choice(MOVES);
      this.played.push(move);
      const ids = [...this.tokenizer.encode(`${move}</answer>`), this.tokenizer.endOfTurnId].slice(0, options.maxNewTokens[i]);
      return { tokenIds: ids, logprobs: ids.map(() => 0) };
    });
  }
}

/** A thinking learner: a seeded random plan of two moves, then a seeded random move that may not be the plan's first. */
class RandomThinker implements ResponseGenerator {
  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly rng: Rng,
  ) {}
  async generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]> {
    return prompts.map((_, i) => {
      const plan = [this.rng.choice(MOVES), this.rng.choice(MOVES)];
      const move = this.rng.next() < 0.5 ? plan[0] : this.rng.choice(MOVES);
      const ids = [...this.tokenizer.encode(`${plan.join(' ')}</think><answer>${move}</answer>`), this.tokenizer.endOfTurnId].slice(0, options.maxNewTokens[i]);
      return { tokenIds: ids, logprobs: ids.map(() => 0) };
    });
  }
}

/** Turns of an episode that saw these boards in order, each answered with its index. */
function episodeOf(boards: string[]): Pick<EpisodeRecord, 'turns'> {
  const turns = boards.map((board, i) => ({
    turn: i + 1,
    actionsLeftBefore: boards.length - i,
    observationBefore: board,
    observation: boards[i + 1] ?? 'solved',
    executedActions: [`move${i}`],
    generatedIds: [i],
    logprobs: [0],
    responseText: String(i),
    reward: 0,
  }));
  return { turns: turns as unknown as EpisodeRecord['turns'] };
}

describe('expert iteration (expert_iteration.rounds)', () => {
  it('cuts the loops of a solved episode back to the move made on the last visit of each board', () => {
    const replies = (boards: string[]) => keptTurns(episodeOf(boards), true).map((t) => t.reply?.text);
    // A walk a -> b -> a, then on to c: the first two turns were a loop.
    expect(replies(['a', 'b', 'a', 'c'])).toEqual(['2', '3']);
    // A move into a wall leaves the board as it was.
    expect(replies(['a', 'a', 'b'])).toEqual(['1', '2']);
    // Nested loops: a b c b d a e keeps only the last visit of a.
    expect(replies(['a', 'b', 'c', 'b', 'd', 'a', 'e'])).toEqual(['5', '6']);
    expect(replies(['a', 'b', 'c'])).toEqual(['0', '1', '2']);
    expect(keptTurns(episodeOf(['a', 'b', 'a']), false).map((t) => t.reply?.text)).toEqual(['0', '1', '2']);
    // The kept turn shows what its own visit showed: the moves left then.
    expect(keptTurns(episodeOf(['a', 'b', 'a', 'c']), true).map((t) => t.actionsLeft)).toEqual([2, 1]);
    // Unpruned, a turn after a move that changed nothing says so (agent_proxy.show_unchanged); pruned, none is left.
    expect(keptTurns(episodeOf(['a', 'a', 'b']), false).map((t) => t.unchangedBy)).toEqual([undefined, ['move0'], undefined]);
    expect(keptTurns(episodeOf(['a', 'a', 'b']), true).map((t) => t.unchangedBy)).toEqual([undefined, undefined]);
  });

  it('keeps the solved episodes of a round only, each turn as its own training document', async () => {
    const cfg = loadRunConfig(SOKOBAN_RL, ['expert_iteration.episodes=96']);
    const tokenizer = fitRunTokenizer(cfg);
    const cm = createContextManager(cfg, tokenizer);
    const play = (prune: boolean, round = 1, generator = new RandomMoves(tokenizer, new Rng(5))) =>
      playSolvedEpisodes({ cfg: { ...cfg, expert_iteration: { ...cfg.expert_iteration, prune_revisits: prune } }, cm, tokenizer, generator: () => generator, round });
    const pruned = await play(true);
    const whole = await play(false);
    expect(pruned.played).toBe(96);
    // Random moves solve about an eighth of these rooms.
    expect(pruned.solved).toBeGreaterThan(3);
    expect(pruned.solved).toBeLessThan(48);
    expect(pruned.demonstrations).toHaveLength(pruned.solved);
    // The same seed plays the same episodes; pruning only drops turns.
    expect(whole.solved).toBe(pruned.solved);
    expect(whole.turns).toBeGreaterThan(pruned.turns);
    for (const d of pruned.demonstrations) {
      const documents = (d.sequence.documentIds.at(-1) ?? -1) + 1;
      const replyTokens = d.sequence.lossMask.filter((m) => m === 1).length;
      expect(documents).toBeGreaterThan(0);
      expect(replyTokens).toBeGreaterThanOrEqual(documents);
      expect(d.text).toMatch(/(Up|Down|Left|Right)<\/answer>/);
    }
    expect(pruned.demonstrations.reduce((n, d) => n + (d.sequence.documentIds.at(-1) ?? -1) + 1, 0)).toBe(pruned.turns);
    // Each round plays start states of its own.
    const next = await play(true, 2);
    expect(next.demonstrations.map((d) => d.text)).not.toEqual(pruned.demonstrations.map((d) => d.text));
  });

  it("keeps, of a start state's tries, the solved one with the fewest turns once loops are cut, then the fewest tokens", () => {
    const played = (boards: string[], success: boolean, tokens = 1) => {
      const episode = episodeOf(boards) as EpisodeRecord;
      for (const t of episode.turns) t.generatedIds = Array.from({ length: tokens }, () => 0);
      return { ...episode, success };
    };
    const pick = (tries: EpisodeRecord[]) => {
      const best = bestSolved(tries, true);
      return best ? tries.indexOf(best.episode) : null;
    };
    expect(pick([played(['a', 'b'], false), played(['a', 'c'], false)])).toBeNull();
    // Three turns, two once the loop is cut, beats three; a failure is never kept however short.
    expect(pick([played(['x'], false), played(['a', 'b', 'c'], true), played(['a', 'b', 'a', 'c'], true)])).toBe(2);
    expect(pick([played(['a', 'b'], true, 5), played(['a', 'c'], true, 3), played(['a', 'd'], true, 3)])).toBe(1);
  });

  it('plays each start state as often as `tries` asks and keeps one demonstration for each solved start', async () => {
    const cfg = loadRunConfig(SOKOBAN_RL, ['expert_iteration.episodes=64']);
    const tokenizer = fitRunTokenizer(cfg);
    const cm = createContextManager(cfg, tokenizer);
    const play = async (tries: number, dropAllSolved = false) => {
      const generator = new RandomMoves(tokenizer, new Rng(9));
      const expertIteration = { ...cfg.expert_iteration, tries, drop_all_solved: dropAllSolved };
      const round = await playSolvedEpisodes({ cfg: { ...cfg, expert_iteration: expertIteration }, cm, tokenizer, generator: () => generator, round: 1 });
      return { round, moves: generator.played.length };
    };
    const once = await play(1);
    const four = await play(4);
    expect(once.round.played).toBe(64);
    expect(four.round.played).toBe(64);
    expect(four.round.demonstrations).toHaveLength(four.round.solved);
    // A random walker solves about an eighth of the rooms a try; four tries find more of them.
    expect(four.round.solved).toBeGreaterThan(once.round.solved);
    expect(once.round.solvedTries).toBe(once.round.solved);
    expect(four.round.solvedTries).toBeGreaterThanOrEqual(four.round.solved);
    expect(four.round.solvedTries).toBeLessThanOrEqual(4 * four.round.solved);
    // Either way a rollout plays the training's 256 envs: 64 starts four times, or 256 starts of which 64 are kept.
    expect(four.moves / once.moves).toBeGreaterThan(0.8);
    expect(four.moves / once.moves).toBeLessThan(1.25);
    // The same plays with `drop_all_solved`: the rooms both tries solved leave the pool, the others stay.
    const two = await play(2);
    const twoDropped = await play(2, true);
    expect(twoDropped.round.solved).toBe(two.round.solved);
    expect(twoDropped.round.demonstrations.length).toBeGreaterThan(0);
    expect(twoDropped.round.demonstrations.length).toBeLessThan(two.round.demonstrations.length);
    for (const d of twoDropped.round.demonstrations) expect(two.round.demonstrations.map((x) => x.text)).toContain(d.text);
    expect(() => loadRunConfig(SOKOBAN_RL, ['expert_iteration.rounds=1', 'expert_iteration.drop_all_solved=true'])).toThrow(/drop_all_solved.*tries: 1.*set tries to 8/);
    expect(() => loadRunConfig(SOKOBAN_RL, ['expert_iteration.rounds=1', 'expert_iteration.tries=3'])).toThrow(/expert_iteration\.tries` \(3\).*must divide each of them; choose a divisor such as 8/);
  });

  it('rewrites kept replies in hindsight: each thinks the moves its episode went on to play and answers its own', async () => {
    const cfg = loadRunConfig(SOKOBAN, ['expert_iteration.episodes=64', 'expert_iteration.tries=1', 'es_manager.train.env_groups=8', 'es_manager.train.env_configs.n_groups=[8]']);
    const tokenizer = fitRunTokenizer(cfg);
    const cm = createContextManager(cfg, tokenizer);
    const play = (think: 'sampled' | 'hindsight') =>
      playSolvedEpisodes({ cfg: { ...cfg, expert_iteration: { ...cfg.expert_iteration, think } }, cm, tokenizer, generator: () => new RandomThinker(tokenizer, new Rng(3)), round: 1 });
    const sampled = await play('sampled');
    const hindsight = await play('hindsight');
    expect(hindsight.solved).toBe(sampled.solved);
    expect(hindsight.solved).toBeGreaterThan(2);
    // The same kept turns either way; a random plan is seldom what the episode went on to play.
    expect(hindsight.turns).toBe(sampled.turns);
    expect(hindsight.plansKept).toBe(sampled.plansKept);
    expect(sampled.plansKept).toBeLessThan(sampled.turns);
    for (const [i, d] of hindsight.demonstrations.entries()) {
      const replies = [...d.text.matchAll(/<think>([^<]*)<\/think><answer>([^<]*)<\/answer>/g)].map((m) => ({ plan: m[1], move: m[2] }));
      expect(replies.length).toBeGreaterThan(0);
      const moves = replies.map((r) => r.move);
      replies.forEach((r, t) => expect(r.plan).toBe(moves.slice(t).join(' ')));
      // The sampled demonstration played the same moves and thought something else somewhere.
      expect([...sampled.demonstrations[i].text.matchAll(/<answer>([^<]*)<\/answer>/g)].map((m) => m[1])).toEqual(moves);
    }
    expect(hindsight.demonstrations.map((d) => d.text)).not.toEqual(sampled.demonstrations.map((d) => d.text));
    expect(() => loadRunConfig(SOKOBAN_RL, ['expert_iteration.rounds=1', 'expert_iteration.think=hindsight'])).toThrow(/expert_iteration\.think: hindsight.*set enable_think to true or think to sampled/);
  });

  it('refuses pruning with a context wider than one turn, naming both keys', () => {
    const sets = ['expert_iteration.rounds=2', 'agent_proxy.max_context_window=3'];
    expect(() => loadRunConfig(SOKOBAN_RL, sets)).toThrow(ConfigError);
    expect(() => loadRunConfig(SOKOBAN_RL, sets)).toThrow(/expert_iteration\.prune_revisits.*max_context_window to 1 \(it is 3\)/);
    expect(() => loadRunConfig(SOKOBAN_RL, [...sets, 'expert_iteration.prune_revisits=false'])).not.toThrow();
  });

  it('reports each round, keeps the policy it leaves as iter-0, and repeats itself from the same seed', async () => {
    const cfg = loadRunConfig(LAKE, [
      ...TINY_LAKE_OVERRIDES,
      'warm_start.mode=random-valid',
      'warm_start.steps=10',
      'warm_start.save_checkpoint=true',
      'trainer.total_training_steps=0',
      'expert_iteration.rounds=2',
      'expert_iteration.episodes=16',
      'expert_iteration.steps=3',
    ]);
    const first = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'a') });
    expect(first.sink.status).toBe('completed');
    expect(first.sink.expertIterationRounds.map((r) => [r.round, r.rounds, r.played])).toEqual([[1, 2, 16], [2, 2, 16]]);
    for (const r of first.sink.expertIterationRounds) {
      expect(r.solved).toBeLessThanOrEqual(r.played);
      expect(r.loss === null).toBe(r.pool === 0);
    }
    expect(first.sink.expertIterationRounds[1].pool).toBe(first.sink.expertIterationRounds[0].solved + first.sink.expertIterationRounds[1].solved);
    // The workbench's progress: the warm start's steps, then round 0 and each round with its fit's loss.
    const rounds = first.sink.warmStartReports.filter((r) => r.phase === 'expert iteration');
    expect(rounds).toEqual([{ step: 0, steps: 2, loss: null, phase: 'expert iteration' }, ...first.sink.expertIterationRounds.map((r) => ({ step: r.round, steps: 2, loss: r.loss, phase: 'expert iteration' }))]);
    expect(first.sink.warmStartReports.filter((r) => r.phase === 'warm start').map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The supervised warm start's end is kept (warm_start.save_freq) until iter-0 supersedes it, so a stop during expert iteration loses no step of it.
    expect(first.sink.checkpoints.map((c) => [c.iteration, c.warmStartStep])).toEqual([[0, 10], [0, undefined]]);
    expect(readdirSync(join(tmp.dir, 'a'))).toEqual(['iter-0']);

    // `pool_rounds: 1` fits each round to its own successes only: the first round is the same
    // run's, which the same seed repeats (both rounds repeat on two threads, below).
    const windowed = await trainInMemory({ ...cfg, expert_iteration: { ...cfg.expert_iteration, pool_rounds: 1 } }, { checkpointDir: join(tmp.dir, 'w') });
    const [w1, w2] = windowed.sink.expertIterationRounds;
    expect(w1).toEqual(first.sink.expertIterationRounds[0]);
    expect(w2.pool).toBe(w2.solved);

    // On two threads the rounds play on both shards and fit on both, and repeat themselves.
    const twoThreads = { ...cfg, trainer: { ...cfg.trainer, workers: 2 } };
    const sharded = await trainInMemory(twoThreads, { checkpointDir: join(tmp.dir, 'c') });
    const shardedAgain = await trainInMemory(twoThreads, { checkpointDir: join(tmp.dir, 'd') });
    expect(sharded.sink.status).toBe('completed');
    expect(sharded.sink.expertIterationRounds.map((r) => r.played)).toEqual([16, 16]);
    expect(shardedAgain.sink.expertIterationRounds).toEqual(sharded.sink.expertIterationRounds);
    expect(shardedAgain.sink.metrics.get(0)?.['val/success']).toBe(sharded.sink.metrics.get(0)?.['val/success']);

    // A stop asked for while a round plays ends the run there, as a stop in the warm start does.
    let polls = 0;
    const lines: string[] = [];
    const stopped = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'e'), shouldStop: () => ++polls > 12, log: (line) => lines.push(line) });
    expect(stopped.result.status).toBe('stopped');
    expect(stopped.sink.status).toBe('stopped');
    // The supervised warm start's end was saved: a resume goes on from there, expert iteration from its first round, as the run never stopped.
    expect(stopped.sink.checkpoints.map((c) => c.warmStartStep)).toEqual([10]);
    expect(lines.join('\n')).toMatch(/stopped during expert iteration round 1, after step 0 of 3; the warm start's checkpoint at step 10 is saved: resume the run .* \(expert iteration starts again from its first round\)/);
    const resumed = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'e'), resumeFrom: stopped.sink.checkpoints[0].path });
    expect(resumed.sink.expertIterationRounds).toEqual(first.sink.expertIterationRounds);
    expect(resumed.sink.metrics.get(0)?.['val/success']).toBe(first.sink.metrics.get(0)?.['val/success']);
  }, 120_000);
});
