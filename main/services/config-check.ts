import { loadRunConfig, runConfigFromYaml, ConfigError, formatPath, HfModelError } from '../../trainer-core';
import type { ConfigProblemDto, RunConfigCheckRequest } from '../../preload/contract';

/** How edited text is named in messages: never by a file the workbench wrote for it. */
export const EDITED_TEXT_NAME = 'the config text';

/**
 * What the trainer would refuse in a config and its overrides, each problem under the dotted key
 * it is about ('' for the file as a whole), so a form can put it beside its field. The config's
 * own validation (trainer-core/config) decides; a pretrained model folder is opened as the
 * trainer opens it. Edited text is checked in memory as a file of it would be (a line for each problem in it), so
 * no message names a temporary file.
 */
export async function checkRunConfig(request: RunConfigCheckRequest): Promise<ConfigProblemDto[]> {
  let cfg;
  try {
    if (request.yaml !== undefined) {
      cfg = runConfigFromYaml(request.yaml, EDITED_TEXT_NAME, request.overrides ?? []).cfg;
    } else {
      cfg = loadRunConfig(request.configPath ?? '', request.overrides ?? []);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.issues.map((issue) => ({ key: formatPath(issue.path), message: issue.message, ...(issue.line !== undefined ? { line: issue.line } : {}) }));
    }
    return [{ key: '', message: error instanceof Error ? error.message : String(error) }];
  }
  const modelPath = cfg.actor_rollout_ref.model.path;
  if (modelPath !== null) {
    // Loaded only when a config names a model: the module brings TensorFlow.js with it.
    const { openHfModelFolder } = await import('../../trainer-core/compute');
    try {
      await openHfModelFolder(modelPath);
    } catch (error) {
      if (!(error instanceof HfModelError)) throw error;
      return [{ key: 'actor_rollout_ref.model.path', message: error.message }];
    }
  }
  return [];
}
