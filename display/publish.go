package display

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hybridgo/hybridgo/eager"
)

// Publisher sends bundles to the notebook. The kernel implements it:
// Display(b, "", false) is a display_data message; with an id, the id goes
// in transient.display_id, and update true makes it update_display_data,
// which replaces the earlier output of that id in place. Display may be
// called from any goroutine.
type Publisher interface {
	Display(b Bundle, id string, update bool)
}

type publisherBox struct{ p Publisher }

type publisherKey struct{}

// publisher holds the current eager.State's publisher: each REPL session
// (a kernel's, a notebook being written) has its own.
func publisher() *atomic.Pointer[publisherBox] {
	return eager.CurrentState().Slot(publisherKey{}, func() any { return new(atomic.Pointer[publisherBox]) }).(*atomic.Pointer[publisherBox])
}

// SetPublisher installs the publisher that displays go to, in the current
// eager.State (a REPL session installs it with Session.InState); nil
// restores the fallback, which prints each display's text/plain to
// standard output.
func SetPublisher(p Publisher) {
	if p == nil {
		publisher().Store(nil)
		return
	}
	publisher().Store(&publisherBox{p})
}

// CurrentPublisher returns the publisher installed in the current
// eager.State, or nil.
func CurrentPublisher() Publisher {
	if b := publisher().Load(); b != nil {
		return b.p
	}
	return nil
}

// outMu serializes the fallback's writes to standard output.
var outMu sync.Mutex

// stdout is where the fallback prints; os.Stdout as it is at the time of
// the call, so that redirecting os.Stdout redirects displays too.
func stdout() io.Writer { return os.Stdout }

// publish sends b through the publisher, or prints its text.
func publish(b Bundle, id string, update bool) {
	if p := CurrentPublisher(); p != nil {
		p.Display(b, id, update)
		return
	}
	outMu.Lock()
	defer outMu.Unlock()
	t := b.Text()
	if t == "" {
		return
	}
	if t[len(t)-1] != '\n' {
		t += "\n"
	}
	io.WriteString(stdout(), t)
}

// Display publishes a bundle as it is.
func Display(b Bundle) { publish(b, "", false) }

// Show displays v as Render draws it.
func Show(v any) { publish(Render(v), "", false) }

// HTML displays an HTML fragment; the terminal gets the markup.
func HTML(s string) { publish(Bundle{MIMEHTML: s, MIMEText: s}, "", false) }

// Markdown displays Markdown text; the terminal gets the source.
func Markdown(s string) { publish(Bundle{MIMEMarkdown: s, MIMEText: s}, "", false) }

// SVG displays an SVG document.
func SVG(s string) { publish(Bundle{MIMESVG: s, MIMEText: "<SVG>"}, "", false) }

// PNG displays PNG-encoded bytes.
func PNG(data []byte) {
	publish(Bundle{MIMEPNG: base64.StdEncoding.EncodeToString(data), MIMEText: fmt.Sprintf("<PNG %d bytes>", len(data))}, "", false)
}

// JSON displays v as application/json (a tree view in JupyterLab); the
// terminal gets it indented. A value json cannot encode is shown as an
// error message.
func JSON(v any) { publish(JSONBundle(v), "", false) }

// JSONBundle is the bundle JSON displays.
func JSONBundle(v any) Bundle {
	raw, err := json.Marshal(v)
	if err != nil {
		return Bundle{MIMEText: "display.JSON: " + err.Error()}
	}
	text, _ := json.MarshalIndent(v, "", "  ")
	return Bundle{MIMEJSON: json.RawMessage(raw), MIMEText: string(text)}
}

// Handle is one output that can be replaced in place: Show sends it, and
// Update replaces it (update_display_data with the same display id).
type Handle struct {
	id string
}

// NewHandle returns a handle with a fresh display id.
func NewHandle() *Handle {
	var r [16]byte
	rand.Read(r[:])
	return &Handle{id: "hybridgo-" + hex.EncodeToString(r[:])}
}

// ID is the handle's display id.
func (h *Handle) ID() string { return h.id }

// Show displays v (rendered) under the handle's id.
func (h *Handle) Show(v any) { h.ShowBundle(Render(v)) }

// Update replaces the handle's output with v (rendered).
func (h *Handle) Update(v any) { h.UpdateBundle(Render(v)) }

// ShowBundle displays b under the handle's id.
func (h *Handle) ShowBundle(b Bundle) { publish(b, h.id, false) }

// UpdateBundle replaces the handle's output with b. Without a publisher
// the text is printed again: a terminal cannot replace it.
func (h *Handle) UpdateBundle(b Bundle) { publish(b, h.id, true) }
