package uselite

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
)

func benchTexts(b *testing.B) (sentences []string, chunk string) {
	raw, err := os.ReadFile("testdata/use_ref.json")
	if err != nil {
		b.Fatal(err)
	}
	var refs []refCase
	if err := json.Unmarshal(raw, &refs); err != nil {
		b.Fatal(err)
	}
	for _, r := range refs[:40] {
		sentences = append(sentences, r.Text)
	}
	return sentences, strings.Repeat(strings.Join(sentences[:20], " ")+" ", 2)
}

// benchEncode embeds texts in one call per iteration and reports tokens
// per second, per second and core (GOMAXPROCS; run with -cpu 1 for the
// one-core figure), and per second of CPU time.
func benchEncode(b *testing.B, texts []string) {
	m := getModel()
	tokens := 0
	for _, t := range texts {
		ids, _, _ := m.tok.encode(t)
		tokens += len(ids)
	}
	ctx := context.Background()
	b.ResetTimer()
	cpu0, ok := cpuTime()
	for b.Loop() {
		if _, _, err := (Encoder{}).Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	cpu1, _ := cpuTime()
	total := float64(tokens) * float64(b.N)
	perSec := total / b.Elapsed().Seconds()
	b.ReportMetric(perSec, "tokens/s")
	b.ReportMetric(perSec/float64(runtime.GOMAXPROCS(0)), "tokens/s/core")
	if ok && cpu1 > cpu0 {
		// On a shared machine the wall clock counts time spent waiting
		// for a core; CPU time does not.
		b.ReportMetric(total/(cpu1-cpu0).Seconds(), "tokens/cpu-s")
	}
}

// BenchmarkEncodeSentences embeds 40 sentences and queries (4-37 tokens)
// in one call.
func BenchmarkEncodeSentences(b *testing.B) {
	s, _ := benchTexts(b)
	benchEncode(b, s)
}

// BenchmarkEncodeChunk embeds one chunk of about 1,100 tokens (nine
// windows).
func BenchmarkEncodeChunk(b *testing.B) {
	_, c := benchTexts(b)
	benchEncode(b, []string{c})
}

// BenchmarkEncodeQuery embeds one short query, as a search does.
func BenchmarkEncodeQuery(b *testing.B) {
	benchEncode(b, []string{"How old is the Earth?"})
}

// BenchmarkLoad is the lazy load: vocabulary and weights decoded and laid
// out for the kernel.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		t, err := newTokenizer(vocabTxt)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := loadModel(weightsBin, t); err != nil {
			b.Fatal(err)
		}
	}
}
