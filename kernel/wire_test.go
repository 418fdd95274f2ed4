package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func frames(t *testing.T, s *Signer, msgType string, content any) [][]byte {
	t.Helper()
	m, err := reply("client-session", nil, msgType, content)
	if err != nil {
		t.Fatal(err)
	}
	m.Identities = [][]byte{[]byte("peer-1")}
	f, err := s.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSignKnownValue(t *testing.T) {
	// HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog").
	got := NewSigner([]byte("key")).Sign([]byte("The quick brown fox "), []byte("jumps over the lazy dog"))
	want := "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
	if string(got) != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestRoundTripGoodSignature(t *testing.T) {
	s := NewSigner([]byte("secret"))
	f := frames(t, s, "execute_request", map[string]any{"code": "6*7"})
	m, err := s.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.MsgType != "execute_request" || m.Header.Version != ProtocolVersion || m.Header.MsgID == "" {
		t.Fatalf("header %+v", m.Header)
	}
	if len(m.Identities) != 1 || string(m.Identities[0]) != "peer-1" {
		t.Fatalf("identities %q", m.Identities)
	}
	var c struct{ Code string }
	if err := json.Unmarshal(m.Content, &c); err != nil || c.Code != "6*7" {
		t.Fatalf("content %s (%v)", m.Content, err)
	}
	// A reply quotes the request's header as its parent and goes back
	// to the same identities.
	r, err := reply("kernel-session", m, "execute_reply", map[string]any{"status": "ok"})
	if err != nil {
		t.Fatal(err)
	}
	rf, err := s.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.Decode(rf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Parent, m.RawHeader) || string(back.Identities[0]) != "peer-1" {
		t.Fatalf("parent %s, identities %q", back.Parent, back.Identities)
	}
}

func TestBadSignatureRejected(t *testing.T) {
	good := NewSigner([]byte("secret"))
	f := frames(t, NewSigner([]byte("wrong")), "kernel_info_request", map[string]any{})
	if _, err := good.Decode(f); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("wrong key: err %v, want ErrBadSignature", err)
	}
	f = frames(t, good, "kernel_info_request", map[string]any{})
	f[len(f)-1] = []byte(`{"tampered": true}`)
	if _, err := good.Decode(f); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered content: err %v, want ErrBadSignature", err)
	}
	f = frames(t, good, "kernel_info_request", map[string]any{})
	f[2] = []byte{} // no signature at all
	if _, err := good.Decode(f); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("missing signature: err %v, want ErrBadSignature", err)
	}
}

func TestEmptyKeyDisablesSigning(t *testing.T) {
	s := NewSigner(nil)
	f := frames(t, s, "kernel_info_request", map[string]any{})
	if len(f[2]) != 0 {
		t.Fatalf("signature %q with an empty key, want empty", f[2])
	}
	if _, err := s.Decode(f); err != nil {
		t.Fatal(err)
	}
}

func TestMalformedMessages(t *testing.T) {
	s := NewSigner([]byte("k"))
	if _, err := s.Decode([][]byte{[]byte("id"), []byte("{}")}); !errors.Is(err, ErrNoDelimiter) {
		t.Fatalf("no delimiter: %v", err)
	}
	if _, err := s.Decode([][]byte{delimiter, []byte("sig"), []byte("{}")}); !errors.Is(err, ErrShort) {
		t.Fatalf("short: %v", err)
	}
}

func TestCursorConversions(t *testing.T) {
	code := "héllo := \"✓\"; hél"
	for _, c := range []int{0, 1, 2, 5, 10, 17} {
		b := runeToByte(code, c)
		if got := byteToRune(code, b); got != c {
			t.Errorf("cursor %d -> byte %d -> %d", c, b, got)
		}
	}
	if got := wordAt("x := fmt.Println(1)", 9); got != "fmt.Println" {
		t.Errorf("wordAt = %q", got)
	}
}

func TestLogoIsPNG(t *testing.T) {
	b := Logo(64)
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatal("not a PNG")
	}
}
