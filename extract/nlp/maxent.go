package nlp

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	prose "github.com/jdkato/prose/v2"
)

// recognizer is prose's maximum-entropy entity classifier (the same
// weights, features and label history) with its weights laid out for
// speed: prose builds a map of feature strings per token and then looks up
// "feature-value-label" once per label, thirteen times per feature. Here
// each "feature-value" holds its short list of (label, weight) pairs, so a
// token costs one look-up per feature, and the words and tags come from
// the caller instead of a fresh tokenisation and tagging.
//
// It answers as prose does but for one case: prose picks among labels of
// exactly equal score in map order (at random), this recognizer the first
// label of the model.
type recognizer struct {
	labels  []string
	simple  []string // each label's history value, as prose's simplePOS
	weights map[string][]labelWeight
	basic   map[string]bool // prose's English word list
}

type labelWeight struct {
	label int32
	w     float64
}

// recognizerFeatures are prose's feature names in prose's order, the order
// in which it sums a label's weights.
var recognizerFeatures = [...]string{
	"bias", "en-wordlist", "nextpos", "nextword", "pos", "pos+prevtag",
	"prefix3", "prevpos", "prevtag", "prevword", "shape", "shape+prevtag",
	"suffix3", "word", "word+nextpos", "word.lower", "wordlen"}

// newRecognizer loads prose's entity model.
func newRecognizer() (*recognizer, error) {
	var (
		labels  []string
		mapping map[string]int
		weights []float64
		words   []string
	)
	for _, f := range []struct {
		name string
		dst  any
	}{{"labels.gob", &labels}, {"mapping.gob", &mapping}, {"weights.gob", &weights}, {"words.gob", &words}} {
		b, err := prose.Asset("model/Maxent/" + f.name)
		if err != nil {
			return nil, fmt.Errorf("entity model %s: %w", f.name, err)
		}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(f.dst); err != nil {
			return nil, fmt.Errorf("entity model %s: %w", f.name, err)
		}
	}
	r := &recognizer{labels: labels, weights: make(map[string][]labelWeight, len(mapping)/4), basic: make(map[string]bool, len(words))}
	for _, l := range labels {
		r.simple = append(r.simple, simpleLabel(l))
	}
	for _, w := range words {
		r.basic[w] = true
	}
	for key, idx := range mapping {
		if idx < 0 || idx >= len(weights) {
			return nil, fmt.Errorf("entity model: feature %q has no weight", key)
		}
		// prose looks up feature + "-" + value + "-" + label; a key is
		// filed under every label it can end with, so the look-up of
		// feature + "-" + value finds exactly the keys prose would.
		for li, l := range labels {
			if len(key) > len(l) && strings.HasSuffix(key, l) && key[len(key)-len(l)-1] == '-' {
				fv := key[:len(key)-len(l)-1]
				r.weights[fv] = append(r.weights[fv], labelWeight{int32(li), weights[idx]})
			}
		}
	}
	return r, nil
}

// simpleLabel is prose's simplePOS: the history value of a label.
func simpleLabel(l string) string {
	if strings.HasPrefix(l, "V") {
		return "v"
	}
	b, _, _ := strings.Cut(l, "-")
	return b
}

// classify labels words (prose's token texts) tagged tags, in order, as
// prose's entity extracter does.
func (r *recognizer) classify(words, tags []string) []string {
	out := make([]string, len(words))
	hist := make([]string, 0, len(words))
	scores := make([]float64, len(r.labels))
	var buf []byte
	for i := range words {
		buf = r.score(i, words, tags, hist, scores, buf)
		// The highest score wins (the first of equal ones); with none
		// above -Inf there is no label, as in prose.
		best, bi := math.Inf(-1), -1
		for li, s := range scores {
			if s > best {
				best, bi = s, li
			}
		}
		if bi < 0 {
			out[i] = ""
			hist = append(hist, "")
			continue
		}
		out[i] = r.labels[bi]
		hist = append(hist, r.simple[bi])
	}
	return out
}

// score writes into scores each label's score for token i after the
// history hist (the simple labels of tokens 0..i-1), summing each label's
// weights in prose's feature order. buf is scratch space, returned for
// reuse.
func (r *recognizer) score(i int, words, tags, hist []string, scores []float64, buf []byte) []byte {
	clear(scores)
	word := words[i]
	lower := strings.ToLower(word)
	prevTag, prevWord, prevPos, prevShape := "None", "None", "None", "None"
	if i > 0 {
		prevWord, prevPos, prevTag = strings.ToLower(words[i-1]), tags[i-1], hist[i-1]
		if i > 1 {
			prevShape = shapeOf(words[i-1])
		}
	}
	nextWord, nextPos := "None", "None"
	if i+1 < len(words) {
		nextWord, nextPos = strings.ToLower(words[i+1]), strings.ToLower(tags[i+1])
	}
	basic := "False"
	if r.basic[word] {
		basic = "True"
	}
	n := min(len(word), 3)
	for _, name := range recognizerFeatures {
		buf = append(append(buf[:0], name...), '-')
		switch name {
		case "bias":
			buf = append(buf, "True"...)
		case "en-wordlist":
			buf = append(buf, basic...)
		case "nextpos":
			buf = append(buf, nextPos...)
		case "nextword":
			buf = append(buf, nextWord...)
		case "pos":
			buf = append(buf, tags[i]...)
		case "pos+prevtag":
			buf = append(append(append(buf, tags[i]...), '+'), prevTag...)
		case "prefix3":
			buf = append(buf, strings.ToLower(word[:n])...)
		case "prevpos":
			buf = append(buf, prevPos...)
		case "prevtag":
			buf = append(buf, prevTag...)
		case "prevword":
			buf = append(buf, prevWord...)
		case "shape":
			buf = append(buf, shapeOf(word)...)
		case "shape+prevtag":
			buf = append(append(append(buf, prevShape...), '+'), prevTag...)
		case "suffix3":
			buf = append(buf, strings.ToLower(word[len(word)-n:])...)
		case "word":
			buf = append(buf, word...)
		case "word+nextpos":
			buf = append(append(append(buf, lower...), '+'), nextPos...)
		case "word.lower":
			buf = append(buf, lower...)
		case "wordlen":
			buf = strconv.AppendInt(buf, int64(len(word)), 10)
		}
		for _, lw := range r.weights[string(buf)] {
			scores[lw.label] += lw.w
		}
	}
	return buf
}

// shapeOf is prose's shape of a word: "number", "punct" (it ends with a
// character outside [0-9A-Za-z_]), "downcase", "upcase" (title case) or
// "mixedcase".
func shapeOf(word string) string {
	if _, err := strconv.ParseFloat(word, 64); err == nil {
		return "number"
	}
	r, _ := utf8.DecodeLastRuneInString(word)
	switch {
	case word == "":
		return "other"
	case !(r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'):
		return "punct"
	case strings.ToLower(word) == word:
		return "downcase"
	case strings.Title(word) == word: //lint:ignore SA1019 prose's test, word breaks included
		return "upcase"
	}
	return "mixedcase"
}
