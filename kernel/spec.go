package kernel

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
)

// Spec is the kernelspec (kernel.json) that starts exe as the kernel,
// with flags (hybridgo kernel's -memory and -no-replay) before the
// connection file.
func Spec(exe string, flags ...string) map[string]any {
	argv := append(append([]string{exe, "kernel"}, flags...), "{connection_file}")
	return map[string]any{
		"argv":           argv,
		"display_name":   "Go (hybridgo)",
		"language":       "go",
		"interrupt_mode": "signal",
		"metadata":       map[string]any{"debugger": false},
	}
}

// InstallSpec writes kernel.json (Spec) and the logos into dir.
func InstallSpec(dir, exe string, flags ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(Spec(exe, flags...), "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, size := range []int{32, 64} {
		name := filepath.Join(dir, "logo-"+itoa(size)+"x"+itoa(size)+".png")
		if err := os.WriteFile(name, Logo(size), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// Logo draws the kernel's logo, size pixels square: a gopher-blue disc
// with a white "h" made of two bars and an arch.
func Logo(size int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	blue := color.NRGBA{0x00, 0xad, 0xd8, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	s := float64(size)
	c := s / 2
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			dx, dy := fx-c, fy-c
			if dx*dx+dy*dy > (c-0.5)*(c-0.5) {
				continue
			}
			img.SetNRGBA(x, y, blue)
			u, v := fx/s, fy/s // 0..1
			stem := u > 0.30 && u < 0.42 && v > 0.22 && v < 0.78
			leg := u > 0.58 && u < 0.70 && v > 0.50 && v < 0.78
			ax, ay := (u-0.50)/0.20, (v-0.52)/0.16
			r := ax*ax + ay*ay
			arch := v < 0.52 && r < 1 && r > 0.35 && u > 0.36
			if stem || leg || arch {
				img.SetNRGBA(x, y, white)
			}
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}
