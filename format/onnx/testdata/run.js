// run.js runs ONNX models with onnxruntime-node for the tests of package
// onnx.
//
//	node run.js MODULES_DIR REQUEST.json RESPONSE.json
//
// MODULES_DIR holds node_modules/onnxruntime-node. REQUEST.json is a list
// of runs, [{"model": "m.onnx", "feeds": {"data": {"dims": [2, 3],
// "data": [...]}}}, ...]; RESPONSE.json gets, for each run, its outputs
// by name in the same form, or {"error": "..."}.
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [modules, request, response] = process.argv.slice(2);
  const ort = require(path.join(modules, 'node_modules', 'onnxruntime-node'));
  const runs = JSON.parse(fs.readFileSync(request, 'utf8'));
  const results = [];
  for (const run of runs) {
    try {
      const session = await ort.InferenceSession.create(run.model);
      const feeds = {};
      for (const [name, t] of Object.entries(run.feeds)) {
        feeds[name] = new ort.Tensor('float32', Float32Array.from(t.data), t.dims);
      }
      const out = await session.run(feeds);
      const res = {};
      for (const name of session.outputNames) {
        res[name] = { dims: Array.from(out[name].dims), data: Array.from(out[name].data) };
      }
      results.push(res);
    } catch (e) {
      results.push({ error: String(e && e.message || e) });
    }
  }
  fs.writeFileSync(response, JSON.stringify(results));
}

main().catch((e) => { console.error(e); process.exit(1); });
