// Asks the server to check the config being edited (checkRunConfig) as it is edited.
import type { Ref } from 'vue';
import type { ConfigProblemDto, RunConfigCheckRequest } from '../../../preload/contract';
import { api } from '../api';
import { useServerCheck } from './use-server-check';

export interface ConfigCheck {
  problems: Ref<ConfigProblemDto[]>;
  /** True from an edit until its answer is in: Start waits for it. */
  pending: Ref<boolean>;
}

/** `request` gives null while the form has problems of its own (nothing worth asking). */
export function useConfigCheck(request: () => RunConfigCheckRequest | null): ConfigCheck {
  const { answer, pending } = useServerCheck(request, (question) => api.checkRunConfig(question), [] as ConfigProblemDto[], (message) => [{ key: '', message }]);
  return { problems: answer, pending };
}
