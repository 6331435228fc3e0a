// The pocketsphinx 5 decoder program, run as `python -c DECODER_PY` by wheel-recognizer.ts. It is
// kept in a TypeScript string (String.raw: its backslashes stay Python's) so the built app carries
// it inside its bundle, with no loose .py file to place.
//
// The pocketsphinx 5 decoder as a child of Backlot's pocketsphinx engine program (docs/transcription.md).
//
// It loads the model once and then decodes chunk after chunk for as long as its parent lives, so a
// worker pays for loading only once. Private framing with the parent, on stdin/stdout:
//   start:   one JSON line {"ready": true, "version", "hmm", "lm", "dict"} (or {"fatal": "..."}, exit 2)
//   request: a line with the byte count N, then N bytes of 16 kHz mono signed 16-bit little-endian PCM
//   answer:  one JSON line {"words": [[word, start_s, end_s, p], ...]} or {"error": "..."}
// Each chunk is one utterance decoded with full_utt=True (the whole chunk's statistics, as the
// decoder's batch mode does), from a freshly reset feature extractor. stdin closing ends it.
export const DECODER_PY = String.raw`import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hmm")
    parser.add_argument("--lm")
    parser.add_argument("--dict")
    args = parser.parse_args()
    out = sys.stdout
    try:
        from importlib.metadata import version
        import pocketsphinx

        model = pocketsphinx.get_model_path()
        hmm = args.hmm or os.path.join(model, "en-us", "en-us")
        lm = args.lm or os.path.join(model, "en-us", "en-us.lm.bin")
        dic = args.dict or os.path.join(model, "en-us", "cmudict-en-us.dict")
        decoder = pocketsphinx.Decoder(hmm=hmm, lm=lm, dict=dic, loglevel="FATAL")
        frate = float(decoder.config["frate"])
        out.write(json.dumps({"ready": True, "version": version("pocketsphinx"), "hmm": hmm, "lm": lm, "dict": dic}) + "\n")
        out.flush()
    except Exception as e:  # noqa: BLE001 - any failure to load is reported, never a traceback
        out.write(json.dumps({"fatal": "%s: %s" % (type(e).__name__, e)}) + "\n")
        out.flush()
        sys.exit(2)

    stdin = sys.stdin.buffer
    while True:
        header = stdin.readline()
        if not header:
            return
        try:
            size = int(header.strip())
        except ValueError:
            out.write(json.dumps({"error": "bad header"}) + "\n")
            out.flush()
            return
        data = stdin.read(size)
        if len(data) != size:
            return
        try:
            # A fresh feature extractor per chunk: what the decoder heard before (another item,
            # an earlier chunk) must not change this chunk's words, so a resumed run matches.
            decoder.reinit_feat()
            decoder.start_utt()
            decoder.process_raw(data, full_utt=True)
            decoder.end_utt()
            words = [[s.word, s.start_frame / frate, (s.end_frame + 1) / frate, s.prob] for s in decoder.seg()]
            out.write(json.dumps({"words": words}) + "\n")
        except Exception as e:  # noqa: BLE001
            out.write(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
`;
