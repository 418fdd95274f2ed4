package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ProtocolVersion is the version of the messaging protocol spoken.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the message proper.
var delimiter = []byte("<IDS|MSG>")

// Header is a message header.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one protocol message. RawHeader keeps the header as it
// came, so that replies can quote it verbatim as their parent.
type Message struct {
	Identities [][]byte
	Header     Header
	RawHeader  json.RawMessage
	Parent     json.RawMessage // the parent header, "{}" when none
	Metadata   map[string]any
	Content    json.RawMessage
	Buffers    [][]byte

	sent chan struct{} // closed once written, when not nil
}

// Errors of Decode.
var (
	ErrNoDelimiter  = errors.New("kernel: message without the <IDS|MSG> delimiter")
	ErrShort        = errors.New("kernel: message with fewer than four parts after the signature")
	ErrBadSignature = errors.New("kernel: message with a bad signature")
)

// Signer signs and verifies messages with HMAC-SHA256; an empty key
// turns signing off (the signature is then the empty string).
type Signer struct {
	key []byte
}

// NewSigner returns a signer for key.
func NewSigner(key []byte) *Signer { return &Signer{key: append([]byte(nil), key...)} }

// Sign returns the hex signature of the four parts.
func (s *Signer) Sign(parts ...[]byte) []byte {
	if len(s.key) == 0 {
		return []byte{}
	}
	mac := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Verify tells in constant time whether sig is the signature of parts.
func (s *Signer) Verify(sig []byte, parts ...[]byte) bool {
	if len(s.key) == 0 {
		return true
	}
	return hmac.Equal(s.Sign(parts...), bytes.ToLower(sig))
}

// Decode parses and verifies the frames of a message.
func (s *Signer) Decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) {
		return nil, ErrNoDelimiter
	}
	rest := frames[i+1:]
	if len(rest) < 5 {
		return nil, ErrShort
	}
	if !s.Verify(rest[0], rest[1], rest[2], rest[3], rest[4]) {
		return nil, ErrBadSignature
	}
	m := &Message{Identities: frames[:i], RawHeader: rest[1], Parent: rest[2], Content: rest[4], Buffers: rest[5:]}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return nil, fmt.Errorf("kernel: bad header: %w", err)
	}
	if len(bytes.TrimSpace(rest[3])) > 0 {
		if err := json.Unmarshal(rest[3], &m.Metadata); err != nil {
			return nil, fmt.Errorf("kernel: bad metadata: %w", err)
		}
	}
	if len(bytes.TrimSpace(m.Content)) == 0 {
		m.Content = json.RawMessage("{}")
	}
	if len(bytes.TrimSpace(m.Parent)) == 0 {
		m.Parent = json.RawMessage("{}")
	}
	return m, nil
}

// Encode signs m and returns its frames.
func (s *Signer) Encode(m *Message) ([][]byte, error) {
	header := m.RawHeader
	if header == nil {
		b, err := json.Marshal(m.Header)
		if err != nil {
			return nil, err
		}
		header = b
	}
	parent := m.Parent
	if parent == nil {
		parent = json.RawMessage("{}")
	}
	meta := m.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	content := m.Content
	if content == nil {
		content = json.RawMessage("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, delimiter, s.Sign(header, parent, metaJSON, content), header, parent, metaJSON, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// newID returns a random message id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// newHeader is a header for a new message of the kernel's session.
func newHeader(session, msgType string) Header {
	return Header{
		MsgID:    newID(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// reply builds a message of msgType in answer to parent (nil for none),
// addressed to parent's identities.
func reply(session string, parent *Message, msgType string, content any) (*Message, error) {
	c, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	m := &Message{Header: newHeader(session, msgType), Content: c, Parent: json.RawMessage("{}")}
	if parent != nil {
		m.Parent = parent.RawHeader
		m.Identities = parent.Identities
	}
	return m, nil
}
