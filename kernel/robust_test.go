package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"runtime"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// startKernel runs a kernel on free local ports for the test's duration.
func startKernel(t *testing.T) *ConnectionInfo {
	t.Helper()
	ci := &ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", Key: "robust-key", SignatureScheme: "hmac-sha256",
		ShellPort: freePort(t), ControlPort: freePort(t), StdinPort: freePort(t), IOPubPort: freePort(t), HBPort: freePort(t)}
	k, err := New(ci, Options{})
	if err != nil {
		t.Fatal(err)
	}
	go k.Run()
	t.Cleanup(func() {
		k.stop()
		k.closeSockets()
	})
	return ci
}

// dialShell connects a frontend's shell socket with its own identity.
func dialShell(t *testing.T, ci *ConnectionInfo, id string) *client {
	t.Helper()
	c := &client{t: t, signer: NewSigner([]byte(ci.Key)),
		shell: zmq4.NewDealer(context.Background(), zmq4.WithID(zmq4.SocketIdentity(id)))}
	t.Cleanup(func() { c.shell.Close() })
	if err := c.shell.Dial(ci.endpoint(ci.ShellPort)); err != nil {
		t.Fatal(err)
	}
	return c
}

// execute runs code and returns the execute_reply's status and count.
func (c *client) execute(code string) (status string, count int) {
	c.t.Helper()
	c.request("execute_request", map[string]any{"code": code, "silent": false, "store_history": true})
	for {
		r := c.recv(c.shell)
		if r.Header.MsgType != "execute_reply" {
			continue
		}
		var rep struct {
			Status         string
			ExecutionCount int `json:"execution_count"`
		}
		json.Unmarshal(r.Content, &rep)
		return rep.Status, rep.ExecutionCount
	}
}

// A nil block as a cell's value is shown as text; it used to kill the
// kernel.
func TestNilBlockValue(t *testing.T) {
	ci := startKernel(t)
	c := dialShell(t, ci, "nil-values")
	time.Sleep(200 * time.Millisecond)
	if status, _ := c.execute("var d *nn.Dense"); status != "ok" {
		t.Fatalf("var d: %s", status)
	}
	if status, _ := c.execute("d"); status != "ok" {
		t.Fatalf("d: %s", status)
	}
	if status, _ := c.execute("d == nil"); status != "ok" {
		t.Fatalf("after d: %s", status)
	}
}

// A request whose handling panics gets an error reply of its type, and
// the shell loop goes on. (A kernel without a session or output streams
// panics on every request that needs them.)
func TestShellRequestPanicIsAnErrorReply(t *testing.T) {
	k := &Kernel{session: "s", log: log.New(io.Discard, "", 0),
		shellOut: make(chan *Message, 8), iopubOut: make(chan *Message, 32)}
	for _, c := range []struct {
		request, reply string
		content        map[string]any
	}{
		{"complete_request", "complete_reply", map[string]any{"code": "fm", "cursor_pos": 2}},
		{"execute_request", "execute_reply", map[string]any{"code": "1", "silent": false}},
	} {
		m, err := reply("client", nil, c.request, c.content)
		if err != nil {
			t.Fatal(err)
		}
		m.RawHeader, _ = json.Marshal(m.Header)
		k.handleShell(m)
		r := <-k.shellOut
		var rep struct{ Status, Ename string }
		json.Unmarshal(r.Content, &rep)
		if r.Header.MsgType != c.reply || rep.Status != "error" || rep.Ename != "Panic" {
			t.Errorf("%s: got %s %s", c.request, r.Header.MsgType, r.Content)
		}
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Five hundred cells in a row, each making a 256 KiB array, do not grow
// the kernel's memory with the number of cells.
func TestFiveHundredCells(t *testing.T) {
	if testing.Short() {
		t.Skip("500 cells take a few seconds")
	}
	ci := startKernel(t)
	c := dialShell(t, ci, "many-cells")
	time.Sleep(200 * time.Millisecond)
	if status, _ := c.execute("var y *eager.NDArray"); status != "ok" {
		t.Fatalf("setup: %s", status)
	}
	var at100 uint64
	for i := 1; i <= 500; i++ {
		status, n := c.execute(fmt.Sprintf("y = nd.Ones(256, 256)\nnd.Sum(y).Scalar() + %d", i))
		if status != "ok" {
			t.Fatalf("cell %d: %s", i, status)
		}
		if n != i+1 {
			t.Fatalf("cell %d: execution_count %d", i, n)
		}
		if i == 100 {
			at100 = heapAfterGC()
		}
	}
	at500 := heapAfterGC()
	// 400 more cells made 100 MiB of arrays; keeping them would show.
	if at500 > at100+32<<20 {
		t.Errorf("heap grew from %d MiB after 100 cells to %d MiB after 500", at100>>20, at500>>20)
	}
	t.Logf("heap after 100 cells %d MiB, after 500 %d MiB", at100>>20, at500>>20)
}

// Two frontends connected at once each get their own replies, and share
// the kernel's state.
func TestTwoClients(t *testing.T) {
	ci := startKernel(t)
	a := dialShell(t, ci, "client-a")
	b := dialShell(t, ci, "client-b")
	time.Sleep(200 * time.Millisecond)
	if status, _ := a.execute("shared := 40"); status != "ok" {
		t.Fatalf("client a: %s", status)
	}
	// Both send before either reads: the kernel queues the requests and
	// routes each reply to the frontend that asked.
	for j := 0; j < 20; j++ {
		ra := a.request("execute_request", map[string]any{"code": "shared + 2", "silent": false, "store_history": true})
		rb := b.request("execute_request", map[string]any{"code": "shared + 1", "silent": false, "store_history": true})
		for _, p := range []struct {
			c   *client
			req *Message
		}{{a, ra}, {b, rb}} {
			r := p.c.recv(p.c.shell)
			var parent Header
			json.Unmarshal(r.Parent, &parent)
			if r.Header.MsgType != "execute_reply" || parent.MsgID != p.req.Header.MsgID {
				t.Fatalf("round %d: got %s for %s, want the reply to %s", j, r.Header.MsgType, parent.MsgID, p.req.Header.MsgID)
			}
		}
	}
}
