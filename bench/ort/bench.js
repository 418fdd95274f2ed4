// bench.js is the ONNX Runtime side of `hybridgo bench compare`: it times
// one ONNX model with onnxruntime-node on the CPU and prints one JSON line,
// in the format of bench/torch/bench.py's.
//
//	node bench/ort/bench.js --modules DIR --model M.onnx --shape 1,3,224,224 \
//	    --case NAME --threads N [--budget S] [--min-runs N] [--max-runs N]
//
// DIR holds node_modules/onnxruntime-node. The model's one input is fed a
// random float32 tensor of the shape given. The session runs with
// intraOpNumThreads N and interOpNumThreads 1, all graph optimizations on;
// it warms up with two runs, then runs for --budget seconds (default 1),
// at least --min-runs (default 5) and at most --max-runs (default 2000)
// times.
'use strict';
const path = require('path');

function parseArgs(argv) {
  const args = { budget: 1, 'min-runs': 5, 'max-runs': 2000 };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`bench.js: bad argument ${argv[i]}`);
    }
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const need of ['modules', 'model', 'shape', 'case', 'threads']) {
    if (args[need] === undefined) {
      throw new Error(`bench.js: --${need} is required`);
    }
  }
  return args;
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = require(path.join(args.modules, 'node_modules', 'onnxruntime-node'));
  const threads = Number(args.threads);
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const dims = args.shape.split(',').map(Number);
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) {
    data[i] = Math.random() * 2 - 1;
  }
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  const run = () => session.run(feeds);
  await run();
  await run();
  const budget = Number(args.budget), minRuns = Number(args['min-runs']), maxRuns = Number(args['max-runs']);
  const times = [];
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9;
  while (times.length < minRuns || (elapsed() < budget && times.length < maxRuns)) {
    const t0 = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(JSON.stringify({
    case: args.case, impl: 'onnxruntime', threads,
    median_s: median(sorted), min_s: sorted[0], max_s: sorted[sorted.length - 1], runs: times.length,
  }));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
