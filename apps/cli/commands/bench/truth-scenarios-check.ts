import type { TruthScenario } from './truth-scenarios.js';

/** The check set of `memloom bench truth`: written apart from the tune set and never tuned on. A placeholder until it is merged. */
export const CHECK_SCENARIOS: TruthScenario[] = [];
