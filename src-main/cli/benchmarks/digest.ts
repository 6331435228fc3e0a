// The digests' benchmark: a one-hour transcript through the local extractive digest and the remote
// engine against a loopback chat-completions server (docs/benchmarks.md "Digests").
import { numberFlag } from '../args';
import { benchDigest } from '../../bench/digest-bench';
import { print, type Benchmark } from './types';

export const digestBench: Benchmark = {
  name: 'digest',
  usage: 'digest [--seconds S]',
  async run(values) {
    const r = await benchDigest(Math.floor(numberFlag(values.seconds, 'seconds', 3600)));
    print(values, r, () => `${r.transcriptSeconds} s transcript (${r.words} words, ${r.sentences} sentences): extractive digest ${r.extractiveMs.median} ms in process, ${r.extractiveEngineMs} ms as its engine process; remote: ${r.remote.requests} requests (${r.remote.parts} parts), ${r.remote.inputTokens} tokens in, ${r.remote.outputTokens} out (bound ${r.remote.boundInputTokens} / ${r.remote.boundOutputTokens})`);
  },
};
