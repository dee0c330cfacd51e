import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS_YAML, configForTrainStage, loadRunConfig, parseRunConfig, resolvedConfigToYaml, trainStageAt } from '../../trainer-core/config';

const dir = mkdtempSync(join(tmpdir(), 'turnlab-config-'));
let fileCount = 0;
function file(text: string): string {
  const path = join(dir, `c${fileCount++}.yaml`);
  writeFileSync(path, text);
  return path;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('an empty map gives RAGEN defaults', () => {
    const cfg = loadRunConfig(file('{}'));
    expect(cfg.agent_proxy).toMatchObject({ max_turn: 5, max_actions_per_turn: 5, action_sep: '||', enable_think: true, template: 'ragen' });
    expect(cfg.es_manager.format_penalty).toBe(-0.1);
    expect(cfg.es_manager.train).toMatchObject({ env_groups: 8, group_size: 16, env_configs: { tags: ['SimpleSokoban'], n_groups: [8] } });
    expect(cfg.es_manager.val).toMatchObject({ env_groups: 256, group_size: 1 });
    expect(cfg.custom_envs.SimpleSokoban.max_actions_per_traj).toBe(10);
    expect(cfg.rollout_filter_ratio).toBe(0.25);
    expect(cfg.actor_rollout_ref.actor).toMatchObject({ clip_ratio_low: 0.2, clip_ratio_high: 0.28, entropy_coeff: 0.001, ppo_mini_batch_size: 32 });
    expect(cfg.algorithm).toMatchObject({ adv_estimator: 'gae', gamma: 1, lam: 1, high_level_gamma: 0.95 });
  });

  it('fills each env_config with the env options defaults', () => {
    const cfg = loadRunConfig(file('{}'));
    expect(cfg.custom_envs.LargerSokoban.env_config).toMatchObject({ dim_room: [8, 8], num_boxes: 2 });
    expect(cfg.custom_envs.SimpleSokoban.env_config).toMatchObject({ dim_room: [6, 6], num_boxes: 1 });
  });

  it('configs/base.yaml holds exactly the documented defaults, comments and all, and loads', () => {
    const base = join(__dirname, '../../configs/base.yaml');
    // The README calls it the same text as defaults.ts: a comment changed in one drifts otherwise.
    expect(readFileSync(base, 'utf8')).toBe(DEFAULTS_YAML);
    expect(loadRunConfig(base)).toEqual(loadRunConfig(file('{}')));
  });

  it('resolved YAML reads back to the same config', () => {
    const cfg = loadRunConfig(file('agent_proxy:\n  max_turn: 3\n'));
    expect(parseRunConfig(parse(resolvedConfigToYaml(cfg)))).toEqual(cfg);
  });
});

describe('validation errors', () => {
  it('names an unknown key with its file line, full path and the closest valid key', () => {
    const path = file('trainer:\n  seed: 1\nagent_proxy:\n  max_turn: 3\n  max_turns: 4\n');
    const error = errorOf(() => loadRunConfig(path));
    expect(error.message).toBe(`${path} line 5: unknown key \`agent_proxy.max_turns\`; did you mean \`agent_proxy.max_turn\`?`);
    expect(error.issues[0].path).toEqual(['agent_proxy', 'max_turns']);
    // The key it may have meant, set by an override, is no cause: the file's line is.
    const both = errorOf(() => loadRunConfig(path, ['agent_proxy.max_turn=2']));
    expect(both.message).toBe(`${path} line 5: unknown key \`agent_proxy.max_turns\`; did you mean \`agent_proxy.max_turn\`?`);
  });

  it("names, for a key written without its sections, the path that ends in it, the policy's first", () => {
    // `lr` also ends warm_start.lr and critic.optim.lr; a reader of verl's configs means the policy's.
    const path = file('trainer:\n  seed: 1\nlr: 1e-3\n');
    expect(errorOf(() => loadRunConfig(path)).message).toBe(`${path} line 3: unknown key \`lr\`; did you mean \`actor_rollout_ref.actor.optim.lr\`?`);
    expect(errorOf(() => loadRunConfig(file('trainer:\n  seed: 1\n'), ['gamma=0.9'])).message).toMatch(/--set gamma=0\.9: unknown key `gamma`; did you mean `algorithm\.gamma`\?$/);
    expect(errorOf(() => loadRunConfig(file('trainer:\n  seed: 1\n'), ['actor_rollout_ref.ppo_epochs=2'])).message).toMatch(/unknown key `actor_rollout_ref\.ppo_epochs`; did you mean `actor_rollout_ref\.actor\.ppo_epochs`\?$/);
  });

  it('names a wrong type with its path and the expected type', () => {
    const path = file('agent_proxy:\n  max_turn: five\n  enable_think: 1\n');
    const error = errorOf(() => loadRunConfig(path));
    expect(error.message).toContain(`${path} line 2: \`agent_proxy.max_turn\` must be an integer, got the string "five"`);
    expect(error.message).toContain(`${path} line 3: \`agent_proxy.enable_think\` must be true or false, got 1`);
  });

  it('names the valid choices of an enum and the closest one', () => {
    const error = errorOf(() => parseRunConfig({ algorithm: { adv_estimator: 'grp' } }, 'api'));
    expect(error.message).toContain('`algorithm.adv_estimator` must be one of gae | grpo');
    expect(error.message).toContain('did you mean `grpo`?');
  });

  it('refuses bi_level_gae with an estimator that does not read it, before any run starts', () => {
    const error = errorOf(() => parseRunConfig({ algorithm: { adv_estimator: 'grpo', bi_level_gae: true } }, 'api'));
    expect(error.message).toContain("`algorithm.bi_level_gae` is RAGEN's bi-level GAE, which only `adv_estimator: gae` reads (it is grpo)");
    expect(error.issues[0].path).toEqual(['algorithm', 'bi_level_gae']);
  });

  it('reports ranges', () => {
    expect(errorOf(() => parseRunConfig({ rollout_filter_ratio: 1.5 })).message).toContain('`rollout_filter_ratio` must be <= 1, got 1.5');
  });

  it('checks that groups add up and that tags exist', () => {
    const error = errorOf(() =>
      parseRunConfig({ es_manager: { train: { env_groups: 4, env_configs: { tags: ['FrozenLak', 'Bandit'], n_groups: [2, 1] } } } }),
    );
    expect(error.message).toContain('`es_manager.train.env_groups` is 4 but `env_configs.n_groups` adds up to 3');
    expect(error.message).toContain('tag `FrozenLak` in `es_manager.train.env_configs.tags` is not defined under `custom_envs`; did you mean `FrozenLake`?');
  });

  it('checks the curriculum stages: order, groups, tags, each naming its stage', () => {
    const stage = (from: number, tags: string[], n: number[]) => ({ from_iteration: from, env_configs: { tags, n_groups: n } });
    const error = errorOf(() =>
      parseRunConfig({
        es_manager: { train: { env_groups: 4, env_configs: { tags: ['FrozenLake'], n_groups: [4] }, stages: [stage(1, ['FrozenLake'], [4]), stage(10, ['FrozenLak'], [3]), stage(10, ['Bandit'], [4])] } },
      }),
    );
    expect(error.message).toContain('`es_manager.train.stages.0.from_iteration` is 1, where `es_manager.train.env_configs` already plays');
    expect(error.message).toContain('`es_manager.train.stages.1.env_configs.n_groups` adds up to 3 but `es_manager.train.env_groups` is 4');
    expect(error.message).toContain('tag `FrozenLak` in `es_manager.train.stages.1.env_configs.tags` is not defined under `custom_envs`; did you mean `FrozenLake`?');
    expect(error.message).toContain("`es_manager.train.stages.2.from_iteration` is 10, not after stage 1's 10");
    const typo = errorOf(() => parseRunConfig({ es_manager: { train: { stages: [{ from_iter: 5, env_configs: { tags: ['Bandit'], n_groups: [8] } }] } } }));
    expect(typo.message).toMatch(/unknown key `es_manager\.train\.stages\.0\.from_iter`; did you mean `es_manager\.train\.stages\.0\.from_iteration`\?/);
    const cfg = parseRunConfig({ es_manager: { train: { stages: [stage(5, ['Bandit'], [8])] } } });
    expect([1, 4, 5, 9].map((i) => trainStageAt(cfg, i))).toEqual([0, 0, 1, 1]);
    expect(configForTrainStage(cfg, 1).es_manager.train.env_configs.tags).toEqual(['Bandit']);
  });

  it("weighs the actor's KL loss as the latest stage that sets kl_loss_coef says, and only with use_kl_loss", () => {
    const stage = (from: number, kl?: number) => ({ from_iteration: from, env_configs: { tags: ['Bandit'], n_groups: [8] }, ...(kl === undefined ? {} : { kl_loss_coef: kl }) });
    const actor = { use_kl_loss: true, kl_loss_coef: 0.05 };
    const cfg = parseRunConfig({ actor_rollout_ref: { actor }, es_manager: { train: { stages: [stage(5, 0), stage(9), stage(12, 0.2)] } } });
    expect([0, 1, 2, 3].map((i) => configForTrainStage(cfg, i).actor_rollout_ref.actor.kl_loss_coef)).toEqual([0.05, 0, 0, 0.2]);
    expect(cfg.actor_rollout_ref.actor.kl_loss_coef).toBe(0.05);
    const off = errorOf(() => parseRunConfig({ es_manager: { train: { stages: [stage(5, 0)] } } }));
    expect(off.message).toContain('`es_manager.train.stages.0.kl_loss_coef` weighs the actor\'s KL loss, which `actor_rollout_ref.actor.use_kl_loss` turns off');
  });

  it('checks env_config with the env options schema', () => {
    const path = file('custom_envs:\n  FrozenLake:\n    env_type: frozen_lake\n    env_config:\n      sise: 4\n');
    const error = errorOf(() => loadRunConfig(path));
    expect(error.message).toMatch(/line 5: unknown key `custom_envs\.FrozenLake\.env_config\.sise`; did you mean `custom_envs\.FrozenLake\.env_config\.size`\?/);
    const badType = errorOf(() => parseRunConfig({ custom_envs: { X: { env_type: 'frozen_lak' } } }));
    expect(badType.message).toContain('`custom_envs.X.env_type`');
    expect(badType.message).toContain('frozen_lake');
    // A key of either kind (a boolean or a word) lists both and the closest word.
    const union = errorOf(() => parseRunConfig({ custom_envs: { X: { env_type: 'frozen_lake', env_config: { random_goal: 'corners' } } } }));
    expect(union.message).toContain('`custom_envs.X.env_config.random_goal` must be one of true | false | "corner", got the string "corners"; did you mean `corner`?');
  });

  it('reports YAML syntax errors with a line', () => {
    const path = file('trainer:\n  seed: 1\n   bad: [\n');
    expect(errorOf(() => loadRunConfig(path)).message).toMatch(new RegExp(`^${path} line \\d+: not valid YAML`));
  });

  it.each([
    ['an unclosed double quote', 'trainer:\n  experiment_name: "my run\n  total_training_steps: 3\nagent_proxy:\n  max_turn: 2\n', 2, 'the " quote at column 20 is never closed; add the closing "'],
    ['an unclosed single quote', "trainer:\n  experiment_name: 'my run\n  total_training_steps: 3\nagent_proxy:\n  max_turn: 2\n", 2, "the ' quote at column 20 is never closed; add the closing '"],
    ['a quote left open inside a list', 'es_manager:\n  train:\n    env_configs:\n      tags: ["Bandit, FrozenLake]\n      n_groups: [8]\ntrainer:\n  seed: 1\n', 4, 'the " quote at column 14 is never closed; add the closing "'],
    ['an unclosed bracket', 'agent_proxy:\n  max_turn: 2\nrollout_filter_ratio: [0.5\ntrainer:\n  seed: 1\n', 3, 'the [ at column 23 is never closed; add the closing ]'],
    ['a key without its colon', 'trainer:\n  total_training_steps 2\n  seed: 1\n', 2, "Implicit keys need to be on a single line (column 3); is a ':' missing after the key? Each setting is written key: value"],
    ['a line indented too deep, at that line', 'trainer:\n  total_training_steps: 2\n   seed: 1\n', 3, "Nested mappings are not allowed in compact mappings: this line is indented deeper than the key above it, whose value is already given; indent it as that key's siblings"],
    ['a key indented less than its siblings', 'trainer:\n  total_training_steps: 2\n seed: 1\n', 3, 'All mapping items must start at the same column (column 1); indent it as the other keys of its section, at the same column'],
    ['a tab', 'trainer:\n\tseed: 1\n', 2, 'Tabs are not allowed as indentation (column 1); YAML indents with spaces; replace the tab with spaces'],
  ])('reports %s at the line to fix (where a quote or bracket opens, not where the file ends), with the fix', (_what, text, line, message) => {
    const path = file(text);
    expect(errorOf(() => loadRunConfig(path)).message).toBe(`${path} line ${line}: not valid YAML: ${message}`);
  });

  it('reports other YAML errors at their own line and column, in one line', () => {
    const path = file('trainer:\n  seed: 1\n  experiment_name: "a"b\n  total_training_steps: 3\n');
    expect(errorOf(() => loadRunConfig(path)).message).toBe(`${path} line 3: not valid YAML: Unexpected scalar at node end (column 23)`);
  });

  it.each([
    ['an empty file', ''],
    ['a file of blank lines and comments', '\n# nothing to see\n   \n# trainer:\n#   seed: 3\n'],
    ['a bare document marker', '---\n'],
  ])('refuses %s, naming it, instead of running the defaults', (_what, text) => {
    const path = file(text);
    const { message } = errorOf(() => loadRunConfig(path));
    expect(message).toMatch(new RegExp(`^${path} is empty: it holds no settings.*configs/base\\.yaml`));
    expect(message).not.toContain('\n');
  });

  it('names an alias to no anchor at its line, and refuses aliases that expand past the limit', () => {
    const dangling = file('trainer:\n  total_training_steps: 3\n  seed: *nope\n');
    expect(errorOf(() => loadRunConfig(dangling)).message).toBe(
      `${dangling} line 3: the alias *nope names no anchor set before it; write &nope on an earlier value, or write the value itself`,
    );
    // An anchor used before it is set is the same mistake.
    const early = file('trainer:\n  seed: *s\n  total_training_steps: &s 3\n');
    expect(errorOf(() => loadRunConfig(early)).message).toMatch(new RegExp(`^${early} line 2: the alias \\*s names no anchor`));
    const list = (name: string, of: string) => `${name}: &${name} [${Array(10).fill(of).join(', ')}]\n`;
    const bomb = file(`${list('a', '1')}${list('b', '*a')}${list('c', '*b')}${list('d', '*c')}`);
    expect(errorOf(() => loadRunConfig(bomb)).message).toBe(`${bomb}: cannot read the file as a config: Excessive alias count indicates a resource exhaustion attack`);
    // Aliases to anchors set before them still read.
    expect(loadRunConfig(file('trainer:\n  seed: &s 4\n  total_training_steps: *s\n')).trainer.total_training_steps).toBe(4);
  });

  it('reports a missing file', () => {
    expect(errorOf(() => loadRunConfig(join(dir, 'nope.yaml'))).message).toContain('file not found');
  });
});

describe('--set overrides', () => {
  it('parses values as YAML scalars and applies them before validation', () => {
    const cfg = loadRunConfig(file('agent_proxy:\n  max_turn: 3\n'), [
      'agent_proxy.max_turn=7',
      'agent_proxy.enable_think=false',
      'agent_proxy.action_sep=,',
      'es_manager.train.env_configs.tags=[FrozenLake]',
      'model.path=null',
      'custom_envs.FrozenLake.env_config.size=6',
    ]);
    expect(cfg.agent_proxy).toMatchObject({ max_turn: 7, enable_think: false, action_sep: ',' });
    expect(cfg.es_manager.train.env_configs.tags).toEqual(['FrozenLake']);
    expect(cfg.custom_envs.FrozenLake.env_config.size).toBe(6);
  });

  it('names an unknown key with the closest valid one', () => {
    const error = errorOf(() => loadRunConfig(file('{}'), ['es_manager.train.group_sizes=4']));
    expect(error.message).toBe('--set es_manager.train.group_sizes=4: unknown key `es_manager.train.group_sizes`; did you mean `es_manager.train.group_size`?');
  });

  it.each([
    ['trainer=5', '`trainer` is a section and expects a map of its keys, not 5; set one of them, e.g. --set trainer.total_training_steps=5'],
    ['agent_proxy=[3]', '`agent_proxy` is a section and expects a map of its keys, not [3]; set one of them, e.g. --set agent_proxy.max_turn=[3]'],
    ['custom_envs=Bandit', '`custom_envs` is a section and expects a map of its keys, not "Bandit"; set one entry, e.g. --set custom_envs.<name>.<key>=Bandit'],
  ])('refuses --set %s (a whole section set to one value), naming the key and what it expects', (override, message) => {
    expect(errorOf(() => loadRunConfig(file('{}'), [override])).message).toBe(`--set ${override}: ${message}`);
  });

  it("merges a map into the section, as Hydra's trainer={...} does, and names an unknown key in it", () => {
    const cfg = parseOverrideOnly('trainer={total_training_steps: 7}');
    expect(cfg.trainer.total_training_steps).toBe(7);
    // The keys it does not name keep their values, so references to them still resolve.
    expect(cfg.es_manager.train.start_seed).toBe(cfg.trainer.seed);
    expect(errorOf(() => parseOverrideOnly('trainer={a: 1}')).message).toBe('--set trainer={a: 1}: unknown key `trainer.a`; did you mean `trainer.seed`?');
  });

  it('names only the tighter of two limits a value breaks', () => {
    expect(errorOf(() => parseOverrideOnly('trainer.total_training_steps=1e308')).message).toBe(
      '--set trainer.total_training_steps=1e308: `trainer.total_training_steps` must be <= 1000000, got 1e+308',
    );
  });

  it('blames the override for a bad value', () => {
    const error = errorOf(() => loadRunConfig(file('{}'), ['agent_proxy.max_turn=lots']));
    expect(error.message).toBe('--set agent_proxy.max_turn=lots: `agent_proxy.max_turn` must be an integer, got the string "lots"');
  });

  it('blames the override for a check across keys it failed, not the line of the key the check is filed under', () => {
    const yaml = 'model:\n  d_model: 64\n  n_head: 2\n';
    expect(errorOf(() => loadRunConfig(file(yaml), ['model.d_model=33'])).message).toBe('--set model.d_model=33: `model.d_model` (33) must be a multiple of `model.n_head` (2)');
    expect(errorOf(() => loadRunConfig(file(yaml), ['model.n_head=3'])).message).toBe('--set model.n_head=3: `model.d_model` (64) must be a multiple of `model.n_head` (3)');
  });

  it('blames the override that made a section for a key missing from it, and the file for one its own section lacks', () => {
    const yaml = 'algorithm:\n  adv_estimator: grpo\n';
    expect(errorOf(() => loadRunConfig(file(yaml), ['algorithm.turn_shaping.gamma=0.9'])).message).toBe(
      '--set algorithm.turn_shaping.gamma=0.9: `algorithm.turn_shaping.coef` is missing; it must be a number',
    );
    const path = file('algorithm:\n  turn_shaping:\n    gamma: 0.9\n');
    expect(errorOf(() => loadRunConfig(path, ['algorithm.turn_shaping.gamma=0.8'])).message).toMatch(new RegExp(`^${path} line 3: \`algorithm.turn_shaping.coef\` is missing`));
    // The key the section's own refusal suggests is enough on its own: gamma defaults to 1.
    expect(loadRunConfig(file(yaml), ['algorithm.turn_shaping.coef=0.1']).algorithm.turn_shaping).toEqual({ coef: 0.1, gamma: 1, end: 'absorbing' });
  });

  it('refuses a positive format penalty, which would reward malformed replies', () => {
    expect(errorOf(() => loadRunConfig(file('{}'), ['es_manager.format_penalty=0.5'])).message).toBe('--set es_manager.format_penalty=0.5: `es_manager.format_penalty` must be <= 0, got 0.5');
  });

  it('says a list YAML could not read needs its items quoted', () => {
    expect(errorOf(() => loadRunConfig(file('{}'), ['es_manager.train.seeds=[*]'])).message).toBe(
      '--set es_manager.train.seeds=[*]: `es_manager.train.seeds` must be a list, got the string "[*]" (YAML could not read it as a list: quote items such as * or -, e.g. \'["*", "-"]\')',
    );
  });

  it('says what a Python or Hydra spelling of a value means here (None, a multirun list)', () => {
    expect(errorOf(() => loadRunConfig(file('{}'), ['agent_proxy.max_turn=None'])).message).toBe(
      '--set agent_proxy.max_turn=None: `agent_proxy.max_turn` must be an integer, got the string "None" (YAML writes no value as null)',
    );
    expect(errorOf(() => loadRunConfig(file('{}'), ['actor_rollout_ref.actor.optim.lr=1e-3,3e-4'])).message).toBe(
      '--set actor_rollout_ref.actor.optim.lr=1e-3,3e-4: `actor_rollout_ref.actor.optim.lr` must be a number, got the string "1e-3,3e-4"; several values to try are a sweep: turnlab sweep CONFIG --grid actor_rollout_ref.actor.optim.lr=1e-3,3e-4',
    );
  });

  it('takes text that is not YAML literally', () => {
    expect(parseOverrideOnly('trainer.experiment_name=@x').trainer.experiment_name).toBe('@x');
  });

  it('rejects text without a key', () => {
    expect(errorOf(() => parseOverrideOnly('=3')).message).toContain('expected key.path=value');
  });
});

function parseOverrideOnly(text: string) {
  return parseRunConfig({}, 'test', [text]);
}

describe('${} references', () => {
  it('keep the target type and follow the user setting of the target', () => {
    const cfg = loadRunConfig(file('ppo_mini_batch_size: 12\n'));
    expect(cfg.actor_rollout_ref.actor.ppo_mini_batch_size).toBe(12);
    expect(cfg.critic.ppo_mini_batch_size).toBe(12);
  });

  it('resolve references to references, inside text, and nested references', () => {
    const cfg = parseRunConfig({
      trainer: { seed: 3, experiment_name: 'run-${trainer.seed}-${agent_proxy.template}' },
      es_manager: { val: { start_seed: '${es_manager.train.start_seed}' } },
      agent_proxy: { template: 'compact' },
      critic: { ppo_epochs: '${actor_rollout_ref.actor.ppo_epochs}' },
      actor_rollout_ref: { actor: { ppo_epochs: 2 } },
    });
    expect(cfg.trainer.experiment_name).toBe('run-3-compact');
    expect(cfg.es_manager.val.start_seed).toBe(3);
    expect(cfg.critic.ppo_epochs).toBe(2);
    const nested = parseRunConfig({ trainer: { project_name: '${custom_envs.${es_manager.train.env_configs.tags.0}.env_type}' } });
    expect(nested.trainer.project_name).toBe('sokoban');
  });

  it('copy whole maps', () => {
    const cfg = parseRunConfig({ critic: { optim: '${actor_rollout_ref.actor.optim}' }, actor_rollout_ref: { actor: { optim: { lr: 0.01 } } } });
    expect(cfg.critic.optim.lr).toBe(0.01);
  });

  it('report a cycle with its chain', () => {
    const path = file('trainer:\n  seed: ${trainer.keep_last_n}\n  keep_last_n: ${trainer.seed}\n');
    const error = errorOf(() => loadRunConfig(path));
    expect(error.message).toMatch(/line [23]: reference cycle: `trainer\.(seed|keep_last_n)` -> `trainer\.(seed|keep_last_n)` -> `trainer\.\1`/);
  });

  it('report a missing target with the referring key, its line and a suggestion', () => {
    const path = file('trainer:\n  seed: 1\n  keep_last_n: ${trainer.sed}\n');
    const error = errorOf(() => loadRunConfig(path));
    expect(error.message).toBe(
      `${path} line 3: \`trainer.keep_last_n\` refers to \`\${trainer.sed}\`, which points to nothing: \`trainer.sed\` does not exist; did you mean \`trainer.seed\`?`,
    );
  });

  it('report a bad value once where a copy of it fails too, and name the source where only the copy fails', () => {
    const twice = errorOf(() => loadRunConfig(file('{}'), ['actor_rollout_ref.actor.ppo_epochs=-1']));
    expect(twice.message).toBe('--set actor_rollout_ref.actor.ppo_epochs=-1: `actor_rollout_ref.actor.ppo_epochs` must be > 0, got -1');
    const path = file('critic:\n  ppo_epochs: ${trainer.total_training_steps}\ntrainer:\n  total_training_steps: 0\n');
    expect(errorOf(() => loadRunConfig(path)).message).toBe(
      `${path} line 2: \`critic.ppo_epochs\` must be > 0, got 0 (its value comes from \`\${trainer.total_training_steps}\`)`,
    );
  });

  it('work in --set values', () => {
    const cfg = loadRunConfig(file('{}'), ['trainer.seed=9', 'es_manager.val.start_seed=${trainer.seed}']);
    expect(cfg.es_manager.val.start_seed).toBe(9);
  });
});
