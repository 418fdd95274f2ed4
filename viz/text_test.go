package viz_test

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybridgo/hybridgo/viz"
)

func checkWidth(t *testing.T, name, s string, width int) {
	t.Helper()
	for _, line := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(line); n > width {
			t.Fatalf("%s: a line of %d columns, wider than %d:\n%s", name, n, width, line)
		}
	}
}

func TestTextLeNet(t *testing.T) {
	s, err := viz.DrawText(lenet(t), viz.DefaultOptions(), 80)
	if err != nil {
		t.Fatal(err)
	}
	checkWidth(t, "lenet", s, 80)
	for _, want := range []string{"convolution0 Convolution", "16x6x24x24", "┌", "└", "▼", "dot0 dot"} {
		if !strings.Contains(s, want) {
			t.Errorf("LeNet drawing lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "conv0_weight") {
		t.Error("parameters drawn as boxes")
	}
	if strings.Count(s, "┌") != 13 {
		t.Errorf("%d boxes, want LeNet's 13 ops and input:\n%s", strings.Count(s, "┌"), s)
	}
}

func TestTextFallsBackToListing(t *testing.T) {
	// A ResNet's blocks at 120 columns draw in layers; at 40 they do not fit.
	g := resnet(t)
	wide, _ := viz.DrawText(g, viz.DefaultOptions(), 120)
	checkWidth(t, "resnet 120", wide, 120)
	if !strings.Contains(wide, "┌") {
		t.Errorf("no boxes at 120 columns:\n%s", wide)
	}
	narrow, _ := viz.DrawText(g, viz.DefaultOptions(), 40)
	checkWidth(t, "resnet 40", narrow, 40)
	if strings.Contains(narrow, "┌") || !strings.Contains(narrow, "├─ ") || !strings.Contains(narrow, "└─ ") {
		t.Errorf("no listing at 40 columns:\n%s", narrow)
	}
	// The listing names each op's inputs under it.
	s, _ := viz.DrawText(lenet(t), viz.DefaultOptions(), 20)
	checkWidth(t, "lenet 20", s, 20)
	want := "convolution0 Convol…\n├─ data\n├─ conv0_weight 6x1…\n└─ conv0_bias 6\n"
	if !strings.Contains(s, want) {
		t.Errorf("listing lacks\n%s\ngot\n%s", want, s)
	}
}

func TestTextRandomWidths(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 20; i++ {
		g := randomDAG(rng, 5+rng.Intn(40))
		for _, w := range []int{80, 120} {
			s, err := viz.DrawText(g, viz.DefaultOptions(), w)
			if err != nil {
				t.Fatal(err)
			}
			checkWidth(t, "random", s, w)
		}
	}
}
