// `turnlab play` run as a user would script it: the real command in a child process, actions
// piped into stdin one per line.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const bin = fileURLToPath(new URL('../../bin/turnlab.js', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function turnlab(args: string[], input = ''): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    // The command may finish before reading everything; a closed pipe is not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

describe('turnlab play', () => {
  it('plays FrozenLake from piped actions: --solve output piped back in reaches the goal', async () => {
    const solved = await turnlab(['play', 'frozen_lake', '--seed', '3', '--set', 'is_slippery=false', '--set', 'random_start=false', '--set', 'random_goal=false', '--solve']);
    expect(solved.code).toBe(0);
    const actions = solved.stdout.trim().split('\n');
    expect(actions.length).toBeGreaterThanOrEqual(6);
    for (const action of actions) expect(['Left', 'Down', 'Right', 'Up']).toContain(action);

    const played = await turnlab(['play', 'frozen_lake', '--seed', '3', '--set', 'is_slippery=false', '--set', 'random_start=false', '--set', 'random_goal=false'], solved.stdout);
    expect(played.code).toBe(0);
    expect(played.stderr).toBe('');
    expect(played.stdout).toMatch(/^Environment: frozen_lake {2}seed: 3\n/);
    expect(played.stdout).toContain('Actions: Left, Down, Right, Up');
    expect(played.stdout).toContain('\nState:\nP___\n');
    expect(played.stdout.match(/^> /gm)).toHaveLength(actions.length);
    expect(played.stdout).toContain('reward: 1  done: true  (valid, effective, success)');
    expect(played.stdout).toContain('√');
    expect(played.stdout.trimEnd().split('\n').at(-1)).toBe(`Episode finished: return 1, success: true, steps: ${actions.length}`);
  });

  it('solves and replays Sokoban and the example custom environment', async () => {
    const example = 'examples/custom-env/guess-number.ts';
    const [sokoban, guess] = await Promise.all([
      turnlab(['play', 'sokoban', '--seed', '11', '--solve']),
      turnlab(['play', example, '--seed', '4', '--solve']),
    ]);
    expect(sokoban.code).toBe(0);
    expect(guess.stdout).toMatch(/^(\d+\n)+$/); // the halving plan, one guess a line
    const [sokobanPlay, guessPlay] = await Promise.all([
      turnlab(['play', 'sokoban', '--seed', '11'], sokoban.stdout),
      turnlab(['play', example, '--seed', '4'], `0\n${guess.stdout}`),
    ]);
    const steps = sokoban.stdout.trim().split('\n').length;
    const expectedReturn = Number((-0.1 * steps + 11).toFixed(6));
    expect(sokobanPlay.stdout).toContain(`Episode finished: return ${expectedReturn}, success: true, steps: ${steps}`);
    expect(guessPlay.code).toBe(0);
    expect(guessPlay.stdout).toContain('Environment: guess_number  seed: 4');
    expect(guessPlay.stdout).toContain('0 is too low.');
    expect(guessPlay.stdout).toContain(`Episode finished: return 1, success: true, steps: ${1 + guess.stdout.trim().split('\n').length}`);
  });

  it('refuses a line that names no action without taking a step, and ends cleanly when input runs out', async () => {
    // An arrow key typed into a pipe arrives as an escape sequence: not an action, not a step.
    const result = await turnlab(['play', 'sokoban', '--seed', '2'], 'jump\n\x1b[A\nLeft || Up\n\nup\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("'jump' is not an action; use one of: Up, Down, Left, Right (no step taken)\n");
    // The agent's several actions a reply, typed as a reply: one a line here.
    expect(result.stdout).toContain("'Left || Up' is not an action: play takes one action a line, or a whole reply with its tags (<answer>Left || Up</answer>); use one of: Up, Down, Left, Right (no step taken)\n");
    expect(result.stdout).not.toContain('invalid action');
    expect(result.stdout).not.toContain('\x1b');
    expect(result.stdout).toContain('Input ended before the episode finished: return -0.1, success: false, steps: 1');
  });

  it('reads a whole reply as the rollout does: its valid actions played in turn, the rest named, the format penalty said', async () => {
    const lake = ['play', 'frozen_lake', '--seed', '3', '--set', 'is_slippery=false', '--max-actions-per-turn', '4'];
    const replies = ['<think>no answer</think>', '<think>around</think><answer>up || Jump || right || down || down</answer>', '<answer>Down</answer>'];
    const result = await turnlab(lake, `${replies.join('\n')}\n`);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('reply: no <think>...</think> then <answer>...</answer> found, so no action is read (the rollout gives the format penalty and takes no step)');
    expect(lines).toContain('reply: answer "up || Jump || right || down || down"; actions Up, Right, Down (3 of 4 valid); not actions: Jump; 1 past max_actions_per_turn 4 dropped; format penalty: yes');
    expect(lines).toContain('Up: reward: 0  done: false  (valid, effective)');
    expect(lines).toContain('Right: reward: 0  done: false  (valid, effective)');
    expect(lines).toContain('Down: reward: 1  done: true  (valid, effective, success)');
    // The episode ended inside the second reply: the third is not read.
    expect(result.stdout).not.toContain('answer "Down"');
    expect(lines.at(-2)).toBe('Episode finished: return 1, success: true, steps: 3');
  });

  // `script` gives the command a real terminal: the arrow keys must edit the line (recall the
  // last action, clear it), not be echoed as ^[[A and played as an invalid action.
  const script = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!script)('lets arrow keys edit the line on a terminal instead of echoing escape codes', async () => {
    const child = spawn('script', ['-qfec', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} play sokoban --seed 2`, '/dev/null'], { cwd: root });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const until = async (text: string, from: number) => {
      for (let i = 0; i < 600 && out.indexOf(text, from) < 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(out.indexOf(text, from), out).toBeGreaterThanOrEqual(0);
      return out.indexOf(text, from) + text.length;
    };
    let at = await until('> ', 0);
    child.stdin.write('up\r');
    at = await until('(valid, effective)', at);
    at = await until('> ', at);
    // Up recalls "up", Down clears the line again, Left moves nowhere: Enter sends an empty line.
    child.stdin.write('\x1b[A\x1b[B\x1b[D\r');
    await until('> ', at);
    child.stdin.write('\x04');
    await new Promise((r) => child.on('close', r));
    expect(out).not.toContain('^[[');
    expect(out).not.toContain('is not an action');
    expect(out).toContain('Input ended before the episode finished: return -0.1, success: false, steps: 1');
  });

  it('plays a one-step text env and reports reward and success', async () => {
    const [bandit, countdown] = await Promise.all([
      turnlab(['play', 'bandit', '--seed', '5'], 'Phoenix\nDragon\n'),
      turnlab(['play', 'countdown', '--seed', '1', '--set', 'min_numbers=3', '--set', 'max_numbers=3'], '1 + 2 + 3\n'),
    ]);
    expect(bandit.stdout).toContain('Phoenix: 0.1 points');
    expect(bandit.stdout).toContain('Episode finished: return 0.1, success: false, steps: 1');
    expect(bandit.stdout).not.toContain('> Dragon');
    expect(countdown.stdout).toMatch(/Target: \d+, nums: \[\d+, \d+, \d+\]/);
    expect(countdown.stdout).toContain('Episode finished: return 0, success: false, steps: 1');
  });

  it('explains --solve on slippery ice with the optimal success probability', async () => {
    const result = await turnlab(['play', 'frozen_lake', '--seed', '3', '--solve', '--budget', '20']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/optimal policy succeeds with probability 0\.\d{4} within 20 actions; its best first move is (Left|Down|Right|Up)\n$/);
  });

  // RAGEN's names for the environments are the shipped configs' tags (custom_envs in configs/base.yaml).
  it("plays a config's environment tag with that tag's options", async () => {
    const [lake, larger] = await Promise.all([turnlab(['play', 'FrozenLake', '--seed', '1']), turnlab(['play', 'LargerSokoban', '--seed', '1'])]);
    expect(lake.stdout).toContain('Environment: frozen_lake  seed: 1');
    expect(larger.stdout).toContain('Environment: sokoban  seed: 1');
    // LargerSokoban's env_config: two boxes in an 8x8 room.
    expect(larger.stdout.split('\n').filter((line) => /^[#_.OXPS√@*]{8}$/.test(line.replace(/\s/g, '')))).toHaveLength(8);
  });

  it('exits 2 with a suggestion for an unknown env or option', async () => {
    const [env, option] = await Promise.all([turnlab(['play', 'frozenlak']), turnlab(['play', 'frozen_lake', '--set', 'sise=5'])]);
    expect(env).toMatchObject({ code: 2, stdout: '', stderr: "turnlab: unknown environment 'frozenlak'; did you mean 'frozen_lake'?\n" });
    expect(option.code).toBe(2);
    expect(option.stderr).toBe("turnlab: frozen_lake: unknown option 'sise'; did you mean 'size'? (options: size, p, is_slippery, random_start, random_goal)\n");
  });
});

describe('turnlab envs', () => {
  it('lists every environment with its options', async () => {
    const result = await turnlab(['envs', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Array<{ type: string; options: Array<{ key: string }> }>;
    expect(listed.map((e) => e.type)).toEqual(['frozen_lake', 'sokoban', 'countdown', 'bandit', 'bandit_rev', 'metamathqa']);
    expect(listed[1].options.map((o) => o.key)).toEqual(['dim_room', 'dim_x', 'dim_y', 'num_boxes', 'max_steps', 'search_depth', 'outer_wall']);
  });

  it('shows one environment when named, and names the closest for a misspelt one', async () => {
    const one = await runTurnlabInProcess(['envs', 'sokoban', '--json']);
    expect((JSON.parse(one.stdout) as Array<{ type: string }>).map((e) => e.type)).toEqual(['sokoban']);
    const table = await runTurnlabInProcess(['envs', 'bandit']);
    expect(table.stdout).toMatch(/^bandit: /);
    expect(table.stdout).not.toContain('Custom environments');
    // A config's tag names its env_type, as play takes it; check plays it with the tag's options.
    const tag = await runTurnlabInProcess(['envs', 'SimpleSokoban', '--json']);
    expect((JSON.parse(tag.stdout) as Array<{ type: string }>).map((e) => e.type)).toEqual(['sokoban']);
    const checked = await runTurnlabInProcess(['check', 'FrozenLake', '--episodes', '2']);
    expect(checked.stdout).toMatch(/^environment FrozenLake: ok; 2 seeds played twice/m);
    const wrong = await runTurnlabInProcess(['envs', 'sokobon']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^turnlab: unknown environment 'sokobon'; did you mean 'sokoban'\? \(frozen_lake, sokoban,/);
  });
});
