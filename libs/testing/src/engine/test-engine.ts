/**
 * The Docker engine a test needs: `testEngine()` returns its address (DOCKER_HOST form) or
 * throws saying how to get one. Never a silent skip: a test that needs an engine fails
 * where there is none. jest's global setup finds or starts the engine (find-engine.ts) and
 * passes it to the workers as SHOAL_TEST_ENGINE, or why there is none as SHOAL_TEST_ENGINE_ERROR.
 */
import { NO_ENGINE_MESSAGE } from './find-engine';

/** SHOAL_TEST_ENGINE=none: the run was told to start no engine. */
export const ENGINE_TURNED_OFF = 'none';

export const testEngine = (env: NodeJS.ProcessEnv = process.env): string => {
  const engine = env.SHOAL_TEST_ENGINE?.trim();
  if (engine && engine !== ENGINE_TURNED_OFF) return engine;
  if (engine === ENGINE_TURNED_OFF) {
    throw new Error('this test needs a Docker engine, and SHOAL_TEST_ENGINE=none told the run to start none: unset it (npm test then starts its own engine)');
  }
  const why = env.SHOAL_TEST_ENGINE_ERROR?.trim() || NO_ENGINE_MESSAGE;
  throw new Error(`this test needs a Docker engine: ${why}`);
};
