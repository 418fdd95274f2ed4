// Package tutorial checks hybridgo's Markdown tutorials and turns them
// into notebooks. It runs cells through repl and renders values with
// display, as the kernel does, and must not import kernel (a notebook is
// written without a running kernel).
//
// A tutorial is a Markdown file read as a sequence of steps:
//
//   - prose: everything outside the fences below, kept as Markdown;
//   - code: a block fenced with ```go, which is one REPL cell;
//   - expected output: a block fenced with ```output that follows a code
//     block (with only blank lines between). It holds what the cell
//     printed, on standard output and standard error, followed by its
//     displayed value (repl.Result.Text), if any.
//
// Check runs the code blocks in order in one repl.Session, as a notebook
// would, and compares what each printed with its output block, line by
// line. A code block without an output block must print nothing and
// display nothing. Spaces at the ends of lines and blank lines at the end
// are ignored.
//
// In an output block the character … (U+2026, the ellipsis) is a
// wildcard that matches any run of characters within the line, empty
// included. Use it for what varies from run to run, timings or unseeded
// random values. A line that holds … alone matches any number of
// lines, none included, for long printouts shown in part:
//
//	```output
//	took …ms
//	[[0.1… 0.2…]
//	…
//	<NDArray 16x10 @cpu(0)>
//	```
//
// Other fenced blocks (```sh, ```text, …) are prose. Update rewrites the
// output blocks that do not match with what the cells printed, leaving
// those that match (wildcards and all) as they are. ToNotebook makes an
// .ipynb with a Markdown cell per run of prose and a code cell per code
// block, without outputs; ToNotebookWithOutputs runs the cells first and
// keeps what each printed, displayed and returned, as the kernel would
// (`hybridgo notebook` uses it, so committed notebooks show their outputs).
//
// # Output
//
// A cell's output is what it prints, and what compiled code prints to
// os.Stdout while it runs (a display.Progress bar, a display without a
// notebook): Run points os.Stdout at the cell's output for the time of
// the cell.
//
// # Files
//
// Cells run in the current directory: files a tutorial writes (Export)
// land there. Files a tutorial reads are kept in tutorials/testdata
// (Testdata) and named from the directory the cells run in as
// ../tutorials/testdata/NAME. That path holds when the cells run in any
// directory next to tutorials/: in tutorials/ itself, and in notebooks/,
// where the notebooks are. Test runners keep the layout in a temporary
// directory: PrepareDir copies the files to DIR/tutorials/testdata and
// gives DIR/run to run the cells in (TestTutorials, the deploy example's
// test), and CopyTestdata copies them next to the directories the
// notebooks run in (the kernel's notebook test).
//
// A tutorial that needs something from outside the repository, such as
// a dataset, is listed with it in the tests (needs in tutorial_test.go,
// notebookNeeds in the kernel's notebook test), which skip it, naming
// the Debian package to install, when it is missing.
package tutorial
