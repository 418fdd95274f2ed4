// Package profiler shows where the time of a forward goes, op by op, in
// eager and in hybridized execution, with MXNet's mx.profiler API and a
// scoped Go form.
//
//	profiler.SetConfig(profiler.Config{Filename: "profile.json"})
//	profiler.SetState("run")
//	net.Forward(x)
//	profiler.SetState("stop")
//	fmt.Print(profiler.Dumps(false)) // the aggregate table
//	profiler.Dump()                  // the Chrome trace, profile.json
//
//	p := profiler.Run(func() { net.Forward(x) }) // the same, scoped
//	fmt.Print(p.Table(), p.Bars(8))
//
//	c := profiler.Modes(net, 3, func() { net.Forward(x) })
//	fmt.Print(c) // eager beside hybridized
//
// # What is recorded
//
// Every op call, eager (eager.Exec) or a step of a compiled graph, is one
// Event: the op name, the MXNet node name in a compiled graph
// ("hybridsequential0_dense0_fwd"), the mode (eager, hybridized, or fused
// for a fused group such as _fused_Convolution_relu), the input shapes,
// the wall time, the bytes allocated for its outputs and the goroutine.
// A block's Forward and a compiled graph's call are spans around their
// ops, so that ops are attributed to block paths ("net0/dense0"); a
// hybridized block's ops run inside its one compiled call and carry
// their node names. The time between two op calls that is neither an op
// nor the profiler's own bookkeeping is the interpreter and dispatch
// time: yaegi and the block code for eager calls from the REPL, the
// executor's loop for compiled ones (Event.Gap).
//
// Memory: an op call counts the outputs it allocates; a compiled call
// counts its memory plan (planned bytes), the frame of buffers when it
// had to make one, and the outputs it copies out. A call's peak is the
// plan and the copies for a compiled call; for eager calls every output
// counts as held until the call ends, since Go's collector, not the last
// use, frees it. So StaticAlloc shows as allocated 0 per call, and the
// memory plan as a peak below the eager one.
//
// # Outputs
//
// Profile.Table is the aggregate table, by op and by block: count, total,
// mean, min, max, share of the time and bytes allocated, with the
// interpreter/dispatch time as its own row. Profile.WriteTrace writes a
// Chrome trace (Trace Event Format, complete events on each goroutine's
// track) that opens in https://ui.perfetto.dev and chrome://tracing.
// Profile.Bars is the top ops as a bar list for a terminal; the REPL's
// :profile EXPR prints a Comparison with them (DefaultRuns profiled runs
// in each mode). In a notebook cell, display.Profile(net, func() {
// net.Forward(x) }) runs the same comparison and displays it as one rich
// output: the table, the top ops of each mode and a timeline of one call
// in each mode (echarts, over a static SVG); display.Show(p) shows one
// Profile the same way. Package display draws them; this package draws
// nothing but text.
//
// # Cost
//
// The hooks live in eager (eager.SetProfiler): with profiling off an op
// call pays one atomic load, on both paths, and allocates nothing.
// While profiling, events are appended to one slice and aggregated only
// when a table or a trace is asked for.
//
// # Imports
//
// profiler imports eager (the hooks), nn (Modes switches a block between
// the modes) and internal/atomicfile. Nothing below the REPL and the
// notebook display imports it; it must not import viz, display or repl.
package profiler
