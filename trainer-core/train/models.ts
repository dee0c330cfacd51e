import type { RunConfig } from '../config/schema';
import { configForTrainStage } from '../config/train-stages';
import { needsReference } from '../algo/kl';
import { needsCritic } from '../algo/estimator-registry';
import { fitTokenizer, type WordByteTokenizer } from '../model/tokenizer';
import { totalmem } from 'node:os';
import { ConfigError } from '../config/errors';
import { parameterCount, Transformer, type TransformerConfig } from '../model/transformer';
import { deriveSeed, Rng } from '../rng';
import { createContextManager } from '../rollout/rollout-loop';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { playDemonstrations, type DemonstrationMode } from './demonstrations';

/**
 * Whether one train stage's config (configForTrainStage) weighs a KL term; the iterations of a
 * stage that weighs none score no reference.
 */
export function stageUsesReference(stageCfg: RunConfig): boolean {
  return needsReference({
    useKlInReward: stageCfg.algorithm.use_kl_in_reward,
    klCoef: stageCfg.algorithm.kl_ctrl.kl_coef,
    useKlLoss: stageCfg.actor_rollout_ref.actor.use_kl_loss,
    klLossCoef: stageCfg.actor_rollout_ref.actor.kl_loss_coef,
  });
}

/**
 * Which models a config needs: a critic only for GAE, a reference only when a KL term is on in
 * some train stage (a curriculum may switch the KL loss on after a stage without it).
 */
export function modelRoles(cfg: RunConfig): { critic: boolean; reference: boolean } {
  const stages = cfg.es_manager.train.stages.length + 1;
  return {
    critic: needsCritic(cfg.algorithm.adv_estimator),
    reference: Array.from({ length: stages }, (_, i) => stageUsesReference(configForTrainStage(cfg, i))).some(Boolean),
  };
}

/**
 * Fits the tokenizer to the text the run will show and expect: prompts, observations and
 * well-formed replies of both splits, played by the envs themselves.
 */
export function fitRunTokenizer(cfg: RunConfig, resolveSpec?: EnvSpecResolver): WordByteTokenizer {
  const byteLevel = fitTokenizer([]);
  const cm = createContextManager(cfg, byteLevel);
  const corpus: string[] = [];
  // A curriculum stage adds the text of the tags neither split plays (the others' text is in
  // already), so a stage that moves to envs validation plays keeps the tokenizer of the run
  // without it: the two runs are the same up to the stage change.
  const seen = new Set([...cfg.es_manager.train.env_configs.tags, ...cfg.es_manager.val.env_configs.tags]);
  const stagePlays = cfg.es_manager.train.stages.flatMap((stage, i) => {
    const fresh = stage.env_configs.tags.some((tag) => !seen.has(tag));
    stage.env_configs.tags.forEach((tag) => seen.add(tag));
    return fresh ? [{ split: 'train' as const, stageCfg: configForTrainStage(cfg, i + 1), label: `train-stage-${i + 1}` }] : [];
  });
  const plays = [{ split: 'train' as const, stageCfg: cfg, label: 'train' }, { split: 'val' as const, stageCfg: cfg, label: 'val' }, ...stagePlays];
  for (const { split, stageCfg, label } of plays) {
    for (const mode of ['random-valid', 'expert'] as DemonstrationMode[]) {
      for (let round = 0; round < 3; round++) {
        const es = new EnvStateManager(stageCfg, split, { resolveSpec });
        es.restoreState({ resetCount: round });
        try {
          const demos = playDemonstrations({ cfg: stageCfg, es, cm, tokenizer: null, mode, rng: new Rng(deriveSeed(cfg.trainer.seed, 'corpus', label, mode, round)) });
          corpus.push(...demos.map((d) => d.text));
        } catch {
          // Free-text envs have no random-valid play; their expert play covers them.
        }
      }
    }
  }
  return fitTokenizer(corpus, { maxVocab: cfg.model.vocab_size ?? 1024, minCount: 2 });
}

export function transformerConfig(cfg: RunConfig, vocabSize: number, role: 'policy' | 'critic'): TransformerConfig {
  return {
    vocabSize,
    contextLength: cfg.model.context_length,
    dModel: cfg.model.d_model,
    nLayers: cfg.model.n_layer,
    nHeads: cfg.model.n_head,
    dMlp: cfg.model.d_ff,
    tieEmbeddings: cfg.model.tie_embeddings,
    positionEncoding: cfg.model.position_encoding,
    ropeBase: cfg.model.rope_base,
    lmHead: role === 'policy',
    // The policy carries a value head of its own when the value loss shapes its trunk (aux_value_coef).
    valueHead: role === 'critic' || cfg.actor_rollout_ref.actor.aux_value_coef > 0,
  };
}

export function createModel(cfg: RunConfig, vocabSize: number, role: 'policy' | 'critic'): Transformer {
  return Transformer.create(transformerConfig(cfg, vocabSize, role), deriveSeed(cfg.trainer.seed, 'init', role));
}

/**
 * A critic with the policy's trunk and a fresh value head, as verl's critic loads the actor's
 * weights: it starts from a model that already reads the prompts (after a warm start or
 * `model.path`), so the values mean something from the first iterations.
 */
export function createCriticFromPolicy(cfg: RunConfig, policy: Transformer): Transformer {
  const critic = createModel(cfg, policy.config.vocabSize, 'critic');
  critic.copyTrunkFrom(policy);
  return critic;
}

/** Says which setting differs when a checkpoint's model does not match the config. */
/** Each model field by the config key that sets it, so a mismatch names what to change. */
const MODEL_FIELD_KEYS = {
  vocabSize: "the vocabulary (the tokenizer's, from the environments)",
  contextLength: 'model.context_length',
  dModel: 'model.d_model',
  nLayers: 'model.n_layer',
  nHeads: 'model.n_head',
  dMlp: 'model.d_ff',
  tieEmbeddings: 'model.tie_embeddings',
  positionEncoding: 'model.position_encoding',
  ropeBase: 'model.rope_base',
  lmHead: 'the LM head',
  valueHead: 'the value head',
} as const;

export function describeModelMismatch(expected: TransformerConfig, actual: Transformer['config']): string | null {
  const keys = Object.keys(MODEL_FIELD_KEYS) as Array<keyof typeof MODEL_FIELD_KEYS>;
  const diffs = keys
    .filter((k) => expected[k] !== undefined && expected[k] !== actual[k])
    .map((k) => `${MODEL_FIELD_KEYS[k]}: checkpoint ${String(actual[k])}, config ${String(expected[k])}`);
  return diffs.length > 0 ? diffs.join('; ') : null;
}

/** The model shapes a config needs, for checking a checkpoint against it. */
export function expectedModels(cfg: RunConfig, vocabSize: number): { policy: TransformerConfig; critic: TransformerConfig | null } {
  return {
    policy: transformerConfig(cfg, vocabSize, 'policy'),
    critic: modelRoles(cfg).critic ? transformerConfig(cfg, vocabSize, 'critic') : null,
  };
}

/** The smallest vocabulary a fitted tokenizer has (its bytes): a lower bound for the size check. */
const BYTE_VOCAB = 256;

/**
 * TurnLab's own model, refused before the run exists when its weights with their gradients and
 * Adam's two moments (four float32 copies) exceed this machine's memory: `model.d_model=1000000`
 * otherwise failed as a RangeError deep in the weights' initialisation, after the run was recorded.
 */
export function checkOwnModelFits(cfg: RunConfig, memoryBytes: number = totalmem()): void {
  if (cfg.actor_rollout_ref.model.path !== null) return;
  const { policy, critic } = expectedModels(cfg, BYTE_VOCAB);
  const parameters = parameterCount(policy) + (critic ? parameterCount(critic) : 0);
  const bytes = parameters * 4 * 4;
  if (bytes <= memoryBytes) return;
  const gb = (n: number) => (n / 2 ** 30).toFixed(1);
  throw new ConfigError([
    {
      path: ['model', 'd_model'],
      message:
        `TurnLab's own model at model.d_model=${cfg.model.d_model} and model.n_layer=${cfg.model.n_layer} holds at least ${parameters.toExponential(2)} parameters: ` +
        `${gb(bytes)} GB with its gradients and Adam's moments, more than this machine's ${gb(memoryBytes)} GB; lower model.d_model or model.n_layer`,
    },
  ]);
}
