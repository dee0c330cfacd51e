// Asks the server to check the config being edited (checkRunConfig) a moment after the last
// edit, keeping only the answer to the latest question.
import { ref, watch, type Ref } from 'vue';
import type { ConfigProblemDto, RunConfigCheckRequest } from '../../../preload/contract';
import { api } from '../api';

const SETTLE_MS = 250;

export interface ConfigCheck {
  problems: Ref<ConfigProblemDto[]>;
  /** True from an edit until its answer is in: Start waits for it. */
  pending: Ref<boolean>;
}

/** `request` gives null while the form has problems of its own (nothing worth asking). */
export function useConfigCheck(request: () => RunConfigCheckRequest | null): ConfigCheck {
  const problems = ref<ConfigProblemDto[]>([]);
  const pending = ref(false);
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  watch(
    () => JSON.stringify(request()),
    () => {
      clearTimeout(timer);
      const question = request();
      const ticket = ++asked;
      pending.value = question !== null;
      // The last answer stays beside its field while the next is asked, so nothing flickers.
      if (question === null) {
        problems.value = [];
        return;
      }
      timer = setTimeout(() => {
        api.checkRunConfig(question).then(
          (answer) => {
            if (ticket === asked) problems.value = answer;
          },
          (error: unknown) => {
            if (ticket === asked) problems.value = [{ key: '', message: error instanceof Error ? error.message : String(error) }];
          },
        ).finally(() => {
          if (ticket === asked) pending.value = false;
        });
      }, SETTLE_MS);
    },
    { immediate: true },
  );
  return { problems, pending };
}
