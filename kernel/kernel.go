package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/go-zeromq/zmq4"

	"github.com/hybridgo/hybridgo/repl/worker"
)

// ConnectionInfo is the connection file a frontend writes for a kernel.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	KernelName      string `json:"kernel_name"`
}

// ReadConnectionFile reads and checks a connection file.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ci ConnectionInfo
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("kernel: %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.SignatureScheme != "" && ci.SignatureScheme != "hmac-sha256" {
		return nil, fmt.Errorf("kernel: signature scheme %q is not supported (hmac-sha256 is)", ci.SignatureScheme)
	}
	return &ci, nil
}

func (ci *ConnectionInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("%s://%s:%d", ci.Transport, ci.IP, port)
}

// Kernel serves one Session over the five sockets of a connection file.
type Kernel struct {
	ci      *ConnectionInfo
	signer  *Signer
	session string // this kernel's session id, in its headers
	log     *log.Logger

	shell, control, stdin, iopub, hb zmq4.Socket

	// Each socket's writes go through one goroutine, fed by these.
	shellOut, controlOut, stdinOut, iopubOut chan *Message

	shellIn     chan *Message // requests waiting for the shell loop
	inputReplys chan *Message // input_reply messages from stdin

	worker *worker.Client // the session's process
	replay bool           // a new worker replays the cells of the one that died
	cell   runningCell
	out    *streamWriter
	errw   *streamWriter
	logOut io.Writer // where output outside cells goes

	mu       sync.Mutex
	cancel   context.CancelFunc // of the running cell
	current  *Message           // the execute_request running
	count    int                // execution_count
	history  []string
	done     chan struct{}
	doneOnce sync.Once
}

// Options configure a Kernel.
type Options struct {
	// Log receives the kernel's log; nil discards it.
	Log *log.Logger
	// MemoryLimit is the worker's memory limit in bytes, as
	// worker.Options.MemoryLimit: 0 for the default, negative for none.
	MemoryLimit int64
	// NoReplay starts the worker that replaces one a cell ended with an
	// empty session, instead of replaying the cells that succeeded.
	NoReplay bool
	// WorkerCommand is the worker's command line; by default this
	// executable with WorkerArgs.
	WorkerCommand []string
}

// New binds the sockets of ci and starts the session's worker process.
func New(ci *ConnectionInfo, opts Options) (*Kernel, error) {
	logger := opts.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	k := &Kernel{
		ci:          ci,
		signer:      NewSigner([]byte(ci.Key)),
		session:     newID(),
		log:         logger,
		shellOut:    make(chan *Message, 64),
		controlOut:  make(chan *Message, 16),
		stdinOut:    make(chan *Message, 4),
		iopubOut:    make(chan *Message, 1024),
		shellIn:     make(chan *Message, 256),
		inputReplys: make(chan *Message, 4),
		done:        make(chan struct{}),
		logOut:      os.Stderr,
		replay:      !opts.NoReplay,
	}
	k.out = newStreamWriter(k, "stdout")
	k.errw = newStreamWriter(k, "stderr")
	command := opts.WorkerCommand
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("kernel: %w", err)
		}
		command = append([]string{exe}, WorkerArgs...)
	}
	c, err := worker.Start(worker.Options{Command: command, Stdout: k.out, Stderr: k.errw,
		MemoryLimit: opts.MemoryLimit, OnDisplay: k.display, OnInput: k.input})
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	k.worker = c
	ctx := context.Background()
	k.shell = zmq4.NewRouter(ctx)
	k.control = zmq4.NewRouter(ctx)
	k.stdin = zmq4.NewRouter(ctx)
	k.iopub = zmq4.NewPub(ctx)
	k.hb = zmq4.NewRep(ctx)
	for _, b := range []struct {
		s    zmq4.Socket
		port int
	}{{k.shell, ci.ShellPort}, {k.control, ci.ControlPort}, {k.stdin, ci.StdinPort}, {k.iopub, ci.IOPubPort}, {k.hb, ci.HBPort}} {
		if err := b.s.Listen(ci.endpoint(b.port)); err != nil {
			k.closeSockets()
			c.Close()
			return nil, fmt.Errorf("kernel: listen on %s: %w", ci.endpoint(b.port), err)
		}
	}
	return k, nil
}

func (k *Kernel) closeSockets() {
	for _, s := range []zmq4.Socket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		if s != nil {
			s.Close()
		}
	}
}

// Run serves requests until a shutdown_request; SIGINT interrupts the
// running cell.
func (k *Kernel) Run() error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT)
	defer signal.Stop(sigs)
	go func() {
		for {
			select {
			case <-sigs:
				k.interrupt()
			case <-k.done:
				return
			}
		}
	}()
	go k.writer(k.shell, k.shellOut)
	go k.writer(k.control, k.controlOut)
	go k.writer(k.stdin, k.stdinOut)
	go k.writer(k.iopub, k.iopubOut)
	go k.heartbeat()
	go k.reader(k.shell, "shell", func(m *Message) { k.shellIn <- m })
	go k.reader(k.control, "control", k.handleControl)
	go k.reader(k.stdin, "stdin", func(m *Message) {
		if m.Header.MsgType == "input_reply" {
			select {
			case k.inputReplys <- m:
			default:
			}
		}
	})
	go k.shellLoop()
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	<-k.done
	return nil
}

// stop ends Run once the replies queued so far are written, and the
// worker.
func (k *Kernel) stop() {
	k.doneOnce.Do(func() {
		close(k.done)
		if k.worker != nil {
			k.worker.Close()
		}
	})
}

// writer owns the writes of s.
func (k *Kernel) writer(s zmq4.Socket, c chan *Message) {
	for m := range c {
		frames, err := k.signer.Encode(m)
		if err != nil {
			k.log.Printf("encode %s: %v", m.Header.MsgType, err)
			continue
		}
		if err := s.Send(zmq4.NewMsgFrom(frames...)); err != nil {
			k.log.Printf("send %s: %v", m.Header.MsgType, err)
		}
		if m.sent != nil {
			close(m.sent)
		}
	}
}

// reader decodes what s receives and hands it to handle; badly signed
// or malformed messages are dropped.
func (k *Kernel) reader(s zmq4.Socket, name string, handle func(*Message)) {
	for {
		msg, err := s.Recv()
		if err != nil {
			select {
			case <-k.done:
				return
			default:
			}
			k.log.Printf("%s: recv: %v", name, err)
			continue
		}
		m, err := k.signer.Decode(msg.Frames)
		if err != nil {
			k.log.Printf("%s: dropped: %v", name, err)
			continue
		}
		handle(m)
	}
}

// heartbeat echoes whatever arrives on hb.
func (k *Kernel) heartbeat() {
	for {
		msg, err := k.hb.Recv()
		if err != nil {
			select {
			case <-k.done:
				return
			default:
				continue
			}
		}
		if err := k.hb.Send(msg); err != nil {
			k.log.Printf("hb: %v", err)
		}
	}
}

// send queues a reply of msgType to parent on the channel c.
func (k *Kernel) send(c chan *Message, parent *Message, msgType string, content any) {
	m, err := reply(k.session, parent, msgType, content)
	if err != nil {
		k.log.Printf("%s: %v", msgType, err)
		return
	}
	c <- m
}

// publish sends a message on IOPub, its topic the message type.
func (k *Kernel) publish(parent *Message, msgType string, content any) {
	m, err := reply(k.session, parent, msgType, content)
	if err != nil {
		k.log.Printf("%s: %v", msgType, err)
		return
	}
	m.Identities = [][]byte{[]byte("kernel." + k.session + "." + msgType)}
	k.iopubOut <- m
}

// interrupt stops the running cell, if any: the worker's, or a wait for
// input.
func (k *Kernel) interrupt() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cancel != nil {
		k.cancel()
		k.worker.Interrupt()
	}
}

// flushOutput sends the cell's output so far as stream messages.
func (k *Kernel) flushOutput() {
	k.out.end()
	k.errw.end()
}
