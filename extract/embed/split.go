package embed

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
)

// EmbedSplit embeds texts with emb and checks the answer (Check). For an
// extract.SplitEmbedder each text goes to the model that serves it, and
// other[i] reports that text i was embedded by the fallback (its vector
// belongs to the fallback's index); other is nil for a plain embedder.
//
// A text given several times is embedded once (the edges of one sentence
// share its text); its vectors are the same slice.
func EmbedSplit(ctx context.Context, emb extract.Embedder, texts []string) (vecs [][]float32, other []bool, use extract.EmbedUsage, err error) {
	first := make(map[string]int, len(texts))
	uniq := make([]string, 0, len(texts))
	at := make([]int, len(texts))
	for i, t := range texts {
		j, ok := first[t]
		if !ok {
			j = len(uniq)
			first[t] = j
			uniq = append(uniq, t)
		}
		at[i] = j
	}
	if len(uniq) == len(texts) {
		return embedSplit(ctx, emb, texts)
	}
	uv, uo, use, err := embedSplit(ctx, emb, uniq)
	if err != nil {
		return nil, nil, use, err
	}
	vecs = make([][]float32, len(texts))
	if uo != nil {
		other = make([]bool, len(texts))
	}
	for i, j := range at {
		vecs[i] = uv[j]
		if uo != nil {
			other[i] = uo[j]
		}
	}
	return vecs, other, use, nil
}

func embedSplit(ctx context.Context, emb extract.Embedder, texts []string) (vecs [][]float32, other []bool, use extract.EmbedUsage, err error) {
	se, ok := emb.(extract.SplitEmbedder)
	if !ok {
		vecs, use, err = emb.Embed(ctx, texts)
		if err == nil {
			err = Check(emb, texts, vecs)
		}
		return vecs, nil, use, err
	}
	other = make([]bool, len(texts))
	var own, rest []string
	for i, t := range texts {
		other[i] = !se.Serves(t)
		if other[i] {
			rest = append(rest, t)
		} else {
			own = append(own, t)
		}
	}
	vecs = make([][]float32, len(texts))
	for _, part := range []struct {
		e     extract.Embedder
		texts []string
		other bool
	}{{se, own, false}, {se.Fallback(), rest, true}} {
		if len(part.texts) == 0 {
			continue
		}
		vs, u, err := part.e.Embed(ctx, part.texts)
		use = use.Add(u)
		if err == nil {
			err = Check(part.e, part.texts, vs)
		}
		if err != nil {
			return nil, nil, use, err
		}
		j := 0
		for i := range texts {
			if other[i] == part.other {
				vecs[i] = vs[j]
				j++
			}
		}
	}
	return vecs, other, use, nil
}
