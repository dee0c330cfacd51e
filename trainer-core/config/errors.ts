/** One problem in a run config, located as precisely as the source allows. */
export interface ConfigIssue {
  /** Key path inside the config, e.g. ['agent_proxy', 'max_turn']. */
  path: Array<string | number>;
  message: string;
  /** 1-based line in the YAML file when the value came from one. */
  line?: number;
  /** Where the value came from when not the config file itself, e.g. `--set a.b=3`. */
  origin?: string;
}

/**
 * A config the user can fix. `message` is one line naming every problem, so a CLI can print it
 * as is; `issues` keeps them apart for programs.
 */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  readonly userFacing = true;

  constructor(issues: ConfigIssue[], source?: string) {
    super(issues.map((issue) => formatIssue(issue, source)).join('; '));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatPath(path: ReadonlyArray<string | number>): string {
  return path.map(String).join('.');
}

function formatIssue(issue: ConfigIssue, source?: string): string {
  if (issue.origin) return `${issue.origin}: ${issue.message}`;
  if (!source) return issue.message;
  return issue.line !== undefined ? `${source} line ${issue.line}: ${issue.message}` : `${source}: ${issue.message}`;
}
