package display

import (
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hybridgo/hybridgo/viz"
)

// progressInterval is the shortest time between two bar updates.
const progressInterval = 100 * time.Millisecond

// barWidth is the width of the text bar, between its brackets.
const barWidth = 30

// Progress shows a training loop's progress: a bar over the steps of an
// epoch with the epoch's mean loss and an ETA, and a chart of the
// per-epoch losses. Its methods may be called from several goroutines.
type Progress struct {
	mu    sync.Mutex
	total int
	title string

	step     int     // steps taken in this epoch
	lossSum  float64 // sum of this epoch's finite step losses
	lossN    int
	epoch    int       // epochs finished
	start    time.Time // of this epoch
	lastStep time.Time
	last     time.Time // of the latest bar update
	pending  bool      // a step since the latest bar update
	open     bool      // a terminal bar line is not ended yet

	train, val, acc []float64

	bar, chart *Handle
	chartShown bool
	barShown   bool
	done       bool

	// The clock, the output and the terminal test, replaced by tests.
	now      func() time.Time
	out      func() io.Writer
	terminal func() bool
	notebook func() bool
}

// NewProgress starts a progress display for epochs of total steps (0 or
// less when unknown: the bar then only counts). title heads the bar and
// the chart.
func NewProgress(total int, title string) *Progress {
	return newProgress(total, title, time.Now)
}

func newProgress(total int, title string, now func() time.Time) *Progress {
	return &Progress{
		total:    total,
		title:    title,
		start:    now(),
		bar:      NewHandle(),
		chart:    NewHandle(),
		now:      now,
		out:      stdout,
		terminal: stdoutIsTerminal,
		notebook: func() bool { return CurrentPublisher() != nil },
	}
}

// stdoutIsTerminal reports whether standard output is a character device.
func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Step records one step and its loss (NaN for none), and redraws the bar
// at most ten times a second, and always at the epoch's last step. A step
// after the last of an epoch that Epoch did not close starts a new epoch.
func (p *Progress) Step(loss float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.total > 0 && p.step >= p.total {
		p.resetEpoch(p.lastStep)
	}
	p.lastStep = now
	p.step++
	if !math.IsNaN(loss) && !math.IsInf(loss, 0) {
		p.lossSum += loss
		p.lossN++
	}
	p.pending = true
	if p.step == 1 || now.Sub(p.last) >= progressInterval || p.step == p.total {
		p.drawBar(now, false)
	}
}

// resetEpoch starts an epoch at time t.
func (p *Progress) resetEpoch(t time.Time) {
	p.step, p.lossSum, p.lossN, p.start = 0, 0, 0, t
}

// drawBar publishes the bar, or writes its line: in a terminal, over the
// previous one, ending it at the epoch's last step or when final; to a log
// file or pipe, only then.
func (p *Progress) drawBar(now time.Time, final bool) {
	p.last, p.pending = now, false
	line := p.barText(now)
	if p.notebook() {
		b := Bundle{MIMEText: line, MIMEHTML: p.barHTML(line)}
		if p.barShown {
			p.bar.UpdateBundle(b)
		} else {
			p.bar.ShowBundle(b)
			p.barShown = true
		}
		return
	}
	outMu.Lock()
	defer outMu.Unlock()
	switch {
	case p.terminal():
		// One line, redrawn in place; ESC [K erases the rest of a longer
		// old line.
		fmt.Fprintf(p.out(), "\r%s\x1b[K", line)
		p.open = true
		if final || p.step == p.total {
			io.WriteString(p.out(), "\n")
			p.open = false
		}
	case final || p.step == p.total:
		// A log file or pipe: only the completed bar.
		io.WriteString(p.out(), line+"\n")
	}
}

// barText is the bar's text: "epoch 2 [=====>    ] 120/469 loss 0.53 ETA 14s".
func (p *Progress) barText(now time.Time) string {
	var b strings.Builder
	if p.title != "" {
		b.WriteString(p.title + " ")
	}
	fmt.Fprintf(&b, "epoch %d ", p.epoch+1)
	if p.total > 0 {
		b.WriteString("[" + barString(p.step, p.total) + "] ")
		fmt.Fprintf(&b, "%d/%d", p.step, p.total)
	} else {
		fmt.Fprintf(&b, "%d steps", p.step)
	}
	if p.lossN > 0 {
		b.WriteString(" loss " + formatLoss(p.lossSum/float64(p.lossN)))
	}
	elapsed := now.Sub(p.start)
	switch {
	case p.total > 0 && p.step < p.total:
		eta := time.Duration(float64(elapsed) / float64(p.step) * float64(p.total-p.step))
		b.WriteString(" ETA " + formatDuration(eta))
	default:
		b.WriteString(" " + formatDuration(elapsed))
	}
	return b.String()
}

// barString is "=====>    ", barWidth wide.
func barString(step, total int) string {
	filled := barWidth * min(step, total) / total
	switch {
	case filled >= barWidth:
		return strings.Repeat("=", barWidth)
	case filled == 0:
		return ">" + strings.Repeat(" ", barWidth-1)
	}
	return strings.Repeat("=", filled-1) + ">" + strings.Repeat(" ", barWidth-filled)
}

// barHTML draws the bar as a coloured div, with the text beside it.
func (p *Progress) barHTML(line string) string {
	frac := 1.0
	if p.total > 0 {
		frac = math.Min(1, float64(p.step)/float64(p.total))
	}
	pct := strconv.FormatFloat(100*frac, 'f', 1, 64)
	return `<div class="hybridgo-progress" style="display:flex;align-items:center;gap:8px;font-family:monospace">` +
		`<div style="width:300px;height:14px;border:1px solid #999;border-radius:3px;background:#eee">` +
		`<div style="width:` + pct + `%;height:100%;background:#1f77b4;border-radius:2px"></div></div>` +
		`<span>` + html.EscapeString(line) + `</span></div>`
}

// formatLoss prints a loss to 4 significant digits.
func formatLoss(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// formatDuration prints whole seconds: "7s", "2m05s", "1h02m03s".
func formatDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// Epoch closes an epoch with its training loss, validation loss and
// accuracy (NaN for any not measured): it completes the bar and adds the
// epoch to the loss chart, redrawn in place; in a terminal it prints the
// epoch's summary and a sparkline of the training losses so far.
func (p *Progress) Epoch(trainLoss, valLoss, acc float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.endBar(now)
	p.train = append(p.train, trainLoss)
	p.val = append(p.val, valLoss)
	p.acc = append(p.acc, acc)
	p.epoch++
	p.resetEpoch(now)
	if p.notebook() {
		b := p.chartBundle()
		if p.chartShown {
			p.chart.UpdateBundle(b)
		} else {
			p.chart.ShowBundle(b)
			p.chartShown = true
		}
		return
	}
	outMu.Lock()
	defer outMu.Unlock()
	io.WriteString(p.out(), p.epochLine(p.epoch-1)+"  "+viz.Sparkline(p.train, 0)+"\n")
}

// epochLine summarizes epoch i (from 0): "epoch 1: train 0.53 val 0.61 acc 0.812".
func (p *Progress) epochLine(i int) string {
	s := fmt.Sprintf("epoch %d: train %s", i+1, formatLoss(p.train[i]))
	if !math.IsNaN(p.val[i]) {
		s += " val " + formatLoss(p.val[i])
	}
	if !math.IsNaN(p.acc[i]) {
		s += " acc " + strconv.FormatFloat(p.acc[i], 'f', 4, 64)
	}
	return s
}

// series is the chart's curves: the training loss and, when measured, the
// validation loss, by epoch number.
func (p *Progress) series() []viz.Series {
	xs := make([]float64, len(p.train))
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	ss := []viz.Series{{Name: "train loss", X: xs, Y: p.train}}
	for _, v := range p.val {
		if !math.IsNaN(v) {
			ss = append(ss, viz.Series{Name: "validation loss", X: xs, Y: p.val})
			break
		}
	}
	return ss
}

// chartBundle is the loss chart (SVG), with a table of the epochs in HTML
// and text.
func (p *Progress) chartBundle() Bundle {
	title := "loss"
	if p.title != "" {
		title = p.title + ": loss"
	}
	svg := string(viz.LineChartSVG(title, p.series(), 640, 320))
	var text, h strings.Builder
	h.WriteString(`<div class="hybridgo-training">` + svg + "\n")
	h.WriteString(`<table style="font-family:monospace"><tr><th>epoch</th><th>train loss</th><th>validation loss</th><th>accuracy</th></tr>` + "\n")
	for i := range p.train {
		acc := "-"
		if !math.IsNaN(p.acc[i]) {
			acc = strconv.FormatFloat(p.acc[i], 'f', 4, 64)
		}
		fmt.Fprintf(&h, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", i+1, formatLoss(p.train[i]), formatLoss(p.val[i]), acc)
		text.WriteString(p.epochLine(i) + "\n")
	}
	h.WriteString("</table></div>")
	text.WriteString("train loss " + viz.Sparkline(p.train, 0))
	return Bundle{MIMESVG: svg, MIMEHTML: h.String(), MIMEText: text.String()}
}

// Done finishes: it draws the bar's latest state if a step is not shown
// yet, and ends a terminal's bar line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	p.endBar(p.now())
}

// endBar draws the bar's latest state if a step is not shown yet, and ends
// a terminal's open bar line.
func (p *Progress) endBar(now time.Time) {
	if p.pending {
		p.drawBar(now, true)
		return
	}
	if p.open {
		outMu.Lock()
		io.WriteString(p.out(), "\n")
		outMu.Unlock()
		p.open = false
	}
}
