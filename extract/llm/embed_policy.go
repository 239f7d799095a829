package llm

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
)

// embedJob carries one Embed call through a policy client: the texts go
// in the request (so the token limiter sees their size), the call itself
// and its result travel in the context.
type embedJob struct {
	e     extract.Embedder
	texts []string
	vecs  [][]float32
	use   extract.EmbedUsage
}

type embedJobKey struct{}

// embedCall is the Client a policy wraps for an embedder: it runs the job
// found in the context.
type embedCall struct{}

// Complete implements Client.
func (embedCall) Complete(ctx context.Context, _ Request) (Response, error) {
	job, _ := ctx.Value(embedJobKey{}).(*embedJob)
	if job == nil {
		return Response{}, extract.Errorf(extract.KindInternal, "embedding call without a job")
	}
	vecs, use, err := job.e.Embed(ctx, job.texts)
	job.use = job.use.Add(use)
	if err != nil {
		return Response{}, err
	}
	job.vecs = vecs
	return Response{}, nil
}

// policyEmbedder applies a Policy around an Embedder.
type policyEmbedder struct {
	extract.Embedder
	pc Client
}

// WithEmbedPolicy wraps e with the same retries, per-attempt timeout, rate
// limits and concurrency bound as WithPolicy gives a chat client: each
// Embed call is one request to the limiters, its texts counted as tokens.
func WithEmbedPolicy(e extract.Embedder, p Policy) extract.Embedder {
	return &policyEmbedder{Embedder: e, pc: WithPolicy(embedCall{}, p)}
}

// Embed implements extract.Embedder.
func (p *policyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	job := &embedJob{e: p.Embedder, texts: texts}
	msgs := make([]Message, len(texts))
	for i, t := range texts {
		msgs[i] = Message{Role: "user", Content: t}
	}
	_, err := p.pc.Complete(context.WithValue(ctx, embedJobKey{}, job), Request{Messages: msgs, Purpose: "embed"})
	if err != nil {
		return nil, job.use, err
	}
	return job.vecs, job.use, nil
}
