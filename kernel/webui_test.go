package kernel

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/internal/echartstest"
	"github.com/hybridgo/hybridgo/tutorial"
)

// webuiCells are the cells added after the hybridize tutorial's for
// TestNotebookWebUI (testdata/webui.py expects these five last): the
// graph drawn interactively with echarts served by the Notebook server, a
// progress bar, an error, a cell that runs until it is interrupted, and
// one that checks the kernel and its variables outlived the interrupt.
var webuiCells = []string{
	// The server serves the notebook folder's files under /files/; a
	// path from "/" would name a file on disk (file://), which a page
	// served over http may not load. *& because the interpreter cannot
	// assign to a package's variable by name yet (yaegi issue 1623).
	"*&display.EchartsHost = \"../../files/run/echarts/\"\nsym.Add(s, s)",
	"p := display.NewProgress(20, \"webui\")\nfor i := 0; i < 20; i++ {\n\ttime.Sleep(100 * time.Millisecond)\n\tp.Step(1 / float64(i+1))\n}\np.Epoch(0.5, math.NaN(), 0.75)\np.Done()",
	"undefinedName + 1",
	"for {\n}",
	"fmt.Println(1 + 1)\na.Shape()",
}

// TestNotebookWebUI runs the kernel in Debian's classic Notebook server
// (jupyter-notebook) and drives it from headless Chromium with Selenium,
// as a person would: testdata/webui.py opens a copy of the hybridize
// tutorial with webuiCells added, clears its outputs and runs all cells
// from the menu, then checks the NDArray table, the graph's SVG, a
// progress bar updated in place and an error cell's message, and
// interrupts a running cell from the toolbar. Screenshots of each step
// go to $HYBRIDGO_ARTIFACTS/kernel-webui when that is set, else to the
// test's temporary directory; the test logs where.
//
//	go test -count=1 -run NotebookWebUI -v ./kernel/
//	HYBRIDGO_ARTIFACTS=/tmp/shots go test -count=1 -run NotebookWebUI ./kernel/
//
// It needs jupyter-notebook, python3-selenium and chromium-driver
// (make deps installs them).
func TestNotebookWebUI(t *testing.T) {
	for _, need := range []struct{ what, install string }{
		{"/usr/bin/jupyter-notebook", "jupyter-notebook"},
		{"/usr/bin/chromedriver", "chromium-driver"},
		{"/usr/bin/chromium", "chromium"},
	} {
		if _, err := os.Stat(need.what); err != nil {
			t.Skipf("%s is missing: apt-get install %s (or make deps)", need.what, need.install)
		}
	}
	if err := exec.Command(python, "-c", "import selenium").Run(); err != nil {
		t.Skipf("%s cannot import selenium: apt-get install python3-selenium (or make deps)", python)
	}
	env, tmp := jupyterSetup(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	nbDir := filepath.Join(tmp, "notebooks")
	run, err := tutorial.PrepareDir(root, nbDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeWebUINotebook(filepath.Join(root, "notebooks", "hybridize-tutorial.ipynb"),
		filepath.Join(run, "webui.ipynb")); err != nil {
		t.Fatal(err)
	}
	shots := webuiShotsDir(t, tmp)
	t.Logf("screenshots: %s", shots)
	script, err := filepath.Abs(filepath.Join("testdata", "webui.py"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{script, "--screenshots", shots}
	echarts := filepath.Join(run, "echarts")
	os.MkdirAll(echarts, 0o755)
	if pkg, err := echartstest.Fetch(echarts); err != nil {
		t.Logf("the interactive graph is not checked, only its static picture: %v", err)
	} else {
		t.Logf("echarts: %s", pkg)
		args = append(args, "--echarts")
	}

	base, token, stop := startNotebookServer(t, env, tmp, nbDir)
	defer stop()

	cmd := exec.Command(python, append(args, "--url", base+"notebooks/run/webui.ipynb?token="+token)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	failed := false
	var console []string
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL"):
			failed = true
			t.Error(line)
		case strings.HasPrefix(line, "PASS"), strings.HasPrefix(line, "SHOT"):
			t.Log(line)
		case strings.HasPrefix(line, "CONSOLE"):
			console = append(console, line)
		}
	}
	if runErr != nil || failed {
		t.Errorf("webui.py: %v (screenshots in %s)\n%s", runErr, shots, out.String())
	} else if len(console) > 0 {
		t.Logf("the browser's console:\n%s", strings.Join(console, "\n"))
	}
}

// writeWebUINotebook writes the tutorial at src with webuiCells added to dst.
func writeWebUINotebook(src, dst string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var nb map[string]any
	if err := json.Unmarshal(raw, &nb); err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	cells, _ := nb["cells"].([]any)
	for _, c := range webuiCells {
		cells = append(cells, map[string]any{"cell_type": "code", "execution_count": nil,
			"metadata": map[string]any{}, "outputs": []any{}, "source": c})
	}
	nb["cells"] = cells
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// webuiShotsDir is where the screenshots go.
func webuiShotsDir(t *testing.T, tmp string) string {
	dir := filepath.Join(tmp, "screenshots")
	if a := os.Getenv("HYBRIDGO_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "kernel-webui")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startNotebookServer starts jupyter-notebook on a free port of
// 127.0.0.1 serving dir, waits until it answers, and returns its base URL
// and token, and a function that stops it and its kernels.
func startNotebookServer(t *testing.T, env []string, tmp, dir string) (base, token string, stop func()) {
	t.Helper()
	tok := make([]byte, 16)
	rand.Read(tok)
	token = hex.EncodeToString(tok)
	port := freePort(t)
	base = "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	args := []string{"--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port), "--port-retries=0",
		"--NotebookApp.token=" + token, "--notebook-dir=" + dir}
	if os.Getuid() == 0 {
		args = append(args, "--allow-root") // containers and CI run as root
	}
	cmd := exec.Command("/usr/bin/jupyter-notebook", args...)
	cmd.Env, cmd.Dir = env, tmp
	log, err := os.Create(filepath.Join(tmp, "notebook-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("jupyter-notebook: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop = func() {
		// SIGTERM: the server shuts its kernels down, then exits.
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			t.Errorf("jupyter-notebook did not stop within 15s of SIGTERM; killed")
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		killKernels(t, filepath.Join(tmp, "hybridgo"))
		log.Close()
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil {
				t.Logf("notebook server log:\n%s", b)
			}
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "api/status?token=" + token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, token, stop
			}
		}
		select {
		case <-exited:
			t.Errorf("jupyter-notebook exited before it answered")
			stop()
			t.FailNow()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Errorf("jupyter-notebook did not answer %sapi/status within 30s", base)
			stop()
			t.FailNow()
		}
	}
}

// killKernels kills the kernels of bin still running after their server
// stopped (they run in sessions of their own), and says so: the server
// should have shut them down.
func killKernels(t *testing.T, bin string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte(bin+"\x00kernel\x00")) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		t.Errorf("kernel %d still ran after the notebook server stopped; killed", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
