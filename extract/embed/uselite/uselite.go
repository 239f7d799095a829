package uselite

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kgstudio/kgstudio/extract"
)

const (
	// Model is the encoder's model id.
	Model = "universal-sentence-encoder-lite-2"
	// Dimensions is the length of every vector.
	Dimensions = 512
	// MaxTokens is the longest token sequence the network reads at once;
	// longer texts are encoded in windows.
	MaxTokens = 128
)

// Encoder is the Universal Sentence Encoder Lite as an extract.Embedder.
// The zero value is ready to use; all Encoders share one model, loaded on
// first use.
type Encoder struct{}

var _ extract.Embedder = Encoder{}

var (
	tokOnce   sync.Once
	tok       *tokenizer
	modelOnce sync.Once
	loaded    *model
)

func getTokenizer() *tokenizer {
	tokOnce.Do(func() {
		t, err := newTokenizer(vocabTxt)
		if err != nil {
			panic("uselite: embedded vocabulary: " + err.Error())
		}
		tok = t
	})
	return tok
}

func getModel() *model {
	modelOnce.Do(func() {
		m, err := loadModel(weightsBin, getTokenizer())
		if err != nil {
			panic("uselite: embedded weights: " + err.Error())
		}
		// The model holds its own copy: the file's pages in the binary
		// can go back to the system (read again should anything ask).
		release(weightsBin)
		loaded = m
	})
	return loaded
}

// Model implements extract.Embedder.
func (Encoder) Model() string { return Model }

// Dimensions implements extract.Embedder.
func (Encoder) Dimensions() int { return Dimensions }

// Embed implements extract.Embedder: one unit vector per text, computed
// here (no calls, so the usage is zero). Texts are encoded on up to
// GOMAXPROCS goroutines. It fails only when ctx is done.
func (Encoder) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	if err := ctx.Err(); err != nil {
		return nil, extract.EmbedUsage{}, err
	}
	out, err := getModel().embed(ctx, texts)
	if err != nil {
		return nil, extract.EmbedUsage{}, err
	}
	return out, extract.EmbedUsage{}, nil
}

// Vector embeds one text.
func (Encoder) Vector(text string) []float32 {
	out, _ := getModel().embed(context.Background(), []string{text})
	return out[0]
}

// Serves reports whether the encoder can represent text: false when more
// than a quarter of its characters (separators aside) are unknown to the
// vocabulary, as for Chinese, Japanese, Korean, Cyrillic or Greek text,
// whose vectors would say little about their meaning. A text with no
// characters is served (it has a fixed vector).
func Serves(text string) bool {
	_, unknown, chars := getTokenizer().encode(text)
	return unknown*4 <= chars
}

// splitWindows cuts ids into the fewest windows of at most MaxTokens,
// of near-equal lengths.
func splitWindows(ids []int32) [][]int32 {
	if len(ids) == 0 {
		return nil
	}
	n := (len(ids) + MaxTokens - 1) / MaxTokens
	base, extra := len(ids)/n, len(ids)%n
	out := make([][]int32, 0, n)
	for i := range n {
		l := base
		if i < extra {
			l++
		}
		out = append(out, ids[:l])
		ids = ids[l:]
	}
	return out
}

// embed tokenizes, windows, batches and encodes texts, then averages
// each text's window vectors.
func (m *model) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	perText := make([][]window, len(texts))
	var batches [][]window
	var cur []window
	rows, maxRows := 0, 0
	for i, t := range texts {
		ids, _, _ := m.tok.encode(t)
		for _, w := range splitWindows(ids) {
			if rows+len(w) > maxBatchRows && len(cur) > 0 {
				batches = append(batches, cur)
				cur, rows = nil, 0
			}
			win := window{ids: w, out: make([]float32, Dimensions)}
			cur = append(cur, win)
			perText[i] = append(perText[i], win)
			rows += len(w)
			maxRows = max(maxRows, rows)
		}
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}

	workers := min(runtime.GOMAXPROCS(0), len(batches))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := newWorkspace(maxRows)
			for {
				b := int(next.Add(1) - 1)
				if b >= len(batches) || ctx.Err() != nil {
					return
				}
				m.encodeBatch(ws, batches[b])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for i, wins := range perText {
		switch len(wins) {
		case 0:
			out[i] = append([]float32(nil), m.empty...)
		case 1:
			out[i] = wins[0].out
		default:
			v := make([]float32, Dimensions)
			for _, w := range wins {
				for j, x := range w.out {
					v[j] += x
				}
			}
			m.l2Normalize(v)
			out[i] = v
		}
	}
	return out, nil
}
