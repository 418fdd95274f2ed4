package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// client is a minimal frontend: a DEALER on shell and a SUB on iopub.
type client struct {
	t      *testing.T
	signer *Signer
	shell  zmq4.Socket
	iopub  zmq4.Socket
}

func (c *client) request(msgType string, content any) *Message {
	c.t.Helper()
	m, err := reply("test-client", nil, msgType, content)
	if err != nil {
		c.t.Fatal(err)
	}
	m.RawHeader, _ = json.Marshal(m.Header)
	f, err := c.signer.Encode(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.shell.Send(zmq4.NewMsgFrom(f...)); err != nil {
		c.t.Fatal(err)
	}
	return m
}

func (c *client) recv(s zmq4.Socket) *Message {
	c.t.Helper()
	got := make(chan zmq4.Msg, 1)
	go func() {
		msg, err := s.Recv()
		if err == nil {
			got <- msg
		}
	}()
	select {
	case msg := <-got:
		m, err := c.signer.Decode(msg.Frames)
		if err != nil {
			c.t.Fatal(err)
		}
		return m
	case <-time.After(20 * time.Second):
		c.t.Fatal("no message within 20s")
	}
	return nil
}

func TestKernelOverSockets(t *testing.T) {
	ci := &ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", Key: "test-key", SignatureScheme: "hmac-sha256",
		ShellPort: freePort(t), ControlPort: freePort(t), StdinPort: freePort(t), IOPubPort: freePort(t), HBPort: freePort(t)}
	k, err := New(ci, Options{})
	if err != nil {
		t.Fatal(err)
	}
	go k.Run()
	defer func() {
		k.stop()
		k.closeSockets()
	}()
	ctx := context.Background()
	c := &client{t: t, signer: NewSigner([]byte(ci.Key)),
		shell: zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("test-dealer"))), iopub: zmq4.NewSub(ctx)}
	defer c.shell.Close()
	defer c.iopub.Close()
	if err := c.shell.Dial(ci.endpoint(ci.ShellPort)); err != nil {
		t.Fatal(err)
	}
	if err := c.iopub.Dial(ci.endpoint(ci.IOPubPort)); err != nil {
		t.Fatal(err)
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)

	req := c.request("kernel_info_request", map[string]any{})
	r := c.recv(c.shell)
	if r.Header.MsgType != "kernel_info_reply" {
		t.Fatalf("got %s", r.Header.MsgType)
	}
	var parent Header
	json.Unmarshal(r.Parent, &parent)
	if parent.MsgID != req.Header.MsgID {
		t.Fatalf("parent %s, want %s", parent.MsgID, req.Header.MsgID)
	}
	var info struct {
		LanguageInfo struct {
			Name, Mimetype, FileExtension string `json:",omitempty"`
		} `json:"language_info"`
	}
	json.Unmarshal(r.Content, &info)
	if info.LanguageInfo.Name != "go" {
		t.Fatalf("language_info %s", r.Content)
	}

	req = c.request("execute_request", map[string]any{"code": "fmt.Println(\"hi\")\n6*7", "silent": false, "store_history": true})
	r = c.recv(c.shell)
	var rep struct {
		Status         string
		ExecutionCount int `json:"execution_count"`
	}
	json.Unmarshal(r.Content, &rep)
	if rep.Status != "ok" || rep.ExecutionCount != 1 {
		t.Fatalf("execute_reply %s", r.Content)
	}
	// IOPub: busy, execute_input, stream, execute_result, idle for our request.
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "idle" {
		m := c.recv(c.iopub)
		json.Unmarshal(m.Parent, &parent)
		if parent.MsgID != req.Header.MsgID {
			continue
		}
		kind := m.Header.MsgType
		var st struct {
			ExecutionState string `json:"execution_state"`
			Text           string
			Data           map[string]any
		}
		json.Unmarshal(m.Content, &st)
		switch kind {
		case "status":
			kind = st.ExecutionState
		case "stream":
			kind += ":" + st.Text
		case "execute_result":
			kind += fmt.Sprint(":", st.Data["text/plain"])
		}
		seen = append(seen, kind)
	}
	want := fmt.Sprint([]string{"busy", "execute_input", "stream:hi\n", "execute_result:42", "idle"})
	if fmt.Sprint(seen) != want {
		t.Fatalf("iopub %q, want %s", seen, want)
	}
}

// Only a display.Bundle (jupyter.HTML's, say) is taken as a bundle as it
// is; a cell's map[string]any is a value, shown as text.
func TestBundleOfMapValue(t *testing.T) {
	m := map[string]any{"a": 1, "text/html": "<i>not markup</i>"}
	if b := bundle(reflect.ValueOf(m), "map[a:1 text/html:<i>not markup</i>]"); len(b) != 1 || b["text/plain"] == nil {
		t.Errorf("bundle of a map[string]any value = %v", b)
	}
	if b := bundle(reflect.ValueOf(HTML("<b>x</b>")), "ignored"); b["text/html"] != "<b>x</b>" || b["text/plain"] != "<b>x</b>" {
		t.Errorf("bundle of jupyter.HTML = %v", b)
	}
}
